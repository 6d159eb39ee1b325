"""The cheaper watch handlers of the controllers and kubelets decide as the full computations do
(docs/PERFORMANCE.md "Loading: the controllers' and kubelets' handlers").

Each fast path is compared with the slow one over random inputs."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from drasim import smallsets
from drasim.controllers.devicetaintstatus import NO_EXECUTE, Pool
from drasim.controllers.workloads.common import ControllerContext
from drasim.controllers.workloads.garbagecollector import GarbageCollector, owner_kind
from drasim.deletion import FOREGROUND_FINALIZER, ORPHAN_FINALIZER
from drasim.node.kubelet import Kubelets
from drasim.sim.clock import Clock
from drasim.store import MemoryStore

# -- smallsets: the same as a dict of sets that drops empty keys --------------------------------

ops = st.lists(st.tuples(st.sampled_from(("add", "discard", "pop")), st.integers(0, 3), st.integers(0, 3)),
               max_size=60)


@given(ops)
def test_smallsets_index_is_a_dict_of_sets(operations):
    index: dict = {}
    reference: dict[int, set] = {}
    for op, key, value in operations:
        if op == "add":
            smallsets.add(index, key, ("v", value))
            reference.setdefault(key, set()).add(("v", value))
        elif op == "discard":
            smallsets.discard(index, key, ("v", value))
            reference.get(key, set()).discard(("v", value))
            if not reference.get(key, True):
                del reference[key]
        else:
            assert set(smallsets.pop(index, key)) == reference.pop(key, set())
        assert set(index) == set(reference)            # keys without values are gone
        for k in range(4):
            assert set(smallsets.values(index, k)) == reference.get(k, set())


# -- kubelet: a pod's share of the node's DRA extended resources --------------------------------

NAMES = ("cpu", "memory", "example.com/gpu", "example.com/nic", "deviceclass.resource.kubernetes.io/gpu",
         "hugepages-2Mi", "pods")
CONTAINERS = ("a", "b", "c")
requests = st.dictionaries(st.sampled_from(NAMES), st.integers(0, 4).map(str), max_size=3)
container = st.fixed_dictionaries({"name": st.sampled_from(CONTAINERS), "resources": st.fixed_dictionaries(
    {}, optional={"requests": requests})}, optional={"restartPolicy": st.just("Always")})
mapping = st.fixed_dictionaries({"containerName": st.sampled_from(CONTAINERS), "resourceName": st.sampled_from(NAMES),
                                 "requestName": st.just("r")})
pod_spec = st.fixed_dictionaries({"containers": st.lists(container, max_size=3)}, optional={
    "initContainers": st.lists(container, max_size=2), "overhead": requests,
    "resources": st.fixed_dictionaries({"requests": requests})})


@settings(max_examples=300, deadline=None)
@given(pod_spec, st.lists(mapping, max_size=3))
def test_extended_share_is_the_full_computation(spec, mappings):
    """Breakage seen caught: the overhead loop of _extended_share removed."""
    pod = {"metadata": {"name": "p", "namespace": "default"}, "spec": spec,
           "status": {"extendedResourceClaimStatus": {"resourceClaimName": "x", "requestMappings": mappings}}}
    assert Kubelets._extended_share(pod) == Kubelets._full_extended_share(pod)


# -- garbage collector: one look-up classifies as _gone, then _waiting did -----------------------

owner_state = st.sampled_from(("absent", "present", "other-uid", "deleting", "deleting-foreground",
                               "deleting-orphan"))
ref_kind = st.sampled_from((("Pod", "v1"), ("Pod", "apps/v1"), ("ReplicaSet", "apps/v1"), ("Widget", "x.io/v1"),
                            ("Event", "v1"), ("ReplicaSet", "v1")))


@given(owner_state, ref_kind)
def test_classify_is_gone_then_waiting(state, kind_version):
    """Breakage seen caught: _classify not comparing the owner's uid."""
    clock = Clock()
    store = MemoryStore(clock)
    gc = GarbageCollector(ControllerContext(store, clock, create=None, delete=None))
    kind, api_version = kind_version
    for owner_kind_name, group_version in (("Pod", "v1"), ("ReplicaSet", "apps/v1")):
        if state == "absent":
            continue
        md = {"name": "owner", "namespace": "default", "uid": "u-other" if state == "other-uid" else "u1"}
        if state.startswith("deleting"):
            md["deletionTimestamp"] = "2026-01-01T00:00:00Z"
            md["finalizers"] = {"deleting": ["example.com/hold"], "deleting-foreground": [FOREGROUND_FINALIZER],
                                "deleting-orphan": [ORPHAN_FINALIZER]}[state]
        spec = {"containers": [{"name": "c", "image": "i"}]} if owner_kind_name == "Pod" else {
            "selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}}}}
        store.create({"apiVersion": group_version, "kind": owner_kind_name, "metadata": md, "spec": spec})
    ref = {"apiVersion": api_version, "kind": kind, "name": "owner", "uid": "u1", "controller": True}
    expected = 0 if gc._gone(ref, "default") else 1 if gc._waiting(ref, "default") else 2
    assert gc._classify(ref, "default") == expected
    assert owner_kind(ref) is owner_kind(dict(ref))   # the memo answers as the first look-up did


# -- device taint eviction: a pool's NoExecute taints, cached and pre-checked ---------------------

taint = st.fixed_dictionaries({"key": st.just("k"), "effect": st.sampled_from((NO_EXECUTE, "NoSchedule", "None"))})
device = st.fixed_dictionaries({"name": st.sampled_from(("d0", "d1", "d2"))},
                               optional={"taints": st.lists(taint, max_size=2)})
slice_ = st.builds(lambda i, gen, devices: {"metadata": {"name": f"s{i}"},
                                            "spec": {"driver": "d", "pool": {"name": "p", "generation": gen},
                                                     "devices": devices}},
                   st.integers(0, 3), st.integers(0, 2), st.lists(device, max_size=3))


def _reference_taints(pool: Pool) -> dict:
    out = {}
    for name, (_, dev) in pool.devices().items():
        found = [t for t in dev.get("taints") or () if t.get("effect") == NO_EXECUTE]
        if found:
            out[name] = found
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), slice_), max_size=8))
def test_pool_noexecute_taints_follow_every_change(changes):
    """Breakage seen caught: Pool.add not dropping the cached taints."""
    pool = Pool()
    for add, s in changes:
        pool.noexecute_taints()   # cached between changes
        if add:
            pool.add(s)
        else:
            pool.remove(s)
        assert pool.noexecute_taints() == _reference_taints(pool)
