"""Replay figures: simulated days per wall-clock second, and the public openb trace.

    python benchmarks/replay.py synthetic [NODES ...]       # default 100 1000: a week of random jobs
    python benchmarks/replay.py openb NODES.csv PODS.csv    # alibaba/clusterdata cluster-trace-gpu-v2023

Not a timed test: it prints figures (wall seconds, simulated days per wall second, GPU allocation
ratio over time, pods never scheduled). The openb CSVs are not shipped: download them from
alibaba/clusterdata (cluster-trace-gpu-v2023/csv).
"""
from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

import yaml

from drasim.api.loader import load_paths
from drasim.hardware import generate
from drasim.api import kinds
from drasim.api.loader import Document
from drasim.plan.timeline import Job, Trace, replay, summary

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "job"},
       "spec": {"restartPolicy": "Never", "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpus"}],
                "containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "gpu"}]}}]}}


def synthetic(nodes: int, days: float = 7.0, seed: int = 0) -> None:
    objs = generate({"pools": [{"name": "gpu", "count": nodes, "drivers": [{"example-gpu": {"gpus": 8}}]}]})
    objs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                 "metadata": {"name": "gpus", "namespace": "default"},
                 "spec": {"spec": {"devices": {"requests": [{"name": "g", "exactly": {
                     "deviceClassName": "gpu.example.com", "count": 2}}]}}}})
    docs = [Document(f"synthetic#{i}", kinds.BY_KIND[o["kind"]], o) for i, o in enumerate(objs)]
    rng = random.Random(seed)
    # Enough work to keep the fleet about 70 % busy: each job 2 GPUs for 1-8 h.
    jobs_per_day = int(nodes * 8 * 0.7 * 24 / (2 * 4.5))
    trace = Trace([Job(f"j{i}", rng.uniform(0, days * 86400), "default", POD, 1, f"{rng.randint(1, 8)}h", None)
                   for i in range(int(jobs_per_day * days))])
    t = time.perf_counter()
    timeline = replay([docs], trace, until=days * 86400)
    wall = time.perf_counter() - t
    s = summary(timeline)
    print(f"{nodes:>6} nodes, {len(trace.jobs)} jobs over {days:g} days: {wall:.1f} s wall, "
          f"{days / wall:.3f} simulated days/s, utilisation {s['utilisation']:.1%}")


def openb(nodes_csv: str, pods_csv: str) -> None:
    from drasim.plan.openb import convert
    from drasim.plan.timeline import load_trace

    out = Path(tempfile.mkdtemp(prefix="openb-"))
    t = time.perf_counter()
    counts = convert(nodes_csv, pods_csv, str(out))
    trace = load_trace(str(out / "trace.yaml"))
    docs = load_paths([out / "cluster.yaml"])
    load = time.perf_counter() - t
    t = time.perf_counter()
    timeline = replay([docs], trace)
    wall = time.perf_counter() - t
    s = summary(timeline)
    never = sum(ns["neverScheduled"] for ns in s["namespaces"].values())
    print(f"openb: {counts['nodes']} nodes, {counts['jobs']} jobs; import+load {load:.1f} s, replay {wall:.1f} s "
          f"for {s['duration'] / 86400:.1f} simulated days; GPU allocation {s['utilisation']:.1%} "
          f"(time-weighted); {never} pods never scheduled")
    samples = timeline.samples
    step = max(1, len(samples) // 10)
    for t_, pending, running, devices in samples[::step]:
        print(f"  t={t_ / 86400:6.2f} d  pending {pending:5}  running {running:5}  "
              f"GPUs allocated {devices / max(timeline.total_devices, 1):6.1%}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "openb":
        openb(sys.argv[2], sys.argv[3])
    else:
        for n in [int(a) for a in sys.argv[2:]] or [100, 1000]:
            synthetic(n)
