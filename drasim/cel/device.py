"""The `device` variable, built once per device and reused for every evaluation.

k8s: staging/src/k8s.io/dynamic-resource-allocation/cel/compile.go (DeviceMatches,
getAttributeValue, parseQualifiedName); spec cel.md §3.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from drasim.api.quantity import Quantity, QuantityError, parse_quantity
from drasim.cel import semver
from drasim.cel.environment import EnvType, environment
from drasim.cel.types import quantity_message, semver_message

# Temporary values of an evaluation live in the activation's arena until the activation
# is dropped, so a long-lived activation grows with every evaluation that allocates
# (a string concatenation, a list). It is rebuilt after this many evaluations, or once the
# selectors run on it may have built this many characters or list items (the estimate's
# `built`, drasim/cel/cost.py), whichever comes first.
_ACTIVATION_USES = 4096
_ACTIVATION_BUILT = 10_000_000

_LIST_KINDS = {"ints": "int", "bools": "bool", "strings": "string", "versions": "version"}


@dataclass(slots=True)
class DeviceInput:
    """A device as a CEL selector sees it. `error` is set when an attribute cannot be
    represented; Kubernetes reports it for every expression evaluated on the device."""

    driver: str
    name: str
    variables: dict[str, Any]
    error: str | None = None
    _activation: Any = None
    _uses: int = 0
    _built: int = 0

    def activation(self, built: int = 0) -> Any:
        """The activation for one evaluation that may build *built* characters or items."""
        self._uses += 1
        self._built += built
        if self._activation is None or self._uses > _ACTIVATION_USES or self._built > _ACTIVATION_BUILT:
            self._activation = environment(EnvType.RUNTIME).Activation(self.variables)
            self._uses, self._built = 1, built
        return self._activation


def split_qualified_name(name: str, driver: str) -> tuple[str, str]:
    """`dom/id` -> (dom, id); a name without a domain belongs to the driver (spec §3.2)."""
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (driver, name)


def _scalar(kind: str, value: Any) -> Any:
    if kind == "version":
        try:
            return semver_message(semver.parse(value))
        except semver.SemverError as err:
            raise ValueError(f"parse semantic version: {err}") from None
    return value


def attribute_value(attr: dict) -> Any:
    """k8s: getAttributeValue. Raises ValueError with Kubernetes' text."""
    for kind in ("int", "bool", "string", "version"):
        if attr.get(kind) is not None:
            return _scalar(kind, attr[kind])
    for key, kind in _LIST_KINDS.items():  # alpha list attributes (DRAListTypeAttributes)
        if attr.get(key) is not None:
            return [_scalar(kind, v) for v in attr[key]]
    raise ValueError("unsupported attribute value")


def _capacity_value(cap: dict) -> Any:
    value = cap.get("value")
    if value is None:
        value = "0"   # Go: a null or absent value is the zero Quantity (as allocator/model.py reads it)
    q = value if isinstance(value, Quantity) else parse_quantity(value)
    return quantity_message(q.value)


def device_error(device: dict) -> str | None:
    """The error device_input would report for *device*, without building the CEL values: for
    selectors that need none of them (plain comparisons, cel/plain.py). Same checks, same order:
    the first attribute that cannot be represented, else the first capacity."""
    for name, attr in (device.get("attributes") or {}).items():
        try:
            _check_attribute(attr or {})
        except ValueError as err:
            return f"attribute {name}: {err}"
    for name, cap in (device.get("capacity") or {}).items():
        value = (cap or {}).get("value")
        if value is None or isinstance(value, Quantity):
            continue   # None: the zero Quantity (_capacity_value)
        try:
            _parsed_quantity(value)
        except (QuantityError, TypeError) as err:
            return f"capacity {name}: {err}"
    return None


def _check_attribute(attr: dict) -> None:
    """attribute_value's checks only (raises the same ValueError)."""
    for kind in ("int", "bool", "string", "version"):
        if attr.get(kind) is not None:
            if kind == "version":
                _parsed_version(attr[kind])
            return
    for key, kind in _LIST_KINDS.items():
        if attr.get(key) is not None:
            if kind == "version":
                for v in attr[key]:
                    _parsed_version(v)
            return
    raise ValueError("unsupported attribute value")


def _parsed_version(value: Any) -> None:
    if isinstance(value, str):
        error = _version_error(value)
    else:
        error = _version_error_uncached(value)
    if error is not None:
        raise ValueError(f"parse semantic version: {error}")


@lru_cache(maxsize=4096)
def _version_error(value: str) -> str | None:
    return _version_error_uncached(value)


def _version_error_uncached(value: Any) -> str | None:
    try:
        semver.parse(value)
    except semver.SemverError as err:
        return str(err)
    return None


def _parsed_quantity(value: Any) -> None:
    if isinstance(value, str):
        error = _quantity_error(value)
        if error is not None:
            raise QuantityError(error)
    else:
        parse_quantity(value)


@lru_cache(maxsize=4096)
def _quantity_error(value: str) -> str | None:
    try:
        parse_quantity(value)
    except QuantityError as err:
        return str(err)
    return None


def device_input(driver: str, device: dict) -> DeviceInput:
    """One entry of ResourceSlice spec.devices, for the slice's driver."""
    attributes: dict[str, dict[str, Any]] = {}
    capacity: dict[str, dict[str, Any]] = {}
    error = None
    for name, attr in (device.get("attributes") or {}).items():
        try:
            value = attribute_value(attr or {})
        except ValueError as err:
            error = error or f"attribute {name}: {err}"
            continue
        domain, ident = split_qualified_name(name, driver)
        attributes.setdefault(domain, {})[ident] = value
    for name, cap in (device.get("capacity") or {}).items():
        try:
            value = _capacity_value(cap or {})
        except (QuantityError, TypeError) as err:
            error = error or f"capacity {name}: {err}"
            continue
        domain, ident = split_qualified_name(name, driver)
        capacity.setdefault(domain, {})[ident] = value
    variables = {"device": {
        "driver": driver,
        "attributes": attributes,
        "capacity": capacity,
        "allowMultipleAllocations": bool(device.get("allowMultipleAllocations") or False),
    }}
    return DeviceInput(driver=driver, name=device.get("name", ""), variables=variables, error=error)
