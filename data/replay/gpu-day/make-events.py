#!/usr/bin/env python3
"""Writes events.jsonl for the gpu-day replay scenario (deterministic: fixed seed).

One virtual working day (2025-06-02 06:00 to 22:00 UTC) on the cluster of manifests.yaml:
serving, training, LLM research and vision research teams submit GPU workloads with realistic
sizes, priorities and runtimes; spot-tolerant sweeps use the shared spot pool. Mid-day the
platform team raises research-llm's on-demand quota (a MODIFIED ClusterQueue), one pending job is
deleted, one is deactivated, and a long-running notebook without a runtime is finished by a
MODIFIED event. Usage: make-events.py > events.jsonl && gzip -n -9 events.jsonl
"""
import json
import random
import sys
from datetime import datetime, timedelta, timezone

import yaml

rng = random.Random(20250602)
START = datetime(2025, 6, 2, 6, 0, tzinfo=timezone.utc)
END = datetime(2025, 6, 2, 22, 0, tzinfo=timezone.utc)


def ts(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S") + (".%03dZ" % (t.microsecond // 1000))


SPOT = [{"key": "cloud.example.com/spot", "operator": "Equal", "value": "true",
         "effect": "NoSchedule"}]

# team: (namespace, queue, [(class, weight, priorityClass, pods range, gpus/pod, cpu/pod,
#        mem/pod Gi, runtime minutes range, tolerates spot)], mean minutes between arrivals)
TEAMS = [
    ("team-serving", "serving", [
        ("inference", 1.0, "critical", (1, 4), 1, 8, 64, (30, 180), False)], 25),
    ("team-training", "training", [
        ("finetune", 0.7, "high", (2, 8), 1, 8, 64, (60, 240), False),
        ("pretrain", 0.3, "high", (8, 16), 1, 8, 64, (180, 480), True)], 40),
    ("team-llm", "llm", [
        ("experiment", 0.6, "standard", (1, 4), 1, 8, 64, (30, 150), False),
        ("sweep", 0.4, "preemptible", (1, 2), 1, 4, 32, (15, 60), True)], 8),
    ("team-vision", "vision", [
        ("vision-train", 1.0, "standard", (1, 2), 1, 8, 64, (20, 90), False)], 15),
]

PRIORITY = {"critical": 10000, "high": 1000, "standard": 100, "preemptible": 10}


def workload(ns, queue, name, cls, prio_class, pods, gpus, cpu, mem, spot):
    container = {"name": "main", "image": "registry.example.com/ml/trainer:1.4",
                 "resources": {"requests": {"cpu": str(cpu), "memory": "%dGi" % mem,
                                            "nvidia.com/gpu": str(gpus)},
                               "limits": {"nvidia.com/gpu": str(gpus)}}}
    pod_spec = {"containers": [container]}
    if spot:
        pod_spec["tolerations"] = SPOT
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": name, "namespace": ns, "labels": {"tally.dev/class": cls}},
            "spec": {"queueName": queue,
                     "priorityClassRef": {"group": "kueue.x-k8s.io",
                                          "kind": "WorkloadPriorityClass", "name": prio_class},
                     "priority": PRIORITY[prio_class],
                     "podSets": [{"name": "main", "count": pods,
                                  "template": {"spec": pod_spec}}]}}


events = []
seq = 0
for ns, queue, classes, mean_gap in TEAMS:
    t = START
    n = 0
    while True:
        t += timedelta(minutes=rng.expovariate(1.0 / mean_gap))
        if t >= END:
            break
        r = rng.random()
        for cls, weight, prio, pods, gpus, cpu, mem, runtime, spot in classes:
            if r < weight:
                break
            r -= weight
        n += 1
        name = "%s-%04d" % (cls, n)
        count = rng.randint(*pods)
        minutes = rng.uniform(*runtime)
        obj = workload(ns, queue, name, cls, prio, count, gpus, cpu, mem, spot)
        events.append((t, seq, {"type": "ADDED", "time": ts(t), "runtime": "%ds" % int(minutes * 60),
                                "object": obj}))
        seq += 1

# A notebook without a runtime, finished by a MODIFIED event in the afternoon.
nb = workload("team-llm", "llm", "notebook-alice", "notebook", "standard", 1, 1, 4, 32, False)
t_nb = START + timedelta(hours=2, minutes=5)
events.append((t_nb, seq, {"type": "ADDED", "time": ts(t_nb), "object": nb}))
seq += 1
done = json.loads(json.dumps(nb))
done["status"] = {"conditions": [{"type": "Finished", "status": "True", "reason": "Succeeded",
                                  "message": "notebook closed",
                                  "lastTransitionTime": ts(START + timedelta(hours=9))}]}
events.append((START + timedelta(hours=9), seq, {"type": "MODIFIED",
                                                 "time": ts(START + timedelta(hours=9)),
                                                 "object": done}))
seq += 1

# 12:00: research-llm gets 4 more on-demand A100 (a quota edit from the platform team).
manifests = list(yaml.safe_load_all(open(sys.argv[1] if len(sys.argv) > 1 else
                                         "data/replay/gpu-day/manifests.yaml")))
cq = next(d for d in manifests if d and d.get("kind") == "ClusterQueue"
          and d["metadata"]["name"] == "research-llm")
for fl in cq["spec"]["resourceGroups"][0]["flavors"]:
    if fl["name"] == "a100-on-demand":
        for res in fl["resources"]:
            if res["name"] == "nvidia.com/gpu":
                res["nominalQuota"] = 12
            elif res["name"] == "cpu":
                res["nominalQuota"] = 96
            elif res["name"] == "memory":
                res["nominalQuota"] = "768Gi"
noon = START + timedelta(hours=6)
events.append((noon, seq, {"type": "MODIFIED", "time": ts(noon), "object": cq}))
seq += 1

# 15:30: a queued sweep is deleted by its owner; 16:00 an experiment is deactivated.
events.sort(key=lambda e: (e[0], e[1]))
later = [e for e in events if e[0] > START + timedelta(hours=9, minutes=20)
         and e[2]["type"] == "ADDED" and e[2]["object"]["metadata"]["namespace"] == "team-llm"]
victim = later[0][2]["object"]
t_del = START + timedelta(hours=9, minutes=30)
events.append((t_del, seq, {"type": "DELETED", "time": ts(t_del),
                            "object": {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                                       "metadata": dict((k, victim["metadata"][k])
                                                        for k in ("name", "namespace"))}}))
seq += 1
deact = json.loads(json.dumps(later[1][2]["object"]))
deact["spec"]["active"] = False
t_deact = START + timedelta(hours=10)
events.append((t_deact, seq, {"type": "MODIFIED", "time": ts(t_deact), "object": deact}))
seq += 1

events.sort(key=lambda e: (e[0], e[1]))
out = sys.stdout
out.write(json.dumps({"format": "tally.events", "version": 1}) + "\n")
for _, _, e in events:
    out.write(json.dumps(e, separators=(",", ":"), sort_keys=False) + "\n")
