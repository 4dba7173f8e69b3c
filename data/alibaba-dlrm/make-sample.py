#!/usr/bin/env python3
"""Writes the self-made sample of data/alibaba-dlrm/ (README.md): invented rows with the columns of
Alibaba's cluster-trace-gpu-v2025 disaggregated_DLRM_trace.csv: CPU-node (CN) and GPU-node (HN)
instances of eight apps over one day, some running before it began, some arriving, some leaving."""
import random

rng = random.Random(2025)
apps = ["sample_app_%d" % i for i in range(8)]
# Per role: (cpu vCPUs, gpu, rdma %, memory GiB, disk GiB, max_instance_per_node) choices.
profiles = {
    "HN": [(10, 1, 20, 96.0, 480.0, 4), (14, 1, 40, 112.5, 520.0, 2)],
    "CN": [(32, 0, 1, 160.0, 200.0, -1), (40, 0, 30, 220.5, 260.0, 2), (56, 0, 1, 300.0, 240.0, -1)],
}


def seconds(t):
    return "%.1f" % t


rows = []
for i in range(48):
    app = apps[rng.randrange(len(apps))]
    role = "HN" if rng.random() < 0.35 else "CN"
    cpu, gpu, rdma, mem, disk, per_node = rng.choice(profiles[role])
    kind = rng.random()
    if i == 17:  # never scheduled: gave up after half an hour
        created = rng.uniform(3600, 80000)
        times = (seconds(created), "", seconds(created + 1800))
    elif kind < 0.3:  # running before the trace began; some scaled down during the day
        end = rng.uniform(2000, 86000) if rng.random() < 0.5 else None
        times = ("", "", seconds(end) if end else "")
    else:  # arrives; scheduled at once or a little later; most leave before the end
        created = rng.uniform(300, 84000)
        sched = created + rng.choice([0, 0, 0, 1.5, 12])
        end = sched + rng.uniform(600, 40000) if rng.random() < 0.7 else None
        times = (seconds(created), seconds(sched), seconds(end) if end else "")
    rows.append(("sample_instance_%d" % i, role, app, cpu, cpu, gpu, gpu, rdma, rdma, mem, mem,
                 disk * 0.8, disk, per_node) + times)
with open("trace.csv", "w") as f:
    f.write("instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,rdma_request,"
            "rdma_limit,memory_request,memory_limit,disk_request,disk_limit,max_instance_per_node,"
            "creation_time,scheduled_time,deletion_time\n")
    for r in rows:
        f.write("%s,%s,%s,%d,%d,%d,%d,%d,%d,%.1f,%.1f,%.1f,%.1f,%d,%s,%s,%s\n" % r)
