// CUDA graphs as Megatron-Core configures them (step/cuda_graphs.hpp): the scopes read and
// checked as core_v0.16.0's TransformerConfig checks them, and what each capture leaves of an
// MoE layer's host time, derived by hand.
#include "tpcost/step/cuda_graphs.hpp"

#include <catch2/catch.hpp>

#include "tpcost/step/moe_layer.hpp"

using namespace tpcost;
namespace scope = tpcost::cuda_graph_scope;

namespace {

cuda_graphs read(std::string_view impl, std::string_view scopes) {
  return parse_cuda_graph_scope(scopes, {.impl = parse_cuda_graph_impl(impl, "impl")}, "scope");
}

}  // namespace

TEST_CASE("CUDA graph implementations and scopes read as Megatron-Core reads them",
          "[cuda_graphs]") {
  CHECK(parse_cuda_graph_impl("none", "f") == cuda_graph_impl::none);
  CHECK(parse_cuda_graph_impl("transformer-engine", "f") == cuda_graph_impl::transformer_engine);
  CHECK_THROWS_WITH(parse_cuda_graph_impl("te", "--cuda-graph-impl"),
                    Catch::Contains("'te' is not a CUDA graph implementation"));
  // A list as a script, a Python list or a comma list gives it; "full" and empty: the layer.
  const auto te = read("transformer_engine", "attn moe_router moe_preprocess");
  CHECK(te.scopes == (scope::attn | scope::moe_router | scope::moe_preprocess));
  CHECK(read("transformer_engine", "['attn', 'moe_router']").scopes ==
        (scope::attn | scope::moe_router));
  CHECK(read("transformer_engine", "full").scopes == 0);
  CHECK(read("local", "").scopes == 0);
  CHECK(cuda_graph_scopes_to_string(te.scopes) == "attn,moe_router,moe_preprocess");
  // core_v0.16.0's whole iteration is core_v0.18.0's --cuda-graph-impl full_iteration.
  CHECK(read("local", "full_iteration") == cuda_graphs{.impl = cuda_graph_impl::full_iteration});
  CHECK(read("full_iteration", "") == cuda_graphs{.impl = cuda_graph_impl::full_iteration});
  // local does not tell moe_router and moe_preprocess apart: either brings the other.
  CHECK(read("local", "moe_router").scopes == (scope::moe_router | scope::moe_preprocess));
  // What __post_init__ asserts.
  CHECK_THROWS_WITH(read("transformer_engine", "moe_preprocess"),
                    Catch::Contains("only supported with moe_router"));
  CHECK_THROWS_WITH(read("transformer_engine", "moe moe_router"),
                    Catch::Contains("both moe and moe_router"));
  CHECK_THROWS_WITH(read("transformer_engine", "full attn"), Catch::Contains("full scope"));
  CHECK_THROWS_WITH(read("transformer_engine", "full_iteration"),
                    Catch::Contains("needs --cuda-graph-impl local"));
  CHECK_THROWS_WITH(read("full_iteration", "attn"), Catch::Contains("must be empty"));
  CHECK_THROWS_WITH(read("local", "mlp attention"),
                    Catch::Contains("'attention' is not a CUDA graph scope"));
}

TEST_CASE("each capture takes its parts' launches off the host, only a whole MoE layer the sync",
          "[cuda_graphs][moe]") {
  // The four parts of an MoE layer's launches (attention, router, preprocess; dispatch, experts
  // and combine), each a quarter.
  CHECK(moe_eager_launch_share({}) == 1.0);
  CHECK(moe_eager_launch_share(read("transformer_engine", "attn")) == 0.75);
  CHECK(moe_eager_launch_share(read("transformer_engine", "attn moe_router")) == 0.5);
  CHECK(moe_eager_launch_share(read("transformer_engine", "attn moe_router moe_preprocess")) ==
        0.25);
  CHECK(moe_eager_launch_share(read("transformer_engine", "moe")) == 0.25);
  CHECK(moe_eager_launch_share(read("transformer_engine", "attn moe")) == 0.0);
  CHECK(moe_eager_launch_share(read("transformer_engine", "mlp")) == 1.0);  // dense layers only
  CHECK(moe_eager_launch_share(read("local", "")) == 0.0);
  CHECK(moe_eager_launch_share(read("local", "full_iteration")) == 0.0);
  // None of the partial scopes reaches past the dispatcher's synchronisation.
  CHECK_FALSE(captures_dispatch(read("transformer_engine", "attn moe_router moe_preprocess")));
  CHECK(captures_dispatch(read("transformer_engine", "moe")));
  CHECK(captures_dispatch(read("transformer_engine", "")));
  CHECK_FALSE(captures_dispatch(read("none", "moe")));  // no implementation: nothing captured

  // By hand, with a 2 ms sync and 1 ms of launches per eager pass: attn, moe_router and
  // moe_preprocess leave the dispatch part's quarter: forward 2 + 0.25, backward 0.25.
  expert_options o;
  o.host_sync = seconds(2e-3);
  o.host_launch = seconds(1e-3);
  auto h = moe_host_time_of(o);
  CHECK(h.forward.value() == Approx(3e-3));
  CHECK(h.backward.value() == Approx(1e-3));
  o.graphs = read("transformer_engine", "attn moe_router moe_preprocess");
  h = moe_host_time_of(o);
  CHECK(h.forward.value() == Approx(2.25e-3));
  CHECK(h.backward.value() == Approx(0.25e-3));
  o.graphs = read("transformer_engine", "attn moe");  // drop-and-pad: the whole layer, no sync
  h = moe_host_time_of(o);
  CHECK(h.forward.value() == 0.0);
  CHECK(h.backward.value() == 0.0);
}
