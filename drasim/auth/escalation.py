"""RBAC escalation prevention: a Role or ClusterRole may grant only what its writer holds, a binding
may bind only a role whose rules its writer holds, unless they may `escalate` / `bind`.

k8s: pkg/registry/rbac/escalation_check.go (EscalationAllowed: system:masters; RoleEscalationAuthorized:
the `escalate` verb on the role; BindingAuthorized: the `bind` verb on the referenced role, in the
binding's namespace), pkg/registry/rbac/validation/rule.go (ConfirmNoEscalation and its message),
component-helpers/auth/rbac/validation/policy_comparator.go (Covers, BreakdownRule, ruleCovers,
resourceCoversAll, nonResourceURLCovers), pkg/registry/rbac/validation/policy_compact.go
(CompactRules: single-group, single-resource rules merged by verbs) and pkg/apis/rbac/v1/helpers.go
(CompactString). Pure: rules are the API's dicts.
"""
from __future__ import annotations


def _has(values, wanted: str) -> bool:
    return wanted in (values or ())


def _has_all(values, wanted) -> bool:
    return all(_has(values, w) for w in wanted or ())


def breakdown(rule: dict) -> list[dict]:
    """k8s: BreakdownRule — one rule per group × resource × verb (× resourceName), and per URL × verb."""
    out = []
    verbs, names = rule.get("verbs") or (), rule.get("resourceNames") or ()
    for group in rule.get("apiGroups") or ():
        for resource in rule.get("resources") or ():
            for verb in verbs:
                if names:
                    out += [{"apiGroups": [group], "resources": [resource], "verbs": [verb], "resourceNames": [n]}
                            for n in names]
                else:
                    out.append({"apiGroups": [group], "resources": [resource], "verbs": [verb]})
    for url in rule.get("nonResourceURLs") or ():
        out += [{"nonResourceURLs": [url], "verbs": [verb]} for verb in verbs]
    return out


def _resources_cover(owned, wanted) -> bool:
    if _has(owned, "*") or _has_all(owned, wanted):
        return True
    for path in wanted or ():
        if _has(owned, path):
            continue
        if "/" not in path or not _has(owned, "*/" + path.split("/", 1)[1]):   # `*/status` covers x/status
            return False
    return True


def _url_covers(owned: str, wanted: str) -> bool:
    return owned == wanted or (owned.endswith("*") and wanted.startswith(owned.rstrip("*")))


def _urls_cover(owned, wanted) -> bool:
    return all(any(_url_covers(o, w) for o in owned or ()) for w in wanted or ())


def rule_covers(owner: dict, sub: dict) -> bool:
    """k8s: ruleCovers."""
    verbs = _has(owner.get("verbs"), "*") or _has_all(owner.get("verbs"), sub.get("verbs"))
    groups = _has(owner.get("apiGroups"), "*") or _has_all(owner.get("apiGroups"), sub.get("apiGroups"))
    owner_names = owner.get("resourceNames") or ()
    if not sub.get("resourceNames"):
        names = not owner_names
    else:
        names = not owner_names or _has_all(owner_names, sub["resourceNames"])
    return (verbs and groups and names and _resources_cover(owner.get("resources"), sub.get("resources"))
            and _urls_cover(owner.get("nonResourceURLs"), sub.get("nonResourceURLs")))


def missing_rules(owner_rules: list[dict], requested: list[dict]) -> list[dict]:
    """k8s: Covers — the broken-down requested rules no owner rule covers."""
    missing = []
    for rule in requested:
        for sub in breakdown(rule):
            if not any(rule_covers(o, sub) for o in owner_rules):
                missing.append(sub)
    return missing


def compact(rules: list[dict]) -> list[dict]:
    """k8s: CompactRules — rules of one group and one resource (and at most one name) merge their verbs."""
    merged: dict[tuple, dict] = {}
    out = []
    for r in rules:
        groups, resources, names = r.get("apiGroups") or (), r.get("resources") or (), r.get("resourceNames") or ()
        if len(groups) == 1 and len(resources) == 1 and len(names) <= 1 and not r.get("nonResourceURLs"):
            key = (groups[0], resources[0], names[0] if names else None)
            if key in merged:
                merged[key]["verbs"] = merged[key]["verbs"] + [v for v in r["verbs"] if v not in merged[key]["verbs"]]
                continue
            merged[key] = dict(r, verbs=list(r.get("verbs") or ()))
            out.append(merged[key])
        else:
            out.append(r)
    return out


def _go_quote_list(values) -> str:
    """Go's %q of a []string: ["a" "b"]."""
    return "[" + " ".join('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values) + "]"


def compact_string(rule: dict) -> str:
    """k8s: rbacv1helpers.CompactString."""
    parts = []
    for field, label in (("apiGroups", "APIGroups"), ("resources", "Resources"),
                         ("nonResourceURLs", "NonResourceURLs"), ("resourceNames", "ResourceNames"), ("verbs", "Verbs")):
        if rule.get(field):
            parts.append(f"{label}:{_go_quote_list(rule[field])}")
    return "{" + ", ".join(parts) + "}"


def escalation_message(user_name: str, groups, missing: list[dict]) -> str:
    """k8s: ConfirmNoEscalation's error (the missing rules compacted, sorted, one a line)."""
    described = sorted({compact_string(r) for r in compact(missing)})
    return (f'user "{user_name}" (groups={_go_quote_list(groups)}) is attempting to grant RBAC permissions not '
            "currently held:\n" + "\n".join(described))


FULL_AUTHORITY = [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]},
                  {"verbs": ["*"], "nonResourceURLs": ["*"]}]


def only_gc_fields_changed(new: dict, old: dict) -> bool:
    """k8s: rbacregistry.IsOnlyMutatingGCFields — ownerReferences and finalizers aside, the same object."""
    def strip(o: dict) -> dict:
        md = {k: v for k, v in (o.get("metadata") or {}).items()
              if k not in ("ownerReferences", "finalizers", "resourceVersion", "managedFields")}
        return {**o, "metadata": md}
    return strip(new) == strip(old)
