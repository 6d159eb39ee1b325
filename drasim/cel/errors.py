"""CEL errors, and the translation of cel-cpp's texts into the ones Kubernetes (cel-go) prints.

    CelCompileError   str() = what follows "CEL compile error: " / the API server's detail
    CelRuntimeError   str() = what follows "CEL runtime error: " in kube-scheduler's message
"""
from __future__ import annotations

import re

from drasim.errors import DrasimError

# k8s: staging/src/k8s.io/dynamic-resource-allocation/cel/errors.go
NO_SUCH_KEY_HINT = (". consider using CEL optional chaining (.? followed by orValue()) or guarding "
                    "the check with has() for optional fields")
COST_LIMIT_EXCEEDED = "operation cancelled: actual cost limit exceeded"


class CelCompileError(DrasimError):
    """An expression that does not compile (syntax, types, result type)."""


class CelRuntimeError(DrasimError):
    """An expression that failed while judging one device."""


_STATUS = re.compile(r"^[A-Z_]+: ")
_STATUS_SUFFIX = re.compile(r" \[[A-Z_]+\]$")
_UNDEFINED_FIELD = re.compile(r"undefined field '([^']*)' not found in struct '[^']*'")
_APPLIED_TO = re.compile(r"applied to '\((.*)\)'$")


def _cel_go_type_list(types: str) -> str:
    """cel-cpp prints map(string,dyn); cel-go prints map(string, dyn)."""
    return re.sub(r",(?=\S)", ", ", types)


def compile_message(status_text: str) -> str:
    """cel-cpp's compile status text -> cel-go's issues.String() text."""
    text = _STATUS_SUFFIX.sub("", _STATUS.sub("", status_text.strip(), count=1))
    lines = []
    for line in text.split("\n"):
        if line.startswith("ERROR: "):
            line = _UNDEFINED_FIELD.sub(r"undefined field '\1'", line)
            line = _APPLIED_TO.sub(lambda m: f"applied to '({_cel_go_type_list(m.group(1))})'", line)
        lines.append(line)
    return "\n".join(lines)


_KEY_NOT_FOUND = re.compile(r'^Key not found in map : "?(.*?)"?$')
_NO_OVERLOAD = re.compile(r"^No matching overloads found")


ITERATION_RANGE = "<iter_range>"
# Go's %T of the cel-go value a DRA expression may try to iterate over.
_GO_VALUE_TYPES = {"STRING": "types.String", "INT": "types.Int", "UINT": "types.Uint",
                   "DOUBLE": "types.Double", "BOOL": "types.Bool", "NULL": "types.Null",
                   "BYTES": "types.Bytes", "kubernetes.Semver": "cel.Semver",
                   "kubernetes.Quantity": "cel.Quantity"}


def not_iterable_message(cpp_type: str) -> str:
    """cel-go's error for a comprehension over a value that is not a list or map."""
    return f"got '{_GO_VALUE_TYPES.get(cpp_type, cpp_type)}', expected iterable type"


def runtime_message(status_text: str) -> str:
    """cel-cpp's evaluation error -> cel-go's error text (with DRA's no-such-key hint)."""
    text = _STATUS_SUFFIX.sub("", _STATUS.sub("", status_text.strip(), count=1))
    if m := _KEY_NOT_FOUND.match(text):
        return f"no such key: {m.group(1)}{NO_SUCH_KEY_HINT}"
    if _NO_OVERLOAD.match(text):
        return "no such overload"
    if text == "divide by zero":
        return "division by zero"
    if text == "Iteration budget exceeded":
        return COST_LIMIT_EXCEEDED
    return text


_TYPE_NAMES = {"BOOL": "bool", "INT": "int", "UINT": "uint", "DOUBLE": "double", "STRING": "string",
               "BYTES": "bytes", "NULL": "null_type", "DYN": "dyn", "DURATION": "google.protobuf.Duration",
               "TIMESTAMP": "google.protobuf.Timestamp", "ERROR": "*error*", "TYPE": "type"}
_GENERIC = {"LIST": "list", "MAP": "map", "TYPE": "type", "optional_type": "optional_type"}


def cel_go_type(cpp_type: str) -> str:
    """cel-cpp's type name (LIST<MAP<STRING, INT>>) -> cel-go's (list(map(string, int)))."""
    out = []
    for token in re.split(r"([<>,]\s*)", cpp_type):
        stripped = token.strip()
        if stripped == "<":
            out.append("(")
        elif stripped == ">":
            out.append(")")
        elif stripped == ",":
            out.append(", ")
        elif token:
            out.append(_GENERIC.get(token, _TYPE_NAMES.get(token, token)))
    return "".join(out)


def result_type_name(cpp_type: str) -> str:
    """The runtime type name cel-go's ref.Val.Type().TypeName() gives: no parameters."""
    return cel_go_type(cpp_type).split("(", 1)[0]


def not_bool_message(type_name: str) -> str:
    """k8s: dynamic-resource-allocation/cel/compile.go DeviceMatches, with the conversion
    error cel-go's ConvertToNative returns for that type."""
    if type_name in ("list", "map"):
        detail = f"type conversion error from {type_name} to 'bool'"
    else:
        detail = f"type conversion error from '{type_name}' to 'bool'"
    return f"CEL result of type {type_name} could not be converted to bool: {detail}"
