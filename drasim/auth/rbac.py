"""The RBAC authorizer: request attributes × Role/ClusterRole/RoleBinding/ClusterRoleBinding → decision.

k8s: plugin/pkg/auth/authorizer/rbac/rbac.go (Authorize, RuleAllows; ClusterRoleBindings first,
then the RoleBindings of the request's namespace) and subject_locator.go / rbac.go appliesTo
(User by name, Group by membership, ServiceAccount as `system:serviceaccount:NS:NAME`, a subject
without namespace taking the binding's); pkg/apis/rbac/v1/evaluation_helpers.go (VerbMatches,
APIGroupMatches, ResourceMatches with `*` and `*/subresource`, ResourceNameMatches,
NonResourceURLMatches with a trailing `*`). ClusterRole aggregationRule: the union of the rules of
the ClusterRoles its selectors match (pkg/controller/clusterroleaggregation does this by writing
the rules; here it is evaluated when asked). system:masters is allowed everything (the
privileged-group authorizer kube-apiserver puts before RBAC, pkg/kubeapiserver/authorizer).

Objects are plain dicts in the API's JSON shape.
"""
from __future__ import annotations

from dataclasses import dataclass

from drasim.api.labelselector import LabelSelectorError, compile_label_selector
from drasim.auth.attributes import Attributes
from drasim.auth.tokens import MASTERS, User


@dataclass(frozen=True)
class Policy:
    """The RBAC objects the evaluator reads."""
    roles: tuple[dict, ...] = ()
    cluster_roles: tuple[dict, ...] = ()
    role_bindings: tuple[dict, ...] = ()
    cluster_role_bindings: tuple[dict, ...] = ()


@dataclass(frozen=True)
class Decision:
    allowed: bool
    reason: str


def _has(values, wanted: str) -> bool:
    values = values or ()
    return "*" in values or wanted in values


def verb_matches(rule: dict, verb: str) -> bool:
    return _has(rule.get("verbs"), verb)


def api_group_matches(rule: dict, group: str) -> bool:
    return _has(rule.get("apiGroups"), group)


def resource_matches(rule: dict, combined: str, subresource: str) -> bool:
    for r in rule.get("resources") or ():
        if r == "*" or r == combined:
            return True
        # `*/scale` matches the scale subresource of every resource
        if subresource and r == "*/" + subresource:
            return True
    return False


def resource_name_matches(rule: dict, name: str) -> bool:
    names = rule.get("resourceNames") or ()
    return not names or name in names


def non_resource_url_matches(rule: dict, path: str) -> bool:
    for url in rule.get("nonResourceURLs") or ():
        if url == "*" or url == path or (url.endswith("*") and path.startswith(url[:-1])):
            return True
    return False


def rule_allows(a: Attributes, rule: dict) -> bool:
    if not verb_matches(rule, a.verb):
        return False
    if a.resource_request:
        combined = f"{a.resource}/{a.subresource}" if a.subresource else a.resource
        return (api_group_matches(rule, a.api_group) and resource_matches(rule, combined, a.subresource)
                and resource_name_matches(rule, a.name))
    return non_resource_url_matches(rule, a.path)


def applies_to(user: User, subject: dict, binding_namespace: str) -> bool:
    kind, name = subject.get("kind"), subject.get("name", "")
    if kind == "User":
        return user.name == name
    if kind == "Group":
        return name in user.groups
    if kind == "ServiceAccount":
        ns = subject.get("namespace") or binding_namespace
        return bool(ns) and user.name == f"system:serviceaccount:{ns}:{name}"
    return False


def _name(obj: dict) -> str:
    return (obj.get("metadata") or {}).get("name", "")


def _namespace(obj: dict) -> str:
    return (obj.get("metadata") or {}).get("namespace", "") or ""


def cluster_role_rules(policy: Policy, name: str) -> list[dict] | None:
    """A ClusterRole's rules, with those of its aggregated roles; None when there is no such role."""
    role = next((r for r in policy.cluster_roles if _name(r) == name), None)
    if role is None:
        return None
    rules = list(role.get("rules") or ())
    selectors = (role.get("aggregationRule") or {}).get("clusterRoleSelectors") or ()
    for sel in selectors:
        try:
            compiled = compile_label_selector(sel)
        except LabelSelectorError:
            continue
        for other in policy.cluster_roles:
            if other is not role and compiled.matches((other.get("metadata") or {}).get("labels") or {}):
                rules.extend(other.get("rules") or ())
    return rules


def role_ref_rules(policy: Policy, ref: dict, binding_namespace: str) -> list[dict] | None:
    kind, name = (ref or {}).get("kind"), (ref or {}).get("name", "")
    if kind == "ClusterRole":
        return cluster_role_rules(policy, name)
    if kind == "Role" and binding_namespace:
        role = next((r for r in policy.roles if _name(r) == name and _namespace(r) == binding_namespace), None)
        return None if role is None else list(role.get("rules") or ())
    return None


def _describe_subject(subject: dict, binding_namespace: str) -> str:
    kind, name = subject.get("kind"), subject.get("name", "")
    if kind == "ServiceAccount":
        return f'ServiceAccount "{subject.get("namespace") or binding_namespace}/{name}"'
    return f'{kind} "{name}"'


def grants(policy: Policy, user: User, namespace: str):
    """(binding kind, binding, subject, rules) of every binding that applies to the user in the namespace
    (cluster-wide bindings first, as rbac.go visits them)."""
    for b in policy.cluster_role_bindings:
        for subject in b.get("subjects") or ():
            if applies_to(user, subject, ""):
                yield "ClusterRoleBinding", b, subject, role_ref_rules(policy, b.get("roleRef"), "") or []
                break
    if namespace:
        for b in policy.role_bindings:
            if _namespace(b) != namespace:
                continue
            for subject in b.get("subjects") or ():
                if applies_to(user, subject, namespace):
                    yield "RoleBinding", b, subject, role_ref_rules(policy, b.get("roleRef"), namespace) or []
                    break


def authorize(policy: Policy, a: Attributes) -> Decision:
    if MASTERS in a.user.groups:
        return Decision(True, f'allowed: user "{a.user.name}" is in group "{MASTERS}"')
    for binding_kind, b, subject, rules in grants(policy, a.user, a.namespace if a.resource_request else ""):
        if any(rule_allows(a, r) for r in rules):
            ref = b.get("roleRef") or {}
            where = f'{binding_kind} "{_name(b)}"' + (f' of namespace "{_namespace(b)}"' if _namespace(b) else "")
            # k8s: rbac.go authorizingVisitor — "RBAC: allowed by <binding> of <role> to <subject>"
            return Decision(True, f'RBAC: allowed by {where} of {ref.get("kind")} "{ref.get("name")}" to '
                                  f'{_describe_subject(subject, _namespace(b))}')
    return Decision(False, "")


def always_allow(_policy: Policy, _a: Attributes) -> Decision:
    return Decision(True, "")


def rules_for(policy: Policy, user: User, namespace: str) -> tuple[list[dict], list[dict]]:
    """The rules a user holds in a namespace, split as SelfSubjectRulesReview reports them
    (k8s: rbac.go RBACAuthorizer.RulesFor — a rule with resources is a resource rule, one with
    nonResourceURLs a non-resource rule, one with both is both)."""
    resource_rules, non_resource_rules = [], []
    for _kind, _binding, _subject, rules in grants(policy, user, namespace):
        for r in rules:
            if r.get("resources"):
                rule = {"verbs": list(r.get("verbs") or ()), "apiGroups": list(r.get("apiGroups") or ()),
                        "resources": list(r.get("resources") or ())}
                if r.get("resourceNames"):
                    rule["resourceNames"] = list(r["resourceNames"])
                resource_rules.append(rule)
            if r.get("nonResourceURLs"):
                non_resource_rules.append({"verbs": list(r.get("verbs") or ()),
                                           "nonResourceURLs": list(r["nonResourceURLs"])})
    return resource_rules, non_resource_rules


def held_rules(policy: Policy, user: User, namespace: str) -> list[dict]:
    """Every rule bound to the user in the namespace (cluster-wide ones included), as
    pkg/registry/rbac/validation/rule.go DefaultRuleResolver.RulesFor collects them."""
    return [r for _kind, _binding, _subject, rules in grants(policy, user, namespace) for r in rules]
