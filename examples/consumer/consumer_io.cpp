// Uses the installed adapters (tpcost::io): quantities formatted with fmt, results as JSON.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <tpcost/io/format.hpp>
#include <tpcost/io/json.hpp>
#include <tpcost/tpcost.hpp>

int main() {
  using namespace tpcost;
  const auto result = sweep_tp(layer_spec{}, device_spec{}, {8});
  const nlohmann::json j = result;
  fmt::print("comm per layer {}, schema {}\n", io::to_string(result.comm_bytes),
             j.at("schema").get<std::string>());
  return 0;
}
