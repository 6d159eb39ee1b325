"""A loaded snapshot leaves the scheduler's state as a rebuild from the stored objects would.

Applying `kubectl get -o json` of a cluster feeds every stored object through the watchers'
handlers once: the scheduler cache sums each bound pod into its node (in place, from the
shared requests memo), the queue skips pods bound on arrival, DynamicResources counts every
allocation (the exclusive add inlined) and touches the pool's nodes, the allocator parses every
slice (capacity records shared by content). Random workloads (tests/property/workload_ops.py)
are run, written out as a snapshot and applied into a fresh plane as `drasim simulate` and
benchmarks/fleet_snapshot.py do; the loaded plane's state must equal a recount from its stored
objects written without that code, before and after more pods are scheduled on it. (Where
those go is not compared with the plane that made the snapshot: the loaded plane lists nodes in
the snapshot's order and its tie-breaks start afresh, as a restarted kube-scheduler's do.)
"""
from __future__ import annotations

import random

import pytest

from drasim.allocator.model import CapacityRec, SliceRec
from drasim.api.loader import load_paths
from drasim.api.podresources import pod_requests as plain_pod_requests
from drasim.cli import render
from drasim.controlplane import ControlPlane, Options
from drasim.scheduler.resources import _non_zero_requests
from tests.property.workload_ops import NODES, apply_op, build_cluster, random_ops
from tests.unit.allocator.recount import counted, recount


def _node_state(cp: ControlPlane) -> dict:
    out = {}
    for info in cp.scheduler.cache.nodes():
        out[info.name] = (set(info.pods), {k: v for k, v in info.requested.items() if v},
                          info.non_zero_cpu, info.non_zero_memory)
    return out


def _recounted_node_state(cp: ControlPlane) -> dict:
    out = {node["metadata"]["name"]: (set(), {}, 0, 0) for node in cp.store.list("Node")}
    for pod in cp.store.list("Pod"):
        node = pod["spec"].get("nodeName")
        if not node or (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed") or node not in out:
            continue
        uids, total, cpu, memory = out[node]
        uids.add(pod["metadata"]["uid"])
        for name, amount in plain_pod_requests(pod).items():
            total[name] = total.get(name, 0) + amount
        c, m = _non_zero_requests(pod)
        out[node] = (uids, {k: v for k, v in total.items() if v}, cpu + c, memory + m)
    return out


def _capacity(rec: CapacityRec) -> tuple:
    return (rec.value.value, rec.policy, rec.default and rec.default.value, rec.has_range)


def _slices(cp: ControlPlane) -> dict:
    return {name: [(d.id, {k: _capacity(c) for k, c in d.capacity.items()}, d.cap_fits_empty, d.consumes,
                    d.taints, d.beyond_quick_fit) for d in rec.devices]
            for name, rec in cp.allocator._slices.items()}


def _assert_rebuilt(cp: ControlPlane) -> None:
    assert _node_state(cp) == _recounted_node_state(cp)
    claims = cp.store.list("ResourceClaim")
    allocations = [c["status"]["allocation"] for c in claims if (c.get("status") or {}).get("allocation")]
    assert counted(cp.dra.allocated) == recount(allocations)
    assert set(cp.dra._claim_allocs) == {c["metadata"]["uid"] for c in claims
                                         if (c.get("status") or {}).get("allocation")}
    fresh = {}
    for s in cp.store.list("ResourceSlice"):
        rec = SliceRec(cp.dra._with_rule_taints(s), admitted=True)
        fresh[rec.name] = rec
    assert _slices(cp) == {name: [(d.id, {k: _capacity(c) for k, c in d.capacity.items()}, d.cap_fits_empty,
                                   d.consumes, d.taints, d.beyond_quick_fit) for d in rec.devices]
                           for name, rec in fresh.items()}
    bound = {p["metadata"]["uid"] for p in cp.store.list("Pod") if p["spec"].get("nodeName")}
    assert not bound & set(cp.scheduler.queue._pods)


def _more_pods(cp: ControlPlane, seed: int) -> dict:
    """New pods, settled: where they go and why not."""
    for i in range(NODES):
        kind = ("any", "big", "cpu", "ext")[(seed + i) % 4]
        spec: dict = {"containers": [{"name": "c", "image": "i", "resources": {}}]}
        if kind in ("any", "big"):
            spec["resourceClaims"] = [{"name": "g", "resourceClaimTemplateName": kind}]
            spec["containers"][0]["resources"]["claims"] = [{"name": "g"}]
        elif kind == "cpu":
            spec["containers"][0]["resources"] = {"requests": {"cpu": str(1 + i % 3)}}
        else:
            spec["containers"][0]["resources"] = {"limits": {"example.com/gpu": "1"}}
        cp.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"late{i}", "namespace": "default"},
                   "spec": spec})
    cp.settle()
    out = {}
    for p in cp.store.list("Pod"):
        if p["metadata"]["name"].startswith("late"):
            cond = next((c for c in (p.get("status") or {}).get("conditions") or ()
                         if c.get("type") == "PodScheduled"), {})
            out[p["metadata"]["name"]] = (p["spec"].get("nodeName"), cond.get("reason"))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_a_loaded_snapshot_equals_a_rebuild(seed, tmp_path):
    original = ControlPlane(Options(seed=seed))
    build_cluster(original)
    denials: list[str] = []
    ops = random_ops(random.Random(seed), 120, ("pod", "pod", "pod", "settle", "delete_pod", "allocate", "release",
                                                 "republish", "shrink", "taint", "untaint", "advertise"))
    for index, (op, n) in enumerate(ops):
        apply_op(original, index, op, n, denials)
    original.settle()
    snapshot = tmp_path / "snapshot.json"
    snapshot.write_text(render.render_json(original.objects()))
    # Another seed: the same one would draw the snapshot's uids again for the new objects (two
    # claims with one uid: the store's generator does not skip the uids a snapshot brought).
    loaded = ControlPlane(Options(seed=seed + 1000))
    loaded.apply(load_paths([snapshot]), owned=True)
    loaded.settle()
    assert sum(1 for p in loaded.store.list("Pod") if p["spec"].get("nodeName")) >= 10
    _assert_rebuilt(loaded)
    _assert_rebuilt(original)
    assert any(node for node, _ in _more_pods(loaded, seed).values())
    _assert_rebuilt(loaded)
