#!/usr/bin/env bash
# input_limit_flags.sh TALLY
# Issue 23, limits with a flag to raise them (docs/limits.md): a manifest nested 300 levels is
# refused by default and read with --max-yaml-depth 300; a value above what yaml-cpp parses is a
# flag error; --max-object-bytes moves the event-object limit of tally replay; --events-in-flight
# changes no output; --max-objects-per-document, --max-containers, and the CSV importers'
# --max-line-bytes.
set -uo pipefail
tally="$1"
# shellcheck source=test/replay/check_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/check_lib.sh"

deep="${work}/deep.yaml"
{
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata: '
  printf '[%.0s' $(seq 299)
  printf ']%.0s' $(seq 299)
  printf '\n'
} >"${deep}"
"${tally}" validate "${deep}" >"${work}/out" 2>&1
check "validate refuses 300 levels by default (exit 1)" test $? -eq 1
check "the message names the flag" grep -q 'nested deeper than 256 levels (--max-yaml-depth)' \
  "${work}/out"
"${tally}" validate --max-yaml-depth 300 "${deep}" >"${work}/out" 2>&1
check "--max-yaml-depth 300 reads it (exit 0)" test $? -eq 0
"${tally}" validate --max-yaml-depth 1000 "${deep}" >"${work}/out" 2>&1
rc=$?
check "--max-yaml-depth above 496 is a flag error" test "${rc}" -ne 0 -a "${rc}" -ne 1

# An event object the fast Workload path does not read (a ResourceFlavor), about 150 bytes.
events="${work}/events.jsonl"
cat >"${events}" <<'JSONL'
{"format":"tally.events","version":1}
{"time":1767225600,"type":"ADDED","object":{"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ResourceFlavor","metadata":{"name":"extra","labels":{"pad":"0123456789012345678901234567890123456789"}}}}
JSONL
manifests=data/replay/gpu-day/manifests.yaml
"${tally}" replay --manifests "${manifests}" --events "${events}" --out "${work}/r1" -q \
  --no-progress >/dev/null 2>&1
check "the object is within the default limit" \
  grep -q '"eventsApplied":1,' "${work}/r1/report.json"
"${tally}" replay --manifests "${manifests}" --events "${events}" --out "${work}/r2" -q \
  --no-progress --max-object-bytes 100 >/dev/null 2>&1
check "--max-object-bytes 100 refuses it" grep -q 'larger than 100 bytes' "${work}/r2/report.json"

# --events-in-flight (issue 22): how far the reader runs ahead of the slowest shard. The output
# does not depend on it; 0 is a flag error.
gpu_events=data/replay/gpu-day/events.jsonl.gz
for window in 1 20000 100000; do
  "${tally}" replay --manifests "${manifests}" --events "${gpu_events}" --out "${work}/w${window}" \
    -q --no-progress --threads 2 --events-in-flight "${window}" >/dev/null 2>&1
done
check "decisions are the same with 1 and 20000 lines in flight" \
  cmp -s "${work}/w1/decisions.jsonl" "${work}/w20000/decisions.jsonl"
check "decisions are the same with 1 and 100000 lines in flight" \
  cmp -s "${work}/w1/decisions.jsonl" "${work}/w100000/decisions.jsonl"
"${tally}" replay --manifests "${manifests}" --events "${gpu_events}" --out "${work}/w0" -q \
  --no-progress --events-in-flight 0 >/dev/null 2>&1
rc=$?
check "--events-in-flight 0 is a flag error" test "${rc}" -ne 0 -a ! -e "${work}/w0/decisions.jsonl"

# Objects per document and containers per pod template (issue 23).
list="${work}/list.yaml"
{
  printf 'apiVersion: v1\nkind: List\nitems:\n'
  for i in 1 2 3; do
    printf -- '- {apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: f%s}}\n' "${i}"
  done
  printf -- '---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w}\n'
  printf 'spec:\n  podSets:\n  - name: main\n    template: {spec: {containers: [{name: a}, {name: b}]}}\n'
} >"${list}"
"${tally}" validate "${list}" >"${work}/out" 2>&1
check "a List of 3 objects and 2 containers validate by default (exit 0)" test $? -eq 0
"${tally}" validate --max-objects-per-document 2 "${list}" >"${work}/out" 2>&1
check "--max-objects-per-document 2 refuses the List (exit 1)" test $? -eq 1
check "and names the flag" grep -q 'at most 2 objects, none loaded (--max-objects-per-document)' \
  "${work}/out"
"${tally}" validate --max-containers 1 "${list}" >"${work}/out" 2>&1
check "--max-containers 1 refuses the Workload (exit 1)" test $? -eq 1
check "with the field and the flag" \
  grep -q 'containers: Too many: 2: must have at most 1 items (--max-containers)' "${work}/out"

# Cohort depth (issue 23): a chain of 12 Cohorts is refused under --max-cohort-depth 10.
chain="${work}/chain.yaml"
for i in $(seq 0 11); do
  [[ "${i}" -gt 0 ]] && printf -- '---\n'
  printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata: {name: c%s}\n' "${i}"
  [[ "${i}" -gt 0 ]] && printf 'spec: {parentName: c%s}\n' "$((i - 1))"
done >"${chain}"
"${tally}" validate "${chain}" >"${work}/out" 2>&1
check "a 12-deep Cohort chain validates by default (exit 0)" test $? -eq 0
"${tally}" validate --max-cohort-depth 10 "${chain}" >"${work}/out" 2>&1
check "--max-cohort-depth 10 refuses it (exit 1)" test $? -eq 1
check "on c10, naming the flag" grep -q 'Cohort/c10: spec.parentName: the Cohort tree is deeper than 10 levels here (--max-cohort-depth)' "${work}/out"

# The CSV importers stream their rows (issue 23): --max-line-bytes skips a longer row, counted
# with its line, and the rest is imported.
csv="${work}/philly.csv"
{
  printf 'timestamp,duration,num_gpus,gpu_time,cluster\n'
  printf '2017-10-09 07:01:55,100,1,100,vc1\n'
  printf '2017-10-09 07:02:%s,100,1,100,vc1\n' "$(printf '5%.0s' $(seq 200))"
  printf '2017-10-09 07:03:55,100,1,100,vc1\n'
} >"${csv}"
"${tally}" import philly "${csv}" --out "${work}/imp1" >"${work}/out" 2>&1
check "import philly reads a 240-byte row by default (exit 0)" test $? -eq 0
check "and counts it as a bad timestamp, not a long line" grep -q 'bad timestamp' "${work}/out"
"${tally}" import philly "${csv}" --max-line-bytes 100 --out "${work}/imp2" >"${work}/out" 2>&1
check "--max-line-bytes 100 skips it (exit 0)" test $? -eq 0
check "as a line too long, with file:line" grep -q 'philly.csv:3: line longer than 100 bytes' \
  "${work}/out"
check "the other two rows are imported" test "$(grep -c '"ADDED"' "${work}/imp2/events.jsonl")" -eq 2

exit "${fail}"
