"""Typed, strict decoding of an object, as kube-apiserver decodes a request body.

k8s: apimachinery/pkg/runtime/serializer/json/json.go (Serializer.unmarshal: a decoding error
     wins over strict errors), sigs.k8s.io/json internal/golang/encoding/json decode.go
     (UnmarshalTypeError, saveError keeps the first and decoding goes on; an UnmarshalJSON
     error stops it), kubernetes_patch.go (strict field paths), runtime.NewStrictDecodingError,
     apiserver/pkg/endpoints/handlers/rest.go transformDecodeError.

The Go types come from api/decode_schema.py (generated from types.go). Each type is compiled
once into a checker that only answers "decodes cleanly?" — the path every valid object takes.
When it says no, a second walk over the same compiled types, in the order Go decodes (kubectl
sends map keys sorted), finds the error and words it as the API server does.
"""
from __future__ import annotations

import math

from drasim.api import decode_schema, gojson
from drasim.api.passed import Passed
from drasim.api.quantity import QUANTITY_FORMAT_ERROR, QuantityError, parse_quantity

# Compiled type kinds.
STRUCT, SLICE, MAP, STRING, BYTES, BOOL, INT, FLOAT, QUANTITY, TIME, INTORSTRING, RAW = range(12)
_LEAF_KINDS = {"quantity": QUANTITY, "time": TIME, "microtime": TIME, "intorstring": INTORSTRING,
               "raw": RAW, "duration": STRING, "string": STRING}
_INT_RANGES = {"int": (gojson.INT64_MIN, gojson.INT64_MAX), "int64": (gojson.INT64_MIN, gojson.INT64_MAX),
               "int32": (gojson.INT32_MIN, gojson.INT32_MAX), "uint": (0, gojson.UINT64_MAX),
               "uint64": (0, gojson.UINT64_MAX), "uint32": (0, 2**32 - 1), "byte": (0, 255)}

# Fields drasim models that v1.37's types.go does not have yet (KEP-5963, alpha, gated:
# allocator/compatibility.py); dropped by admission when the gate is off.
EXTRA_FIELDS = {
    "resource/v1.DeviceCounterConsumption": (("compatibilityGroups", "[]string"),),
    "resource/v1.DeviceRequestAllocationResult": (("compatibilityGroups", "map[string][]string"),),
}


class GoType:
    """One Go type: its kind, the name reflect prints (`v1.Container`, `[]string`), and what it holds."""

    __slots__ = ("kind", "name", "struct", "fields", "elem", "bounds", "ok")

    def __init__(self, kind: int, name: str) -> None:
        self.kind, self.name = kind, name
        self.struct = ""          # a struct's bare name (UnmarshalTypeError.Struct)
        self.fields: dict[str, GoType] = {}
        self.elem: GoType | None = None
        self.bounds = (0, 0)
        self.ok = None            # the compiled fast check: value -> bool


_TYPES: dict[str, GoType] = {}


def _display(expr: str) -> str:
    """reflect.Type.String(): package name (last path element) + type name."""
    if expr.startswith("*"):
        return "*" + _display(expr[1:])
    if expr.startswith("[]"):
        return "[]" + _display(expr[2:])
    if expr.startswith("map["):
        key, value = _split_map(expr)
        return f"map[{_display(key)}]{_display(value)}"
    if expr == "byte":
        return "uint8"
    if "." not in expr:
        return expr
    pkg, name = expr.rsplit(".", 1)
    return f"{pkg.rsplit('/', 1)[-1]}.{name}"


def _split_map(expr: str) -> tuple[str, str]:
    depth = 0
    for i in range(3, len(expr)):
        depth += (expr[i] == "[") - (expr[i] == "]")
        if depth == 0:
            return expr[4:i], expr[i + 1:]
    raise ValueError(expr)


def compile_type(expr: str) -> GoType:
    """The compiled type of a type expression from the schema table (memoised; cycles are fine)."""
    found = _TYPES.get(expr)
    if found is not None:
        return found
    if expr.startswith("*"):   # a pointer decodes as its element; null is fine everywhere anyway
        t = compile_type(expr[1:])
        _TYPES[expr] = t
        return t
    name = _display(expr)
    if expr in decode_schema.NAMED:   # a defined type: its underlying type's shape, its own name
        t = _renamed(compile_type(decode_schema.NAMED[expr]), name)
    elif expr in decode_schema.LEAVES:
        t = _leaf(_LEAF_KINDS[decode_schema.LEAVES[expr]], name)
    elif expr in decode_schema.STRUCTS:
        t = GoType(STRUCT, name)
        t.struct = expr.rsplit(".", 1)[1]
        _TYPES[expr] = t
        for field, ftype in _flatten(expr):
            t.fields[field] = compile_type(ftype)
        _fast_struct(t)
    elif expr.startswith("[]"):
        if expr == "[]byte":
            t = _leaf(BYTES, "[]uint8")
        else:
            t = GoType(SLICE, name)
            t.elem = compile_type(expr[2:])
            _fast_slice(t)
    elif expr.startswith("map["):
        t = GoType(MAP, name)
        t.elem = compile_type(_split_map(expr)[1])
        _fast_map(t)
    elif expr == "string":
        t = _leaf(STRING, name)
    elif expr == "bool":
        t = _leaf(BOOL, name)
    elif expr in _INT_RANGES:
        t = _leaf(INT, name)
        t.bounds = _INT_RANGES[expr]
        _fast_int(t)
    elif expr in ("float64", "float32"):
        t = _leaf(FLOAT, name)
    else:
        raise KeyError(f"type {expr} is not in the decode schema")
    _TYPES[expr] = t
    return t


def _flatten(struct: str) -> list[tuple[str, str]]:
    """A struct's JSON fields, embedded structs' fields promoted (the outer field wins)."""
    out: dict[str, str] = {}
    own = decode_schema.STRUCTS[struct] + EXTRA_FIELDS.get(struct, ())
    for field, ftype in own:
        if field == "":
            for inner, itype in _flatten(ftype.lstrip("*")):
                out.setdefault(inner, itype)
    for field, ftype in own:
        if field:
            out[field] = ftype
    return list(out.items())


def _renamed(t: GoType, name: str) -> GoType:
    r = GoType(t.kind, name)
    r.struct, r.fields, r.elem, r.bounds, r.ok = t.struct, t.fields, t.elem, t.bounds, t.ok
    return r


# --- the fast checks ---------------------------------------------------------------------------

def _ok_string(v) -> bool:
    return v is None or v.__class__ is str


def _ok_bool(v) -> bool:
    return v is None or v.__class__ is bool


def _ok_raw(v) -> bool:
    """Free-form JSON (runtime.RawExtension): anything but a float JSON cannot write (NaN, ±Inf:
    kubectl's YAML-to-JSON step fails on them, so the API server never sees one)."""
    c = v.__class__
    if c is dict:
        return all(map(_ok_raw, v.values()))
    if c is list:
        return all(map(_ok_raw, v))
    return c is not float or math.isfinite(v)


def _ok_float(v) -> bool:
    c = v.__class__
    return v is None or c is int or (c is float and math.isfinite(v))


# Quantities and times that parsed, remembered: a fleet repeats a few of them in every object
# (`1`, `64Gi`, one creationTimestamp). Keyed by class too: 1, 1.0 and "1" are parsed apart.
_GOOD_LEAVES = Passed(100_000)


def _ok_quantity(v) -> bool:
    if v is None:
        return True
    if v.__class__ is bool or not isinstance(v, (str, int, float)):
        return False
    key = (QUANTITY, v.__class__, v)   # hashable now; -0.0 and 0.0 share an entry: both parse
    if key in _GOOD_LEAVES:
        return True
    try:
        parse_quantity(v if isinstance(v, str) else gojson.number_text(v))
    except (QuantityError, ValueError):
        return False
    _GOOD_LEAVES.remember(key)
    return True


def _ok_time(v) -> bool:
    if v is None:
        return True
    if v.__class__ is not str:
        return False
    key = (TIME, str, v)
    if key in _GOOD_LEAVES:
        return True
    if gojson.rfc3339_error(v) is not None:
        return False
    _GOOD_LEAVES.remember(key)
    return True


def _ok_intorstring(v) -> bool:
    c = v.__class__
    if v is None or c is str:
        return True
    return c is int and gojson.INT32_MIN <= v <= gojson.INT32_MAX


def _ok_bytes(v) -> bool:
    return v is None or v.__class__ is str


_LEAF_CHECKS = {STRING: _ok_string, BOOL: _ok_bool, RAW: _ok_raw, FLOAT: _ok_float, QUANTITY: _ok_quantity,
                TIME: _ok_time, INTORSTRING: _ok_intorstring, BYTES: _ok_bytes}


def _leaf(kind: int, name: str) -> GoType:
    t = GoType(kind, name)
    t.ok = _LEAF_CHECKS.get(kind)
    return t


def _fast_int(t: GoType) -> None:
    lo, hi = t.bounds

    def ok(v) -> bool:
        c = v.__class__
        if c is int:
            return lo <= v <= hi
        return v is None   # a float (even a whole one) takes the slow path, which makes it an int
    t.ok = ok


def _fast_struct(t: GoType) -> None:
    checks: dict = {}   # filled on first use: field types may still be compiling (cycles)

    def ok(v) -> bool:
        if v.__class__ is not dict:
            return v is None
        if not checks:
            checks.update((k, ft.ok) for k, ft in t.fields.items())
        get = checks.get
        for key, value in v.items():
            check = get(key)
            if check is None:
                return False
            if check is _ok_string:   # most fields: no call
                if value is None or value.__class__ is str:
                    continue
                return False
            if not check(value):
                return False
        return True
    t.ok = ok


def _fast_slice(t: GoType) -> None:
    elem = t.elem

    def ok(v) -> bool:
        if v.__class__ is list:
            return all(map(elem.ok, v))
        return v is None
    t.ok = ok


def _fast_map(t: GoType) -> None:
    elem = t.elem

    def ok(v) -> bool:
        if v.__class__ is dict:
            return all(map(elem.ok, v.values()))
        return v is None
    t.ok = ok


# --- kinds -------------------------------------------------------------------------------------

def kind_type(kind: str) -> GoType | None:
    """The compiled root type of a kind, or None for a kind without a schema."""
    root = decode_schema.KINDS.get(kind)
    return compile_type(root) if root is not None else None


_FAST: dict = {}   # kind -> decodefast.checker(kind), or _NO_FAST
_SEEN: dict = {}   # kind -> objects decoded before the checker is made
_FAST_AFTER = 200  # building a kind's msgspec types takes up to 0.1 s (Pod): only bulk loads make it
_NO_FAST = object()


def _fast_checker(kind: str):
    seen = _SEEN.get(kind, 0) + 1
    _SEEN[kind] = seen
    if seen < _FAST_AFTER:
        return _NO_FAST
    from drasim.api.decodefast import checker
    made = _FAST[kind] = checker(kind) or _NO_FAST
    return made


class DecodeError(ValueError):
    """The decoder's message, without the `<Kind> in version …` prefix."""


def decode(kind: str, obj: object) -> object:
    """obj as the API server reads it into the kind's Go type; raises DecodeError.

    Valid objects are returned as they are. A whole float in an integer field (YAML `2e0`;
    kubectl sends it as `2`) comes back as an int, in a copy. Kinds without a schema are not
    checked."""
    t = kind_type(kind)
    if t is None:
        return obj
    fast = _FAST.get(kind)
    if fast is None:
        fast = _fast_checker(kind)
    if (fast is not _NO_FAST and fast(obj)) or t.ok(obj):   # msgspec's yes is the Python check's yes
        return obj
    from drasim.api.decodereport import as_decoded, report
    problem = report(t, obj)
    if problem is not None:
        raise DecodeError(problem)
    return as_decoded(t, obj)


def decoding_error(kind: str, obj: object) -> str | None:
    """The decoder's message for obj, or None when it decodes."""
    try:
        decode(kind, obj)
    except DecodeError as e:
        return str(e)
    return None


__all__ = ["DecodeError", "GoType", "compile_type", "decode", "decoding_error", "kind_type", "QUANTITY_FORMAT_ERROR"]
