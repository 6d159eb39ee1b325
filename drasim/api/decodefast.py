"""A first answer, at C speed, to decode.py's question "does this object decode cleanly?".

decode.py compiles each Go type into a Python closure that says yes or no; a fleet snapshot
asks it 288,000 times (about a fifth of applying one). Here the same compiled types are turned
into msgspec types (Structs that forbid unknown fields, bounded ints, finite floats, patterns
for times and quantities) and msgspec.convert walks the object instead. It is only a
shortcut: where msgspec says yes, the Python check says yes too (never the other way round —
tests/property/test_decode_fast.py drives both over generated and mutated objects); where it
says no, the Python check decides, and its slow walk words the error, exactly as before. So
what msgspec cannot express exactly is made stricter, never looser:

- a time must be RFC 3339 with a day every month has (29-31 of some months, and any February 29,
  go the Python way, which knows leap years);
- a quantity must be plain digits, an optional fraction and an optional suffix (exponents, and
  floats, go the Python way), or an integer within ±10^18;
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
        # Field names as Python attributes would clash with keywords: f0, f1, … renamed to JSON's.
        names = {f"f{i}": name for i, name in enumerate(t.fields)}
        specs = [(attr, Optional[_msgspec_type(t.fields[name], building, built)], None) for attr, name in names.items()]
        out = msgspec.defstruct(f"Go_{t.struct or 'struct'}", specs, forbid_unknown_fields=True, rename=names)
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
