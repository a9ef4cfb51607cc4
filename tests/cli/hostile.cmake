# Hostile input and hostile conditions (issue 17): output files, numbers, bounded and escaped
# messages. Included from tests/cli/CMakeLists.txt, so that tpcost_cli_case is defined.

add_executable(tpcost_output_tests output_file_test.cpp)
target_link_libraries(tpcost_output_tests PRIVATE tpcost::io Catch2::Catch2WithMain tpcost_warnings)
target_compile_definitions(tpcost_output_tests PRIVATE
  TPCOST_BINARY="$<TARGET_FILE:tpcost_cli>"
  TPCOST_CONFIGS_DIR="${PROJECT_SOURCE_DIR}/examples/configs"
  TPCOST_TEST_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/../data")
add_dependencies(tpcost_output_tests tpcost_cli)
catch_discover_tests(tpcost_output_tests TEST_PREFIX "output: " EXTRA_ARGS --warn NoTests)

# Numbers: products checked before they are formed, results checked finite before printing.
set(hostile ${CMAKE_CURRENT_SOURCE_DIR}/data/hostile)
set(h100 --model gpt-3-175b --gpu h100-sxm --interconnect ib-ndr)
tpcost_cli_case("hostile: t*p that wraps to 0 is an error, not SIGFPE"
  ARGS step ${h100} --gpus 8 --tp 4294967296 --pp 4294967296 -G 8 RC 2
  STDERR "--gpus: t\\*p overflows a 64-bit integer")
tpcost_cli_case("hostile: t*p*d beyond 2^24 GPUs"
  ARGS step ${h100} --tp 8 --pp 96 --dp 16777216 -G 16777216 RC 2
  STDERR "--gpus: N = t\\*p\\*d = 8\\*96\\*16777216 is more than the 16777216 GPUs accepted")
tpcost_cli_case("hostile: a TP message beyond an int64 is a size, not a negative one"
  ARGS step --model gpt-3-175b --seq 2147483647 --gpu h100-sxm --interconnect ib-ndr --tp 8
       -b 4194304 -G 4194304 --stack megatron-core RC 0
  STDOUT "TP: 4 collectives of [1-9][0-9.]* [kMGTPEZY]?B per layer")
tpcost_cli_case("hostile: step over a 1e-320 B/s link is an error, not -nan"
  ARGS step ${h100} --gpus 8 --tp 8 -G 8 --intra-bandwidth 1e-320B/s RC 2
  STDERR "--intra-bandwidth: makes the TP comm time (NaN|infinite)")
tpcost_cli_case("hostile: step JSON over a 1e-320 B/s link is an error, not null"
  ARGS step ${h100} --gpus 8 --tp 8 -G 8 --intra-bandwidth 1e-320B/s --format json RC 2
  STDERR "--intra-bandwidth: makes the TP comm time")
tpcost_cli_case("hostile: a peak of 1e-300 FLOP/s is an error, not inf s"
  ARGS step ${h100} --gpus 8 --tp 8 -G 8 --flops 1e-300FLOP/s RC 2
  STDERR "--flops: makes the compute time infinite")
tpcost_cli_case("hostile: an HBM bandwidth of 1e-300 B/s is named, not the peak"
  ARGS step ${h100} --gpus 8 --tp 8 -G 8 --memory-bandwidth 1e-300B/s RC 2
  STDERR "--memory-bandwidth: makes the compute time infinite")
# The part named is the first failing layout's in search order, whatever thread met it first.
tpcost_cli_case("hostile: plan over a 1e-320 B/s inter-node link ranks no inf s layout"
  ARGS plan ${h100} --gpus 64 -G 64 --inter-bandwidth 1e-320B/s --threads 2 RC 2
  STDERR "^tpcost: error: --inter-bandwidth: makes the DP gradient sync time infinite; ")
tpcost_cli_case("hostile: plan's error on a 1e-320 B/s link is one thread's"
  ARGS plan ${h100} --gpus 64 -G 64 --inter-bandwidth 1e-320B/s --threads 1 RC 2
  STDERR "^tpcost: error: --inter-bandwidth: makes the DP gradient sync time infinite; ")

# Files: a bounded, non-recursive echo; numbers beyond a double; deep nesting; header counts.
tpcost_cli_case("hostile: HF config with 1e400"
  ARGS step --hf-config ${hostile}/hf_1e400.json --gpu h100-sxm -G 8 RC 2
  STDERR "--hf-config: .*hf_1e400\\.json: not valid JSON: number overflow")
tpcost_cli_case("hostile: profile with 1e400"
  ARGS sweep --interconnect-file ${hostile}/profile_1e400.json --tp 8 RC 2
  STDERR "--interconnect-file: .*profile_1e400\\.json: not valid JSON: number overflow")
tpcost_cli_case("hostile: nccl-tests JSON with 1e400"
  ARGS calibrate ${hostile}/nccl_1e400.json RC 2 STDERR "not valid JSON: number overflow")
tpcost_cli_case("hostile: nccl-tests '# Rank' beyond an int64"
  ARGS calibrate ${hostile}/nccl_rank_overflow.txt RC 2
  STDERR "nccl_rank_overflow\\.txt:1: '# Rank 99999999999999999999' is beyond 16777216 ranks")
tpcost_cli_case("hostile: nccl-tests '# nThread' beyond an int64"
  ARGS calibrate ${hostile}/nccl_nthread_overflow.txt RC 2
  STDERR "nccl_nthread_overflow\\.txt:1: '# nThread 9999999999999999999999 nGpus 1' is beyond")
tpcost_cli_case("hostile: nccl-tests nThread x nGpus that wraps an int64"
  ARGS calibrate ${hostile}/nccl_nthread_wrap.txt RC 2
  STDERR "nccl_nthread_wrap\\.txt:1: '# nThread 99999999999 nGpus 99999999999' is beyond")

set(deep ${CMAKE_CURRENT_BINARY_DIR}/generated)
add_test(NAME "cli: generate deep JSON" COMMAND ${CMAKE_COMMAND} -DOUT=${deep}
         -DNCCL_FIXTURE=${PROJECT_SOURCE_DIR}/tests/data/nccl/dgx-h100-8gpu-all_reduce.txt
         -P ${CMAKE_CURRENT_SOURCE_DIR}/make_deep.cmake)
set_tests_properties("cli: generate deep JSON" PROPERTIES FIXTURES_SETUP deep_json)
tpcost_cli_case("hostile: HF config nested 100000 deep"
  ARGS step --hf-config ${deep}/deep_hf.json --gpu h100-sxm -G 8 RC 2
  STDERR "deep_hf\\.json: nesting deeper than 64 levels")
tpcost_cli_case("hostile: profile nested 100000 deep"
  ARGS sweep --interconnect-file ${deep}/deep_profile.json --tp 8 RC 2
  STDERR "deep_profile\\.json: nesting deeper than 64 levels")
tpcost_cli_case("hostile: nccl-tests JSON nested 100000 deep"
  ARGS calibrate ${deep}/deep_nccl.json RC 2 STDERR "nesting deeper than 64 levels")
set_tests_properties("cli: hostile: HF config nested 100000 deep"
                     "cli: hostile: profile nested 100000 deep"
                     "cli: hostile: nccl-tests JSON nested 100000 deep"
                     PROPERTIES FIXTURES_REQUIRED deep_json)

# Flags that wrapped or ran for minutes.
tpcost_cli_case("hostile: plan --threads -1"
  ARGS plan ${h100} --gpus 64 -G 64 --threads -1 RC 2
  STDERR "--threads: -1 is out of range; expected 0\\.\\.4096")
# The documented cap of 2^24 GPUs (docs/fuzzing.md): 146 s before the strided groups were placed
# in closed form (comm/placement.hpp), milliseconds now; the TIMEOUT is the regression check.
tpcost_cli_case("hostile: plan at the 2^24-GPU cap finishes with a layout"
  ARGS plan ${h100} --gpus 16777216 -G 16777216 --top 1 RC 0
  STDOUT "t\*p\*cp dividing N = 16777216 .*\n  1 +[0-9]+ +[0-9]+ +1 +[0-9]+ ")
tpcost_cli_case("hostile: plan at the 2^24-GPU cap with CP and FP8 finishes with a layout"
  ARGS plan ${h100} --gpus 16777216 -G 2097152 --seq 65536 --precision fp8 --top 1 -q RC 0
  STDOUT "\n  1 +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ ")
tpcost_cli_case("hostile: plan at the cap proposes no CP layout whose G*cp sequences step refuses"
  ARGS plan ${h100} --gpus 16777216 -G 16777216 --seq 65536 --top 1 -q RC 0
  STDOUT "\n  1 +[0-9]+ +[0-9]+ +1 +[0-9]+ ")
tpcost_cli_case("hostile: plan at the 2^24-GPU cap with nothing that fits is a clean exit 2"
  ARGS plan ${h100} --gpus 16777216 -G 1 RC 2
  STDERR "^tpcost: error: --gpus: no layout of 16777216 GPUs trains this model with G = 1")
tpcost_cli_case("hostile: plan beyond the 2^24-GPU cap"
  ARGS plan ${h100} --gpus 16777217 -G 16777216 RC 2 STDERR "^tpcost: error: --gpus: 16777217 is out of range")
set_tests_properties("cli: hostile: plan at the 2^24-GPU cap finishes with a layout"
                     "cli: hostile: plan at the 2^24-GPU cap with CP and FP8 finishes with a layout"
                     "cli: hostile: plan at the 2^24-GPU cap with nothing that fits is a clean exit 2"
                     "cli: hostile: plan at the cap proposes no CP layout whose G*cp sequences step refuses"
                     PROPERTIES TIMEOUT 10)
tpcost_cli_case("hostile: a chart of 4096 degrees"
  ARGS sweep --tp 1..4096:+1 --chart RC 2
  STDERR "--tp: 4096 degrees; a chart or plot shows at most 1024")
tpcost_cli_case("hostile: a list of 10^6 degrees"
  ARGS sweep --tp 1..1000000:+1 RC 2
  STDERR "--tp: '1..1000000:\\+1' expands to more than 4096 degrees")
tpcost_cli_case("hostile: --print-config with a count that is not one"
  ARGS sweep --print-config --batch x RC 2 STDERR "--micro-batch: ")
tpcost_cli_case("hostile: --print-config prints no config that --config rejects"
  ARGS sweep --print-config --tp abc RC 2 STDERR "--tp: ")

# What goes to CI: a config's name with a newline starts no GitHub Actions workflow command.
tpcost_cli_case("hostile: a config name cannot inject a workflow command"
  ARGS check ${hostile}/ci_injection.json RC 0 ENV GITHUB_ACTIONS=true
  STDOUT "ci_injection\\.json: x\\\\x0a::warning file=evil::injected \\(TP 8")

# Issue 30, round two: a case per root cause. Crashes first: recursion per byte or per level,
# SIGFPE on a quotient or a wrapped product; then unbounded work and exceptions on user input.
tpcost_cli_case("hostile: a 50 KB line of dashes is no std::regex stack overflow"
  ARGS convert ${deep}/long_dashes.txt RC 2 STDERR "long_dashes\\.txt:1: no Megatron-LM arguments")
tpcost_cli_case("hostile: a 50 KB log line is no std::regex stack overflow"
  ARGS convert ${deep}/long_line.log RC 2 STDERR "long_line\\.log:1: no Megatron-LM arguments block")
tpcost_cli_case("hostile: DeepSpeed nested 100000 deep is no recursive dump"
  ARGS convert ${deep}/deep_deepspeed.json RC 2 STDERR "deep_deepspeed\\.json: nesting deeper than")
tpcost_cli_case("hostile: $(( )) nested 100000 deep"
  ARGS convert ${deep}/deep_arithmetic.sh RC 2
  STDERR "deep_arithmetic\\.sh:1: \\$\\(\\( \\)\\) nests more than 64 parentheses deep")
tpcost_cli_case("hostile: parallel.pp_layout nested 40000 deep"
  ARGS step ${h100} --gpus 64 --pp 4 -G 64 --config ${deep}/deep_layout.json RC 2
  STDERR "pp_layout: 'Et\\(+' \\.\\.\\. \\(80004 bytes\\): nests more than 16 parentheses deep")
tpcost_cli_case("hostile: sourced files fanning out stop at 64 in all"
  ARGS convert ${deep}/fan_out.sh RC 2
  STDERR "fan_a2\\.sh:2:1: source fan_b1\\.sh: sources more than 64 files in all")
set_tests_properties("cli: hostile: a 50 KB line of dashes is no std::regex stack overflow"
                     "cli: hostile: a 50 KB log line is no std::regex stack overflow"
                     "cli: hostile: DeepSpeed nested 100000 deep is no recursive dump"
                     "cli: hostile: $(( )) nested 100000 deep"
                     "cli: hostile: parallel.pp_layout nested 40000 deep"
                     "cli: hostile: sourced files fanning out stop at 64 in all"
                     PROPERTIES FIXTURES_REQUIRED deep_json)
tpcost_cli_case("hostile: INT64_MIN / -1 in a script is no SIGFPE"
  ARGS convert ${hostile}/script_div_minus1.sh RC 2
  STDERR "script_div_minus1\\.sh:2:24: --tensor-model-parallel-size: .*\\$TP \\(line 1: ")
tpcost_cli_case("hostile: INT64_MIN % -1 in a script is no SIGFPE"
  ARGS convert ${hostile}/script_mod_minus1.sh RC 2
  STDERR "script_mod_minus1\\.sh:2:24: --tensor-model-parallel-size: .*is not set in the script")
tpcost_cli_case("hostile: division by 0 in a script"
  ARGS convert ${hostile}/script_div_zero.sh RC 2
  STDERR "script_div_zero\\.sh:2:24: --tensor-model-parallel-size: .*is not set in the script")
tpcost_cli_case("hostile: a script doubling a variable 34 times stops at the budget"
  ARGS convert ${hostile}/script_doubling.sh RC 2
  STDERR "script_doubling\\.sh:21: a value expands past 1048576 bytes")
tpcost_cli_case("hostile: DeepSpeed micro x GAS that wraps to 0 is no SIGFPE"
  ARGS convert ${hostile}/deepspeed_batch_wrap.json RC 2
  STDERR "deepspeed_batch_wrap\\.json:1: gradient_accumulation_steps: .* overflows a 64-bit")
tpcost_cli_case("hostile: DeepSpeed offload device 5 is exit 2, not a type_error"
  ARGS convert ${hostile}/deepspeed_offload_device_number.json RC 2
  STDERR "zero_optimization\\.offload_optimizer\\.device: found 5; expected")
tpcost_cli_case("hostile: DeepSpeed bf16.enabled \"yes\" is exit 2, not a type_error"
  ARGS convert ${hostile}/deepspeed_bf16_yes.json RC 2
  STDERR "bf16\\.enabled: found \"yes\"; expected true or false")
tpcost_cli_case("hostile: --size -0B prints no negative zero"
  ARGS collective --op all-reduce --size -0B --ranks 8 RC 0
  STDOUT "all-reduce of 0 B \\(0 B\\) over 8 ranks")
string(REPEAT "n" 254 name254)
tpcost_cli_case("hostile: -o with a legal 254-byte name writes it"
  ARGS sweep -o ${deep}/${name254} RC 0)
set_tests_properties("cli: hostile: -o with a legal 254-byte name writes it"
                     PROPERTIES FIXTURES_REQUIRED deep_json)
tpcost_cli_case("hostile: a YAML scalar's newline and ESC reach stderr escaped, on one line"
  ARGS convert ${hostile}/yaml_newline_value.yaml RC 2 ENV GITHUB_ACTIONS=true
  STDERR "num_layers: '4\\\\x0a::error ::injected\\\\x1b.31m' is not a whole number")

tpcost_cli_case("hostile: a Megatron value's quoted newline and ESC reach stderr escaped, on one line"
  ARGS convert ${hostile}/script_newline_value.sh RC 2 ENV GITHUB_ACTIONS=true
  STDERR "^tpcost: error: [^\n]*--num-layers: '4\\\\x0a::error file=x::pwned\\\\x1b.31m' is not a whole number[^\n]*\n$")
tpcost_cli_case("hostile: a TOML string's newline and ESC reach stderr escaped, on one line"
  ARGS convert ${hostile}/toml_newline_value.toml RC 2 ENV GITHUB_ACTIONS=true
  STDERR "^tpcost: error: [^\n]*rotate_method: 'all\\\\x0a::error file=x::pwned\\\\x1b.31m' is not a rotate method[^\n]*\n$")
tpcost_cli_case("hostile: a --cp-comm-type that is not UTF-8 in a script is exit 2"
  ARGS convert ${hostile}/script_cp_comm_not_utf8.sh RC 2
  STDERR "^tpcost: error: [^\n]*script_cp_comm_not_utf8\\.sh:1:[0-9]+: --cp-comm-type: found a string [^\n]*; expected one of p2p")
tpcost_cli_case("hostile: a cp_comm_type that is not UTF-8 in a YAML is exit 2"
  ARGS convert ${hostile}/yaml_cp_comm_not_utf8.yaml RC 2
  STDERR "^tpcost: error: [^\n]*yaml_cp_comm_not_utf8\\.yaml:3:[0-9]+: model\\.cp_comm_type: found a string [^\n]*; expected one of p2p")

# Issue 30, one output sanitiser: file names in check's text, JUnit and annotations.
add_test(NAME "cli: hostile: check's reports sanitise file names (newline, ::error, U+FFFE, ESC)"
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/hostile_names.sh $<TARGET_FILE:tpcost_cli>
                 ${PROJECT_SOURCE_DIR}/examples/configs ${XMLLINT})

# Issue 30, messages without bounds: every echoed value is cut to 80 bytes; warnings are
# deduplicated and capped at 20 lines, the note of ignored flags names at most 20.
string(REPEAT "a" 80 a80)
tpcost_cli_case("hostile: a 100 KB Megatron value is echoed in 80 bytes"
  ARGS convert ${deep}/long_value.sh RC 2
  STDERR "--num-layers: '${a80}' \\.\\.\\. \\(100000 bytes\\) is not a whole number")
tpcost_cli_case("hostile: a 300 KB DeepSpeed value is echoed in 80 bytes"
  ARGS convert ${deep}/long_value_deepspeed.json RC 2
  STDERR "^tpcost: error: [^\n]*train_batch_size: found \"x+ \\.\\.\\. \\(300002 bytes\\); expected a whole number >= 1\n$")
set_tests_properties("cli: hostile: a 300 KB DeepSpeed value is echoed in 80 bytes"
                     PROPERTIES FIXTURES_REQUIRED deep_json)
tpcost_cli_case("hostile: a 100 KB YAML value is echoed in 80 bytes"
  ARGS convert ${deep}/long_value.yaml RC 2
  STDERR "num_layers: '${a80}' \\.\\.\\. \\(100000 bytes\\) is not a whole number")
tpcost_cli_case("hostile: a 50,000-entry --moe-layer-freq is echoed in 80 bytes"
  ARGS convert ${deep}/long_freq.sh RC 2 STDERR "--moe-layer-freq: '.1,1,1[0-9,]*' \\.\\.\\. \\(100003 bytes\\) gives 50001 layers")
string(REPEAT "g" 20000 g20k)
tpcost_cli_case("hostile: a 20 KB --gpu name is echoed in 80 bytes"
  ARGS step --model gpt-3-175b --gpu ${g20k} RC 2
  STDERR "--gpu: 'g+' \\.\\.\\. \\(20000 bytes\\) is not a GPU preset")
tpcost_cli_case("hostile: a 20 KB hardware show name is echoed in 80 bytes"
  ARGS hardware show ${g20k} RC 2
  STDERR "hardware show: 'g+' \\.\\.\\. \\(20000 bytes\\) is not a GPU or interconnect preset")
tpcost_cli_case("hostile: a flag given 2000 times prints 20 warnings and a count"
  ARGS convert ${deep}/repeated_flag.sh RC 0
  STDERR "given twice.*repeated_flag\\.sh: \\.\\.\\. and 1980 more warnings suppressed\n$")
tpcost_cli_case("hostile: 2000 unknown flags are named 20 times and counted"
  ARGS convert ${deep}/unknown_flags.sh RC 0
  STDERR "ignored \\(no effect on what tpcost models\\): --unknown-flag-.*, \\.\\.\\. and 1980 more\n$")
set_tests_properties("cli: hostile: a 100 KB Megatron value is echoed in 80 bytes"
                     "cli: hostile: a 100 KB YAML value is echoed in 80 bytes"
                     "cli: hostile: a 50,000-entry --moe-layer-freq is echoed in 80 bytes"
                     "cli: hostile: a flag given 2000 times prints 20 warnings and a count"
                     "cli: hostile: 2000 unknown flags are named 20 times and counted"
                     PROPERTIES FIXTURES_REQUIRED deep_json)

# Issue 30, nesting limits of the YAML (yaml-cpp) and TOML (toml++) readers.
tpcost_cli_case("hostile: YAML nested 20000 deep stops at yaml-cpp's limit"
  ARGS convert ${deep}/deep.yaml RC 2
  STDERR "deep\\.yaml:2:[0-9]+: malformed YAML: nesting deeper than yaml-cpp's limit of 2000")
tpcost_cli_case("hostile: TOML nested 20000 deep stops at toml++'s limit"
  ARGS convert ${deep}/deep.toml RC 2
  STDERR "deep\\.toml:2:[0-9]+: malformed TOML: .*maximum nested value depth of 256")
set_tests_properties("cli: hostile: YAML nested 20000 deep stops at yaml-cpp's limit"
                     "cli: hostile: TOML nested 20000 deep stops at toml++'s limit"
                     PROPERTIES FIXTURES_REQUIRED deep_json)

# Issue 30: calibrate streams its input a line at a time (64 KiB chunks): a data row cut by a
# chunk boundary, a first chunk that is all blank lines, and a line that never ends give what
# the whole file gives (the DGX H100 fixture's fit) or a line-numbered error.
set(dgx_fit "64 points from 8 B to 16 GiB.*one line   alpha = 1\\.202 us  beta = 420\\.3 GB/s")
tpcost_cli_case("hostile: calibrate, a data row cut by a 64 KiB chunk"
  ARGS calibrate ${deep}/stream_cut_row/dgx-all_reduce.txt RC 0 STDOUT "${dgx_fit}")
tpcost_cli_case("hostile: calibrate, a first chunk of blank lines"
  ARGS calibrate ${deep}/stream_blank/dgx-all_reduce.txt RC 0 STDOUT "${dgx_fit}")
tpcost_cli_case("hostile: calibrate, a bad row after 70000 blank lines names its line"
  ARGS calibrate ${deep}/stream_blank_bad_all_reduce.txt RC 2
  STDERR "stream_blank_bad_all_reduce\\.txt:70001: '12 34' is not a data row")
tpcost_cli_case("hostile: calibrate, a 2 MiB line"
  ARGS calibrate ${deep}/stream_long_line_all_reduce.txt RC 2
  STDERR "stream_long_line_all_reduce\\.txt:2: a line longer than 1 MiB")
tpcost_cli_case("hostile: calibrate, 10001 data rows"
  ARGS calibrate ${deep}/stream_rows_all_reduce.txt RC 2
  STDERR "stream_rows_all_reduce\\.txt:10001: more than 10000 data rows")
tpcost_cli_case("hostile: calibrate, a 17 MB JSON report"
  ARGS calibrate ${deep}/stream_big_all_reduce.json RC 2
  STDERR "stream_big_all_reduce\\.json: is a JSON report larger than 16 MiB")
set_tests_properties("cli: hostile: calibrate, 10001 data rows"
                     "cli: hostile: calibrate, a 17 MB JSON report"
                     PROPERTIES FIXTURES_REQUIRED deep_json)
set_tests_properties("cli: hostile: calibrate, a data row cut by a 64 KiB chunk"
                     "cli: hostile: calibrate, a first chunk of blank lines"
                     "cli: hostile: calibrate, a bad row after 70000 blank lines names its line"
                     "cli: hostile: calibrate, a 2 MiB line"
                     PROPERTIES FIXTURES_REQUIRED deep_json)
