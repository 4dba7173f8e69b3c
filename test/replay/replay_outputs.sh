#!/usr/bin/env bash
# replay_outputs.sh TALLY ARGS...: runs `TALLY replay ARGS... --out TMP -q --no-timings` and prints
# the deterministic outputs (report.json, metrics.prom, decisions.jsonl) one after the other, each
# under a "== name" line, for golden_check.sh. Exits with tally's status.
set -uo pipefail
tally="$1"
shift
out="$(mktemp -d)"
trap 'rm -rf "${out}"' EXIT
"${tally}" replay "$@" --out "${out}" -q --no-timings --no-progress
status=$?
for f in report.json metrics.prom decisions.jsonl; do
  echo "== ${f}"
  cat "${out}/${f}"
  echo
done
exit "${status}"
