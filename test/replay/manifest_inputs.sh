#!/usr/bin/env bash
# manifest_inputs.sh TALLY
# Issue 24: manifests come as YAML or JSON files, directories of them, or standard input (`-`);
# a directory with none of them is an error, not an empty cluster accepted with exit 0.
set -uo pipefail
tally="$1"
# shellcheck source=test/replay/check_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/check_lib.sh"
yaml=data/scenarios/hierarchical-gpu.yaml

"${tally}" validate "${yaml}" >"${work}/yaml.out" 2>&1
check "YAML: exit 0" test $? -eq 0
counts="$(head -1 "${work}/yaml.out" | sed 's/^Read [0-9]* file(s), [0-9]* document(s): //')"

# kubectl get -o json: one List per file, in a directory.
mkdir -p "${work}/json"
python3 - "${yaml}" "${work}/json/cluster.json" <<'PY'
import json, sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
json.dump({"apiVersion": "v1", "kind": "List", "items": docs}, open(sys.argv[2], "w"))
PY
"${tally}" validate "${work}/json" >"${work}/json.out" 2>&1
check "JSON directory: exit 0" test $? -eq 0
check "JSON directory: the same objects as the YAML" grep -qF "${counts}" "${work}/json.out"
check "JSON directory: the same forest" \
  diff <(tail -n +2 "${work}/yaml.out") <(tail -n +2 "${work}/json.out")

# Standard input.
"${tally}" validate - <"${yaml}" >"${work}/stdin.out" 2>&1
check "stdin: exit 0" test $? -eq 0
check "stdin: the same forest" diff <(tail -n +2 "${work}/yaml.out") <(tail -n +2 "${work}/stdin.out")
"${tally}" explain - team-llm/rlhf-reward-model <"${yaml}" >"${work}/explain.out" 2>&1
check "explain -: reads stdin" grep -q '^Why: WaitingForPreemption' "${work}/explain.out"
printf 'kind: [\n' | "${tally}" validate - >/dev/null 2>"${work}/err"
check "stdin: a syntax error names <stdin>:line" grep -q '^error: <stdin>:2: not valid YAML' \
  "${work}/err"

# An empty directory.
mkdir -p "${work}/empty"
"${tally}" validate "${work}/empty" >/dev/null 2>"${work}/err"
check "empty directory: exit 1" test $? -eq 1
check "empty directory: says so" grep -q 'empty: holds no .yaml, .yml or .json file' "${work}/err"
exit "${fail}"
