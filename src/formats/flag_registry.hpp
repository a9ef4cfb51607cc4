// Every flag of every command, declared once: its names, the value it takes (with its unit),
// its help, its config key and the commands that take it. The commands' CLI11 options
// (options/flag_options.hpp), the config format and its JSON Schema (config.hpp), the value
// names of --help, the shell completions and the man page all come from this table, so that a
// flag means the same in every command that takes it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace tpcost::cli {

/// What a flag's value (and its config key's) must be: decides the loader's check, the schema
/// and the value's name in --help.
enum class value_kind {
  count,                ///< whole number in 1..2^31-1 (b, s, h)
  count_or_auto,        ///< a count, or "auto" (plan searches it)
  degrees,              ///< a TP degree (integer) or a degree list string ("1..64")
  bandwidth,            ///< number > 0 (bytes/s) or a string with a unit ("600GB/s")
  flop_rate,            ///< number > 0 (FLOP/s) or a string with a unit ("989.4T")
  duration,             ///< number >= 0 (seconds) or a string with a unit ("3us")
  byte_size,            ///< number >= 0 (bytes) or a string with a unit ("80GiB")
  dtype,                ///< a dtype name ("bf16") or a byte count 1..16
  open_fraction,        ///< number in (0, 1)
  share,                ///< number in (0, 1] (an achievable share of a peak)
  fraction,             ///< number in [0, 1]
  positive,             ///< number > 0
  node_size,            ///< whole number in 1..2^20 (GPUs per node)
  zero_stage,           ///< whole number in 0..3
  boolean,              ///< true or false
  text,                 ///< a non-empty string
  choice,               ///< one of the key's `choices`
  gpu_preset,           ///< a GPU preset name or alias (presets.hpp), case and separators ignored
  interconnect_preset,  ///< an interconnect preset name or alias
  model_preset,         ///< a model preset name or alias (model_presets.hpp), read as text
  profile_path,  ///< a profile file of `tpcost calibrate --out`, relative to the config's directory
  hf_config_path,  ///< a Hugging Face config.json, relative to the config's directory
};

/// The commands, as bits of a set: which commands take a flag.
namespace cmd {
inline constexpr std::uint32_t sweep = 1U << 0;
inline constexpr std::uint32_t explain = 1U << 1;
inline constexpr std::uint32_t check = 1U << 2;
inline constexpr std::uint32_t schema = 1U << 3;
inline constexpr std::uint32_t model = 1U << 4;
inline constexpr std::uint32_t calibrate = 1U << 5;
inline constexpr std::uint32_t hardware = 1U << 6;
inline constexpr std::uint32_t collective = 1U << 7;
inline constexpr std::uint32_t step = 1U << 8;
inline constexpr std::uint32_t plan = 1U << 9;
inline constexpr std::uint32_t convert = 1U << 10;
inline constexpr std::uint32_t completion = 1U << 11;
inline constexpr std::uint32_t manpage = 1U << 12;
/// The per-layer commands (the article's model).
inline constexpr std::uint32_t layer = sweep | explain;
/// The commands that cost a whole job (check runs step's model on a config).
inline constexpr std::uint32_t job = check | step | plan;
}  // namespace cmd

/// The bit of the command named `name` ("step"); 0 for none.
std::uint32_t command_bit(std::string_view name);

/// One flag.
struct flag_spec {
  std::string_view name;        ///< the long name, "--tp"
  char short_name;              ///< 't' for -t, or '\0'; one meaning in every command
  std::string_view old_names;   ///< earlier long names still read, comma-separated ("--batch")
  value_kind kind;              ///< boolean: a switch without a value
  std::string_view choices;     ///< value_kind::choice: the values, '|'-separated
  std::string_view value_name;  ///< the value's name in --help where the kind does not say it
                                ///< ("FILE", "LIST", "LAYOUT"); empty: from the kind
  std::string_view pointer;     ///< its config key ("/parallel/tp"), or empty
  std::uint32_t commands;       ///< the cmd:: bits of the commands that take it
  std::string_view help;        ///< one line, the same in every command
};

/// Every flag, in --help order within each group.
std::span<const flag_spec> flag_specs();

/// The flag whose long name or old name is `name`, or nullptr.
const flag_spec* find_flag(std::string_view name);

/// CLI11's names of `spec`: "-t,--tp,--fixed-tp".
std::string cli_names(const flag_spec& spec);

/// The value's name in --help, the man page and the completions: "N", "BANDWIDTH",
/// "{alltoall,flex}" (braces: the completions offer the choices), the presets' names for a
/// preset; empty for a switch.
std::string value_name(const flag_spec& spec);

/// "-s,--seq" for a long name with a short form, else the long name alone.
std::string flag_names(std::string_view long_name);

}  // namespace tpcost::cli
