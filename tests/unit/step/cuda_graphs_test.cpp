// CUDA graphs as Megatron-Core configures them (step/cuda_graphs.hpp): the scopes read and
// checked as core_v0.16.0's TransformerConfig checks them.
#include "tpcost/step/cuda_graphs.hpp"

#include <catch2/catch.hpp>

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
