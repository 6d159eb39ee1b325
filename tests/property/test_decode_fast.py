"""decodefast's msgspec check never says yes where decode's Python check says no.

decode.decode asks msgspec first and takes its yes as final; a yes the Python check would not
give would let through an object the API server refuses. So, over objects generated from the
kinds' own compiled Go types — valid values, nulls, wrong types, unknown fields, integers at
and past their bounds, non-finite floats, odd times and quantities, deep free-form JSON — a
yes from msgspec must be a yes from the Python check. And the shortcut is taken: every bundled
example object, and most generated valid ones, get msgspec's yes.
"""
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from drasim.api import decode, decode_schema, decodefast, gojson
from drasim.api.loader import load_file
from drasim.errors import ManifestError

KINDS = sorted(k for k in decode_schema.KINDS if decodefast.checker(k) is not None)
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

_text = st.text(alphabet=st.sampled_from("abz09-._/:\n Zé"), max_size=6)
_odd = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(), _text, st.just([]), st.just({}))

# Times: every field of RFC 3339 drawn from a little past its range, in both cases, with
# fractions and offsets; plus February 29 of leap and common years.
_two = st.integers(0, 39).map(lambda n: f"{n:02d}")
_times = st.one_of(
    st.builds(lambda y, mo, d, t, h, mi, s, frac, off: f"{y}-{mo}-{d}{t}{h}:{mi}:{s}{frac}{off}",
              st.sampled_from(["2026", "2024", "1900", "2000", "0000", "20261"]), _two, _two, st.sampled_from("Tt "),
              _two, st.integers(0, 69).map(lambda n: f"{n:02d}"), st.integers(0, 69).map(lambda n: f"{n:02d}"),
              st.sampled_from(["", ".5", ".123456789", ".", ".x"]),
              st.sampled_from(["Z", "z", "+01:00", "-23:59", "+99:99", "", "+0100", "Z\n"])),
    st.sampled_from(["2024-02-29T00:00:00Z", "2026-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2000-02-29T00:00:00Z",
                     "2026-04-31T00:00:00Z", "2026-12-31T23:59:59Z"]))
# Quantities: the grammar's pieces in any order, and numbers.
_quantities = st.one_of(
    st.lists(st.sampled_from(["1", "0", "9" * 19, ".", "5", "+", "-", "e", "E", "3", "Ki", "Mi", "Gi", "m", "u", "n",
                              "k", "K", "M", "Ei", "P", " ", "\n", "i"]), max_size=6).map("".join),
    st.integers(-2 * 10**18, 2 * 10**18), st.floats(), st.booleans(), st.none())
_raw = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), _text),
                    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_text, inner, max_size=3)),
                    max_leaves=30)


def _ints(lo: int, hi: int):
    return st.one_of(st.sampled_from([lo - 1, lo, hi, hi + 1, 0, 2**63 - 1, 2**63]), st.integers(lo, hi),
                     st.sampled_from([2.0, 2.5, True]))


def _mostly(shaped, other):
    """Three draws in four of the right shape, so that a bad leaf is often the only thing wrong."""
    return st.one_of(shaped, shaped, shaped, other)


def values(t: decode.GoType, depth: int = 0):
    """Values for a compiled Go type: mostly well-typed, sometimes not."""
    k = t.kind
    if k == decode.STRUCT:
        if depth > 5:
            return st.one_of(st.just({}), st.none())
        fields = list(t.fields)
        chosen = st.lists(st.sampled_from(fields), max_size=4, unique=True) if fields else st.just([])

        def build(draw):
            out = {}
            for name in draw(chosen):
                out[name] = draw(values(t.fields[name], depth + 1))
            if draw(st.integers(0, 9)) == 0:
                out[draw(st.sampled_from(["unknownField", "Name", ""]))] = 1
            return out
        struct = st.composite(lambda draw: build(draw))()
        return _mostly(struct, st.one_of(st.none(), _odd)) if depth else struct
    if k == decode.SLICE:
        return _mostly(st.lists(values(t.elem, depth + 1), min_size=1, max_size=3), _odd)
    if k == decode.MAP:
        return _mostly(st.dictionaries(_text, values(t.elem, depth + 1), min_size=1, max_size=3), _odd)
    if k == decode.INT:
        return st.one_of(_ints(*t.bounds), _odd)
    if k == decode.FLOAT:
        return st.one_of(st.floats(), st.integers(), _odd)
    if k == decode.QUANTITY:
        return _quantities
    if k == decode.TIME:
        return st.one_of(_times, _odd)
    if k == decode.INTORSTRING:
        return st.one_of(_ints(gojson.INT32_MIN, gojson.INT32_MAX), _text, _odd)
    if k == decode.RAW:
        return _raw
    return _odd


@st.composite
def objects(draw):
    kind = draw(st.sampled_from(KINDS))
    return kind, draw(values(decode.kind_type(kind)))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(objects())
def test_a_yes_from_msgspec_is_a_yes_from_the_python_check(case):
    kind, obj = case
    if decodefast.checker(kind)(obj):
        assert decode.kind_type(kind).ok(obj)


leaf_cases = [(decode.TIME, _times), (decode.QUANTITY, _quantities), (decode.RAW, _raw),
              (decode.INTORSTRING, st.one_of(_ints(gojson.INT32_MIN, gojson.INT32_MAX), _odd)),
              (decode.FLOAT, st.one_of(st.floats(), st.integers(), _odd)), (decode.STRING, _odd), (decode.BOOL, _odd)]


@pytest.mark.parametrize("leaf,strategy", leaf_cases, ids=[str(k) for k, _ in leaf_cases])
@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_leaves_msgspec_accepts_are_leaves_python_accepts(leaf, strategy, data):
    value = data.draw(strategy)
    try:
        msgspec.convert(value, decodefast._LEAVES[leaf])
    except msgspec.ValidationError:
        return
    assert decode._LEAF_CHECKS[leaf](value), value


@pytest.mark.parametrize("lo,hi", [(gojson.INT32_MIN, gojson.INT32_MAX), (0, 255), (0, gojson.UINT64_MAX)])
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_integers_msgspec_accepts_are_in_bounds(lo, hi, data):
    t = decode.GoType(decode.INT, "int")
    t.bounds = (lo, hi)
    decode._fast_int(t)
    value = data.draw(st.one_of(_ints(lo, hi), _odd))
    if _accepts(decodefast._msgspec_type(t, set(), {}), value):   # a new t each time: not _BUILT's
        assert t.ok(value)


_BUILT: dict = {}


def _msgspec_type(t):
    """decodefast's msgspec type for t, made once per test run."""
    if id(t) not in _BUILT:
        _BUILT[id(t)] = decodefast._msgspec_type(t, set(), {})
    return _BUILT[id(t)]


def _accepts(mtype, value) -> bool:
    try:
        msgspec.convert(value, mtype)
    except msgspec.ValidationError:
        return False
    return True


def test_the_shortcut_is_taken_for_the_bundled_examples():
    """Not vacuous: every example object that decodes is accepted by msgspec already."""
    docs = []
    for path in sorted(EXAMPLES.rglob("*.yaml")):
        try:
            docs += [d for d in load_file(path) if decodefast.checker(d.kind.kind) is not None]
        except ManifestError:
            continue   # inventories, sweep files: not manifests
    assert len(docs) > 50
    for d in docs:
        if decode.kind_type(d.kind.kind).ok(d.obj):
            assert decodefast.checker(d.kind.kind)(d.obj), d.source


def test_the_shortcut_keeps_decode_s_answers():
    """Through decode(): accepted objects come back as they are; refused ones get the Python
    walk's words (an unknown field, a bad time) — with or without the shortcut."""
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "creationTimestamp": "2026-01-01T00:00:00Z"},
           "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}]}}
    for _ in range(decode._FAST_AFTER + 1):   # a bulk load's worth: the shortcut is made
        assert decode.decode("Pod", pod) is pod
    assert decode._FAST.get("Pod") is decodefast.checker("Pod")
    deep: object = 1
    for _ in range(decodefast.RAW_DEPTH + 2):
        deep = {"a": deep}
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c"},
             "spec": {"devices": {"config": [{"opaque": {"driver": "d", "parameters": deep}}]}}}
    assert not decodefast.checker("ResourceClaim")(claim)   # too deep for the shortcut:
    assert decode.decode("ResourceClaim", claim) is claim     # the Python way says yes
    typo = dict(pod, spec={"containers": [{"name": "c", "resorces": {}}]})
    with pytest.raises(decode.DecodeError, match="unknown field"):
        decode.decode("Pod", typo)


def _structs_with_leaves() -> list:
    """Every struct of the simulated kinds with a time or quantity field (or a list or map of them)."""
    seen, out = set(), {}

    def walk(t):
        if id(t) in seen:
            return
        seen.add(id(t))
        if t.kind == decode.STRUCT and any(decodefast._leaf_field(ft) for ft in t.fields.values()):
            out[t.name] = t
        for ft in t.fields.values():
            walk(ft)
        if t.elem is not None:
            walk(t.elem)
    for kind in KINDS:
        walk(decode.kind_type(kind))
    return [out[name] for name in sorted(out)]


STRUCTS_WITH_LEAVES = _structs_with_leaves()


@pytest.mark.parametrize("t", STRUCTS_WITH_LEAVES, ids=[t.name for t in STRUCTS_WITH_LEAVES])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_each_struct_s_leaf_checks_are_decode_s(t, data):
    """Each struct holding times or quantities, on its own (deep ones are rarely reached from a
    kind's root): msgspec's yes, through the struct's __post_init__, is the Python check's yes."""
    value = data.draw(values(t, 1))
    if _accepts(_msgspec_type(t), value):
        assert t.ok(value), value


def _leaf_fields() -> list:
    out = []
    for t in STRUCTS_WITH_LEAVES:
        for name, ft in t.fields.items():
            leaf = decodefast._leaf_field(ft)
            if leaf is not None:
                out.append((t, name, leaf))
    return out


LEAF_FIELDS = _leaf_fields()


@pytest.mark.parametrize("t,name,leaf", LEAF_FIELDS, ids=[f"{t.name}.{name}" for t, name, _ in LEAF_FIELDS])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_each_leaf_field_alone(t, name, leaf, data):
    """Each time or quantity field (value, list or map of them), alone in its struct."""
    shape, kind = leaf
    one = _times if kind == decode.TIME else _quantities
    value = data.draw(one if shape == decodefast._VALUE else
                      st.lists(one, min_size=1, max_size=3) if shape == decodefast._LIST else
                      st.dictionaries(_text, one, min_size=1, max_size=3))
    if _accepts(_msgspec_type(t), {name: value}):
        assert t.ok({name: value}), value
