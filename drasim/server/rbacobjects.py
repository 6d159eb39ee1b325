"""The RBAC objects (rbac.authorization.k8s.io/v1) and SelfSubjectAccessReview (authorization.k8s.io/v1).

The control plane does not simulate RBAC (the loader skips these kinds in snapshots), so the
server keeps them itself, in the control plane's store (drasim/api/kinds.py SERVER_STORED_KINDS:
one resourceVersion sequence, persisted by the SQLite / etcd journals, watchable): create, get,
list, watch, update, patch, delete; a Role or RoleBinding in a namespace that does not exist is
404, as NamespaceLifecycle answers. Seeded with the part of
kube-apiserver's bootstrap policy a client meets first
(k8s: plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go — cluster-admin bound to
system:masters, system:discovery, system:basic-user and system:public-info-viewer).
"""
from __future__ import annotations

import copy

from drasim.api.kinds import CLUSTER_ROLE, CLUSTER_ROLE_BINDING, RBAC_GROUP, ROLE, ROLE_BINDING, Kind
from drasim.errors import InputError
from drasim.auth import rbac
from drasim.auth.attributes import Attributes
from drasim.auth.tokens import MASTERS, User
from drasim.server import status as st

AUTHZ_GROUP = "authorization.k8s.io"
SSAR = Kind(AUTHZ_GROUP, "v1", "SelfSubjectAccessReview", "selfsubjectaccessreviews", namespaced=False,
            has_status=False)
SAR = Kind(AUTHZ_GROUP, "v1", "SubjectAccessReview", "subjectaccessreviews", namespaced=False, has_status=False)
LSAR = Kind(AUTHZ_GROUP, "v1", "LocalSubjectAccessReview", "localsubjectaccessreviews", namespaced=True,
            has_status=False)
SSRR = Kind(AUTHZ_GROUP, "v1", "SelfSubjectRulesReview", "selfsubjectrulesreviews", namespaced=False,
            has_status=False)
# k8s: authentication.k8s.io/v1 SelfSubjectReview (`kubectl auth whoami`): the requester's own user info
SSR = Kind("authentication.k8s.io", "v1", "SelfSubjectReview", "selfsubjectreviews", namespaced=False,
           has_status=False)
RBAC_KINDS = (ROLE, ROLE_BINDING, CLUSTER_ROLE, CLUSTER_ROLE_BINDING)
REVIEW_KINDS = (SSAR, SAR, LSAR, SSRR, SSR)
SERVER_KINDS = (*RBAC_KINDS, *REVIEW_KINDS)
CREATE_ONLY = {k.plural for k in REVIEW_KINDS}
BY_PLURAL = {k.plural: k for k in SERVER_KINDS}

_GET = ["get"]


def _cluster_role(name: str, rules: list[dict]) -> dict:
    return {"apiVersion": f"{RBAC_GROUP}/v1", "kind": "ClusterRole",
            "metadata": {"name": name, "labels": {"kubernetes.io/bootstrapping": "rbac-defaults"}}, "rules": rules}


def _binding(name: str, role: str, groups: list[str]) -> dict:
    return {"apiVersion": f"{RBAC_GROUP}/v1", "kind": "ClusterRoleBinding",
            "metadata": {"name": name, "labels": {"kubernetes.io/bootstrapping": "rbac-defaults"}},
            "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": role},
            "subjects": [{"apiGroup": RBAC_GROUP, "kind": "Group", "name": g} for g in groups]}


def bootstrap_policy() -> list[dict]:
    return [
        _cluster_role("cluster-admin", [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
                                        {"nonResourceURLs": ["*"], "verbs": ["*"]}]),
        _cluster_role("system:discovery", [{"nonResourceURLs": [
            "/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz",
            "/version", "/version/"], "verbs": _GET}]),
        _cluster_role("system:basic-user", [
            {"apiGroups": ["authentication.k8s.io"], "resources": ["selfsubjectreviews"], "verbs": ["create"]},
            {"apiGroups": [AUTHZ_GROUP], "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
             "verbs": ["create"]}]),
        _cluster_role("system:public-info-viewer", [{"nonResourceURLs": [
            "/healthz", "/livez", "/readyz", "/version", "/version/"], "verbs": _GET}]),
        _binding("cluster-admin", "cluster-admin", [MASTERS]),
        _binding("system:discovery", "system:discovery", ["system:authenticated"]),
        _binding("system:basic-user", "system:basic-user", ["system:authenticated"]),
        _binding("system:public-info-viewer", "system:public-info-viewer",
                 ["system:authenticated", "system:unauthenticated"]),
    ]


class RbacObjects:
    """The RBAC objects, in the control plane's store (one resourceVersion sequence with the rest,
    kept by the journals, watched through the hub): the server is their only writer."""

    def __init__(self, store) -> None:
        self.store = store
        # k8s: the rbac/bootstrap-roles post-start hook makes sure the bootstrap policy exists
        # (a restart on kept data keeps what is there)
        for obj in bootstrap_policy():
            kind = BY_PLURAL[obj["kind"].lower() + "s"]
            if self.store.get(kind.kind, None, obj["metadata"]["name"]) is None:
                self.create(kind, None, obj)

    def policy(self) -> rbac.Policy:
        return rbac.Policy(*(tuple(self.store.list(k.kind)) for k in (ROLE, CLUSTER_ROLE, ROLE_BINDING,
                                                                        CLUSTER_ROLE_BINDING)))

    def _check(self, kind: Kind, namespace: str | None, obj) -> dict:
        if not isinstance(obj, dict):
            raise st.bad_request(f"the object provided is unrecognized (must be of type {kind.kind})")
        if obj.get("apiVersion") not in (None, kind.api_version) or obj.get("kind") not in (None, kind.kind):
            raise st.bad_request(f"the API version in the data ({obj.get('apiVersion')}) does not match the "
                                 f"expected API version ({kind.api_version})")
        obj = copy.deepcopy(obj)
        obj.update(apiVersion=kind.api_version, kind=kind.kind)
        md = obj.setdefault("metadata", {})
        if not md.get("name"):
            raise st.ApiError(422, "Invalid", f'{kind.kind}.{kind.group} "" is invalid: metadata.name: Required value: '
                              "name or generateName is required",
                              {"group": kind.group, "kind": kind.kind, "causes": [
                                  {"reason": "FieldValueRequired", "message": "Required value: name or generateName "
                                   "is required", "field": "metadata.name"}]})
        if kind.namespaced:
            md["namespace"] = namespace
        else:
            md.pop("namespace", None)
        for server_owned in ("uid", "creationTimestamp", "generation", "deletionTimestamp"):
            md.pop(server_owned, None)
        if kind in (ROLE_BINDING, CLUSTER_ROLE_BINDING):
            ref = obj.get("roleRef") or {}
            allowed = ("ClusterRole",) if kind is CLUSTER_ROLE_BINDING else ("Role", "ClusterRole")
            # k8s: pkg/apis/rbac/validation — roleRef.kind must be one of these, roleRef.name required
            if ref.get("kind") not in allowed or not ref.get("name"):
                raise st.ApiError(422, "Invalid", f'{kind.kind}.{kind.group} "{md["name"]}" is invalid: roleRef.kind: '
                                  f'Unsupported value: "{ref.get("kind", "")}": supported values: '
                                  + ", ".join(f'"{a}"' for a in allowed),
                                  {"name": md["name"], "group": kind.group, "kind": kind.kind})
        return obj

    def _namespace(self, kind: Kind, namespace: str | None) -> str | None:
        return namespace if kind.namespaced else None

    def create(self, kind: Kind, namespace: str | None, body) -> dict:
        obj = self._check(kind, namespace, body)
        obj["metadata"].pop("resourceVersion", None)
        if kind.namespaced and self.store.get("Namespace", None, namespace) is None:
            raise st.namespace_not_found(namespace)   # k8s: NamespaceLifecycle admission
        try:
            return copy.deepcopy(self.store.create(obj))
        except InputError as e:
            raise st.from_drasim(e, kind) from None

    def get(self, kind: Kind, namespace: str | None, name: str) -> dict:
        obj = self.store.get(kind.kind, self._namespace(kind, namespace), name)
        if obj is None:
            raise st.not_found(kind, name)
        return copy.deepcopy(obj)

    def list(self, kind: Kind, namespace: str | None) -> dict:
        items = sorted(self.store.list(kind.kind, self._namespace(kind, namespace)),
                       key=lambda o: (o["metadata"].get("namespace") or "", o["metadata"]["name"]))
        return {"kind": f"{kind.kind}List", "apiVersion": kind.api_version,
                "metadata": {"resourceVersion": str(self.store.revision)}, "items": copy.deepcopy(items)}

    def update(self, kind: Kind, namespace: str | None, name: str, body) -> dict:
        self.get(kind, namespace, name)
        obj = self._check(kind, namespace, body)
        if obj["metadata"]["name"] != name:
            raise st.bad_request(f"the name of the object ({obj['metadata']['name']}) does not match the name on "
                                 f"the URL ({name})")
        try:
            return copy.deepcopy(self.store.update(obj))
        except InputError as e:
            raise st.from_drasim(e, kind) from None

    def delete(self, kind: Kind, namespace: str | None, name: str) -> dict:
        try:
            return copy.deepcopy(self.store.delete(kind.kind, self._namespace(kind, namespace), name))
        except InputError as e:
            raise st.from_drasim(e, kind) from None

    def access_review(self, decide, user: User, body) -> dict:
        """SelfSubjectAccessReview: the requester's own access (k8s: pkg/registry/authorization/
        selfsubjectaccessreview/rest.go — spec.resourceAttributes or nonResourceAttributes)."""
        if not isinstance(body, dict) or not isinstance(body.get("spec"), dict):
            raise st.bad_request("the object provided is unrecognized (must be of type SelfSubjectAccessReview)")
        spec = body["spec"]
        ra, nra = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
        if (ra is None) == (nra is None):
            # k8s: pkg/apis/authorization/validation — exactly one of the two
            # (v1.37 reports the union on `spec`, the nil value as null)
            raise st.ApiError(422, "Invalid", 'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: '
                              "spec: Invalid value: null: exactly one of "
                              "nonResourceAttributes or resourceAttributes must be specified",
                              {"group": AUTHZ_GROUP, "kind": "SelfSubjectAccessReview", "causes": [
                                  {"reason": "FieldValueInvalid", "field": "spec", "message": "Invalid value: null: "
                                   "exactly one of nonResourceAttributes or resourceAttributes must be specified"}]})
        if ra is not None:
            a = Attributes(user, ra.get("verb", ""), True, ra.get("group", ""), ra.get("version", ""),
                           ra.get("resource", ""), ra.get("subresource", ""), ra.get("namespace", ""),
                           ra.get("name", ""))
        else:
            a = Attributes(user, nra.get("verb", ""), False, path=nra.get("path", ""))
        decision = decide(a)
        status = {"allowed": decision.allowed}
        if decision.reason:
            status["reason"] = decision.reason
        return {"apiVersion": f"{AUTHZ_GROUP}/v1", "kind": "SelfSubjectAccessReview",
                "metadata": {"creationTimestamp": None}, "spec": spec, "status": status}
