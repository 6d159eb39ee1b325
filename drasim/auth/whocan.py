"""Who can VERB RESOURCE: the subjects, bindings and roles that grant it (`drasim rbac who-can`).

The same rule matching as the authorizer (drasim/auth/rbac.py rule_allows), run from the
bindings' side: a binding grants the request when a rule of its role (aggregation included)
allows it. ClusterRoleBindings grant everywhere; a RoleBinding only in its namespace. The group
system:masters is allowed by kube-apiserver's privileged-group authorizer, before RBAC.
"""
from __future__ import annotations

from drasim.auth import rbac
from drasim.auth.attributes import Attributes
from drasim.auth.tokens import MASTERS, User

_NOBODY = User("", "", ())


def _wildcard(rule: dict, resource_request: bool) -> bool:
    keys = ("verbs", "apiGroups", "resources") if resource_request else ("verbs", "nonResourceURLs")
    return any("*" in (rule.get(k) or ()) for k in keys)


def who_can(policy: rbac.Policy, verb: str, group: str, resource: str, subresource: str = "",
            namespace: str | None = None, name: str = "") -> list[dict]:
    """One row per (subject, binding) that grants the request; namespace None: RoleBindings of every namespace."""
    a = Attributes(_NOBODY, verb, True, group, "", resource, subresource, namespace or "", name)
    rows = [{"subjectKind": "Group", "subject": MASTERS, "binding": "", "bindingKind": "", "namespace": "",
             "roleKind": "", "role": "", "flags": ["cluster-admin"],
             "note": "the privileged group: allowed before RBAC is asked"}]
    bindings = [("ClusterRoleBinding", b, "") for b in policy.cluster_role_bindings]
    for b in policy.role_bindings:
        ns = (b.get("metadata") or {}).get("namespace", "")
        if namespace is None or ns == namespace:
            bindings.append(("RoleBinding", b, ns))
    for kind, b, ns in bindings:
        ref = b.get("roleRef") or {}
        rules = rbac.role_ref_rules(policy, ref, ns) or []
        matching = [r for r in rules if rbac.rule_allows(a, r)]
        if not matching:
            continue
        flags = []
        if ref.get("kind") == "ClusterRole" and ref.get("name") == "cluster-admin":
            flags.append("cluster-admin")
        if any(_wildcard(r, True) for r in matching):
            flags.append("wildcard")
        for s in b.get("subjects") or ():
            subject = s.get("name", "")
            if s.get("kind") == "ServiceAccount":
                subject = f'{s.get("namespace") or ns}/{subject}'
            rows.append({"subjectKind": s.get("kind", ""), "subject": subject,
                         "binding": (b.get("metadata") or {}).get("name", ""), "bindingKind": kind, "namespace": ns,
                         "roleKind": ref.get("kind", ""), "role": ref.get("name", ""), "flags": flags, "note": ""})
    return rows
