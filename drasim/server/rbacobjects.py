"""The RBAC objects (rbac.authorization.k8s.io/v1) and SelfSubjectAccessReview (authorization.k8s.io/v1).

The control plane does not simulate RBAC (the loader skips these kinds in snapshots), so the
server keeps them itself, in memory: create, get, list, update, delete. Seeded with the part of
kube-apiserver's bootstrap policy a client meets first
(k8s: plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go — cluster-admin bound to
system:masters, system:discovery, system:basic-user and system:public-info-viewer).
"""
from __future__ import annotations

import copy
import itertools
import uuid

from drasim.api.kinds import Kind
from drasim.auth import rbac
from drasim.auth.attributes import Attributes
from drasim.auth.tokens import MASTERS, User
from drasim.server import status as st

RBAC_GROUP = "rbac.authorization.k8s.io"
AUTHZ_GROUP = "authorization.k8s.io"
ROLE = Kind(RBAC_GROUP, "v1", "Role", "roles", namespaced=True, has_status=False)
ROLE_BINDING = Kind(RBAC_GROUP, "v1", "RoleBinding", "rolebindings", namespaced=True, has_status=False)
CLUSTER_ROLE = Kind(RBAC_GROUP, "v1", "ClusterRole", "clusterroles", namespaced=False, has_status=False)
CLUSTER_ROLE_BINDING = Kind(RBAC_GROUP, "v1", "ClusterRoleBinding", "clusterrolebindings", namespaced=False,
                            has_status=False)
SSAR = Kind(AUTHZ_GROUP, "v1", "SelfSubjectAccessReview", "selfsubjectaccessreviews", namespaced=False,
            has_status=False)
SAR = Kind(AUTHZ_GROUP, "v1", "SubjectAccessReview", "subjectaccessreviews", namespaced=False, has_status=False)
LSAR = Kind(AUTHZ_GROUP, "v1", "LocalSubjectAccessReview", "localsubjectaccessreviews", namespaced=True,
            has_status=False)
SSRR = Kind(AUTHZ_GROUP, "v1", "SelfSubjectRulesReview", "selfsubjectrulesreviews", namespaced=False,
            has_status=False)
RBAC_KINDS = (ROLE, ROLE_BINDING, CLUSTER_ROLE, CLUSTER_ROLE_BINDING)
REVIEW_KINDS = (SSAR, SAR, LSAR, SSRR)
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
    def __init__(self, now=lambda: "1970-01-01T00:00:00Z") -> None:
        self.objects: dict[tuple[str, str, str], dict] = {}
        self.revision = itertools.count(1)
        self.now = now
        for obj in bootstrap_policy():
            self.create(BY_PLURAL[obj["kind"].lower() + "s"], None, obj)

    def policy(self) -> rbac.Policy:
        by_kind: dict[str, list[dict]] = {k.kind: [] for k in RBAC_KINDS}
        for (kind, _, _), obj in self.objects.items():
            by_kind[kind].append(obj)
        return rbac.Policy(tuple(by_kind["Role"]), tuple(by_kind["ClusterRole"]),
                           tuple(by_kind["RoleBinding"]), tuple(by_kind["ClusterRoleBinding"]))

    def _key(self, kind: Kind, namespace: str | None, name: str) -> tuple[str, str, str]:
        return (kind.kind, namespace or "" if kind.namespaced else "", name)

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

    def _details(self, kind: Kind, name: str) -> dict:
        return {"name": name, "group": kind.group, "kind": kind.plural}

    def create(self, kind: Kind, namespace: str | None, body) -> dict:
        obj = self._check(kind, namespace, body)
        key = self._key(kind, namespace, obj["metadata"]["name"])
        if key in self.objects:
            raise st.ApiError(409, "AlreadyExists", f'{kind.resource} "{key[2]}" already exists',
                              self._details(kind, key[2]))
        obj["metadata"].update(uid=str(uuid.uuid4()), resourceVersion=str(next(self.revision)),
                               creationTimestamp=self.now())
        self.objects[key] = obj
        return copy.deepcopy(obj)

    def get(self, kind: Kind, namespace: str | None, name: str) -> dict:
        obj = self.objects.get(self._key(kind, namespace, name))
        if obj is None:
            raise st.ApiError(404, "NotFound", f'{kind.resource} "{name}" not found', self._details(kind, name))
        return copy.deepcopy(obj)

    def list(self, kind: Kind, namespace: str | None) -> dict:
        items = [copy.deepcopy(o) for (k, ns, _), o in sorted(self.objects.items())
                 if k == kind.kind and (namespace is None or ns == namespace)]
        return {"kind": f"{kind.kind}List", "apiVersion": kind.api_version,
                "metadata": {"resourceVersion": str(next(self.revision))}, "items": items}

    def update(self, kind: Kind, namespace: str | None, name: str, body) -> dict:
        old = self.get(kind, namespace, name)
        obj = self._check(kind, namespace, body)
        rv = obj["metadata"].get("resourceVersion")
        if rv and rv != old["metadata"]["resourceVersion"]:
            raise st.ApiError(409, "Conflict", f'Operation cannot be fulfilled on {kind.resource} "{name}": the '
                              "object has been modified; please apply your changes to the latest version and try again",
                              self._details(kind, name))
        obj["metadata"].update(uid=old["metadata"]["uid"], creationTimestamp=old["metadata"]["creationTimestamp"],
                               resourceVersion=str(next(self.revision)))
        self.objects[self._key(kind, namespace, name)] = obj
        return copy.deepcopy(obj)

    def delete(self, kind: Kind, namespace: str | None, name: str) -> dict:
        obj = self.get(kind, namespace, name)
        del self.objects[self._key(kind, namespace, name)]
        return obj

    def access_review(self, decide, user: User, body) -> dict:
        """SelfSubjectAccessReview: the requester's own access (k8s: pkg/registry/authorization/
        selfsubjectaccessreview/rest.go — spec.resourceAttributes or nonResourceAttributes)."""
        if not isinstance(body, dict) or not isinstance(body.get("spec"), dict):
            raise st.bad_request("the object provided is unrecognized (must be of type SelfSubjectAccessReview)")
        spec = body["spec"]
        ra, nra = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
        if (ra is None) == (nra is None):
            # k8s: pkg/apis/authorization/validation — exactly one of the two
            raise st.ApiError(422, "Invalid", 'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: '
                              "spec.resourceAttributes: Invalid value: \"null\": exactly one of "
                              "nonResourceAttributes or resourceAttributes must be specified",
                              {"group": AUTHZ_GROUP, "kind": "SelfSubjectAccessReview"})
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
