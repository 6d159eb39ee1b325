"""authorization.k8s.io/v1 reviews besides SelfSubjectAccessReview: SubjectAccessReview,
LocalSubjectAccessReview and SelfSubjectRulesReview (`kubectl auth can-i --list`).

k8s: pkg/registry/authorization/subjectaccessreview/rest.go and localsubjectaccessreview/rest.go
(the attributes of spec.user / spec.groups exactly as given — no system:authenticated added —
asked of the server's authorizer; status allowed, denied, reason), pkg/apis/authorization/
validation/validation.go (ValidateSubjectAccessReviewSpec: exactly one of resourceAttributes and
nonResourceAttributes, a user or a group), selfsubjectrulesreview/rest.go (spec.namespace required;
the rule resolvers' rules, incomplete, evaluationError). Creating a review needs `create` on it,
which the server checks like any request (system:basic-user grants the self reviews).
Protobuf bodies (kubectl's typed client): generated.proto of authorization/v1 — SubjectAccessReview
and LocalSubjectAccessReview: spec 2 {resourceAttributes 1, nonResourceAttributes 2, user 3,
groups 4, uid 6}; SelfSubjectRulesReview: spec 2 {namespace 1}.
"""
from __future__ import annotations

from drasim.auth.attributes import Attributes
from drasim.auth.tokens import User
from drasim.server import protowire
from drasim.server import status as st

GROUP = "authorization.k8s.io"
API_VERSION = f"{GROUP}/v1"


def _invalid(kind: str, errors: list[tuple[str, str, str]]) -> st.ApiError:
    """k8s: apierrors.NewInvalid — `<Kind>.<group> "" is invalid: [field: Invalid value: v: detail, ...]`."""
    parts = [f"{f}: Invalid value: {v}: {d}" for f, v, d in errors]
    text = parts[0] if len(parts) == 1 else "[" + ", ".join(parts) + "]"
    causes = [{"reason": "FieldValueInvalid", "message": f"Invalid value: {v}: {d}", "field": f} for f, v, d in errors]
    return st.ApiError(422, "Invalid", f'{kind}.{GROUP} "" is invalid: {text}',
                       {"group": GROUP, "kind": kind, "causes": causes})


def _spec(kind: str, body) -> dict:
    if not isinstance(body, dict) or not isinstance(body.get("spec", {}), dict):
        raise st.bad_request(f"the object provided is unrecognized (must be of type {kind})")
    if body.get("kind") not in (None, kind):
        raise st.bad_request(f"the kind in the data ({body.get('kind')}) does not match the expected kind ({kind})")
    return body.get("spec") or {}


def _attributes(user: User, spec: dict) -> Attributes:
    ra, nra = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
    if ra is not None:
        return Attributes(user, ra.get("verb", ""), True, ra.get("group", ""), ra.get("version", ""),
                          ra.get("resource", ""), ra.get("subresource", ""), ra.get("namespace", ""),
                          ra.get("name", ""))
    return Attributes(user, nra.get("verb", ""), False, path=nra.get("path", ""))


def _answer(kind: str, body: dict, spec: dict, decision, namespace: str | None = None) -> dict:
    status = {"allowed": decision.allowed}
    if decision.reason:
        status["reason"] = decision.reason
    md = {"creationTimestamp": None, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": md, "spec": spec, "status": status}


def subject_access_review(decide, body, namespace: str | None = None) -> dict:
    """SubjectAccessReview (namespace None) or LocalSubjectAccessReview (the URL's namespace)."""
    kind = "LocalSubjectAccessReview" if namespace is not None else "SubjectAccessReview"
    spec = _spec(kind, body)
    ra, nra = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
    errors = []
    if (ra is None) == (nra is None):
        errors.append(("spec", "null", "exactly one of nonResourceAttributes or resourceAttributes must be specified"))
    if not spec.get("user") and not spec.get("groups"):
        errors.append(("spec.user", '""', "at least one of user or group must be specified"))
    if namespace is not None and nra is not None:
        # k8s: ValidateLocalSubjectAccessReview — "disallowed on this kind of request"
        errors.append(("spec.nonResourceAttributes", "null", "disallowed on this kind of request"))
    if errors:
        raise _invalid(kind, errors)
    if namespace is not None and (ra.get("namespace") or "") != namespace:
        # k8s: localsubjectaccessreview/rest.go Create
        raise st.bad_request(f"spec.resourceAttributes.namespace must match namespace: {namespace}")
    user = User(spec.get("user", ""), spec.get("uid", ""), tuple(spec.get("groups") or ()))
    return _answer(kind, body, spec, decide(_attributes(user, spec)), namespace)


def self_subject_rules_review(rules_for, user: User, body) -> dict:
    """rules_for(user, namespace) → (resource rules, non-resource rules, incomplete, evaluation error)."""
    spec = _spec("SelfSubjectRulesReview", body)
    namespace = spec.get("namespace") or ""
    if not namespace:
        raise st.bad_request("no namespace on request")
    resource_rules, non_resource_rules, incomplete, error = rules_for(user, namespace)
    status = {"resourceRules": resource_rules, "nonResourceRules": non_resource_rules, "incomplete": incomplete}
    if error:
        status["evaluationError"] = error
    return {"apiVersion": API_VERSION, "kind": "SelfSubjectRulesReview", "metadata": {"creationTimestamp": None},
            "spec": spec, "status": status}


# -- protobuf bodies -------------------------------------------------------------------------------
_RESOURCE = {1: "namespace", 2: "verb", 3: "group", 4: "version", 5: "resource", 6: "subresource", 7: "name"}
_NON_RESOURCE = {1: "path", 2: "verb"}


def _spec_fields(body: bytes) -> dict[int, list]:
    if not body.startswith(protowire.MAGIC):
        raise protowire.ProtoError("not a Kubernetes protobuf message")
    raw = (protowire.fields(body[len(protowire.MAGIC):]).get(2) or [b""])[-1]
    return protowire.fields((protowire.fields(raw).get(2) or [b""])[-1])


def _strings(data: bytes, names: dict[int, str]) -> dict:
    f = protowire.fields(data)
    return {name: f[n][-1].decode("utf-8") for n, name in names.items() if n in f and f[n][-1]}


def decode(kind: str, body: bytes) -> dict:
    spec = _spec_fields(body)
    out: dict = {}
    if kind == "SelfSubjectRulesReview":
        if spec.get(1):
            out["namespace"] = spec[1][-1].decode("utf-8")
    else:
        if 1 in spec:
            out["resourceAttributes"] = _strings(spec[1][-1], _RESOURCE)
        if 2 in spec:
            out["nonResourceAttributes"] = _strings(spec[2][-1], _NON_RESOURCE)
        if spec.get(3):
            out["user"] = spec[3][-1].decode("utf-8")
        if spec.get(4):
            out["groups"] = [g.decode("utf-8") for g in spec[4]]
        if spec.get(6):
            out["uid"] = spec[6][-1].decode("utf-8")
    return {"apiVersion": API_VERSION, "kind": kind, "spec": out}
