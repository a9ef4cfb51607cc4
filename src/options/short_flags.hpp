// The short flags, in one table: a letter means the same quantity in every command that has
// the quantity, and no command gives it another meaning (tests/cli checks the man page).
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace tpcost::cli {

struct short_flag {
  char letter;
  std::string_view long_name;
  std::string_view quantity;
};

inline constexpr std::array<short_flag, 14> short_flags{{
    {'b', "--micro-batch", "micro-batch size, sequences (also --batch, its old name)"},
    {'s', "--seq", "sequence length, tokens"},
    {'t', "--tp", "tensor-parallel degree (sweep: a list)"},
    {'p', "--pp", "pipeline stages"},
    {'G', "--global-batch", "sequences per step"},
    {'n', "--gpus", "GPUs in all (collective: the GPUs in the group; --ranks, its old name)"},
    {'m', "--model", "model preset"},
    {'g', "--gpu", "GPU preset"},
    {'i', "--interconnect", "inter-node link preset"},
    {'f', "--format", "output format"},
    {'o', "--output", "output file"},
    {'c', "--config", "config file"},
    {'q', "--quiet", "the result alone: no header, footer or notes"},
    {'h', "--help", "help"},
}};

/// "-s,--seq" for a long name in the table, else the long name alone: CLI11's names string.
inline std::string flag_names(std::string_view long_name) {
  for (const auto& f : short_flags) {
    if (f.long_name == long_name) {
      return std::string{'-', f.letter, ','} + std::string(long_name);
    }
  }
  return std::string(long_name);
}

}  // namespace tpcost::cli
