#!/usr/bin/env bash
# report_browser.sh TALLY
# Issue 24: report.html in a real browser (headless Chromium, JavaScript on). Replays two shipped
# scenarios, data/replay/gpu-day and data/fallback/spot-stockout (the one with a "Flavor
# fallbacks" section), and for each report.html asserts:
#   - no console message and no uncaught exception: Chromium's log (--enable-logging=stderr
#     prints every console message as a CONSOLE line; report.html logs nothing) and a hook put
#     first in <head> of a copy (window error / unhandledrejection events, console.error);
#   - every <svg> chart, in the DOM after the scripts ran (--dump-dom), has a data line: a
#     <path class="line"> with a non-empty d of finite numbers (html_chart.cc);
#   - the sort script sorts: the copy ends with a script that clicks, twice, the header of every
#     numeric column of every sortable table and writes the row orders to <pre id="test-result">;
#     they must be ascending then descending by data-sort, as numbers, and keep every row.
# Then the same checks on `tally diff -o html`'s "what changed" page (two replays of gpu-day).
# A negative control (a page with a deliberate console.error, throw and emptied chart) proves the
# checks catch what they are for. Needs Debian's chromium: scripts/setup installs it.
set -uo pipefail
tally="$1"
# shellcheck source=test/replay/check_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/check_lib.sh"

chromium="${CHROMIUM:-chromium}"
if ! command -v "${chromium}" >/dev/null 2>&1; then
  echo "FAIL: '${chromium}' is not installed; run scripts/setup (it installs Debian's chromium)" >&2
  exit 1
fi

# browse HTML DOM LOG: opens HTML, writes the DOM after its scripts ran to DOM and Chromium's log
# (console messages included) to LOG. --no-sandbox: root (and most containers) cannot run
# Chromium's sandbox; the pages are our own files.
browse() {
  local profile
  profile="$(mktemp -d "${work}/profile.XXXXXX")"
  timeout 60 "${chromium}" --headless=new --no-sandbox --disable-gpu --no-first-run \
    --no-default-browser-check --user-data-dir="${profile}" --enable-logging=stderr --v=0 \
    --dump-dom "file://$1" >"$2" 2>"$3"
}

cat >"${work}/check.py" <<'PY'
"""The checks of report_browser.sh.

check.py instrument SRC DST [bad]: DST is SRC with the error hook first in <head> and the sort
    test last in <body> ("bad": plus a deliberate console.error, emptied chart and throw).
check.py console LOG: no CONSOLE line (console message or uncaught exception) in Chromium's log.
check.py dom DOM SRC [instrumented [diff]]: the charts of DOM (as many <svg> as SRC has, each
    with a data line); "instrumented": no error caught by the hook, and the sort results ("diff":
    of `tally diff -o html`'s page, whose quota table is "Quota and utilisation").
Prints one line per problem and exits 1 when there is one.
"""
import html.parser
import json
import math
import re
import sys

HOOK = """<script>(function(){var e=window.__testErrors=[];
function note(s){e.push(String(s));}
window.addEventListener('error',function(ev){note('uncaught: '+(ev.message||
(ev.target&&ev.target.outerHTML)||ev));},true);
window.addEventListener('unhandledrejection',function(ev){note('unhandled rejection: '+ev.reason);});
['error','warn'].forEach(function(level){var f=console[level];console[level]=function(){
note('console.'+level+': '+Array.prototype.join.call(arguments,' '));return f.apply(console,arguments);};});
})();</script>"""

SORT_TEST = """<script>(function(){
function section(el){while(el){if(el.tagName==='H2')return el.textContent.trim();
el=el.previousElementSibling||el.parentElement;}return '';}
var out=[];
document.querySelectorAll('table.sortable').forEach(function(table,t){
var heads=table.tHead.rows[0].cells,body=table.tBodies[0];
function first(){return Array.prototype.map.call(body.rows,function(r){return r.cells[0].textContent.trim();});}
var before=first();
Array.prototype.forEach.call(heads,function(th,col){
if(!body.rows.length||!body.rows[0].cells[col]||body.rows[0].cells[col].getAttribute('data-sort')===null)return;
var clicks=[];for(var k=0;k<2;k++){th.click();clicks.push({aria:th.getAttribute('aria-sort'),
rows:Array.prototype.map.call(body.rows,function(r){return [r.cells[0].textContent.trim(),r.cells[col].getAttribute('data-sort')];})});}
out.push({table:t,section:section(table),column:th.textContent.trim(),before:before,asc:clicks[0],desc:clicks[1]});
});});
function pre(id,v){var p=document.createElement('pre');p.id=id;p.textContent=JSON.stringify(v);document.body.appendChild(p);}
pre('test-result',out);pre('test-errors',window.__testErrors||['error hook did not run']);
})();</script>"""

BAD = """<script>console.error('deliberate console error');</script>
<script>document.querySelectorAll('svg')[0].querySelectorAll('path.line').forEach(function(p){p.setAttribute('d','');});</script>
<script>throw new Error('deliberate throw');</script>"""

problems = []


def problem(msg):
    problems.append(msg)
    print(f"  {msg}", file=sys.stderr)


def instrument(src, dst, bad=False):
    page = open(src, encoding="utf-8").read()
    assert page.count("<head>") == 1 and page.count("</body>") == 1, src
    page = page.replace("<head>", "<head>\n" + HOOK, 1)
    page = page.replace("</body>", (BAD if bad else "") + SORT_TEST + "\n</body>", 1)
    open(dst, "w", encoding="utf-8").write(page)


def console(log):
    # "[pid:tid:time:INFO:CONSOLE:3] "message", source: file:///... (3)" (older: CONSOLE(3)).
    for line in open(log, encoding="utf-8", errors="replace"):
        if re.search(r":CONSOLE[:(]", line):
            problem("console: " + line.strip()[:300])


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.svgs = []  # per <svg>: [data lines, empty data lines]
        self.pre_id = None
        self.pres = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            self.svgs.append([0, 0])
        elif tag == "path" and self.svgs and "line" in (a.get("class") or "").split():
            self.svgs[-1][0 if (a.get("d") or "").strip() and PATH.fullmatch(a["d"]) else 1] += 1
        elif tag == "pre" and a.get("id", "").startswith("test-"):
            self.pre_id = a["id"]
            self.pres[self.pre_id] = ""

    def handle_endtag(self, tag):
        if tag == "pre":
            self.pre_id = None

    def handle_data(self, data):
        if self.pre_id:
            self.pres[self.pre_id] += data


NUM = r"-?\d+(?:\.\d+)?"
PATH = re.compile(rf"(?:[ML]{NUM} {NUM})+")


def key(v):
    return -math.inf if v == "" else float(v)


def sorting(results, page):
    if not results:
        problem("sort: no numeric column found in any sortable table")
        return
    numeric_differs_from_text = False
    for r in results:
        where = f"sort: table {r['table']} ({r['section']}) column '{r['column']}'"
        for name, aria, ok in (("asc", "ascending", lambda a, b: a <= b),
                               ("desc", "descending", lambda a, b: a >= b)):
            click = r[name]
            keys = [key(v) for _, v in click["rows"]]
            if click["aria"] != aria:
                problem(f"{where}: aria-sort {click['aria']!r} after a click, want {aria!r}")
            if not all(ok(a, b) for a, b in zip(keys, keys[1:])):
                problem(f"{where}: not {aria} by data-sort: {[v for _, v in click['rows']]}")
            if sorted(n for n, _ in click["rows"]) != sorted(r["before"]):
                problem(f"{where}: rows lost or changed by the sort")
        values = [v for _, v in r["asc"]["rows"] if v != ""]
        if sorted(values, key=float) != sorted(values):
            numeric_differs_from_text = True
    if not numeric_differs_from_text:
        problem("sort: no column where numeric and text order differ (the check proves nothing)")
    section, column = ("Quota and utilisation", "utilisation B") if page == "diff" else (
        "Usage", "mean usage")
    usage = [r for r in results if r["section"] == section and r["column"] == column]
    if not usage:
        problem(f"sort: the {section} table's '{column}' column was not clicked")
        return
    asc = usage[0]["asc"]["rows"]
    if len(set(v for _, v in asc)) < 2:
        problem(f"sort: the {section} table needs 2 distinct '{column}' values: {asc}")
    print(f"  {section} by {column}, ascending: "
          + ", ".join(f"{n} {v}" for n, v in asc[:6]) + (" ..." if len(asc) > 6 else ""))


def dom(dump, src, instrumented=False, page="report"):
    d = Dom()
    d.feed(open(dump, encoding="utf-8", errors="replace").read())
    want = open(src, encoding="utf-8").read().count("<svg")
    if want == 0 or len(d.svgs) != want:
        problem(f"charts: {len(d.svgs)} <svg> in the DOM, {want} in {src}")
    for i, (good, empty) in enumerate(d.svgs):
        if good == 0 or empty:
            problem(f"charts: <svg> {i + 1} has {good} data line(s) and {empty} empty one(s)")
    print(f"  {len(d.svgs)} charts, {sum(g for g, _ in d.svgs)} data lines")
    if not instrumented:
        return
    if "test-result" not in d.pres or "test-errors" not in d.pres:
        problem("the test scripts did not run (JavaScript off?)")
        return
    for e in json.loads(d.pres["test-errors"]):
        problem("page error: " + e[:300])
    sorting(json.loads(d.pres["test-result"]), page)


mode, args = sys.argv[1], sys.argv[2:]
if mode == "instrument":
    instrument(args[0], args[1], len(args) > 2)
elif mode == "console":
    console(args[0])
elif mode == "dom":
    dom(args[0], args[1], len(args) > 2, args[3] if len(args) > 3 else "report")
sys.exit(1 if problems else 0)
PY
checker() { python3 "${work}/check.py" "$@"; }

# Each scenario: name, manifests, events.
while read -r name manifests events; do
  out="${work}/${name}"
  "${tally}" replay --manifests "${manifests}" --events "${events}" --out "${out}" -q --no-progress \
    >"${work}/${name}.replay.log" 2>&1
  check "${name}: replay exit 0" test $? -eq 0
  if [[ ! -s "${out}/report.html" ]]; then
    check "${name}: report.html written" false
    continue
  fi
  echo "${name}: report.html as written"
  browse "${out}/report.html" "${out}/dom.html" "${out}/chromium.log"
  check "${name}: chromium exit 0 (log: ${out}/chromium.log)" test $? -eq 0
  check "${name}: no console message or uncaught exception" checker console "${out}/chromium.log"
  check "${name}: every chart has data" checker dom "${out}/dom.html" "${out}/report.html"

  echo "${name}: instrumented copy (error hook, sort clicks)"
  checker instrument "${out}/report.html" "${out}/test.html"
  browse "${out}/test.html" "${out}/test-dom.html" "${out}/test-chromium.log"
  check "${name}: chromium exit 0 on the copy" test $? -eq 0
  check "${name}: copy: no console message or uncaught exception" \
    checker console "${out}/test-chromium.log"
  check "${name}: copy: no page error, charts have data, sorting sorts" \
    checker dom "${out}/test-dom.html" "${out}/report.html" instrumented
done <<'SCENARIOS'
gpu-day data/replay/gpu-day/manifests.yaml data/replay/gpu-day/events.jsonl.gz
spot-stockout data/fallback/spot-stockout/manifests.yaml data/fallback/spot-stockout/events.jsonl
SCENARIOS
# The "what changed" page of `tally diff -o html`: gpu-day as shipped against the same trace with
# research-llm's noon raise going to 16 GPUs instead of 12 (docs/diff-and-gate.md's example).
if [[ -s "${work}/gpu-day/report.html" ]]; then
  echo "what changed: tally diff gpu-day llm16 -o html"
  zcat data/replay/gpu-day/events.jsonl.gz | sed -e '/"kind":"ClusterQueue"/{
    s/"cpu","nominalQuota":96}/"cpu","nominalQuota":128}/; s/"768Gi"/"1Ti"/
    s/"nvidia.com\/gpu","nominalQuota":12}/"nvidia.com\/gpu","nominalQuota":16}/ }' \
    >"${work}/events-llm16.jsonl"
  "${tally}" replay --manifests data/replay/gpu-day/manifests.yaml \
    --events "${work}/events-llm16.jsonl" --out "${work}/llm16" -q --no-progress \
    >"${work}/llm16.replay.log" 2>&1
  check "llm16: replay exit 0" test $? -eq 0
  "${tally}" diff "${work}/gpu-day" "${work}/llm16" -o html >"${work}/changed.html" \
    2>"${work}/diff.log"
  check "diff -o html: exit 0" test $? -eq 0
  check "diff -o html: the page has its change distribution" \
    grep -q 'admitted later in B' "${work}/changed.html"
  browse "${work}/changed.html" "${work}/changed-dom.html" "${work}/changed-chromium.log"
  check "diff -o html: chromium exit 0" test $? -eq 0
  check "diff -o html: no console message or uncaught exception" \
    checker console "${work}/changed-chromium.log"
  checker instrument "${work}/changed.html" "${work}/changed-test.html"
  browse "${work}/changed-test.html" "${work}/changed-test-dom.html" \
    "${work}/changed-test-chromium.log"
  check "diff -o html: copy: no console message or uncaught exception" \
    checker console "${work}/changed-test-chromium.log"
  check "diff -o html: copy: no page error, charts have data, sorting sorts" \
    checker dom "${work}/changed-test-dom.html" "${work}/changed.html" instrumented diff
fi

check "spot-stockout: the report has its Flavor fallbacks section" \
  grep -q '<h2>Flavor fallbacks</h2>' "${work}/spot-stockout/report.html"

# Negative control: the checks must catch a console.error, an uncaught throw and an empty chart.
if [[ -s "${work}/gpu-day/report.html" ]]; then
  echo "negative control: a copy with a deliberate console.error, uncaught throw and empty chart"
  bad="${work}/bad"
  mkdir -p "${bad}"
  checker instrument "${work}/gpu-day/report.html" "${bad}/test.html" bad
  browse "${bad}/test.html" "${bad}/dom.html" "${bad}/chromium.log"
  check "negative control: the log shows the console.error" \
    grep -q 'CONSOLE.*deliberate console error' "${bad}/chromium.log"
  check "negative control: the log shows the uncaught throw" \
    grep -q 'CONSOLE.*Uncaught Error: deliberate throw' "${bad}/chromium.log"
  check "negative control: the console check fails" bash -c "! python3 '${work}/check.py' \
    console '${bad}/chromium.log' 2>/dev/null"
  check "negative control: the DOM check fails" bash -c "! python3 '${work}/check.py' \
    dom '${bad}/dom.html' '${work}/gpu-day/report.html' instrumented 2>'${bad}/dom.problems'"
  check "negative control: the hook caught the console.error" \
    grep -q 'page error: console.error: deliberate console error' "${bad}/dom.problems"
  check "negative control: the hook caught the throw" \
    grep -q 'page error: uncaught: .*deliberate throw' "${bad}/dom.problems"
  check "negative control: the empty chart is seen" \
    grep -q 'charts: <svg> 1 has 0 data line' "${bad}/dom.problems"
fi
exit "${fail}"
