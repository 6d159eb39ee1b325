"""The API server's decode error for an object the fast check refused (api/decode.py).

Walks the compiled Go types in the order Go's decoder reads the JSON kubectl sends (object
keys sorted), as sigs.k8s.io/json does:
- a value of the wrong JSON type is an UnmarshalTypeError; the first is kept and decoding
  goes on (decode.go saveError), worded `json: cannot unmarshal string into Go struct field
  PodSpec.spec.nodeSelector of type map[string]string` — the innermost struct and the JSON
  names of the struct fields on the way, without list indexes or map keys;
- an error from a type's own UnmarshalJSON (Quantity, Time, IntOrString) ends decoding at once
  and is returned bare, without a field (quantity.go, time.go, intstr.go);
- unknown fields are strict errors, reported only when nothing else failed
  (serializer/json Serializer.unmarshal), at most 100, each once (kubernetes_patch.go).
Kubernetes does not say which list item or map entry failed; drasim adds the exact path in
parentheses when it says more than the message.
"""
from __future__ import annotations

import json
import math

from drasim.api import gojson
from drasim.api.decode import (BOOL, BYTES, FLOAT, INT, INTORSTRING, MAP, QUANTITY, RAW, SLICE, STRING, STRUCT,
                               TIME, GoType)
from drasim.api.quantity import QUANTITY_FORMAT_ERROR, QuantityError, parse_quantity

_MAX_STRICT_ERRORS = 100


class _Stop(Exception):
    """An UnmarshalJSON error: decoding ends with it."""


class _State:
    __slots__ = ("type_error", "unknown")

    def __init__(self) -> None:
        self.type_error: str | None = None
        self.unknown: list[str] = []


def report(t: GoType, obj: object) -> str | None:
    state = _State()
    try:
        _walk(t, obj, (), "", (), state)
    except _Stop as stop:
        return str(stop)
    if state.type_error is not None:
        return state.type_error
    if state.unknown:
        return "strict decoding error: " + ", ".join(f"unknown field {json.dumps(p)}" for p in state.unknown)
    return None


def unknown_fields(t: GoType, obj: object) -> list[str]:
    """The strict errors' paths alone, as far as decoding gets."""
    state = _State()
    try:
        _walk(t, obj, (), "", (), state)
    except _Stop:
        pass
    return state.unknown


def as_decoded(t: GoType, v: object) -> object:
    """A copy of a value that decodes, with whole floats in integer fields as ints (the
    decoder's int64 / int32); other values as they are."""
    kind = t.kind
    if v is None:
        return v
    if kind == STRUCT:
        return {k: (as_decoded(t.fields[k], x) if k in t.fields else x) for k, x in v.items()}
    if kind == SLICE:
        return [as_decoded(t.elem, x) for x in v]
    if kind == MAP:
        return {k: as_decoded(t.elem, x) for k, x in v.items()}
    if kind in (INT, INTORSTRING) and isinstance(v, float):
        return gojson.integer_value(v)
    return v


def strict_path(path: tuple) -> str:
    """sigs.k8s.io/json's strict path: keys joined with ".", indexes as "[i]"."""
    out = ""
    for piece in path:
        out += f"[{piece}]" if isinstance(piece, int) else (f".{piece}" if out else piece)
    return out


_SHOWN = 60   # characters of a refused value a message quotes ("..." after 57 when longer)


def _value_text(value: object) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return gojson.number_text(value)
    text = _json_prefix(value, _SHOWN + 1)
    return text if len(text) <= _SHOWN else text[:_SHOWN - 3] + "..."


def _json_prefix(value: object, limit: int) -> str:
    """The first `limit` (or more) characters of json.dumps(value, sort_keys=True, default=str),
    written with an explicit stack and stopped there: a refused value may nest 10,000 levels
    and hold megabytes, and the message quotes only its start."""
    out: list[str] = []
    size = 0
    stack: list = [value]
    while stack and size < limit:
        v = stack.pop()
        if v.__class__ is _Text:
            piece = v.text
        elif isinstance(v, dict):
            keys = sorted(v)
            piece = "{"
            stack.append(_Text("}"))
            for i in range(len(keys) - 1, -1, -1):
                stack.append(v[keys[i]])
                stack.append(_Text(("" if i == 0 else ", ") + json.dumps(keys[i]) + ": "))
        elif isinstance(v, list):
            piece = "["
            stack.append(_Text("]"))
            for i in range(len(v) - 1, -1, -1):
                stack.append(v[i])
                if i:
                    stack.append(_Text(", "))
        else:
            piece = json.dumps(v, default=str)
        out.append(piece)
        size += len(piece)
    return "".join(out)


class _Text:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _type_error(state: _State, got: str, t: GoType, struct: str, stack: tuple, path: tuple) -> None:
    if state.type_error is not None:
        return
    field = ".".join(stack)
    where = f"Go struct field {struct}.{field}" if struct or field else "Go value"
    message = f"json: cannot unmarshal {got} into {where} of type {t.name}"
    exact = strict_path(path)
    state.type_error = message + (f" ({exact})" if exact != field else "")


def _stop(message: str, path: tuple, value: object, quote_value: bool = True) -> _Stop:
    where = strict_path(path)
    return _Stop(f"{message} ({where}: {_value_text(value)})" if quote_value else f"{message} ({where})")


def _check_finite(value: object, path: tuple) -> None:
    if isinstance(value, float) and not math.isfinite(value):   # kubectl cannot encode it
        raise _stop(f"json: unsupported value: {gojson.number_text(value)}", path, value, quote_value=False)


def _walk(t: GoType, v: object, path: tuple, struct: str, stack: tuple, state: _State) -> None:
    if v is None:   # null decodes into anything (decode.go literalStore)
        return
    kind = t.kind
    if kind == STRUCT:
        if not isinstance(v, dict):
            return _type_error(state, gojson.json_kind(v), t, struct, stack, path)
        for key in sorted(v, key=str):
            field = t.fields.get(key)
            if field is None:
                name = strict_path(path + (key,))
                if len(state.unknown) < _MAX_STRICT_ERRORS and name not in state.unknown:
                    state.unknown.append(name)
                continue
            _walk(field, v[key], path + (key,), t.struct, stack + (key,), state)
    elif kind == SLICE:
        if not isinstance(v, list):
            return _type_error(state, gojson.json_kind(v), t, struct, stack, path)
        for i, item in enumerate(v):
            _walk(t.elem, item, path + (i,), struct, stack, state)
    elif kind == MAP:
        if not isinstance(v, dict):
            return _type_error(state, gojson.json_kind(v), t, struct, stack, path)
        for key in sorted(v, key=str):
            _walk(t.elem, v[key], path + (key,), struct, stack, state)
    elif kind in (STRING, BYTES):
        if not isinstance(v, str):
            _type_error(state, gojson.json_kind(v), t, struct, stack, path)
    elif kind == BOOL:
        if not isinstance(v, bool):
            _type_error(state, gojson.json_kind(v), t, struct, stack, path)
    elif kind == INT:
        _walk_int(t, v, path, struct, stack, state)
    elif kind == FLOAT:
        _check_finite(v, path)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            _type_error(state, gojson.json_kind(v), t, struct, stack, path)
    elif kind == QUANTITY:
        _walk_quantity(v, path)
    elif kind == TIME:
        if not isinstance(v, str):   # Time.UnmarshalJSON reads a string first
            raise _stop(f"json: cannot unmarshal {gojson.json_kind(v)} into Go value of type string", path, v)
        problem = gojson.rfc3339_error(v)
        if problem is not None:
            raise _stop(problem, path, v, quote_value=False)
    elif kind == INTORSTRING:
        _walk_intorstring(v, path)
    elif kind == RAW:
        _walk_raw(v, path)
    else:
        raise AssertionError(f"unknown compiled kind {kind}")


def _walk_raw(v: object, path: tuple) -> None:
    """Free-form JSON holds no NaN or infinity (JSON has no way to write them)."""
    if isinstance(v, dict):
        for key in sorted(v, key=str):
            _walk_raw(v[key], path + (key,))
    elif isinstance(v, list):
        for i, item in enumerate(v):
            _walk_raw(item, path + (i,))
    else:
        _check_finite(v, path)


def _walk_int(t: GoType, v: object, path: tuple, struct: str, stack: tuple, state: _State) -> None:
    _check_finite(v, path)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return _type_error(state, gojson.json_kind(v), t, struct, stack, path)
    n = gojson.integer_value(v)
    lo, hi = t.bounds
    if n is None or not lo <= n <= hi:   # strconv.ParseInt fails, or the value overflows the type
        _type_error(state, f"number {gojson.number_text(v)}", t, struct, stack, path)


def _walk_quantity(v: object, path: tuple) -> None:
    """Quantity.UnmarshalJSON: a string or a bare number, through ParseQuantity."""
    _check_finite(v, path)
    message = QUANTITY_FORMAT_ERROR
    if isinstance(v, str) or (isinstance(v, (int, float)) and not isinstance(v, bool)):
        try:
            parse_quantity(v if isinstance(v, str) else gojson.number_text(v))
            return
        except QuantityError as e:
            message = str(e)   # ErrFormatWrong or ErrSuffix
        except ValueError:
            pass
    raise _stop(message, path, v)


def _walk_intorstring(v: object, path: tuple) -> None:
    """IntOrString.UnmarshalJSON: a string, else an int32 (json.Unmarshal, its own message)."""
    if isinstance(v, str):
        return
    _check_finite(v, path)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise _stop(f"json: cannot unmarshal {gojson.json_kind(v)} into Go value of type int32", path, v)
    n = gojson.integer_value(v)
    if n is None or not gojson.INT32_MIN <= n <= gojson.INT32_MAX:
        raise _stop(f"json: cannot unmarshal number {gojson.number_text(v)} into Go value of type int32", path, v,
                    quote_value=False)
