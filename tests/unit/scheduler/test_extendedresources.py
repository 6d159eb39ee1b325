"""Routing, request/mapping construction and the special claim (spec §3, §5, §6)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from drasim.api.extendedresource import IMPLICIT_PREFIX, ExtendedResourceCache
from drasim.api.podresources import pod_requests
from drasim.scheduler.plugins.extendedresources import (
    EXTENDED_RESOURCE_CLAIM_ANNOTATION, build_requests_and_mappings, dra_routed_names,
    has_mapped_extended_resource, is_extended_resource_claim_of, name_from_generate_name,
    new_extended_resource_claim, pod_extended_requests)

GPU = "example.com/gpu"
FPGA = IMPLICIT_PREFIX + "fpga-class"


def cls(name, explicit=None):
    spec = {} if explicit is None else {"extendedResourceName": explicit}
    return {"metadata": {"name": name, "creationTimestamp": "2026-01-01T00:00:00Z"}, "spec": spec}


def make_cache():
    cache = ExtendedResourceCache()
    cache.on_add(cls("gpu-class", GPU))
    cache.on_add(cls("fpga-class"))
    return cache


def c(name, sidecar=False, **requests):
    """Container builder: keyword `gpu`/`fpga`/`cpu` or explicit names via dict."""
    names = {"gpu": GPU, "fpga": FPGA, "cpu": "cpu", "memory": "memory", "other": "other.com/x"}
    reqs = {names.get(k, k): v for k, v in requests.items()}
    out = {"name": name, "resources": {"requests": reqs, "limits": dict(reqs)}}
    if sidecar:
        out["restartPolicy"] = "Always"
    return out


def pod(containers, inits=(), name="p", uid="pod-uid"):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ns", "uid": uid},
            "spec": {"initContainers": list(inits), "containers": list(containers)}}


def node(**allocatable):
    return {"metadata": {"name": "n"}, "status": {"allocatable": allocatable}}


def req(name, count, class_name="gpu-class"):
    return {"name": name, "exactly": {"deviceClassName": class_name, "allocationMode": "ExactCount",
                                      "count": count}}


def m(container, request, resource=GPU):
    return {"containerName": container, "resourceName": resource, "requestName": request}


def r(i, j):
    return f"container-{i}-request-{j}"


# --- §3 routing ----------------------------------------------------------------------------

@pytest.mark.parametrize(("allocatable", "dra", "device_plugin", "unresolved"), [
    pytest.param({}, {GPU: 1}, (), (), id="absent-and-class-dra"),
    pytest.param({GPU: "0"}, {GPU: 1}, (), (), id="zero-and-class-dra"),
    pytest.param({GPU: "2"}, {}, (GPU,), (), id="allocatable-device-plugin"),
])
def test_routing_explicit(allocatable, dra, device_plugin, unresolved):
    """§3.1/§3.3: allocatable > 0 -> device plugin; absent or 0 with a class -> DRA."""
    got = dra_routed_names(pod([c("main", gpu=1)]), node(**allocatable), make_cache())
    assert (got.dra, got.device_plugin, got.unresolved) == (dra, device_plugin, unresolved)


def test_routing_unmapped_name():
    """§3.1: absent and no class -> unresolved (`cannot fit resource`); 0 and no class -> plugin path."""
    p = pod([c("main", gpu=1, other=1)])
    assert dra_routed_names(p, node(), make_cache()).unresolved == ("other.com/x",)
    got = dra_routed_names(p, node(**{"other.com/x": "0"}), make_cache())
    assert got.device_plugin == ("other.com/x",) and got.fits and got.dra == {GPU: 1}


def test_routing_per_name():
    """§3.2/§3.4: one node may serve gpu by device plugin and the implicit fpga name by DRA."""
    got = dra_routed_names(pod([c("main", gpu=1, fpga=2, cpu="500m")]), node(**{GPU: "4"}), make_cache())
    assert got.dra == {FPGA: 2} and got.device_plugin == (GPU,)


def test_routing_ignores_zero_and_native():
    """§3 definitions: zero pod requests and native names are never routed."""
    got = dra_routed_names(pod([c("main", gpu=0, cpu=1, memory="1Gi")]), node(), make_cache())
    assert (got.dra, got.device_plugin, got.unresolved) == ({}, (), ())


def test_pod_request_uses_init_max_and_sum():
    """§3 pod request: regular + sidecars sum, init containers by max (5.7)."""
    p = pod([c("main", gpu=1)], inits=[c("i1", gpu=3), c("log", sidecar=True, gpu=1)])
    assert pod_extended_requests(p) == {GPU: 3}


def test_has_mapped_extended_resource():
    """§7.1: PreFilter only proceeds when some requested name resolves."""
    cache = make_cache()
    assert has_mapped_extended_resource({GPU: 1}, cache)
    assert not has_mapped_extended_resource({"other.com/x": 1}, cache)


# --- §5 requests and mappings (worked examples §5.11) ---------------------------------------

WORKED = [
    pytest.param(pod([c("main", gpu=1)]), {GPU},
                 [req(r(0, 0), 1)], [m("main", r(0, 0))], id="single-container"),
    pytest.param(pod([c("a", gpu=1, fpga=1, cpu="1"), c("b", gpu=2)]), {GPU, FPGA},
                 [req(r(0, 1), 1, "fpga-class"), req(r(0, 2), 1), req(r(1, 0), 2)],
                 [m("a", r(0, 1), FPGA), m("a", r(0, 2)), m("b", r(1, 0))], id="two-names-sorted-keys"),
    pytest.param(pod([c("main", gpu=1)], inits=[c("setup", gpu=1)]), {GPU},
                 [req(r(1, 0), 1)], [m("main", r(1, 0)), m("setup", r(1, 0))], id="init-reuses-main"),
    pytest.param(pod([c("main", gpu=1)], inits=[c("init", gpu=2)]), {GPU},
                 [req(r(0, 0), 1), req(r(1, 0), 1)],
                 [m("main", r(1, 0)), m("init", r(1, 0)), m("init", r(0, 0))], id="init-needs-more"),
    pytest.param(pod([c("main", gpu=1)],
                     inits=[c("prep", gpu=2), c("log", sidecar=True, gpu=1), c("warm", gpu=3)]), {GPU},
                 [req(r(1, 0), 1), req(r(2, 0), 2), req(r(3, 0), 1)],
                 [m("log", r(1, 0)), m("main", r(3, 0)), m("prep", r(1, 0)), m("prep", r(3, 0)),
                  m("warm", r(3, 0)), m("warm", r(2, 0))], id="sidecar-and-inits"),
]


@pytest.mark.parametrize(("the_pod", "routed", "want_requests", "want_mappings"), WORKED)
def test_worked_examples(the_pod, routed, want_requests, want_mappings):
    """§5.11: the worked request/mapping table, exactly."""
    requests, mappings = build_requests_and_mappings(the_pod, routed, make_cache())
    assert requests == want_requests
    assert mappings == want_mappings


def test_short_lived_requests_keep_largest():
    """§5.6: of several short-lived own requests only the largest (first on tie) is kept."""
    p = pod([c("main", gpu=1)], inits=[c("i0", gpu=2), c("i1", gpu=4), c("i2", gpu=4)])
    requests, mappings = build_requests_and_mappings(p, {GPU}, make_cache())
    assert requests == [req(r(1, 0), 3), req(r(3, 0), 1)]
    assert mappings == [m("main", r(3, 0)), m("i0", r(3, 0)), m("i0", r(1, 0)),
                        m("i1", r(3, 0)), m("i1", r(1, 0)), m("i2", r(3, 0)), m("i2", r(1, 0))]


def test_sidecar_before_init_not_reused():
    """§5.5: a sidecar at a lower index (already running) is never reused by a later init."""
    p = pod([c("main")], inits=[c("log", sidecar=True, gpu=1), c("init", gpu=1)])
    requests, mappings = build_requests_and_mappings(p, {GPU}, make_cache())
    assert requests == [req(r(0, 0), 1), req(r(1, 0), 1)]
    assert mappings == [m("log", r(0, 0)), m("init", r(1, 0))]


def test_request_names_sort_bytewise():
    """§5.8: container-10-... sorts before container-2-..."""
    containers = [c(f"c{i}", gpu=1) for i in range(11)]
    requests, _ = build_requests_and_mappings(pod(containers), {GPU}, make_cache())
    names = [x["name"] for x in requests]
    assert names[:3] == [r(0, 0), r(1, 0), r(10, 0)]
    assert names == sorted(names)


@pytest.mark.parametrize(("routed", "want"), [
    pytest.param(set(), [], id="nothing-routed"),
    pytest.param({FPGA}, [r(0, 0)], id="only-fpga-routed"),
    pytest.param({"other.com/x"}, [], id="unmapped-name-skipped"),
])
def test_only_routed_names(routed, want):
    """§5.10: device-plugin-routed and unmapped names produce no requests."""
    p = pod([c("main", fpga=1, gpu=1, other=1)])
    requests, mappings = build_requests_and_mappings(p, routed, make_cache())
    assert [x["name"] for x in requests] == want
    assert len(mappings) == len(want)


def test_fractional_and_zero_quantities_ignored():
    """§12.4: a non-integer or zero container quantity yields no request."""
    p = pod([c("a", gpu="1500m"), c("b", gpu=0), c("d", gpu="1000m")])
    requests, mappings = build_requests_and_mappings(p, {GPU}, make_cache())
    assert requests == [req(r(2, 0), 1)]
    assert mappings == [m("d", r(2, 0))]


def test_ephemeral_containers_ignored():
    """§4.4: ephemeral containers are not numbered or mapped."""
    p = pod([c("main", gpu=1)])
    p["spec"]["ephemeralContainers"] = [c("debug", gpu=1)]
    assert build_requests_and_mappings(p, {GPU}, make_cache())[0] == [req(r(0, 0), 1)]


def test_inputs_not_mutated():
    """Ground rule: input dicts are never mutated."""
    import copy
    p = pod([c("main", gpu=1)], inits=[c("i0", gpu=2), c("i1", gpu=3)])
    before = copy.deepcopy(p)
    build_requests_and_mappings(p, {GPU}, make_cache())
    assert p == before


@st.composite
def pods(draw):
    inits = [c(f"i{k}", sidecar=draw(st.booleans()), gpu=draw(st.integers(0, 4)))
             for k in range(draw(st.integers(0, 4)))]
    mains = [c(f"m{k}", gpu=draw(st.integers(0, 4))) for k in range(draw(st.integers(1, 3)))]
    return pod(mains, inits=inits)


@settings(max_examples=300, deadline=None)
@given(pods())
def test_device_total_equals_pod_request(the_pod):
    """§5.7: devices requested per name == the PodRequests value for that name."""
    requests, mappings = build_requests_and_mappings(the_pod, {GPU}, make_cache())
    assert sum(x["exactly"]["count"] for x in requests) == pod_requests(the_pod).get(GPU, 0)
    names = {x["name"] for x in requests}
    assert {x["requestName"] for x in mappings} <= names
    assert len(names) == len(requests)


# --- §6 the claim object -------------------------------------------------------------------

def test_new_claim_metadata():
    """§6.2: generateName, controller owner without blockOwnerDeletion, annotation "true"."""
    p = pod([c("main", gpu=1)], name="web")
    claim = new_extended_resource_claim(p, [req(r(0, 0), 1)])
    meta = claim["metadata"]
    assert meta == {
        "namespace": "ns", "generateName": "web-extended-resources-",
        "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "web", "uid": "pod-uid",
                             "controller": True}],
        "annotations": {EXTENDED_RESOURCE_CLAIM_ANNOTATION: "true"}}
    assert claim["spec"]["devices"]["requests"] == [req(r(0, 0), 1)]
    assert "labels" not in meta and "name" not in meta and "finalizers" not in meta


def test_generated_name_base_cut():
    """§6.2: the API server keeps 58 characters of the base and appends 5."""
    base = "x" * 60 + "-extended-resources-"
    assert name_from_generate_name(base, "abcde") == "x" * 58 + "abcde"
    assert name_from_generate_name("web-extended-resources-", "abcde") == "web-extended-resources-abcde"


def special(annotation="true", name="p", uid="pod-uid", controller=True):
    return {"metadata": {"name": "p-extended-resources-xyz", "namespace": "ns",
                         "annotations": {EXTENDED_RESOURCE_CLAIM_ANNOTATION: annotation},
                         "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": name,
                                              "uid": uid, "controller": controller}]}}


@pytest.mark.parametrize(("claim", "want"), [
    pytest.param(special(), True, id="match"),
    pytest.param(special(annotation="p"), False, id="annotation-pod-name"),
    pytest.param(special(name="q"), False, id="other-name"),
    pytest.param(special(uid="other"), False, id="other-uid"),
    pytest.param(special(controller=False), False, id="not-controller"),
    pytest.param({"metadata": {"name": "x"}}, False, id="plain-claim"),
])
def test_is_extended_resource_claim_of(claim, want):
    """§6.4: annotation exactly "true" and a controller ref with the pod's name and UID."""
    assert is_extended_resource_claim_of(claim, pod([c("main")])) is want
