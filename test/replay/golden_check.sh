#!/usr/bin/env bash
# golden_check.sh EXPECTED_FILE EXPECTED_EXIT COMMAND...
# Runs COMMAND, requires its exit status to be EXPECTED_EXIT and its stdout to equal EXPECTED_FILE
# byte for byte. With TALLY_UPDATE_GOLDEN=1 it rewrites EXPECTED_FILE instead.
set -uo pipefail
expected_file="$1"
expected_exit="$2"
shift 2
actual="$(mktemp)"
trap 'rm -f "${actual}"' EXIT
"$@" >"${actual}"
status=$?
if [[ "${status}" != "${expected_exit}" ]]; then
  echo "exit status ${status}, want ${expected_exit}: $*" >&2
  exit 1
fi
if [[ "${TALLY_UPDATE_GOLDEN:-0}" == 1 ]]; then
  cp "${actual}" "${expected_file}"
  exit 0
fi
if ! diff -u "${expected_file}" "${actual}"; then
  echo "output differs from ${expected_file} (TALLY_UPDATE_GOLDEN=1 rewrites it)" >&2
  exit 1
fi
