"""Workload and PodGroup (scheduling.k8s.io/v1beta1, GenericWorkload).

k8s: pkg/apis/scheduling/validation/validation.go (ValidateWorkload, validatePodGroupTemplates,
validatePodGroupSchedulingPolicy, validateGangSchedulingPolicy, the PodGroup spec's immutability).
"""
from __future__ import annotations

from drasim.api.fielderrors import Path, duplicate, invalid, required, too_many
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
