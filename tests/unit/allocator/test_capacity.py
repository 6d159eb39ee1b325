"""Consumable capacity (spec §12) and partitionable devices with shared counters (spec §11)."""
from __future__ import annotations

import pytest

from drasim.allocator import AllocatedState

from .builders import (CLASS_A, CLASS_B, DRIVER_A, DRIVER_B, allocate, allocated_claim, claim, consumes, counters,
                       device, klass, new_allocator, node, picks, request, slice_)

RANGE = {"value": "8", "requestPolicy": {"default": "2", "validRange": {"min": "2", "step": "2", "max": "4"}}}
VALUES = {"value": "8", "requestPolicy": {"default": "1", "validValues": ["1", "4", "8"]}}


def shared(name: str = "d1", **capacity) -> dict:
    return device(name, capacity=capacity or None, allowMultipleAllocations=True)


def results(got):
    return [r for a in got for r in a["devices"]["results"]] if got else got


@pytest.mark.parametrize(("cap", "requested", "consumed"), [
    pytest.param(RANGE, "3", "4", id="range-rounds-up-to-step"),
    pytest.param(RANGE, "1", "2", id="range-below-min-becomes-min"),
    pytest.param(RANGE, None, "2", id="range-default"),
    pytest.param(RANGE, "5", None, id="range-above-max-rejected"),
    pytest.param(VALUES, "3", "4", id="valid-values-round-up"),
    pytest.param(VALUES, "9", None, id="valid-values-larger-than-all-rejected"),
    pytest.param({"value": "8"}, "3", "3", id="no-policy-request-as-is"),
    pytest.param({"value": "8"}, None, "8", id="no-policy-no-request-takes-all"),
    pytest.param({"value": "8"}, "9", None, id="over-capacity"),
])
def test_consumed_capacity_rounding(cap, requested, consumed):
    """A pick consumes the request rounded by the requestPolicy, or the default / whole value (§12.2-§12.3, §12.8)."""
    req = request("r0", capacity={"memory": requested} if requested else None)
    got = allocate([claim("c0", req)], [slice_("s1", shared(memory=cap))])
    if consumed is None:
        assert got is None
    else:
        (r,) = results(got)
        assert r["consumedCapacity"] == {"memory": consumed}
        assert r["shareID"] == "share-1"


def test_shareable_without_capacity_shares_without_limit():
    """A shareable device with no capacities can be picked again and again; no consumedCapacity (§12.8)."""
    claims = [claim(f"c{i}", request("r0")) for i in range(3)]
    got = allocate(claims, [slice_("s1", shared())])
    assert picks(got) == [["r0=driver-a/pool-1/d1"]] * 3
    assert [r.get("shareID") for r in results(got)] == ["share-1", "share-2", "share-3"]
    assert all("consumedCapacity" not in r for r in results(got))


def test_whole_capacity_blocks_second_share():
    """No policy and no request: the first share consumes everything (§12.8)."""
    got = allocate([claim("c0", request("r0")), claim("c1", request("r1"))], [slice_("s1", shared(memory={"value": "8"}))])
    assert got is None


def test_capacity_already_shared_counts():
    """Shares recorded in the allocated state reduce what is left (§9.1, §12.3)."""
    old = allocated_claim("old", {"request": "r", "driver": DRIVER_A, "pool": "pool-1", "device": "d1",
                                  "shareID": "x", "consumedCapacity": {"memory": "6"}})
    s = [slice_("s1", shared("d1", memory={"value": "8"}), shared("d2", memory={"value": "8"}))]
    got = allocate([claim("c0", request("r0", capacity={"memory": "4"}))], s, allocated=[old])
    assert picks(got) == [["r0=driver-a/pool-1/d2"]]
    got = allocate([claim("c0", request("r0", capacity={"memory": "2"}))], s, allocated=[old])
    assert picks(got) == [["r0=driver-a/pool-1/d1"]]


@pytest.mark.parametrize(("capacity", "want"), [
    pytest.param({"memory": "10"}, [["r0=driver-a/pool-1/d2"]], id="request-over-capacity-skips-device"),
    pytest.param({"cores": "1"}, None, id="unknown-capacity-name-skips-device"),
    pytest.param({"memory": "8"}, [["r0=driver-a/pool-1/d1"]], id="fits"),
])
def test_non_shareable_devices_filtered_by_capacity(capacity, want):
    """capacity.requests also filter devices that are not shareable, without recording anything (quirk §21.5)."""
    s = [slice_("s1", device("d1", capacity={"memory": "8"}), device("d2", capacity={"memory": "16"}))]
    got = allocate([claim("c0", request("r0", capacity=capacity))], s)
    assert picks(got) == want
    if got:
        assert "consumedCapacity" not in results(got)[0] and "shareID" not in results(got)[0]


def test_shares_within_one_pod_add_up():
    """Shares picked earlier in the same search count (§12.3)."""
    s = [slice_("s1", shared("d1", memory={"value": "8"}), shared("d2", memory={"value": "8"}))]
    got = allocate([claim("c0", request("r0", capacity={"memory": "6"}), request("r1", capacity={"memory": "4"}))], s)
    assert picks(got) == [["r0=driver-a/pool-1/d1", "r1=driver-a/pool-1/d2"]]


# --- partitionable devices ---------------------------------------------------------------------

def partitioned(*devices: dict, sets=None, **kw) -> dict:
    return slice_("s1", *devices, sharedCounters=sets or [counters("gpu", mem="8")], count=2, **kw)


def counter_slices(*devices: dict, total: str = "8") -> list[dict]:
    return [slice_("s0", sharedCounters=[counters("gpu", mem=total)], count=2), slice_("s1", *devices, count=2)]


def part(name: str, mem: str) -> dict:
    return device(name, consumesCounters=[consumes("gpu", mem=mem)])


@pytest.mark.parametrize(("claims", "allocated", "want"), [
    pytest.param([claim("c0", request("r0", CLASS_A, 2))], [],
                 [["r0=driver-a/pool-1/half-0", "r0=driver-a/pool-1/half-1"]], id="two-halves-fit"),
    pytest.param([claim("c0", request("r0")), claim("c1", request("r1", CLASS_A, 1, 'device.attributes["driver-a"].whole == true'))],
                 [], None, id="half-then-whole-does-not-fit"),
    pytest.param([claim("c0", request("r0", CLASS_A, 1, 'device.attributes["driver-a"].whole == true'))],
                 [allocated_claim("x", (DRIVER_A, "pool-1", "half-0"))], None, id="allocated-half-blocks-whole"),
    pytest.param([claim("c0", request("r0", CLASS_A, 3))], [], None, id="counters-exhausted"),
])
def test_shared_counters(claims, allocated, want):
    """Devices consuming counters fit only while every counter of the pool stays available (§11)."""
    devs = [device("half-0", {"whole": False}, consumesCounters=[consumes("gpu", mem="4")]),
            device("half-1", {"whole": False}, consumesCounters=[consumes("gpu", mem="4")]),
            device("whole", {"whole": True}, consumesCounters=[consumes("gpu", mem="8")])]
    assert picks(allocate(claims, counter_slices(*devs), allocated=allocated)) == want


def test_over_committed_counter_blocks_every_consumer():
    """An already over-committed counter blocks all counter-consuming devices of the pool (quirk §21.6)."""
    sets = [counters("gpu", mem="8"), counters("nic", ports="1")]
    s = [slice_("s0", sharedCounters=sets, count=2),
         slice_("s1", part("a", "4"), part("b", "4"), device("p0", consumesCounters=[consumes("nic", ports="1")]),
                device("p1", consumesCounters=[consumes("nic", ports="1")]), device("plain"), count=2)]
    used = [allocated_claim("x", (DRIVER_A, "pool-1", "p0")), allocated_claim("y", (DRIVER_A, "pool-1", "p1"))]
    got = allocate([claim("c0", request("r0"))], s, allocated=used)
    assert picks(got) == [["r0=driver-a/pool-1/plain"]]


def test_counters_keyed_by_driver_and_pool():
    """Two drivers whose pools have the same name keep their own counters: v1.37.0 keys them by
    PoolID (kubernetes#140435; spec §11.2 describes the older pool-name keying)."""
    def pool_slices(driver: str) -> list[dict]:
        return [slice_(f"{driver}-c", sharedCounters=[counters("cs", c="1")], count=2, driver=driver, pool="same"),
                slice_(f"{driver}-d", device("x", consumesCounters=[consumes("cs", c="1")]), count=2, driver=driver, pool="same")]
    classes = [klass(CLASS_A, DRIVER_A), klass(CLASS_B, DRIVER_B)]
    got = allocate([claim("c0", request("r0", CLASS_A), request("r1", CLASS_B))],
                   pool_slices(DRIVER_A) + pool_slices(DRIVER_B), classes)
    assert picks(got) == [["r0=driver-a/same/x", "r1=driver-b/same/x"]]   # each pool fits its own device
    assert picks(allocate([claim("c0", request("r1", CLASS_B))], pool_slices(DRIVER_A) + pool_slices(DRIVER_B), classes)) \
        == [["r1=driver-b/same/x"]]


def test_counter_set_in_non_node_slice():
    """A pool's counter sets may come from a slice for another node or none (§11.1)."""
    s = [slice_("s0", sharedCounters=[counters("gpu", mem="4")], count=2, node=None, allNodes=True),
         slice_("s1", part("a", "4"), part("b", "4"), count=2)]
    assert picks(allocate([claim("c0", request("r0", CLASS_A, 2))], s)) is None
    assert picks(allocate([claim("c0", request("r0"))], s)) == [["r0=driver-a/pool-1/a"]]


def test_counter_cache_follows_allocated_state():
    """Available counters are recomputed when the allocated state changes."""
    a = new_allocator(counter_slices(part("a", "4"), part("b", "4"), part("c", "4")))
    state = AllocatedState()
    c = claim("c0", request("r0"))
    first = a.allocate(node(), [c], state)
    state.add(first[0])
    second = a.allocate(node(), [c], state)
    state.add(second[0])
    assert picks(first + second) == [["r0=driver-a/pool-1/a"], ["r0=driver-a/pool-1/b"]]
    assert a.allocate(node(), [c], state) is None
    state.remove(first[0])
    assert picks(a.allocate(node(), [c], state)) == [["r0=driver-a/pool-1/a"]]


@pytest.mark.parametrize(("count", "fits"), [(3, True), (4, False)])
def test_milli_unit_counters_add_up_exactly(count, fits):
    """Counter values are exact quantities: three 500m partitions fit into 1500m, four do not;
    whole and milli values mix (the 1 of `cores` is whole, `mem` is not)."""
    s = [slice_("s0", sharedCounters=[counters("gpu", mem="1500m", cores="4")], count=2),
         slice_("s1", *[device(f"p{i}", consumesCounters=[consumes("gpu", mem="500m", cores="1")]) for i in range(4)],
                count=2)]
    got = allocate([claim("c0", request("r0", CLASS_A, count))], s)
    assert (got is not None) is fits
