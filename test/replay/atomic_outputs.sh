#!/usr/bin/env bash
# atomic_outputs.sh TALLY
# Issue 23, atomic outputs: `tally replay` writes into a staging directory beside --out and puts
# the files in place only once all are written. A run that fails leaves the previous outputs as
# they were (it used to truncate decisions.jsonl beside the old reports, and `tally gate` then
# passed on stale data); a directory holding the user's own files keeps them.
set -uo pipefail
tally="$1"
# shellcheck source=test/replay/check_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/check_lib.sh"
manifests=data/replay/gpu-day/manifests.yaml
events=data/replay/gpu-day/events.jsonl.gz
mkdir "${work}/o"
out="${work}/o/out"  # ${work}/o must hold nothing else after any run

"${tally}" replay --manifests "${manifests}" --events "${events}" --out "${out}" -q --no-progress
check "a first run writes the four outputs" test -s "${out}/decisions.jsonl" -a -s "${out}/report.json" \
  -a -s "${out}/report.html" -a -s "${out}/metrics.prom"
check "no staging directory is left" test "$(ls -A "${work}/o")" = out
sum_before="$(cat "${out}"/* | md5sum)"
decisions_before="$(md5sum <"${out}/decisions.jsonl")"

# A run that fails after the outputs were opened: an events file that does not exist.
if "${tally}" replay --manifests "${manifests}" --events "${work}/missing.jsonl" --out "${out}" \
  -q --no-progress 2>/dev/null; then
  echo "FAIL: a replay of a missing events file succeeded" >&2
  fail=1
fi
check "a failed run leaves the previous outputs as they were" \
  test "$(cat "${out}"/* | md5sum)" = "${sum_before}"
check "a failed run leaves no staging directory" test "$(ls -A "${work}/o")" = out

# A second good run (--verify adds verify.txt) replaces the outputs; then a run without --verify
# removes the stale verify.txt: the directory holds exactly one run's files.
: >"${work}/admissions.jsonl"  # nothing recorded: every admission is a difference (exit 1)
"${tally}" replay --manifests "${manifests}" --events "${events}" --out "${out}" -q --no-progress \
  --verify "${work}/admissions.jsonl" >/dev/null 2>&1
check "--verify writes verify.txt" test -s "${out}/verify.txt"
"${tally}" replay --manifests "${manifests}" --events "${events}" --out "${out}" -q --no-progress
check "a later run without --verify leaves no stale verify.txt" test ! -e "${out}/verify.txt"
check "the same inputs give the same decisions" \
  test "$(md5sum <"${out}/decisions.jsonl")" = "${decisions_before}"

# The user's own files in --out are kept; tally's are replaced.
echo "mine" >"${out}/notes.txt"
"${tally}" replay --manifests "${manifests}" --events "${events}" --out "${out}" -q --no-progress
check "a user's file in --out is kept" test "$(cat "${out}/notes.txt")" = "mine"
check "tally's files are there" test -s "${out}/report.json" -a -s "${out}/decisions.jsonl"
check "no staging directory is left (user files)" test "$(ls -A "${work}/o")" = out
# A write that fails (here a file size limit of 64 KiB, as a full disk would): the replay says
# which file and why, exits 1, and the previous outputs stay (it used to go on with a short
# decisions.jsonl and fail later on report.json, naming the wrong file).
sum_before="$(cat "${out}"/* | md5sum)"
err="$(
  trap '' XFSZ
  ulimit -f 64
  "${tally}" replay --manifests "${manifests}" --events "${events}" --out "${out}" -q \
    --no-progress 2>&1 >/dev/null
)"
rc=$?
check "a replay that cannot write decisions.jsonl exits 1 (got ${rc})" test "${rc}" -eq 1
check "it names decisions.jsonl and the cause (got: ${err})" \
  grep -q "error: cannot write .*decisions.jsonl: File too large" <<<"${err}"
check "a write error leaves the previous outputs as they were" \
  test "$(cat "${out}"/* | md5sum)" = "${sum_before}"
check "a write error leaves no staging directory" test "$(ls -A "${work}/o")" = out
# Ctrl-C: the replay stops after its current batch, writes what it has marked incomplete
# ("complete": false) and exits 130; tally diff refuses the result. The trace comes through a
# FIFO held open, so that the signal arrives while the replay is reading it.
mkfifo "${work}/fifo"
"${tally}" replay --manifests "${manifests}" --events - --out "${work}/o/int" -q --no-progress \
  <"${work}/fifo" 2>/dev/null &
pid=$!
exec 3>"${work}/fifo"
gzip -dc "${events}" | head -n 50 >&3
sleep 0.5
kill -INT "${pid}"
gzip -dc "${events}" | tail -n +51 >&3 2>/dev/null
exec 3>&-
wait "${pid}"
rc=$?
check "an interrupted replay exits 130 (got ${rc})" test "${rc}" -eq 130
check "its report says complete: false" grep -q '"complete":false' "${work}/o/int/report.json"
if "${tally}" diff "${work}/o/int" "${out}" >/dev/null 2>&1; then
  echo "FAIL: tally diff compared an interrupted run" >&2
  fail=1
fi
exit "${fail}"
