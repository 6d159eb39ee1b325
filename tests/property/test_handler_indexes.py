"""The controllers' and kubelets' indexes stay what the store says, and their settle shortcuts
write exactly what the step-by-step run writes (docs/PERFORMANCE.md "Loading: the controllers'
and kubelets' handlers").

- After every operation of random workloads, the resourceclaim controller's indexes (owned,
  reserved for, bound users) and the kubelets' per-node usage equal indexes rebuilt from the
  stored objects.
- With batching off (one work item per turn) and the startup-sync shortcut off (every claim
  through the full _sync_claim), random workloads with owners (ReplicaSets, foreground and
  orphan deletion) give the same store history, write for write.
"""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from drasim import smallsets
from drasim.api.podclaims import pod_claims
from drasim.controllers import batching
from drasim.controllers.resourceclaim import ResourceClaimController
from drasim.controlplane import ControlPlane, Options
from drasim.errors import InputError
from drasim.node.kubelet import Kubelets
from drasim.api.kinds import STORED_KINDS
from tests.property.workload_ops import OPS, apply_op, build_cluster, random_ops


def _as_sets(index: dict) -> dict:
    return {key: set(smallsets.values(index, key)) for key in index}


def _rebuilt_claim_indexes(cp: ControlPlane) -> tuple[dict, dict, dict]:
    owned: dict = {}
    reserved: dict = {}
    bound: dict = {}
    for claim in cp.store.list("ResourceClaim"):
        key = (claim["metadata"].get("namespace"), claim["metadata"]["name"])
        for ref in claim["metadata"].get("ownerReferences") or ():
            if ref.get("controller") and ref.get("kind") in ("Pod", "PodGroup"):
                owned.setdefault(ref.get("uid"), set()).add(key)
        for ref in (claim.get("status") or {}).get("reservedFor") or ():
            reserved.setdefault(ref.get("uid"), set()).add(key)
    for pod in cp.store.list("Pod"):
        if pod["spec"].get("nodeName"):
            for _, name, _ in pod_claims(pod):
                if name is not None:
                    bound.setdefault((pod["metadata"].get("namespace"), name), set()).add(pod["metadata"]["name"])
    return owned, reserved, bound


def _rebuilt_usage(cp: ControlPlane) -> dict:
    usage: dict = {}
    for pod in cp.store.list("Pod"):
        if pod["spec"].get("nodeName") and (pod.get("status") or {}).get("phase") == "Running":
            for name, value in Kubelets._full_extended_share(pod).items():
                node = usage.setdefault(pod["spec"]["nodeName"], {})
                node[name] = node.get(name, 0) + value
    return {n: {k: v for k, v in u.items() if v} for n, u in usage.items() if any(u.values())}


def assert_indexes_match_store(cp: ControlPlane) -> None:
    rc = cp.claim_controller
    owned, reserved, bound = _rebuilt_claim_indexes(cp)
    assert _as_sets(rc._owned) == owned
    assert _as_sets(rc._reserved) == reserved
    assert _as_sets(rc._bound_users) == bound
    usage = {n: {k: v for k, v in u.items() if v} for n, u in cp.kubelets._node_usage.items()}
    assert {n: u for n, u in usage.items() if u} == _rebuilt_usage(cp)


ops_lists = st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 999)), min_size=1, max_size=50)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(ops_lists)
def test_indexes_follow_the_store(ops):
    """Breakage seen caught: the resourceclaim controller's _unindex made a no-op."""
    cp = ControlPlane(Options(seed=5))
    build_cluster(cp)
    denials: list[str] = []
    for index, (op, n) in enumerate(ops):
        apply_op(cp, index, op, n, denials)
        assert_indexes_match_store(cp)
    cp.settle()
    assert_indexes_match_store(cp)


@pytest.mark.parametrize("seed", range(3))
def test_indexes_follow_the_store_in_long_workloads(seed):
    cp = ControlPlane(Options(seed=5))
    build_cluster(cp)
    denials: list[str] = []
    for index, (op, n) in enumerate(random_ops(random.Random(seed), 150)):
        apply_op(cp, index, op, n, denials)
    cp.settle()
    assert_indexes_match_store(cp)


# -- batched settles write what one item per turn writes ----------------------------------------

OWNER_OPS = ("rs", "rs", "scale", "delete_rs", "delete_pod", "delete_claim", "settle", "pod")


def _replica_set(name: str, replicas: int, claims: bool) -> dict:
    spec: dict = {"containers": [{"name": "c", "image": "i"}]}
    if claims:
        spec["resourceClaims"] = [{"name": "g", "resourceClaimTemplateName": "any"}]
        spec["containers"][0]["resources"] = {"claims": [{"name": "g"}]}
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"rs": name}},
                     "template": {"metadata": {"labels": {"rs": name}}, "spec": spec}}}


def _owner_op(cp: ControlPlane, index: int, op: str, n: int, denials: list[str]) -> None:
    store = cp.store
    names = sorted(o["metadata"]["name"] for o in store.list("ReplicaSet", "default"))
    try:
        if op == "rs":
            cp.create(_replica_set(f"rs{index}", 1 + n % 4, bool(n % 3)))
        elif op == "scale" and names:
            rs = store.get("ReplicaSet", "default", names[n % len(names)])
            store.update(dict(rs, spec=dict(rs["spec"], replicas=n % 5)))
        elif op == "delete_rs" and names:
            cp.delete("ReplicaSet", "default", names[n % len(names)],
                      propagation=("Background", "Foreground", "Orphan")[n % 3])
        elif op in ("delete_pod", "delete_claim"):
            kind = "Pod" if op == "delete_pod" else "ResourceClaim"
            objs = sorted(o["metadata"]["name"] for o in store.list(kind, "default"))
            if objs:
                cp.delete(kind, "default", objs[n % len(objs)], propagation=("Background", "Foreground")[n % 2])
        elif op == "settle":
            cp.settle()
        else:
            apply_op(cp, index, op, n, denials)
    except InputError as e:
        denials.append(f"{index}:{op}: {e}")


def _history(ops: list[tuple[str, int]]) -> tuple[list, list]:
    cp = ControlPlane(Options(seed=5))
    writes: list = []
    cp.store.subscribe(lambda ev: writes.append((ev.type, ev.kind, json.dumps(ev.obj, sort_keys=True, default=str))),
                       kinds=list(STORED_KINDS))
    build_cluster(cp)
    denials: list[str] = []
    for index, (op, n) in enumerate(ops):
        _owner_op(cp, index, op, n, denials)
    cp.settle()
    return writes, denials


owner_ops = st.lists(st.tuples(st.sampled_from(OWNER_OPS), st.integers(0, 999)), min_size=1, max_size=30)


def _assert_same_history(ops, monkeypatch) -> None:
    fast = _history(ops)
    with monkeypatch.context() as mp:
        mp.setattr(batching, "BATCH", 1)
        mp.setattr(ResourceClaimController, "_consumers_all_there", lambda self, ns, reserved: False)
        slow = _history(ops)
    assert fast[1] == slow[1]
    for i, (a, b) in enumerate(zip(fast[0], slow[0])):
        assert a == b, f"write #{i} differs"
    assert len(fast[0]) == len(slow[0])


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(owner_ops)
def test_batched_settles_write_what_single_steps_write(monkeypatch, ops):
    """Breakage seen caught: run_batch going on after a write."""
    _assert_same_history(ops, monkeypatch)


@pytest.mark.parametrize("seed", range(4))
def test_batched_settles_in_long_workloads(monkeypatch, seed):
    rng = random.Random(seed)
    _assert_same_history([(rng.choice(OWNER_OPS + OPS), rng.randrange(1000)) for _ in range(80)], monkeypatch)


def test_the_owner_workloads_exercise_the_collector():
    """Guards the generator: the collector deletes dependents and drops references to orphaning owners."""
    rng = random.Random(1)
    writes, _ = _history([(rng.choice(OWNER_OPS), rng.randrange(1000)) for _ in range(80)])
    deleted_kinds = {kind for typ, kind, _ in writes if typ == "DELETED"}
    assert {"Pod", "ResourceClaim", "ReplicaSet"} <= deleted_kinds
