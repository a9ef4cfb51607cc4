// Megatron-Core's rank placement (comm/placement.hpp): which groups share nodes and domains.
#include "tpcost/comm/placement.hpp"

#include <catch2/catch.hpp>
#include <map>

#include "tpcost/hardware/presets.hpp"

using namespace tpcost;

namespace {
cluster_topology dgx() {
  return make_topology(gpu_preset_by_name("h100-sxm", "gpu"),
                       interconnect_preset_by_name("ndr", "net"));
}
}  // namespace

TEST_CASE("TP is fastest: a TP group of 8 fills one node: DP strides over TP") {
  const auto t = dgx();
  const rank_layout l{.tp = 8, .dp = 4, .pp = 2};
  const auto tp = place_dimension(t, l, parallel_dim::tp);
  CHECK(tp.nodes == 1);
  CHECK(tp.per_node == 8);
  const auto dp = place_dimension(t, l, parallel_dim::dp, 1);
  CHECK(dp.nodes == 4);
  CHECK(dp.per_node == 1);
  CHECK(dp.concurrent == 8);  // one DP group per TP rank, all on the node's NICs
}

TEST_CASE("t=2, p=4, d=2 on two nodes of 8: a stage boundary crosses InfiniBand") {
  const auto t = dgx();
  const rank_layout l{.tp = 2, .dp = 2, .pp = 4};
  // stages hold ranks 0-3, 4-7, 8-11, 12-15: the boundary after stage 1 leaves node 0.
  CHECK_FALSE(boundary_after(t, l, 0).crosses_node);
  CHECK(boundary_after(t, l, 1).crosses_node);
  CHECK_FALSE(boundary_after(t, l, 2).crosses_node);
  CHECK(p2p_link(t, l, 1).bandwidth < p2p_link(t, l, 0).bandwidth);
  CHECK(any_p2p_across_domains(t, l));
  // DP groups stay inside a node at every stage.
  for (std::int64_t s = 0; s < 4; ++s) {
    CHECK(place_dimension(t, l, parallel_dim::dp, s).nodes == 1);
  }
}

TEST_CASE("DP groups honour each stage's offset on an NVL72-size domain") {
  auto t = dgx();
  t.gpus_per_node = 4;     // compute trays of 4
  t.scale_up_domain = 72;  // one NVLink domain of 18 trays
  // t=4, d=24, p=2: stage 0 holds ranks 0-95, stage 1 ranks 96-191
  const rank_layout l{.tp = 4, .dp = 24, .pp = 2};
  const auto s0 = place_dimension(t, l, parallel_dim::dp, 0);
  const auto s1 = place_dimension(t, l, parallel_dim::dp, 1);
  CHECK(s0.domains == 2);  // ranks 0..92: racks 0 and 1
  CHECK(s1.domains == 2);  // ranks 96..188: racks 1 and 2
  CHECK(s0.nodes == 24);
  const rank_layout fits{.tp = 4, .dp = 18, .pp = 1};
  CHECK(place_dimension(t, fits, parallel_dim::dp).domains == 1);
}

TEST_CASE("The embedding group joins the first and the last stage") {
  const auto t = dgx();
  const rank_layout l{.tp = 8, .dp = 1, .pp = 4};
  const auto e = embedding_group(t, l);
  CHECK(e.ranks == 2);
  CHECK(e.nodes == 2);
  CHECK(embedding_group(t, rank_layout{.tp = 2, .pp = 2}).nodes == 1);
}

TEST_CASE("A custom order moves DP before TP") {
  const auto t = dgx();
  rank_layout l{.tp = 8, .dp = 4};
  l.order = {parallel_dim::dp, parallel_dim::tp, parallel_dim::cp, parallel_dim::ep,
             parallel_dim::pp};
  CHECK(place_dimension(t, l, parallel_dim::dp).nodes == 1);
  CHECK(place_dimension(t, l, parallel_dim::tp).nodes == 4);
}

TEST_CASE("The closed-form spread of a strided group is the rank-by-rank count") {
  // Every (base, stride, n) on blocks of 4, 6, 8 and 72 (a node, an odd node, a DGX, NVL72):
  // the blocks touched, the fullest one and the first rank's, counted rank by rank.
  std::int64_t cases = 0;
  for (const std::int64_t block : {4, 6, 8, 72}) {
    for (std::int64_t base = 0; base < 2 * block; base += 3) {
      for (std::int64_t stride = 1; stride <= 2 * block + 1; ++stride) {
        for (std::int64_t n = 1; n <= 40; n += (n < 10 ? 1 : 7)) {
          std::map<std::int64_t, std::int64_t> per_block;
          for (std::int64_t i = 0; i < n; ++i) {
            ++per_block[(base + i * stride) / block];
          }
          std::int64_t most = 0;
          for (const auto& [b, c] : per_block) {
            most = std::max(most, c);
          }
          const auto got = detail::spread_over_blocks(base, stride, n, block);
          INFO("base " << base << " stride " << stride << " n " << n << " block " << block);
          CHECK(got.blocks == static_cast<std::int64_t>(per_block.size()));
          CHECK(got.most == most);
          CHECK(got.first == per_block[base / block]);
          ++cases;
        }
      }
    }
  }
  CHECK(cases > 10000);
  // A DP group of 2^21 ranks, one per TP group of 8: 2^21 nodes, found without walking them.
  const auto dp = place_dimension(dgx(), rank_layout{.tp = 8, .dp = 1 << 21}, parallel_dim::dp);
  CHECK(dp.nodes == (1 << 21));
  CHECK(dp.per_node == 1);
}
