#!/usr/bin/env python3
"""Writes events.jsonl for the flavor-abc fallback scenario (deterministic: fixed seed).

One working day (2026-03-03 08:00 to 18:00 UTC) of research jobs for the ClusterQueue of
manifests.yaml: 1 to 4 pods of 8 cpu and 32Gi each, 20 to 120 minutes of runtime, arriving about
every 2.5 minutes. FlavorA fills up early; FlavorB has no capacity 09:30-11:30 and 15:00-16:30
(manifests.yaml, FlavorSupply). Usage: make-events.py > events.jsonl
"""
import json
import random
from datetime import datetime, timedelta, timezone

rng = random.Random(2)
START = datetime(2026, 3, 3, 8, 0, tzinfo=timezone.utc)
END = datetime(2026, 3, 3, 18, 0, tzinfo=timezone.utc)


def ts(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def workload(name, pods):
    container = {"name": "main", "image": "registry.example.com/ml/trainer:2.1",
                 "resources": {"requests": {"cpu": "8", "memory": "32Gi"}}}
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": name, "namespace": "team-research"},
            "spec": {"queueName": "research",
                     "podSets": [{"name": "main", "count": pods,
                                  "template": {"spec": {"containers": [container]}}}]}}


print(json.dumps({"format": "tally.events", "version": 1}))
t = START
n = 0
while True:
    t += timedelta(seconds=round(rng.expovariate(1 / 150)))
    if t >= END:
        break
    n += 1
    runtime = rng.randint(20, 120) * 60
    event = {"type": "ADDED", "time": ts(t), "runtime": "%ds" % runtime,
             "object": workload("job-%04d" % n, rng.randint(1, 4))}
    print(json.dumps(event, separators=(",", ":")))
