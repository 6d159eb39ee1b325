"""What a rejected or backtracked pick gives back (kubernetes#140431, in v1.37.0).

allocateDevice reserves counters (and compatibility groups), adds constraints, marks the device in use
and records a share's capacity before it may still reject the device; v1.37.0 undoes exactly what
was reserved on every rejection and on backtracking. Before the fix, a rejected candidate kept its
counters and a shareable device's undo kept the counters of its first share, so a pod that fits
stayed Pending. Admin access still reserves counters (kubernetes#140729, open in v1.37).
"""
from __future__ import annotations

from drasim.allocator import Features

from .builders import (CLASS_A, DRIVER_A, allocate, allocated_claim, claim, consumes, counters, device,
                       first_available, picks, request, slice_, subrequest)

TAINT = {"key": "example.com/broken", "value": "true", "effect": "NoSchedule"}


def pool(*devices: dict, mem: str = "8", counter_set: str = "gpu") -> list[dict]:
    """One pool: a counter set of `mem` in one slice, the devices in another."""
    return [slice_("s0", sharedCounters=[counters(counter_set, mem=mem)], count=2), slice_("s1", *devices, count=2)]


def part(name: str, mem: str = "8", numa: int | None = None, **extra) -> dict:
    """A partition drawing `mem` from the pool's counter set; attribute `name` (and `numa`)."""
    attrs = {"name": name} if numa is None else {"name": name, "numa": numa}
    return device(name, attrs, consumesCounters=[consumes("gpu", mem=mem)], **extra)


def shareable(name: str, mem: str = "8", **extra) -> dict:
    return part(name, mem, allowMultipleAllocations=True, **extra)


def named(name: str) -> str:
    return f'device.attributes["{DRIVER_A}"].name == "{name}"'


def same_numa(*requests: str) -> list[dict]:
    return [{"matchAttribute": f"{DRIVER_A}/numa", "requests": list(requests)}]


def test_taint_rejection_returns_counters():
    """The tainted first partition reserves all counters and is then rejected; the next one fits."""
    s = pool(part("tainted", taints=[TAINT]), part("healthy"))
    assert picks(allocate([claim("c0", request("r0"))], s)) == [["r0=driver-a/pool-1/healthy"]]


def test_constraint_rejection_returns_counters():
    """matchAttribute rejects the partition on the other NUMA node after its counters were
    reserved; the partition on the NIC's node must still get them."""
    s = pool(device("nic", {"name": "nic", "numa": 0}), part("gpu-a", numa=1), part("gpu-b", numa=0))
    c = claim("c0", request("nic", CLASS_A, 1, named("nic")),
              request("gpu", CLASS_A, 1, f'device.attributes["{DRIVER_A}"].name.startsWith("gpu")'),
              constraints=same_numa("nic", "gpu"))
    assert picks(allocate([c], s)) == [["nic=driver-a/pool-1/nic", "gpu=driver-a/pool-1/gpu-b"]]


def test_capacity_rejection_returns_constraint():
    """An `All` subrequest meets a shareable device whose capacity an earlier request took: the
    device is rejected after matchAttribute recorded its NUMA node. The fallback subrequest must
    not be compared against that stale value."""
    s = [slice_("s1", device("shared", {"name": "shared", "numa": 1}, capacity={"mem": "8"},
                             allowMultipleAllocations=True),
                device("plain", {"name": "plain", "numa": 0}))]
    c = claim("c0", request("whole", CLASS_A, 1, named("shared")),
              first_available("r1", subrequest("all", CLASS_A, None, named("shared"), mode="All", capacity={"mem": "1"}),
                              subrequest("one", CLASS_A, 1, named("plain"))),
              constraints=same_numa("r1"))
    assert picks(allocate([c], s)) == [["whole=driver-a/pool-1/shared", "r1/one=driver-a/pool-1/plain"]]


def test_backtracked_share_returns_counters():
    """r0 first takes a share of the shareable partition (all its capacity and all counters); r1
    needs that device, so r0 backtracks to the plain device and r1 must be able to pay the counters."""
    s = pool(shareable("shared", capacity={"mem": {"value": "8"}}), device("plain", {"name": "plain"}))
    got = allocate([claim("c0", request("r0"), request("r1", CLASS_A, 1, named("shared")))], s)
    assert picks(got) == [["r0=driver-a/pool-1/plain", "r1=driver-a/pool-1/shared"]]
    assert got[0]["devices"]["results"][1]["consumedCapacity"] == {"mem": "8"}


def test_backtracked_share_without_capacity_returns_counters():
    """A shareable partition without capacities: undoing its only share releases its counters (and
    its in-use mark), so the other partition of the pool fits on the next try."""
    s = pool(shareable("shared", numa=1), part("gpu", numa=0), device("nic", {"name": "nic", "numa": 0}))
    c = claim("c0", request("r0", CLASS_A, 1, f'device.attributes["{DRIVER_A}"].name != "nic"'),
              request("nic", CLASS_A, 1, named("nic")), constraints=same_numa("r0", "nic"))
    assert picks(allocate([c], s)) == [["r0=driver-a/pool-1/gpu", "nic=driver-a/pool-1/nic"]]


def test_live_share_keeps_the_device_marked():
    """Undoing one share while another share of the same device is still picked keeps the device
    marked as in use, so a later share still skips the counter check (the counters were paid once)."""
    s = pool(shareable("shared"), device("plain", {"name": "plain"}))
    c = claim("c0", request("r0", CLASS_A, 1, named("shared")), request("r1"), request("r2", CLASS_A, 1, named("shared")),
              constraints=[{"distinctAttribute": f"{DRIVER_A}/name", "requests": ["r1", "r2"]}])
    assert picks(allocate([c], s)) == [["r0=driver-a/pool-1/shared", "r1=driver-a/pool-1/plain",
                                        "r2=driver-a/pool-1/shared"]]


def test_admin_access_rollback_and_counters():
    """An admin-access pick is rolled back like any other (the tainted partition's counters come
    back), but it still pays the counters of the device it shares (kubernetes#140729 is open in
    v1.37): a partition whose counters its owner already uses cannot be given to an admin claim."""
    s = pool(part("tainted", taints=[TAINT]), part("whole"))
    admin = claim("admin", request("r0", CLASS_A, 1, admin=True))
    assert picks(allocate([admin], s)) == [["r0=driver-a/pool-1/whole"]]
    owner = allocated_claim("owner", (DRIVER_A, "pool-1", "whole"))
    assert allocate([claim("admin", request("r0", CLASS_A, 1, named("whole"), admin=True))], s, allocated=[owner]) is None
    assert picks(allocate([claim("admin", request("r0", CLASS_A, 1, named("whole"), admin=True))],
                          pool(part("tainted", taints=[TAINT]), part("whole"), mem="16"), allocated=[owner])) \
        == [["r0=driver-a/pool-1/whole"]]


def test_compatibility_group_rejection_returns_counters():
    """With DRADeviceCompatibilityGroups on, a partition rejected for its groups gives back the
    counters it reserved just before (every rejection after the counter reservation rolls back)."""
    def grouped(name: str, group: str) -> dict:
        return device(name, {"name": name}, consumesCounters=[
            {"counterSet": "gpu", "counters": {"mem": {"value": "4"}}, "compatibilityGroups": [group]}])
    s = pool(grouped("mig-1", "mig"), grouped("vgpu", "vgpu"), grouped("mig-2", "mig"))
    got = allocate([claim("c0", request("r0", CLASS_A, 2))], s, features=Features(compatibility_groups=True))
    assert picks(got) == [["r0=driver-a/pool-1/mig-1", "r0=driver-a/pool-1/mig-2"]]
