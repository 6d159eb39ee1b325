"""A first answer, at C speed, to decode.py's question "does this object decode cleanly?".

decode.py compiles each Go type into a Python closure that says yes or no; a fleet snapshot
asks it 288,000 times (about a fifth of applying one). Here the same compiled types are turned
into msgspec types (Structs that forbid unknown fields, bounded ints, finite floats) and
msgspec.convert walks the object instead. Times and quantities are checked by decode.py's own
leaf checks (remembered answers: a fleet repeats a few values), called from the __post_init__
of the struct that holds them — msgspec's pattern constraints cost a microsecond each. It is
only a shortcut: where msgspec says yes, the Python check says yes too (never the other way
round — tests/property/test_decode_fast.py drives both over generated and mutated objects);
where it says no, the Python check decides, and its slow walk words the error, exactly as
before. So what msgspec cannot express exactly is made stricter, never looser:

- a time or quantity held deeper than a list or map directly in a struct field (none of the
  simulated kinds has one) must match a pattern: RFC 3339 with a day every month has, or plain
  digits with an optional fraction and suffix (the rest goes the Python way);
- free-form JSON (runtime.RawExtension) is checked to RAW_DEPTH levels (deeper goes the Python
  way), floats in it finite;
- unsigned integers stop at 2^63 - 1 (msgspec bounds are int64);
- a type that contains itself (none of the simulated kinds does) has no shortcut.

Premise, as for the Python check: the object holds JSON values only (exact dict, list, str,
int, float, bool, None), as every reader and the API server's decoding give.
"""
from __future__ import annotations

from typing import Annotated, Any, Optional, Union

import msgspec

from drasim.api import decode, gojson
from drasim.api.passed import Passed

_MAX_FLOAT = 1.7976931348623157e308
_FINITE = Annotated[float, msgspec.Meta(ge=-_MAX_FLOAT, le=_MAX_FLOAT)]   # NaN fails both bounds
_QUANTITY = Union[
    Annotated[str, msgspec.Meta(pattern=r"^[+-]?[0-9]{1,18}(?:\.[0-9]{1,9})?(?:Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?\Z")],
    Annotated[int, msgspec.Meta(ge=-10**18, le=10**18)]]
_DAY = (r"(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])"   # every month has days 1-28
        r"|(?:0[13-9]|1[0-2])-(?:29|30)"                   # all but February have 29 and 30
        r"|(?:0[13578]|1[02])-31)")                          # the long months have 31
_TIME = Annotated[str, msgspec.Meta(
    pattern=r"^[0-9]{4}-" + _DAY + r"[Tt](?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})\Z")]
_INT_OR_STRING = Union[str, Annotated[int, msgspec.Meta(ge=gojson.INT32_MIN, le=gojson.INT32_MAX)]]
_INT64_MAX = 2**63 - 1
RAW_DEPTH = 8


def _raw(depth: int):
    scalar = (bool, int, _FINITE, str)
    if depth == 0:
        return Optional[Union[scalar]]
    inner = _raw(depth - 1)
    return Optional[Union[scalar + (list[inner], dict[str, inner])]]


_RAW = _raw(RAW_DEPTH)
_LEAVES = {decode.STRING: str, decode.BYTES: str, decode.BOOL: bool, decode.FLOAT: _FINITE,
           decode.QUANTITY: _QUANTITY, decode.TIME: _TIME, decode.INTORSTRING: _INT_OR_STRING, decode.RAW: _RAW}


class _Cycle(Exception):
    """The type contains itself: no msgspec type for it."""


def _msgspec_type(t: decode.GoType, building: set[int], built: dict[int, Any]):
    """The msgspec type accepting a subset of what t.ok accepts (null everywhere, as Go reads it)."""
    found = built.get(id(t))
    if found is not None:
        return found
    if id(t) in building:
        raise _Cycle(t.name)
    building.add(id(t))
    k = t.kind
    if k == decode.STRUCT:
        out = _struct(t, building, built)
    elif k == decode.SLICE:
        out = list[Optional[_msgspec_type(t.elem, building, built)]]
    elif k == decode.MAP:
        out = dict[str, Optional[_msgspec_type(t.elem, building, built)]]
    elif k == decode.INT:
        lo, hi = t.bounds
        out = Annotated[int, msgspec.Meta(ge=lo, le=min(hi, _INT64_MAX))]
    else:
        out = _LEAVES[k]
    building.discard(id(t))
    built[id(t)] = out
    return out


# A field holding a time or quantity, or a list or map of them: msgspec checks only the JSON
# type, and the struct's __post_init__ asks decode's leaf check of each value.
_LOOSE = {decode.TIME: str, decode.QUANTITY: Union[str, int, float]}
_VALUE, _LIST, _MAP = range(3)


def _leaf_field(ft: decode.GoType):
    """(shape, leaf kind) for a field that is a time or quantity, or a list or map of them."""
    if ft.kind in _LOOSE:
        return _VALUE, ft.kind
    if ft.kind in (decode.SLICE, decode.MAP) and ft.elem.kind in _LOOSE:
        return (_LIST if ft.kind == decode.SLICE else _MAP), ft.elem.kind
    return None


def _struct(t: decode.GoType, building: set[int], built: dict[int, Any]):
    # Field names as Python attributes would clash with keywords: f0, f1, … renamed to JSON's.
    names = {f"f{i}": name for i, name in enumerate(t.fields)}
    specs, leaves = [], []
    for attr, name in names.items():
        ft = t.fields[name]
        leaf = _leaf_field(ft)
        if leaf is None:
            specs.append((attr, Optional[_msgspec_type(ft, building, built)], None))
            continue
        shape, kind = leaf
        loose = Optional[_LOOSE[kind]]
        specs.append((attr, loose if shape == _VALUE else list[loose] if shape == _LIST else dict[str, loose], None))
        leaves.append((attr, shape, decode._LEAF_CHECKS[kind]))
    namespace = {"__post_init__": _leaf_checks(tuple(leaves))} if leaves else None
    return msgspec.defstruct(f"Go_{t.struct or 'struct'}", specs, forbid_unknown_fields=True, rename=names,
                             namespace=namespace)


class _BadLeaf(ValueError):
    """A time or quantity decode's leaf check refuses (msgspec makes it a ValidationError)."""


# Leaf values decode's check accepted, by the check: a string seen again is not checked again
# (a snapshot repeats one creationTimestamp and a few quantities in every object). Only
# strings: 1, 1.0 and True are one key to a set, and quantities tell them apart.
_PASSED: dict = {}


def _passed(ok):
    good = _PASSED.setdefault(ok, Passed(100_000))

    def check(value) -> bool:
        if value.__class__ is str:
            if value in good:
                return True
            if not ok(value):
                return False
            good.remember(value)
            return True
        return ok(value)
    return check, good


def _leaf_checks(leaves: tuple):
    leaves = tuple((attr, shape) + _passed(ok) for attr, shape, ok in leaves)

    def __post_init__(self) -> None:
        for attr, shape, check, good in leaves:
            value = getattr(self, attr)
            if value is None:
                continue
            if shape == _VALUE:
                if value.__class__ is str and value in good:
                    continue
                if not check(value):
                    raise _BadLeaf(attr)
            elif not all(map(check, value if shape == _LIST else value.values())):
                raise _BadLeaf(attr)
    return __post_init__


_CHECKERS: dict[str, Any] = {}


def checker(kind: str):
    """For a kind with a schema and no cycle, a function obj -> bool that says True only for
    objects decode's Python check accepts; None otherwise."""
    if kind in _CHECKERS:
        return _CHECKERS[kind]
    t = decode.kind_type(kind)
    check = None
    if t is not None:
        try:
            root = _msgspec_type(t, set(), {})
        except _Cycle:
            root = None
        if root is not None:
            check = _convert_check(root)
    _CHECKERS[kind] = check
    return check


def _convert_check(root):
    convert, refused = msgspec.convert, msgspec.ValidationError

    def ok(obj) -> bool:
        try:
            convert(obj, root)
        except refused:
            return False
        return True
    return ok


__all__ = ["RAW_DEPTH", "checker"]
