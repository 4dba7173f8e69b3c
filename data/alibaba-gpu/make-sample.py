#!/usr/bin/env python3
"""Writes the self-made sample of data/alibaba-gpu/ (README.md): invented rows with the columns of
Alibaba's cluster-trace-gpu-v2023 openb files, small enough to read, busy enough to queue."""
import random

rng = random.Random(2023)
nodes = [("sample-node-0", 32000, 131072, 2, "T4"), ("sample-node-1", 32000, 131072, 2, "T4"),
         ("sample-node-2", 64000, 262144, 8, "V100M16"), ("sample-node-3", 96000, 393216, 8, "G2"),
         ("sample-node-4", 96000, 393216, 8, "G2"), ("sample-node-5", 64000, 262144, 0, "")]
with open("nodes.csv", "w") as f:
    f.write("sn,cpu_milli,memory_mib,gpu,model\n")
    for n in nodes:
        f.write("%s,%d,%d,%d,%s\n" % n)

rows = []
t = 0
for i in range(48):
    t += rng.choice([20, 45, 90, 180, 300])
    kind = rng.random()
    if kind < 0.15:
        gpus, milli, cpu = 0, 0, rng.choice([4000, 8000, 16000])
    elif kind < 0.45:
        gpus, milli, cpu = 1, rng.choice([250, 460, 500]), rng.choice([4000, 6000])
    elif kind < 0.85:
        gpus, milli, cpu = 1, 1000, rng.choice([8000, 12000])
    else:
        gpus, milli, cpu = rng.choice([4, 8]), 1000, 32000
    spec = rng.choice(["", "", "", "V100M16", "G2|V100M16", "T4"]) if gpus else ""
    if spec == "T4" and gpus > 2:
        spec = ""
    qos = rng.choice(["LS", "LS", "BE", "BE", "Burstable", "Guaranteed"])
    memory = cpu // 1000 * 4096
    run = rng.choice([300, 900, 1800, 3600, 7200])
    if i % 11 == 5:  # never scheduled: gave up after a while
        rows.append((i, cpu, memory, gpus, milli, spec, qos, "Pending", t, t + 1200, ""))
    else:
        sched = t + rng.choice([0, 0, 2, 30])
        rows.append((i, cpu, memory, gpus, milli, spec, qos, "Succeeded", t, sched + run, sched))
with open("pods.csv", "w") as f:
    f.write("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
            "deletion_time,scheduled_time\n")
    for r in rows:
        f.write("sample-pod-%04d,%d,%d,%d,%d,%s,%s,%s,%d,%d,%s\n" % r)
