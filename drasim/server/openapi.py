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


def component_schema(kind: Kind) -> dict:
    return {"type": "object", "description": f"{kind.kind} ({kind.api_version}), served by drasim.",
            "x-kubernetes-group-version-kind": _gvk(kind)}


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
        schemas[definition_name(kind)] = component_schema(kind)
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
