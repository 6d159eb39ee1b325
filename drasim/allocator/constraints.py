"""Claim constraints: matchAttribute and distinctAttribute (spec §13).

k8s: staging/src/k8s.io/dynamic-resource-allocation/structured/internal/incubating/allocator_incubating.go
(matchAttributeConstraint, lookupAttribute), …/incubating/constraint.go (distinctAttributeConstraint).
Constraints are monotonic: once a device is rejected, adding more devices never helps.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from drasim.allocator.model import DeviceRec

_KINDS = ("string", "int", "bool", "version")  # Go's switch order
_MISSING = object()


def attribute_entry(device: DeviceRec, name: str):
    """The attribute object for a fully qualified name: exact key, else the bare id if the domain
    is the driver (§13.4); _MISSING when the device does not have it."""
    attributes = device.raw.get("attributes") or {}
    attr = attributes.get(name)
    if attr is None:
        domain, sep, ident = name.partition("/")
        if not sep or domain != device.driver:
            return _MISSING
        attr = attributes.get(ident)
        if attr is None:
            return _MISSING
    return attr


def lookup_attribute(device: DeviceRec, name: str):
    """(kind, value) of the attribute - kind None for an attribute without a scalar value - or _MISSING."""
    attr = attribute_entry(device, name)
    if attr is _MISSING:
        return _MISSING
    for kind in _KINDS:
        value = attr.get(kind)
        if value is not None:
            return (kind, value)
    return (None, None)


def _covers(names: frozenset[str], request: str, subrequest: str) -> bool:
    if not subrequest:
        return request in names
    return request in names or f"{request}/{subrequest}" in names


class MatchAttribute:
    """All covered devices share one value of the attribute (§13.2)."""

    __slots__ = ("names", "attribute", "value", "count")

    def __init__(self, names: frozenset[str], attribute: str) -> None:
        self.names, self.attribute = names, attribute
        self.value = None
        self.count = 0

    def add(self, request: str, subrequest: str, device: DeviceRec) -> bool:
        if self.names and not _covers(self.names, request, subrequest):
            return True
        value = lookup_attribute(device, self.attribute)
        if value is _MISSING:
            return False
        if self.count == 0:
            self.value, self.count = value, 1  # the first device can always be picked
            return True
        kind = value[0]
        if kind is None or self.value[0] != kind or self.value[1] != value[1]:
            return False  # versions compare as strings: semver 2.0.0 is in minimal form
        self.count += 1
        return True

    def remove(self, request: str, subrequest: str, device: DeviceRec) -> None:
        if self.names and not _covers(self.names, request, subrequest):
            return
        self.count -= 1


class DistinctAttribute:
    """Covered devices have pairwise different values - as recorded per request *name* (quirk §13.3/§21.4)."""

    __slots__ = ("names", "attribute", "values", "count")

    def __init__(self, names: frozenset[str], attribute: str) -> None:
        self.names, self.attribute = names, attribute
        self.values: dict[str, tuple] = {}
        self.count = 0

    def add(self, request: str, subrequest: str, device: DeviceRec) -> bool:
        if self.names and not _covers(self.names, request, subrequest):
            return True
        value = lookup_attribute(device, self.attribute)
        if value is _MISSING:
            return False
        if self.count == 0:
            self.values[request] = value
            self.count = 1
            return True
        kind = value[0]
        for kind_seen, seen in self.values.values():
            if kind is None or (kind_seen == kind and seen == value[1]):
                return False
        self.values[request] = value  # overwrites the previous device of the same request
        self.count += 1
        return True

    def remove(self, request: str, subrequest: str, device: DeviceRec) -> None:
        if self.names and not _covers(self.names, request, subrequest):
            return
        self.values.pop(request, None)  # drops the request's entry even if it has other devices
        self.count -= 1
