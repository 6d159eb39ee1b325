"""Estimated cost of one call, in the order the API server asks for it.

k8s, in this order (cel-go checker/cost.go functionCost):
1. overload estimators the cel-go extensions register (ext/lists.go list_slice, flatten,
   range, reverse, distinct, sort, sortBy; ext/sets.go);
2. the DRA estimator (dynamic-resource-allocation/cel/compile.go draCostEstimator:
   `includes`), then Kubernetes' library estimator by function name
   (apiserver pkg/cel/library/cost.go CostEstimator.EstimateCallCost);
3. cel-go's built-in rules by overload id (string traversals, `in`, matches, contains,
   &&, ||, ?:, +, comparisons, ==);
4. everything else costs 1.
Each result is (cost range, result size or None); argument costs are added as cel-go does.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from drasim.cel.checked import CelType
from drasim.cel.cost_sizes import (LIST_CREATE_BASE_COST, MAX_U64, ONE, REGEX_STRING_LENGTH_COST_FACTOR,
                                   RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE,
                                   STRING_TRAVERSAL_COST_FACTOR, UNKNOWN, ZERO, Range, add, by_factor, fixed,
                                   mul, union)

if TYPE_CHECKING:
    from drasim.cel.checked import Node
    from drasim.cel.cost import AstNode, Coster

_TRAVERSE = STRING_TRAVERSAL_COST_FACTOR


def _size(c: Coster, n: AstNode) -> Range:
    """library.CostEstimator.sizeEstimate / ext estimateSize: computed, then by path."""
    if n.computed_size is not None:
        return n.computed_size
    estimated = c.size_oracle(n.path)
    return UNKNOWN if estimated is None else estimated


def _computed_or_unknown(n: AstNode) -> Range:
    """cel-go sizeOrUnknown(AstNode)."""
    return UNKNOWN if n.computed_size is None else n.computed_size


def _int_literal(n: AstNode, default: int) -> int:
    """ext/lists.go nodeAsIntValue."""
    e = n.node
    if e is None or e.kind != "const" or e.type.kind != "int" or isinstance(e.value, bool):
        return default
    return max(int(e.value), 0)


def _list_element(c: Coster, n: AstNode) -> AstNode | None:
    """library.CostEstimator.listElementNode: the first type parameter, at path @items."""
    if not n.type.params:
        return None
    path = n.path + ("@items",) if n.path else ()
    return _Items(path, n.type.params[0])


class _Items:
    """An itemsNode: a path and a type, no expression, no computed size."""

    __slots__ = ("path", "type", "node", "computed_size")

    def __init__(self, path: tuple[str, ...], t: CelType) -> None:
        self.path, self.type, self.node, self.computed_size = path, t, None, None


# --- 1. cel-go extension overload estimators ------------------------------------------------

def _allocating(cost_factor: float, list_size: Range) -> tuple[Range, Range]:
    """ext/lists.go estimateAllocatingListCall."""
    return add(add(by_factor(list_size, cost_factor), ONE), fixed(LIST_CREATE_BASE_COST)), list_size


def _sort(c: Coster, n: AstNode, elem: str) -> tuple[Range, Range]:
    sz = _size(c, n)
    factor = 2.0 + (_TRAVERSE if elem in ("string", "bytes") else 0.0)
    return _allocating(factor, mul(sz, sz))


def _extension(c: Coster, overload: str, target: AstNode | None, args: list[AstNode]):
    if overload == "list_slice" and target is not None and len(args) == 2:
        sz = _size(c, target)
        start, end = _int_literal(args[0], 0), _int_literal(args[1], sz[1])
        return _allocating(1, fixed((end - start) & MAX_U64))
    if overload in ("lists_range", "list_range") and target is None and len(args) == 1:
        return _allocating(1, fixed(_int_literal(args[0], MAX_U64)))
    if overload == "list_reverse" and target is not None and not args:
        return _allocating(1, _size(c, target))
    if overload in ("list_flatten", "list_flatten_int") and target is not None and len(args) <= 1:
        depth = _int_literal(args[0], MAX_U64) if args else 1
        return _allocating(float(depth), _size(c, target))
    if overload == "list_distinct" and target is not None and not args:
        sz = _size(c, target)
        return _allocating(2.0, mul(sz, sz))
    if overload.startswith("list_") and overload.endswith("_sort") and target is not None and not args:
        return _sort(c, target, overload[5:-5])
    if overload.endswith("_sortByAssociatedKeys") and target is not None and len(args) == 1:
        return _sort(c, args[0], overload[5:-len("_sortByAssociatedKeys")])
    factor = _SETS.get(overload)
    if factor is not None and len(args) == 2:
        return add(by_factor(mul(_size(c, args[0]), _size(c, args[1])), factor), ONE), None
    return None


_SETS = {"list_sets_contains_list": 1.0, "list_sets_intersects_list": 1.0, "list_sets_equivalent_list": 2.0}


# --- 2. DRA and Kubernetes library estimators ---------------------------------------------------

_NOMINAL = frozenset({"sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan",
                      "compareTo", "add", "sub", "major", "minor", "patch"})
_ONE_PASS = frozenset({"isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes"})
_O1_EQUAL_TYPES = frozenset({"kubernetes.Quantity", "kubernetes.Semver"})


def _kubernetes(c: Coster, function: str, target: AstNode | None, args: list[AstNode]):
    if function == "includes" and target is not None:
        # draCostEstimator: like `in`, linear in the longest attribute list.
        return mul((0, RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE), ONE), None
    if function in _ONE_PASS and target is not None:
        element = _list_element(c, target)
        if element is not None:
            el_cost = ONE
            if element.type.kind in ("string", "bytes"):
                el_cost = add(el_cost, by_factor(_size(c, element), _TRAVERSE))
            return mul(_size(c, target), el_cost), None
        if function == "includes":
            return mul(_size(c, target), ONE), None
        return by_factor(_size(c, target), _TRAVERSE), None  # indexOf on a string
    if function in ("lowerAscii", "upperAscii", "substring", "trim") and target is not None:
        sz = _size(c, target)
        return by_factor(sz, _TRAVERSE), sz
    if function == "replace" and target is not None and len(args) >= 2:
        return _replace(_size(c, target), _size(c, args[0]), _size(c, args[1]))
    if function == "split" and target is not None:
        sz = _size(c, target)
        most = sz[1]
        if len(args) > 1 and args[1].node is not None and args[1].node.kind == "const" \
                and args[1].node.type.kind == "int":
            most = int(args[1].node.value) & MAX_U64  # Go: uint64(int64) wraps a negative limit
        return by_factor(sz, 2 * _TRAVERSE), (0, most)
    if function == "join" and target is not None:
        return _join(c, target, args)
    if function in ("find", "findAll") and target is not None and args:
        sz = _size(c, target)
        str_cost = by_factor(add(sz, ONE), _TRAVERSE)
        regex_cost = by_factor(_size(c, args[0]), REGEX_STRING_LENGTH_COST_FACTOR)
        return mul(str_cost, regex_cost), (0, sz[1])
    if function in ("quantity", "isQuantity", "semver", "isSemver") and args:
        return by_factor(_size(c, args[0]), _TRAVERSE), None
    if function in _NOMINAL:
        return ONE, None
    if function == "_==_" and len(args) == 2:
        lhs, rhs = args[0].type, args[1].type
        if lhs == rhs and lhs.kind == "message" and lhs.name in _O1_EQUAL_TYPES:
            return ONE, None
    return None


def _replace(sz: Range, old: Range, new: Range) -> tuple[Range, Range]:
    """library/cost.go `replace`: the longest and the shortest possible results."""
    if old[0] == 0:  # an empty needle surrounds every character
        count_max, kept_max = (sz[1] + 1 if sz[1] < MAX_U64 else sz[1]), sz[1]
    elif new[1] <= old[0]:
        count_max, kept_max = 0, sz[1]
    else:
        count_max, kept_max = _ceil_div(sz[1], old[0]), 0
    if old[1] == 0:
        count_min, kept_min = (sz[0] + 1 if sz[0] < MAX_U64 else sz[0]), sz[0]
    elif old[1] <= new[0]:
        count_min, kept_min = 0, sz[0]
    else:
        count_min, kept_min = _ceil_div(sz[0], old[1]), 0
    size = add(mul((count_min, count_max), new), (kept_min, kept_max))
    return by_factor(sz, 2 * _TRAVERSE), size


def _ceil_div(x: int, y: int) -> int:
    """Go: uint64(math.Ceil(float64(x) / float64(y))), saturating."""
    q = math.ceil(float(x) / float(y))
    return MAX_U64 if q >= 2.0**64 else int(q)


def _join(c: Coster, target: AstNode, args: list[AstNode]) -> tuple[Range, Range]:
    list_size = _size(c, target)
    total = ZERO
    element = _list_element(c, target)
    if element is not None:
        total = mul(list_size, _size(c, element))
    if args:
        separators = (max(list_size[0] - 1, 0), max(list_size[1] - 1, 0))
        total = add(total, mul(_size(c, args[0]), separators))
    return by_factor(total, _TRAVERSE), total


# --- 3. cel-go built-in rules -------------------------------------------------------------

_COMPARISONS = frozenset({"less_string", "greater_string", "less_equals_string", "greater_equals_string",
                          "less_bytes", "greater_bytes", "less_equals_bytes", "greater_equals_bytes",
                          "equals", "not_equals"})


def _builtin(c: Coster, e: Node, overload: str, target: AstNode | None, args: list[AstNode],
             arg_costs: list[Range], arg_sum: Range):
    if overload == "string_format" and target is not None:
        return add(by_factor(_computed_or_unknown(target), _TRAVERSE), arg_sum), None
    if overload in ("string_to_bytes", "bytes_to_string", "strings_quote") and len(args) == 1:
        sz = _computed_or_unknown(args[0])
        if overload == "string_to_bytes":
            size = (sz[0], (sz[1] * 4) & MAX_U64)
        elif overload == "bytes_to_string":
            size = (sz[0] // 4, sz[1])
        else:
            size = ((sz[0] + 2) & MAX_U64, (sz[1] * 2 + 2) & MAX_U64)
        return add(by_factor(sz, _TRAVERSE), arg_sum), size
    if overload in ("starts_with_string", "ends_with_string") and len(args) == 1:
        return add(by_factor(_computed_or_unknown(args[0]), _TRAVERSE), arg_sum), None
    if overload == "in_list" and len(args) == 2:
        return add(by_factor(_computed_or_unknown(args[1]), 1), arg_sum), None
    if overload == "matches_string" and target is not None and len(args) == 1:
        str_cost = by_factor(add(_computed_or_unknown(target), ONE), _TRAVERSE)
        regex_cost = by_factor(_computed_or_unknown(args[0]), REGEX_STRING_LENGTH_COST_FACTOR)
        return add(mul(str_cost, regex_cost), arg_sum), None
    if overload == "contains_string" and target is not None and len(args) == 1:
        str_cost = by_factor(_computed_or_unknown(target), _TRAVERSE)
        sub_cost = by_factor(_computed_or_unknown(args[0]), _TRAVERSE)
        return add(mul(str_cost, sub_cost), arg_sum), None
    if overload in ("logical_or", "logical_and"):
        lhs, rhs = arg_costs[0], arg_costs[1]
        return (lhs[0], add(lhs, rhs)[1]), None  # the right side may be short-circuited
    if overload == "conditional":
        size = union(_computed_or_unknown(args[1]), _computed_or_unknown(args[2]))
        left, right = c.entry_of(e.args[1]), c.entry_of(e.args[2])
        c.set_entry(e, left.union(right) if left is not None else None)
        return add(arg_costs[0], union(arg_costs[1], arg_costs[2])), size
    if overload in ("add_string", "add_bytes", "add_list") and len(args) == 2:
        size = add(_computed_or_unknown(args[0]), _computed_or_unknown(args[1]))
        left, right = c.entry_of(e.args[0]), c.entry_of(e.args[1])
        c.set_entry(e, left.union(right) if left is not None else None)
        if overload == "add_list":  # O(1): cel-go concatenates lazily
            return add(ONE, arg_sum), size
        return add(by_factor(size, _TRAVERSE), arg_sum), size
    if overload in _COMPARISONS:
        smallest = min(_computed_or_unknown(args[0])[1], _computed_or_unknown(args[1])[1])
        return add(by_factor((1 if smallest > 0 else 0, smallest), _TRAVERSE), arg_sum), None
    return None


def function_cost(c: Coster, e: Node, overload: str, target: AstNode | None, args: list[AstNode],
                  arg_costs: list[Range]) -> tuple[Range, Range | None]:
    """cel-go coster.functionCost for one overload of the call *e*."""
    arg_sum = ZERO
    for cost in arg_costs:
        arg_sum = add(arg_sum, cost)
    found = _extension(c, overload, target, args) or _kubernetes(c, e.function, target, args)
    if found is not None:
        return add(found[0], arg_sum), found[1]
    found = _builtin(c, e, overload, target, args, arg_costs, arg_sum)
    if found is not None:
        return found
    return add(ONE, arg_sum), None


# --- drasim's memory guard: operations that build values larger than their inputs -------------

# Calls that build a new string, bytes or list (a copy counts: cel-cpp keeps every temporary
# of an evaluation). Index, select, size() and conversions of scalars return small or
# existing values and are not counted.
_GROWING = frozenset({"add_string", "add_bytes", "add_list", "string_replace_string_string",
                      "string_replace_string_string_int", "list_join", "list_join_string", "list_range",
                      "lists_range", "strings_quote", "string_format", "string_to_bytes", "list_flatten",
                      "list_flatten_int", "string_lower_ascii", "string_upper_ascii", "string_trim",
                      "string_substring_int", "string_substring_int_int", "string_split_string",
                      "string_split_string_int", "string_find_all_string", "string_find_all_string_int",
                      "list_slice", "list_reverse", "list_distinct"})


def grows(overloads: tuple[str, ...]) -> bool:
    return any(o in _GROWING or o.endswith(("_sort", "_sortByAssociatedKeys")) for o in overloads)


def growth_size(c: Coster, e: Node, args: list[AstNode], result: Range | None) -> int:
    """The largest size the call *e* may produce, for the guard. Where cel-go's model has
    none (format) or cannot size the items (join on a list literal, whose items have no
    path), the literal's own items bound it."""
    if result is not None and result[1] < MAX_U64:
        return result[1]
    listed = e.args[0] if e.args else None
    if "string_format" in e.overloads and e.target is not None:
        if listed is None or listed.kind != "list":
            return MAX_U64
        bound = c.size_or_unknown(e.target)[1]
        for element in listed.args:  # each printed value: its size, quoted or bracketed
            bound += 2 * c.size_or_unknown(element)[1] + 32
        return min(bound, MAX_U64)
    if e.function == "join" and e.target is not None and e.target.kind == "list":
        items = e.target.args
        bound = sum(c.size_or_unknown(item)[1] for item in items)
        if listed is not None:
            bound += max(len(items) - 1, 0) * c.size_or_unknown(listed)[1]
        return min(bound, MAX_U64)
    return MAX_U64
