"""Search order, pools, All mode, admin access, firstAvailable, taints and fatal errors (spec §5-§16)."""
from __future__ import annotations

import pytest

from drasim.allocator import Features, NodeAllocationFailure
from drasim.errors import AllocationError

from .builders import (CLASS_A, CLASS_B, DRIVER_A, DRIVER_B, NODE_1, NODE_2, POOL_1, POOL_2, allocate,
                       allocated_claim, claim, device, first_available, klass, node, picks, request, slice_,
                       subrequest)

MEM = 'device.capacity["driver-a"].memory.compareTo(quantity("{}")) >= 0'
ONE_DEV = [slice_("s1", device("d1"))]
TWO_DEV = [slice_("s1", device("d1"), device("d2"))]


@pytest.mark.parametrize(("claims", "slices", "want"), [
    pytest.param([claim("c0", request("r0"))], TWO_DEV, [["r0=driver-a/pool-1/d1"]], id="simple-first-device"),
    pytest.param([claim("c0", request("r0", CLASS_A, 2))], TWO_DEV,
                 [["r0=driver-a/pool-1/d1", "r0=driver-a/pool-1/d2"]], id="count-two"),
    pytest.param([claim("c0", request("r0", CLASS_A, 3))], TWO_DEV, None, id="not-enough-devices"),
    pytest.param([claim("c0", request("r0"))], [slice_("s1", device("d1"), node=NODE_2)], None, id="other-node"),
    pytest.param([claim("c0", request("r0"))], [], None, id="no-slices"),
    pytest.param([claim("c0", request("r0", CLASS_A, 1, MEM.format("1Gi")), request("r1", CLASS_A, 1, MEM.format("2Gi")))],
                 [slice_("s1", device("d2", capacity={"memory": "2Gi"}), device("d1", capacity={"memory": "1Gi"}))],
                 [["r0=driver-a/pool-1/d1", "r1=driver-a/pool-1/d2"]], id="small-and-large-backtrack-requests"),
    pytest.param([claim("c0", request("r0", CLASS_A, 1, MEM.format("1Gi"))), claim("c1", request("r1", CLASS_A, 1, MEM.format("2Gi")))],
                 [slice_("s1", device("d2", capacity={"memory": "2Gi"}), device("d1", capacity={"memory": "1Gi"}))],
                 [["r0=driver-a/pool-1/d1"], ["r1=driver-a/pool-1/d2"]], id="small-and-large-backtrack-claims"),
    pytest.param([claim("c0", request("r0", CLASS_A, 2))],
                 [slice_("s2", device("d3"), device("d4"), count=2), slice_("s1", device("d1"), count=2)],
                 [["r0=driver-a/pool-1/d1", "r0=driver-a/pool-1/d3"]], id="slices-sorted-by-name"),
    pytest.param([claim("c0", request("r0", CLASS_A, 1))],
                 [slice_("sb", device("d1"), driver=DRIVER_B, pool=POOL_1), slice_("sa2", device("d1"), pool=POOL_2),
                  slice_("sa1", device("d9"), pool=POOL_1)],
                 [["r0=driver-a/pool-1/d9"]], id="pools-sorted-by-driver-then-pool"),
    pytest.param([claim("c0", request("r0"))],
                 [slice_("s1", device("d1", bindingConditions=["ready"])), slice_("s2", device("d2"), pool=POOL_2)],
                 [["r0=driver-a/pool-2/d2"]], id="binding-condition-pools-last"),
])
def test_search_order(claims, slices, want):
    """The first full solution in pool/slice/device order wins; later requests force backtracking (§5.10, §6)."""
    classes = [klass(), klass(CLASS_B, DRIVER_B)]
    assert picks(allocate(claims, slices, classes)) == want


def test_devices_already_allocated_are_skipped():
    """Exclusively allocated devices are never candidates; admin-access results block nobody (§9)."""
    used = [allocated_claim("old", (DRIVER_A, POOL_1, "d1")),
            allocated_claim("adm", {"request": "r", "driver": DRIVER_A, "pool": POOL_1, "device": "d2", "adminAccess": True})]
    got = allocate([claim("c0", request("r0"))], TWO_DEV, allocated=used)
    assert picks(got) == [["r0=driver-a/pool-1/d2"]]


@pytest.mark.parametrize(("slices", "want"), [
    pytest.param([slice_("s1", device("d1"), generation=1), slice_("s0", device("d0"), generation=0)],
                 [["r0=driver-a/pool-1/d1"]], id="obsolete-generation-dropped"),
    pytest.param([slice_("s1", device("d1"), count=2)], None, id="incomplete-pool-skipped"),
    pytest.param([slice_("s1", device("d1"), count=2), slice_("s2", device("d2"), pool=POOL_2)],
                 [["r0=driver-a/pool-2/d2"]], id="incomplete-pool-other-pool-used"),
    pytest.param([slice_("s1", device("d1"), count=2, generation=1), slice_("s2", device("d2"), count=2, node=NODE_2, generation=1)],
                 [["r0=driver-a/pool-1/d1"]], id="multi-host-pool-complete-across-nodes"),
    pytest.param([slice_("s1", device("d1"), count=1, generation=1), slice_("s2", device("d2"), count=1, node=NODE_2, generation=2)],
                 [["r0=driver-a/pool-1/d1"]], id="complete-older-generation-not-hidden-by-other-node"),
    pytest.param([slice_("s1", device("d1"), count=2, generation=1), slice_("s2", device("d2"), count=2, node=NODE_2, generation=2)],
                 None, id="incomplete-older-generation-obsolete"),
])
def test_pools_and_generations(slices, want):
    """Highest generation per pool wins; incomplete pools give nothing; quirk §21.1 (§5.3-§5.6)."""
    assert picks(allocate([claim("c0", request("r0"))], slices)) == want


@pytest.mark.parametrize(("slice_spec", "node_", "want"), [
    pytest.param({"allNodes": True}, node(), [["r0=driver-a/pool-1/d1"]], id="all-nodes"),
    pytest.param({"nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}},
                 node(zone="a"), [["r0=driver-a/pool-1/d1"]], id="node-selector-match"),
    pytest.param({"nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}},
                 node(zone="b"), None, id="node-selector-no-match"),
    pytest.param({"nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [NODE_1]}]}]}},
                 node(), [["r0=driver-a/pool-1/d1"]], id="node-selector-match-fields"),
    pytest.param({}, node(), None, id="no-node-selection-ignored"),
])
def test_shared_slices(slice_spec, node_, want):
    """Slices without nodeName are relevant by allNodes or their node selector (§5.2)."""
    s = slice_("s1", device("d1"), node=None, **slice_spec)
    assert picks(allocate([claim("c0", request("r0"))], [s], node_=node_)) == want


def test_per_device_node_selection():
    """perDeviceNodeSelection: each device's own nodeName/allNodes/nodeSelector decides (§5.2, §8.5)."""
    s = slice_("s1", device("d1", nodeName=NODE_2), device("d2", nodeName=NODE_1), device("d3", allNodes=True),
               node=None, perDeviceNodeSelection=True)
    got = allocate([claim("c0", request("r0", CLASS_A, 2))], [s])
    assert picks(got) == [["r0=driver-a/pool-1/d2", "r0=driver-a/pool-1/d3"]]


@pytest.mark.parametrize(("slices", "raises", "want"), [
    pytest.param([slice_("s1", device("d1"), device("d1"))], NodeAllocationFailure, None, id="duplicate-device-no-solution"),
    pytest.param([slice_("s1", device("d1"), device("d1")), slice_("s2", device("d2"), pool=POOL_2)], None,
                 [["r0=driver-a/pool-2/d2"]], id="invalid-pool-ok-if-other-pool-fits"),
    pytest.param([slice_("s1", device("d1", consumesCounters=[{"counterSet": "x", "counters": {"c": {"value": "1"}}}]))],
                 NodeAllocationFailure, None, id="unknown-counter-set"),
])
def test_invalid_pools(slices, raises, want):
    """An invalid pool is a per-node failure only when nothing else fits (§5.9)."""
    if raises:
        with pytest.raises(raises, match="^invalid resource pools were encountered$"):
            allocate([claim("c0", request("r0"))], slices)
    else:
        assert picks(allocate([claim("c0", request("r0"))], slices)) == want


ALL = dict(mode="All", count=None)


@pytest.mark.parametrize(("claims", "slices", "allocated", "want"), [
    pytest.param([claim("c0", request("r0", CLASS_A, **ALL))], TWO_DEV, [],
                 [["r0=driver-a/pool-1/d1", "r0=driver-a/pool-1/d2"]], id="all-devices"),
    pytest.param([claim("c0", request("r0", CLASS_A, **ALL))], [slice_("s1")], [], None, id="all-empty-set"),
    pytest.param([claim("c0", request("r0", CLASS_A, **ALL))], TWO_DEV, [allocated_claim("x", (DRIVER_A, POOL_1, "d1"))],
                 None, id="all-some-allocated"),
    pytest.param([claim("c0", request("r0", CLASS_A, **ALL)), claim("c1", request("r1"))], TWO_DEV, [], None,
                 id="all-then-another-none-left"),
    pytest.param([claim("c0", request("r0", CLASS_A, mode="All", count=None, admin=True))], TWO_DEV,
                 [allocated_claim("x", (DRIVER_A, POOL_1, "d1"))],
                 [["r0=driver-a/pool-1/d1", "r0=driver-a/pool-1/d2"]], id="all-admin-access-in-use-ok"),
])
def test_all_mode(claims, slices, allocated, want):
    """allocationMode All takes every matching device or nothing (§15)."""
    assert picks(allocate(claims, slices, allocated=allocated)) == want


@pytest.mark.parametrize(("slices", "message"), [
    pytest.param([slice_("s1", device("d1"), count=2)],
                 "claim default/c0, request r0: asks for all devices, but resource pool driver-a/pool-1 is currently being updated",
                 id="all-devices-of-the-incomplete-pool"),
    pytest.param([slice_("s1", device("d1"), device("d1"))],
                 "claim default/c0, request r0: asks for all devices, but resource pool driver-a/pool-1 is currently invalid",
                 id="all-devices-of-an-invalid-pool"),
])
def test_all_mode_pool_errors(slices, message):
    """All fails hard on an incomplete or invalid pool (§5.7, quirk §21.2)."""
    with pytest.raises(AllocationError) as info:
        allocate([claim("c0", request("r0", CLASS_A, **ALL))], slices)
    assert str(info.value) == message
    assert not isinstance(info.value, NodeAllocationFailure)


def test_admin_access():
    """Admin access may take devices in use elsewhere, but not twice within its own claim (§16)."""
    used = [allocated_claim("x", (DRIVER_A, POOL_1, "d1"))]
    got = allocate([claim("c0", request("r0", CLASS_A, 1, admin=True), request("r1", CLASS_A, 1, admin=True))],
                   TWO_DEV, allocated=used)
    assert picks(got) == [["r0=driver-a/pool-1/d1", "r1=driver-a/pool-1/d2"]]
    assert all(r["adminAccess"] is True for r in got[0]["devices"]["results"])
    # Another claim of the same pod may use the same device with admin access.
    got = allocate([claim("c0", request("r0", admin=True)), claim("c1", request("r1", admin=True))], ONE_DEV)
    assert picks(got) == [["r0=driver-a/pool-1/d1"], ["r1=driver-a/pool-1/d1"]]
    # But a non-admin request of a later claim cannot take a device picked by an admin request.
    assert allocate([claim("c0", request("r0", admin=True)), claim("c1", request("r1"))], ONE_DEV) is None


@pytest.mark.parametrize(("claims", "want"), [
    pytest.param([claim("c0", first_available("r0", subrequest("big", CLASS_A, 3), subrequest("small", CLASS_A, 1)))],
                 [["r0/small=driver-a/pool-1/d1"]], id="first-unavailable-falls-back"),
    pytest.param([claim("c0", first_available("r0", subrequest("s1", CLASS_B), subrequest("s2", CLASS_A, 2)))],
                 [["r0/s2=driver-a/pool-1/d1", "r0/s2=driver-a/pool-1/d2"]], id="other-class-fallback"),
    pytest.param([claim("c0", first_available("r0", subrequest("a", CLASS_A, 2), subrequest("b", CLASS_A, 1)), request("r1"))],
                 [["r0/b=driver-a/pool-1/d1", "r1=driver-a/pool-1/d2"]], id="later-request-forces-next-subrequest"),
    pytest.param([claim("c0", first_available("r0", subrequest("a", CLASS_A, 3), subrequest("b", CLASS_A, 3)))],
                 None, id="none-available"),
])
def test_first_available(claims, want):
    """firstAvailable: subrequests in order, the first leading to a full solution wins (§14)."""
    assert picks(allocate(claims, TWO_DEV, [klass(), klass(CLASS_B, DRIVER_B)])) == want


TAINT = {"key": "k", "value": "v", "effect": "NoSchedule"}


@pytest.mark.parametrize(("taints", "tolerations", "want"), [
    pytest.param([TAINT], None, [["r0=driver-a/pool-1/d2"]], id="tainted-skipped"),
    pytest.param([dict(TAINT, effect="NoExecute")], None, [["r0=driver-a/pool-1/d2"]], id="no-execute-skipped"),
    pytest.param([dict(TAINT, effect="None")], None, [["r0=driver-a/pool-1/d1"]], id="effect-none-ignored"),
    pytest.param([TAINT], [{"key": "k", "operator": "Exists"}], [["r0=driver-a/pool-1/d1"]], id="tolerated"),
    pytest.param([TAINT], [{"key": "k", "operator": "Equal", "value": "other"}], [["r0=driver-a/pool-1/d2"]], id="wrong-value"),
])
def test_taints(taints, tolerations, want):
    """NoSchedule/NoExecute taints block devices unless tolerated; results copy the tolerations (§8.8, §18.1)."""
    slices = [slice_("s1", device("d1", taints=taints), device("d2"))]
    got = allocate([claim("c0", request("r0", tolerations=tolerations))], slices)
    assert picks(got) == want
    assert got[0]["devices"]["results"][0].get("tolerations") == tolerations


def test_taints_ignored_when_feature_off():
    """With DRADeviceTaints off, taints are not checked."""
    slices = [slice_("s1", device("d1", taints=[TAINT]))]
    got = allocate([claim("c0", request("r0"))], slices, features=Features(device_taints=False))
    assert picks(got) == [["r0=driver-a/pool-1/d1"]]


@pytest.mark.parametrize(("claims", "classes", "message"), [
    pytest.param([claim("c0", request("r0", "missing"))], None,
                 'claim default/c0, request r0: could not retrieve device class missing: deviceclass.resource.k8s.io "missing" not found',
                 id="unknown-class"),
    pytest.param([claim("c0", request("r0", CLASS_A, 33))], None,
                 "claim default/c0: number of requested devices 33 exceeds the claim limit of 32", id="claim-limit"),
    pytest.param([claim("c0", request("r0", CLASS_A, 20), request("r1", CLASS_A, 13))], None,
                 "claim default/c0: number of requested devices 33 exceeds the claim limit of 32", id="claim-limit-total"),
    pytest.param([claim("c0", {"name": "r0", "exactly": {"deviceClassName": CLASS_A, "allocationMode": "Some"}})], None,
                 "claim default/c0, request r0: unsupported count mode Some", id="unknown-allocation-mode"),
    pytest.param([claim("c0", {"name": "r0", "exactly": {"deviceClassName": CLASS_A, "count": 1, "selectors": [{}]}})], None,
                 "claim default/c0, request r0, selector #0: CEL expression empty (unsupported selector type?)", id="unknown-selector"),
    pytest.param([claim("c0", request("r0"), constraints=[{"requests": ["r0"]}])], None,
                 "claim default/c0, constraint #0: empty constraint (unsupported constraint type?)", id="unknown-constraint"),
    pytest.param([claim("c0", request("r0", CLASS_A, 1, 'device.attributes["driver-a"].model == "x"'))], None,
                 "claim default/c0: selector #0 on device driver-a/pool-1/d1: CEL runtime error: no such key: model"
                 ". consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields",
                 id="cel-runtime-error-claim"),
    pytest.param([claim("c0", request("r0"))], [klass(CLASS_A, DRIVER_A, 'device.attributes["driver-a"].model == "x"')],
                 "class class-a: selector #1 on device driver-a/pool-1/d1: CEL runtime error: no such key: model"
                 ". consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields",
                 id="cel-runtime-error-class"),
])
def test_fatal_errors(claims, classes, message):
    """Bad claim/class data raises AllocationError with Kubernetes' text (§20)."""
    with pytest.raises(AllocationError) as info:
        allocate(claims, ONE_DEV, classes)
    assert str(info.value) == message


def test_cel_compile_error():
    """A selector that does not compile is fatal, reported when a device is evaluated (§10.3)."""
    from drasim.cel import CelCompileError, compile_selector
    bad = "device.driver == == 1"
    with pytest.raises(CelCompileError) as compile_info:
        compile_selector(bad)
    with pytest.raises(AllocationError) as info:
        allocate([claim("c0", request("r0", CLASS_A, 1, bad))], ONE_DEV)
    assert str(info.value) == f"claim default/c0: selector #0: CEL compile error: {compile_info.value}"


def test_cel_errors_are_lazy():
    """A failing selector only matters if the search reaches the device (quirk §21.3, §8.2)."""
    bad = 'device.attributes["driver-a"].model == "x"'
    slices = [slice_("s1", device("d1", {"model": "x"}), device("d2"))]
    assert picks(allocate([claim("c0", request("r0", CLASS_A, 1, bad))], slices)) == [["r0=driver-a/pool-1/d1"]]
    # The device that would fail is in use: never evaluated.
    used = [allocated_claim("x", (DRIVER_A, POOL_1, "d2"))]
    slices = [slice_("s1", device("d2"))]
    assert allocate([claim("c0", request("r0", CLASS_A, 1, bad))], slices, allocated=used) is None


def test_class_selectors_first_and_stop_at_false():
    """Class selectors run before request selectors; a false stops evaluation (§8.4, §10.1)."""
    bad = 'device.attributes["driver-a"].model == "x"'
    # d1 is rejected by the class (driver-b) before the failing request selector is evaluated.
    got = allocate([claim("c0", request("r0", CLASS_B, 1, bad))], ONE_DEV, [klass(CLASS_B, DRIVER_B)])
    assert got is None


def test_missing_classes_helper():
    """missing_classes lists request and request/subrequest names for PreFilter (§14.3)."""
    from .builders import new_allocator
    a = new_allocator()
    c = claim("c0", request("r0", "nope"), first_available("r1", subrequest("s", CLASS_A), subrequest("t", "gone")))
    assert a.missing_classes([c]) == [("r0", "nope"), ("r1/t", "gone")]
