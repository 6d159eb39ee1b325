"""Size and cost ranges, and the sizes the DRA environment declares for `device`.

k8s: google/cel-go checker/cost.go (SizeEstimate, CostEstimate: saturating uint64
arithmetic, cost factors rounded up), common/cost.go (the unit costs);
dynamic-resource-allocation/cel/compile.go (sizeEstimator, the device DeclTypes);
k8s.io/api resource/v1 types.go (the max lengths).

A range is a (min, max) tuple of ints in [0, 2**64-1]; arithmetic saturates at the top
like cel-go's addUint64NoOverflow / multiplyUint64NoOverflow / multiplyByCostFactor.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

MAX_U64 = 2**64 - 1
_TWO_TO_64 = math.ldexp(1.0, 64)

Range = tuple[int, int]
UNKNOWN: Range = (0, MAX_U64)
ZERO: Range = (0, 0)
ONE: Range = (1, 1)

# k8s: cel-go common/cost.go
SELECT_AND_IDENT_COST = 1
CONST_COST = 0
LIST_CREATE_BASE_COST = 10
MAP_CREATE_BASE_COST = 30
STRUCT_CREATE_BASE_COST = 40
STRING_TRAVERSAL_COST_FACTOR = 0.1
REGEX_STRING_LENGTH_COST_FACTOR = 0.25

# k8s: k8s.io/api resource/v1 types.go
CEL_SELECTOR_EXPRESSION_MAX_COST = 1_000_000
DRIVER_NAME_MAX_LENGTH = 63
DEVICE_MAX_DOMAIN_LENGTH = 63
DEVICE_MAX_ID_LENGTH = 32
DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH = 64
RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE = 32
RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE = 48


def fixed(n: int) -> Range:
    return (n, n)


def add_u64(x: int, y: int) -> int:
    return min(x + y, MAX_U64)


def mul_u64(x: int, y: int) -> int:
    return min(x * y, MAX_U64)


def factor_u64(x: int, f: float) -> int:
    """cel-go multiplyByCostFactor: float product rounded up, saturating."""
    xf = float(x)
    if xf > 0 and f > 0 and xf > MAX_U64 / f:
        return MAX_U64
    product = math.ceil(xf * f)
    return MAX_U64 if product >= _TWO_TO_64 else int(product)


def add(a: Range, b: Range) -> Range:
    return (add_u64(a[0], b[0]), add_u64(a[1], b[1]))


def mul(a: Range, b: Range) -> Range:
    return (mul_u64(a[0], b[0]), mul_u64(a[1], b[1]))


def by_factor(a: Range, f: float) -> Range:
    return (factor_u64(a[0], f), factor_u64(a[1], f))


def union(a: Range, b: Range) -> Range:
    return (min(a[0], b[0]), max(a[1], b[1]))


# --- the declared sizes of `device` (k8s: compile.go newCompiler, sizeEstimator) ----------

@dataclass(eq=False)
class Decl:
    """An apiserver DeclType as far as sizes go: MaxElements, fields, key and element types."""

    max_elements: int
    fields: dict[str, Decl] = field(default_factory=dict)
    key: Decl | None = None
    elem: Decl | None = None


# The estimator always uses the newest device type (v1.36 list-type attributes and
# consumable capacity), whatever the feature gates: compile.go keeps only that one for it.
_PER_DEVICE = RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE
ATTRIBUTE = Decl(max(DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH, RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE))
_DOMAIN = Decl(DEVICE_MAX_DOMAIN_LENGTH)
_ID = Decl(DEVICE_MAX_ID_LENGTH)
_QUANTITY = Decl(0)  # apiservercel.QuantityDeclType sets no MaxElements
DEVICE_DECL = Decl(0, fields={
    "driver": Decl(DRIVER_NAME_MAX_LENGTH),
    "allowMultipleAllocations": Decl(1),  # "a variant of BoolType with a known cost"
    "attributes": Decl(_PER_DEVICE, key=_DOMAIN, elem=Decl(_PER_DEVICE, key=_ID, elem=ATTRIBUTE)),
    "capacity": Decl(_PER_DEVICE, key=_DOMAIN, elem=Decl(_PER_DEVICE, key=_ID, elem=_QUANTITY)),
})


def dra_size(path: tuple[str, ...]) -> Range | None:
    """k8s: compile.go sizeEstimator.EstimateSize — the max size of what *path* reaches
    from the `device` variable (path elements: field names, @items, @values, @keys)."""
    if not path or path[0] != "device":
        return None
    node = DEVICE_DECL
    for name in path[1:]:
        if name in ("@items", "@values"):
            if node.elem is None:
                return None
            node = node.elem
        elif name == "@keys":
            if node.key is None:
                return None
            node = node.key
        elif name in node.fields:
            node = node.fields[name]
        elif node.elem is ATTRIBUTE:  # any id in an attribute map has the attribute's size
            node = ATTRIBUTE
        else:  # e.g. device.attributes.dom: a domain selected as a field has no known size
            return None
    return (0, node.max_elements)
