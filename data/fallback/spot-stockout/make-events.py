#!/usr/bin/env python3
"""Writes events.jsonl for the spot-stockout fallback scenario (deterministic: fixed seed).

One working day (2026-03-02 07:00 to 19:00 UTC) of GPU jobs for the ClusterQueue of
manifests.yaml: 1 to 4 pods of 8 cpu and 1 GPU each, 20 to 120 minutes of runtime, arriving about
every 3.5 minutes. The reservation saturates early; spot takes the rest until it stocks out at
10:00 (manifests.yaml, FlavorSupply). Usage: make-events.py > events.jsonl
"""
import json
import random
from datetime import datetime, timedelta, timezone

rng = random.Random(2560)
START = datetime(2026, 3, 2, 7, 0, tzinfo=timezone.utc)
END = datetime(2026, 3, 2, 19, 0, tzinfo=timezone.utc)


def ts(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def workload(name, pods):
    container = {"name": "main", "image": "registry.example.com/ml/trainer:2.1",
                 "resources": {"requests": {"cpu": "8", "nvidia.com/gpu": "1"}}}
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": name, "namespace": "team-ml"},
            "spec": {"queueName": "batch",
                     "podSets": [{"name": "main", "count": pods,
                                  "template": {"spec": {"containers": [container]}}}]}}


print(json.dumps({"format": "tally.events", "version": 1}))
t = START
n = 0
while True:
    t += timedelta(seconds=round(rng.expovariate(1 / 210)))
    if t >= END:
        break
    n += 1
    runtime = rng.randint(20, 120) * 60
    event = {"type": "ADDED", "time": ts(t), "runtime": "%ds" % runtime,
             "object": workload("job-%04d" % n, rng.randint(1, 4))}
    print(json.dumps(event, separators=(",", ":")))
