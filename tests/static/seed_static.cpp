// The seed's closed forms, checked at compile time: this file compiling is the test.
#include "tpcost/layer/metrics.hpp"
#include "tpcost/layer/tensor_parallel.hpp"

namespace {
using namespace tpcost;

constexpr layer_spec demo{};     // b=2, s=2048, h=8192, fp32
constexpr device_spec device{};  // 1 PFLOP/s, 600 GB/s

static_assert(message_bytes(demo).value() == 2.0 * 2048 * 8192 * 4);
static_assert(tp_comm_bytes_per_layer(demo).value() == 4 * message_bytes(demo).value());
static_assert(layer_flops(demo).value() == 72.0 * 2 * 2048 * 8192.0 * 8192.0);
// E(t*) = 1/2 exactly when C = A/t* (powers of two keep this exact in binary).
static_assert(efficiency(seconds(8.0), seconds(1.0),
                         critical_tp_degree(seconds(8.0), seconds(1.0))) == 0.5);
static_assert(efficiency_from_ratio(1.0) == 0.5);
static_assert(overlapped_time(seconds(2.0), seconds(3.0)) == seconds(3.0));
}  // namespace
