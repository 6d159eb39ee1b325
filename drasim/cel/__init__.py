"""The DRA CEL selector environment (spec cel.md), on cel-expr-python (cel-cpp).

    compile_selector(expr) -> CompiledSelector      kube-scheduler's view, cached by text
    CompiledSelector.matches(device_input(...))     one device, True/False or CelRuntimeError
    validate_selector(expr) -> [(type, detail)]     the API server's view at create/update
"""
from drasim.cel.device import DeviceInput, device_input
from drasim.cel.errors import CelCompileError, CelRuntimeError
from drasim.cel.selector import CompiledSelector, compile_selector, validate_selector

__all__ = [
    "CelCompileError",
    "CelRuntimeError",
    "CompiledSelector",
    "DeviceInput",
    "compile_selector",
    "device_input",
    "validate_selector",
]
