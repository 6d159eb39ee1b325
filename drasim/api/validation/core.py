"""Core (v1) validation for the fields drasim uses: Pod, Node, Namespace, ResourceQuota.

k8s: pkg/apis/core/validation/validation.go (validateContainerResourceName, validateResourceRequirements,
     validatePodResourceClaim(s), validateResourceClaimNames, ValidateNodeSelector, ValidateNode,
     ValidateResourceQuotaSpec), pkg/apis/core/helper/helpers.go.
Spec: extended-resources.md §2.6 (63-byte name part), §4.2-§4.3 (non-overcommittable names).

Only what drasim models is checked (plus the scheduling enumerations: taint effects, toleration
operators, node affinity operators); the rest of PodSpec is accepted once it decodes.
A quantity that does not parse is a decode error in Kubernetes; here it is reported
as an `Invalid value` on its field with the parser's message.
"""
from __future__ import annotations

import dataclasses

from drasim.api.fielderrors import Path, duplicate, forbidden, invalid, not_found, not_supported, required
from drasim.api.quantity import Quantity
from drasim.api.validation import common, memo, podupdate, scheduling
from drasim.api.validation.common import BAD, Errors, dict_items, get_dict, get_list, get_str

_STANDARD_CONTAINER_RESOURCES = frozenset({"cpu", "memory", "ephemeral-storage"})
_INTEGER_RESOURCES = frozenset({"pods", "services", "replicationcontrollers", "resourcequotas", "secrets",
                                "persistentvolumeclaims", "configmaps", "services.nodeports",
                                "services.loadbalancers"})
_STANDARD_QUOTA_RESOURCES = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage",
} | _INTEGER_RESOURCES)
_STANDARD_RESOURCES = _STANDARD_QUOTA_RESOURCES | {"storage"}
_NOT_INTEGER = "must be an integer"
_NEGATIVE = "must be greater than or equal to 0"


# --- resource names and quantities ---------------------------------------------------------------

def _is_quota_hugepage(name: str) -> bool:
    return any(name.startswith(p) for p in ("hugepages-", "requests.hugepages-", "limits.hugepages-"))


def validate_resource_name(name: str, path: Path) -> Errors:
    """k8s: validateResourceName — a qualified name; without a domain, a standard resource."""
    errs = common.messages_as_errors(common.is_qualified_name(name), path, name)
    if errs:
        return errs
    if "/" not in name and name not in _STANDARD_RESOURCES and not _is_quota_hugepage(name):
        return [invalid(path, name, "must be a standard resource type or fully qualified")]
    return []


def validate_container_resource_name(name: str, path: Path) -> Errors:
    """k8s: validateContainerResourceName (extended-resources.md §2.6)."""
    errs = validate_resource_name(name, path)
    if "/" not in name:
        if name not in _STANDARD_CONTAINER_RESOURCES and not common.is_hugepage_resource_name(name):
            errs.append(invalid(path, name, "must be a standard resource for containers"))
    elif not common.is_native_resource(name) and not common.is_extended_resource_name(name):
        errs.append(invalid(path, name, "doesn't follow extended resource name standard"))
    return errs


def is_integer_resource_name(name: str) -> bool:
    return name in _INTEGER_RESOURCES or common.is_extended_resource_name(name)


def validate_quantity_value(name: str, raw: object, path: Path, errs: Errors) -> Quantity | None:
    """k8s: ValidateResourceQuantityValue — non-negative; integer for integer resources."""
    q = common.get_quantity(raw, path, errs)
    if q is None:
        return None
    if q.value < 0:
        errs.append(invalid(path, q.canonical(), _NEGATIVE))
    if is_integer_resource_name(name) and q.milli_value() % 1000 != 0:
        errs.append(invalid(path, q.canonical(), _NOT_INTEGER))
    return q


def _resource_map(obj: dict, key: str, path: Path, errs: Errors) -> list[tuple[str, object, Path]]:
    values = get_dict(obj, key, path, errs)
    if not isinstance(values, dict):
        return []
    return [(str(k), values[k], path.child(key).key(str(k))) for k in sorted(values, key=str)]


# --- node selector ------------------------------------------------------------------------------

def validate_node_selector(selector: dict, path: Path, errs: Errors) -> None:
    """k8s: ValidateNodeSelector(allowEmptyTerms=false)."""
    tpath = path.child("nodeSelectorTerms")
    terms = get_list(selector, "nodeSelectorTerms", path, errs)
    if terms is BAD:
        return
    if not terms:
        errs.append(required(tpath, "must have at least one node selector term"))
        return
    for _, term, p in dict_items(terms, tpath, errs):
        exprs = get_list(term, "matchExpressions", p, errs)
        fields = get_list(term, "matchFields", p, errs)
        exprs = exprs if isinstance(exprs, list) else []
        fields = fields if isinstance(fields, list) else []
        if not exprs and not fields:
            errs.append(required(p, "must have at least one node selector requirement"))
            continue
        for _, req, rp in dict_items(exprs, p.child("matchExpressions"), errs):
            _validate_label_requirement(req, rp, errs)
        for _, req, rp in dict_items(fields, p.child("matchFields"), errs):
            _validate_field_requirement(req, rp, errs)


def _validate_label_requirement(req: dict, path: Path, errs: Errors) -> None:
    op = get_str(req, "operator", path, errs)
    values = common.string_list(req, "values", path, errs)
    if op in ("In", "NotIn"):
        if not values:
            errs.append(required(path.child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
    elif op in ("Exists", "DoesNotExist"):
        if values:
            errs.append(forbidden(path.child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    elif op in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(required(path.child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
    elif op is not BAD:
        errs.append(invalid(path.child("operator"), op or "", "not a valid selector operator"))
    key = get_str(req, "key", path, errs)
    if key is not BAD:
        errs.extend(common.validate_label_name(key or "", path.child("key")))


def _validate_field_requirement(req: dict, path: Path, errs: Errors) -> None:
    op = get_str(req, "operator", path, errs)
    values = common.string_list(req, "values", path, errs)
    if op in ("In", "NotIn"):
        if len(values) != 1:
            errs.append(required(path.child("values"),
                                 "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
    elif op is not BAD:
        errs.append(invalid(path.child("operator"), op or "", "not a valid selector operator"))
    key = get_str(req, "key", path, errs)
    if key == "metadata.name":
        for i, v in values:
            errs.extend(common.messages_as_errors(common.is_dns1123_subdomain(v), path.child("values").index(i), v))
    elif key is not BAD:
        errs.append(invalid(path.child("key"), key or "", "not a valid field selector key"))


# --- Pod ----------------------------------------------------------------------------------------

def validate_pod(obj: dict, old: dict | None = None) -> Errors:
    errs: Errors = []
    common.validate_object_meta(obj, namespaced=True, name_fn=common.is_dns1123_subdomain, errs=errs)
    spec = get_dict(obj, "spec", Path(), errs)
    if spec is None:
        spec = {}
    if not isinstance(spec, dict):
        return errs
    status = obj.get("status")
    live = isinstance(status, dict) and bool(status.get("conditions") or status.get("startTime"))
    ephemeral_forbidden = old is None and not live
    # The spec but its nodeName (one per node; checked on its own, in its place) is what the pods
    # of a fleet share: its checks are remembered when clean (validation/memo.py).
    shared = tuple((k, v) for k, v in spec.items() if k != "nodeName")
    shared_text = memo.key_text(shared) if memo.ENABLED else ""   # both parts' key: the spec is written out once
    memo.validate("pod.spec:before-nodeName", shared, lambda out: _pod_spec_first(spec, out), errs, shared_text)
    path = Path("spec")
    node_name = get_str(spec, "nodeName", path, errs)
    if isinstance(node_name, str) and node_name and not common.dns1123_subdomain_clean(node_name):
        errs.extend(common.messages_as_errors(common.is_dns1123_subdomain(node_name), path.child("nodeName"),
                                              node_name))
    memo.validate("pod.spec:after-nodeName", (shared, ephemeral_forbidden),
                  lambda out: _pod_spec_rest(spec, ephemeral_forbidden, out), errs,
                  (shared_text, ephemeral_forbidden))
    if old is None and isinstance(node_name, str) and node_name and spec.get("schedulingGates"):
        # k8s: ValidatePodCreate — a pod cannot be assigned a node while gates remain.
        errs.append(forbidden(path.child("nodeName"), "cannot be set until all schedulingGates have been cleared"))
    if old is not None and isinstance(old.get("spec"), dict):   # k8s: ValidatePodUpdate
        podupdate.validate_pod_spec_update(spec, old["spec"], errs)
    return errs


def _pod_claims(spec: dict, path: Path, errs: Errors) -> list:
    claims = get_list(spec, "resourceClaims", path, errs)
    return claims if isinstance(claims, list) else []


def _pod_spec_first(spec: dict, errs: Errors) -> None:
    """What the API server checks of a pod's spec before its nodeName."""
    path = Path("spec")
    _pod_claims(spec, path, errs)
    if not spec.get("containers"):
        errs.append(required(path.child("containers"), ""))   # k8s: validateContainers


def _pod_spec_rest(spec: dict, ephemeral_forbidden: bool, errs: Errors) -> None:
    """What it checks after the nodeName: containers, resource claims, affinity, tolerations."""
    path = Path("spec")
    claims = _pod_claims(spec, path, [])   # its type error was reported before the nodeName's
    claim_names = {c["name"] for c in claims if isinstance(c, dict) and isinstance(c.get("name"), str) and c["name"]}
    seen_names: set[str] = set()
    if ephemeral_forbidden and spec.get("ephemeralContainers"):
        # k8s: ValidatePodCreate. They are added later through the ephemeralcontainers subresource,
        # so only a snapshot of a live pod (one whose status has conditions) may hold them.
        errs.append(forbidden(path.child("ephemeralContainers"), "cannot be set on create"))
    for key in ("initContainers", "containers"):
        containers = get_list(spec, key, path, errs)
        for _, c, p in dict_items(containers if isinstance(containers, list) else [], path.child(key), errs):
            # k8s: validateContainerCommon — name is a unique DNS label, image is required.
            name = get_str(c, "name", p, errs)
            if name is None or name == "":
                errs.append(required(p.child("name"), ""))
            elif isinstance(name, str):
                errs.extend(common.messages_as_errors(common.is_dns1123_label(name), p.child("name"), name))
                if name in seen_names:
                    errs.append(duplicate(p.child("name"), name))
                seen_names.add(name)
            image = get_str(c, "image", p, errs)
            if image is None or image == "":
                errs.append(required(p.child("image"), ""))
            resources = get_dict(c, "resources", p, errs)
            if isinstance(resources, dict):
                _validate_resource_requirements(resources, claim_names, p.child("resources"), errs)
    _validate_pod_resource_claims(claims, path.child("resourceClaims"), errs)
    affinity = get_dict(spec, "affinity", path, errs)
    node_affinity = get_dict(affinity, "nodeAffinity", path.child("affinity"), errs) if isinstance(affinity, dict) else None
    if isinstance(node_affinity, dict):
        _validate_node_affinity(node_affinity, path.child("affinity", "nodeAffinity"), errs)
    tolerations = get_list(spec, "tolerations", path, errs)
    for _, toleration, p in dict_items(tolerations if isinstance(tolerations, list) else [], path.child("tolerations"), errs):
        _validate_toleration(toleration, p, errs)
    policy = get_str(spec, "preemptionPolicy", path, errs)
    if isinstance(policy, str):   # k8s: validatePodSpec → ValidatePreemptionPolicy
        scheduling.validate_preemption_policy(policy, path.child("preemptionPolicy"), errs)
    gates = get_list(spec, "schedulingGates", path, errs)
    seen_gates: set[str] = set()
    for i, gate, p in dict_items(gates if isinstance(gates, list) else [], path.child("schedulingGates"), errs):
        # k8s: validateSchedulingGates — each name qualified (reported at the entry, not .name), no repeats.
        name = get_str(gate, "name", p, errs)
        if not isinstance(name, str):
            name = ""
        errs.extend(common.messages_as_errors(common.is_qualified_name(name), p, name))
        if name in seen_gates:
            errs.append(duplicate(p, name))
        seen_gates.add(name)


# --- scheduling enumerations: taints, tolerations, node affinity ------------------------------------
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")   # k8s: validateTaintEffect, in its order


def _validate_taint_effect(effect: object, allow_empty: bool, path: Path, errs: Errors) -> None:
    """k8s: validateTaintEffect."""
    if not effect:
        if not allow_empty:
            errs.append(required(path, ""))
    elif effect not in TAINT_EFFECTS:
        errs.append(not_supported(path, effect, TAINT_EFFECTS))


def _validate_node_taints(taints: list, path: Path, errs: Errors) -> None:
    """k8s: validateNodeTaints — label-name key, label-value value, an effect, unique (key, effect)."""
    seen: set[tuple[str, str]] = set()
    for _, taint, p in dict_items(taints, path, errs):
        key, value, effect = (get_str(taint, k, p, errs) for k in ("key", "value", "effect"))
        errs.extend(common.validate_label_name(key if isinstance(key, str) else "", p.child("key")))
        if isinstance(value, str):
            errs.extend(common.messages_as_errors(common.is_label_value(value), p.child("value"), value))
        _validate_taint_effect(effect if isinstance(effect, str) else "", False, p.child("effect"), errs)
        pair = (key if isinstance(key, str) else "", effect if isinstance(effect, str) else "")
        if pair in seen:
            # The bad value is the internal core.Taint, which has no json tags: Go's field names.
            shown = {"Key": pair[0], "Value": value if isinstance(value, str) else "", "Effect": pair[1],
                     "TimeAdded": taint.get("timeAdded")}
            errs.append(dataclasses.replace(duplicate(p, shown), detail="taints must be unique by key and effect pair"))
        seen.add(pair)


def _validate_toleration(toleration: dict, path: Path, errs: Errors) -> None:
    """k8s: ValidateTolerations — the operator and effect enumerations and the rules tying them."""
    key, op, value, effect = (get_str(toleration, k, path, errs) for k in ("key", "operator", "value", "effect"))
    key, op = (key if isinstance(key, str) else ""), (op if isinstance(op, str) else "")
    effect = effect if isinstance(effect, str) else ""
    if key:
        errs.extend(common.validate_label_name(key, path.child("key")))
    elif op != "Exists":
        errs.append(invalid(path.child("operator"), op,
                            'operator must be Exists when `key` is empty, which means "match all values and all keys"'))
    if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
        errs.append(invalid(path.child("effect"), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
    if op in ("Equal", ""):
        if isinstance(value, str) and (problems := common.is_label_value(value)):
            errs.append(invalid(path.child("operator"), value, ";".join(problems)))
    elif op != "Exists":
        errs.append(not_supported(path.child("operator"), op, ("Equal", "Exists")))
    _validate_taint_effect(effect, True, path.child("effect"), errs)


def _validate_node_affinity(affinity: dict, path: Path, errs: Errors) -> None:
    """k8s: validateNodeAffinity — required terms (at least one), preferred terms' weight 1-100;
    each term's requirements as ValidateNodeSelectorTerm checks them (operators enumerated)."""
    rpath = path.child("requiredDuringSchedulingIgnoredDuringExecution")
    required_selector = get_dict(affinity, "requiredDuringSchedulingIgnoredDuringExecution", path, errs)
    if isinstance(required_selector, dict):
        terms = get_list(required_selector, "nodeSelectorTerms", rpath, errs)
        if not terms:
            errs.append(required(rpath.child("nodeSelectorTerms"), "must have at least one node selector term"))
        for _, term, p in dict_items(terms if isinstance(terms, list) else [], rpath.child("nodeSelectorTerms"), errs):
            _validate_node_selector_term(term, p, errs)
    ppath = path.child("preferredDuringSchedulingIgnoredDuringExecution")
    preferred = get_list(affinity, "preferredDuringSchedulingIgnoredDuringExecution", path, errs)
    for _, term, p in dict_items(preferred if isinstance(preferred, list) else [], ppath, errs):
        weight = term.get("weight") or 0
        if isinstance(weight, int) and not 0 < weight <= 100:
            errs.append(invalid(p.child("weight"), weight, "must be in the range 1-100"))
        preference = get_dict(term, "preference", p, errs)
        if isinstance(preference, dict):
            _validate_node_selector_term(preference, p.child("preference"), errs)


def _validate_node_selector_term(term: dict, path: Path, errs: Errors) -> None:
    for key, check in (("matchExpressions", _validate_label_requirement), ("matchFields", _validate_field_requirement)):
        reqs = get_list(term, key, path, errs)
        for _, req, rp in dict_items(reqs if isinstance(reqs, list) else [], path.child(key), errs):
            check(req, rp, errs)


def _validate_resource_requirements(res: dict, claim_names: set[str], path: Path, errs: Errors) -> None:
    """k8s: validateResourceRequirements for containers (extended-resources.md §4.2)."""
    limits = {}
    for name, raw, p in _resource_map(res, "limits", path, errs):
        errs.extend(validate_container_resource_name(name, p))
        limits[name] = validate_quantity_value(name, raw, p, errs)
    req_path, lim_path = path.child("requests"), path.child("limits")
    for name, raw, p in _resource_map(res, "requests", path, errs):
        errs.extend(validate_container_resource_name(name, p))
        q = validate_quantity_value(name, raw, p, errs)
        if name in limits:
            lim = limits[name]
            if q is None or lim is None:
                continue
            if q != lim and not common.is_overcommit_allowed(name):
                errs.append(invalid(req_path, q.canonical(), f"must be equal to {name} limit of {lim.canonical()}"))
            elif q > lim:
                errs.append(invalid(req_path, q.canonical(),
                                    f"must be less than or equal to {name} limit of {lim.canonical()}"))
        elif not common.is_overcommit_allowed(name):
            errs.append(required(lim_path, "Limit must be set for non overcommitable resources"))
    _validate_claim_refs(res, claim_names, path, errs)


def _validate_claim_refs(res: dict, claim_names: set[str], path: Path, errs: Errors) -> None:
    """k8s: validateResourceClaimNames — container `resources.claims` must name pod claims."""
    claims = get_list(res, "claims", path, errs)
    cpath = path.child("claims")
    seen: set[str] = set()
    for i, claim, p in dict_items(claims if isinstance(claims, list) else [], cpath, errs):
        name = get_str(claim, "name", p, errs)
        if name is BAD:
            continue
        if not name:
            errs.append(required(p, ""))
            continue
        request = get_str(claim, "request", p, errs)
        request = request if isinstance(request, str) else ""
        if name in seen:
            errs.append(duplicate(p, name))
        else:
            key = name
            if request:
                errs.extend(common.messages_as_errors(common.is_dns1123_label(request), p.child("request"), request))
                key = f"{name}/{request}"
            if key in seen:
                errs.append(duplicate(p, key))
            elif not request:
                for other in sorted(seen):
                    if "/" in other and other.split("/", 1)[0] == name:
                        errs.append(duplicate(p, name))
            seen.add(key)
        if name not in claim_names:
            detail = "must be one of the names in pod.spec.resourceClaims"
            detail += ": " + ", ".join(sorted(claim_names)) if claim_names else " which is empty"
            errs.append(not_found(p, name, detail))


def _validate_pod_resource_claims(claims: list, path: Path, errs: Errors) -> None:
    """k8s: validatePodResourceClaim — DNS-label name, exactly one claim or template name."""
    seen: set[str] = set()
    for _, claim, p in dict_items(claims, path, errs):
        name = get_str(claim, "name", p, errs)
        if name is None or name == "":
            errs.append(required(p.child("name"), ""))
        elif isinstance(name, str):
            if name in seen:
                errs.append(duplicate(p.child("name"), name))
            else:
                errs.extend(common.messages_as_errors(common.is_dns1123_label(name), p.child("name"), name))
                seen.add(name)
        claim_name = get_str(claim, "resourceClaimName", p, errs)
        template_name = get_str(claim, "resourceClaimTemplateName", p, errs)
        shown = {k: claim[k] for k in ("name", "resourceClaimName", "resourceClaimTemplateName") if k in claim}
        if claim_name is not None and template_name is not None:
            errs.append(invalid(p, shown, "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"))
        if claim_name is None and template_name is None:
            errs.append(invalid(p, shown, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"))
        for key, value in (("resourceClaimName", claim_name), ("resourceClaimTemplateName", template_name)):
            if isinstance(value, str):
                errs.extend(common.messages_as_errors(common.is_dns1123_subdomain(value), p.child(key), value))


# --- Node, Namespace, ResourceQuota ------------------------------------------------------------------

def validate_node(obj: dict, old: dict | None = None) -> Errors:
    """k8s: ValidateNode — DNS-subdomain name; capacity/allocatable quantities (path `status.capacity.<name>`)."""
    errs: Errors = []
    common.validate_object_meta(obj, namespaced=False, name_fn=common.is_dns1123_subdomain, errs=errs)
    spec = get_dict(obj, "spec", Path(), errs)
    taints = get_list(spec, "taints", Path("spec"), errs) if isinstance(spec, dict) else None
    if isinstance(taints, list):
        _validate_node_taints(taints, Path("spec", "taints"), errs)
    status = get_dict(obj, "status", Path(), errs)
    if isinstance(status, dict):
        # The nodes of a fleet report the same capacity: its checks are remembered when clean.
        memo.validate("node.status:capacity,allocatable", (status.get("capacity"), status.get("allocatable")),
                      lambda out: _node_quantities(status, out), errs)
    return errs


def _node_quantities(status: dict, errs: Errors) -> None:
    for key in ("capacity", "allocatable"):
        values = get_dict(status, key, Path("status"), errs)
        for name in sorted(values, key=str) if isinstance(values, dict) else ():
            validate_quantity_value(str(name), values[name], Path("status", key, str(name)), errs)


def validate_namespace(obj: dict, old: dict | None = None) -> Errors:
    """k8s: ValidateNamespace — spec.finalizers are qualified names, and one without a domain
    must be a standard finalizer (validateFinalizerName; the path carries no index there)."""
    errs: Errors = []
    common.validate_object_meta(obj, namespaced=False, name_fn=common.is_dns1123_label, errs=errs)
    spec = get_dict(obj, "spec", Path(), errs)
    get_dict(obj, "status", Path(), errs)
    path = Path("spec", "finalizers")
    for _, name in common.string_list(spec, "finalizers", Path("spec"), errs) if isinstance(spec, dict) else ():
        errs.extend(common.messages_as_errors(common.is_qualified_name(name), path, name))
        if "/" not in name and name not in _STANDARD_FINALIZERS:
            errs.append(invalid(path, name, "name is neither a standard finalizer name nor is it fully qualified"))
    return errs


_STANDARD_FINALIZERS = frozenset({"kubernetes", "orphan", "foregroundDeletion"})   # k8s: helper.IsStandardFinalizerName


def validate_resource_quota(obj: dict, old: dict | None = None) -> Errors:
    """k8s: ValidateResourceQuota — spec.hard keys are quota resource names, values quantities."""
    errs: Errors = []
    common.validate_object_meta(obj, namespaced=True, name_fn=common.is_dns1123_subdomain, errs=errs)
    spec = get_dict(obj, "spec", Path(), errs)
    if isinstance(spec, dict):
        for name, raw, p in _resource_map(spec, "hard", Path("spec"), errs):
            errs.extend(validate_resource_name(name, p))
            if "/" not in name and name not in _STANDARD_QUOTA_RESOURCES and not _is_quota_hugepage(name):
                errs.append(invalid(p, name, "must be a standard resource for quota"))
            validate_quantity_value(name, raw, p, errs)
    return errs
