"""Indexed requeue: claim events wake only the pods that name the claim.

    python benchmarks/requeue.py [pending ...]

For each size N: N pods are pending (each names its own ResourceClaim; no devices exist, so
DynamicResources rejects them all), then N claim events arrive (a label change on each claim),
each of which lets exactly one pod be tried again. kube-scheduler's PreQueueingHint idea keeps
the work per event independent of how many pods are pending; with a scan of the unschedulable
pool it would grow linearly and the total quadratically. Prints wall seconds and µs per event.
"""
from __future__ import annotations

import sys
import time

from drasim.controlplane import ControlPlane, Options


def run(n: int) -> tuple[float, float, int]:
    cp = ControlPlane(Options(kubelets=False))
    cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"},
               "status": {"allocatable": {"cpu": "1000", "memory": "1000Gi", "pods": str(n + 10)}}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
               "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}})
    for i in range(n):
        cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                   "metadata": {"name": f"claim-{i}", "namespace": "default"},
                   "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}})
        cp.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"pod-{i}", "namespace": "default"},
                   "spec": {"containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "gpu"}]}}],
                            "resourceClaims": [{"name": "gpu", "resourceClaimName": f"claim-{i}"}]}})
    cp.settle()
    attempts_before = cp.scheduler.attempts
    start = time.perf_counter()
    for i in range(n):
        claim = cp.store.get("ResourceClaim", "default", f"claim-{i}")
        cp.store.update(dict(claim, metadata=dict(claim["metadata"], labels={"touched": "yes"})))
        cp.settle()
    took = time.perf_counter() - start
    return took, took / n * 1e6, cp.scheduler.attempts - attempts_before


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [1250, 2500, 5000, 10000]
    print(f"{'pending pods':>12} {'claim events':>12} {'retries':>8} {'seconds':>8} {'µs/event':>9}")
    for n in sizes:
        took, per_event, retries = run(n)
        print(f"{n:>12} {n:>12} {retries:>8} {took:>8.2f} {per_event:>9.1f}")


if __name__ == "__main__":
    main()
