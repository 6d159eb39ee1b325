"""A reference encoder for the protobuf tests: Go values marshalled the way gogo-protobuf's
generated code does, and written the way encoding/json does (k8s MarshalJSON for the types
that have one). Written from the encoding side, independently of drasim/server/protobody.py.
"""
from __future__ import annotations

import base64
import json
from datetime import datetime, timezone

from hypothesis import strategies as st

from drasim.server import protowire
from drasim.server.protobody import schema
from drasim.server.protoschema import LIST_WRAPPERS

VARINTS = {"int32", "int64", "uint32", "uint64", "bool"}
SCALARS = VARINTS | {"string", "bytes", "double", "float"}
SPECIAL = {"meta.v1.Time", "meta.v1.MicroTime", "resource.Quantity", "intstr.IntOrString",
           "runtime.RawExtension", "meta.v1.FieldsV1"}


# -- a reference encoder: gogo Marshal and encoding/json of one Go value ----------------------
# A Go value is a dict of the fields that are set: scalars (zero allowed), lists, dicts, nested
# Go values; a field not in the dict is Go's zero (nil for pointers, slices and maps).

def tag(number: int, wire: int) -> bytes:
    return uvarint(number << 3 | wire)


def uvarint(v: int) -> bytes:
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b, v = v & 0x7F, v >> 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def ld(number: int, payload: bytes) -> bytes:
    return tag(number, 2) + uvarint(len(payload)) + payload


def _scalar_pb(number: int, t: str, v) -> bytes:
    if t == "string":
        return ld(number, v.encode())
    if t == "bytes":
        return ld(number, v)
    return tag(number, 0) + uvarint(int(v))


def marshal(message: str, value: dict) -> bytes:
    if message in SPECIAL:
        return _special_pb(message, value)
    if message in LIST_WRAPPERS:
        return b"".join(_scalar_pb(1, "string", s) for s in value)
    out = b""
    for f in schema(message):
        v = value if f.inline else value.get(f.name)
        if f.map_value:
            for k in sorted(v or {}):
                entry = _scalar_pb(1, f.type, k) + _elem_pb(2, f.map_value, v[k], pointer=False)
                out += ld(f.number, entry)
        elif f.repeated:
            out += b"".join(_elem_pb(f.number, f.type, x, pointer=False) for x in v or ())
        elif v is not None or not f.pointer:   # gogo writes every non-pointer field, zero or not
            out += _elem_pb(f.number, f.type, v, pointer=f.pointer)
    return out


def _elem_pb(number: int, t: str, v, pointer: bool) -> bytes:
    if t in SCALARS:
        if v is None:
            v = {"string": "", "bytes": b""}.get(t, 0)
        return _scalar_pb(number, t, v)
    return ld(number, marshal(t, v if v is not None else ({} if t not in SPECIAL else None)))


def _special_pb(message: str, v) -> bytes:
    if message in ("meta.v1.Time", "meta.v1.MicroTime"):
        return b"" if v is None else _scalar_pb(1, "int64", v[0]) + (
            _scalar_pb(2, "int32", v[1]) if message == "meta.v1.MicroTime" and v[1] else b"")
    if message == "resource.Quantity":
        return b"" if v is None else _scalar_pb(1, "string", v)
    if message == "intstr.IntOrString":
        v = 0 if v is None else v
        return (_scalar_pb(1, "int64", 1) + _scalar_pb(3, "string", v)) if isinstance(v, str) else (
            _scalar_pb(1, "int64", 0) + _scalar_pb(2, "int32", v))
    return b"" if v is None else ld(1, json.dumps(v).encode())   # RawExtension, FieldsV1


def go_json(message: str, value) -> object:
    """What encoding/json writes for the Go value (k8s MarshalJSON for the special types)."""
    if message == "meta.v1.Time":
        return None if value is None else datetime.fromtimestamp(value[0], timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    if message == "meta.v1.MicroTime":
        return None if value is None else (datetime.fromtimestamp(value[0], timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
                                           + f".{value[1] // 1000:06d}Z")
    if message == "resource.Quantity":
        return value or "0"
    if message == "intstr.IntOrString":
        return 0 if value is None else value
    if message in ("runtime.RawExtension", "meta.v1.FieldsV1") or message in LIST_WRAPPERS:
        return value
    out: dict = {}
    for f in schema(message):
        if f.inline:
            out.update(go_json(f.type, value))
            continue
        v = value.get(f.name)
        nil_able = f.pointer or f.repeated or f.map_value or f.type in ("bytes",) or f.type in LIST_WRAPPERS
        if f.map_value:
            v = {k: _elem_json(f.map_value, x) for k, x in v.items()} if v else None
        elif f.repeated:
            v = [_elem_json(f.type, x) for x in v] if v else None
        elif v is not None or not f.pointer:
            v = _elem_json(f.type, v)
        if v is None and nil_able:
            if not (f.omitempty or f.omitzero):
                out[f.name] = None
            continue
        if not f.pointer and (f.omitempty and f.type in SCALARS or f.omitzero) and v in ("", 0, False, None, {}):
            if f.type in SCALARS or v == go_json(f.type, {} if f.type not in SPECIAL else None):
                continue
        out[f.name] = v
    return out


def _elem_json(t: str, v):
    if t in SCALARS:
        if v is None:
            return {"string": "", "bool": False, "bytes": None}.get(t, 0)
        return base64.b64encode(v).decode() if t == "bytes" else v
    return go_json(t, v if v is not None else ({} if t not in SPECIAL else None))


# -- random Go values of a message ------------------------------------------------------------

def _scalar_st(t: str):
    return {"string": st.text(max_size=6), "bytes": st.binary(max_size=6), "bool": st.booleans(),
            "int32": st.integers(-2**31, 2**31 - 1), "int64": st.integers(-2**63, 2**63 - 1),
            "uint32": st.integers(0, 2**32 - 1), "uint64": st.integers(0, 2**64 - 1)}[t]


def _special_st(message: str):
    if message in ("meta.v1.Time", "meta.v1.MicroTime"):
        return st.tuples(st.integers(1, 4_000_000_000), st.integers(0, 999_999_999)).map(
            lambda t: t if message == "meta.v1.MicroTime" else (t[0], 0))
    if message == "resource.Quantity":
        return st.sampled_from(["1", "500m", "2Gi", "1e3"])
    if message == "intstr.IntOrString":
        return st.one_of(st.integers(-2**31, 2**31 - 1), st.text(min_size=1, max_size=4))
    return st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)   # raw JSON


def value_st(message: str, depth: int = 0):
    if message in SPECIAL:
        return _special_st(message)
    if message in LIST_WRAPPERS:
        return st.lists(st.text(max_size=4), min_size=1, max_size=2)

    def elem(t: str):
        return _scalar_st(t) if t in SCALARS else value_st(t, depth + 1)
    fields = [f for f in schema(message) if not f.inline or depth < 3]
    if depth >= 3:   # deep enough: only scalars below this point
        fields = [f for f in fields if f.type in SCALARS]
    parts = {}
    for f in fields:
        if f.map_value:
            parts[f.name] = st.dictionaries(st.text(max_size=4), elem(f.map_value), min_size=1, max_size=2)
        elif f.repeated:
            parts[f.name] = st.lists(elem(f.type), min_size=1, max_size=2)
        elif f.inline:
            parts[f.name] = value_st(f.type, depth + 1)
        else:
            parts[f.name] = elem(f.type)
    return st.fixed_dictionaries({}, optional=parts).map(lambda d: _merge_inline(message, d))


def _merge_inline(message: str, d: dict) -> dict:
    """An inline struct's fields live in its parent's JSON object: move them there."""
    for f in schema(message):
        if f.inline and f.name in d:
            inner = d.pop(f.name)
            for k, v in inner.items():
                d.setdefault(k, v)
    return d


def envelope(api_version: str, kind: str, raw: bytes) -> bytes:
    type_meta = ld(1, api_version.encode()) + ld(2, kind.encode())
    return protowire.MAGIC + ld(1, type_meta) + ld(2, raw) + ld(3, b"") + ld(4, b"")


def go_value(message: str, obj):
    """A manifest's JSON as the Go value the reference encoder takes (what a typed Go client
    holds after decoding that JSON): times as (seconds, nanos), quantities as strings."""
    if message in ("meta.v1.Time", "meta.v1.MicroTime"):
        if obj is None:
            return None
        t = datetime.fromisoformat(obj.replace("Z", "+00:00"))
        return int(t.timestamp()), t.microsecond * 1000
    if message == "resource.Quantity":
        return None if obj is None else str(obj)
    if message in SPECIAL or message in LIST_WRAPPERS:
        return obj
    out: dict = {}
    for f in schema(message):
        if f.inline:
            out.update(go_value(f.type, obj))
        elif f.name in obj and obj[f.name] is not None:
            v = obj[f.name]
            if f.map_value:
                out[f.name] = {k: _elem_value(f.map_value, x) for k, x in v.items()}
            elif f.repeated:
                out[f.name] = [_elem_value(f.type, x) for x in v]
            else:
                out[f.name] = _elem_value(f.type, v)
    return out


def _elem_value(t: str, v):
    if t == "bytes":
        return base64.b64decode(v)
    return v if t in SCALARS else go_value(t, v)
