"""The scale subresource of Deployments, ReplicaSets and StatefulSets (`kubectl scale`).

k8s: pkg/registry/apps/{deployment,replicaset,statefulset}/storage/storage.go ScaleREST —
the Scale (autoscaling/v1) carries the parent's name, namespace, uid, resourceVersion and
creationTimestamp, spec.replicas, status.replicas and status.selector (the parent's selector
as LabelSelectorAsSelector(...).String()); a write of a Scale is validated
(pkg/apis/autoscaling/validation ValidateScale), checks a resourceVersion it carries against the
parent's (409 Conflict), then sets the parent's spec.replicas and updates the parent through
the one write path.
"""
from __future__ import annotations

import json

from drasim.api import patch as patches
from drasim.server import status as st

SCALED_KINDS = frozenset({"Deployment", "ReplicaSet", "StatefulSet"})
SCALE_GVK = {"group": "autoscaling", "version": "v1", "kind": "Scale"}
JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"


def selector_string(selector) -> str:
    """k8s: metav1.LabelSelectorAsSelector(...).String() — requirements sorted by key, values
    of in / notin sorted."""
    if not isinstance(selector, dict):
        return ""
    reqs = [(k, f"{k}={v}") for k, v in (selector.get("matchLabels") or {}).items()]
    for e in selector.get("matchExpressions") or ():
        key, op = e.get("key", ""), e.get("operator")
        values = ",".join(sorted(e.get("values") or ()))
        text = {"In": f"{key} in ({values})", "NotIn": f"{key} notin ({values})", "Exists": key,
                "DoesNotExist": f"!{key}"}.get(op, key)
        reqs.append((key, text))
    return ",".join(text for _, text in sorted(reqs, key=lambda r: r[0]))


def scale_of(obj: dict) -> dict:
    md = obj["metadata"]
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    meta = {k: md[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp") if md.get(k)}
    out_status: dict = {"replicas": status.get("replicas") or 0}
    selector = selector_string(spec.get("selector"))
    if selector:
        out_status["selector"] = selector
    return {"kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": meta,
            "spec": {"replicas": spec.get("replicas", 1)}, "status": out_status}


def patched_scale(current: dict, content_type: str, raw: bytes) -> dict:
    """A patch applied to the Scale (the generic patch handler runs on the subresource's object)."""
    try:
        body = json.loads(raw or b"null")
    except ValueError as e:
        raise st.bad_request(f"error decoding patch: {e}") from None
    try:
        if content_type == JSON_PATCH:
            return patches.json_patch(current, body)
        if content_type == MERGE_PATCH and isinstance(body, dict):
            return patches.merge_patch(current, body)
        if content_type == STRATEGIC_PATCH:
            return patches.strategic_merge(current, body)
    except patches.PatchError as e:
        raise (st.bad_request(str(e)) if e.malformed else st.ApiError(422, "Invalid", str(e), {})) from None
    raise st.unsupported_media_type(content_type)


_GO_JSON_TYPE = {"str": "string", "float": "number", "list": "array", "dict": "object", "NoneType": "null"}


def replicas_from(parent: dict, scale, kind) -> int:
    """The Scale's spec.replicas once it is checked against the parent; raises the API's errors."""
    if not isinstance(scale, dict) or scale.get("kind") not in (None, "Scale") or \
            scale.get("apiVersion") not in (None, "autoscaling/v1"):
        raise st.bad_request("the object provided is unrecognized (must be of type Scale)")
    md = scale.get("metadata") if isinstance(scale.get("metadata"), dict) else {}
    name = parent["metadata"]["name"]
    if md.get("name") not in (None, name):
        raise st.bad_request(f"the name of the object ({md.get('name')}) does not match the name on the URL ({name})")
    rv = md.get("resourceVersion")
    if rv and rv != parent["metadata"].get("resourceVersion"):
        # k8s: ScaleREST scaleUpdatedObjectInfo — the Scale's resourceVersion is the parent's
        raise st.ApiError(409, "Conflict", f'Operation cannot be fulfilled on {kind.resource} "{name}": the object '
                          "has been modified; please apply your changes to the latest version and try again",
                          {"name": name, "group": kind.group, "kind": kind.plural})
    replicas = (scale.get("spec") or {}).get("replicas", 0) if isinstance(scale.get("spec"), dict) else 0
    if isinstance(replicas, bool) or not isinstance(replicas, int):
        raise st.bad_request(f'Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal '
                             f'{_GO_JSON_TYPE.get(type(replicas).__name__, "value")} into Go struct field ScaleSpec.spec.replicas of type int32')
    if replicas < 0:
        # k8s: pkg/apis/autoscaling/validation ValidateScale
        cause = {"reason": "FieldValueInvalid", "message": f"Invalid value: {replicas}: must be greater than or "
                 "equal to 0", "field": "spec.replicas"}
        raise st.ApiError(422, "Invalid", f'Scale.autoscaling "{name}" is invalid: spec.replicas: Invalid value: '
                          f"{replicas}: must be greater than or equal to 0",
                          {"name": name, "group": "autoscaling", "kind": "Scale", "causes": [cause]})
    return replicas
