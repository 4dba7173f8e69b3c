#!/usr/bin/env bash
# eta_hit_rate.sh TALLY
# Issue 24: the ETA of `tally explain --eta` against the replay it predicts. scripts/eta-hit-rate
# replays data/replay/gpu-day, rebuilds the state at every hour and compares each pending
# workload's ETA with its admission in the replay. The floors are below today's figures
# (docs/explain.md "How good is the ETA"): a change that makes the prediction worse fails here.
set -uo pipefail
tally="$1"
# shellcheck source=test/replay/check_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/check_lib.sh"

scripts/eta-hit-rate --tally "${tally}" --work "${work}/eta" --json "${work}/eta.json" \
  >"${work}/table" 2>&1
check "eta-hit-rate: exit 0" test $? -eq 0
cat "${work}/table"
check "figures as expected" python3 - "${work}/eta.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))["figures"]
exact, learned = f["exact"], f["learned"]
# Every pending workload the replay admitted later gets an ETA (none "not predicted").
assert exact["predicted"] >= 200 and learned["predicted"] == exact["predicted"], f
assert exact["notPredictedButAdmitted"] == 0 and learned["notPredictedButAdmitted"] == 0, f
# Learned hold times: the actual start falls in the predicted range at least 75% of the time.
assert learned["hitRate"] >= 0.75, learned
# Exact runtimes: at least 40% of the point predictions within 10 minutes.
assert exact["within10Minutes"] >= 0.40 * exact["predicted"], exact
PY
exit "${fail}"
