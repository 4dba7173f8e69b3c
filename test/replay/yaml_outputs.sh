#!/usr/bin/env bash
# yaml_outputs.sh TALLY
# Issue 24: every command that prints `-o json` prints `-o yaml` too (replay/io/json_to_yaml.h):
# validate, schedule, explain, diff and gate here (sweep and merge in sweep_slices.sh). The YAML holds
# the JSON's top-level keys in the same order, in block style; an unknown format is refused.
set -uo pipefail
tally="$1"
# shellcheck source=test/replay/check_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/check_lib.sh"
scenario=data/scenarios/hierarchical-gpu.yaml

# The top-level keys of a one-line JSON object, in order, and of a block YAML mapping.
json_keys() { python3 -c 'import json, sys; print(*json.load(open(sys.argv[1])).keys())' "$1"; }
yaml_keys() { grep -o '^[A-Za-z"][^ :]*:' "$1" | tr -d '":' | tr '\n' ' ' | sed 's/ $//'; }

compare() {  # compare NAME ARGS...: the command with -o json and with -o yaml
  local name="$1"
  shift
  "${tally}" "$@" -o json >"${work}/${name}.json" 2>/dev/null
  local json_status=$?
  "${tally}" "$@" -o yaml >"${work}/${name}.yaml" 2>/dev/null
  check "${name}: -o yaml exits as -o json (${json_status})" test $? -eq "${json_status}"
  check "${name}: has top-level keys" test -n "$(json_keys "${work}/${name}.json")"
  check "${name}: same top-level keys" \
    test "$(json_keys "${work}/${name}.json")" = "$(yaml_keys "${work}/${name}.yaml")"
  check "${name}: block style, not JSON" bash -c "! grep -q '^{' '${work}/${name}.yaml'"
}

compare validate validate "${scenario}"
compare schedule schedule "${scenario}"
compare explain explain "${scenario}" team-llm/rlhf-reward-model
compare explain-unevaluated explain test/scenarios/explain/causes.yaml team/no-local-queue

gpu=data/replay/gpu-day
"${tally}" replay --manifests "${gpu}/manifests.yaml" --events "${gpu}/events.jsonl.gz" \
  --out "${work}/a" -q --no-progress >/dev/null 2>&1
"${tally}" replay --manifests "${gpu}/manifests.yaml" --events "${gpu}/events.jsonl.gz" \
  --out "${work}/b" -q --no-progress --kueue-scan-reset >/dev/null 2>&1
compare diff diff "${work}/a" "${work}/b"
# gate: a passing and a failing verdict, the same exit status in every format. Baseline: gpu-day
# with research-llm's noon raise going to 16 GPUs (its workloads wait less); candidate: as shipped.
zcat "${gpu}/events.jsonl.gz" | sed -e '/"kind":"ClusterQueue"/{
    s/"nvidia.com\/gpu","nominalQuota":12}/"nvidia.com\/gpu","nominalQuota":16}/ }' \
  >"${work}/events-llm16.jsonl"
"${tally}" replay --manifests "${gpu}/manifests.yaml" --events "${work}/events-llm16.jsonl" \
  --out "${work}/llm16" -q --no-progress >/dev/null 2>&1
compare gate-pass gate --baseline "${work}/llm16" --candidate "${work}/a" --max p99_wait=+1000%
compare gate-fail gate --baseline "${work}/llm16" --candidate "${work}/a" --max admissions=-0 \
  mean_wait@research-llm=+0s
"${tally}" gate --baseline "${work}/llm16" --candidate "${work}/a" \
  --max mean_wait@research-llm=+0s -o json >"${work}/gate.json"
check "gate -o json: exit 1 when a limit is broken" test $? -eq 1
check "gate -o json: the verdict and the check's figures" python3 - "${work}/gate.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
assert g["pass"] is False, g
(c,) = g["checks"]
assert c["metric"] == "mean_wait" and c["clusterQueue"] == "research-llm", c
assert c["unit"] == "absolute" and c["limit"] == 0 and c["pass"] is False, c
assert c["worseBy"] == c["candidate"] - c["baseline"] or abs(
    c["worseBy"] - (c["candidate"] - c["baseline"])) < 1e-3 * max(1, abs(c["worseBy"])), c
assert list(g) == sorted(g) and list(c) == sorted(c), (list(g), list(c))
PY

"${tally}" validate -o toml "${scenario}" >/dev/null 2>&1
rc=$?
check "-o toml is refused as a usage error" test "${rc}" -ne 0 -a "${rc}" -ne 1

exit "${fail}"
