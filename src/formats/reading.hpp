// What a reader of a third-party training config understood: the tpcost config it maps to,
// where each value came from in the user's file, and what it ignored or could not model.
// Readers live in the CLI (they use yaml-cpp and toml++); the core never sees them.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tpcost::cli::formats {

/// How a reader is run: --set VAR=VALUE resolves a script's variables; --strict turns the
/// warnings about values tpcost cannot model into errors.
struct read_options {
  std::map<std::string, std::string> set;
  bool strict = false;
  /// The text of a file a launch script sources (`source FILE`); empty: read from disk. The
  /// fuzzer gives its own, so that it never reads the machine's files.
  std::function<std::string(const std::string& path)> read_source = {};
};

/// A place in the user's file, as errors print it: "train.sh:42: --micro-batch-size".
struct place {
  std::string file;
  std::size_t line = 0;    ///< 1-based; 0 when unknown
  std::size_t column = 0;  ///< 1-based; 0 when unknown
  std::string key;         ///< the flag or key path as the user wrote it

  [[nodiscard]] std::string text() const;
};

/// Something the reader did not carry into the tpcost config.
struct reader_note {
  enum class kind {
    ignored,  ///< no effect on what tpcost models (learning rate, data paths, logging)
    warning,  ///< it would change the step, but tpcost cannot model it (an error with --strict)
    missing,  ///< the file does not state it: convert says so; check and step name it if needed
  };
  kind severity = kind::ignored;
  place where;
  std::string text;
};

/// The formats tpcost reads, detected by content.
enum class source_format {
  tpcost_json,
  hf_config,
  megatron_script,
  megatron_log,
  nemo_yaml,
  torchtitan_toml,
  deepspeed_json,
};

/// "Megatron-LM launch script", for messages and the converted config's /source/format.
const char* format_name(source_format f);
/// The short id written to /source/format, e.g. "megatron-lm-script".
const char* format_id(source_format f);

/// One file, read.
struct reading {
  source_format format = source_format::tpcost_json;
  std::string framework;            ///< "megatron-core", "deepspeed", "fsdp2"; the stack later
  nlohmann::json config;            ///< a tpcost config document (the JSON format)
  std::map<std::string, place> at;  ///< JSON pointer -> where its value came from
  std::vector<reader_note> notes;
  std::vector<reader_note> blockers;  ///< what tpcost cannot cost at all (MoE): an error to use
  /// The global batch as sequences per DP rank, where DP is known only with the GPU count
  /// (config_document::batch_per_rank).
  std::int64_t batch_per_rank = 0;
  place batch_per_rank_at;
  /// A global batch the file states while DP comes from the GPU count: the sequences per DP
  /// rank it must be a multiple of x DP, and what they are in the file's keys
  /// (config_document::global_per_rank).
  std::int64_t global_per_rank = 0;
  std::string global_per_rank_what;

  /// Sets `pointer` (e.g. "/parallel/tp") to `value`, remembering where it came from.
  void put(const std::string& pointer, nlohmann::json value, place from);
  void ignore(place where, std::string why = {});
  /// A value tpcost cannot model; throws (config_error) with --strict.
  void warn(const read_options& opts, place where, std::string text);
  /// A value the file does not state (the vocabulary of a tokenizer read from its files).
  void lack(place where, std::string text);
};

/// One Megatron argument by its argparse `dest` name, from a script, a log or a YAML key.
struct megatron_arg {
  std::string dest;   ///< tensor_model_parallel_size
  std::string value;  ///< "8"; "True" for a store_true flag; "None"/"False" for unset
  std::string shown;  ///< as written: "--tensor-model-parallel-size $TP_SIZE"
  place where;
  std::vector<std::string> unresolved = {};  ///< variables the value needs and the script lacks
};

/// Where the arguments came from: a script's torchrun flags give the GPU count, a log's
/// world_size does, a config file has none.
enum class megatron_style { script, log, config };

/// Maps Megatron arguments onto tpcost's config (shared by the script, the log and the
/// Megatron-Bridge YAML, whose model keys are Megatron's TransformerConfig fields).
/// `core_minor`: the Megatron-Core release N of core_v0.N a script names, if any.
void map_megatron(std::vector<megatron_arg> args, reading& r, const read_options& opts,
                  const std::string& file, megatron_style style,
                  std::optional<int> core_minor = std::nullopt);

/// Throws the one-line error "FILE:LINE[:COL]: KEY" + detail.
[[noreturn]] void fail(const place& where, const std::string& detail);

// The readers. Each throws config_error naming file:line for what it cannot read.
reading read_megatron_script(const std::string& text, const std::string& file,
                             const read_options& opts);
reading read_megatron_log(const std::string& text, const std::string& file,
                          const read_options& opts);
reading read_nemo_yaml(const std::string& text, const std::string& file, const read_options& opts);
reading read_torchtitan_toml(const std::string& text, const std::string& file,
                             const read_options& opts);
reading read_deepspeed_json(const nlohmann::json& doc, const std::string& text,
                            const std::string& file, const read_options& opts);

/// 1-based line of byte `offset` in `text`.
std::size_t line_of(const std::string& text, std::size_t offset);

}  // namespace tpcost::cli::formats
