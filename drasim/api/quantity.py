"""Kubernetes resource quantities ("64Gi", "500m", "1e3"), exact.

k8s: staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go

A Quantity keeps its value as an exact Fraction and the suffix family it was
written in (binary, decimal, exponent), which is what Kubernetes uses to print
the canonical form. Comparison and equality are by value: 64Gi == 65536Mi.
"""
from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache, total_ordering

BINARY_SI = "BinarySI"
DECIMAL_SI = "DecimalSI"
DECIMAL_EXPONENT = "DecimalExponent"

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 10**3), "": 1,
            "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}
_DECIMAL_ORDER = ["n", "u", "m", "", "k", "M", "G", "T", "P", "E"]  # 10^(3*(i-3))
_BINARY_ORDER = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]

# sign, digits (with optional fraction), then a suffix: binary, exponent or decimal SI.
_PATTERN = re.compile(r"^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?[0-9]+|n|u|m|k|M|G|T|P|E)?\Z")

QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


_INT64_MAX = 2**63 - 1
# Python refuses to turn ints of more than 4300 digits into text (sys.get_int_max_str_digits);
# Kubernetes accepts exponents such as 1e1000000. Numbers past this size are written with an exponent.
_LONG_BITS = 12_000   # about 3600 decimal digits


SUFFIX_ERROR = "unable to parse quantity's suffix"   # k8s: resource.ErrSuffix
MAX_EXPONENT = 1_000_000


class QuantityError(ValueError):
    """A string that is not a Kubernetes quantity."""


@total_ordering
class Quantity:
    """An exact quantity with the format family it was written in."""

    __slots__ = ("value", "format", "_text")

    def __init__(self, value: Fraction | int, format: str = DECIMAL_SI, text: str | None = None) -> None:
        self.value = Fraction(value)
        self.format = format
        self._text = text

    @classmethod
    def parse(cls, text: str | int | float) -> "Quantity":
        return _parse(str(text).strip() if not isinstance(text, str) else text)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Quantity):
            return self.value == other.value
        return NotImplemented

    def __lt__(self, other: "Quantity") -> bool:
        return self.value < other.value

    def __hash__(self) -> int:
        return hash(self.value)

    def __add__(self, other: "Quantity") -> "Quantity":
        return Quantity(self.value + other.value, self.format)

    def __sub__(self, other: "Quantity") -> "Quantity":
        return Quantity(self.value - other.value, self.format)

    def __repr__(self) -> str:
        return f"Quantity({self.canonical()!r})"

    def __str__(self) -> str:
        return self.canonical()

    def is_integer(self) -> bool:
        return self.value.denominator == 1

    def milli_value(self) -> int:
        """Value in thousandths, rounded up as Kubernetes' MilliValue does."""
        return _ceil(self.value * 1000)

    def int_value(self) -> int:
        """Value rounded up to an integer, as Kubernetes' Value() does."""
        return _ceil(self.value)

    def canonical(self) -> str:
        """The canonical string Kubernetes prints (CanonicalizeBytes), e.g. 64Gi, 500m, 1k."""
        return format_quantity(self.value, self.format)


def _ceil(v: Fraction) -> int:
    return -((-v.numerator) // v.denominator)


@lru_cache(maxsize=65536)
def _parse(text: str) -> Quantity:
    m = _PATTERN.match(text)
    if not m:
        raise QuantityError(QUANTITY_FORMAT_ERROR)
    sign, digits, suffix = m.group(1), m.group(2), m.group(3) or ""
    number = Fraction(digits if not digits.startswith(".") else "0" + digits)
    if suffix in _BINARY:
        value, fmt = number * _BINARY[suffix], BINARY_SI
    elif len(suffix) > 1:   # an exponent; a lone "E" is exa (k8s: interpret tries the tables first)
        value, fmt = _times_power_of_ten(number, _exponent(suffix[1:])), DECIMAL_EXPONENT
    else:
        value, fmt = number * _DECIMAL[suffix], DECIMAL_SI
    # k8s: ParseQuantity rounds a non-zero magnitude up to a whole nano unit, and caps BinarySI
    # at the int64 maximum.
    if (value * 10**9).denominator != 1:
        value = Fraction(_ceil(value * 10**9), 10**9)
    if fmt == BINARY_SI and value > _INT64_MAX:
        value = Fraction(_INT64_MAX)
    if sign == "-":
        value = -value
    return Quantity(value, fmt, text)


def _exponent(text: str) -> int:
    """k8s: suffixHandler.interpret — strconv.ParseInt(…, 64), then int32(parsed), which wraps."""
    digits = text.lstrip("+-")
    if len(digits) > 19 or not -(2**63) <= int(text) < 2**63:
        raise QuantityError(SUFFIX_ERROR)
    exp = int(text)
    return (exp + 2**31) % 2**32 - 2**31


def _times_power_of_ten(number: Fraction, exp: int) -> Fraction:
    """number × 10^exp. Below a nano unit ParseQuantity rounds up to 1n anyway, so tiny values
    are not expanded; positive exponents past MAX_EXPONENT are more than drasim computes
    (Kubernetes keeps them unexpanded; 10^1000000 takes drasim a quarter of a second)."""
    if number and exp < -(9 + len(str(number.numerator)) + 1):
        return Fraction(1, 10**9)
    if exp > MAX_EXPONENT:
        raise QuantityError(f"drasim cannot hold a quantity with an exponent above {MAX_EXPONENT} "
                            f"(Kubernetes accepts up to {2**31 - 1})")
    return number * Fraction(10) ** exp


def parse_quantity(text: str | int | float) -> Quantity:
    """Parse a quantity; raises QuantityError with Kubernetes' message."""
    if isinstance(text, bool):
        raise QuantityError(QUANTITY_FORMAT_ERROR)
    if isinstance(text, (int, float)):
        text = repr(text) if isinstance(text, float) else str(text)
        if text.endswith(".0"):
            text = text[:-2]
    return _parse(text)


def is_quantity(text: object) -> bool:
    try:
        parse_quantity(text)  # type: ignore[arg-type]
        return True
    except QuantityError:
        return False


def format_quantity(value: Fraction, fmt: str = DECIMAL_SI) -> str:
    """Canonical form: the largest suffix that keeps the mantissa an integer.

    Values that are not a whole multiple of a nano unit are rounded up to it,
    as Kubernetes does. Binary format falls back to decimal for fractions.
    """
    value = Fraction(value)
    if value.denominator != 1 and (value * 10**9).denominator != 1:
        value = Fraction(_ceil(value * 10**9), 10**9)
    if value == 0:
        return "0"
    if value.numerator.bit_length() > _LONG_BITS:
        # k8s: infDecAmount.AsCanonicalBytes — factors of ten into the exponent, made a multiple of 3
        mantissa, exp = decimal_parts(value)
        while exp % 3:
            mantissa, exp = mantissa * 10, exp - 1
        return f"{mantissa}e{exp}"
    sign = "-" if value < 0 else ""
    mag = -value if value < 0 else value
    if fmt == BINARY_SI and mag.denominator == 1 and mag >= 1024:
        n = mag.numerator
        best = 0
        for i in range(1, len(_BINARY_ORDER)):
            if n % (1024**i) == 0:
                best = i
        if best:
            return f"{sign}{n // 1024**best}{_BINARY_ORDER[best]}"
        return f"{sign}{n}"
    if fmt == BINARY_SI and mag.denominator == 1:
        return f"{sign}{mag.numerator}"
    # decimal: pick the largest power of 1000 that leaves an integer mantissa
    scaled = mag * 10**9  # integer now
    n = scaled.numerator
    exp3 = 0  # number of factors of 1000 in n
    # SI suffixes end at E (10^18); an exponent has no such end (k8s: AsCanonicalBytes)
    while (exp3 < 9 or fmt == DECIMAL_EXPONENT) and n and n % 1000 == 0:
        n //= 1000
        exp3 += 1
    if fmt == DECIMAL_EXPONENT:
        power = 3 * (exp3 - 3)
        return f"{sign}{n}" if power == 0 else f"{sign}{n}e{power}"
    return f"{sign}{n}{_DECIMAL_ORDER[exp3]}"


def decimal_parts(value: Fraction) -> tuple[int, int]:
    """(mantissa, exponent) with value == mantissa * 10**exponent and no factor of ten left in the
    mantissa, computed without turning a huge int into text. value's denominator divides 10**9
    (true of every parsed quantity). Past ~60 significant digits the mantissa is rounded up:
    only sums of huge quantities get there."""
    n = value.numerator * (10**9 // value.denominator)
    exp = -9
    negative, n = n < 0, abs(n)
    drop = max(0, int(n.bit_length() * 0.30102999566) - 60)
    if drop:
        n, rest = divmod(n, 10**drop)
        n, exp = n + (1 if rest else 0), exp + drop
    while n and n % 10 == 0:
        n, exp = n // 10, exp + 1
    return (-n if negative else n), exp


def exact_text(value: Fraction) -> str:
    """value as text that Fraction() reads back ("3/4", "10e999999"), also for values whose
    digits Python will not print."""
    if value.numerator.bit_length() <= _LONG_BITS and value.denominator.bit_length() <= _LONG_BITS:
        return str(value)
    mantissa, exp = decimal_parts(value)
    return f"{mantissa}e{exp}"
