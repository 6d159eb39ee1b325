"""Quick driver for the SchedulingWithResourceClaimTemplate/5000pods_500nodes shape (profiling aid).

    python benchmarks/claim_template_shape.py [nodes] [init_claims] [pods]
"""
from __future__ import annotations

import random
import sys
import time

from drasim.controlplane import ControlPlane, Options


def node(i):
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": f"scheduler-perf-dra-{i}", "labels": {"node-with-dra": "true",
                                                                        "kubernetes.io/hostname": f"scheduler-perf-dra-{i}"}},
            "status": {"capacity": {"cpu": "4", "memory": "32Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}], "phase": "Running"}}


def slice_(i, n=10):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"resourceslice-{i}"},
            "spec": {"pool": {"name": f"resourceslice-{i}", "generation": 1, "resourceSliceCount": 1},
                     "driver": "test-driver.cdi.k8s.io", "nodeName": f"scheduler-perf-dra-{i}",
                     "devices": [{"name": f"basic-device-{k}", "attributes": {
                         "driverVersion": {"version": "1.2.3"}, "model": {"string": "B60"},
                         "resource.kubernetes.io/pciRoot": {"string": f"pci0000:0{k % 2}"}},
                         "capacity": {"memory": {"value": "24480Mi"}, "millicores": {"value": "1k"}}}
                         for k in range(n)]}}


CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "test-class"},
         "spec": {"selectors": [{"cel": {"expression": 'device.driver == "test-driver.cdi.k8s.io"'}}]}}
TEMPLATE = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "test-claim-template", "namespace": "test"},
            "spec": {"spec": {"devices": {"requests": [{"name": "req-0", "exactly": {"deviceClassName": "test-class"}}]}}}}


def claim(i):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": f"test-claim-{i}", "namespace": "init"},
            "spec": {"devices": {"requests": [{"name": "req-0", "exactly": {"deviceClassName": "test-class"}}]}}}


def pod(i):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "test-dra-", "namespace": "test",
                                                            "labels": {"signature": f"signature-label-{i}"}},
            "spec": {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                                     "resources": {"claims": [{"name": "resource"}]}}],
                     "resourceClaims": [{"name": "resource", "resourceClaimTemplateName": "test-claim-template"}]}}


def main():
    nodes, init, pods = (int(a) for a in (sys.argv[1:] + ["500", "2500", "2500"])[:3])
    cp = ControlPlane(Options(kubelets=False))
    t0 = time.perf_counter()
    for i in range(nodes):
        cp.create(node(i))
    for i in range(nodes):
        cp.create(slice_(i))
    cp.create(CLASS)
    rng = random.Random(0)
    node_objs = [cp.store.get("Node", None, f"scheduler-perf-dra-{i}") for i in range(nodes)]
    for i in range(init):
        c = cp.create(claim(i))
        order = node_objs[:]
        rng.shuffle(order)
        for n in order:
            res = cp.allocator.allocate(n, [c], cp.dra.allocated)
            if res:
                cp.store.update_status(dict(c, status={"allocation": res[0]}))
                break
    cp.create(TEMPLATE)
    cp.settle()
    t1 = time.perf_counter()
    bound = 0

    def on(ev):
        nonlocal bound
        if ev.kind == "Pod" and ev.obj["spec"].get("nodeName") and not (ev.old or {}).get("spec", {}).get("nodeName"):
            bound += 1
    cp.store.subscribe(on)
    start = time.perf_counter()
    for i in range(pods):
        cp.create(pod(i))
    created = time.perf_counter()
    cp.settle()
    end = time.perf_counter()
    print(f"setup {t1 - t0:.2f}s; created {pods} pods in {created - start:.2f}s; "
          f"scheduled {bound} in {end - start:.2f}s → {bound / (end - start):.0f} pods/s")


if __name__ == "__main__":
    main()
