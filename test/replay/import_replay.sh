#!/usr/bin/env bash
# import_replay.sh TALLY SOURCE ARGS...: runs `TALLY import SOURCE ARGS... --out TMP/import`, then
# `TALLY replay` on what it wrote (--no-timings), and prints both summaries with the temporary
# directory shown as OUT, for golden_check.sh. Exits 1 if either command fails.
set -uo pipefail
tally="$1"
shift
out="$(mktemp -d)"
trap 'rm -rf "${out}"' EXIT
"${tally}" import "$@" --out "${out}/import" >"${out}/import.txt" || exit 1
"${tally}" replay --manifests "${out}/import/manifests.yaml" --events "${out}/import/events.jsonl" \
  --out "${out}/replay" --no-timings --no-progress >"${out}/replay.txt" || exit 1
sed "s|${out}|OUT|g" "${out}/import.txt" "${out}/replay.txt"
