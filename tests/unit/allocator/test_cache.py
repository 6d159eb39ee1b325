"""The long-lived allocator keeps per-node pools and selector results only while their inputs are unchanged."""
from __future__ import annotations

from drasim.allocator import AllocatedState

from .builders import (CLASS_A, NODE_1, NODE_2, claim, device, klass, new_allocator, node, picks, request, slice_)


def test_slice_update_and_removal_are_seen():
    """set_slice/remove_slice invalidate the node's cached pools."""
    a = new_allocator([slice_("s1", device("d1"))])
    c = [claim("c0", request("r0"))]
    assert picks(a.allocate(node(), c, AllocatedState())) == [["r0=driver-a/pool-1/d1"]]
    a.set_slice(slice_("s1", device("d9"), generation=1))
    assert picks(a.allocate(node(), c, AllocatedState())) == [["r0=driver-a/pool-1/d9"]]
    a.remove_slice("s1")
    assert a.allocate(node(), c, AllocatedState()) is None


def test_other_node_slice_of_same_pool_invalidates():
    """A slice on another node can complete (or obsolete) a multi-host pool seen by this node (§5.5)."""
    a = new_allocator([slice_("s1", device("d1"), count=2)])
    c = [claim("c0", request("r0"))]
    assert a.allocate(node(), c, AllocatedState()) is None  # incomplete
    a.set_slice(slice_("s2", device("d2"), count=2, node=NODE_2))
    assert picks(a.allocate(node(), c, AllocatedState())) == [["r0=driver-a/pool-1/d1"]]


def test_node_label_change_is_seen():
    """Cached pools are recomputed when the node's labels change."""
    selector = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}
    a = new_allocator([slice_("s1", device("d1"), node=None, nodeSelector=selector)])
    c = [claim("c0", request("r0"))]
    assert a.allocate(node(NODE_1, zone="b"), c, AllocatedState()) is None
    assert picks(a.allocate(node(NODE_1, zone="a"), c, AllocatedState())) == [["r0=driver-a/pool-1/d1"]]


def test_class_change_is_seen():
    """Prepared claims are dropped when a class changes."""
    a = new_allocator([slice_("s1", device("d1", {"ok": False}), device("d2", {"ok": True}))])
    c = [claim("c0", request("r0"))]
    assert picks(a.allocate(node(), c, AllocatedState())) == [["r0=driver-a/pool-1/d1"]]
    a.set_class(klass(CLASS_A, "driver-a", 'device.attributes["driver-a"].ok == true'))
    assert picks(a.allocate(node(), c, AllocatedState())) == [["r0=driver-a/pool-1/d2"]]


def test_selector_results_memoised_per_device():
    """Each (expression, device) is evaluated once while the slice is unchanged."""
    import drasim.cel as cel
    import drasim.cel.device as cel_device
    calls = []
    real, real_error = cel.device_input, cel_device.device_error

    def counting(driver, dev):
        calls.append(dev["name"])
        return real(driver, dev)

    def counting_error(dev):   # the driver-literal fast path needs only the device's error
        calls.append(dev["name"])
        return real_error(dev)
    cel.device_input = counting
    cel_device.device_error = counting_error
    try:
        a = new_allocator([slice_("s1", device("d1"), device("d2"))])
        state = AllocatedState()
        for _ in range(3):
            for n in (NODE_1,):
                result = a.allocate(node(n), [claim("c0", request("r0", CLASS_A, 2))], state)
        assert picks(result) == [["r0=driver-a/pool-1/d1", "r0=driver-a/pool-1/d2"]]
        assert calls == ["d1", "d2"]
    finally:
        cel.device_input = real
        cel_device.device_error = real_error
