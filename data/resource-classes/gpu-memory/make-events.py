#!/usr/bin/env python3
"""Writes events.jsonl for the gpu-memory resource-class scenario (deterministic: fixed seed).

One working day (2026-04-06 07:00 to 19:00 UTC) of ML jobs for the ClusterQueue of manifests.yaml:
a third ask for large-memory GPUs (class gpu.high.mem, 1-2 pods of 4 or 8 devices), the rest for
any GPU (class gpu.any, 1-4 pods of 1, 2 or 4 devices); 8 cpu per GPU; 10 to 60 minutes of
runtime; arrivals about every 4 minutes. At 13:00 node a100-80g-2 fails (DELETED: the workloads on
it are evicted and requeue) and at 15:00 it is back (ADDED, the same Node as in nodes.yaml).
Usage: make-events.py > events.jsonl
"""
import json
import random
from datetime import datetime, timedelta, timezone

rng = random.Random(1)
START = datetime(2026, 4, 6, 7, 0, tzinfo=timezone.utc)
END = datetime(2026, 4, 6, 19, 0, tzinfo=timezone.utc)
FAIL = datetime(2026, 4, 6, 13, 0, tzinfo=timezone.utc)
BACK = datetime(2026, 4, 6, 15, 0, tzinfo=timezone.utc)
NODE = {"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "a100-80g-2",
                     "labels": {"cloud.example.com/pool": "a100",
                                "kubernetes.io/hostname": "a100-80g-2"}},
        "status": {"devices": [{"name": "nvidia-a100-80gb", "kind": "nvidia-gpu", "count": 8,
                                "properties": {"memory": "80Gi", "version": "8.0"}}]}}


def ts(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def workload(name, pods, resource_class, per_pod):
    requests = {"cpu": str(8 * per_pod), resource_class: str(per_pod)}
    container = {"name": "main", "image": "registry.example.com/ml/trainer:3.0",
                 "resources": {"requests": requests, "limits": {resource_class: str(per_pod)}}}
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": name, "namespace": "team-ml"},
            "spec": {"queueName": "ml",
                     "podSets": [{"name": "main", "count": pods,
                                  "template": {"spec": {"containers": [container]}}}]}}


def emit(event):
    print(json.dumps(event, separators=(",", ":")))


print(json.dumps({"format": "tally.events", "version": 1}))
t = START
n = 0
node_events = [(FAIL, "DELETED"), (BACK, "ADDED")]
while True:
    t += timedelta(seconds=round(rng.expovariate(1 / 240)))
    while node_events and node_events[0][0] <= t:
        when, kind = node_events.pop(0)
        emit({"type": kind, "time": ts(when), "object": NODE})
    if t >= END:
        break
    n += 1
    runtime = rng.randint(10, 60) * 60
    if rng.random() < 1 / 3:
        wl = workload("large-%04d" % n, rng.randint(1, 2), "gpu.high.mem", rng.choice([4, 8]))
    else:
        wl = workload("small-%04d" % n, rng.randint(1, 4), "gpu.any", rng.choice([1, 2, 4]))
    emit({"type": "ADDED", "time": ts(t), "runtime": "%ds" % runtime, "object": wl})
