// What a GPU needs beyond the bytes its tensors hold: the caching allocator's reserve and the
// memory outside the allocator's count, and the reserve a planner keeps free.
//
// PyTorch reports two peaks: `max_memory_allocated` (the bytes of live tensors, what
// memory.hpp counts) and `max_memory_reserved` (what the caching allocator holds from the
// driver: the allocated bytes plus the cached blocks it could not reuse, its fragmentation).
// The share of the reserve not allocated, measured on eight LLM training runs with the
// caching allocator on A100 80GB (Guo et al. 2024, "GMLake", ASPLOS '24, arXiv:2401.08156,
// abstract: their allocator removes 15% fragmentation on average, up to 33%): tpcost takes
// 15% of the reserve, reserved = allocated / (1 - 0.15). It is an average; under pressure the
// allocator frees its cache and retries before it fails, so a run may still fit with less.
//
// Outside the allocator's count: the CUDA context (the driver's and the kernels' modules) and
// NCCL's buffers (NCCL_BUFFSIZE, 4 MiB by default, per channel and peer of every
// communicator; NCCL's environment-variable documentation). tpcost assumes 1 GiB per GPU for
// both together: no development row measures them (the rows log the allocator's bytes).
#pragma once

#include "tpcost/base/error.hpp"
#include "tpcost/base/units.hpp"

namespace tpcost {

/// The caching allocator's fragmentation: the share of reserved bytes not allocated (GMLake).
inline constexpr double allocator_fragmentation = 0.15;
/// The CUDA context and NCCL's buffers per GPU, outside the allocator (an assumption, above).
inline constexpr bytes outside_allocator = 1.0 * units::GiB;

/// Peak reserved bytes for `allocated` bytes of peak allocated: allocated / (1 - fragmentation).
constexpr bytes reserved_of(bytes allocated, double fragmentation = allocator_fragmentation) {
  return allocated / (1.0 - fragmentation);
}

/// The reserve a planner keeps free of allocated bytes on a GPU of `capacity`: room for the
/// allocator's fragmentation of what it allocates and for what lives outside the allocator,
/// i.e. the largest allocated peak A with reserved_of(A) + outside_allocator <= capacity leaves
/// capacity - A free.
constexpr bytes default_memory_reserve(bytes capacity) {
  const bytes usable = capacity - outside_allocator;
  return usable.value() > 0.0 ? capacity - usable * (1.0 - allocator_fragmentation) : capacity;
}

/// Throws `invalid_spec` unless 0 <= reserve < capacity.
inline void validate_memory_reserve(bytes reserve, bytes capacity) {
  if (!(reserve.value() >= 0.0)) {
    throw invalid_spec("memory-reserve", "must be a non-negative size, e.g. 8GiB");
  }
  if (!(reserve < capacity)) {
    throw invalid_spec("memory-reserve", "must be less than the GPU's memory");
  }
}

}  // namespace tpcost
