# End-to-end cases of `tpcost completion`: included by tests/cli/CMakeLists.txt, which defines
# tpcost_cli_case and the variables these use.

tpcost_cli_case("completion needs a known shell" ARGS completion tcsh RC 2 STDERR
  "shell: 'tcsh' is not one of bash\\|zsh\\|fish")
tpcost_cli_case("completion bash: model show NAME and hardware show NAME offer the presets" ARGS completion bash RC 0
  STDOUT "model show\"\\) COMPREPLY[^\n]*llama-3-8b.*hardware show\"\\) COMPREPLY[^\n]*IB-NDR")
