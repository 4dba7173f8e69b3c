#!/usr/bin/env bash
# report_doc_keys.sh TALLY
# Issue 24: docs/report.md matches what the writer produces. Replays shipped scenarios that
# between them reach every section of report.json (fallbacks, resource classes, --profile,
# quotaHoldTime) and checks both ways: every key a report holds is documented in its section of
# docs/report.md, and every key a section's tables document appears in some generated report.
# Also the Prometheus bucket bounds the docs list are those of metrics.prom.
set -uo pipefail
tally="$1"
# shellcheck source=test/replay/check_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/check_lib.sh"

run() {  # run NAME MANIFESTS EVENTS [FLAGS...]
  "${tally}" replay --manifests "$2" --events "$3" --out "${work}/$1" -q --no-progress "${@:4}" \
    >/dev/null 2>&1
  check "replay $1" test -s "${work}/$1/report.json"
}
run gpu-day data/replay/gpu-day/manifests.yaml data/replay/gpu-day/events.jsonl.gz
run profiled data/replay/gpu-day/manifests.yaml data/replay/gpu-day/events.jsonl.gz --profile
run fallback data/fallback/spot-stockout/manifests.yaml data/fallback/spot-stockout/events.jsonl
run classes data/resource-classes/gpu-memory/manifests.yaml \
  data/resource-classes/gpu-memory/events.jsonl

check "docs/report.md and report.json agree" python3 - docs/report.md "${work}"/*/report.json <<'PY'
import json, re, sys

doc = open(sys.argv[1]).read()
reports = [json.load(open(p)) for p in sys.argv[2:]]
start = doc.index("## report.json")
end = doc.index("\n## ", start + 1)
body = doc[start:end]
# Sections: "### `key`" up to the next ### heading.
sections = {}
for m in re.finditer(r"^### `(\w+)`.*?$(.*?)(?=^### |\Z)", body, re.S | re.M):
    sections[m.group(1)] = m.group(2)
intro = body[: body.index("### ")]

def keys(value, out):
    if isinstance(value, dict):
        for k, v in value.items():
            out.add(k)
            keys(v, out)
    elif isinstance(value, list):
        for v in value:
            keys(v, out)
    return out

def mentioned(name, text):
    return re.search(r'[`"\.]' + re.escape(name) + r'[`",\[\]]', text) is not None

problems = []
present = {}
for r in reports:
    for top, value in r.items():
        present.setdefault(top, set())
        keys(value, present[top])
for top, inner in sorted(present.items()):
    if top not in sections:
        if not mentioned(top, intro):
            problems.append(f"top-level key {top}: not documented")
        continue
    for k in sorted(inner):
        # Map keys (names of ClusterQueues, reasons, settings, flavors) are data, not schema.
        if top in ("input", "outcomes", "model") and k not in re.findall(r"`(\w+)`", sections[top]):
            if any(isinstance(r.get(top), dict) and k in r[top] for r in reports):
                problems.append(f"{top}.{k}: not documented")
            continue
        if top in ("input", "outcomes", "model"):
            continue
        if not mentioned(k, sections[top]) and not re.fullmatch(r"[\w.-]*[/.-][\w./-]*|[A-Z]\w*|\d+", k):
            problems.append(f"{top}: key {k}: not documented in its section")
for top, text in sections.items():
    for row in re.findall(r"^\| (`[^|]+`) \|", text, re.M):
        for name in re.findall(r"`([\w\[\].]+)`", row):
            leaf = name.split(".")[-1].replace("[]", "")
            if top in present and leaf not in present[top] and leaf != top:
                problems.append(f"{top}: documented key {name} is in no generated report")
for p in problems:
    print("  " + p)
sys.exit(1 if problems else 0)
PY

# The wait-time histogram bounds: 1, then 2.5 x 2^k seconds (Kueue's buckets), as metrics.prom.
bounds="$(grep -o 'kueue_admission_wait_time_seconds_bucket{[^}]*le="[0-9.e+]*"' \
  "${work}/gpu-day/metrics.prom" | sed 's/.*le="//; s/"$//' | sort -g -u | paste -sd' ')"
check "metrics.prom has the documented wait buckets" \
  test "${bounds}" = "1 2.5 5 10 20 40 80 160 320 640 1280 2560 5120 10240"
check "docs/report.md lists those bounds" grep -q '1 s, 2.5 s, 5 s' docs/report.md
exit "${fail}"
