#!/usr/bin/env bash
# explain_eta.sh TALLY
# Issue 24: `tally explain --eta` and `tally predict` simulate the state forward with expected
# hold times and predict when a workload is admitted, with a range (p10 / p90 hold times of
# --runtimes REPORT.json) and what it waits behind. Scenario: test/scenarios/explain/eta.yaml
# (its header works the expected times out by hand).
set -uo pipefail
tally="$1"
# shellcheck source=test/replay/check_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/check_lib.sh"
manifests=test/scenarios/explain/eta.yaml
now=2026-01-01T00:30:00Z

eta() {  # eta WORKLOAD [FLAGS...]: the ETA line of the text output
  "${tally}" explain "${manifests}" "team/$1" --now "${now}" "${@:2}" | grep '^ETA: '
}

# Annotations and maximumExecutionTimeSeconds only: one estimate per workload, no range.
check "early: admitted when running-1 releases" \
  test "$(eta early --eta)" = "ETA: admitted at 2026-01-01T01:00:00Z (in 30m)"
check "unsized: admitted when early releases" \
  test "$(eta unsized --eta)" = "ETA: admitted at 2026-01-01T01:30:00Z (in 1h)"
check "later: not predicted, unsized has no runtime" \
  test "$(eta later --eta)" \
  = "ETA: not predicted within 30 days: nothing left to release (the rest hold quota with no known runtime)"
"${tally}" explain "${manifests}" team/later --now "${now}" --eta >"${work}/later" 2>&1
check "later: names what it waits behind" \
  grep -q '^  behind 2 workloads of its cohort tree admitted first: team/early, team/unsized$' \
  "${work}/later"
check "later: says a runtime is unknown" \
  grep -q '^  1 admitted workload with no known runtime holds its quota' "${work}/later"
check "running-1: no ETA for an admitted workload" \
  test "$(eta running-1 --eta)" = "ETA: none: releases of quota do not change QuotaReserved"

# Hold times from a replay's report: the ClusterQueue has too few samples (2 < 5), so the
# overall p10 / p50 / p90 (20, 40, 80 min) apply where no annotation does (running-2's is capped
# by its maximumExecutionTimeSeconds, unsized has none): low 01:20, mid 01:40, high 02:40.
cat >"${work}/report.json" <<'JSON'
{"quotaHoldTime":{"byClusterQueue":[{"count":2,"max":1,"mean":1,"name":"gpus","p10":1,"p50":1,"p90":1}],
 "overall":{"count":10,"max":6000,"mean":2400,"p10":1200,"p50":2400,"p90":4800}}}
JSON
check "later with --runtimes: predicted with a range" \
  test "$(eta later --runtimes "${work}/report.json")" \
  = "ETA: admitted at 2026-01-01T01:40:00Z (in 1h10m), between 2026-01-01T01:20:00Z and 2026-01-01T02:40:00Z (hold times at p10 / p90 of ${work}/report.json)"
"${tally}" explain -o json "${manifests}" team/later --now "${now}" \
  --runtimes "${work}/report.json" >"${work}/json"
check "-o json: eta keys" python3 - "${work}/json" <<'PY'
import json, sys
eta = json.load(open(sys.argv[1]))["eta"]
assert eta["predicted"] == "2026-01-01T01:40:00Z", eta
assert eta["earliest"] == "2026-01-01T01:20:00Z" and eta["latest"] == "2026-01-01T02:40:00Z", eta
assert eta["predictedInSeconds"] == 4200, eta
assert eta["admittedAhead"] == ["team/early", "team/unsized"], eta
assert eta["unknownRuntimes"] == 0, eta
PY

# tally predict: a Workload not yet submitted, created at --now (after early, unsized and later
# in the queue): running-1 (01:00) goes to early, early's release (01:30) to unsized, and
# running-2's (02:00) to it, as later needs 4 GPUs (BestEffortFIFO passes over it).
sed -n '/^  name: early$/,/^---$/p' "${manifests}" | sed '$d' \
  | sed 's/^  name: early$/  name: newcomer/; /creationTimestamp/d; /annotations:/d; /expected-runtime/d' \
  | sed '1i apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata:' >"${work}/new.yaml"
"${tally}" predict "${manifests}" "${work}/new.yaml" --now "${now}" >"${work}/predict" 2>&1
check "predict: exit 0" test $? -eq 0
check "predict: admitted when running-2 releases" \
  grep -q '^ETA: admitted at 2026-01-01T02:00:00Z (in 1h30m)$' "${work}/predict"
check "predict: the workload is the submitted one" \
  grep -q '^Workload team/newcomer (Pending)' "${work}/predict"
{ cat "${work}/new.yaml"; echo ---; sed 's/name: newcomer/name: second/' "${work}/new.yaml"; } \
  >"${work}/two.yaml"
"${tally}" predict "${manifests}" "${work}/two.yaml" >/dev/null 2>"${work}/err"
check "predict: a file of two Workloads is refused" \
  grep -q 'two.yaml: wants exactly one Workload to predict, found 2' "${work}/err"

# Errors: a --runtimes file that is not a replay report, a bad annotation.
echo '{"schemaVersion": 1}' >"${work}/old.json"
"${tally}" explain "${manifests}" team/later --now "${now}" --runtimes "${work}/old.json" \
  >/dev/null 2>"${work}/err"
check "--runtimes without quotaHoldTime: exit 2" test $? -eq 2
check "--runtimes without quotaHoldTime: says so" grep -q 'quotaHoldTime: missing' "${work}/err"
sed 's/tally.dev\/expected-runtime: "30m"/tally.dev\/expected-runtime: "half an hour"/' \
  "${manifests}" >"${work}/bad.yaml"
"${tally}" explain "${work}/bad.yaml" team/later --eta >/dev/null 2>"${work}/err"
check "bad annotation: exit 1" test $? -eq 1
check "bad annotation: file:line: field" \
  grep -q 'bad.yaml:[0-9]*: .*metadata.annotations\[tally.dev/expected-runtime\]' "${work}/err"

exit "${fail}"
