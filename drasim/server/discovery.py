"""Discovery documents, derived from drasim.api.kinds (every kind there is served).

k8s: staging/src/k8s.io/apiserver/pkg/endpoints/discovery (legacy APIVersions, APIGroupList,
     APIResourceList) and discovery/aggregated (apidiscovery.k8s.io/v2 APIGroupDiscoveryList,
     which kubectl 1.37 asks for first with
     `Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`).
"""
from __future__ import annotations

from drasim.api import kinds
from drasim.api.kinds import Kind
from drasim.server.scale import SCALE_GVK, SCALED_KINDS

AGGREGATED_V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
STATUS_VERBS = ["get", "patch", "update"]

# k8s: each resource's ShortNames() / Categories() in pkg/registry (pod: po + "all", …).
SHORT_NAMES = {"pods": ["po"], "nodes": ["no"], "namespaces": ["ns"], "resourcequotas": ["quota"],
               "events": ["ev"], "deployments": ["deploy"], "replicasets": ["rs"], "statefulsets": ["sts"],
               "daemonsets": ["ds"], "jobs": [],
               "poddisruptionbudgets": ["pdb"]}
CATEGORIES = {"pods": ["all"], "deployments": ["all"], "replicasets": ["all"], "statefulsets": ["all"],
              "daemonsets": ["all"], "jobs": ["all"]}


def served_kinds(hidden: frozenset[str] = frozenset()) -> tuple[Kind, ...]:
    """The simulated kinds, then those the server keeps itself (RBAC, SelfSubjectAccessReview);
    `hidden`: kinds whose feature gate is off (not served, as kube-apiserver installs no storage)."""
    from drasim.server.rbacobjects import SERVER_KINDS
    return tuple(k for k in kinds.ALL_KINDS + SERVER_KINDS if k.kind not in hidden)


def kind_verbs(kind: Kind) -> list[str]:
    from drasim.server.rbacobjects import CREATE_ONLY
    return ["create"] if kind.plural in CREATE_ONLY else VERBS


def groups(hidden: frozenset[str] = frozenset()) -> dict[str, dict[str, list[Kind]]]:
    """group → version → kinds, in kinds.py order (core group "" first)."""
    out: dict[str, dict[str, list[Kind]]] = {"": {}}
    for kind in served_kinds(hidden):
        out.setdefault(kind.group, {}).setdefault(kind.version, []).append(kind)
    return out


def by_resource(group: str, version: str, plural: str, hidden: frozenset[str] = frozenset()) -> Kind | None:
    for kind in served_kinds(hidden):
        if kind.group == group and kind.version == version and kind.plural == plural:
            return kind
    return None


def subresources(kind: Kind) -> list[tuple[str, dict, list[str]]]:
    """(name, response kind, verbs) of each subresource."""
    gvk = {"group": kind.group, "version": kind.version, "kind": kind.kind}
    out = []
    if kind.plural == "pods":
        out.append(("binding", {"group": "", "version": "v1", "kind": "Binding"}, ["create"]))
        out.append(("eviction", {"group": "policy", "version": "v1", "kind": "Eviction"}, ["create"]))
    if kind.has_status:
        out.append(("status", gvk, STATUS_VERBS))
    if kind.kind in SCALED_KINDS:   # k8s: ScaleREST of apps/v1 (autoscaling/v1 Scale)
        out.append(("scale", SCALE_GVK, STATUS_VERBS))
    return out


def api_versions(server_address: str) -> dict:
    return {"kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}]}


def api_group_list(hidden: frozenset[str] = frozenset()) -> dict:
    items = []
    for group, versions in groups(hidden).items():
        if group:
            items.append(api_group(group, versions))
    return {"kind": "APIGroupList", "apiVersion": "v1", "groups": items}


def api_group(group: str, versions: dict[str, list[Kind]] | None = None, hidden: frozenset[str] = frozenset()) -> dict:
    versions = versions if versions is not None else groups(hidden)[group]
    gvs = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
    return {"kind": "APIGroup", "apiVersion": "v1", "name": group, "versions": gvs, "preferredVersion": gvs[0]}


def api_resource_list(group: str, version: str, hidden: frozenset[str] = frozenset()) -> dict | None:
    found = groups(hidden).get(group, {}).get(version)
    if not found:
        return None
    resources = []
    for kind in found:
        entry = {"name": kind.plural, "singularName": kind.kind.lower(), "namespaced": kind.namespaced,
                 "kind": kind.kind, "verbs": kind_verbs(kind)}
        if SHORT_NAMES.get(kind.plural):
            entry["shortNames"] = SHORT_NAMES[kind.plural]
        if kind.plural in CATEGORIES:
            entry["categories"] = CATEGORIES[kind.plural]
        resources.append(entry)
        for name, gvk, verbs in subresources(kind):
            sub = {"name": f"{kind.plural}/{name}", "singularName": "", "namespaced": kind.namespaced,
                   "kind": gvk["kind"], "verbs": verbs}
            if gvk["group"] != kind.group or gvk["version"] != kind.version:
                sub.update(group=gvk["group"], version=gvk["version"])
            resources.append(sub)
    gv = f"{group}/{version}" if group else version
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}


def _discovery_resource(kind: Kind) -> dict:
    entry = {"resource": kind.plural,
             "responseKind": {"group": kind.group, "version": kind.version, "kind": kind.kind},
             "scope": "Namespaced" if kind.namespaced else "Cluster",
             "singularResource": kind.kind.lower(), "verbs": kind_verbs(kind)}
    if SHORT_NAMES.get(kind.plural):
        entry["shortNames"] = SHORT_NAMES[kind.plural]
    if kind.plural in CATEGORIES:
        entry["categories"] = CATEGORIES[kind.plural]
    subs = [{"subresource": name, "responseKind": gvk, "verbs": verbs} for name, gvk, verbs in subresources(kind)]
    if subs:
        entry["subresources"] = subs
    return entry


def aggregated(core: bool, hidden: frozenset[str] = frozenset()) -> dict:
    """/api (core=True) or /apis as an apidiscovery.k8s.io/v2 APIGroupDiscoveryList."""
    items = []
    for group, versions in groups(hidden).items():
        if (group == "") != core or not versions:
            continue
        items.append({"metadata": {"name": group, "creationTimestamp": None},
                      "versions": [{"version": v, "resources": [_discovery_resource(k) for k in ks],
                                    "freshness": "Current"} for v, ks in versions.items()]})
    return {"kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2", "metadata": {}, "items": items}


def wants_aggregated(accept: str) -> bool:
    """The first acceptable media type decides (kubectl lists v2, then v2beta1, then plain JSON)."""
    for part in accept.split(","):
        params = {p.split("=", 1)[0].strip(): p.split("=", 1)[1].strip() for p in part.split(";")[1:] if "=" in p}
        if params.get("g") == "apidiscovery.k8s.io" and params.get("as") == "APIGroupDiscoveryList":
            return params.get("v") == "v2"
        if part.strip().split(";")[0] in ("application/json", "*/*"):
            return False
    return False


def version_info() -> dict:
    return {"major": "1", "minor": "37", "emulationMajor": "1", "emulationMinor": "37",
            "minCompatibilityMajor": "1", "minCompatibilityMinor": "36", "gitVersion": "v1.37.0-drasim",
            "gitCommit": "0000000000000000000000000000000000000000", "gitTreeState": "clean",
            "buildDate": "2026-01-01T00:00:00Z", "goVersion": "go1.25", "compiler": "gc",
            "platform": "linux/amd64"}
