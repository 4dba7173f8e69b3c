#!/usr/bin/env bash
# explain_causes.sh TALLY
# Issue 24: `tally explain` names why a workload waits (a reason code and a sentence) and gives
# only advice that can help: no quota advice for a stopped queue, a namespace the ClusterQueue
# does not select, a missing LocalQueue or ClusterQueue (explained, exit 0, not an error), a
# misconfigured ClusterQueue, a deactivated or an admitted workload. Manifests:
# test/scenarios/explain/causes.yaml, one workload per cause.
set -uo pipefail
tally="$1"
# shellcheck source=test/replay/check_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/check_lib.sh"
manifests=test/scenarios/explain/causes.yaml

# workload, reason code, a piece of the advice line, whether quota advice may appear
while read -r workload code advice quota; do
  "${tally}" explain "${manifests}" "team/${workload}" --now 2026-01-01T01:00:00Z \
    >"${work}/out" 2>&1
  check "${workload}: exit 0" test $? -eq 0
  check "${workload}: reason ${code}" grep -q "^Why: ${code}: " "${work}/out"
  check "${workload}: advice mentions ${advice}" grep -q "^What would admit it: .*${advice}" \
    "${work}/out"
  if [[ "${quota}" == no ]]; then
    check "${workload}: no quota advice" bash -c "! grep -q 'nominalQuota' '${work}/out'"
  fi
  "${tally}" explain -o json "${manifests}" "team/${workload}" --now 2026-01-01T01:00:00Z \
    >"${work}/json" 2>"${work}/err"
  check "${workload}: -o json has reason.code ${code}" \
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d['reason']['code'] != sys.argv[2])" \
    "${work}/json" "${code}"
done <<'CASES'
fits Fits nothing no
too-big ExceedsMaxQuota raise yes
held-by-cq OnHold stopPolicy no
held-by-lq OnHold stopPolicy no
wrong-namespace NamespaceMismatch label no
no-local-queue LocalQueueNotFound create no
no-cluster-queue ClusterQueueNotFound create no
misconfigured-cq Misconfigured ResourceFlavor no
deactivated Deactivated spec.active no
running QuotaReserved nothing no
waits-for-quota WaitingForQuota raise yes
same-priority WaitingForQuota raise yes
CASES

# Why preemption cannot help, in the sentence.
"${tally}" explain "${manifests}" team/waits-for-quota --now 2026-01-01T01:00:00Z >"${work}/out" 2>&1
check "waits-for-quota: the policy is Never" \
  grep -q "preemption cannot help: its ClusterQueue's withinClusterQueue policy is Never" "${work}/out"
"${tally}" explain "${manifests}" team/same-priority --now 2026-01-01T01:00:00Z >"${work}/out" 2>&1
check "same-priority: nobody of lower priority" grep -q \
  "preemption cannot help: no admitted workload of ClusterQueue lower has a priority below 0" \
  "${work}/out"

# Where it waits and who holds the quota (a quota cause): team/too-big is second in open's heap,
# behind team/fits (same priority and time: uid order; team/waits-for-quota is third), and
# team/running holds 2 of open's cpu.
"${tally}" explain "${manifests}" team/too-big --now 2026-01-01T01:00:00Z >"${work}/out" 2>&1
check "queue position 2 of 3" grep -q '^Queue: Active in ClusterQueue open, position 2 of 3' \
  "${work}/out"
check "who is ahead and by which rule" \
  grep -q '^  ahead: team/fits (priority 0): same priority and time, smaller uid' "${work}/out"
check "who holds the quota" grep -q '^  team/running in open (priority 0): f/cpu=2$' "${work}/out"
"${tally}" explain -o json "${manifests}" team/too-big --now 2026-01-01T01:00:00Z \
  >"${work}/json" 2>"${work}/err"
check "-o json: queue and quotaHolders" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['queue']['position'] == 2 and d['queue']['ahead'][0]['workload'] == 'team/fits', d['queue']
assert d['quotaHolders']['largest'][0] == {'clusterQueue': 'open', 'clusterQueueBorrows': False,
    'priority': 0, 'usage': {'f/cpu': 2000}, 'workload': 'team/running'}, d['quotaHolders']
" "${work}/json"
# No quota holders for a cause quota cannot fix.
"${tally}" explain "${manifests}" team/held-by-cq --now 2026-01-01T01:00:00Z >"${work}/out" 2>&1
check "held-by-cq: no quota holders listed" bash -c "! grep -q 'Who holds' '${work}/out'"

exit "${fail}"
