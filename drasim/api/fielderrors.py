"""Field-level validation errors, printed exactly as the API server prints them.

k8s: staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go (Error, ErrorBody)
     staging/src/k8s.io/apimachinery/pkg/util/validation/field/path.go (Path.String)

str(FieldError) is Go's field.Error.Error(): `<path>: <Type text>[: <value>][: <detail>]`.
How the bad value is printed depends on its Go type, and we mirror that:
strings are Go-quoted (%q), ints and bools use %v, everything else is JSON.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable

# ErrorType values are the machine-readable CauseType strings of the API.
NOT_FOUND = "FieldValueNotFound"
REQUIRED = "FieldValueRequired"
DUPLICATE = "FieldValueDuplicate"
INVALID = "FieldValueInvalid"
NOT_SUPPORTED = "FieldValueNotSupported"
FORBIDDEN = "FieldValueForbidden"
TOO_LONG = "FieldValueTooLong"
TOO_MANY = "FieldValueTooMany"
TOO_FEW = "FieldValueTooFew"
INTERNAL = "InternalError"
TYPE_INVALID = "FieldValueTypeInvalid"
TOO_SHORT = "FieldValueTooShort"

# k8s: field/errors.go ErrorType.String()
_TYPE_TEXT = {
    NOT_FOUND: "Not found", REQUIRED: "Required value", DUPLICATE: "Duplicate value",
    INVALID: "Invalid value", NOT_SUPPORTED: "Unsupported value", FORBIDDEN: "Forbidden",
    TOO_LONG: "Too long", TOO_MANY: "Too many", TOO_FEW: "Too few", INTERNAL: "Internal error",
    TYPE_INVALID: "Invalid value", TOO_SHORT: "Too short",
}
# Types whose body never shows the bad value (ErrorBody's first case).
_NO_VALUE = frozenset({REQUIRED, FORBIDDEN, TOO_LONG, TOO_SHORT, INTERNAL})


class _Omit:
    """Go's omitValue: the body shows only the type text (TooMany with a negative count)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "OMIT"


OMIT = _Omit()


class Path:
    """A field path such as `spec.devices[0].attributes[foo]` (k8s field.Path).

    Immutable and cheap: it only carries the rendered string.
    """

    __slots__ = ("_text",)

    def __init__(self, *names: str) -> None:
        self._text = ".".join([n for n in names if n])

    @classmethod
    def _raw(cls, text: str) -> "Path":
        p = cls.__new__(cls)
        p._text = text
        return p

    def child(self, *names: str) -> "Path":
        text = self._text
        for name in names:
            text = f"{text}.{name}" if text else name
        return Path._raw(text)

    def index(self, i: int) -> "Path":
        return Path._raw(f"{self._text}[{i}]")

    def key(self, k: str) -> "Path":
        return Path._raw(f"{self._text}[{k}]")

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Path({self._text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Path) and other._text == self._text

    def __hash__(self) -> int:
        return hash(self._text)


def go_quote(s: str) -> str:
    """Go's strconv.Quote: double quotes, Go escapes, printable Unicode kept as is."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif ch in _GO_ESCAPES:
            out.append(_GO_ESCAPES[ch])
        elif ch == " " or (ch.isprintable() and not 0xD800 <= o <= 0xDFFF):
            out.append(ch)
        elif o < 0x80:
            out.append(f"\\x{o:02x}")
        elif o <= 0xFFFF:
            out.append(f"\\u{o:04x}")
        else:
            out.append(f"\\U{o:08x}")
    out.append('"')
    return "".join(out)


_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def go_json(value: Any) -> str:
    """Go's json.Marshal output: compact, HTML characters escaped as \\u003c etc."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (ValueError, TypeError):  # NaN, circular structures: nothing sensible to print
        return repr(value)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def format_value(value: Any) -> str:
    """How ErrorBody prints a bad value (simple types with %v/%q, the rest as JSON)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_float(value)
    return go_json(value)


def _go_float(v: float) -> str:
    """%v of a float64: shortest digits, exponent form only below 1e-4 or from 1e21 on."""
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "+Inf" if v > 0 else "-Inf"
    if v.is_integer() and abs(v) < 1e21:
        return str(int(v))
    text = repr(v)
    if "e" in text:
        mant, exp = text.split("e")
        return f"{mant}e{'-' if exp.startswith('-') else '+'}{abs(int(exp)):02d}"
    return text


@dataclass(frozen=True, slots=True)
class FieldError:
    """One field error; str() is exactly Go's field.Error.Error()."""

    type: str
    field: str
    bad_value: Any = ""
    detail: str = ""

    def body(self) -> str:
        """k8s: field/errors.go ErrorBody — the message without the field path."""
        if self.type not in _TYPE_TEXT:
            text = f'Internal error: unhandled error code: <unknown error "{self.type}">: please report this'
        elif self.type in _NO_VALUE or self.bad_value is OMIT:
            text = _TYPE_TEXT[self.type]
        else:
            text = f"{_TYPE_TEXT[self.type]}: {format_value(self.bad_value)}"
        if self.detail:
            text += f": {self.detail}"
        return text

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}"


# Constructors, named after Go's field.X helpers. `path` is a Path or a string.

def invalid(path: Path | str, value: Any, detail: str) -> FieldError:
    return FieldError(INVALID, str(path), value, detail)


def required(path: Path | str, detail: str = "") -> FieldError:
    return FieldError(REQUIRED, str(path), "", detail)


def duplicate(path: Path | str, value: Any) -> FieldError:
    return FieldError(DUPLICATE, str(path), value)


def not_found(path: Path | str, value: Any, detail: str = "") -> FieldError:
    return FieldError(NOT_FOUND, str(path), value, detail)


def forbidden(path: Path | str, detail: str) -> FieldError:
    return FieldError(FORBIDDEN, str(path), "", detail)


def not_supported(path: Path | str, value: Any, valid: Iterable[str]) -> FieldError:
    """k8s: field.NotSupported — lists the supported values, each Go-quoted."""
    quoted = [go_quote(str(v)) for v in valid]
    detail = "supported values: " + ", ".join(quoted) if quoted else ""
    return FieldError(NOT_SUPPORTED, str(path), value, detail)


def too_long(path: Path | str, max_length: int) -> FieldError:
    """k8s: field.TooLong — the value itself is never shown."""
    if max_length >= 0:
        detail = f"may not be more than {max_length} {'byte' if max_length == 1 else 'bytes'}"
    else:
        detail = "value is too long"
    return FieldError(TOO_LONG, str(path), "<value omitted>", detail)


def too_many(path: Path | str, actual: int, maximum: int) -> FieldError:
    """k8s: field.TooMany — `Too many: 129: must have at most 128 items`."""
    if maximum >= 0:
        detail = f"must have at most {maximum} {'item' if maximum == 1 else 'items'}"
    else:
        detail = "has too many items"
    return FieldError(TOO_MANY, str(path), actual if actual >= 0 else OMIT, detail)


def internal(path: Path | str, detail: str) -> FieldError:
    return FieldError(INTERNAL, str(path), detail, detail)


def aggregate_message(errors: Iterable[object]) -> str:
    """k8s: ErrorList.ToAggregate().Error(): duplicates dropped, one as is, several as `[a, b]`."""
    seen: dict[str, None] = {}
    for e in errors:
        seen.setdefault(str(e), None)
    msgs = list(seen)
    if len(msgs) == 1:
        return msgs[0]
    return "[" + ", ".join(msgs) + "]"
