#!/usr/bin/env bash
# progress_lines.sh TALLY
# Issue 24: replay progress when stderr is not a terminal is plain lines (no carriage returns),
# ending with a `done` line; -q and --no-progress print none.
set -uo pipefail
tally="$1"
# shellcheck source=test/replay/check_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/check_lib.sh"
args=(replay --manifests data/replay/gpu-day/manifests.yaml
  --events data/replay/gpu-day/events.jsonl.gz)

"${tally}" "${args[@]}" --out "${work}/a" >/dev/null 2>"${work}/err"
check "exit 0" test $? -eq 0
check "a done line" grep -q '^tally replay: done 100%, 257 events, [0-9]* ev/s, ETA 0s, virtual ' \
  "${work}/err"
check "no carriage return in a log" bash -c "! grep -q $'\r' '${work}/err'"
"${tally}" "${args[@]}" --out "${work}/b" -q >/dev/null 2>"${work}/err"
check "-q: no progress" bash -c "! grep -q 'tally replay:' '${work}/err'"
"${tally}" "${args[@]}" --out "${work}/c" --no-progress >/dev/null 2>"${work}/err"
check "--no-progress: no progress" bash -c "! grep -q 'tally replay:' '${work}/err'"
exit "${fail}"
