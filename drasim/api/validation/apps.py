"""apps/v1 validation: Deployment and ReplicaSet (and the helpers other workload kinds reuse).

k8s: pkg/apis/apps/validation/validation.go (ValidateDeploymentSpec, ValidateDeploymentStrategy,
     ValidateRollingUpdateDeployment, ValidatePositiveIntOrPercent, IsNotMoreThan100Percent,
     ValidateReplicaSetSpec, ValidatePodTemplateSpecForReplicaSet, ValidateDeploymentUpdate),
     staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation (ValidateLabelSelector),
     staging/src/k8s.io/apimachinery/pkg/util/validation (IsValidPercent).

The pod template's spec goes through the Pod validator (core.validate_pod) and its errors are
re-rooted under `spec.template.`, as ValidatePodTemplateSpec reports them.
"""
from __future__ import annotations

import dataclasses
import re

from drasim.api.fielderrors import Path, forbidden, invalid, not_supported, required
from drasim.api.labelselector import LabelSelectorError, compile_label_selector
from drasim.api.validation import common
from drasim.api.validation.common import BAD, Errors, get_dict, get_int, get_list, get_str
from drasim.api.validation.core import validate_pod

_NEGATIVE = "must be greater than or equal to 0"
_PERCENT_FMT = "[0-9]+%"
_PERCENT_RE = re.compile(_PERCENT_FMT)
_PERCENT_MSG = "a valid percent string must be a numeric string followed by an ending '%'"


def is_valid_percent(value: str) -> tuple[str, ...]:
    """k8s: validation.IsValidPercent."""
    if _PERCENT_RE.fullmatch(value):
        return ()
    return (common.regex_error(_PERCENT_MSG, _PERCENT_FMT, "1%", "93%"),)


def _nonnegative(obj: dict, key: str, path: Path, errs: Errors) -> int | None:
    value = get_int(obj, key, path, errs)
    if isinstance(value, int) and value < 0:
        errs.append(invalid(path.child(key), value, _NEGATIVE))
    return value if isinstance(value, int) else None


def validate_label_selector(selector: dict, path: Path, errs: Errors) -> None:
    """k8s: metav1validation.ValidateLabelSelector."""
    labels = get_dict(selector, "matchLabels", path, errs)
    lpath = path.child("matchLabels")
    for k, v in (labels.items() if isinstance(labels, dict) else ()):
        errs.extend(common.validate_label_name(str(k), lpath))
        if isinstance(v, str):
            errs.extend(common.validate_label_value(v, lpath))
        else:
            errs.append(common.type_error(lpath.key(str(k)), v, "a string"))
    exprs = get_list(selector, "matchExpressions", path, errs)
    for _, req, p in common.dict_items(exprs if isinstance(exprs, list) else [], path.child("matchExpressions"), errs):
        op = get_str(req, "operator", p, errs)
        values = common.string_list(req, "values", p, errs)
        if op in ("In", "NotIn"):
            if not values:
                errs.append(required(p.child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
        elif op in ("Exists", "DoesNotExist"):
            if values:
                errs.append(forbidden(p.child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
        elif op is not BAD:
            errs.append(invalid(p.child("operator"), op or "", "not a valid selector operator"))
        key = get_str(req, "key", p, errs)
        if key is not BAD:
            errs.extend(common.validate_label_name(key or "", p.child("key")))
        for i, v in values:
            errs.extend(common.messages_as_errors(common.is_label_value(v), p.child("values").index(i), v))


def _reroot(errors: Errors, prefix: str) -> Errors:
    """Errors of a pod validated on its own, as the template at `prefix` reports them."""
    out = []
    for e in errors:
        if e.field.startswith("metadata.name") or e.field.startswith("metadata.namespace"):
            continue
        out.append(dataclasses.replace(e, field=f"{prefix}.{e.field}" if e.field else prefix))
    return out


def validate_pod_template(template: dict, namespace: str, path: Path, errs: Errors) -> None:
    """k8s: ValidatePodTemplateSpec — template metadata (labels, annotations) and the pod spec."""
    t_md = get_dict(template, "metadata", path, errs)
    t_md = t_md if isinstance(t_md, dict) else {}
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "template", "namespace": namespace or "default",
                        **{k: t_md[k] for k in ("labels", "annotations") if k in t_md}},
           "spec": template.get("spec") if "spec" in template else {}}
    errs.extend(_reroot(validate_pod(pod), str(path)))


def validate_template_for_replica_set(spec: dict, selector_ok: bool, namespace: str, path: Path,
                                      errs: Errors) -> None:
    """k8s: ValidatePodTemplateSpecForReplicaSet — the selector must select the template's labels;
    restartPolicy Always; no activeDeadlineSeconds."""
    tpath = path.child("template")
    template = get_dict(spec, "template", path, errs)
    if template is BAD:
        return
    if not template:
        errs.append(required(tpath, ""))
        return
    labels = ((template.get("metadata") or {}) if isinstance(template.get("metadata"), dict) else {}).get("labels")
    labels = labels if isinstance(labels, dict) else {}
    if selector_ok:
        selector = compile_label_selector(spec.get("selector"))
        if not selector.empty and not selector.matches(labels):
            errs.append(invalid(tpath.child("metadata", "labels"), labels,
                                "`selector` does not match template `labels`"))
    validate_pod_template(template, namespace, tpath, errs)
    pod_spec = template.get("spec") if isinstance(template.get("spec"), dict) else {}
    policy = pod_spec.get("restartPolicy")
    if isinstance(policy, str) and policy != "Always":
        errs.append(not_supported(tpath.child("spec", "restartPolicy"), policy, ["Always"]))
    if pod_spec.get("activeDeadlineSeconds") is not None:
        errs.append(forbidden(tpath.child("spec", "activeDeadlineSeconds"),
                              "activeDeadlineSeconds in ReplicaSet is not Supported"))


def _selector(spec: dict, path: Path, errs: Errors, kind_word: str = "deployment") -> bool:
    """Required, valid, non-empty; True when it can be used to match the template."""
    selector = get_dict(spec, "selector", path, errs)
    if selector is BAD:
        return False
    if selector is None:
        errs.append(required(path.child("selector"), ""))
        return False
    before = len(errs)
    validate_label_selector(selector, path.child("selector"), errs)
    if not (selector.get("matchLabels") or selector.get("matchExpressions")):
        errs.append(invalid(path.child("selector"), selector, f"empty selector is invalid for {kind_word}"))
    try:
        compile_label_selector(selector)
    except (LabelSelectorError, TypeError, AttributeError):
        errs.append(invalid(path.child("selector"), selector, "invalid label selector"))
        return False
    return len(errs) == before


def _int_or_percent(value) -> tuple[int, bool] | None:
    """(value, is_percent) of a valid IntOrString, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value, False
    if isinstance(value, str) and not is_valid_percent(value):
        return int(value[:-1]), True
    return None


def validate_int_or_percent(obj: dict, key: str, path: Path, errs: Errors) -> None:
    """k8s: ValidatePositiveIntOrPercent."""
    value = obj.get(key)
    p = path.child(key)
    if value is None:
        return
    if isinstance(value, str):
        errs.extend(common.messages_as_errors(is_valid_percent(value), p, value))
    elif isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            errs.append(invalid(p, value, _NEGATIVE))
    else:
        errs.append(invalid(p, value, "must be an integer or percentage (e.g '5%')"))


def _validate_strategy(spec: dict, path: Path, errs: Errors) -> None:
    """k8s: ValidateDeploymentStrategy, ValidateRollingUpdateDeployment."""
    spath = path.child("strategy")
    strategy = get_dict(spec, "strategy", path, errs)
    if not isinstance(strategy, dict):
        return
    kind = strategy.get("type")
    if kind == "Recreate":
        if strategy.get("rollingUpdate") is not None:
            errs.append(forbidden(spath.child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'"))
    elif kind == "RollingUpdate":
        rolling = get_dict(strategy, "rollingUpdate", spath, errs)
        if rolling is None:
            errs.append(required(spath.child("rollingUpdate"), "this should be defaulted and never be nil"))
        elif isinstance(rolling, dict):
            rpath = spath.child("rollingUpdate")
            validate_int_or_percent(rolling, "maxUnavailable", rpath, errs)
            validate_int_or_percent(rolling, "maxSurge", rpath, errs)
            unavailable = _int_or_percent(rolling.get("maxUnavailable", 0))
            surge = _int_or_percent(rolling.get("maxSurge", 0))
            if unavailable is not None and surge is not None and unavailable[0] == 0 and surge[0] == 0:
                errs.append(invalid(rpath.child("maxUnavailable"), rolling.get("maxUnavailable", 0),
                                    "may not be 0 when `maxSurge` is 0"))
            if unavailable is not None and unavailable[1] and unavailable[0] > 100:
                errs.append(invalid(rpath.child("maxUnavailable"), rolling["maxUnavailable"],
                                    "must not be greater than 100%"))
    else:
        errs.append(not_supported(spath, strategy, ["Recreate", "RollingUpdate"]))


def _immutable_selector(obj: dict, old: dict | None, errs: Errors) -> None:
    """k8s: ValidateDeploymentUpdate / ValidateReplicaSetUpdate (apps/v1): the selector is immutable."""
    if old is None:
        return
    new_sel = (obj.get("spec") or {}).get("selector") if isinstance(obj.get("spec"), dict) else None
    old_sel = (old.get("spec") or {}).get("selector")
    if new_sel != old_sel:
        errs.append(invalid(Path("spec", "selector"), new_sel, "field is immutable"))


def validate_deployment(obj: dict, old: dict | None = None) -> Errors:
    errs: Errors = []
    md = common.validate_object_meta(obj, namespaced=True, name_fn=common.is_dns1123_subdomain, errs=errs)
    spec = get_dict(obj, "spec", Path(), errs)
    if spec is None:
        spec = {}
    if not isinstance(spec, dict):
        return errs
    path = Path("spec")
    _nonnegative(spec, "replicas", path, errs)
    selector_ok = _selector(spec, path, errs)
    validate_template_for_replica_set(spec, selector_ok, md.get("namespace") or "", path, errs)
    _validate_strategy(spec, path, errs)
    min_ready = _nonnegative(spec, "minReadySeconds", path, errs) or 0
    _nonnegative(spec, "revisionHistoryLimit", path, errs)
    deadline = _nonnegative(spec, "progressDeadlineSeconds", path, errs)
    if deadline is not None and deadline <= min_ready:
        errs.append(invalid(path.child("progressDeadlineSeconds"), deadline, "must be greater than minReadySeconds"))
    _immutable_selector(obj, old, errs)
    return errs


def validate_replica_set(obj: dict, old: dict | None = None) -> Errors:
    errs: Errors = []
    md = common.validate_object_meta(obj, namespaced=True, name_fn=common.is_dns1123_subdomain, errs=errs)
    spec = get_dict(obj, "spec", Path(), errs)
    if spec is None:
        spec = {}
    if not isinstance(spec, dict):
        return errs
    path = Path("spec")
    _nonnegative(spec, "replicas", path, errs)
    _nonnegative(spec, "minReadySeconds", path, errs)
    selector_ok = _selector(spec, path, errs)
    validate_template_for_replica_set(spec, selector_ok, md.get("namespace") or "", path, errs)
    _immutable_selector(obj, old, errs)
    return errs
