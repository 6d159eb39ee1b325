"""Selectors made of plain comparisons, judged without the CEL interpreter.

Most DeviceClasses say `device.driver == "x"`, often with `&& device.attributes["x"].model == "y"`.
Running such a selector through cel-cpp costs the device's whole CEL value (every attribute and
capacity converted) and an interpreter call, for what is a string comparison. A selector that is
a conjunction of such terms is parsed once (`plain_terms`) and judged here (`judge`); whenever
the outcome is not plainly a boolean — an attribute missing, or not a string, so that CEL would
raise or compare across types — `judge` answers None and the program decides. The device's own
error (an attribute that cannot be represented) is checked by the callers first, as
compile.go's DeviceMatches does before evaluating. tests/unit/cel/test_plain_selectors.py holds
this equal to the program on random devices and expressions.

CEL semantics relied on (cel-spec langdef.md): `&&` is commutative with respect to errors, so
one false term makes the conjunction false whatever the others do; string equality compares
code points.
"""
from __future__ import annotations

import re
from typing import Callable

_WS = "[ \t\n\r\f]*"   # CEL's whitespace (cel-spec syntax.md); other blanks do not compile
_STR = r'''(?:"([^"\\\n\r]*)"|'([^'\\\n\r]*)')'''   # a string literal without escapes
_IDENT = "([_a-zA-Z][_a-zA-Z0-9]*)"
_DRIVER = re.compile(rf"device\.driver{_WS}(==|!=){_WS}{_STR}|{_STR}{_WS}(==|!=){_WS}device\.driver")
_ATTRIBUTE = re.compile(rf"device\.attributes\[{_WS}{_STR}{_WS}\]\.{_IDENT}{_WS}=={_WS}{_STR}")
_SPACE = re.compile(_WS)
_AND = re.compile(f"{_WS}&&{_WS}")

# A term: ("driver", literal, equal) or ("attribute", domain, name, literal).
Term = tuple
UNDECIDED = object()   # what a lookup returns when CEL would not simply compare two strings


def plain_terms(expression: str) -> tuple[Term, ...] | None:
    """The terms of a conjunction of plain comparisons, or None for any other expression."""
    pos = _SPACE.match(expression).end()
    terms = []
    while True:
        m = _DRIVER.match(expression, pos)
        if m is not None:
            op1, d1, s1, d2, s2, op2 = m.groups()
            literal = next(v for v in (d1, s1, d2, s2) if v is not None)
            terms.append(("driver", literal, (op1 or op2) == "=="))
        else:
            m = _ATTRIBUTE.match(expression, pos)
            if m is None:
                return None
            dd, ds, name, ld, ls = m.groups()
            terms.append(("attribute", dd if dd is not None else ds, name, ld if ld is not None else ls))
        pos = m.end()
        joined = _AND.match(expression, pos)
        if joined is None:
            break
        pos = joined.end()
    if _SPACE.match(expression, pos).end() != len(expression):
        return None
    return tuple(terms)


def judge(terms: tuple[Term, ...], driver: str, lookup: Callable[[str, str], object]) -> bool | None:
    """True/False as the program would answer for a device without an error; None: undecided.

    *lookup(domain, name)* gives the attribute's string value, or UNDECIDED."""
    undecided = False
    for term in terms:
        if term[0] == "driver":
            value = (driver == term[1]) is term[2]
        else:
            found = lookup(term[1], term[2])
            if found is UNDECIDED:
                undecided = True
                continue
            value = found == term[3]
        if not value:
            return False
    return None if undecided else True


def input_lookup(attributes: dict) -> Callable[[str, str], object]:
    """Lookup in a built DeviceInput's `device.attributes` (domain -> name -> value)."""
    def lookup(domain: str, name: str) -> object:
        value = attributes.get(domain, {}).get(name, UNDECIDED)
        return value if type(value) is str else UNDECIDED
    return lookup


def raw_lookup(driver: str, device: dict) -> Callable[[str, str], object]:
    """Lookup in a ResourceSlice device entry, as device_input would build it: a name without a
    domain belongs to the driver, and of two names for one attribute the later wins."""
    def lookup(domain: str, name: str) -> object:
        found = None
        for key, attr in (device.get("attributes") or {}).items():
            d, sep, ident = key.partition("/")
            if (d, ident) == (domain, name) if sep else (driver, key) == (domain, name):
                found = attr
        if not isinstance(found, dict):
            return UNDECIDED
        # attribute_value takes the first kind set, in this order
        if found.get("int") is not None or found.get("bool") is not None:
            return UNDECIDED
        value = found.get("string")
        return value if type(value) is str else UNDECIDED
    return lookup
