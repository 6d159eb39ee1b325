"""A stand-in for drasim.cel used only while the real package is not importable.

It understands the small subset of CEL the allocator tests use (==, !=, <, >=, &&, ||, !, true,
false, device.driver, device.attributes["d"].x, device.capacity["d"].x.compareTo(quantity("1Gi"))).
"""
from __future__ import annotations

import re
import sys
import types
from fractions import Fraction

from drasim.api.quantity import parse_quantity


class CelCompileError(Exception):
    pass


class CelRuntimeError(Exception):
    pass


class _Q:
    def __init__(self, value: Fraction) -> None:
        self.value = value

    def compareTo(self, other: "_Q") -> int:  # noqa: N802 - CEL's name
        return (self.value > other.value) - (self.value < other.value)


class _Domain:
    def __init__(self, values: dict) -> None:
        self._values = values

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._values[name]
        except KeyError:
            raise CelRuntimeError(f"no such key: {name}") from None

    __getitem__ = __getattr__


class _Domains:
    def __init__(self, grouped: dict) -> None:
        self._grouped = grouped

    def __getitem__(self, domain: str) -> _Domain:
        return _Domain(self._grouped.get(domain, {}))


class _Device:
    def __init__(self, driver: str, device: dict) -> None:
        self.driver = driver
        self.allowMultipleAllocations = bool(device.get("allowMultipleAllocations"))
        attrs: dict = {}
        for name, attr in (device.get("attributes") or {}).items():
            domain, _, ident = name.rpartition("/")
            value = next(attr[k] for k in ("int", "bool", "string", "version") if k in attr)
            attrs.setdefault(domain or driver, {})[ident] = value
        caps: dict = {}
        for name, cap in (device.get("capacity") or {}).items():
            domain, _, ident = name.rpartition("/")
            caps.setdefault(domain or driver, {})[ident] = _Q(parse_quantity(cap["value"]).value)
        self.attributes = _Domains(attrs)
        self.capacity = _Domains(caps)


def device_input(driver: str, device: dict) -> _Device:
    return _Device(driver, device)


class _Selector:
    def __init__(self, code) -> None:
        self._code = code

    def matches(self, device: _Device) -> bool:
        try:
            value = eval(self._code, {"quantity": lambda s: _Q(parse_quantity(s).value)}, {"device": device})
        except CelRuntimeError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise CelRuntimeError(str(exc)) from None
        if not isinstance(value, bool):
            raise CelRuntimeError(f"CEL result of type {type(value).__name__} could not be converted to bool")
        return value


def compile_selector(expr: str) -> _Selector:
    text = re.sub(r"\btrue\b", "True", expr)
    text = re.sub(r"\bfalse\b", "False", text)
    text = text.replace("&&", " and ").replace("||", " or ")
    text = re.sub(r"!(?!=)", " not ", text)
    try:
        return _Selector(compile(text, "<cel>", "eval"))
    except SyntaxError as exc:
        raise CelCompileError(f"ERROR: <input>:1:{(exc.offset or 1)}: Syntax error: {exc.msg}") from None


def install() -> None:
    """Register this module as drasim.cel if the real one cannot be imported yet."""
    try:
        from drasim.cel import compile_selector as _real  # noqa: F401
        return
    except ImportError:
        pass
    module = types.ModuleType("drasim.cel")
    for name in ("CelCompileError", "CelRuntimeError", "compile_selector", "device_input"):
        setattr(module, name, globals()[name])
    sys.modules["drasim.cel"] = module
