#!/usr/bin/env bash
# utf8_outputs.sh TALLY
# Issue 23, findings 10-12: bytes that are not UTF-8 in an input (a Philly CSV field, a YAML
# name, a trace line quoted in an error) never reach a JSON output as they are. Each output must
# parse as strict JSON, and tally's own `diff` must read a report it wrote.
set -uo pipefail
tally="$1"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
fail=0
check_json() {  # check_json NAME FILE
  if ! python3 -c 'import json, sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' "$2"; then
    echo "FAIL $1: $2 is not UTF-8 JSON" >&2
    fail=1
  fi
}
"${tally}" import philly test/robustness/10-invalid-utf8-into-import-json.csv --out "${work}/i10" \
  >/dev/null 2>&1
check_json import "${work}/i10/import.json"
"${tally}" validate -o json test/robustness/11-invalid-utf8-into-validate-json.yaml \
  >"${work}/v11.json" 2>/dev/null
check_json validate "${work}/v11.json"
"${tally}" replay --manifests data/replay/gpu-day/manifests.yaml \
  --events test/robustness/12-invalid-utf8-into-report-json.jsonl --out "${work}/o12" -q \
  --no-progress >/dev/null 2>&1
check_json report "${work}/o12/report.json"
if ! "${tally}" diff "${work}/o12" "${work}/o12" >/dev/null 2>&1; then
  echo "FAIL diff: tally diff cannot read its own report" >&2
  fail=1
fi
exit "${fail}"
