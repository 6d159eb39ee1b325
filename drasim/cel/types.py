"""The CEL object types of the DRA environment, as protobuf messages.

k8s: staging/src/k8s.io/dynamic-resource-allocation/cel/compile.go (kubernetes.DRADevice),
staging/src/k8s.io/apiserver/pkg/cel/types.go (kubernetes.Quantity, kubernetes.Semver).

cel-expr-python (cel-cpp) has no Python-object values: custom functions may only take
and return CEL values, and struct types must be protobuf messages. So:

- `kubernetes.Quantity` holds the exact value as a reduced fraction string ("68719476736",
  "1/3"). CEL equality of messages compares fields, which makes `==` value equality
  (64Gi == 65536Mi, 64G != 64Gi) without any Python call.
- `kubernetes.Semver` holds major/minor/patch and the pre-release text; build metadata
  is dropped because semver precedence (and so k8s' Semver equality) ignores it.
- `kubernetes.DRADevice` exists only for the type checker, so that `device.vendor` is a
  compile error ("undefined field"). Its map values are google.protobuf.Struct, which
  CEL types as map(string, dyn). At run time `device` is a plain map (see device.py).
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf import struct_pb2  # noqa: F401  (registers google/protobuf/struct.proto)

from drasim.cel import semver

QUANTITY = "kubernetes.Quantity"
SEMVER = "kubernetes.Semver"
DEVICE = "kubernetes.DRADevice"

_F = descriptor_pb2.FieldDescriptorProto


def _file() -> descriptor_pb2.FileDescriptorProto:
    fdp = descriptor_pb2.FileDescriptorProto(
        name="drasim/cel/kubernetes.proto", package="kubernetes", syntax="proto3",
        dependency=["google/protobuf/struct.proto"])
    q = fdp.message_type.add(name="Quantity")
    q.field.add(name="value", number=1, type=_F.TYPE_STRING, label=_F.LABEL_OPTIONAL)
    s = fdp.message_type.add(name="Semver")
    for number, name in enumerate(("major", "minor", "patch"), start=1):
        s.field.add(name=name, number=number, type=_F.TYPE_UINT64, label=_F.LABEL_OPTIONAL)
    s.field.add(name="pre", number=4, type=_F.TYPE_STRING, label=_F.LABEL_OPTIONAL)
    d = fdp.message_type.add(name="DRADevice")
    d.field.add(name="driver", number=1, type=_F.TYPE_STRING, label=_F.LABEL_OPTIONAL)
    for number, name in ((2, "attributes"), (3, "capacity")):
        entry = d.nested_type.add(name=name.capitalize() + "Entry")
        entry.options.map_entry = True
        entry.field.add(name="key", number=1, type=_F.TYPE_STRING, label=_F.LABEL_OPTIONAL)
        entry.field.add(name="value", number=2, type=_F.TYPE_MESSAGE, label=_F.LABEL_OPTIONAL,
                        type_name=".google.protobuf.Struct")
        d.field.add(name=name, number=number, type=_F.TYPE_MESSAGE, label=_F.LABEL_REPEATED,
                    type_name=f".kubernetes.DRADevice.{entry.name}")
    d.field.add(name="allowMultipleAllocations", number=4, type=_F.TYPE_BOOL,
                label=_F.LABEL_OPTIONAL, json_name="allowMultipleAllocations")
    return fdp


def _register() -> descriptor_pool.DescriptorPool:
    pool = descriptor_pool.Default()
    try:
        pool.FindMessageTypeByName(DEVICE)
    except KeyError:
        pool.Add(_file())
    return pool


POOL = _register()
QuantityMessage = message_factory.GetMessageClass(POOL.FindMessageTypeByName(QUANTITY))
SemverMessage = message_factory.GetMessageClass(POOL.FindMessageTypeByName(SEMVER))


def quantity_message(value: Fraction) -> object:
    """A kubernetes.Quantity value for an exact amount; huge ones (`1e1000000`, which
    ParseQuantity accepts) as mantissa and exponent, which quantity_value reads back."""
    from drasim.api.quantity import exact_text
    return QuantityMessage(value=exact_text(value))


@lru_cache(maxsize=65536)
def quantity_value(text: str) -> Fraction:
    """The exact amount held by a kubernetes.Quantity message's `value` field."""
    return Fraction(text)


def semver_message(version: semver.Version) -> object:
    pre = ".".join(str(p) for p in version.pre)
    return SemverMessage(major=version.major, minor=version.minor, patch=version.patch, pre=pre)


def semver_value(msg: object) -> semver.Version:
    pre = msg.pre  # type: ignore[attr-defined]
    ids = tuple(int(p) if p.isdigit() else p for p in pre.split(".")) if pre else ()
    return semver.Version(msg.major, msg.minor, msg.patch, ids)  # type: ignore[attr-defined]
