"""Device compatibility groups (KEP-5963): devices drawing from one counter set are allocated
together only while their declared groups intersect; no groups only goes with no groups."""
from __future__ import annotations

import pytest

from drasim.allocator import Features
from drasim.allocator import compatibility as cg

from .builders import allocate, allocated_claim, claim, counters, device, picks, request, slice_

ON = Features(compatibility_groups=True)
OFF = Features()


def grouped(name: str, *groups: str, counter_set: str = "gpu-0") -> dict:
    entry = {"counterSet": counter_set, "counters": {"mem": {"value": "1"}}}
    if groups:
        entry["compatibilityGroups"] = list(groups)
    return device(name, {"id": name}, consumesCounters=[entry])


def gpu_slices(*devices: dict, counter_sets=("gpu-0",)) -> list[dict]:
    """Counter sets and devices live in separate slices of one pool."""
    return [slice_("counters", count=2, sharedCounters=[counters(n, mem="8") for n in counter_sets]),
            slice_("devices", *devices, count=2)]


def test_rolling_intersection_rules():
    assert cg.admits(cg.NO_MEMBERS, None) and cg.admits(cg.NO_MEMBERS, frozenset({"a"}))
    empty = cg.add(cg.NO_MEMBERS, None)
    assert cg.admits(empty, None) and not cg.admits(empty, frozenset({"a"}))
    ab = cg.add(cg.NO_MEMBERS, frozenset({"a", "b"}))
    assert cg.admits(ab, frozenset({"b", "c"})) and not cg.admits(ab, frozenset({"c"})) and not cg.admits(ab, None)
    # the intersection narrows: {a,b} ∩ {b,c} = {b}, so {a} no longer fits although it met the first
    narrowed = cg.add(ab, frozenset({"b", "c"}))
    assert narrowed == frozenset({"b"}) and not cg.admits(narrowed, frozenset({"a"}))


@pytest.mark.parametrize("groups_1, groups_2, together", [
    (("mig",), ("mig",), True),
    (("mig",), ("vgpu",), False),
    (("mig", "shared"), ("vgpu", "shared"), True),
    ((), (), True),
    (("mig",), (), False),
])
def test_one_claim_two_devices(groups_1, groups_2, together):
    s = gpu_slices(grouped("part-1", *groups_1), grouped("part-2", *groups_2))
    result = allocate([claim("c", request("r", count=2))], s, features=ON)
    assert (result is not None) is together


def test_groups_are_ignored_when_devices_use_different_counter_sets():
    s = gpu_slices(grouped("a", "mig", counter_set="gpu-0"), grouped("b", "vgpu", counter_set="gpu-1"),
                   counter_sets=("gpu-0", "gpu-1"))
    assert picks(allocate([claim("c", request("r", count=2))], s, features=ON)) == [
        ["r=driver-a/pool-1/a", "r=driver-a/pool-1/b"]]


def test_search_backtracks_past_an_incompatible_device():
    s = gpu_slices(grouped("mig-1", "mig"), grouped("vgpu-1", "vgpu"), grouped("mig-2", "mig"))
    assert picks(allocate([claim("c", request("r", count=2))], s, features=ON)) == [
        ["r=driver-a/pool-1/mig-1", "r=driver-a/pool-1/mig-2"]]


def test_allocated_devices_seed_the_intersection_from_their_recorded_snapshot():
    s = gpu_slices(grouped("foo-0", "foo", "foobar"), grouped("bar-0", "bar", "foobar"), grouped("baz-0", "baz"))
    taken = allocated_claim("old", {"request": "r", "driver": "driver-a", "pool": "pool-1", "device": "foo-0",
                                    "compatibilityGroups": {"gpu-0": ["foo", "foobar"]}})
    want_bar = claim("c", request("r", "class-a", 1, 'device.attributes["driver-a"].id == "bar-0"'))
    want_baz = claim("d", request("r", "class-a", 1, 'device.attributes["driver-a"].id == "baz-0"'))
    assert allocate([want_bar], s, allocated=[taken], features=ON) is not None
    assert allocate([want_baz], s, allocated=[taken], features=ON) is None


def test_allocated_device_without_snapshot_counts_as_declaring_no_groups():
    s = gpu_slices(grouped("foo-0", "foo"), grouped("bar-0", "foo"))
    taken = allocated_claim("old", ("driver-a", "pool-1", "foo-0"))
    assert allocate([claim("c", request("r"))], s, allocated=[taken], features=ON) is None


def test_result_records_the_snapshot_per_counter_set():
    s = gpu_slices(grouped("part-1", "mig"))
    [allocation] = allocate([claim("c", request("r"))], s, features=ON)
    assert allocation["devices"]["results"][0]["compatibilityGroups"] == {"gpu-0": ["mig"]}
    s = gpu_slices(grouped("part-1"))
    [allocation] = allocate([claim("c", request("r"))], s, features=ON)
    assert "compatibilityGroups" not in allocation["devices"]["results"][0]


def test_gate_off_skips_devices_it_cannot_validate():
    s = gpu_slices(grouped("grouped", "mig"), grouped("plain"))
    assert picks(allocate([claim("c", request("r"))], s, features=OFF)) == [["r=driver-a/pool-1/plain"]]
    # a plain device joining a counter set on which an allocated device recorded groups is skipped too
    taken = allocated_claim("old", {"request": "r", "driver": "driver-a", "pool": "pool-1", "device": "grouped",
                                    "compatibilityGroups": {"gpu-0": ["mig"]}})
    assert allocate([claim("c", request("r"))], s, allocated=[taken], features=OFF) is None


def test_backtracking_returns_the_groups_of_a_dropped_device():
    # vgpu-1 is tried first and dropped when no partner fits; the mig pair must then start afresh
    s = gpu_slices(grouped("vgpu-1", "vgpu"), grouped("mig-1", "mig"), grouped("mig-2", "mig"))
    assert picks(allocate([claim("c", request("r", count=2))], s, features=ON)) == [
        ["r=driver-a/pool-1/mig-1", "r=driver-a/pool-1/mig-2"]]
