# Writes files of 100,000 nested arrays that are valid JSON, in the place of a value each io
# reader echoes in an error (issue 17: nlohmann's recursive dump() overflowed the stack at
# about 75,000 levels). Too large to commit; a test fixture writes them.
string(REPEAT "[" 100000 open)
string(REPEAT "]" 100000 close)
file(WRITE "${OUT}/deep_hf.json" "{\"hidden_size\": ${open}${close}}")
file(WRITE "${OUT}/deep_profile.json" "{\"schema\": ${open}${close}}")
file(WRITE "${OUT}/deep_nccl.json" "{\"results\": [{\"size\": 1, \"out_of_place\": ${open}${close}}]}")

# Issue 30: inputs that crashed a reader by recursing once per byte or per level.
string(REPEAT "-" 50000 dashes)
file(WRITE "${OUT}/long_dashes.txt" "${dashes}\n")  # std::regex in format detection
string(REPEAT " " 50000 spaces)
file(WRITE "${OUT}/long_line.log"
     "---- arguments ----\n  x${spaces}y\n---- end of arguments ----\n")  # the log reader
file(WRITE "${OUT}/deep_deepspeed.json" "{\"train_batch_size\": ${open}${close}}")
string(REPEAT "(" 100000 parens)
file(WRITE "${OUT}/deep_arithmetic.sh"
     "TP=$((${parens}1))\npython pretrain_gpt.py --tensor-model-parallel-size $TP\n")
string(REPEAT "(" 40000 lopen)
string(REPEAT ")" 40000 lclose)
file(WRITE "${OUT}/deep_layout.json" "{\"parallel\": {\"pp_layout\": \"Et${lopen}t${lclose}L\"}}")

# Issue 29: a script whose sourced files fan out (3 files sourcing 30 each): the reader stops
# at 64 files in all, not after 3 x 30 readings (or, with more fan-out, never).
set(fan "")
foreach(i RANGE 2)
  string(APPEND fan "source fan_a${i}.sh\n")
  set(inner "")
  foreach(j RANGE 29)
    string(APPEND inner "source fan_b${j}.sh\n")
  endforeach()
  file(WRITE "${OUT}/fan_a${i}.sh" "${inner}")
endforeach()
foreach(j RANGE 29)
  file(WRITE "${OUT}/fan_b${j}.sh" "X=1\n")
endforeach()
file(WRITE "${OUT}/fan_out.sh" "${fan}torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 2\n")

# Issue 30: values echoed whole in a message (cut to 80 bytes now), and a flag repeated or
# unknown 2,000 times (warnings capped at 20 lines, the ignored note at 20 names).
string(REPEAT "a" 100000 long)
file(WRITE "${OUT}/long_value.sh"
     "python pretrain_gpt.py --num-layers ${long} --tensor-model-parallel-size 2\n")
file(WRITE "${OUT}/long_value.yaml" "model:\n  num_layers: ${long}\n")
string(REPEAT "1," 50000 freq)
file(WRITE "${OUT}/long_freq.sh"
     "python pretrain_gpt.py --num-layers 4 --num-experts 8 --moe-layer-freq [${freq}1]\n")
set(repeated "")
set(unknown "")
foreach(i RANGE 1 2000)
  string(APPEND repeated " --num-layers ${i}")
  string(APPEND unknown " --unknown-flag-${i} 1")
endforeach()
file(WRITE "${OUT}/repeated_flag.sh"
     "python pretrain_gpt.py${repeated} --tensor-model-parallel-size 2\n")
file(WRITE "${OUT}/unknown_flags.sh"
     "python pretrain_gpt.py --num-layers 2${unknown} --tensor-model-parallel-size 2\n")

# Issue 30: YAML and TOML nested 20,000 deep stop at the parsers' own depth limits.
string(REPEAT "{a: " 20000 yopen)
string(REPEAT "}" 20000 yclose)
file(WRITE "${OUT}/deep.yaml" "model:\n  num_layers: ${yopen}1${yclose}\n")
string(REPEAT "[" 20000 topen)
string(REPEAT "]" 20000 tclose)
file(WRITE "${OUT}/deep.toml" "[parallelism]\nx = ${topen}${tclose}\n")

# Issue 30: calibrate's streamed reading (64 KiB chunks). The first data row of the DGX H100
# fixture placed across the first chunk boundary, behind one long NCCL INFO line; the fixture
# behind 70,000 blank lines (the whole first chunk blank); a bad row there; a 2 MiB line.
file(READ "${NCCL_FIXTURE}" dgx)
string(FIND "${dgx}" "\n           8 " first_row)
math(EXPR pad "65536 - 12 - ${first_row} - 30")  # the row starts 30 bytes before the cut
string(REPEAT "x" ${pad} info)
file(WRITE "${OUT}/stream_cut_row/dgx-all_reduce.txt" "NCCL INFO ${info}\n${dgx}")
string(REPEAT "\n" 70000 blank)
file(WRITE "${OUT}/stream_blank/dgx-all_reduce.txt" "${blank}${dgx}")
file(WRITE "${OUT}/stream_blank_bad_all_reduce.txt" "${blank}12 34\n")
string(REPEAT "x" 2097152 long)
file(WRITE "${OUT}/stream_long_line_all_reduce.txt" "# nccl-tests\n${long}")
# Issue 30: at most 10,000 data rows per text file, and 16 MiB per JSON report (parsed whole).
string(REPEAT "8 2 float sum -1 13.67 0.00 0.00 N/A 13.03 0.00 0.00 N/A\n" 10001 rows)
file(WRITE "${OUT}/stream_rows_all_reduce.txt" "${rows}")
string(REPEAT " " 17000000 spaces17m)
file(WRITE "${OUT}/stream_big_all_reduce.json" "{\"results\": [${spaces17m}]}")
# Issue 30: a 300 KB DeepSpeed value, echoed in 80 bytes.
string(REPEAT "x" 300000 x300k)
file(WRITE "${OUT}/long_value_deepspeed.json" "{\"train_batch_size\": \"${x300k}\"}\n")
