#!/usr/bin/env bash
# fuzz_jobs.sh REPO: scripts/fuzz runs its campaigns several at a time (--jobs) and must still
# report every target, in target order, and fail when any campaign fails. Fake targets (shell
# scripts in a fake build directory) stand in for the libFuzzer binaries, so this runs in any
# build in about a second.
set -euo pipefail
repo="$(realpath "$1")"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

mkdir -p "${work}/build/test/fuzz"
fake() {  # fake NAME EXIT_CODE SECONDS
  printf '#!/bin/sh\nsleep %s\necho "stat::number_of_executed_units: 7"\nexit %s\n' "$3" "$2" \
    >"${work}/build/test/fuzz/$1"
  chmod +x "${work}/build/test/fuzz/$1"
}
fake quantity_fuzz 0 1
fake json_writer_fuzz 1 0
fake event_line_fuzz 0 0

# One failing campaign among three, two at a time: exit 1, every target in the summary, in the
# order given (the slow first one finishes last).
rc=0
"${repo}/scripts/fuzz" --build "${work}/build" --time 1 --jobs 2 \
  quantity_fuzz json_writer_fuzz event_line_fuzz >"${work}/out.txt" 2>&1 || rc=$?
[[ ${rc} -eq 1 ]] || fail "a failed campaign must fail the run (exit ${rc}): $(cat "${work}/out.txt")"
summary="$(sed -n '/== fuzz: summary/,$p' "${work}/out.txt" | tail -n +2 | awk '{print $1, $NF}')"
expected="quantity_fuzz ok
json_writer_fuzz ${work}/build/fuzz/json_writer_fuzz.log)
event_line_fuzz ok"
[[ "${summary}" == "${expected}" ]] || fail "summary: got
${summary}
want
${expected}"
grep -q 'json_writer_fuzz .*FAILED (exit 1' "${work}/out.txt" || fail "no FAILED line"

# All passing, one at a time: exit 0.
fake json_writer_fuzz 0 0
"${repo}/scripts/fuzz" --build "${work}/build" --time 1 --jobs 1 \
  quantity_fuzz json_writer_fuzz event_line_fuzz >"${work}/out2.txt" 2>&1 ||
  fail "passing campaigns failed the run: $(cat "${work}/out2.txt")"
[[ "$(grep -c ' ok$' "${work}/out2.txt")" -eq 3 ]] || fail "expected 3 ok lines"

# A bad --jobs is refused.
if "${repo}/scripts/fuzz" --build "${work}/build" --jobs 0 quantity_fuzz >/dev/null 2>&1; then
  fail "--jobs 0 accepted"
fi
echo "fuzz_jobs: ok"
