"""The value a decode error quotes: the start of its JSON text, whatever its depth or size.

Found by tests/property/test_fuzz_snapshots.py: a Node whose allocatable cpu was a list 1,200
levels deep, applied through the library (ControlPlane.apply; no CLI raising the recursion
limit), let a RecursionError out of the decode error's wording (json.dumps of the whole value,
to quote 57 characters of it)."""
from __future__ import annotations

import json
import sys

from hypothesis import given, settings, strategies as st

from drasim.api.decode import decoding_error
from drasim.api import decodereport

values = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=5)),
                      lambda inner: st.one_of(st.lists(inner, max_size=4),
                                              st.dictionaries(st.text(max_size=4), inner, max_size=4)),
                      max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(values, st.sampled_from([1, 5, 61, 10**6]))
def test_the_prefix_is_the_json_texts_start(value, limit):
    full = json.dumps(value, sort_keys=True, default=str)
    prefix = decodereport._json_prefix(value, limit)
    assert full.startswith(prefix)
    assert len(prefix) >= limit or prefix == full


def _deep(levels: int) -> list:
    value: list = []
    for _ in range(levels):
        value = [value]
    return value


def test_a_deep_value_is_quoted_at_the_default_recursion_limit():
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
            "status": {"allocatable": {"cpu": _deep(sys.getrecursionlimit() + 200)}}}
    message = decoding_error("Node", node)
    assert message == ("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' "
                       "(status.allocatable.cpu: " + "[" * 57 + "...)")
