# check_lib.sh: what the shell tests of test/replay share. Source it after `set -uo pipefail`;
# it makes a work directory removed at exit (${work}) and `check`, which records a failure and
# goes on, so that one run lists every broken expectation; end the test with `exit "${fail}"`.
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
fail=0
check() {  # check DESCRIPTION CONDITION...
  local what="$1"
  shift
  if ! "$@"; then
    echo "FAIL: ${what}" >&2
    fail=1
  fi
}
