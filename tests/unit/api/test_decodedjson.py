"""drasim/api/decodedjson.py: orjson's texts and copies of decoded values equal the slow ways.

The content keys (validation memo, filter-cache signatures, prepared claims) must be equal
exactly when repr's are, and the copies admission takes must equal the originals and share
nothing with them — for every value strict decoding lets through, which holds no NaN or
infinity anywhere (the last test holds decoding to that).
"""
import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api.decodedjson import copy_decoded, json_key
from drasim.store import clone

CLAIM = {
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
    "metadata": {"name": "c-1", "namespace": "fleet"},
    "spec": {"devices": {
        "requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}],
        "config": [{"requests": ["gpu"], "opaque": {"driver": "gpu.example.com", "parameters": {"a": 1}}}]}},
}


# -- keys ---------------------------------------------------------------------------------------

# what strict decoding lets through: JSON values, so no NaN or infinity (see test_decode_refuses_non_finite_floats)
_json_scalars = (st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False, allow_infinity=False)
                 | st.sampled_from([0, 1, -1, 0.0, -0.0, 1.0, True, False, "", "1", "null", "true", "NaN"])
                 | st.text(max_size=6))
_json_values = st.recursive(_json_scalars, lambda inner: st.lists(inner, max_size=3)
                            | st.dictionaries(st.text(max_size=3) | st.sampled_from(["", "1", "a"]), inner, max_size=3),
                            max_leaves=12)


@settings(max_examples=1000, deadline=None)
@given(st.lists(_json_values, min_size=1, max_size=3), st.lists(_json_values, min_size=1, max_size=3))
def test_key_texts_are_equal_only_for_equal_reprs(a, b):
    a, b = tuple(a), tuple(b)
    assert (json_key(a) == json_key(b)) == (repr(a) == repr(b))


@pytest.mark.parametrize("a, b", [((1,), (1.0,)), ((1,), (True,)), ((0,), (False,)), ((None,), ("null",)),
                                  (({"a": 1, "b": 2},), ({"b": 2, "a": 1},)),
                                  ((2**64,), (2**64 + 1,)), (("1",), (1,)), ((-0.0,), (0.0,))])
def test_key_texts_of_look_alikes_differ(a, b):
    assert json_key(a) != json_key(b)


_finite = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=3)
_raw = st.recursive(_finite, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                    max_leaves=10)


def _with_non_finite(value, where: int, bad: float):
    """value with one leaf (the where-th, cyclically; an empty one: itself) replaced by bad."""
    leaves = []

    def walk(v, set_):
        if isinstance(v, dict):
            for k in v:
                walk(v[k], lambda x, k=k, v=v: v.__setitem__(k, x))
        elif isinstance(v, list):
            for i in range(len(v)):
                walk(v[i], lambda x, i=i, v=v: v.__setitem__(i, x))
        else:
            leaves.append(set_)
    holder = [value]
    walk(value, lambda x: holder.__setitem__(0, x))
    (leaves[where % len(leaves)] if leaves else lambda x: holder.__setitem__(0, x))(bad)
    return holder[0]


@settings(max_examples=300, deadline=None)
@given(_raw, st.integers(0, 50), st.sampled_from([float("nan"), float("inf"), float("-inf")]))
def test_decode_refuses_non_finite_floats_in_free_form_fields(parameters, where, bad):
    """The memo's premise: decoded objects hold no NaN or infinity, not even in free-form JSON
    (opaque driver parameters), which JSON cannot write: kubectl fails before sending."""
    from drasim.api.decode import DecodeError, decode
    claim = copy.deepcopy(CLAIM)
    opaque = claim["spec"]["devices"]["config"][0]["opaque"]
    opaque["parameters"] = copy.deepcopy(parameters)
    decode("ResourceClaim", claim)   # finite: accepted
    opaque["parameters"] = _with_non_finite(copy.deepcopy(parameters), where, bad)
    with pytest.raises(DecodeError, match="json: unsupported value: (NaN|[+-]Inf)"):
        decode("ResourceClaim", claim)


# -- copies -------------------------------------------------------------------------------------

_decoded_scalars = (st.none() | st.booleans() | st.integers(-2**70, 2**70)
                    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=4)
                    | st.sampled_from(["\ud800", "é", "", -0.0]))
_decoded = st.recursive(_decoded_scalars, lambda inner: st.lists(inner, max_size=3)
                        | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=15)


def _containers(value, out):
    if isinstance(value, (dict, list)):
        out.append(value)
        for v in value.values() if isinstance(value, dict) else value:
            _containers(v, out)
    return out


@settings(max_examples=800, deadline=None)
@given(_decoded)
def test_copies_equal_the_original_and_share_nothing(value):
    copied = copy_decoded(value)
    assert repr(copied) == repr(value) == repr(clone(value))   # types, key order, -0.0 included
    originals = {id(c) for c in _containers(value, [])}
    assert not any(id(c) in originals for c in _containers(copied, []))


def test_deep_nesting_is_copied_too():
    deep = leaf = {}
    for _ in range(3000):
        leaf["x"] = {}
        leaf = leaf["x"]
    copied = copy_decoded(deep)   # past orjson's depth limit: the explicit-stack copy
    depth = 0
    while deep:
        assert copied is not deep and list(copied) == ["x"]
        deep, copied, depth = deep["x"], copied["x"], depth + 1
    assert copied == {} and depth == 3000
