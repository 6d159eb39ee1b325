"""OpenAPI v3 documents (`/openapi/v3` and one per group-version), derived from drasim.api.kinds.

k8s: staging/src/k8s.io/kube-openapi (the v3 root `{"paths": {"apis/G/V": {"serverRelativeURL":
     …?hash=…}}}`), kubectl's QueryParamVerifierV3 (resource/query_param_verifier_v3.go: a
     PATCH operation tagged with `x-kubernetes-group-version-kind` that lists the
     `fieldValidation` parameter means the server validates fields, so kubectl sends
     `fieldValidation=Strict` instead of validating on the client).

This first increment describes the operations (paths, parameters, group-version-kinds);
component schemas are objects without properties. SEAM: `component_schema(kind)` is where
the typed schemas of drasim/api/schema.py (field tables keyed by kind, with Go type names)
become OpenAPI schemas, for `kubectl explain` and OpenAPI-driven strategic merge.
"""
from __future__ import annotations

import hashlib
import json

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


# The tables mark scalars and free-form values alike as ANY; until they carry types (the decode
# work in drasim/api/schema.py), a field's JSON type is read off its Go name here.
_BOOLEAN = frozenset({"allNodes", "adminAccess", "controller", "blockOwnerDeletion", "perDeviceNodeSelection",
                      "bindsToNode", "allowMultipleAllocations", "skipNodeOperations", "bool"})
_INTEGER = frozenset({"generation", "resourceSliceCount", "count", "observedGeneration", "tolerationSeconds",
                      "int", "deletionGracePeriodSeconds", "capacityMultiplier", "deviceMultiplier"})
_STRING_LISTS = frozenset({"finalizers", "requests", "values", "bindingConditions", "bindingFailureConditions",
                           "compatibilityGroups", "strings", "versions", "ips"})
_FREE_FORM = frozenset({"parameters", "data", "fieldsV1"})


def _untyped(name: str) -> dict:
    if name in _BOOLEAN:
        return {"type": "boolean"}
    if name in _INTEGER:
        return {"type": "integer", "format": "int64"}
    if name in ("labels", "annotations"):
        return {"type": "object", "additionalProperties": {"type": "string"}}
    if name == "ints":
        return {"type": "array", "items": {"type": "integer", "format": "int64"}}
    if name == "bools":
        return {"type": "array", "items": {"type": "boolean"}}
    if name in _STRING_LISTS:
        return {"type": "array", "items": {"type": "string"}}
    if name in _FREE_FORM:
        return {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    return {"type": "string"}


def _schema(node, path: str, schemas: dict) -> dict:
    """An OpenAPI schema for one node of drasim.api.schema's tables (struct dict, _list, _map,
    QUANTITY or ANY). SEAM: typed tables with Go type names plug in here."""
    from drasim.api import schema as table

    out: dict
    if node is table.QUANTITY:
        schemas.setdefault(QUANTITY_REF, {"type": "string", "description": "A fixed-point number with a suffix "
                                          "(e.g. 1, 500m, 64Gi)."})
        out = {"$ref": f"#/components/schemas/{QUANTITY_REF}"}
    elif isinstance(node, table._list):
        out = {"type": "array", "items": _schema(node.item, path, schemas)}
    elif isinstance(node, table._map):
        out = {"type": "object", "additionalProperties": _schema(node.item, path, schemas)}
    elif isinstance(node, dict):
        out = {"type": "object", "properties": {name: _schema(sub, f"{path}.{name}", schemas)
                                                for name, sub in node.items()}}
    else:
        out = dict(_untyped(path.rsplit(".", 1)[-1]))
    if path in DESCRIPTIONS:
        out = dict(out, description=DESCRIPTIONS[path])
    return out


def component_schema(kind: Kind, schemas: dict | None = None) -> dict:
    from drasim.api import schema as table

    schemas = {} if schemas is None else schemas
    node = table.KINDS.get(kind.kind)
    out = _schema(node, kind.kind, schemas) if node is not None else {
        "type": "object", "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                                         "metadata": _schema(table.OBJECT_META, f"{kind.kind}.metadata", schemas),
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
