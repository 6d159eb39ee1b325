"""matchAttribute / distinctAttribute with list-typed attributes (alpha gate DRAListTypeAttributes, KEP-5491).

k8s: staging/src/k8s.io/dynamic-resource-allocation/structured/internal/experimental/
allocator_experimental.go (attributeAsSet, deviceAttributeListAsSet, matchAttributeConstraint with
features.ListTypeAttributes) and …/experimental/constraint.go (distinctAttributeConstraint). The
gate makes kube-scheduler pick the experimental allocator; it differs from incubating only here.

Every attribute, scalar or list, is read as a set of one kind (a scalar is a set of one):
- matchAttribute: the covered devices' sets must have a common element. The constraint keeps the
  running intersection; a device is admitted when it meets the intersection, which then narrows.
- distinctAttribute: a device's set must be disjoint from the set of every device recorded so far
  ("pairwise disjoint"); as in the scalar form, one device is recorded per request name.
Sets of different kinds never meet. Versions compare as strings (semver 2.0.0 minimal form).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from drasim.allocator.constraints import _MISSING, _covers, attribute_entry

if TYPE_CHECKING:
    from drasim.allocator.model import DeviceRec

# attributeAsSet's order: any non-empty list wins over a scalar.
_LISTS = (("ints", "int"), ("bools", "bool"), ("strings", "string"), ("versions", "version"))
_SCALARS = ("int", "bool", "string", "version")


def attribute_set(attr: dict) -> tuple[str, frozenset] | None:
    """k8s: attributeAsSet — (kind, values), or None for an attribute without a value."""
    for key, kind in _LISTS:
        values = attr.get(key)
        if values:
            return kind, frozenset(values)
    for kind in _SCALARS:
        value = attr.get(kind)
        if value is not None:
            return kind, frozenset((value,))
    return None


_NO_VALUE = ("", frozenset())


def _device_set(device: DeviceRec, name: str):
    """The device's value set for a constraint's attribute (cached per device version); _MISSING when
    the device lacks the attribute, None when it has no value."""
    cache = device.attr_sets
    if cache is None:
        cache = device.attr_sets = {}
    found = cache.get(name, _NO_VALUE)
    if found is _NO_VALUE:
        attr = attribute_entry(device, name)
        found = cache[name] = _MISSING if attr is _MISSING else attribute_set(attr)
    return found


def _meets(a: tuple[str, frozenset], b: tuple[str, frozenset]) -> bool:
    """hasIntersection: a common element; sets of different kinds never meet."""
    return a[0] == b[0] and not a[1].isdisjoint(b[1])


class ListMatchAttribute:
    """All covered devices' value sets share at least one element."""

    __slots__ = ("names", "attribute", "intersection", "count")

    def __init__(self, names: frozenset[str], attribute: str) -> None:
        self.names, self.attribute = names, attribute
        self.intersection: tuple[str, frozenset] | None = None
        self.count = 0

    def add(self, request: str, subrequest: str, device: DeviceRec) -> bool:
        if self.names and not _covers(self.names, request, subrequest):
            return True
        values = _device_set(device, self.attribute)
        if values is _MISSING or values is None:
            return False   # unlike the scalar form, even a first device needs a value
        if self.count == 0:
            self.intersection, self.count = values, 1
            return True
        if not _meets(self.intersection, values):
            return False
        self.intersection = (values[0], self.intersection[1] & values[1])
        self.count += 1
        return True

    def remove(self, request: str, subrequest: str, device: DeviceRec) -> None:
        # Go only counts down: the intersection stays narrowed by a device given back until the
        # next first device resets it (kept as v1.37 behaves).
        if self.names and not _covers(self.names, request, subrequest):
            return
        self.count -= 1


class ListDistinctAttribute:
    """Covered devices' value sets are pairwise disjoint (recorded per request name, as §13.3)."""

    __slots__ = ("names", "attribute", "values", "count")

    def __init__(self, names: frozenset[str], attribute: str) -> None:
        self.names, self.attribute = names, attribute
        self.values: dict[str, tuple[str, frozenset] | None] = {}
        self.count = 0

    def add(self, request: str, subrequest: str, device: DeviceRec) -> bool:
        if self.names and not _covers(self.names, request, subrequest):
            return True
        values = _device_set(device, self.attribute)
        if values is _MISSING:
            return False
        if self.count == 0:
            self.values[request] = values   # the first device is recorded unchecked
            self.count = 1
            return True
        if values is None:
            return False
        for seen in self.values.values():
            if seen is not None and _meets(seen, values):
                return False
        self.values[request] = values
        self.count += 1
        return True

    def remove(self, request: str, subrequest: str, device: DeviceRec) -> None:
        if self.names and not _covers(self.names, request, subrequest):
            return
        self.values.pop(request, None)
        self.count -= 1
