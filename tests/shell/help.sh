# Sourced by the checks here: what `tpcost --help` lists, read from the program itself.
# Needs $bin, the tpcost binary.

# The subcommands: the lines under "Subcommands:" in tpcost --help, up to the next blank line.
subcommands_of_help() {
  "$bin" --help | awk '/^Subcommands:/{on=1; next} on && /^$/{exit} on {print $1}'
}

# The flags of a command ("" for the root): the first word of each help line that starts with
# '-', split at ','.
flags_of() {
  "$bin" "$@" --help | awk '/^ +-/{print $1}' | tr ',' '\n' | grep -E '^--?[[:alnum:]]' | sort -u
}
