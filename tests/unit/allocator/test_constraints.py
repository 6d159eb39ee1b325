"""matchAttribute and distinctAttribute constraints (spec §13), including the per-request-name quirk."""
from __future__ import annotations

import pytest

from drasim.errors import AllocationError

from .builders import CLASS_A, DRIVER_A, allocate, claim, device, first_available, picks, request, slice_, subrequest

NUMA = "driver-a/numa"


def match(attr: str = NUMA, *requests: str) -> dict:
    return {"matchAttribute": attr, "requests": list(requests)}


def distinct(attr: str = NUMA, *requests: str) -> dict:
    return {"distinctAttribute": attr, "requests": list(requests)}


NUMA_SLICE = [slice_("s1", device("d0", {"numa": 0}), device("d1", {"numa": 1}), device("d2", {"numa": 1}))]


@pytest.mark.parametrize(("claims", "slices", "want"), [
    pytest.param([claim("c0", request("r0", CLASS_A, 2), constraints=[match()])], NUMA_SLICE,
                 [["r0=driver-a/pool-1/d1", "r0=driver-a/pool-1/d2"]], id="numa-backtracking"),
    pytest.param([claim("c0", request("r0"), request("r1"), constraints=[match(NUMA, "r0", "r1")])], NUMA_SLICE,
                 [["r0=driver-a/pool-1/d1", "r1=driver-a/pool-1/d2"]], id="numa-across-requests"),
    pytest.param([claim("c0", request("r0"), request("r1"), constraints=[match(NUMA, "r1")])], NUMA_SLICE,
                 [["r0=driver-a/pool-1/d0", "r1=driver-a/pool-1/d1"]], id="constraint-for-one-request-only"),
    pytest.param([claim("c0", request("r0", CLASS_A, 2), constraints=[match("driver-a/missing")])], NUMA_SLICE, None,
                 id="attribute-missing"),
    pytest.param([claim("c0", request("r0", CLASS_A, 2), constraints=[match("other.example.com/numa")])], NUMA_SLICE, None,
                 id="other-domain-needs-full-name"),
    pytest.param([claim("c0", request("r0", CLASS_A, 2), constraints=[match("other.example.com/numa")])],
                 [slice_("s1", device("d0", {"other.example.com/numa": 3}), device("d1", {"other.example.com/numa": 3}))],
                 [["r0=driver-a/pool-1/d0", "r0=driver-a/pool-1/d1"]], id="fully-qualified-attribute"),
    pytest.param([claim("c0", request("r0", CLASS_A, 2), constraints=[match()])],
                 [slice_("s1", device("d0", {"numa": 1}), device("d1", {"numa": "1"}))], None, id="int-vs-string-differ"),
    pytest.param([claim("c0", request("r0", CLASS_A, 2), constraints=[match("driver-a/v")])],
                 [slice_("s1", device("d0", {"v": {"version": "1.0.0"}}), device("d1", {"v": {"version": "1.0.0"}}))],
                 [["r0=driver-a/pool-1/d0", "r0=driver-a/pool-1/d1"]], id="versions-equal"),
])
def test_match_attribute(claims, slices, want):
    """All covered devices share the attribute value; the search backtracks to find them (§13.1-§13.2)."""
    assert picks(allocate(claims, slices)) == want


def test_match_attribute_subrequest_names():
    """`req` covers every subrequest of req; `req/sub` only that subrequest (§13.1)."""
    c = claim("c0", first_available("r0", subrequest("a", CLASS_A, 2)), constraints=[match(NUMA, "r0/a")])
    assert picks(allocate([c], NUMA_SLICE)) == [["r0/a=driver-a/pool-1/d1", "r0/a=driver-a/pool-1/d2"]]
    c = claim("c0", first_available("r0", subrequest("a", CLASS_A, 2)), constraints=[match(NUMA, "r0/b")])
    assert picks(allocate([c], NUMA_SLICE)) == [["r0/a=driver-a/pool-1/d0", "r0/a=driver-a/pool-1/d1"]]


def test_distinct_attribute_across_requests():
    """distinctAttribute: covered devices of different requests differ (§13.3)."""
    c = claim("c0", request("r0"), request("r1"), constraints=[distinct()])
    assert picks(allocate([c], NUMA_SLICE)) == [["r0=driver-a/pool-1/d0", "r1=driver-a/pool-1/d1"]]


def test_distinct_attribute_per_request_name_quirk():
    """Values are recorded per request name: with count 3 only the latest device is compared (quirk §21.4)."""
    slices = [slice_("s1", device("d0", {"numa": 0}), device("d1", {"numa": 1}), device("d2", {"numa": 0}))]
    got = allocate([claim("c0", request("r0", CLASS_A, 3), constraints=[distinct()])], slices)
    # d2 repeats d0's value but is only compared with d1.
    assert picks(got) == [["r0=driver-a/pool-1/d0", "r0=driver-a/pool-1/d1", "r0=driver-a/pool-1/d2"]]


def test_constraint_in_all_mode_is_fatal():
    """A constraint rejecting a device of an All request is an error (§13.5)."""
    with pytest.raises(AllocationError, match=r"^claim default/c0, request r0: cannot add device driver-a/pool-1/d1 "
                                              r"because a claim constraint would not be satisfied$"):
        allocate([claim("c0", request("r0", CLASS_A, None, mode="All"), constraints=[match()])], NUMA_SLICE)


def test_constraints_do_not_cross_claims():
    """Each claim has its own constraints (§13)."""
    claims = [claim("c0", request("r0"), constraints=[match()]), claim("c1", request("r1"), constraints=[match()])]
    assert picks(allocate(claims, NUMA_SLICE)) == [["r0=driver-a/pool-1/d0"], ["r1=driver-a/pool-1/d1"]]


def test_driver_domain_short_name():
    """`<driver>/id` finds the bare attribute `id` of that driver's device (§13.4)."""
    slices = [slice_("s1", device("d0", {f"{DRIVER_A}/numa": 5}), device("d1", {"numa": 5}))]
    got = allocate([claim("c0", request("r0", CLASS_A, 2), constraints=[match()])], slices)
    assert picks(got) == [["r0=driver-a/pool-1/d0", "r0=driver-a/pool-1/d1"]]
