#!/usr/bin/env zsh
# Prints the candidates zsh's completion system offers for a command line.
# Usage: zsh_complete.zsh DIR "LINE"   (DIR holds _tpcost; LINE is completed as if TAB were hit)
# An interactive zsh runs in a pseudo-terminal (zpty); a compadd wrapper records each candidate.
# Each step waits for a sentinel that the shell prints when it is done: no sleeps.
zmodload zsh/zpty || exit 77
dir=$1 line=$2
out=$(mktemp) || exit 1
integer step=0
# Runs one command line in the pty shell and waits until it has finished and the next prompt
# is up (typed-ahead input sent before the line editor starts may be dropped). The sentinel and
# the prompt print differently from how they are typed, so their echo cannot match.
run() {
  (( step++ ))
  zpty -w z "$1; print TPCOST_STEP_\$(( $step * 1000 + 1 ))"
  zpty -r z _ "*TPCOST_STEP_$(( step * 1000 + 1 ))*"
  zpty -r z _ "*READY> "
}
zpty z zsh -f -i
run "PS1='%(?.READY.READY)> ' RPROMPT=''; unsetopt AUTO_LIST LIST_AMBIGUOUS BEEP"
run "fpath=(${(q)dir} \$fpath); autoload -U compinit; compinit -u -D"
run "compadd() { local -a __hits; builtin compadd -O __hits \"\$@\"; print -rl -- \"\${__hits[@]}\" >> ${(q)out}; builtin compadd \"\$@\"; }"
# Type the line and TAB, then clear it (Ctrl-U) and run a sentinel.
zpty -w -n z "$line"$'\t'
run $'\x15'"true"
zpty -d z
sort -u -- "$out"
rm -f -- "$out"
