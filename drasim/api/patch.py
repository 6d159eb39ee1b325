"""The three patch types of PATCH: JSON merge (RFC 7386), JSON patch (RFC 6902) and strategic merge.

k8s: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go (patchers),
     staging/src/k8s.io/apimachinery/pkg/util/strategicpatch/patch.go (mergeMap, mergeSlice,
     the `$patch`, `$retainKeys`, `$setElementOrder/` and `$deleteFromPrimitiveList/` directives).
Strategic merge reads its list merge keys from MERGE_KEYS, which follows the
`patchStrategy:"merge" patchMergeKey:"…"` tags of the Go types drasim serves (the OpenAPI
document's x-kubernetes-patch-merge-key carries the same data); all other lists are replaced.
"""
from __future__ import annotations

from drasim.api.nesting import clone

_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")
# (parent field, list field) → merge key; a list under e.g. spec.template.spec matches ("spec", …) too.
MERGE_KEYS: dict[tuple[str, str], str] = {
    **{("spec", c): "name" for c in _CONTAINER_LISTS},
    **{(c, "env"): "name" for c in _CONTAINER_LISTS},
    **{(c, "ports"): "containerPort" for c in _CONTAINER_LISTS},
    **{(c, "volumeMounts"): "mountPath" for c in _CONTAINER_LISTS},
    **{(c, "volumeDevices"): "devicePath" for c in _CONTAINER_LISTS},
    ("spec", "volumes"): "name", ("spec", "imagePullSecrets"): "name", ("spec", "hostAliases"): "ip",
    ("spec", "topologySpreadConstraints"): "topologyKey", ("spec", "resourceClaims"): "name",
    ("spec", "schedulingGates"): "name", ("spec", "taints"): "key",
    ("status", "conditions"): "type", ("status", "podIPs"): "ip", ("status", "hostIPs"): "ip",
    ("status", "addresses"): "type", ("status", "resourceClaimStatuses"): "name",
    ("metadata", "ownerReferences"): "uid",
}
# Lists of scalars merged as sets (patchStrategy:"merge" without a key).
PRIMITIVE_MERGE: frozenset[tuple[str, str]] = frozenset({("metadata", "finalizers"), ("spec", "podCIDRs")})


class PatchError(ValueError):
    """A patch that cannot be applied; `invalid` patches are malformed (400), others fail (422)."""

    def __init__(self, message: str, malformed: bool = False) -> None:
        super().__init__(message)
        self.malformed = malformed


# -- RFC 7386 ---------------------------------------------------------------------------------
def merge_patch(target, patch):
    if not isinstance(patch, dict):
        return clone(patch)
    result = clone(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


# -- RFC 6902 ---------------------------------------------------------------------------------
def _pointer(path) -> list[str]:
    if not isinstance(path, str) or (path and not path.startswith("/")):
        raise PatchError(f"invalid JSON pointer: {path!r}", malformed=True)
    return [p.replace("~1", "/").replace("~0", "~") for p in path.split("/")[1:]]


def _walk(doc, parts: list[str]):
    for part in parts:
        if isinstance(doc, dict) and part in doc:
            doc = doc[part]
        elif isinstance(doc, list) and part.isdigit() and int(part) < len(doc):
            doc = doc[int(part)]
        else:
            raise PatchError(f"doc is missing path: \"/{'/'.join(parts)}\"")
    return doc


def _add(doc, parts, value):
    if not parts:
        return value
    parent, last = _walk(doc, parts[:-1]), parts[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        index = len(parent) if last == "-" else int(last) if last.isdigit() else -1
        if not 0 <= index <= len(parent):
            raise PatchError(f"add operation does not apply: index out of bounds: {last}")
        parent.insert(index, value)
    else:
        raise PatchError(f"doc is missing path: \"/{'/'.join(parts)}\"")
    return doc


def _remove(doc, parts):
    if not parts:
        raise PatchError("cannot remove the whole document")
    parent, last = _walk(doc, parts[:-1]), parts[-1]
    _walk(parent, [last])   # must exist
    if isinstance(parent, dict):
        del parent[last]
    else:
        del parent[int(last)]
    return doc


def json_patch(target, ops) -> dict:
    if not isinstance(ops, list):
        raise PatchError("json: cannot unmarshal object into Go value of type jsonpatch.Patch", malformed=True)
    doc = clone(target)
    for op in ops:
        if not isinstance(op, dict) or "op" not in op:
            raise PatchError("invalid JSON patch operation", malformed=True)
        kind, parts = op["op"], _pointer(op.get("path"))
        if kind == "add":
            doc = _add(doc, parts, clone(op.get("value")))
        elif kind == "remove":
            doc = _remove(doc, parts)
        elif kind == "replace":
            _walk(doc, parts)
            doc = _add(_remove(doc, parts) if parts else doc, parts, clone(op.get("value")))
        elif kind in ("move", "copy"):
            source = _pointer(op.get("from"))
            value = clone(_walk(doc, source))
            if kind == "move":
                doc = _remove(doc, source)
            doc = _add(doc, parts, value)
        elif kind == "test":
            if _walk(doc, parts) != op.get("value"):
                raise PatchError(f"testing value /{'/'.join(parts)} failed: test failed")
        else:
            raise PatchError(f"Unexpected kind: {kind}", malformed=True)
    return doc


# -- strategic merge --------------------------------------------------------------------------
def strategic_merge(original: dict, patch: dict) -> dict:
    if not isinstance(patch, dict):
        raise PatchError("strategic merge patch must be a JSON object", malformed=True)
    return _merge_map(clone(original) if isinstance(original, dict) else {}, patch, "")


def _merge_map(original: dict, patch: dict, parent: str) -> dict:
    directive = patch.get("$patch")
    if directive == "replace":
        return {k: clone(v) for k, v in patch.items() if k != "$patch"}
    if directive == "delete":
        return {}
    retain = patch.get("$retainKeys")
    orders: dict[str, list] = {}
    for key, value in patch.items():
        if key in ("$patch", "$retainKeys"):
            continue
        if key.startswith("$setElementOrder/"):
            orders[key.split("/", 1)[1]] = value if isinstance(value, list) else []
            continue
        if key.startswith("$deleteFromPrimitiveList/"):
            field = key.split("/", 1)[1]
            if isinstance(original.get(field), list) and isinstance(value, list):
                original[field] = [v for v in original[field] if v not in value]
            continue
        if value is None:
            original.pop(key, None)
        elif isinstance(value, dict) and isinstance(original.get(key), dict):
            original[key] = _merge_map(original[key], value, key)
        elif isinstance(value, dict):
            original[key] = _merge_map({}, value, key)
        elif isinstance(value, list) and isinstance(original.get(key), list):
            original[key] = _merge_list(original[key], value, parent, key)
        else:
            original[key] = _strip(clone(value))
    for field, order in orders.items():
        if isinstance(original.get(field), list):
            original[field] = _ordered(original[field], order, MERGE_KEYS.get((parent, field)))
    if isinstance(retain, list):
        original = {k: v for k, v in original.items() if k in retain}
    return original


def _strip(value):
    """Directives never reach the stored object."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if not k.startswith("$")}
    if isinstance(value, list):
        return [_strip(v) for v in value if not (isinstance(v, dict) and v.get("$patch") == "delete")]
    return value


def _merge_list(original: list, patch: list, parent: str, field: str) -> list:
    if (parent, field) in PRIMITIVE_MERGE:
        return original + [v for v in patch if v not in original]
    key = MERGE_KEYS.get((parent, field))
    if key is None:
        return _strip(clone(patch))
    if any(isinstance(p, dict) and p.get("$patch") == "replace" for p in patch):
        return _strip([p for p in patch if not (isinstance(p, dict) and p.get("$patch") == "replace")])
    result = [clone(o) for o in original]
    for item in patch:
        if not isinstance(item, dict) or key not in item:
            raise PatchError(f"map: {item} does not contain declared merge key: {key}", malformed=True)
        at = next((i for i, o in enumerate(result) if isinstance(o, dict) and o.get(key) == item[key]), None)
        if item.get("$patch") == "delete":
            if at is not None:
                del result[at]
        elif at is None:
            result.append(_strip(clone(item)))
        else:
            result[at] = _merge_map(result[at], item, field)
    return result


def _ordered(items: list, order: list, key: str | None) -> list:
    ident = (lambda v: v.get(key) if isinstance(v, dict) else v) if key else (lambda v: v)
    wanted = [ident(o) if isinstance(o, dict) else o for o in order]
    rank = {w: i for i, w in enumerate(wanted) if isinstance(w, (str, int, float, bool))}
    listed = sorted((v for v in items if ident(v) in rank), key=lambda v: rank[ident(v)])
    return listed + [v for v in items if ident(v) not in rank]
