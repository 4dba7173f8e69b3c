#!/usr/bin/env bash
# audit_roundtrip.sh TALLY MANIFESTS EVENTS: the fidelity round trip of docs/import.md. Replays a
# shipped scenario, writes the audit log an API server would have recorded for those decisions
# (`tally audit-log`, rotated, with noise), imports it (`tally import audit`, rotated files given
# newest first), replays the import with `--verify` and requires zero differences and the same
# decisions byte for byte. Also checks that the log carries no runtime hint, that no canary value of
# the noise's Secrets and ConfigMaps reaches an output, that the generator is deterministic, and
# that the v1beta1 form round-trips too.
set -euo pipefail
tally="$1"
manifests="$2"
events="$3"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

"${tally}" replay --manifests "${manifests}" --events "${events}" --out "${work}/original" -q \
  --no-timings --no-progress
mkdir -p "${work}/log" "${work}/log2"
"${tally}" audit-log --manifests "${manifests}" --events "${events}" \
  --decisions "${work}/original/decisions.jsonl" --out "${work}/log/audit.log" --max-lines 1500
"${tally}" audit-log --manifests "${manifests}" --events "${events}" \
  --decisions "${work}/original/decisions.jsonl" --out "${work}/log2/audit.log" --max-lines 1500 \
  > /dev/null
diff -r "${work}/log" "${work}/log2" > /dev/null || fail "two runs of tally audit-log differ"
files=("${work}"/log/audit*.log)
((${#files[@]} >= 2)) || fail "expected rotated files, got ${#files[@]}"
if grep -q '"runtime"' "${work}"/log/*.log; then
  fail "the audit log carries a runtime hint"
fi
grep -q 'tally-canary-configmap' "${work}"/log/*.log || fail "the noise has no ConfigMap canary"

# Newest first, as a shell glob of rotated logs would not give them.
mapfile -t reversed < <(printf '%s\n' "${files[@]}" | sort -r)
"${tally}" import audit "${reversed[@]}" --out "${work}/imported" 2> /dev/null
if grep -rq 'canary' "${work}/imported"; then
  fail "a Secret or ConfigMap value reached the import's outputs"
fi
"${tally}" replay --manifests "${work}/imported/manifests.yaml" \
  --events "${work}/imported/events.jsonl" --verify "${work}/imported/admissions.jsonl" \
  --out "${work}/replayed" -q --no-timings --no-progress > "${work}/verify.out" ||
  { cat "${work}/verify.out"; fail "--verify found differences"; }
cat "${work}/verify.out"
grep -q ', 0 differences$' "${work}/verify.out" || fail "no verify summary"
cmp -s "${work}/original/decisions.jsonl" "${work}/replayed/decisions.jsonl" ||
  fail "the imported replay's decisions differ from the original's"

"${tally}" audit-log --manifests "${manifests}" --events "${events}" \
  --decisions "${work}/original/decisions.jsonl" --out "${work}/v1beta1.log" \
  --api-version audit.k8s.io/v1beta1 --no-noise > /dev/null
"${tally}" import audit "${work}/v1beta1.log" --out "${work}/imported-v1beta1" > /dev/null 2>&1
"${tally}" replay --manifests "${work}/imported-v1beta1/manifests.yaml" \
  --events "${work}/imported-v1beta1/events.jsonl" \
  --verify "${work}/imported-v1beta1/admissions.jsonl" --out "${work}/replayed-v1beta1" -q \
  --no-timings --no-progress
echo "round trip OK"
