"""Workload and PodGroup (scheduling.k8s.io/v1beta1, GenericWorkload); PriorityClass (scheduling.k8s.io/v1).

k8s: pkg/apis/scheduling/validation/validation.go (ValidateWorkload, validatePodGroupTemplates,
validatePodGroupSchedulingPolicy, validateGangSchedulingPolicy, the PodGroup spec's immutability).
"""
from __future__ import annotations

from drasim.api.fielderrors import Path, duplicate, forbidden, invalid, not_supported, required, too_many
from drasim.api.validation import common
from drasim.api.validation.common import Errors, get_dict, get_int, get_list

MAX_POD_GROUP_TEMPLATES = 8   # k8s: WorkloadMaxPodGroupTemplates
_IMMUTABLE = "field is immutable"


def _policy(policy, path: Path, errs: Errors) -> None:
    if not isinstance(policy, dict):
        policy = {}
    set_fields = [f"`{k}`" for k in ("basic", "gang") if policy.get(k) is not None]
    if not set_fields:
        errs.append(invalid(path, "", "must specify one of: `basic`, `gang`"))
    elif len(set_fields) > 1:
        errs.append(invalid(path, "{" + ", ".join(set_fields) + "}",
                            "exactly one of `basic`, `gang` is required, but multiple fields are set"))
    elif policy.get("gang") is not None:
        gang = get_dict(policy, "gang", path, errs)
        if isinstance(gang, dict):
            count = get_int(gang, "minCount", path.child("gang"), errs)
            if not count:
                errs.append(required(path.child("gang", "minCount"), ""))
            elif isinstance(count, int) and count < 0:
                errs.append(invalid(path.child("gang", "minCount"), count, "must be greater than zero"))


def validate_pod_group(obj: dict, old: dict | None = None) -> Errors:
    errs: Errors = []
    common.validate_object_meta(obj, namespaced=True, name_fn=common.is_dns1123_subdomain, errs=errs)
    spec = get_dict(obj, "spec", Path(), errs)
    if not isinstance(spec, dict):
        return errs
    path = Path("spec")
    _policy(spec.get("schedulingPolicy"), path.child("schedulingPolicy"), errs)
    if old is not None:
        old_spec = old.get("spec") if isinstance(old.get("spec"), dict) else {}
        for key in ("schedulingPolicy", "workloadRef"):
            if spec.get(key) != old_spec.get(key):
                errs.append(invalid(path.child(key), spec.get(key), _IMMUTABLE))
    return errs


def validate_workload(obj: dict, old: dict | None = None) -> Errors:
    errs: Errors = []
    common.validate_object_meta(obj, namespaced=True, name_fn=common.is_dns1123_subdomain, errs=errs)
    spec = get_dict(obj, "spec", Path(), errs)
    if not isinstance(spec, dict):
        spec = {}
    path = Path("spec").child("podGroupTemplates")
    templates = get_list(spec, "podGroupTemplates", Path("spec"), errs) or []
    old_spec = old.get("spec") if old is not None and isinstance(old.get("spec"), dict) else {}
    if old is not None and templates != old_spec.get("podGroupTemplates"):
        errs.append(invalid(path, templates, _IMMUTABLE))
    if not templates:
        errs.append(required(path, "must have at least one item"))
    elif len(templates) > MAX_POD_GROUP_TEMPLATES:
        errs.append(too_many(path, len(templates), MAX_POD_GROUP_TEMPLATES))
    elif old is None:
        seen: set[str] = set()
        for i, t in enumerate(templates):
            tpath = path.index(i)
            t = t if isinstance(t, dict) else {}
            name = t.get("name")
            if not name:
                errs.append(required(tpath.child("name"), ""))
            else:
                errs.extend(common.messages_as_errors(common.is_dns1123_label(str(name)), tpath.child("name"), name))
            if name in seen:
                errs.append(duplicate(tpath, name))
            seen.add(name)
            _policy(t.get("schedulingPolicy"), tpath.child("schedulingPolicy"), errs)
    return errs


# --- PriorityClass (scheduling.k8s.io/v1) -------------------------------------------------------
# k8s: pkg/apis/scheduling/types.go and helpers.go (the system classes), validation.go
# (ValidatePriorityClass, ValidatePriorityClassUpdate), core validation ValidatePreemptionPolicy.
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_PRIORITY_CLASS_PREFIX = "system-"
SYSTEM_PRIORITY_CLASSES: dict[str, int] = {       # name -> value; neither is a global default
    "system-cluster-critical": 2 * HIGHEST_USER_DEFINABLE_PRIORITY,
    "system-node-critical": 2 * HIGHEST_USER_DEFINABLE_PRIORITY + 1000,
}
PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")


def validate_preemption_policy(policy: object, path: Path, errs: Errors) -> None:
    """k8s: ValidatePreemptionPolicy (for a set *PreemptionPolicy)."""
    if policy == "":
        errs.append(required(path, ""))
    elif policy not in PREEMPTION_POLICIES:
        errs.append(not_supported(path, policy, PREEMPTION_POLICIES))


def _known_system_class(name: str, value: object, global_default: object) -> str | None:
    """k8s: IsKnownSystemPriorityClass — None when it is one, else why not."""
    if name not in SYSTEM_PRIORITY_CLASSES:
        return f"{name} is not a known system priority class"
    if value != SYSTEM_PRIORITY_CLASSES[name]:
        return f"value of {name} PriorityClass must be {SYSTEM_PRIORITY_CLASSES[name]}"
    if bool(global_default):
        return f"globalDefault of {name} PriorityClass must be false"
    return None


def validate_priority_class(obj: dict, old: dict | None = None) -> Errors:
    errs: Errors = []
    md = common.validate_object_meta(obj, namespaced=False, name_fn=common.is_dns1123_subdomain, errs=errs)
    name = md.get("name") if isinstance(md, dict) and isinstance(md.get("name"), str) else ""
    value = get_int(obj, "value", Path(), errs)
    value = value if isinstance(value, int) else 0
    global_default = common.get_bool(obj, "globalDefault", Path(), errs)
    if name.startswith(SYSTEM_PRIORITY_CLASS_PREFIX):
        why = _known_system_class(name, value, global_default)
        if why is not None:
            errs.append(forbidden(Path("metadata", "name"), f"priority class names with '{SYSTEM_PRIORITY_CLASS_PREFIX}' "
                                                            f"prefix are reserved for system use only. error: {why}"))
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        errs.append(forbidden(Path("value"), "maximum allowed value of a user defined priority is "
                                             f"{HIGHEST_USER_DEFINABLE_PRIORITY}"))
    policy = common.get_str(obj, "preemptionPolicy", Path(), errs)
    if isinstance(policy, str):
        validate_preemption_policy(policy, Path("preemptionPolicy"), errs)
    if old is not None:   # k8s: ValidatePriorityClassUpdate
        if obj.get("value") != old.get("value"):
            errs.append(forbidden(Path("value"), "may not be changed in an update."))
        if obj.get("preemptionPolicy") != old.get("preemptionPolicy"):
            errs.append(invalid(Path("preemptionPolicy"), obj.get("preemptionPolicy"), _IMMUTABLE))
    return errs
