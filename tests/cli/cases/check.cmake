# End-to-end cases of `tpcost check`: included by tests/cli/CMakeLists.txt, which defines
# tpcost_cli_case and the variables these use.

# check's per-layer rules read --micro-batch too (it was a step-only what-if, ignored here).
tpcost_cli_case("check: --micro-batch reaches the per-layer rules"
  ARGS check ${PROJECT_SOURCE_DIR}/tests/config/no_tp.json --tp 8 --micro-batch 0 RC 2
  STDERR "^tpcost: error: --micro-batch: 0 is out of range")
tpcost_cli_case("malformed config of 50 MB" ARGS check ${generated}/huge_50mb.json RC 2
  STDERR "huge_50mb\\.json: file is 5242[0-9]+ bytes; a config is at most 1048576 bytes")
tpcost_cli_case("malformed config nested 100000 deep" ARGS check ${generated}/deep_arrays.json RC 2
  STDERR "deep_arrays\\.json: nesting deeper than 16 levels")

# Exit codes 0/1/2 and multi-file runs. (MFU 35.1%, 30.21 s since the step model prices TP as
# NCCL does: 240 GB/s of NVLink per A100 as its tuner sees it, not 300; was 35.9%, 29.55 s.
# 36.1%, 29.38 s since the input gradients' all-reduces hide behind their weight gradients;
# 36.2%, 29.3 s since the output layer's does too.)
tpcost_cli_case("check passes" ARGS check ${configs}/gpt3-175b-dgx-a100.json ${configs}/llama3-70b-h100.json
  --stack megatron-core RC 0 STDOUT "A100-SXM4-80GB \\+ IB-HDR; refined model, collective auto\\)\n  step: gpt-3-175b, t=8 p=16 d=8, b=1 G=1536, recompute full, stack [a-z0-9-]+\n  PASS  min_efficiency +E = 82\\.8% +>= 80\\.0%.*PASS  min_mfu +MFU = 36\\.2% +>= 33\\.0%\n  PASS  min_memory_headroom +headroom = 50\\.1 GiB +>= 8\\.0 GiB\n  PASS  max_step_time +step = 29\\.3 s +<= 32 s\n.*2 files checked: 2 passed, 0 failed, 0 invalid")
tpcost_cli_case("check gates DeepSeek-V3 (MLA, MTP, EP 64) with its step rules" ARGS check ${PROJECT_SOURCE_DIR}/examples/step/deepseek-v3-2048-h800.json
  RC 0 STDOUT "step: deepseek-v3, t=1 p=16 d=128, b=1 G=15360, recompute full, ZeRO-1, stack [a-z0-9-]+\n  PASS  min_mfu .*PASS  min_memory_headroom.*1 passed, 0 failed")
tpcost_cli_case("check: --offload-modules reach the step rules and are checked"
  ARGS check ${configs}/llama3-70b-h100.json --fine-grained-activation-offloading --offload-modules attn_norm,bogus RC 2
  STDERR "--offload-modules: 'bogus' is not an offload module")
tpcost_cli_case("check fails on the TP=16 mistake" ARGS check ${configs}/gpt3-175b-tp16-mistake.json
  RC 1 STDOUT "FAIL  min_efficiency +E = 62\\.6% +>= 80\\.0%\n  FAIL  max_ratio +R = 0\\.5983 +<= 0\\.25\n  FAIL  tp_within_half_critical +t = 16 +<= t\\*/2 = 13\\.37\n  FAIL  tp_within_node +t = 16 +<= 8 GPUs per node.*0 passed, 1 failed")
tpcost_cli_case("check what-if over PCIe-class bandwidth fails" ARGS check ${configs}/gpt3-175b-dgx-a100.json --bandwidth 32GB/s
  RC 1 STDOUT "FAIL  min_efficiency +E = 36\\.8%")
tpcost_cli_case("check without files" ARGS check RC 2 STDERR "files is required")
tpcost_cli_case("check a missing file" ARGS check /nonexistent.json RC 2 STDERR "/nonexistent\\.json: cannot open the file")
tpcost_cli_case("check a config without rules" ARGS check ${bad}/../no_rules.json RC 2
  STDERR "no_rules\\.json: /checks: no rule is enabled")
tpcost_cli_case("check a config without tp" ARGS check ${bad}/../no_tp.json RC 2
  STDERR "no_tp\\.json: /parallel/tp: missing")
tpcost_cli_case("check a TP list" ARGS check ${bad}/../tp_list.json RC 2
  STDERR "tp_list\\.json: /parallel/tp: a check needs one TP degree")
tpcost_cli_case("a config's profile path is relative to the config"
  ARGS check ${PROJECT_SOURCE_DIR}/tests/config/profile_relative.json RC 0
  STDOUT "\\(TP 8; H100-SXM \\+ [^\n]*tests/config/profiles/dgx-h100-nvlink\\.json \\(intra-node\\); refined model, collective auto\\)\n  PASS  min_efficiency +E = 67\\.2%")
tpcost_cli_case("tp_within_node reads the config's GPUs per node under the seed's model"
  ARGS check ${PROJECT_SOURCE_DIR}/tests/config/seed_node72.json RC 0
  STDOUT "\\(TP 16; the article's model\\)\n  PASS  tp_within_node  t = 16  <= 72 GPUs per node")
tpcost_cli_case("check what-if with another interconnect" ARGS check ${configs}/gpt3-175b-tp16-mistake.json --interconnect ndr
  RC 1 STDOUT "A100-SXM4-80GB \\+ IB-NDR; refined model, collective auto\\)\n  step: [^\n]*\n  FAIL  min_efficiency +E = 67\\.0%")
tpcost_cli_case("check what-if on a GB200 NVL72 rack" ARGS check ${configs}/gpt3-175b-tp16-mistake.json --gpu gb200
  RC 1 STDOUT "PASS  tp_within_node +t = 16 +<= 72 GPUs per node")
tpcost_cli_case("check --torch-compile: a step flag check did not list is a what-if over the file"
  ARGS check ${PROJECT_SOURCE_DIR}/tests/config/formats/llama3_8b_torchtitan_ddp.toml
       --gpu h100-sxm --interconnect ib-ndr --rule min_mfu=0.1 --torch-compile RC 0
  STDOUT "PASS  min_mfu      MFU = 33\\.3%")
tpcost_cli_case("check: the CP and precision keys reach the step rules" ARGS check ${PROJECT_SOURCE_DIR}/tests/config/step/cp_fp8_h100.json --stack megatron-core RC 0 STDOUT
  "step: llama-3-8b, t=2 p=1 cp=8 all_gather d=4, b=1 G=8, recompute none, SP, ZeRO-1, fp8-delayed, stack [a-z0-9-]+\n  PASS  fits_memory  stage 0 needs 65.9 GiB  <= 80.0 GiB per GPU\n  PASS  min_mfu ")
# Halving cp doubles each rank's sequence: 109 GiB on an 80 GiB GPU fails whatever the rules.
tpcost_cli_case("check --cp over the file's key" ARGS check ${PROJECT_SOURCE_DIR}/tests/config/step/cp_fp8_h100.json --cp 4 --cp-comm-type p2p --gpus 32 --stack megatron-core RC 1 STDOUT
  "step: llama-3-8b, t=2 p=1 cp=4 p2p d=4, b=1 G=8, recompute none, SP, ZeRO-1, fp8-delayed, stack [a-z0-9-]+\n  FAIL  fits_memory  stage 0 needs 109.4 GiB")
# Memory is judged on every file that describes a whole step, whatever its rules (issue 25).
tpcost_cli_case("check: a layout over the GPU's memory fails with only a per-layer rule" ARGS check ${PROJECT_SOURCE_DIR}/tests/config/step/layer_rule_does_not_fit.json --stack megatron-core RC 1 STDOUT
  "FAIL  fits_memory     stage 0 needs 214.9 GiB  <= 80.0 GiB per GPU\n  PASS  min_efficiency")
tpcost_cli_case("check: a layout over the GPU's memory fails with no rule at all" ARGS check ${PROJECT_SOURCE_DIR}/tests/config/step/no_rule_does_not_fit.json --stack megatron-core RC 1 STDOUT
  "FAIL  fits_memory  stage 0 needs 214.9 GiB  <= 80.0 GiB per GPU")
tpcost_cli_case("check: a layout that fits passes with no rule at all" ARGS check ${PROJECT_SOURCE_DIR}/tests/config/step/no_rule_fits.json --stack megatron-core RC 0 STDOUT
  "PASS  fits_memory  stage 0 needs 31.0 GiB")
tpcost_cli_case("check: a Megatron script over the GPU's memory fails without a memory rule" ARGS check ${PROJECT_SOURCE_DIR}/tests/config/megatron/train_gpt3_175b_distributed.sh --set NUM_NODES=16 --gpu h100-sxm --pp 1 --rule min_mfu=0.1 RC 1 STDOUT
  "FAIL  fits_memory  stage 0 needs 355.1 GiB  <= 80.0 GiB per GPU" STDERR "batch-size ramp-up is not modelled")
tpcost_cli_case("check: a file that describes no step and names no rule is invalid" ARGS check ${PROJECT_SOURCE_DIR}/tests/config/step/no_rule_no_step.json RC 2
  STDERR "no rule is enabled and no whole step to judge the memory of")
tpcost_cli_case("check --precision nvfp4 on H100 is refused" ARGS check ${PROJECT_SOURCE_DIR}/tests/config/step/cp_fp8_h100.json --precision nvfp4 RC 2
  STDERR "--precision: nvfp4 needs NVFP4 tensor cores, NVIDIA Blackwell or later; H100-SXM has none")
tpcost_cli_case("a step rule needs a model" ARGS check ${step_configs}/no_model.json RC 2
  STDERR "no_model\\.json: /model/name: missing; the step rules \\(min_mfu\\) need a model preset")
tpcost_cli_case("a step rule needs a GPU preset" ARGS check ${step_configs}/no_gpu.json RC 2
  STDERR "no_gpu\\.json: /hardware/gpu: missing; the step rules \\(max_step_time\\) need a GPU preset")
tpcost_cli_case("a step rule needs the global batch" ARGS check ${step_configs}/no_global_batch.json RC 2
  STDERR "/batch/global_batch: missing; the step rules \\(min_mfu, max_step_time\\) need the sequences per step")
tpcost_cli_case("a step rule needs the GPU count" ARGS check ${step_configs}/no_gpus.json RC 2
  STDERR "/parallel/gpus: missing; the step rules \\(min_mfu\\) need the job's GPU count N")
tpcost_cli_case("a multi-node check without a network says what it assumed" ARGS check ${step_configs}/no_network.json
  RC 0 STDOUT "^assumed: --interconnect IB-HDR [^\n]*DGX A100[^\n]*\n[^\n]*no_network\\.json \\(TP 8; A100-SXM4-80GB \\+ IB-HDR\\)\n")
tpcost_cli_case("check: the assumed NIC is in the JSON" ARGS check ${step_configs}/no_network.json --format json
  RC 0 STDOUT "\"interconnect_assumed\": \"assumed: --interconnect IB-HDR ")
tpcost_cli_case("the command line supplies what the file lacks" ARGS check ${step_configs}/no_network.json --interconnect ib-ndr
  --stack megatron-core RC 0 STDOUT "\\(TP 8; A100-SXM4-80GB \\+ IB-NDR\\)\n  step: gpt-3-175b, t=8 p=16 d=8, b=1 G=1536, recompute none, stack [a-z0-9-]+\n  PASS  min_memory_headroom +headroom = [0-9.]+ GiB +>= 0\\.0 GiB\n")
tpcost_cli_case("a step error names the file's key" ARGS check ${step_configs}/batch_not_multiple.json RC 2
  STDERR "batch_not_multiple\\.json: /batch/global_batch: G = 1536 is not a multiple of d\\*b = 8\\*7 = 56")
tpcost_cli_case("a layout that does not fit fails min_memory_headroom" ARGS check ${step_configs}/one_node_does_not_fit.json
  --stack megatron-core RC 1 STDOUT "\\(TP 1; H100-SXM \\+ IB-NDR\\)\n  step: llama-3-8b, t=1 p=1 d=8, b=1 G=64, recompute none, stack [a-z0-9-]+\n  FAIL  min_memory_headroom +headroom = -[0-9.]+ GiB \\(does not fit: stage 0\\) +>= 0\\.0 GiB\n")

# A device or an endless stream is cut short after the size limit, never read forever.
tpcost_cli_case("a config from /dev/zero is refused" ARGS check /dev/zero RC 2
  STDERR "/dev/zero: more than 1048576 bytes; a config is at most 1048576 bytes")
tpcost_cli_case("a config's hf_config is read beside it, for both kinds of rule"
  ARGS check ${PROJECT_SOURCE_DIR}/tests/config/hf_relative.json RC 0
  STDOUT "^assumed: --interconnect IB-NDR [^\n]*\n[^\n]*\\(TP 2; H100-SXM \\+ IB-NDR; refined model, collective auto\\)\n  step: [^\n]*examples/hf/llama-3-8b\\.json, t=2 p=1 d=4, b=1 G=64, recompute none, SP, ZeRO-1, stack megatron-bridge\n  PASS  min_efficiency .*PASS  min_mfu .*PASS  min_memory_headroom ")
# The same numbers as "check passes" (NCCL-priced TP, see there).
tpcost_cli_case("check what-if: the TP=16 mistake at t=8 p=16 is the passing config"
  ARGS check ${configs}/gpt3-175b-tp16-mistake.json --tp 8 --pp 16
  --stack megatron-core RC 0 STDOUT "\\(TP 8; A100-SXM4-80GB \\+ IB-HDR; refined model, collective auto\\)\n  step: gpt-3-175b, t=8 p=16 d=8, b=1 G=1536, recompute full, stack [a-z0-9-]+\n  PASS  min_efficiency +E = 82\\.8%.*PASS  min_mfu +MFU = 36\\.2%.*PASS  max_step_time +step = 29\\.3 s")
tpcost_cli_case("check --tp takes one degree" ARGS check ${configs}/gpt3-175b-dgx-a100.json --tp 4..8 RC 2
  STDERR "--tp: a check needs one TP degree, not a list")
tpcost_cli_case("check: the MoE keys reach the step rules" ARGS check ${PROJECT_SOURCE_DIR}/tests/config/step/moe_qwen3_30b_h100.json RC 0 STDOUT
  "PASS  min_mfu ")
tpcost_cli_case("check --ep over the file's key" ARGS check ${PROJECT_SOURCE_DIR}/tests/config/step/moe_qwen3_30b_h100.json --ep 5 RC 2
  STDERR "^tpcost: error: --ep: EP = 5 does not divide the 128 experts")
tpcost_cli_case("check: a rule that passes only at the central value says so" ARGS check
  ${configs}/llama3-70b-h100.json --rule max_step_time=8s
  RC 0 STDOUT "passes only at the central value: max_step_time: [0-9.]+ s central, [0-9.]+ s at the band's pessimistic edge")
tpcost_cli_case("check --pessimistic: judged at the band's slow edge" ARGS check
  ${configs}/llama3-70b-h100.json --rule max_step_time=8s --pessimistic
  RC 1 STDOUT "FAIL  max_step_time +step = [0-9.]+ s +<= 8 s")
tpcost_cli_case("check --pessimistic without a step rule: no band to judge at" ARGS check
  ${CMAKE_CURRENT_SOURCE_DIR}/data/layer_rules_only.json --pessimistic
  RC 2 STDERR "^tpcost: error: --pessimistic: judges step rules \\(min_mfu, max_step_time\\) at the error band's edge; .*enables none, and its other rules have no band\n$")
tpcost_cli_case("check --error-band of another version: one line, exit 2"
  ARGS check ${configs}/llama3-70b-h100.json --error-band ${band_dir}/other_version.json
  RC 2 STDERR "^tpcost: error: --error-band: [^\n]*other_version\\.json: made by tpcost")
