#!/usr/bin/env bash
# sweep_slices.sh TALLY MANIFESTS EVENTS: `tally sweep` of 5 variants (the baseline and two --set
# dimensions of two values) run whole, and as 3 slices (--shard 0/3, 1/3, 2/3) combined by
# `tally merge`. Requires:
#   - the merged table, text and JSON, byte-identical to the whole run's;
#   - each variant's decisions.jsonl and report.json byte-identical between the two (every run
#     uses the same --out name, in its own directory, so report.json's manifest paths agree),
#     and in the directory `tally merge --out` writes;
#   - the baseline variant (manifests re-emitted from YAML) deciding exactly as `tally replay` on
#     the original manifests, a --set to the value already there changing nothing, and a smaller
#     quota changing the decisions (so that an ignored --set fails the test);
#   - merge's errors: a missing slice, a slice given twice, a slice of another sweep.
set -euo pipefail
tally="$(realpath "$1")"
manifests="$(realpath "$2")"
events="$(realpath "$3")"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
cd "${work}"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

gpu='ClusterQueue/research-llm:spec.resourceGroups[0].flavors[0].resources[2].nominalQuota=8,4'
within='ClusterQueue/research-llm:spec.preemption.withinClusterQueue=LowerOrNewerEqualPriority,Never'
args=(--manifests "${manifests}" --events "${events}" --set "${gpu}" --set "${within}" --out sweep)

mkdir whole whole-json s0 s1 s2
(cd whole && "${tally}" sweep "${args[@]}" --jobs 2 >table.txt 2>log.txt) || fail "whole sweep"
(cd whole-json && "${tally}" sweep "${args[@]}" -o json >table.json 2>log.txt) || fail "json sweep"
for i in 0 1 2; do
  (cd "s${i}" && "${tally}" sweep "${args[@]}" --shard "${i}/3" --jobs 1 >table.txt 2>log.txt) \
    || fail "slice ${i}/3"
done
"${tally}" merge s0/sweep s1/sweep s2/sweep --out merged >merged.txt || fail "merge"
"${tally}" merge s2/sweep s0/sweep s1/sweep -o json >merged.json || fail "merge -o json"

cmp whole/table.txt merged.txt || fail "merged table differs from the whole sweep's"
cmp whole-json/table.json merged.json || fail "merged JSON table differs from the whole sweep's"
"${tally}" merge s0/sweep s1/sweep s2/sweep -o yaml >merged.yaml || fail "merge -o yaml"
grep -q '^variants:' merged.yaml || fail "merge -o yaml: no variants key: $(head -3 merged.yaml)"
! grep -q '^{' merged.yaml || fail "merge -o yaml printed JSON"
grep -q '^tally sweep: 5 variants' merged.txt || fail "expected 5 variants: $(head -1 merged.txt)"

ids=(base set-0001 set-0002 set-0003 set-0004)
for id in "${ids[@]}"; do
  owner=""
  for i in 0 1 2; do
    if [[ -f "s${i}/sweep/variants/${id}/report.json" ]]; then
      [[ -z "${owner}" ]] || fail "${id} replayed by two slices"
      owner="s${i}"
    fi
  done
  [[ -n "${owner}" ]] || fail "${id} replayed by no slice"
  for f in decisions.jsonl report.json; do
    cmp "whole/sweep/variants/${id}/${f}" "${owner}/sweep/variants/${id}/${f}" \
      || fail "${id}/${f}: slice ${owner} differs from the whole sweep"
    cmp "whole/sweep/variants/${id}/${f}" "merged/variants/${id}/${f}" \
      || fail "${id}/${f}: merge --out differs from the whole sweep"
  done
done
[[ -f s0/sweep/variants/base/report.json && -f s0/sweep/variants/set-0003/report.json ]] \
  || fail "slice 0/3 should replay variants 0 and 3"

# The baseline round trip, and that --set takes effect.
"${tally}" replay --manifests "${manifests}" --events "${events}" --out plain -q --no-timings \
  --no-progress || fail "plain replay"
cmp plain/decisions.jsonl whole/sweep/variants/base/decisions.jsonl \
  || fail "the base variant decides differently from tally replay on the original manifests"
cmp whole/sweep/variants/base/decisions.jsonl whole/sweep/variants/set-0001/decisions.jsonl \
  || fail "set-0001 sets the values already there and should decide as base"
if cmp -s whole/sweep/variants/base/decisions.jsonl whole/sweep/variants/set-0003/decisions.jsonl
then
  fail "set-0003 (4 GPUs instead of 8) decides as base: --set ignored?"
fi
grep -q 'nominalQuota: 4' whole/sweep/variants/set-0003/manifests.yaml \
  || fail "set-0003/manifests.yaml lacks the 4 GPUs"
base_row="$(grep '^base ' whole/table.txt)"
small_row="$(grep '^set-0003 ' whole/table.txt)"
[[ "${base_row#base}" != "${small_row#set-0003}" ]] || fail "set-0003's row equals base's"

# Merge errors: exit status 2 and a message saying what is wrong.
expect_error() {
  local want="$1"
  shift
  local status=0
  "${tally}" merge "$@" >/dev/null 2>err.txt || status=$?
  [[ "${status}" == 2 ]] || fail "merge $*: exit status ${status}, want 2"
  grep -qF "${want}" err.txt || fail "merge $*: want '${want}', got: $(cat err.txt)"
}
expect_error "missing slice 2/3" s0/sweep s1/sweep
expect_error "slice 1/3 given twice" s0/sweep s1/sweep s1/sweep s2/sweep
cp -r s2/sweep other
sed -i 's/"fingerprint":"[0-9a-f]*"/"fingerprint":"0000000000000000"/' other/sweep.json
expect_error "slices of different sweeps" s0/sweep s1/sweep other
expect_error "were sliced differently" s0/sweep whole/sweep
expect_error "not a tally sweep output directory" s0/sweep s1/sweep plain

status=0
"${tally}" sweep "${args[@]}" --shard 3/3 >/dev/null 2>err.txt || status=$?
[[ "${status}" == 2 ]] || fail "--shard 3/3: exit status ${status}, want 2"
echo "ok: 5 variants, whole = 3 merged slices"
