#!/usr/bin/env bash
# replay_profile.sh TALLY: `tally replay --profile` (issue 21) on a small congested single-tree
# trace. Checks that the phase table reaches stderr, that report.json gains a "profile" object
# naming every phase and the search counts, the shards' CPU time (all of it in the one shard here;
# split between three on a three-tree trace, and never more than the process's), that nothing
# else changes (decisions.jsonl and
# report.json without the profile are byte-identical to a run without --profile), and that a run
# without --profile has no "profile" key. Durations are not asserted (they depend on the machine).
set -euo pipefail
tally="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "${tmp}"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"${tally}" generate --synthetic --workloads 600 --cluster-queues 20 --trees 1 \
  --mean-interarrival 1 --seed 7 --out "${tmp}/trace" >/dev/null
run() {  # run OUT FLAGS...
  local out="$1"
  shift
  "${tally}" replay --manifests "${tmp}/trace/manifests.yaml" --events "${tmp}/trace/events.jsonl" \
    --out "${tmp}/${out}" -q --no-progress --no-timings --threads "${threads:-1}" "$@" \
    2>"${tmp}/${out}.stderr"
}
run plain
run profiled --profile

cmp "${tmp}/plain/decisions.jsonl" "${tmp}/profiled/decisions.jsonl" ||
  fail "--profile changed decisions.jsonl"
grep -q '"profile"' "${tmp}/plain/report.json" && fail "report.json has a profile without --profile"
grep -q '"profile"' "${tmp}/profiled/report.json" || fail "no profile in report.json"
for phase in parse route simulate queue cycle nominate "flavor assignment" "preemption search" \
  admit output other; do
  grep -q "\"name\":\"${phase}\"" "${tmp}/profiled/report.json" || fail "report.json: no phase '${phase}'"
  grep -q "^${phase} " "${tmp}/profiled.stderr" || fail "stderr table: no phase '${phase}'"
done
for key in cpuSeconds phaseSeconds nominationsPerAdmission searchesPerNomination rejectedByBound \
  listsReused answersReused cpuPerAdmissionUs; do
  grep -q "\"${key}\"" "${tmp}/profiled/report.json" || fail "report.json: no ${key}"
done
grep -q "^sum of phases" "${tmp}/profiled.stderr" || fail "stderr: no 'sum of phases' line"
grep -q '^shards: 1 took [0-9.]* s of CPU in their own steps; the busiest, shard 0 (.*), [0-9.]* s (100.0%), one step at a time: .* at most [0-9.]*x faster than this run on 1 thread$' \
  "${tmp}/profiled.stderr" || fail "stderr: no 'shards:' line for the one shard"
shard_cpu_checks() {  # shard_cpu_checks REPORT SHARDS: the profile's shards object adds up
  python3 - "$1" "$2" <<'PY' || fail "$1: profile.shards"
import json, sys
profile = json.load(open(sys.argv[1]))["profile"]
shards = profile["shards"]
assert shards["count"] == int(sys.argv[2]), shards
assert 0 < shards["busiestCpuSeconds"] <= shards["cpuSeconds"] <= profile["cpuSeconds"], shards
assert 0 <= shards["busiest"] < shards["count"], shards
assert shards["busiestLabel"].startswith(("Cohort/", "ClusterQueue/")), shards
PY
}
shard_cpu_checks "${tmp}/profiled/report.json" 1
grep -q "rejected by the O(depth) bound" "${tmp}/profiled.stderr" || fail "stderr: no search line"
# Apart from the profile object, report.json is the same.
# (the key after "profile" is the next present of quotaHoldTime, resourceClasses, runId)
perl -pe 's/,"profile":\{.*?\},("quotaHoldTime"|"resourceClasses"|"runId")/,$1/' \
  "${tmp}/profiled/report.json" >"${tmp}/stripped.json"
cmp "${tmp}/plain/report.json" "${tmp}/stripped.json" || fail "--profile changed report.json"
# One thread replays slice by slice, without the pipeline of shards that run free: no pipeline
# line. Two threads go through it: its batches and the waits of the reader and the helpers.
grep -q '^pipeline:' "${tmp}/profiled.stderr" && fail "1 thread: a pipeline line"
grep -q '"pipeline"' "${tmp}/profiled/report.json" && fail "1 thread: a pipeline object"
threads=2 run two --profile
cmp "${tmp}/plain/decisions.jsonl" "${tmp}/two/decisions.jsonl" ||
  fail "2 threads changed decisions.jsonl"
grep -q '^pipeline: [1-9][0-9]* batches; the reader blocked [0-9]* times' "${tmp}/two.stderr" ||
  fail "2 threads: no pipeline line"
for key in batches readerWaits readerWaitSeconds helperWaits helperWaitSeconds windowGrown \
  windowShrunk stepsPaused linesWaitingPeak; do
  grep -q "\"${key}\"" "${tmp}/two/report.json" || fail "2 threads: report.json: no ${key}"
done
# Three independent trees: three shards; on 2 threads the line compares the run's wall time.
"${tally}" generate --synthetic --workloads 600 --cluster-queues 12 --trees 3 \
  --mean-interarrival 1 --seed 7 --out "${tmp}/three" >/dev/null
"${tally}" replay --manifests "${tmp}/three/manifests.yaml" --events "${tmp}/three/events.jsonl" \
  --out "${tmp}/three-out" -q --no-progress --no-timings --threads 2 --profile \
  2>"${tmp}/three.stderr"
grep -q '^shards: 3 took [0-9.]* s of CPU .* at least [0-9.]* s (this run: [0-9.]* s of wall time, [0-9.]*x that)$' \
  "${tmp}/three.stderr" || fail "3 trees, 2 threads: no 'shards:' line"
shard_cpu_checks "${tmp}/three-out/report.json" 3
echo "replay --profile: phases, counts, pipeline waits, shard CPU and unchanged outputs checked"
