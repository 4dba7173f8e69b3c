#!/usr/bin/env bash
# did_you_mean.sh TALLY
# Issue 24: a mistyped subcommand, flag, workload name or kind gets "did you mean" with the
# closest name (replay/io/closest_match.h); a word close to nothing gets no guess.
set -uo pipefail
tally="$1"
# shellcheck source=test/replay/check_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/check_lib.sh"
yaml=data/scenarios/hierarchical-gpu.yaml

hint() {  # hint WANT COMMAND...: the command fails with exit 2 or 1 and prints WANT on stderr
  local want="$1"
  shift
  "${tally}" "$@" >/dev/null 2>"${work}/err"
  local status=$?
  check "$* : fails" test "${status}" -ne 0
  check "$* : says '${want}'" grep -qF "${want}" "${work}/err"
}
hint "'replya' is not a subcommand; did you mean 'replay'?" replya
hint "'valdate' is not a subcommand; did you mean 'validate'?" valdate x
hint "tally replay: no flag --manifest; did you mean --manifests?" replay --manifest x
hint "tally explain: no flag --eat; did you mean --eta?" explain --eat "${yaml}" a/b
hint "did you mean team-llm/rlhf-reward-model?" explain "${yaml}" team-llm/rlhf-reward-modl
"${tally}" quux >/dev/null 2>"${work}/err"
check "quux: no guess" bash -c "! grep -q 'did you mean' '${work}/err'"
printf 'apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQeue\nmetadata:\n  name: a\n' \
  | "${tally}" validate - >"${work}/out" 2>&1
check "a mistyped kind: warned with the closest kind" \
  grep -q 'ClusterQeue: kind: not a kind of kueue.x-k8s.io tally reads (skipped); did you mean ClusterQueue?' \
  "${work}/out"
exit "${fail}"
