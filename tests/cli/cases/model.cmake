# End-to-end cases of `tpcost model`: included by tests/cli/CMakeLists.txt, which defines
# tpcost_cli_case and the variables these use.

tpcost_cli_case("model list shows every preset with its published size" ARGS model list RC 0 STDOUT
  "gpt-3-175b +96 +12288 +96 +96 +49152 +50257 +gpt +174\\.60B +175\\.0B +-0\\.23%.*megatron-1t +128 +25600.*llama-3\\.1-405b +126 +16384 +128 +8 +53248 +128256 +llama +405\\.85B +405B +\\+0\\.21%")
# Llama 3.1 by its name; 405B was only released as 3.1, and its old name is still read.
tpcost_cli_case("model show: llama-3-405b is llama-3.1-405b" ARGS model show llama-3-405b RC 0
  STDOUT "^llama-3\\.1-405b: Llama 3\\.1 405B \\(preset\\)\ndimensions from: meta-llama/Llama-3\\.1-405B config\\.json")
# Dense Qwen3, as its config.json has it (head_dim 128 where h/a is not).
tpcost_cli_case("model show qwen3-32b" ARGS model show qwen3-32b RC 0
  STDOUT "heads a +64 +head dim 128.*kv heads +8 .*total +32\\.76B += 32,762,106,880.*published +32\\.8B +-0\\.12%")
tpcost_cli_case("model show gives the count by part and FLOPs per token" ARGS model show llama-3-8b RC 0 STDOUT
  "GQA, 4 query heads per KV head.*total +8\\.03B += 8,030,261,248.*published +8B +\\+0\\.38%.*model +forward \\+ backward +57\\.91 GFLOP +for MFU")
tpcost_cli_case("model show finds a preset whatever its case" ARGS model show GPT3-175B RC 0 STDOUT "^gpt-3-175b: GPT-3 175B")
tpcost_cli_case("model show reads a Hugging Face config" ARGS model show --hf-config ${hf}/llama-3-8b.json RC 0 STDOUT
  "llama-3-8b\\.json \\(Hugging Face config\\).*total +8\\.03B += 8,030,261,248")
tpcost_cli_case("model show reads GPT-2's config" ARGS model show --hf-config ${hf}/gpt2.json RC 0 STDOUT
  "conventions: +gpt: .*= 124,439,808")
tpcost_cli_case("model show with an override drops the published comparison" ARGS model show llama-3-70b --kv-heads 64 RC 0 STDOUT
  "\\(preset, with overrides\\).*kv heads +64 +no GQA")
tpcost_cli_case("model show from flags alone" ARGS model show --layers 2 --hidden 8 --heads 2 --vocab 10 --seq 4 RC 0 STDOUT
  "custom model \\(from flags\\).*total +1\\.87k += 1,872")
# Mixtures of experts: model show describes them; step, plan and layer refuse them by name.
tpcost_cli_case("model show gives an MoE model's experts, total and active parameters" ARGS model show deepseek-v3 RC 0 STDOUT
  "attention +MLA +q_lora 1536, kv_lora 512.*experts +256 +top-8 within 4 of 8 groups, 2048 each.*MoE layers +58 +of 61; 3 dense.*routed experts .*MTP modules .*active +38\\.[0-9]+B")
tpcost_cli_case("model show reads DeepSeek-V3's config" ARGS model show --hf-config ${hf}/deepseek-v3.json RC 0 STDOUT
  "deepseek-v3\\.json \\(Hugging Face config\\).*experts +256 +top-8")
tpcost_cli_case("model show reads Llama 4's nested text_config and its chunked attention" ARGS model show --hf-config ${hf}/llama-4-maverick.json RC 0 STDOUT
  "attention chunk +8192 +on 36 of 48 layers \\(1 in 4 full\\)")
tpcost_cli_case("model show --format json gives GPT-OSS's window: 128 keys, every 2nd layer full, 18 windowed" ARGS model show gpt-oss-120b --format json RC 0 STDOUT
  "\"sliding_window\": 128,.*\"window_full_every\": 2,\n *\"windowed_layers\": 18\n")
tpcost_cli_case("model show --format json gives Llama 4's chunk: 8192, every 4th layer full" ARGS model show --hf-config ${hf}/llama-4-maverick.json --format json RC 0 STDOUT
  "\"attention_chunk\": 8192,.*\"sliding_window\": 0,.*\"window_full_every\": 4,\n *\"windowed_layers\": 36\n")
tpcost_cli_case("model show --format json: no window, zeros" ARGS model show llama-3-8b --format json RC 0 STDOUT
  "\"attention_chunk\": 0,.*\"sliding_window\": 0,.*\"window_full_every\": 0,\n *\"windowed_layers\": 0\n")
tpcost_cli_case("an MoE key the reader does not understand is an error" ARGS model show --hf-config ${hf_bad}/ernie_moe.json RC 2 STDERR
  "--hf-config: .*ernie_moe\\.json: /moe_[a-z_]+: a mixture-of-experts key this reader does not understand")
tpcost_cli_case("model help has examples" ARGS model show --help RC 0 STDOUT "Examples:.*tpcost model show llama-3-8b")

tpcost_cli_case("unknown preset suggests the closest" ARGS model show lama-3-70b RC 2 STDERR
  "^tpcost: error: --model: 'lama-3-70b' is not a model preset; did you mean llama-3-70b\\?")
tpcost_cli_case("no model given" ARGS model show RC 2 STDERR "--model: give a preset name, --hf-config FILE, or every dimension")
tpcost_cli_case("preset and config together" ARGS model show llama-3-8b --hf-config ${hf}/gpt2.json RC 2 STDERR "--hf-config: give a preset name or --hf-config FILE, not both")
tpcost_cli_case("config file missing" ARGS model show --hf-config ${hf_bad}/nonexistent.json RC 2 STDERR "--hf-config: .*nonexistent\\.json: cannot be read")
tpcost_cli_case("config value of the wrong type" ARGS model show --hf-config ${hf_bad}/wrong_type.json RC 2 STDERR
  "--hf-config: .*data/wrong_type\\.json: /num_attention_heads: expected a whole number, found string \"32\"")
tpcost_cli_case("config field missing" ARGS model show --hf-config ${hf_bad}/missing_field.json RC 2 STDERR
  "--hf-config: .*data/missing_field\\.json: /hidden_size: missing; the hidden size is required")
tpcost_cli_case("config KV heads not dividing heads" ARGS model show --hf-config ${hf_bad}/bad_kv_heads.json RC 2 STDERR
  "--hf-config: .*data/bad_kv_heads\\.json: /num_key_value_heads: 6 KV heads do not divide heads = 32")
tpcost_cli_case("config not JSON" ARGS model show --hf-config ${hf_bad}/truncated.json RC 2 STDERR
  "--hf-config: .*data/truncated\\.json: not valid JSON: parse error at line 4")
tpcost_cli_case("override breaking GQA" ARGS model show llama-3-8b --kv-heads 3 RC 2 STDERR "--kv-heads: 3 KV heads do not divide heads = 32")
tpcost_cli_case("experts by flag need the rest of the MoE shape" ARGS model show llama-3-8b --experts 8 RC 2 STDERR "^tpcost: error: --top-k: not given; a mixture of experts needs the routed experts each token visits")
tpcost_cli_case("top-k above the experts by flag" ARGS model show llama-3-8b --experts 8 --top-k 9 --expert-ffn 1024 RC 2 STDERR "^tpcost: error: --top-k: top-k = 9 is above the 8 routed experts")
tpcost_cli_case("experts by flag on a dense preset" ARGS model show llama-3-8b --experts 8 --top-k 2 --expert-ffn 14336 RC 0 STDOUT "experts +8  top-2, 14336 each")
tpcost_cli_case("zero sequence" ARGS model show llama-3-8b --seq 0 RC 2 STDERR "--seq: 0 is out of range")
tpcost_cli_case("unknown architecture" ARGS model show llama-3-8b --arch bert RC 2 STDERR "--arch: 'bert' is not an architecture")
tpcost_cli_case("model without a subcommand" ARGS model RC 2 STDERR "^tpcost: error: A subcommand is required")
tpcost_cli_case("an hf-config from /dev/zero is refused" ARGS model show --hf-config /dev/zero RC 2
  STDERR "--hf-config: /dev/zero: more than 1048576 bytes")
tpcost_cli_case("did you mean: a mistyped subcommand" ARGS model shwo llama-3-8b RC 2
  STDERR "tpcost model: unknown command 'shwo'; did you mean 'show'\\?")
tpcost_cli_case("CSV: model list" ARGS model list --format csv RC 0
  STDOUT "^name,layers,hidden,heads,kv_heads,ffn,vocab,seq,arch,params,published_params\n.*\nllama-3-70b,80,8192,64,8,28672,128256,")
