// torchtitan: the TOML job config (torchtitan/config/job_config.py at pytorch/torchtitan main:
// [model] name/flavor, [training] local_batch_size/global_batch_size/seq_len/
// mixed_precision_param, [parallelism] *_degree, [activation_checkpoint] mode).
// torchtitan trains with FSDP2: data_parallel_shard_degree > 1 shards parameters, gradients and
// optimizer state (ZeRO-3); its TP plan always shards the norms' activations (sequence
// parallelism, torchtitan/models/llama3/infra/parallelize.py apply_tp).
#include <toml++/toml.h>

#include <fmt/format.h>

#include "formats/reading.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/model/model_presets.hpp"

namespace tpcost::cli::formats {

namespace {

struct toml_reader {
  const toml::table& root;
  const std::string& file;
  const read_options& opts;
  reading& r;

  const toml::node* node(const char* section, const char* key) const {
    const auto* t = root.get_as<toml::table>(section);
    return t == nullptr ? nullptr : t->get(key);
  }

  place at(const char* section, const char* key) const {
    const auto* n = node(section, key);
    const std::string name = fmt::format("{}.{}", section, key);
    if (n == nullptr) {
      return {file, 0, 0, name};
    }
    const auto& b = n->source().begin;
    return {file, b.line, b.column, name};
  }

  std::optional<std::int64_t> integer(const char* section, const char* key) const {
    const auto* n = node(section, key);
    if (n == nullptr) {
      return std::nullopt;
    }
    // Type first: toml++ 3.3's value<int64_t>() on a float casts it unchecked (UB beyond
    // the int64 range: `pipeline_parallel_degree = 3e22`; found by the reader fuzzer).
    if (!n->is_integer()) {
      fail(at(section, key), "expected an integer");
    }
    return n->as_integer()->get();
  }

  std::optional<std::string> string(const char* section, const char* key) const {
    const auto* n = node(section, key);
    if (n == nullptr) {
      return std::nullopt;
    }
    if (!n->is_string()) {
      fail(at(section, key), "expected a string");
    }
    return *n->value<std::string>();
  }

  std::optional<std::int64_t> degree(const char* key) const {
    const auto v = integer("parallelism", key);
    if (v && *v < 1 && !(*v == -1 && std::string_view(key) == "data_parallel_shard_degree")) {
      fail(at("parallelism", key), fmt::format("{} is not a degree >= 1", *v));
    }
    if (v && *v > 2147483647) {  // replicate x shard must not overflow
      fail(at("parallelism", key), fmt::format("{} is not a degree in 1..2147483647", *v));
    }
    return v;
  }
};

/// torchtitan's flavours of the models tpcost has presets for.
const char* preset_for(std::string_view name, std::string_view flavor) {
  if (name == "llama3") {
    if (flavor == "8B") {
      return "llama-3-8b";
    }
    if (flavor == "70B") {
      return "llama-3-70b";
    }
    if (flavor == "405B") {
      return "llama-3.1-405b";
    }
  }
  if (name == "llama2" && flavor == "7B") {
    return "llama-2-7b";
  }
  if (name == "llama2" && flavor == "13B") {
    return "llama-2-13b";
  }
  if (name == "llama2" && flavor == "70B") {
    return "llama-2-70b";
  }
  // Mixtures of experts (torchtitan/models/qwen3 and deepseek_v3/__init__.py at b5bcd76).
  if (name == "qwen3" && flavor == "30B-A3B") {
    return "qwen3-30b-a3b";
  }
  if (name == "qwen3" && flavor == "235B-A22B") {
    return "qwen3-235b-a22b";
  }
  if (name == "deepseek_v3" && flavor == "236B") {
    return "deepseek-v2";
  }
  if (name == "deepseek_v3" && flavor == "671B") {
    return "deepseek-v3";
  }
  // GPT-OSS (torchtitan/models/gpt_oss at v0.2.2: __init__.py's 20b and 120b flavours, 24 and 36
  // layers of 32 and 128 experts, top-4, the dims of model/args.py; model/model.py windows layer
  // i when i % 2 == 0, on sliding_window_size 128 keys counting the query's own (attention.py
  // get_sliding_window_mask_mod)): the presets, which carry the same windows.
  if (name == "gpt_oss" && flavor == "20b") {
    return "gpt-oss-20b";
  }
  if (name == "gpt_oss" && flavor == "120b") {
    return "gpt-oss-120b";
  }
  return nullptr;
}

/// The TOML document, refused unless it has a table a torchtitan job config has.
toml::table parse_job_config(const std::string& text, const std::string& file) {
  toml::table root;
  try {
    root = toml::parse(text, std::string_view(file));
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    fail(place{file, b.line, b.column, {}}, "malformed TOML: " + std::string(e.description()));
  }
  if (root.get_as<toml::table>("parallelism") == nullptr &&
      root.get_as<toml::table>("training") == nullptr) {
    fail(place{file, 1, 0, {}},
         "not a torchtitan job config: expected a [parallelism] or [training] table");
  }
  return root;
}

/// The model: a tpcost preset for torchtitan's known flavours.
void read_model(const toml_reader& t) {
  const auto name = t.string("model", "name");
  const auto flavor = t.string("model", "flavor");
  if (name && flavor) {
    if (const char* preset = preset_for(*name, *flavor)) {
      t.r.put("/model/name", preset, t.at("model", "flavor"));
    } else {
      t.r.warn(t.opts, t.at("model", "flavor"),
               fmt::format("{} {} is not a tpcost model preset; give --model or --hf-config", *name,
                           *flavor));
    }
  }
}

/// Context parallelism: PyTorch's context-parallel SDPA, whose KV exchange is
/// context_parallel_rotate_method (torchtitan/config/job_config.py): 'allgather' (the default)
/// all-gathers the KV shards, 'alltoall' rotates them rank to rank, the ring of p2p.
void read_context_parallel(const toml_reader& t) {
  if (const auto cp = t.degree("context_parallel_degree"); cp && *cp > 1) {
    t.r.put("/parallel/cp", *cp, t.at("parallelism", "context_parallel_degree"));
    const auto rotate =
        t.string("parallelism", "context_parallel_rotate_method").value_or("allgather");
    const auto rotate_at = t.at("parallelism", "context_parallel_rotate_method");
    if (rotate == "allgather" || rotate == "alltoall") {
      t.r.put("/parallel/cp_comm_type", rotate == "allgather" ? "all_gather" : "p2p", rotate_at);
    } else {
      fail(rotate_at, fmt::format("{} is not a rotate method; expected allgather or alltoall",
                                  quote_value(rotate)));
    }
  }
}

/// Expert parallelism borrows its ranks from dp_shard·cp·tp, and experts are not split over
/// TP (torchtitan/config/configs.py at b5bcd76: efsdp = dp_shard·cp·tp/ep): etp = 1. v0.2.2
/// has expert_tensor_parallel_degree, 1 or tp (torchtitan/distributed/parallel_dims.py at
/// 73a0e69: "Currently we only support ETP=TP or ETP=1"; efsdp = dp_shard·cp·tp/(etp·ep)).
void read_expert_parallel(const toml_reader& t, std::int64_t tp) {
  if (const auto ep = t.degree("expert_parallel_degree"); ep && *ep > 1) {
    t.r.put("/parallel/ep", *ep, t.at("parallelism", "expert_parallel_degree"));
    const auto etp = t.degree("expert_tensor_parallel_degree").value_or(1);
    if (etp != 1 && etp != tp) {
      fail(t.at("parallelism", "expert_tensor_parallel_degree"),
           fmt::format("{} is neither 1 nor tensor_parallel_degree = {}: torchtitan supports "
                       "ETP = TP or ETP = 1",
                       etp, tp));
    }
    t.r.put(
        "/parallel/etp", etp,
        t.at("parallelism", etp != 1 ? "expert_tensor_parallel_degree" : "expert_parallel_degree"));
  }
}

/// DP and the sharding over it; returns DP, none when data_parallel_shard_degree is -1 (the
/// GPUs left over, known only once --gpus is).
std::optional<std::int64_t> read_data_parallel(const toml_reader& t) {
  const auto replicate = t.degree("data_parallel_replicate_degree").value_or(1);
  const auto shard = t.degree("data_parallel_shard_degree").value_or(-1);
  std::optional<std::int64_t> dp;
  if (shard != -1) {
    dp = replicate * shard;
    t.r.put("/parallel/dp", *dp, t.at("parallelism", "data_parallel_shard_degree"));
  }
  // torchtitan/models/llama3/infra/parallelize.py at v0.2.2: FSDP (fully_shard) when
  // dp_shard or cp is enabled (ParallelDims.fsdp_enabled), else DDP over the replicas
  // (apply_ddp): ZeRO-3 or 0. HSDP (replicate and shard) shards over the shard group only,
  // the replicas all-reduce each shard (apply_fsdp's dp_mesh ("dp_replicate", "dp_shard_cp")).
  const bool cp_on = t.degree("context_parallel_degree").value_or(1) > 1;
  if (shard != 1 || cp_on) {
    t.r.put("/options/zero", 3, t.at("parallelism", "data_parallel_shard_degree"));
    if (replicate > 1) {
      t.r.put("/parallel/dp_replicas", replicate,
              t.at("parallelism", "data_parallel_replicate_degree"));
    }
  } else if (replicate > 1) {
    t.r.put("/options/zero", 0, t.at("parallelism", "data_parallel_replicate_degree"));
  }
  return dp;
}

/// What the batch needs of the layout: PP, and DP when the TOML fixes it.
struct layout_read {
  std::int64_t pp = 1;
  std::optional<std::int64_t> dp;
};

/// The layout: TP (with sequence parallelism), PP, CP, EP, DP and the pipeline schedule.
layout_read read_layout(const toml_reader& t) {
  const auto tp = t.degree("tensor_parallel_degree").value_or(1);
  const auto pp = t.degree("pipeline_parallel_degree").value_or(1);
  t.r.put("/parallel/tp", tp, t.at("parallelism", "tensor_parallel_degree"));
  t.r.put("/parallel/pp", pp, t.at("parallelism", "pipeline_parallel_degree"));
  if (tp > 1) {
    t.r.put("/options/sp", true, t.at("parallelism", "tensor_parallel_degree"));
  }
  read_context_parallel(t);
  read_expert_parallel(t, tp);
  const auto dp = read_data_parallel(t);
  if (const auto schedule = t.string("parallelism", "pipeline_parallel_schedule");
      schedule && pp > 1 && *schedule != "1F1B") {
    t.r.warn(t.opts, t.at("parallelism", "pipeline_parallel_schedule"),
             fmt::format("pipeline schedule {} is costed as 1F1B", quote_value(*schedule)));
  }
  return {pp, dp};
}

/// The sequences one DP rank runs a step, where the TOML gives them.
struct per_rank_batch {
  std::optional<std::int64_t> sequences;
  place at;
  std::string what;  ///< the sequences per DP rank, in the TOML's keys
};

/// The training.seq_len (or max_context_length) key and its value.
struct sequence_length {
  const char* key;
  std::optional<std::int64_t> value;
};

/// A token count of [training] as sequences, none when not given or not positive.
std::optional<std::int64_t> in_sequences(const toml_reader& t, const char* key,
                                         const sequence_length& seq) {
  const auto tokens = t.integer("training", key);
  if (!tokens || *tokens <= 0) {
    return std::nullopt;
  }
  if (!seq.value || *seq.value <= 0 || *tokens % *seq.value != 0) {
    fail(t.at("training", key),
         fmt::format("{} tokens are not a whole number of sequences of training.{} = {}", *tokens,
                     seq.key, seq.value ? std::to_string(*seq.value) : "(not given)"));
  }
  return *tokens / *seq.value;
}

/// After v0.2.2: num_tokens_per_microbatch_per_dp_rank (none: the batch is not in tokens).
std::optional<per_rank_batch> read_token_batch(const toml_reader& t, std::int64_t pp,
                                               const sequence_length& seq) {
  const auto micro = in_sequences(t, "num_tokens_per_microbatch_per_dp_rank", seq);
  if (!micro) {
    return std::nullopt;
  }
  per_rank_batch b;
  const auto micro_at = t.at("training", "num_tokens_per_microbatch_per_dp_rank");
  t.r.put("/batch/micro_batch", *micro, micro_at);
  const auto count = pp > 1 ? t.integer("parallelism", "num_pp_microbatches").value_or(1) : 1;
  if (count < 1 || count > 2147483647 || *micro > 2147483647) {
    fail(t.at("parallelism", "num_pp_microbatches"),
         fmt::format("{} micro-batches of {} sequences is not a batch tpcost can cost", count,
                     *micro));
  }
  b.sequences = *micro * count;
  b.at = micro_at;
  b.what = count > 1 ? "the sequences of training.num_tokens_per_microbatch_per_dp_rank x "
                       "parallelism.num_pp_microbatches"
                     : "the sequences of training.num_tokens_per_microbatch_per_dp_rank";
  if (const auto global = in_sequences(t, "num_tokens_per_train_step", seq)) {
    t.r.put("/batch/global_batch", *global, t.at("training", "num_tokens_per_train_step"));
  }
  return b;
}

/// Up to v0.2.2: local_batch_size (batch_size before it), in pipeline_parallel_microbatch_size
/// micro-batches under PP.
per_rank_batch read_sequence_batch(const toml_reader& t, std::int64_t pp) {
  per_rank_batch b;
  const auto local = t.integer("training", "local_batch_size");
  const auto old_local = t.integer("training", "batch_size");
  b.at = local ? t.at("training", "local_batch_size") : t.at("training", "batch_size");
  b.sequences = local ? local : old_local;
  b.what = b.at.key;
  if (pp > 1) {
    const auto pp_micro = t.integer("parallelism", "pipeline_parallel_microbatch_size").value_or(1);
    // torchtitan/distributed/pipeline_parallel.py, build_pipeline_schedule:
    // `assert batch_size % microbatch_size == 0` over local_batch_size.
    if (b.sequences && *b.sequences > 0 && pp_micro > 0 && *b.sequences % pp_micro != 0) {
      fail(t.at("parallelism", "pipeline_parallel_microbatch_size"),
           fmt::format("micro-batches of {} do not divide training.{} = {}: torchtitan "
                       "splits the local batch into whole micro-batches",
                       pp_micro, local ? "local_batch_size" : "batch_size", *b.sequences));
    }
    t.r.put("/batch/micro_batch", pp_micro,
            t.at("parallelism", "pipeline_parallel_microbatch_size"));
  } else if (b.sequences) {
    t.r.put("/batch/micro_batch", *b.sequences, b.at);
  }
  if (const auto global = t.integer("training", "global_batch_size"); global && *global > 0) {
    t.r.put("/batch/global_batch", *global, t.at("training", "global_batch_size"));
  }
  return b;
}

/// The global batch against the batch per DP rank: checked when given, else derived from it
/// now (DP known) or once --gpus fixes DP.
void settle_global_batch(reading& r, const per_rank_batch& b, std::optional<std::int64_t> dp) {
  const auto& per_rank = b.sequences;
  if (r.config.contains("batch") && r.config["batch"].contains("global_batch")) {
    // Given: torchtitan's trainer (torchtitan/train.py at 000204a, Trainer.__init__, "verify
    // batch sizes") asserts global_batch_size % (local_batch_size * dp_degree) == 0: every DP
    // rank runs whole local batches, gradient_accumulation_steps of them.
    const auto global = r.config["batch"]["global_batch"].get<std::int64_t>();
    const auto& global_at = r.at["/batch/global_batch"];
    if (per_rank && *per_rank > global && global > 0) {
      fail(b.at, fmt::format("the local batch {} is larger than the global batch {} ({})",
                             *per_rank, global, global_at.key));
    }
    if (per_rank && dp && *per_rank > 0 && *dp > 0 && *per_rank <= 2147483647 &&
        *dp <= 2147483647 && global % (*per_rank * *dp) != 0) {
      fail(global_at,
           fmt::format("G = {} is not a multiple of {} x DP = {} x {} = {}: torchtitan runs "
                       "whole local batches on every DP rank",
                       global, b.what, *per_rank, *dp, *per_rank * *dp));
    }
    if (per_rank && !dp && *per_rank > 0 && *per_rank <= 2147483647) {
      // DP is the GPU count over tp*pp*cp (data_parallel_shard_degree = -1): the same rule,
      // once --gpus fixes DP (config_overlay).
      r.global_per_rank = *per_rank;
      r.global_per_rank_what = b.what;
    }
  } else if (per_rank && dp && *per_rank > 0 && *dp > 0 && *per_rank <= 2147483647 &&
             *dp <= 2147483647) {
    r.put("/batch/global_batch", *per_rank * *dp, b.at);
  } else if (per_rank && *per_rank > 0 && *per_rank <= 2147483647) {
    // DP is the GPU count over tp*pp*cp: the global batch follows once --gpus (or --dp) is
    // given (config_overlay derives it), as torchtitan derives it at launch.
    r.batch_per_rank = *per_rank;
    r.batch_per_rank_at = b.at;
  }
}

/// Batch: local_batch_size per DP rank; micro-batches of pipeline_parallel_microbatch_size
/// under PP; the global batch, if not given, is local x DP (torchtitan/config/job_config.py at
/// v0.2.2). After v0.2.2 (torchtitan/config/configs.py and trainer.py at b5bcd76) the batch is
/// counted in tokens: num_tokens_per_microbatch_per_dp_rank per micro-batch (max_context_length
/// tokens a sequence), num_pp_microbatches of them per DP rank under PP, and
/// num_tokens_per_train_step in all (-1: per rank x DP).
void read_batch(const toml_reader& t, const layout_read& layout) {
  const char* seq_key = t.integer("training", "seq_len") ? "seq_len" : "max_context_length";
  const sequence_length seq{seq_key, t.integer("training", seq_key)};
  if (seq.value) {
    t.r.put("/model/seq", *seq.value, t.at("training", seq_key));
  }
  auto batch = read_token_batch(t, layout.pp, seq);
  if (!batch) {
    batch = read_sequence_batch(t, layout.pp);
  }
  settle_global_batch(t.r, *batch, layout.dp);
}

/// Precision: FSDP2's parameter dtype; torchao's float8 or MX linears through the model
/// converters, "quantize.linear.float8" and "quantize.linear.mx" as torchtitan v0.2.2
/// (73a0e69) registers them (torchtitan/components/quantization/float8.py, mx.py), "float8"
/// and "mx" as older releases and v0.2.2's own example configs write them.
void read_precision(const toml_reader& t) {
  const auto param = t.string("training", "mixed_precision_param").value_or("bfloat16");
  std::string converter;
  if (const auto* conv = t.root.at_path("model.converters").as_array()) {
    for (const auto& c : *conv) {
      const auto conv_name = c.value<std::string>().value_or("");
      if (conv_name == "float8" || conv_name == "quantize.linear.float8") {
        converter = "float8";
      } else if ((conv_name == "mx" || conv_name == "quantize.linear.mx") && converter.empty()) {
        converter = "mx";
      }
    }
  }
  if (param == "bfloat16" || param == "float32") {
    t.r.put("/hardware/dtype", param == "bfloat16" ? "bf16" : "fp32",
            t.at("training", "mixed_precision_param"));
  } else {
    t.r.warn(t.opts, t.at("training", "mixed_precision_param"),
             fmt::format("{} is not a dtype tpcost knows (bfloat16, float32)", quote_value(param)));
  }
  if (converter == "float8") {
    // Float8Linear.recipe_name (job_config.py): none or "tensorwise" is dynamic per-tensor
    // scaling, tpcost's fp8-current; the row-wise recipes have no tpcost recipe of their own.
    const auto* at_recipe = t.root.at_path("quantize.linear.float8.recipe_name").as_string();
    const std::string recipe = at_recipe != nullptr ? at_recipe->get() : "tensorwise";
    const auto where = at_recipe != nullptr ? place{t.file, at_recipe->source().begin.line,
                                                    at_recipe->source().begin.column,
                                                    "quantize.linear.float8.recipe_name"}
                                            : t.at("model", "converters");
    if (recipe != "tensorwise") {
      t.r.warn(t.opts, where,
               fmt::format("float8 recipe {} is costed as tensorwise scaling (fp8-current)",
                           quote_value(recipe)));
    }
    t.r.put("/options/precision", "fp8-current", where);
  } else if (converter == "mx") {
    t.r.put("/options/precision", "mxfp8", t.at("model", "converters"));
  }
}

/// Activation checkpointing: none, full, or selective per op (selective every n layers is
/// costed as full).
void read_checkpointing(const toml_reader& t) {
  const auto mode = t.string("activation_checkpoint", "mode");
  if (!mode) {
    return;
  }
  if (*mode == "none" || *mode == "full") {
    t.r.put("/options/recompute", *mode, t.at("activation_checkpoint", "mode"));
  } else if (*mode == "selective") {
    const auto* option = t.node("activation_checkpoint", "selective_ac_option");
    const auto every = option != nullptr ? option->value<std::string>().value_or("2") : "2";
    if (every == "op") {
      t.r.put("/options/recompute", "selective", t.at("activation_checkpoint", "mode"));
    } else {
      t.r.put("/options/recompute", "full", t.at("activation_checkpoint", "mode"));
      t.r.warn(t.opts, t.at("activation_checkpoint", "selective_ac_option"),
               fmt::format("checkpointing every {} layers is costed as full recomputation of "
                           "every layer",
                           every));
    }
  } else {
    t.r.warn(t.opts, t.at("activation_checkpoint", "mode"),
             fmt::format("activation checkpointing mode {} is not modelled", quote_value(*mode)));
  }
}

/// torch.compile: [compile] enable with "model" in components (v0.2.2 job_config.py: enable
/// False, components ["model", "loss"]; llama3/infra/parallelize.py compiles each
/// TransformerBlock when both hold), or the end-2024 [training] compile (9dec370
/// config_manager.py). Without it the model runs PyTorch eager kernels (the fsdp2 profile's).
void read_compile(const toml_reader& t) {
  const auto* enable = t.node("compile", "enable");
  const auto* old_compile = t.node("training", "compile");
  if (enable != nullptr && enable->value<bool>().value_or(false)) {
    bool model = true;  // the default components
    if (const auto* parts = t.root.at_path("compile.components").as_array()) {
      model = false;
      for (const auto& c : *parts) {
        model = model || c.value<std::string>().value_or("") == "model";
      }
    }
    if (model) {
      t.r.put("/options/torch_compile", true, t.at("compile", "enable"));
    } else {
      t.r.warn(t.opts, t.at("compile", "components"),
               "torch.compile without \"model\" in components: the model is costed with PyTorch "
               "eager kernels");
    }
  } else if (old_compile != nullptr && old_compile->value<bool>().value_or(false)) {
    t.r.put("/options/torch_compile", true, t.at("training", "compile"));
  }
}

}  // namespace

reading read_torchtitan_toml(const std::string& text, const std::string& file,
                             const read_options& opts) {
  const toml::table root = parse_job_config(text, file);
  reading r;
  r.format = source_format::torchtitan_toml;
  r.framework = "fsdp2";
  const toml_reader t{root, file, opts, r};
  // In this order, the warnings and the first error are those the reader always gave.
  read_model(t);
  const auto layout = read_layout(t);
  read_batch(t, layout);
  read_precision(t);
  read_checkpointing(t);
  read_compile(t);
  if (const auto* async_tp = t.node("parallelism", "enable_async_tensor_parallel");
      async_tp != nullptr && async_tp->value<bool>().value_or(false)) {
    r.put("/options/async_tp", true, t.at("parallelism", "enable_async_tensor_parallel"));
  }
  return r;
}

}  // namespace tpcost::cli::formats
