// Closed forms of the collective costs, checked at compile time: this file compiling is the test.
// Powers of two keep every value exact in binary floating point.
#include "tpcost/comm/collectives.hpp"
#include "tpcost/layer/metrics.hpp"
#include "tpcost/model/activation_memory.hpp"

namespace {
using namespace tpcost;

constexpr bytes n_bytes{1024.0};
constexpr link_spec link{.bandwidth = bytes_per_second(256.0), .latency = seconds(0.5)};

// Ring all-reduce puts 2(p-1)/p·N bytes on each GPU's link; RS and AG (p-1)/p·N.
static_assert(ring_cost(collective_op::all_reduce, 8, n_bytes, link).wire_bytes.value() ==
              2.0 * 7.0 / 8.0 * 1024.0);
static_assert(ring_cost(collective_op::reduce_scatter, 8, n_bytes, link).wire_bytes.value() ==
              7.0 / 8.0 * 1024.0);
static_assert(ring_cost(collective_op::all_gather, 64, n_bytes, link).wire_bytes.value() ==
              63.0 / 64.0 * 1024.0);
// ... in 2(p-1) and p-1 steps, and T = steps·α + bytes/β.
static_assert(ring_cost(collective_op::all_reduce, 16, n_bytes, link).steps == 30);
static_assert(ring_cost(collective_op::all_reduce, 16, n_bytes, link).time.value() ==
              30 * 0.5 + 2.0 * 15.0 / 16.0 * 1024.0 / 256.0);
// Per-GPU traffic does not grow with p: it tends to 2N.
static_assert(ring_cost(collective_op::all_reduce, 64, n_bytes, link).wire_bytes < 2.0 * n_bytes);
// n = 1 is free.
static_assert(ring_cost(collective_op::all_reduce, 1, n_bytes, link).time.value() == 0.0);
static_assert(tree_all_reduce_cost(1, n_bytes, link).wire_bytes.value() == 0.0);

// The double binary tree: 2·⌈log2 p⌉ latency terms, 2N from the busiest GPU (p >= 4).
static_assert(ceil_log2(1) == 0 && ceil_log2(2) == 1 && ceil_log2(64) == 6 && ceil_log2(65) == 7);
static_assert(tree_all_reduce_cost(64, n_bytes, link).steps == 12);
static_assert(tree_all_reduce_cost(64, n_bytes, link).wire_bytes.value() == 2.0 * 1024.0);
static_assert(tree_all_reduce_cost(2, n_bytes, link).time ==
              ring_cost(collective_op::all_reduce, 2, n_bytes, link).time);

// Hierarchical: the same total bytes as the ring, 2(p-1)/p·N, of which 2(k-1)/k·N/g cross.
static_assert(hierarchical_cost(collective_op::all_reduce, 8, 2, n_bytes, link, link)
                  .wire_bytes.value() == 2.0 * 15.0 / 16.0 * 1024.0);
static_assert(hierarchical_cost(collective_op::all_reduce, 8, 2, n_bytes, link, link)
                  .inter_node_bytes.value() == 1024.0 / 8.0);
static_assert(hierarchical_cost(collective_op::all_reduce, 8, 1, n_bytes, link, link).time ==
              ring_cost(collective_op::all_reduce, 8, n_bytes, link).time);

// nccl-tests: busbw = algbw·2(n-1)/n (all-reduce), ·(n-1)/n (RS, AG).
static_assert(bus_factor(collective_op::all_reduce, 8) == 1.75);
static_assert(bus_factor(collective_op::all_gather, 8) == 0.875);
static_assert(bus_bandwidth(collective_op::all_reduce, 4, bytes_per_second(100.0)).value() ==
              150.0);
// The seed's convention, B as algbw: an all-reduce costs M/B; RS and AG half of it.
static_assert(article_cost(collective_op::all_reduce, 8, n_bytes, bytes_per_second(256.0),
                           bandwidth_kind::algbw)
                  .time.value() == 4.0);
static_assert(article_cost(collective_op::reduce_scatter, 8, n_bytes, bytes_per_second(256.0),
                           bandwidth_kind::algbw)
                      .time.value() +
                  article_cost(collective_op::all_gather, 8, n_bytes, bytes_per_second(256.0),
                               bandwidth_kind::algbw)
                      .time.value() ==
              4.0);

// Overlap: f = 0 is serial, f = 1 is max(T_calc, T_comm).
static_assert(partially_overlapped_time(seconds(2.0), seconds(3.0), 0.0) == seconds(5.0));
static_assert(partially_overlapped_time(seconds(2.0), seconds(3.0), 1.0) == seconds(3.0));
static_assert(partially_overlapped_time(seconds(2.0), seconds(3.0), 0.5) == seconds(4.0));

// Activation memory: TP at t = 1 is the unsharded layer; TP + SP is it divided by t.
constexpr activation_shape shape{.batch = 1, .seq = 1024, .hidden = 1024, .heads = 8};
static_assert(activation_bytes_tp(shape, 1) == activation_bytes_unsharded(shape));
static_assert(activation_bytes_tp_sp(shape, 8).value() ==
              activation_bytes_unsharded(shape).value() / 8.0);
}  // namespace
