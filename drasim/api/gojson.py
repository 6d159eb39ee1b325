"""How values look to the API server's Go decoder after kubectl has sent them.

kubectl reads a manifest into an unstructured map and sends it as JSON: integers that fit
int64 (or uint64, go-yaml) stay integers, anything larger or fractional becomes a float64,
and Go's encoder prints float64 in its own way. The decoder's messages quote that text.

k8s: sigs.k8s.io/yaml/goyaml.v2 resolve.go (ParseInt, ParseUint, then ParseFloat),
     apimachinery/pkg/util/json (json.Number: Int64, else Float64),
     encoding/json encode.go floatEncoder ('f' unless < 1e-6 or >= 1e21, then 'e', "e-09" → "e-9"),
     time/format.go Parse (the error texts of time.Parse with layout RFC3339).
"""
from __future__ import annotations

import math
import re
from decimal import Decimal

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
UINT64_MAX = 2**64 - 1
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
RFC3339 = "2006-01-02T15:04:05Z07:00"


def json_kind(value: object) -> str:
    """The word encoding/json uses for a JSON value in `cannot unmarshal <kind>`."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def as_sent(value: int | float) -> int | float:
    """The number as kubectl sends it: integers beyond int64/uint64 become float64."""
    if isinstance(value, int) and not INT64_MIN <= value <= UINT64_MAX:
        try:
            return float(value)
        except OverflowError:
            return math.copysign(math.inf, value)
    return value


def number_text(value: int | float) -> str:
    """The JSON text Go writes for the number kubectl sends (strconv.FormatFloat(f, 'f'|'e', -1, 64))."""
    value = as_sent(value)
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        return "+Inf" if value > 0 else "-Inf" if value < 0 else "NaN"
    if value == 0:
        return "0" if math.copysign(1, value) > 0 else "-0"
    sign, digits, exp = Decimal(repr(value)).as_tuple()
    text = "".join(map(str, digits)).rstrip("0") or "0"
    point = len(digits) + exp   # position of the decimal point after the first digit run
    prefix = "-" if sign else ""
    if 1e-6 <= abs(value) < 1e21:
        if point <= 0:
            return f"{prefix}0.{'0' * -point}{text}"
        if point >= len(text):
            return prefix + text + "0" * (point - len(text))
        return f"{prefix}{text[:point]}.{text[point:]}"
    e = point - 1
    mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
    # 'e' is used from e+21 and below e-6; Go writes two exponent digits, then trims "e-07" to "e-7".
    return f"{prefix}{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"


def integer_value(value: int | float) -> int | None:
    """The integer strconv.ParseInt reads from the text kubectl sends, or None when that text is
    not an integer (a fraction, or an exponent such as 1e+21)."""
    if isinstance(value, int) and INT64_MIN <= value <= UINT64_MAX:
        return value
    text = number_text(value)
    return int(text) if _INTEGER.fullmatch(text) else None


_INTEGER = re.compile(r"-?[0-9]+")


# --- time.Parse(time.RFC3339, s) -------------------------------------------------------------
_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})")
# The layout's elements in order: (layout text, pattern of what the value must hold there).
_ELEMENTS = (("2006", r"\d{4}"), ("-", "-"), ("01", r"\d{2}"), ("-", "-"), ("02", r"\d{2}"), ("T", "[Tt]"),
             ("15", r"\d{2}"), (":", ":"), ("04", r"\d{2}"), (":", ":"), ("05", r"\d{2}(?:\.\d+)?"),
             ("Z07:00", r"[Zz]|[+-]\d{2}:\d{2}"))
_RANGES = {"01": (1, 12, "month"), "02": (1, 31, "day"), "15": (0, 23, "hour"), "04": (0, 59, "minute"),
           "05": (0, 59, "second")}
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _go_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def rfc3339_error(text: str) -> str | None:
    """time.Parse's error for a metav1.Time string, or None when it parses."""
    if _RFC3339.fullmatch(text) and _date_ok(text):
        return None
    rest, layout_rest = text, RFC3339
    head = f"parsing time {_go_quote(text)}"
    for layout, pattern in _ELEMENTS:
        m = re.match(pattern, rest)
        if not m:
            return f"{head} as {_go_quote(RFC3339)}: cannot parse {_go_quote(rest)} as {_go_quote(layout)}"
        if layout in _RANGES:
            lo, hi, name = _RANGES[layout]
            if not lo <= int(m.group()[:2]) <= hi:
                return f"{head}: {name} out of range"
        rest, layout_rest = rest[m.end():], layout_rest[len(layout):]
    if rest:
        return f"{head}: extra text: {_go_quote(rest)}"
    return f"{head}: day out of range"


def _date_ok(text: str) -> bool:
    year, month, day = int(text[:4]), int(text[5:7]), int(text[8:10])
    if not 1 <= month <= 12 or day < 1 or day > _DAYS[month - 1]:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if month == 2 and day == 29 and not leap:
        return False
    return int(text[11:13]) <= 23 and int(text[14:16]) <= 59 and int(text[17:19]) <= 59
