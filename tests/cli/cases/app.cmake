# End-to-end cases of the command line itself (no command, --version, --help): included by tests/cli/CMakeLists.txt, which defines
# tpcost_cli_case and the variables these use.

tpcost_cli_case("version" ARGS --version RC 0 STDOUT "^0\\.1\\.0")
tpcost_cli_case("unknown subcommand" ARGS frobnicate RC 2 STDERR "^tpcost: error: ")
tpcost_cli_case("help lists the exit codes" ARGS --help RC 0 STDOUT "Exit codes: 0 success, 1 a check failed, 2 invalid input.*5 gnuplot")
# completion and manpage are commands like the others: --help lists them, help explains them.
tpcost_cli_case("help lists completion and manpage" ARGS --help RC 0
  STDOUT "\n  completion +Print a completion script for bash, zsh or fish[^\n]*\n  manpage +Print the man page")
tpcost_cli_case("help completion" ARGS help completion RC 0 STDOUT "^Print a completion script")
tpcost_cli_case("did you mean: a mistyped command" ARGS swep RC 2
  STDERR "^tpcost: error: unknown command 'swep'; did you mean 'sweep'\\?")
tpcost_cli_case("help lists the commands" ARGS help RC 0 STDOUT "Usage: tpcost.*sweep.*step.*plan")
tpcost_cli_case("help COMMAND is COMMAND --help" ARGS help step RC 0 STDOUT "-G,--global-batch.*Examples:")
tpcost_cli_case("help COMMAND SUBCOMMAND" ARGS help model show RC 0 STDOUT "FLOPs per token")
tpcost_cli_case("help of an unknown command suggests one" ARGS help swep RC 2 STDERR "did you mean 'sweep'")
