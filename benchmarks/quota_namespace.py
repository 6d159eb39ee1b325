"""Pods created in one namespace with a ResourceQuota, and without (docs/PERFORMANCE.md
"ResourceQuota accounting").

    python benchmarks/quota_namespace.py [N] [--mode create|phase] [--repeat R]

Builds a control plane without kubelets (pods are bound, never run, as scheduler_perf does)
with N/100 nodes of 110 pods, then creates N pods (100m CPU, 128Mi each) in namespace
`team`, each a create request through the API server's write path (`--mode create`, as a
ReplicaSet or `kubectl create` sends them; the default) or all in one phase (`--mode
phase`, as `drasim simulate` applies a file), and runs the control plane until every pod is
bound. Prints the seconds taken with a quota on the namespace (pods, count/pods, requests
and limits of CPU and memory) and without one, and their ratio; with --repeat, the runs
alternate (quota, none, quota, ...) and the best of each is printed.
"""
from __future__ import annotations

import argparse
import sys
import time

from drasim.api.loader import Document
from drasim.api import kinds
from drasim.api.quantity import parse_quantity
from drasim.controlplane import ControlPlane, options_for

NAMESPACE = "team"


def _doc(obj: dict) -> Document:
    return Document(f"bench/{obj['metadata']['name']}", kinds.lookup(obj["apiVersion"], obj["kind"]), obj)


def cluster(n: int, with_quota: bool) -> list[dict]:
    objs: list[dict] = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}]
    for i in range(max(1, -(-n // 100))):
        objs.append({"apiVersion": "v1", "kind": "Node",
                     "metadata": {"name": f"node-{i}", "labels": {"kubernetes.io/hostname": f"node-{i}"}},
                     "status": {"capacity": {"cpu": "64", "memory": "256Gi", "pods": "110"},
                                "allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"},
                                "conditions": [{"type": "Ready", "status": "True"}]}})
    if with_quota:
        objs.append({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "team", "namespace": NAMESPACE},
                     "spec": {"hard": {"pods": str(n + 10), "count/pods": str(n + 10),
                                       "requests.cpu": "10k", "requests.memory": "100Ti",
                                       "limits.cpu": "10k", "limits.memory": "100Ti"}}})
    return objs


def pod(i: int) -> dict:
    resources = {"cpu": "100m", "memory": "128Mi"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"pod-{i}", "namespace": NAMESPACE},
            "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10",
                                     "resources": {"requests": dict(resources), "limits": dict(resources)}}]}}


def run(n: int, with_quota: bool, mode: str) -> float:
    cp = ControlPlane(options_for(None, kubelets=False))
    cp.run_phase([_doc(o) for o in cluster(n, with_quota)])
    start = time.perf_counter()
    if mode == "phase":
        cp.apply([_doc(pod(i)) for i in range(n)])
    else:
        for i in range(n):
            cp.create(pod(i))
    cp.settle()
    seconds = time.perf_counter() - start
    bound = sum(1 for p in cp.store.list("Pod", NAMESPACE) if (p.get("spec") or {}).get("nodeName"))
    if bound != n:
        sys.exit(f"error: {bound} of {n} pods bound")
    if with_quota:
        used = cp.store.get("ResourceQuota", NAMESPACE, "team")["status"]["used"]
        if parse_quantity(used.get("pods", "0")) != parse_quantity(str(n)):
            sys.exit(f"error: quota used {used}, want pods={n}")
    return seconds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pods", nargs="?", type=int, default=2000)
    parser.add_argument("--mode", choices=("create", "phase"), default="create")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    best = {True: float("inf"), False: float("inf")}
    for _ in range(args.repeat):
        for with_quota in (True, False):
            best[with_quota] = min(best[with_quota], run(args.pods, with_quota, args.mode))
    print(f"{args.pods} pods, mode {args.mode}: with quota {best[True]:.2f} s, without {best[False]:.2f} s, "
          f"ratio {best[True] / best[False]:.2f}")


if __name__ == "__main__":
    main()
