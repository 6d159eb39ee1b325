"""Validation of the workload kinds: Deployment, ReplicaSet, StatefulSet, DaemonSet (apps/v1) and
Job (batch/v1), for what drasim uses, with the helpers they share.

k8s: pkg/apis/apps/validation/validation.go (ValidateDeploymentSpec, ValidateDeploymentStrategy,
     ValidateRollingUpdateDeployment, ValidatePositiveIntOrPercent, IsNotMoreThan100Percent,
     ValidateReplicaSetSpec, ValidatePodTemplateSpecForReplicaSet, ValidateDeploymentUpdate,
     ValidateStatefulSetSpec, ValidatePodTemplateSpecForStatefulSet, ValidateDaemonSetSpec),
     pkg/apis/batch/validation/validation.go (ValidateJob, validateJobSpec, ValidateJobUpdate),
     staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation (ValidateLabelSelector),
     staging/src/k8s.io/apimachinery/pkg/util/validation (IsValidPercent),
     core validation ValidateNonnegativeField.

The pod template's spec goes through the Pod validator (core.validate_pod) and its errors are
re-rooted under `spec.template.`, as ValidatePodTemplateSpec reports them.
"""
from __future__ import annotations

import dataclasses
import re

from drasim.api.fielderrors import Path, forbidden, invalid, not_supported, required
from drasim.api.labelselector import LabelSelector, LabelSelectorError, compile_label_selector
from drasim.api.validation import common
from drasim.api.validation.common import (BAD, Errors, dict_items, get_dict, get_int, get_list, get_str,
                                          validate_time)
from drasim.api.validation.core import validate_pod

_NEGATIVE = "must be greater than or equal to 0"
_SELECTOR_MISMATCH = "`selector` does not match template `labels`"
_IMMUTABLE = "field is immutable"
_PERCENT_FMT = "[0-9]+%"
_PERCENT_RE = re.compile(_PERCENT_FMT)
_PERCENT_MSG = "a valid percent string must be a numeric string followed by an ending '%'"


def is_valid_percent(value: str) -> tuple[str, ...]:
    """k8s: validation.IsValidPercent."""
    if _PERCENT_RE.fullmatch(value):
        return ()
    return (common.regex_error(_PERCENT_MSG, _PERCENT_FMT, "1%", "93%"),)


def _nonnegative(obj: dict, key: str, path: Path, errs: Errors) -> int | None:
    """k8s: ValidateNonnegativeField."""
    value = get_int(obj, key, path, errs)
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            errs.append(invalid(path.child(key), value, _NEGATIVE))
        return value
    return None


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


def _selector(spec: dict, path: Path, errs: Errors, kind_word: str | None) -> LabelSelector | None:
    """Required and valid (non-empty when kind_word names the kind); the compiled selector when it
    can be used to match the template, else None (errors added)."""
    selector = get_dict(spec, "selector", path, errs)
    if selector is BAD:
        return None
    if selector is None:
        errs.append(required(path.child("selector"), ""))
        return None
    before = len(errs)
    validate_label_selector(selector, path.child("selector"), errs)
    if kind_word and not (selector.get("matchLabels") or selector.get("matchExpressions")):
        errs.append(invalid(path.child("selector"), selector, f"empty selector is invalid for {kind_word}"))
    try:
        compiled = compile_label_selector(selector)
    except (LabelSelectorError, TypeError, AttributeError):
        errs.append(invalid(path.child("selector"), selector, "invalid label selector"))
        return None
    return compiled if len(errs) == before else None


def _template(spec: dict, selector: LabelSelector | None, namespace: str, path: Path, errs: Errors) -> dict | None:
    """Required; the selector must select its labels; its metadata and pod spec are validated.
    Returns the template's pod spec (None when the template is missing or malformed)."""
    tpath = path.child("template")
    template = get_dict(spec, "template", path, errs)
    if template is BAD:
        return None
    if not template:
        errs.append(required(tpath, ""))
        return None
    labels = ((template.get("metadata") or {}) if isinstance(template.get("metadata"), dict) else {}).get("labels")
    labels = labels if isinstance(labels, dict) else {}
    if selector is not None and not selector.empty and not selector.matches(labels):
        errs.append(invalid(tpath.child("metadata", "labels"), labels, _SELECTOR_MISMATCH))
    validate_pod_template(template, namespace, tpath, errs)
    return template.get("spec") if isinstance(template.get("spec"), dict) else {}


def _restart_always(pod_spec: dict | None, path: Path, errs: Errors) -> None:
    """k8s: ValidatePodTemplateSpecFor{ReplicaSet,StatefulSet}, ValidateDaemonSetSpec: Always only."""
    policy = (pod_spec or {}).get("restartPolicy")
    if isinstance(policy, str) and policy != "Always":
        errs.append(not_supported(path.child("template", "spec", "restartPolicy"), policy, ["Always"]))


def validate_template_for_replica_set(spec: dict, selector: LabelSelector | None, namespace: str, path: Path,
                                      errs: Errors) -> None:
    """k8s: ValidatePodTemplateSpecForReplicaSet — the selector must select the template's labels;
    restartPolicy Always; no activeDeadlineSeconds."""
    pod_spec = _template(spec, selector, namespace, path, errs)
    if pod_spec is None:
        return
    _restart_always(pod_spec, path, errs)
    if pod_spec.get("activeDeadlineSeconds") is not None:
        errs.append(forbidden(path.child("template", "spec", "activeDeadlineSeconds"),
                              "activeDeadlineSeconds in ReplicaSet is not Supported"))


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


def _immutable(spec: dict, old: dict | None, key: str, path: Path, errs: Errors) -> None:
    """k8s: ValidateImmutableField."""
    if old is None:
        return
    if spec.get(key) != (old.get("spec") or {}).get(key):
        errs.append(invalid(path.child(key), spec.get(key), _IMMUTABLE))


def _spec(obj: dict, errs: Errors) -> tuple[dict, dict | None]:
    """(metadata, spec) after validating the object's metadata; a missing spec is the zero value
    (its required fields are reported); None when spec is no object."""
    md = common.validate_object_meta(obj, namespaced=True, name_fn=common.is_dns1123_subdomain, errs=errs)
    spec = get_dict(obj, "spec", Path(), errs)
    if spec is None:
        spec = {}
    return md, spec if isinstance(spec, dict) else None


def validate_deployment(obj: dict, old: dict | None = None) -> Errors:
    errs: Errors = []
    md, spec = _spec(obj, errs)
    if spec is None:
        return errs
    path = Path("spec")
    _nonnegative(spec, "replicas", path, errs)
    selector = _selector(spec, path, errs, "deployment")
    validate_template_for_replica_set(spec, selector, md.get("namespace") or "", path, errs)
    _validate_strategy(spec, path, errs)
    min_ready = _nonnegative(spec, "minReadySeconds", path, errs) or 0
    _nonnegative(spec, "revisionHistoryLimit", path, errs)
    deadline = _nonnegative(spec, "progressDeadlineSeconds", path, errs)
    if deadline is not None and deadline <= min_ready:
        errs.append(invalid(path.child("progressDeadlineSeconds"), deadline, "must be greater than minReadySeconds"))
    _immutable(spec, old, "selector", path, errs)   # k8s: ValidateDeploymentUpdate (apps/v1)
    return errs


def validate_replica_set(obj: dict, old: dict | None = None) -> Errors:
    errs: Errors = []
    md, spec = _spec(obj, errs)
    if spec is None:
        return errs
    path = Path("spec")
    _nonnegative(spec, "replicas", path, errs)
    _nonnegative(spec, "minReadySeconds", path, errs)
    selector = _selector(spec, path, errs, "deployment")
    validate_template_for_replica_set(spec, selector, md.get("namespace") or "", path, errs)
    _immutable(spec, old, "selector", path, errs)   # k8s: ValidateReplicaSetUpdate (apps/v1)
    return errs


def _snapshot_status(obj: dict, old: dict | None, errs: Errors, *, counts: tuple[str, ...],
                     strings: tuple[str, ...] = (), times: tuple[str, ...] = ()) -> None:
    """The shape of a status a snapshot brings along (kept so a replay continues where the cluster
    was): what the controller reads must have the right types."""
    if old is not None or "status" not in obj:
        return
    path = Path("status")
    status = get_dict(obj, "status", Path(), errs)
    if not isinstance(status, dict):
        return
    for key in counts:
        _nonnegative(status, key, path, errs)
    for key in strings:
        get_str(status, key, path, errs)
    for key in times:
        validate_time(status, key, path, errs)
    conditions = get_list(status, "conditions", path, errs)
    for _, c, p in dict_items(conditions if isinstance(conditions, list) else [], path.child("conditions"), errs):
        for key in ("type", "status", "reason", "message"):
            get_str(c, key, p, errs)
        for key in ("lastProbeTime", "lastTransitionTime"):
            validate_time(c, key, p, errs)


_STS_MUTABLE = ("replicas", "ordinals", "template", "updateStrategy", "revisionHistoryLimit",
                "persistentVolumeClaimRetentionPolicy", "minReadySeconds")


def validate_stateful_set(obj: dict, old: dict | None = None) -> Errors:
    errs: Errors = []
    md, spec = _spec(obj, errs)
    if spec is None:
        return errs
    path = Path("spec")
    policy = get_str(spec, "podManagementPolicy", path, errs)
    if isinstance(policy, str) and policy not in ("OrderedReady", "Parallel"):
        errs.append(invalid(path.child("podManagementPolicy"), policy, "must be 'OrderedReady' or 'Parallel'"))
    strategy = get_dict(spec, "updateStrategy", path, errs)
    if isinstance(strategy, dict):
        s_type = get_str(strategy, "type", path.child("updateStrategy"), errs)
        if isinstance(s_type, str) and s_type not in ("RollingUpdate", "OnDelete"):
            errs.append(not_supported(path.child("updateStrategy", "type"), s_type, ("OnDelete", "RollingUpdate")))
        rolling = get_dict(strategy, "rollingUpdate", path.child("updateStrategy"), errs)
        if isinstance(rolling, dict):
            _nonnegative(rolling, "partition", path.child("updateStrategy", "rollingUpdate"), errs)
    _nonnegative(spec, "replicas", path, errs)
    _nonnegative(spec, "minReadySeconds", path, errs)
    ordinals = get_dict(spec, "ordinals", path, errs)
    if isinstance(ordinals, dict):
        _nonnegative(ordinals, "start", path.child("ordinals"), errs)
    selector = _selector(spec, path, errs, "statefulset")
    _restart_always(_template(spec, selector, md.get("namespace") or "", path, errs), path, errs)
    _snapshot_status(obj, old, errs, counts=("replicas",), strings=("currentRevision", "updateRevision"))
    if old is not None:   # k8s: ValidateStatefulSetUpdate
        before = {k: v for k, v in (old.get("spec") or {}).items() if k not in _STS_MUTABLE}
        if {k: v for k, v in spec.items() if k not in _STS_MUTABLE} != before:
            errs.append(forbidden(path, "updates to statefulset spec for fields other than 'replicas', 'ordinals', "
                                        "'template', 'updateStrategy', 'revisionHistoryLimit', "
                                        "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"))
    return errs


def validate_daemon_set(obj: dict, old: dict | None = None) -> Errors:
    errs: Errors = []
    md, spec = _spec(obj, errs)
    if spec is None:
        return errs
    path = Path("spec")
    selector = _selector(spec, path, errs, "daemonset")   # k8s: ValidateDaemonSetSpec
    _restart_always(_template(spec, selector, md.get("namespace") or "", path, errs), path, errs)
    _nonnegative(spec, "minReadySeconds", path, errs)
    _nonnegative(spec, "revisionHistoryLimit", path, errs)
    _immutable(spec, old, "selector", path, errs)   # k8s: ValidateDaemonSetUpdate
    strategy = get_dict(spec, "updateStrategy", path, errs)
    if isinstance(strategy, dict):
        s_type = get_str(strategy, "type", path.child("updateStrategy"), errs)
        if isinstance(s_type, str) and s_type not in ("RollingUpdate", "OnDelete"):
            errs.append(not_supported(path.child("updateStrategy", "type"), s_type, ("OnDelete", "RollingUpdate")))
    return errs


def validate_job(obj: dict, old: dict | None = None) -> Errors:
    errs: Errors = []
    md, spec = _spec(obj, errs)
    if spec is None:
        return errs
    path = Path("spec")
    for key in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished"):
        _nonnegative(spec, key, path, errs)
    mode = get_str(spec, "completionMode", path, errs)
    if isinstance(mode, str):
        if mode not in ("NonIndexed", "Indexed"):
            errs.append(not_supported(path.child("completionMode"), mode, ("NonIndexed", "Indexed")))
        elif mode == "Indexed" and spec.get("completions") is None:
            errs.append(required(path.child("completions"), "when completion mode is Indexed"))
    replacement = get_str(spec, "podReplacementPolicy", path, errs)
    if isinstance(replacement, str) and replacement not in ("Failed", "TerminatingOrFailed"):
        errs.append(not_supported(path.child("podReplacementPolicy"), replacement, ("Failed", "TerminatingOrFailed")))
    selector = _selector(spec, path, errs, None)
    pod_spec = _template(spec, selector, md.get("namespace") or "", path, errs) or {}
    # k8s: validateJobSpec — Always (the PodSpec default) and "" are Required, other values NotSupported.
    restart = pod_spec.get("restartPolicy")
    if restart in (None, "", "Always"):
        errs.append(required(path.child("template", "spec", "restartPolicy"), 'valid values: "OnFailure", "Never"'))
    elif restart not in ("OnFailure", "Never"):
        errs.append(not_supported(path.child("template", "spec", "restartPolicy"), restart, ("OnFailure", "Never")))
    _snapshot_status(obj, old, errs, counts=("active", "succeeded", "failed", "ready", "terminating"),
                     strings=("completedIndexes",), times=("startTime", "completionTime"))
    # k8s: ValidateJobUpdate (elastic Indexed Jobs may change completions together with parallelism;
    # suspended Jobs that never started may change scheduling directives: not modelled, so refused)
    old_spec = (old or {}).get("spec") or {}
    elastic = (spec.get("completionMode") == "Indexed" and spec.get("completions") == spec.get("parallelism")
               and old_spec.get("completions") == old_spec.get("parallelism"))
    for key in ("selector", "template", "completionMode") + (() if elastic else ("completions",)):
        _immutable(spec, old, key, path, errs)
    return errs


__all__ = ["is_valid_percent", "validate_daemon_set", "validate_deployment", "validate_int_or_percent", "validate_job",
           "validate_label_selector", "validate_pod_template", "validate_replica_set", "validate_stateful_set",
           "validate_template_for_replica_set"]
