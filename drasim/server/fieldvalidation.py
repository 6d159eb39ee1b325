"""The `fieldValidation` query parameter: Strict fails on unknown fields, Warn (the server's
default) and Ignore drop them, Warn with one `Warning` header per field.

k8s: apiserver handlers (fieldValidation / the strict decoders), warning.AddWarning
     (`299 - "unknown field \\"spec.x\\""`). kubectl sends Strict unless told otherwise;
     clients that send nothing (the Python client) get Warn.
"""
from __future__ import annotations

from drasim.api.schema import unknown_fields
from drasim.server.status import bad_request

MODES = ("Strict", "Warn", "Ignore")


def mode(query) -> str:
    value = query.get("fieldValidation") or "Warn"
    if value not in MODES:
        raise bad_request(f'fieldValidation: Unsupported value: "{value}": supported values: "Ignore", "Strict", "Warn"')
    return value


def _remove(obj, path: str) -> bool:
    """Remove the field a strict-decoding path names (`spec.devices[0].attributes.a.b`); map
    keys may hold dots, so the longest key that fits is taken at each level."""
    node, rest = obj, path
    while True:
        if rest.startswith("["):
            end = rest.index("]")
            index, rest = int(rest[1:end]), rest[end + 1:].lstrip(".")
            if not isinstance(node, list) or index >= len(node):
                return False
            node = node[index]
            continue
        if not isinstance(node, dict):
            return False
        fits = [k for k in node if isinstance(k, str) and (rest == k or rest.startswith(k + ".") or
                                                           rest.startswith(k + "["))]
        if not fits:
            return False
        key = max(fits, key=len)
        if rest == key:
            del node[key]
            return True
        node, rest = node[key], rest[len(key):].lstrip(".")


def drop_unknown(kind: str, obj: dict, how: str) -> list[str]:
    """For Warn and Ignore, remove unknown fields in place; the warnings to send back."""
    if how == "Strict":
        return []
    unknown = unknown_fields(kind, obj)
    for path in unknown:
        _remove(obj, path)
    return [f'unknown field "{p}"' for p in unknown] if how == "Warn" else []
