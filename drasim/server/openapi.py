"""OpenAPI v3 documents (`/openapi/v3` and one per group-version), derived from drasim.api.kinds.

k8s: staging/src/k8s.io/kube-openapi (the v3 root `{"paths": {"apis/G/V": {"serverRelativeURL":
     …?hash=…}}}`), kubectl's QueryParamVerifierV3 (resource/query_param_verifier_v3.go: a
     PATCH operation tagged with `x-kubernetes-group-version-kind` that lists the
     `fieldValidation` parameter means the server validates fields, so kubectl sends
     `fieldValidation=Strict` instead of validating on the client).

Component schemas come from the typed decoding schema (drasim/api/decode_schema.py, generated
from k8s.io/api's types.go): every struct a component named as kube-openapi names it, fields
typed from their Go types, and drasim's own descriptions for the fields users look up most.
"""
from __future__ import annotations

import hashlib
import json

from drasim.api import kinds
from drasim.api.kinds import Kind
from drasim.server import discovery

_QUERY = ("dryRun", "fieldManager", "fieldValidation", "pretty")


def _gv_path(group: str, version: str) -> str:
    return f"apis/{group}/{version}" if group else f"api/{version}"


def _gvk(kind: Kind) -> list[dict]:
    return [{"group": kind.group, "version": kind.version, "kind": kind.kind}]


def _ref(kind: Kind) -> str:
    return f"#/components/schemas/{definition_name(kind)}"


def definition_name(kind: Kind) -> str:
    """k8s: the Go package path name of the type (`io.k8s.api.resource.v1.DeviceClass`)."""
    group = kind.group.split(".")[0] if kind.group else "core"
    return f"io.k8s.api.{group}.{kind.version}.{kind.kind}"


QUANTITY_REF = "io.k8s.apimachinery.pkg.api.resource.Quantity"

# drasim's own words for the fields users look up most (kubectl explain); the type tables
# carry none yet.
DESCRIPTIONS = {
    "DeviceClass": "A vendor- or admin-provided class of devices: selectors and configuration that claims "
                   "refer to by name.",
    "DeviceClass.spec.extendedResourceName": "The extended resource name (e.g. example.com/gpu) that pods may "
                                              "request in resources.requests; such requests are then served by "
                                              "devices of this class through DRA (KEP-5004).",
    "ResourceSlice": "Devices published by a DRA driver for one pool, with their attributes and capacity.",
    "ResourceClaim": "A request for devices; once allocated, the devices are reserved for the pods that use it.",
    "ResourceClaimTemplate": "A template from which a ResourceClaim is created for each pod that references it.",
    "DeviceTaintRule": "Adds a taint to the devices it selects; with effect NoExecute, pods using them are evicted.",
}


_SCALARS = {"string": {"type": "string"}, "bool": {"type": "boolean"}, "byte": {"type": "string", "format": "byte"},
            "int": {"type": "integer", "format": "int64"}, "int32": {"type": "integer", "format": "int32"},
            "int64": {"type": "integer", "format": "int64"}, "float64": {"type": "number", "format": "double"}}
_LEAVES = {"quantity": {"$ref": f"#/components/schemas/{QUANTITY_REF}"},
           "time": {"type": "string", "format": "date-time"}, "microtime": {"type": "string", "format": "date-time"},
           "intorstring": {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]},
           "raw": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
           "duration": {"type": "string"}, "string": {"type": "string"}}


def _component(struct: str) -> str:
    """k8s component names: `core/v1.PodSpec` -> io.k8s.api.core.v1.PodSpec, meta -> apimachinery."""
    package, name = struct.split(".", 1)
    group, _, version = package.partition("/")
    if group == "meta":
        return f"io.k8s.apimachinery.pkg.apis.meta.{version}.{name}"
    return f"io.k8s.api.{group}.{version}.{name}"


def _go_schema(gotype: str, schemas: dict) -> dict:
    """An OpenAPI schema for a Go type of drasim/api/decode_schema.py; structs become
    components referenced by name (one definition each, as kube-openapi writes them)."""
    from drasim.api import decode_schema as ds

    gotype = gotype.lstrip("*")
    if gotype.startswith("[]"):
        if gotype == "[]byte":
            return {"type": "string", "format": "byte"}
        return {"type": "array", "items": _go_schema(gotype[2:], schemas)}
    if gotype.startswith("map["):
        return {"type": "object", "additionalProperties": _go_schema(gotype[gotype.index("]") + 1:], schemas)}
    if gotype in _SCALARS:
        return dict(_SCALARS[gotype])
    if gotype in ds.LEAVES:
        if ds.LEAVES[gotype] == "quantity":
            schemas.setdefault(QUANTITY_REF, {"type": "string", "description": "A fixed-point number with a "
                                              "suffix (e.g. 1, 500m, 64Gi)."})
        return dict(_LEAVES[ds.LEAVES[gotype]])
    if gotype in ds.NAMED:
        return _go_schema(ds.NAMED[gotype], schemas)
    if gotype in ds.STRUCTS:
        name = _component(gotype)
        if name not in schemas:
            schemas[name] = {}   # placeholder: recursive types refer to it while it is built
            schemas[name] = {"type": "object", "properties": _properties(gotype, schemas)}
        return {"$ref": f"#/components/schemas/{name}"}
    return {"type": "object", "x-kubernetes-preserve-unknown-fields": True}


def _properties(struct: str, schemas: dict) -> dict:
    from drasim.api import decode_schema as ds

    out: dict = {}
    for name, gotype in ds.STRUCTS[struct]:
        if name == "":   # embedded: its fields are promoted
            inner = gotype.lstrip("*")
            out.update(_properties(inner, schemas) if inner in ds.STRUCTS else {})
        else:
            out[name] = _go_schema(gotype, schemas)
    return out


def _describe(kind: str, schema: dict, schemas: dict) -> None:
    """drasim's descriptions, written into the components the paths lead to."""
    for path, text in DESCRIPTIONS.items():
        parts = path.split(".")
        if parts[0] != kind or len(parts) == 1:
            continue
        node = schema
        for i, part in enumerate(parts[1:], start=1):
            node = (node.get("properties") or {}).get(part)
            if node is None:
                break
            if "$ref" in node and i < len(parts) - 1:
                node = schemas[node["$ref"].rsplit("/", 1)[-1]]
        else:
            node["description"] = text


def component_schema(kind: Kind, schemas: dict | None = None) -> dict:
    from drasim.api import decode_schema as ds

    schemas = {} if schemas is None else schemas
    root = ds.KINDS.get(kind.kind)
    if root is not None:
        out = {"type": "object", "properties": _properties(root, schemas)}
        _describe(kind.kind, out, schemas)
    else:
        out = {"type": "object", "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                                                "metadata": _go_schema("meta/v1.ObjectMeta", schemas),
                                                "spec": {"type": "object"}, "status": {"type": "object"}}}
    out["description"] = DESCRIPTIONS.get(kind.kind, f"{kind.kind} ({kind.api_version}).")
    out["x-kubernetes-group-version-kind"] = _gvk(kind)
    return out


def _op(kind: Kind, action: str, body: bool) -> dict:
    op: dict = {"operationId": f"{action}{kind.kind}", "x-kubernetes-action": action,
                "x-kubernetes-group-version-kind": _gvk(kind)[0],
                "parameters": [{"name": q, "in": "query", "schema": {"type": "string"}} for q in _QUERY],
                "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": _ref(kind)}}}}}}
    if body:
        types = ["application/json"] if action != "patch" else [
            "application/json-patch+json", "application/merge-patch+json"]
        op["requestBody"] = {"content": {t: {"schema": {"$ref": _ref(kind)}} for t in types}, "required": True}
    return op


def _paths(kind: Kind, prefix: str) -> dict:
    ns = "namespaces/{namespace}/" if kind.namespaced else ""
    collection = f"/{prefix}/{ns}{kind.plural}"
    item = collection + "/{name}"
    out = {collection: {"get": _op(kind, "list", False), "post": _op(kind, "post", True)},
           item: {"get": _op(kind, "get", False), "put": _op(kind, "put", True), "patch": _op(kind, "patch", True),
                  "delete": _op(kind, "delete", False)}}
    if kind.has_status:
        out[item + "/status"] = {"get": _op(kind, "get", False), "put": _op(kind, "put", True),
                                 "patch": _op(kind, "patch", True)}
    return out


def group_version_document(group: str, version: str) -> dict | None:
    found = discovery.groups().get(group, {}).get(version)
    if not found:
        return None
    prefix = _gv_path(group, version)
    paths: dict = {}
    schemas: dict = {}
    found = [k for k in found if k in kinds.ALL_KINDS]   # no schemas for the server-kept RBAC kinds
    if not found:
        return None
    for kind in found:
        paths.update(_paths(kind, prefix))
        schemas[definition_name(kind)] = component_schema(kind, schemas)
    return {"openapi": "3.0.0", "info": {"title": "Kubernetes", "version": "v1.37.0"},
            "paths": paths, "components": {"schemas": schemas}}


def _hash(doc: dict) -> str:
    return hashlib.sha512(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:32].upper()


def root() -> dict:
    paths = {}
    for group, versions in discovery.groups().items():
        for version in versions:
            doc = group_version_document(group, version)
            if doc is not None:
                gv = _gv_path(group, version)
                paths[gv] = {"serverRelativeURL": f"/openapi/v3/{gv}?hash={_hash(doc)}"}
    return {"paths": paths}


PROTOBUF_V2 = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"


def swagger_v2() -> dict:
    """/openapi/v2 as JSON: the v3 component schemas as swagger 2.0 definitions."""
    definitions: dict = {}
    for group, versions in discovery.groups().items():
        for version in versions:
            doc = group_version_document(group, version)
            if doc is not None:
                definitions.update(doc["components"]["schemas"])
    text = json.dumps(definitions).replace("#/components/schemas/", "#/definitions/")
    return {"swagger": "2.0", "info": {"title": "Kubernetes", "version": "v1.37.0"}, "paths": {},
            "definitions": json.loads(text)}
