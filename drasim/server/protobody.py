"""Request bodies in the Kubernetes protobuf encoding, decoded into the API's JSON shape.

k8s: apimachinery/pkg/runtime/serializer/protobuf/protobuf.go Serializer.Decode — the 4-byte
magic `k8s\\0`, then a runtime.Unknown (typeMeta 1 {apiVersion 1, kind 2}, raw 2,
contentEncoding 3, contentType 4); an empty apiVersion or kind is taken from the URL
(copyKindDefaults). raw is the object's message, decoded with gogo's semantics: fields are
proto2 `optional`; a non-pointer Go field that is absent on the wire is its zero value, a
pointer one is nil; the last occurrence of a scalar wins, occurrences of a message merge.
The result is what encoding/json would write for the decoded Go struct (omitempty,
omitzero, `json:",inline"`, nil → null), i.e. the body a JSON client would have sent, and
it then takes the same write path. The field table is generated (protoschema_gen.py).
"""
from __future__ import annotations

import base64
import json
from datetime import datetime, timezone
from typing import NamedTuple

from drasim.server import protowire as w
from drasim.server.protoschema import GROUP_VERSIONS, LIST_WRAPPERS, MESSAGES

META_KINDS = {"DeleteOptions": "meta.v1.DeleteOptions"}
MAX_DEPTH = 64   # the schemas nest about 15 deep; deeper is a malformed or hostile body


class Field(NamedTuple):
    number: int
    name: str
    type: str          # a proto scalar or a message
    map_value: str | None
    repeated: bool
    pointer: bool
    omitempty: bool
    omitzero: bool
    inline: bool


_SCHEMAS: dict[str, tuple[Field, ...]] = {}
_VARINT_TYPES = {"int32", "int64", "uint32", "uint64", "bool"}
_ZERO = {"string": "", "bool": False, "bytes": None, "double": 0.0, "float": 0.0}


def schema(message: str) -> tuple[Field, ...]:
    fields = _SCHEMAS.get(message)
    if fields is None:
        fields = []
        for cell in MESSAGES[message].split(";"):
            number, name, kind, flags = cell.split(" ")
            key, _, value = kind.partition(">")
            fields.append(Field(int(number), name, key, value or None, "r" in flags, "p" in flags,
                                "o" in flags, "z" in flags, "i" in flags))
        fields = _SCHEMAS[message] = tuple(fields)
    return fields


def decode(body: bytes, api_version: str, kind: str) -> dict:
    """The object of a protobuf request body; ProtoError says what is wrong (a 400)."""
    if not body:
        raise w.ProtoError("empty data")
    if not body.startswith(w.MAGIC):
        raise w.ProtoError(f"provided data does not appear to be a protobuf message, expected prefix "
                           f"[{' '.join(str(b) for b in w.MAGIC)}]")
    if len(body) == len(w.MAGIC):
        raise w.ProtoError("empty body")
    unknown = w.read(body[len(w.MAGIC):])
    type_meta = w.read(_bytes(unknown, 1, "typeMeta"))
    api_version = _string(type_meta, 1, "typeMeta.apiVersion") or api_version
    kind = _string(type_meta, 2, "typeMeta.kind") or kind
    encoding, ctype = _string(unknown, 3, "contentEncoding"), _string(unknown, 4, "contentType")
    if encoding:
        raise w.ProtoError(f"unsupported content encoding {encoding!r}")
    if ctype not in ("", w.PROTOBUF):
        raise w.ProtoError(f"unsupported content type {ctype!r} inside the protobuf envelope")
    package = GROUP_VERSIONS.get(api_version)
    message = f"{package}.{kind}"
    if kind in META_KINDS and (package is not None or api_version == "meta.k8s.io/v1"):
        message = META_KINDS[kind]   # k8s: metav1.AddToGroupVersion registers these in every group version
    if (package is None and kind not in META_KINDS) or message not in MESSAGES:
        raise w.ProtoError(f'no kind "{kind}" is registered for version "{api_version}"')
    return {"apiVersion": api_version, "kind": kind, **_message(_bytes(unknown, 2, "raw"), message, "", 0)}


def _bytes(fields: dict, number: int, path: str) -> bytes:
    parts = []
    for wire, value in fields.get(number, ()):
        if wire != w.BYTES:
            raise w.ProtoError(f"proto: wrong wireType = {wire} for field {path}")
        parts.append(value)
    return b"".join(parts)   # occurrences of a message merge: parsing their concatenation is that merge


def _string(fields: dict, number: int, path: str) -> str:
    entries = fields.get(number)
    if not entries:
        return ""
    wire, value = entries[-1]
    if wire != w.BYTES:
        raise w.ProtoError(f"proto: wrong wireType = {wire} for field {path}")
    return value.decode("utf-8", "replace")   # Go's json writes invalid UTF-8 as U+FFFD


def _scalars(entries, t: str, path: str) -> list:
    """Every value of a scalar field (packed or not), converted as Go converts it."""
    out: list = []
    for wire, value in entries:
        if t in ("string", "bytes"):
            if wire != w.BYTES:
                raise w.ProtoError(f"proto: wrong wireType = {wire} for field {path}")
            out.append(value.decode("utf-8", "replace") if t == "string" else base64.b64encode(value).decode())
            continue
        fixed = {"double": (w.FIXED64, 8), "float": (w.FIXED32, 4)}.get(t)
        if wire == w.BYTES:   # packed repeated scalars
            raws = w.packed_fixed(value, fixed[1]) if fixed else w.packed_varints(value)
        elif wire == (fixed[0] if fixed else w.VARINT):
            raws = [value]
        else:
            raise w.ProtoError(f"proto: wrong wireType = {wire} for field {path}")
        for raw in raws:
            if t == "double":
                out.append(w.double(raw))
            elif t == "float":
                out.append(w.float32(raw))
            elif t == "bool":
                out.append(raw != 0)
            else:
                out.append(w.signed(raw, 32) if t == "int32" else w.signed(raw, 64) if t == "int64"
                           else raw & ((1 << (32 if t == "uint32" else 64)) - 1))
    return out


def _value(entries, t: str, path: str, depth: int):
    """One value of type t from its occurrences (None: nil / absent pointer)."""
    if t in _VARINT_TYPES or t in _ZERO:
        values = _scalars(entries, t, path)
        return values[-1] if values else None
    return _message(_bytes({0: entries}, 0, path), t, path, depth + 1) if entries else None


def _zero(t: str, depth: int):
    if t in _VARINT_TYPES:
        return False if t == "bool" else 0
    if t in _ZERO:
        return _ZERO[t]
    return _message(b"", t, "", depth + 1)


def _message(data: bytes, message: str, path: str, depth: int):
    if depth > MAX_DEPTH:
        raise w.ProtoError(f"{path}: nesting too deep")
    try:
        wire = w.read(data)
    except w.ProtoError as e:
        raise w.ProtoError(f"{path}: {e}" if path else str(e)) from None
    special = _SPECIAL.get(message)
    if special is not None:
        return special(wire, path)
    if message in LIST_WRAPPERS:   # a Go slice type (`type ExtraValue []string`): JSON is the list
        f = schema(message)[0]
        return _scalars(wire.get(f.number, ()), f.type, path) or None
    out: dict = {}
    for f in schema(message):
        entries = wire.get(f.number)
        here = f"{path}.{f.name}" if path else f.name
        if f.map_value is not None:
            value = {}
            for occurrence in entries or ():   # each entry is a message {key 1, value 2}
                raw = _bytes({0: [occurrence]}, 0, here)
                try:
                    e = w.read(raw)
                except w.ProtoError as err:
                    raise w.ProtoError(f"{here}: {err}") from None
                key = _value(e.get(1, ()), f.type, here, depth)
                item = _value(e.get(2, ()), f.map_value, f"{here}[{key}]", depth)
                value[key or ""] = _zero(f.map_value, depth) if item is None else item
            value = value or None
        elif f.repeated:
            if f.type in _VARINT_TYPES or f.type in _ZERO:
                value = _scalars(entries or (), f.type, here) or None
            else:
                value = [_message(_bytes({0: [e]}, 0, here), f.type, f"{here}[{i}]", depth + 1)
                         for i, e in enumerate(entries or ())] or None
        else:
            value = _value(entries or (), f.type, here, depth)
            if value is None and not f.pointer:
                value = _zero(f.type, depth)
            if f.inline:
                out.update(value or {})
                continue
        if f.name == "-":   # `json:"-"`: not in the JSON
            continue
        scalar = f.type in _VARINT_TYPES or f.type in _ZERO
        if value is None:   # nil pointer, slice, map, []byte, Time, RawExtension
            if f.omitempty or f.omitzero:
                if f.pointer or f.repeated or f.map_value or scalar or f.type in LIST_WRAPPERS or f.omitzero:
                    continue   # (omitempty never drops a struct: a zero Time stays null)
        elif not f.pointer and not f.repeated and f.map_value is None:
            if ((scalar and f.omitempty) or f.omitzero) and value in ("", _zero(f.type, depth)):
                continue   # ("" too: an empty []byte is dropped by omitempty like a nil one)
        out[f.name] = value
    return out


# -- types with their own JSON (MarshalJSON) --------------------------------------------------

def _time(fields: dict, path: str, micro: bool = False):
    """k8s: meta/v1 time_proto.go / micro_time_proto.go — an empty message is the zero time
    (JSON null); Time keeps whole seconds, MicroTime microseconds; both written in UTC."""
    if not fields:
        return None
    seconds = _scalars(fields.get(1, ()), "int64", f"{path}.seconds")
    nanos = _scalars(fields.get(2, ()), "int32", f"{path}.nanos")
    try:
        t = datetime.fromtimestamp(seconds[-1] if seconds else 0, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        raise w.ProtoError(f"{path}: time out of range") from None
    if not micro:
        return t.strftime("%Y-%m-%dT%H:%M:%SZ")
    return t.strftime("%Y-%m-%dT%H:%M:%S") + f".{(nanos[-1] if nanos else 0) // 1000:06d}Z"


def _quantity(fields: dict, path: str):
    """k8s: api/resource Quantity — field 1 is its string form; the zero Quantity is "0"."""
    return _string(fields, 1, f"{path}.string") or "0"


def _int_or_string(fields: dict, path: str):
    """k8s: util/intstr — type 0 is IntVal (2), type 1 is StrVal (3)."""
    kind = _scalars(fields.get(1, ()), "int64", f"{path}.type")
    if kind and kind[-1] == 1:
        return _string(fields, 3, f"{path}.strVal")
    ints = _scalars(fields.get(2, ()), "int32", f"{path}.intVal")
    return ints[-1] if ints else 0


def _raw_json(fields: dict, path: str):
    """k8s: runtime.RawExtension / meta/v1 FieldsV1 — raw bytes, JSON written as is (nil → null)."""
    if 1 not in fields:
        return None
    raw = _bytes(fields, 1, f"{path}.raw")
    try:
        return json.loads(raw) if raw.strip() else None
    except ValueError as e:
        raise w.ProtoError(f"{path}: raw is not JSON: {e}") from None


_SPECIAL = {
    "meta.v1.Time": _time,
    "meta.v1.MicroTime": lambda fields, path: _time(fields, path, micro=True),
    "resource.Quantity": _quantity,
    "intstr.IntOrString": _int_or_string,
    "runtime.RawExtension": _raw_json,
    "meta.v1.FieldsV1": _raw_json,
}
