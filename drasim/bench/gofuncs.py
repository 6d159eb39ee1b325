"""Values and functions of the Go template subset: printing, truth, built-ins, scheduler_perf funcs.

k8s: test/integration/scheduler_perf/operations.go (getTemplateFuncs: AddInt … Mod use float64
arithmetic and truncate; toFloat64 also parses strings); the newer templates also call `Int`
and `JSON`. Go: text/template/funcs.go (built-ins), fmt (%v), encoding/json (Marshal).
"""
from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any, Callable

from drasim.errors import InputError


class GoTemplateError(InputError):
    """A template that does not parse or fails to execute (text/template's error text)."""


# --- printing (fmt %v) ------------------------------------------------------------------------

def go_float(f: float) -> str:
    """strconv.FormatFloat(f, 'g', -1, 64), as %v prints a float64: 10 → "10", 1e6 → "1e+06"."""
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    if f == 0:
        return "-0" if math.copysign(1, f) < 0 else "0"
    sign, digits, exp = Decimal(repr(f)).normalize().as_tuple()
    ds = "".join(map(str, digits))
    point = len(ds) + exp           # decimal point position (digs.dp in strconv)
    x = point - 1
    neg = "-" if sign else ""
    if x < -4 or x >= 6:           # shortest %g decides with precision 6 (strconv/ftoa.go)
        mant = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
        return f"{neg}{mant}e{'-' if x < 0 else '+'}{abs(x):02d}"
    if point <= 0:
        return f"{neg}0.{'0' * -point}{ds}"
    if point >= len(ds):
        return neg + ds + "0" * (point - len(ds))
    return f"{neg}{ds[:point]}.{ds[point:]}"


def go_print(value: Any) -> str:
    """fmt.Sprint of one value (%v)."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return "[" + " ".join(go_print(v) for v in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{go_print(k)}:{go_print(value[k])}" for k in sorted(value, key=str)) + "]"
    return str(value)


def truth(value: Any) -> bool:
    """text/template's truth: false, 0, nil and empty strings, lists and maps are false."""
    if value is None:
        return False
    if isinstance(value, (bool, int, float, str, list, tuple, dict)):
        return bool(value)
    return True


# --- scheduler_perf functions ------------------------------------------------------------------

def to_float64(value: Any) -> float:
    """k8s: operations.go toFloat64 — numbers, and strings that parse as a float."""
    if isinstance(value, bool) or value is None:
        raise GoTemplateError(f"cannot cast {go_print(value)} to float64")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            pass
    raise GoTemplateError(f"cannot cast {go_print(value)} to float64")


def _trunc(f: float) -> int:
    """Go's int(float64): truncation toward zero."""
    return int(f)


def add_float(*numbers: Any) -> float:
    total = 0.0
    for n in numbers:
        total += to_float64(n)   # left to right, as Go's loop does
    return total


def multiply_float(*numbers: Any) -> float:
    product = 1.0
    for n in numbers:
        product *= to_float64(n)
    return product


def subtract_float(a: Any, b: Any) -> float:
    return to_float64(a) - to_float64(b)


def divide_float(a: Any, b: Any) -> float:
    divisor = to_float64(b)
    if divisor == 0:
        raise GoTemplateError("division by zero")
    return to_float64(a) / divisor


def mod(a: Any, b: Any) -> int:
    """int(a) % int(b) with Go's sign rule (the result has the sign of a)."""
    x, y = _trunc(to_float64(a)), _trunc(to_float64(b))
    if y == 0:
        raise GoTemplateError("runtime error: integer divide by zero")
    r = abs(x) % abs(y)
    return -r if x < 0 else r


def to_int(value: Any) -> int:
    return _trunc(to_float64(value))


def to_json(value: Any) -> str:
    """encoding/json.Marshal: nil → null, sorted map keys, no spaces, HTML-safe escapes."""
    text = json.dumps(_json_ready(value), separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _json_ready(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)   # float64 10 encodes as 10, not 10.0
    if isinstance(value, dict):
        return {str(k): _json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    return value


# --- text/template built-ins -------------------------------------------------------------------

def _lazy(fn: Callable) -> Callable:
    fn.lazy = True   # receives thunks: and/or stop evaluating at the deciding argument
    return fn


@_lazy
def _or(*thunks: Callable[[], Any]) -> Any:
    value = None
    for t in thunks:
        value = t()
        if truth(value):
            return value
    return value


@_lazy
def _and(*thunks: Callable[[], Any]) -> Any:
    value = None
    for t in thunks:
        value = t()
        if not truth(value):
            return value
    return value


def _basic(a: Any, b: Any, op: str) -> tuple[Any, Any]:
    nums = (int, float)
    if isinstance(a, bool) or isinstance(b, bool):
        if not (isinstance(a, bool) and isinstance(b, bool)):
            raise GoTemplateError("incompatible types for comparison")
        if op not in ("eq", "ne"):
            raise GoTemplateError("invalid type for comparison")
    elif isinstance(a, nums) and isinstance(b, nums):
        pass
    elif isinstance(a, str) and isinstance(b, str):
        pass
    elif op in ("eq", "ne") and (a is None or b is None):
        pass
    else:
        raise GoTemplateError("incompatible types for comparison")
    return a, b


def _eq(a: Any, *others: Any) -> bool:
    if not others:
        raise GoTemplateError("missing argument for comparison")
    return any(x == y for x, y in (_basic(a, o, "eq") for o in others))


def _index(value: Any, *keys: Any) -> Any:
    for k in keys:
        try:
            value = value[k]
        except (IndexError, KeyError, TypeError):
            if isinstance(value, dict):
                return None
            raise GoTemplateError(f"index out of range: {go_print(k)}") from None
    return value


def _sprint(*args: Any) -> str:
    out = []
    for i, a in enumerate(args):
        if i and not isinstance(a, str) and not isinstance(args[i - 1], str):
            out.append(" ")
        out.append(go_print(a))
    return "".join(out)


def _len(value: Any) -> int:
    if isinstance(value, (str, list, tuple, dict)):
        return len(value)
    raise GoTemplateError(f"len of type {type(value).__name__}")


FUNCS: dict[str, Callable] = {
    # text/template built-ins
    "and": _and, "or": _or, "not": lambda v: not truth(v),
    "eq": _eq, "ne": lambda a, b: not _eq(a, b),
    "lt": lambda a, b: (lambda x, y: x < y)(*_basic(a, b, "lt")),
    "le": lambda a, b: (lambda x, y: x <= y)(*_basic(a, b, "le")),
    "gt": lambda a, b: (lambda x, y: x > y)(*_basic(a, b, "gt")),
    "ge": lambda a, b: (lambda x, y: x >= y)(*_basic(a, b, "ge")),
    "len": _len, "index": _index, "print": _sprint,
    "println": lambda *a: " ".join(go_print(x) for x in a) + "\n",
    # scheduler_perf
    "AddInt": lambda *n: _trunc(add_float(*n)),
    "SubtractInt": lambda a, b: _trunc(subtract_float(a, b)),
    "MultiplyInt": lambda *n: _trunc(multiply_float(*n)),
    "DivideInt": lambda a, b: _trunc(divide_float(a, b)),
    "AddFloat": add_float, "SubtractFloat": subtract_float,
    "MultiplyFloat": multiply_float, "DivideFloat": divide_float,
    "Mod": mod, "Int": to_int, "JSON": to_json,
}
