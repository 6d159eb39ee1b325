"""Kubernetes' CEL function libraries on top of cel-cpp's standard library.

k8s: staging/src/k8s.io/apiserver/pkg/cel/library/ (quantity.go, semverlib.go, lists.go,
regex.go) and environment/base.go; spec cel.md §4.

cel-cpp specifics that shape this module:
- a runtime function is registered per (name, argument kinds); every protobuf message has
  the same kind, so an overload that exists for both Quantity and Semver (`compareTo`, ...)
  carries the Python implementation only once, and that implementation dispatches on the
  message class;
- `indexOf`/`lastIndexOf` already belong to the strings extension and cannot get list
  overloads, so the Kubernetes list versions are missing (documented in docs/cel.md).
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import re2
from cel_expr_python import cel

from drasim.api.quantity import QuantityError, parse_quantity
from drasim.cel import semver
from drasim.cel.types import (QUANTITY, SEMVER, QuantityMessage, SemverMessage, quantity_message,
                              quantity_value, semver_message, semver_value)

Q = cel.Type(QUANTITY)
S = cel.Type(SEMVER)
BOOL, INT, UINT, DOUBLE = cel.Type.BOOL, cel.Type.INT, cel.Type.UINT, cel.Type.DOUBLE
STRING, BYTES, DYN = cel.Type.STRING, cel.Type.BYTES, cel.Type.DYN
LIST_DYN = cel.Type.List(DYN)
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1

# 'includes' on longer lists is refused at run time (spec §4.5, §8.2).
INCLUDES_MAX_LIST = 48


class _NoSuchOverload(Exception):
    """Raised by a shared implementation given a value of the wrong type."""

    def __init__(self) -> None:
        super().__init__("no such overload")


# --- quantity (k8s: library/quantity.go) -------------------------------------------------

@lru_cache(maxsize=4096)
def _quantity(text: str) -> object:
    try:
        return quantity_message(parse_quantity(text).value)
    except QuantityError as err:
        raise ValueError(str(err)) from None


def _is_quantity(text: str) -> bool:
    try:
        parse_quantity(text)
        return True
    except QuantityError:
        return False


def _q(msg: object) -> Fraction:
    return quantity_value(msg.value)  # type: ignore[attr-defined]


def _sign(q: object) -> int:
    v = _q(q)
    return (v > 0) - (v < 0)


def _as_integer(q: object) -> int:
    v = _q(q)
    if v.denominator != 1 or not _INT64_MIN <= v.numerator <= _INT64_MAX:
        raise ValueError("cannot convert value to integer")
    return v.numerator


def _is_integer(q: object) -> bool:
    v = _q(q)
    return v.denominator == 1 and _INT64_MIN <= v.numerator <= _INT64_MAX


def _add(q: object, other: object) -> object:
    rhs = Fraction(other) if isinstance(other, int) else _q(other)
    return quantity_message(_q(q) + rhs)


def _sub(q: object, other: object) -> object:
    rhs = Fraction(other) if isinstance(other, int) else _q(other)
    return quantity_message(_q(q) - rhs)


# --- semver (k8s: library/semverlib.go) ---------------------------------------------------

@lru_cache(maxsize=4096)
def _semver(text: str, normalize: bool = False) -> object:
    try:
        version = semver.parse_normalized(text) if normalize else semver.parse(text)
    except semver.SemverError as err:
        raise ValueError(str(err)) from None
    return semver_message(version)


def _is_semver(text: str, normalize: bool = False) -> bool:
    try:
        semver.parse_normalized(text) if normalize else semver.parse(text)
        return True
    except semver.SemverError:
        return False


# --- shared by Quantity and Semver ----------------------------------------------------------

def _compare(a: object, b: object) -> int:
    if type(a) is not type(b):
        raise _NoSuchOverload()
    if isinstance(a, QuantityMessage):
        x, y = _q(a), _q(b)
        return (x > y) - (x < y)
    if isinstance(a, SemverMessage):
        return semver.compare(semver_value(a), semver_value(b))
    raise _NoSuchOverload()


def _member(name: str, ret: cel.Type, params_q: list, params_s: list, impl) -> cel.FunctionDecl:
    """One function with a Quantity and a Semver overload sharing one implementation."""
    return cel.FunctionDecl(name, [
        cel.Overload(f"quantity_{name}", ret, params_q, is_member=True, impl=impl),
        cel.Overload(f"semver_{name}", ret, params_s, is_member=True),
    ])


def _semver_field(field: str):
    def get(v: object) -> int:
        if not isinstance(v, SemverMessage):
            raise _NoSuchOverload()
        return getattr(v, field)
    return get


def quantity_and_semver_functions() -> list[cel.FunctionDecl]:
    fn, ov = cel.FunctionDecl, cel.Overload
    return [
        fn("quantity", [ov("string_to_quantity", Q, [STRING], impl=_quantity)]),
        fn("isQuantity", [ov("is_quantity_string", BOOL, [STRING], impl=_is_quantity)]),
        fn("sign", [ov("quantity_sign", INT, [Q], impl=_sign)]),
        fn("asApproximateFloat", [ov("quantity_get_float", DOUBLE, [Q], is_member=True,
                                     impl=lambda q: float(_q(q)))]),
        fn("asInteger", [ov("quantity_get_int", INT, [Q], is_member=True, impl=_as_integer)]),
        fn("isInteger", [ov("quantity_is_integer", BOOL, [Q], is_member=True, impl=_is_integer)]),
        fn("add", [ov("quantity_add", Q, [Q, Q], is_member=True, impl=_add),
                   ov("quantity_add_int", Q, [Q, INT], is_member=True, impl=_add)]),
        fn("sub", [ov("quantity_sub", Q, [Q, Q], is_member=True, impl=_sub),
                   ov("quantity_sub_int", Q, [Q, INT], is_member=True, impl=_sub)]),
        fn("semver", [ov("string_to_semver", S, [STRING], impl=_semver),
                      ov("string_bool_to_semver", S, [STRING, BOOL], impl=_semver)]),
        fn("isSemver", [ov("is_semver_string", BOOL, [STRING], impl=_is_semver),
                        ov("is_semver_string_bool", BOOL, [STRING, BOOL], impl=_is_semver)]),
        fn("major", [ov("semver_major", INT, [S], is_member=True, impl=_semver_field("major"))]),
        fn("minor", [ov("semver_minor", INT, [S], is_member=True, impl=_semver_field("minor"))]),
        fn("patch", [ov("semver_patch", INT, [S], is_member=True, impl=_semver_field("patch"))]),
        _member("isGreaterThan", BOOL, [Q, Q], [S, S], lambda a, b: _compare(a, b) == 1),
        _member("isLessThan", BOOL, [Q, Q], [S, S], lambda a, b: _compare(a, b) == -1),
        _member("compareTo", INT, [Q, Q], [S, S], _compare),
    ]


# --- lists (k8s: library/lists.go) and includes -------------------------------------------

def cel_equal(a: object, b: object) -> bool:
    """CEL heterogeneous equality: bool never equals a number, numbers compare by value."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if type(a) is not type(b):
        return False
    return a == b


def _includes(x: object, y: object) -> bool:
    """k8s: dynamic-resource-allocation/cel/compile.go `includes` (spec §4.5)."""
    if isinstance(x, list):
        if len(x) > INCLUDES_MAX_LIST:
            raise ValueError(f"'includes' function cannot be applied to lists longer than "
                             f"{INCLUDES_MAX_LIST} values")
        return any(cel_equal(e, y) for e in x)
    return cel_equal(x, y)


def _ordered(values: list) -> list:
    kinds = {float if isinstance(v, (int, float)) and not isinstance(v, bool) else type(v) for v in values}
    if len(kinds) > 1 or kinds & {bool, list, dict, type(None)}:
        raise _NoSuchOverload()
    return values


def _min(values: list) -> object:
    if not values:
        raise ValueError("min called on empty list")
    return min(_ordered(values))


def _max(values: list) -> object:
    if not values:
        raise ValueError("max called on empty list")
    return max(_ordered(values))


def _sum(values: list) -> object:
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in values):
        raise _NoSuchOverload()
    return sum(values)


def _is_sorted(values: list) -> bool:
    _ordered(values)
    return all(a <= b for a, b in zip(values, values[1:]))


def list_functions(with_includes: bool) -> list[cel.FunctionDecl]:
    fn, ov = cel.FunctionDecl, cel.Overload
    decls = [
        fn("isSorted", [ov("list_is_sorted", BOOL, [LIST_DYN], is_member=True, impl=_is_sorted)]),
        fn("sum", [ov("list_sum", DYN, [LIST_DYN], is_member=True, impl=_sum)]),
        fn("min", [ov("list_min", DYN, [LIST_DYN], is_member=True, impl=_min)]),
        fn("max", [ov("list_max", DYN, [LIST_DYN], is_member=True, impl=_max)]),
    ]
    if with_includes:
        decls.append(fn("includes", _includes_overloads()))
    return decls


def _includes_overloads() -> list[cel.Overload]:
    """cel-expr-python registers no runtime function for a `dyn` parameter, so `includes`
    gets one overload per concrete pair of an attribute's possible types."""
    receivers = [("list", LIST_DYN), ("string", STRING), ("int", INT), ("uint", UINT),
                 ("double", DOUBLE), ("bool", BOOL), ("semver", S)]
    args = receivers[1:]
    return [cel.Overload(f"{a}_includes_{b}", BOOL, [ta, tb], is_member=True, impl=_includes)
            for a, ta in receivers for b, tb in args]


# --- regex (k8s: library/regex.go) ---------------------------------------------------------

# RE2, like Go's regexp: linear time, so `find` cannot hang on a backtracking pattern
# (Python's re takes 2^n steps for "(a*)*b" on n a's). Parse errors are returned, not logged.
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False
# RE2's error texts -> Go regexp/syntax ErrorCode texts
_GO_REGEXP_ERRORS = {"missing )": "missing closing )", "missing ]": "missing closing ]",
                     "bad repetition operator": "invalid nested repetition operator",
                     "invalid repetition size": "invalid repeat count",
                     "trailing \\": "trailing backslash at end of expression",
                     "invalid named capture group": "invalid named capture",
                     "invalid perl operator": "invalid or unsupported Perl syntax"}


def _go_regexp_error(err: Exception) -> str:
    text = err.args[0].decode("utf-8", "replace") if err.args and isinstance(err.args[0], bytes) else str(err)
    code, sep, expr = text.partition(": ")
    return f"{_GO_REGEXP_ERRORS.get(code, code)}: `{expr}`" if sep else text


@lru_cache(maxsize=1024)
def _regex(pattern: str):
    try:
        return re2.compile(pattern, _RE2_OPTIONS)
    except re2.error as err:
        raise ValueError(f"error parsing regexp: {_go_regexp_error(err)}") from None


def _find(s: str, pattern: str) -> str:
    m = _regex(pattern).search(s)
    return m.group(0) if m else ""


def _find_all(s: str, pattern: str, limit: int = -1) -> list:
    if limit == 0:
        return []
    found = [m.group(0) for m in _regex(pattern).finditer(s)]
    return found if limit < 0 else found[:limit]


def regex_functions() -> list[cel.FunctionDecl]:
    fn, ov = cel.FunctionDecl, cel.Overload
    return [
        fn("find", [ov("string_find_string", STRING, [STRING, STRING], is_member=True, impl=_find)]),
        fn("findAll", [ov("string_find_all_string", cel.Type.List(STRING), [STRING, STRING],
                          is_member=True, impl=_find_all),
                       ov("string_find_all_string_int", cel.Type.List(STRING), [STRING, STRING, INT],
                          is_member=True, impl=_find_all)]),
    ]


# --- cross-type numeric comparisons (cel.CrossTypeNumericComparisons(true), BASE) ---------

COMPARISON_OPERATORS = {"_<_": "less", "_<=_": "less_equals", "_>_": "greater", "_>=_": "greater_equals"}
_SAME_KIND = [("bool", BOOL), ("int64", INT), ("uint64", UINT), ("double", DOUBLE), ("string", STRING),
              ("bytes", BYTES), ("timestamp", cel.Type.TIMESTAMP), ("duration", cel.Type.DURATION)]
_NUMERIC = [("int64", INT), ("uint64", UINT), ("double", DOUBLE)]


def comparison_functions() -> list[cel.FunctionDecl]:
    """Declarations only: cel-cpp's runtime already implements every pair, the checker
    just does not declare the mixed numeric ones. The stdlib's own declarations are
    excluded in the environment's config so that these replace them."""
    decls = []
    for op, prefix in COMPARISON_OPERATORS.items():
        overloads = [cel.Overload(f"{prefix}_{name}", BOOL, [t, t]) for name, t in _SAME_KIND]
        overloads += [cel.Overload(f"{prefix}_{a}_{b}", BOOL, [ta, tb])
                      for a, ta in _NUMERIC for b, tb in _NUMERIC if a != b]
        decls.append(cel.FunctionDecl(op, overloads))
    return decls
