// Context parallelism: split, exchanges, placement, overlap (step/context_parallel.hpp).
#include "tpcost/step/context_parallel.hpp"

#include <catch2/catch.hpp>

#include "support/matchers.hpp"
#include "tpcost/model/model_presets.hpp"

using namespace tpcost;
using tpcost::test::near;

namespace {
// Llama-3-8B-like: h 4096, 32 heads, 8 KV heads (kv_dim 1024), s = 131072.
transformer_spec llama8b(std::int64_t seq) {
  auto m = with_architecture({.layers = 32,
                              .hidden = 4096,
                              .heads = 32,
                              .kv_heads = 8,
                              .ffn = 14336,
                              .vocab = 128256,
                              .seq = seq},
                             architecture::llama);
  return m;
}
constexpr cluster_topology dgx{.gpus_per_node = 8,
                               .intra = {bytes_per_second(450e9), seconds(3.4e-6)},
                               .inter = {bytes_per_second(50e9), seconds(14e-6)}};
}  // namespace

TEST_CASE("Causal balancing needs s to divide by 2*cp: the error names it", "[context_parallel]") {
  const auto m = llama8b(131072);
  CHECK_NOTHROW(validate(context_parallel{.cp = 16}, m, 1, 8));
  auto odd = llama8b(3 * 1023);
  CHECK_NOTHROW(validate(context_parallel{.cp = 3, .causal = false}, odd, 1, 8));
  CHECK_THROWS_WITH(validate(context_parallel{.cp = 3}, odd, 1, 8),
                    Catch::Contains("2*cp = 6") && Catch::Contains("cp:"));
  CHECK_THROWS_WITH(validate(context_parallel{.cp = 0}, m, 1, 8), Catch::Contains("out of range"));
}

TEST_CASE("a2a needs the heads of a TP rank to divide by cp", "[context_parallel]") {
  const auto m = llama8b(131072);
  // 8 KV heads at t = 2: 4 per rank; a2a over 8 cannot split them.
  CHECK_THROWS_WITH(validate(context_parallel{.cp = 8, .comm = cp_comm_type::a2a}, m, 2, 8),
                    Catch::Contains("does not divide"));
  CHECK_NOTHROW(validate(context_parallel{.cp = 4, .comm = cp_comm_type::a2a}, m, 2, 8));
  // a2a+p2p picks the largest inner group that fits the node beside TP and the heads.
  CHECK(a2a_group_size(m, 2, {.cp = 8, .comm = cp_comm_type::a2a_p2p}, 8) == 4);
  CHECK(a2a_group_size(m, 8, {.cp = 8, .comm = cp_comm_type::a2a_p2p}, 8) == 1);
}

TEST_CASE("p2p ring: cp-1 K,V blocks forward, K,V and dK,dV backward", "[context_parallel]") {
  const auto m = llama8b(131072);
  const auto x = cp_exchanges(m, 1, 1, {.cp = 4}, 2.0, 8);
  REQUIRE(x.size() == 2);
  // K and V of 32768 tokens x 1024 x 2 B = 128 MiB per block
  const double kv = 2.0 * 32768 * 1024 * 2;
  CHECK(x[0].count == 3);
  CHECK_THAT(x[0].message.value(), near(kv));
  CHECK(x[0].overlaps_attention);
  CHECK_THAT(x[1].message.value(), near(2 * kv));
  CHECK(x[1].backward);
  CHECK(cp_exchanges(m, 1, 1, {.cp = 1}, 2.0, 8).empty());
}

TEST_CASE("A ring step hides behind its attention block: only the excess is exposed",
          "[context_parallel]") {
  const auto m = llama8b(131072);
  const auto x = cp_exchanges(m, 1, 1, {.cp = 4}, 2.0, 8);
  const auto where = place_strided(4, 1, 8);
  CHECK_FALSE(where.spans_nodes());
  const double step_fwd = 3.4e-6 + 2.0 * 32768 * 1024 * 2 / 450e9;
  // Long attention: all hidden.
  auto c = sum_cp_comm(x, seconds(1.0), seconds(2.0), where, where, dgx);
  CHECK_THAT(c.forward.value(), near(3 * step_fwd));
  CHECK(c.exposed().value() == 0.0);
  // No attention time at all: everything exposed.
  c = sum_cp_comm(x, seconds(0.0), seconds(0.0), where, where, dgx);
  CHECK_THAT(c.exposed().value(), near(c.total().value()));
  // Block of 4 ms per 4 steps = 1 ms each vs a 0.6 ms transfer: hidden.
  c = sum_cp_comm(x, seconds(4e-3), seconds(8e-3), where, where, dgx);
  CHECK(c.exposed().value() == 0.0);
  CHECK(c.hidden().value() > 0.0);
}

TEST_CASE("CP sits after TP in Megatron's order: it leaves the node once t*cp exceeds it",
          "[context_parallel]") {
  CHECK_FALSE(place_strided(2, 4, 8).spans_nodes());
  const auto across = place_strided(16, 8, 8);  // Llama 3: t = 8, cp = 16
  CHECK(across.per_node == 1);
  CHECK(across.nodes == 16);
  const auto two = place_strided(4, 4, 8);
  CHECK(two.per_node == 2);
  CHECK(two.nodes == 2);
  // The same ring step costs more on the inter-node link.
  const auto m = llama8b(131072);
  const auto x = cp_exchanges(m, 1, 8, {.cp = 16}, 2.0, 8);
  CHECK(cp_exchange_time(x[0], across, dgx) >
        cp_exchange_time(x[0], place_strided(16, 1, 128), dgx));
}

TEST_CASE("all_gather gathers K,V forward and again backward, reduce-scatters dK,dV",
          "[context_parallel]") {
  const auto m = llama8b(131072);
  const auto x = cp_exchanges(m, 1, 1, {.cp = 4, .comm = cp_comm_type::all_gather}, 2.0, 8);
  REQUIRE(x.size() == 3);
  const double kv = 2.0 * 32768 * 1024 * 2;
  CHECK_THAT(x[0].message.value(), near(4 * kv));
  CHECK(x[0].op == cp_transfer::all_gather);
  CHECK(x[2].op == cp_transfer::reduce_scatter);
  CHECK_FALSE(x[0].overlaps_attention);
  const auto where = place_strided(4, 1, 8);
  const auto c = sum_cp_comm(x, seconds(1.0), seconds(2.0), where, where, dgx);
  CHECK_THAT(c.exposed().value(), near(c.total().value()));  // exposed, as TE says
  // each rank sends 3/4 of the gathered tensor per collective
  CHECK_THAT(c.sent.value(), near(3 * 0.75 * 4 * kv));
}

TEST_CASE("a2a moves Q, K, V and the output: a2a+p2p adds a shorter ring", "[context_parallel]") {
  const auto m = llama8b(131072);
  const auto a = cp_exchanges(m, 1, 1, {.cp = 8, .comm = cp_comm_type::a2a}, 2.0, 8);
  REQUIRE(a.size() == 4);
  const double tokens = 131072.0 / 8;
  CHECK_THAT(a[0].message.value(), near((tokens * 4096 + 2 * tokens * 1024) * 2));
  const auto h = cp_exchanges(m, 1, 2, {.cp = 8, .comm = cp_comm_type::a2a_p2p}, 2.0, 8);
  REQUIRE(h.size() == 6);  // 4 a2a on the inner 4 ranks, 2 ring kinds over 2 groups
  CHECK(h[0].ranks == 4);
  CHECK(h[0].inner);
  CHECK(h[4].ranks == 2);
  CHECK(h[4].count == 1);
  // all-to-all across nodes: the inter-node share dominates
  const auto x = a[0];
  CHECK(cp_exchange_time(x, place_strided(8, 8, 8), dgx) >
        cp_exchange_time(x, place_strided(8, 1, 8), dgx));
}

TEST_CASE("MLA's exchanges carry its per-head query/key and value widths, not one head dim",
          "[context_parallel]") {
  // DeepSeek-V3's attention: 128 heads, q/k 128 + 64 = 192 and v 128 per head.
  auto m = model_preset_named("deepseek-v3", "model").spec;
  m.seq = 32768;
  for (const auto comm :
       {cp_comm_type::p2p, cp_comm_type::all_gather, cp_comm_type::a2a, cp_comm_type::a2a_p2p}) {
    CHECK_NOTHROW(validate(context_parallel{.cp = 4, .comm = comm}, m, 2, 8));
  }
  const double tokens = 32768.0 / 4;
  const double t = 2.0;
  const auto ring = cp_exchanges(m, 1, 2, {.cp = 4}, 2.0, 8);
  REQUIRE(ring.size() == 2);
  const double kv = tokens * 128 * (192 + 128) / t * 2;
  CHECK_THAT(ring[0].message.value(), near(kv));
  CHECK_THAT(ring[1].message.value(), near(2 * kv));
  const auto a = cp_exchanges(m, 1, 2, {.cp = 4, .comm = cp_comm_type::a2a}, 2.0, 8);
  REQUIRE(a.size() == 4);
  CHECK_THAT(a[0].message.value(), near(tokens * 128 * (192 + 192 + 128) / t * 2));  // Q, K, V
  CHECK_THAT(a[1].message.value(), near(tokens * 128 * 128 / t * 2));  // the output: v per head
}

TEST_CASE("a2a moves Q and the output at heads x head_dim, which need not be h",
          "[context_parallel]") {
  // Qwen3-30B-A3B's attention: h 2048, 32 query heads and 4 KV heads of 128 (q_dim 4096).
  auto m = model_preset_named("qwen3-30b-a3b", "model").spec;
  m.seq = 32768;
  const auto a = cp_exchanges(m, 1, 1, {.cp = 4, .comm = cp_comm_type::a2a}, 2.0, 8);
  REQUIRE(a.size() == 4);
  const double tokens = 32768.0 / 4;
  CHECK_THAT(a[0].message.value(), near(tokens * (4096 + 2 * 512) * 2));
  CHECK_THAT(a[1].message.value(), near(tokens * 4096 * 2));
}

TEST_CASE("CP communication types parse by Megatron's names", "[context_parallel]") {
  CHECK(parse_cp_comm_type("p2p", "--cp-comm-type") == cp_comm_type::p2p);
  CHECK(parse_cp_comm_type("all_gather", "--cp-comm-type") == cp_comm_type::all_gather);
  CHECK(parse_cp_comm_type("a2a+p2p", "--cp-comm-type") == cp_comm_type::a2a_p2p);
  CHECK(to_string(cp_comm_type::a2a_p2p) == "a2a+p2p");
  CHECK_THROWS_WITH(parse_cp_comm_type("ring", "--cp-comm-type"),
                    Catch::Contains("--cp-comm-type") && Catch::Contains("all_gather"));
}
