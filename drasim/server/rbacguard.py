"""Escalation prevention on writes of Roles, ClusterRoles and their bindings (rules in
drasim/auth/escalation.py).

k8s: pkg/registry/rbac/role/policybased/storage.go and clusterrole/policybased/storage.go (Create,
Update: system:masters, or `escalate` on the role, or every rule held — ConfirmNoEscalation in the
request's namespace; a ClusterRole's aggregationRule needs full authority, "must have cluster-admin
privileges to use the aggregationRule"), rolebinding/policybased/storage.go and
clusterrolebinding/policybased/storage.go (system:masters, or `bind` on the referenced role, or
every rule of that role held; a referenced role that does not exist is its NotFound). Updates that
change only ownerReferences / finalizers are not checked (IsOnlyMutatingGCFields). The rules held
come from RBAC alone (the RBAC rule resolver), whatever the authorization modes.
"""
from __future__ import annotations

from drasim.auth import escalation, rbac
from drasim.auth.attributes import Attributes
from drasim.auth.tokens import MASTERS, User
from drasim.server import status as st
from drasim.server.rbacobjects import CLUSTER_ROLE, CLUSTER_ROLE_BINDING, RBAC_GROUP, ROLE, ROLE_BINDING


def _forbidden(kind, name: str, reason: str) -> st.ApiError:
    # k8s: apierrors.NewForbidden(rbac group resource, name, err)
    return st.ApiError(403, "Forbidden", f'{kind.plural}.{RBAC_GROUP} "{name}" is forbidden: {reason}',
                       {"name": name, "group": RBAC_GROUP, "kind": kind.plural})


def _confirm_no_escalation(policy: rbac.Policy, user: User, namespace: str, kind, name: str, rules) -> None:
    missing = escalation.missing_rules(rbac.held_rules(policy, user, namespace), list(rules or ()))
    if missing:
        raise _forbidden(kind, name, escalation.escalation_message(user.name, user.groups, missing))


def check_write(decide, policy: rbac.Policy, user: User, kind, namespace: str | None, new: dict,
                old: dict | None = None) -> None:
    """Raise the Forbidden (or NotFound) kube-apiserver answers when this write would escalate."""
    if kind not in (ROLE, CLUSTER_ROLE, ROLE_BINDING, CLUSTER_ROLE_BINDING) or MASTERS in user.groups:
        return   # k8s: EscalationAllowed
    if old is not None and escalation.only_gc_fields_changed(new, old):
        return
    namespace = namespace or ""
    name = (new.get("metadata") or {}).get("name", "")
    if kind in (ROLE, CLUSTER_ROLE):
        # k8s: RoleEscalationAuthorized — `escalate` on this role
        if decide(Attributes(user, "escalate", True, RBAC_GROUP, "*", kind.plural, "", namespace, name)).allowed:
            return
        _confirm_no_escalation(policy, user, namespace, kind, name, new.get("rules"))
        if kind is CLUSTER_ROLE and new.get("aggregationRule"):
            if escalation.missing_rules(rbac.held_rules(policy, user, namespace), escalation.FULL_AUTHORITY):
                raise _forbidden(kind, name, "must have cluster-admin privileges to use the aggregationRule")
        return
    ref = new.get("roleRef") or {}
    role_resource = "clusterroles" if ref.get("kind") == "ClusterRole" else "roles"
    # k8s: BindingAuthorized — `bind` on the referenced role, in the binding's namespace
    if decide(Attributes(user, "bind", True, ref.get("apiGroup", ""), "*", role_resource, "", namespace,
                         ref.get("name", ""))).allowed:
        return
    rules = rbac.role_ref_rules(policy, ref, namespace)
    if rules is None:   # k8s: GetRoleReferenceRules — the lister's NotFound (singular resource)
        singular = role_resource[:-1]
        raise st.ApiError(404, "NotFound", f'{singular}.{RBAC_GROUP} "{ref.get("name", "")}" not found',
                          {"name": ref.get("name", ""), "group": RBAC_GROUP, "kind": singular})
    _confirm_no_escalation(policy, user, namespace, kind, name, rules)
