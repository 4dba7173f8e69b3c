#!/usr/bin/env bash
# cohort_cycle_commands.sh TALLY MANIFESTS [cap|nocap]
# Issue 20 part 2: every subcommand that reads manifests (validate, schedule, explain, replay,
# sweep, audit-log) answers at once on a cohort cycle (a -> b -> a). Each run is capped (10 s, and
# 4 GB of address space unless `nocap`) so that a regression fails here instead of eating the
# machine; ctest adds a TIMEOUT on top.
set -uo pipefail
tally="$1"
manifests="$2"
# nocap: no address-space cap (ASan/TSan reserve terabytes of shadow memory); the 10 s cap stays.
memory_cap="${3:-cap}"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
fail=0

run() {  # run NAME EXPECTED_EXIT COMMAND... ; stdout+stderr in ${work}/NAME.out
  local name="$1" want="$2"
  shift 2
  if [[ "${memory_cap}" == cap ]]; then
    (ulimit -v 4000000; timeout 10 "$@") >"${work}/${name}.out" 2>&1
  else
    timeout 10 "$@" >"${work}/${name}.out" 2>&1
  fi
  local status=$?
  if [[ "${status}" == 124 ]]; then
    echo "FAIL ${name}: still running after 10 s: $*" >&2
    fail=1
  elif [[ "${status}" != "${want}" ]]; then
    echo "FAIL ${name}: exit status ${status}, want ${want}: $*" >&2
    cat "${work}/${name}.out" >&2
    fail=1
  fi
}

expect() {  # expect NAME TEXT
  if ! grep -qF -- "$2" "${work}/$1.out"; then
    echo "FAIL $1: output lacks '$2'" >&2
    cat "${work}/$1.out" >&2
    fail=1
  fi
}

run validate 0 "${tally}" validate "${manifests}"
expect validate "Cohort parent cycle"
run schedule 0 "${tally}" schedule "${manifests}"
run schedule_json 0 "${tally}" schedule -o json "${manifests}"
run explain 0 "${tally}" explain "${manifests}" ns/w
expect explain "ClusterQueue q cannot admit: cohorts a → b → a form a cycle"
expect explain "What would admit it: no quota change: break the cohort cycle a → b → a"
run explain_json 0 "${tally}" explain -o json "${manifests}" ns/w
expect explain_json "form a cycle"
run explain_kueue 0 "${tally}" explain --kueue-scan-reset "${manifests}" ns/w
expect explain_kueue "form a cycle"
cat >"${work}/events.jsonl" <<'JSONL'
{"type": "ADDED", "time": "2026-01-01T00:00:00Z", "runtime": "1h", "object": {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {"name": "w2", "namespace": "ns"}, "spec": {"queueName": "lq", "podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}]}}}
JSONL
run replay 0 "${tally}" replay --manifests "${manifests}" --events "${work}/events.jsonl" \
  --out "${work}/out" -q
run replay_cp 0 "${tally}" replay --manifests "${manifests}" --events "${work}/events.jsonl" \
  --control-plane --cycle-duration 10ms --out "${work}/out_cp" -q
run sweep 0 "${tally}" sweep --manifests "${manifests}" --events "${work}/events.jsonl" \
  --set "ClusterQueue/q:spec.resourceGroups[0].flavors[0].resources[0].nominalQuota=2,8" \
  --jobs 1 --out "${work}/sweep"
if [[ -f "${work}/out/decisions.jsonl" ]]; then
  run audit_log 0 "${tally}" audit-log --manifests "${manifests}" --events "${work}/events.jsonl" \
    --decisions "${work}/out/decisions.jsonl" --out "${work}/audit.log"
fi
if [[ -f "${work}/out/decisions.jsonl" ]] && grep -q '"type":"Admitted"' "${work}/out/decisions.jsonl"; then
  echo "FAIL replay: admitted into a cohort cycle" >&2
  fail=1
fi
if [[ "${fail}" == 0 ]]; then
  echo "ok: validate, schedule, explain, replay, sweep and audit-log answered on a cohort cycle"
fi
exit "${fail}"
