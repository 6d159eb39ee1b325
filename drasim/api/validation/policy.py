"""PodDisruptionBudget (policy/v1).

k8s: pkg/apis/policy/validation/validation.go (ValidatePodDisruptionBudget, ValidatePodDisruptionBudgetSpec:
the spec is mutable since 1.15; minAvailable and maxUnavailable exclusive; each a non-negative int or a
percentage of at most 100 %; a valid label selector; unhealthyPodEvictionPolicy one of two values).
"""
from __future__ import annotations

import json

from drasim.api.fielderrors import Path, invalid, not_supported
from drasim.api.validation.apps import _int_or_percent, _spec, validate_int_or_percent, validate_label_selector
from drasim.api.validation.common import Errors, get_dict

EVICTION_POLICIES = ("AlwaysAllow", "IfHealthyBudget")


def validate_pod_disruption_budget(obj: dict, old: dict | None = None) -> Errors:
    errs: Errors = []
    _, spec = _spec(obj, errs)
    if spec is None:
        return errs
    path = Path("spec")
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        errs.append(invalid(path, json.dumps(spec, sort_keys=True), "minAvailable and maxUnavailable cannot be both set"))
    for key in ("minAvailable", "maxUnavailable"):
        before = len(errs)
        validate_int_or_percent(spec, key, path, errs)
        parsed = _int_or_percent(spec.get(key)) if len(errs) == before else None
        if parsed is not None and parsed[1] and parsed[0] > 100:   # k8s: IsNotMoreThan100Percent
            errs.append(invalid(path.child(key), spec[key], "must not be greater than 100%"))
    selector = get_dict(spec, "selector", path, errs)
    if isinstance(selector, dict):
        validate_label_selector(selector, path.child("selector"), errs)
    policy = spec.get("unhealthyPodEvictionPolicy")
    if policy is not None and policy not in EVICTION_POLICIES:
        errs.append(not_supported(path.child("unhealthyPodEvictionPolicy"), policy, EVICTION_POLICIES))
    return errs
