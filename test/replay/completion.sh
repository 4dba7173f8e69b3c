#!/usr/bin/env bash
# completion.sh TALLY
# Issue 24: `tally completion bash|zsh` completes subcommands, import sources and each
# command's flags, from the command line's own declarations.
set -uo pipefail
tally="$1"
# shellcheck source=test/replay/check_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/check_lib.sh"

"${tally}" completion bash >"${work}/tally.bash"
check "bash: exit 0" test $? -eq 0
check "bash: valid bash" bash -n "${work}/tally.bash"
complete_words() {  # complete_words WORD...: what _tally offers for the last word
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _tally
           printf "%s\n" "${COMPREPLY[@]}"' _ "${work}/tally.bash" "$@"
}
check "subcommands: rep -> replay" test "$(complete_words tally rep)" = "replay"
check "subcommands: pre -> predict" test "$(complete_words tally pre)" = "predict"
check "flags: replay --man -> --manifests" test "$(complete_words tally replay --man)" = "--manifests"
check "flags: explain --e -> --eta" test "$(complete_words tally explain --et)" = "--eta"
check "import sources: import ph -> philly" test "$(complete_words tally import ph)" = "philly"
check "import flags: import philly --total -> --total-gpus" \
  test "$(complete_words tally import philly --total)" = "--total-gpus"
"${tally}" completion zsh >"${work}/tally.zsh"
check "zsh: loads bashcompinit" grep -q '^autoload -U +X bashcompinit && bashcompinit$' \
  "${work}/tally.zsh"
check "zsh: the same completion function" grep -q '^complete -o filenames -F _tally tally$' \
  "${work}/tally.zsh"
"${tally}" completion fish >/dev/null 2>&1
check "fish: refused (exit 2)" test $? -eq 2
exit "${fail}"
