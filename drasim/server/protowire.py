"""The protobuf wire format, read: varints, length-delimited bytes, fixed 32/64-bit values.

k8s: kubectl's typed client sends application/vnd.kubernetes.protobuf (gogo-protobuf's
generated Marshal, staging/src/k8s.io/api/*/generated.pb.go); protobody.py turns what is read
here into the API's JSON shape. Groups (wire types 3 and 4) are never produced by gogo and
are refused, as its generated Unmarshal refuses them.
"""
from __future__ import annotations

import struct

MAGIC = b"k8s\x00"
PROTOBUF = "application/vnd.kubernetes.protobuf"
VARINT, FIXED64, BYTES, FIXED32 = 0, 1, 2, 5


class ProtoError(ValueError):
    pass


def varint(data: bytes, i: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        if i >= len(data):
            raise ProtoError("unexpected EOF")
        if shift > 63:
            raise ProtoError("integer overflow")
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, i
        shift += 7


def read(data: bytes) -> dict[int, list[tuple[int, object]]]:
    """field number → [(wire type, value)] in wire order: int for varints, bytes otherwise."""
    out: dict[int, list[tuple[int, object]]] = {}
    i, n = 0, len(data)
    while i < n:
        key, i = varint(data, i)
        number, wire = key >> 3, key & 7
        if number <= 0:
            raise ProtoError(f"illegal tag {number} (wire type {wire})")
        if wire == VARINT:
            value, i = varint(data, i)
        elif wire == BYTES:
            size, i = varint(data, i)
            if i + size > n:
                raise ProtoError("unexpected EOF")
            value, i = data[i:i + size], i + size
        elif wire in (FIXED64, FIXED32):
            size = 8 if wire == FIXED64 else 4
            if i + size > n:
                raise ProtoError("unexpected EOF")
            value, i = data[i:i + size], i + size
        else:
            raise ProtoError(f"illegal wireType {wire}")
        out.setdefault(number, []).append((wire, value))
    return out


def packed_varints(data: bytes) -> list[int]:
    values, i = [], 0
    while i < len(data):
        v, i = varint(data, i)
        values.append(v)
    return values


def packed_fixed(data: bytes, size: int) -> list[bytes]:
    if len(data) % size:
        raise ProtoError("unexpected EOF")
    return [data[i:i + size] for i in range(0, len(data), size)]


def signed(value: int, bits: int) -> int:
    """A varint as Go's int32/int64 sees it (two's complement, wrapped)."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def double(raw: bytes) -> float:
    return struct.unpack("<d", raw)[0]


def float32(raw: bytes) -> float:
    return struct.unpack("<f", raw)[0]
