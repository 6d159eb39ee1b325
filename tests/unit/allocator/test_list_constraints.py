"""List-typed attributes in constraints (DRAListTypeAttributes, experimental allocator's attributeAsSet).

A scalar is a set of one, so for devices whose attributes all have a value the set semantics of
matchAttribute (non-empty running intersection) and distinctAttribute (pairwise disjoint) must pick
exactly what the scalar equality semantics pick: the gate changes nothing for scalar-only pools.
"""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from drasim.allocator import Features
from drasim.allocator.listconstraints import attribute_set
from drasim.errors import AllocationError

from .builders import DRIVER_A, allocate, claim, device, picks, request, slice_

ON = Features(list_type_attributes=True)
OFF = Features()
ATTR = f"{DRIVER_A}/a"


def test_attribute_set_reads_lists_before_scalars_and_keeps_kinds_apart():
    assert attribute_set({"strings": ["x", "y"]}) == ("string", frozenset({"x", "y"}))
    assert attribute_set({"int": 1}) == ("int", frozenset({1}))
    assert attribute_set({"bool": True}) != attribute_set({"int": 1})   # True == 1 in Python, not in Go
    assert attribute_set({"ints": [], "string": "s"}) == ("string", frozenset({"s"}))   # empty list: no list
    assert attribute_set({}) is None


scalar = st.one_of(st.integers(0, 2), st.sampled_from(["x", "y"]), st.booleans())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(scalar, min_size=0, max_size=6), st.sampled_from(["matchAttribute", "distinctAttribute"]),
       st.lists(st.integers(1, 2), min_size=1, max_size=3))
def test_scalar_attributes_allocate_the_same_with_the_gate_on(values, kind, counts):
    devices = [device(f"d{i}", {"a": v}) for i, v in enumerate(values)]
    c = claim("c", *[request(f"r{i}", count=n) for i, n in enumerate(counts)], constraints=[{kind: ATTR}])

    def run(features):
        try:
            return picks(allocate([c], [slice_("s", *devices)], features=features))
        except AllocationError as e:
            return str(e)

    assert run(ON) == run(OFF)
