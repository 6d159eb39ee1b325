"""Validation of StatefulSet, DaemonSet (apps/v1) and Job (batch/v1), for what drasim uses.

k8s: pkg/apis/apps/validation/validation.go (ValidateStatefulSetSpec, ValidatePodTemplateSpecForStatefulSet,
     ValidateDaemonSetSpec), pkg/apis/batch/validation/validation.go (ValidateJob, validateJobSpec,
     ValidateJobSpec), apimachinery metav1 validation (ValidateLabelSelector),
     core validation ValidateNonnegativeField.
The pod template is checked with the Pod validator (its field paths moved under spec.template).
"""
from __future__ import annotations

from drasim.api.fielderrors import FieldError, Path, forbidden, invalid, not_supported, required
from drasim.api.labelselector import LabelSelectorError, compile_label_selector
from drasim.api.validation import common
from drasim.api.validation.common import Errors, dict_items, get_dict, get_int, get_list, get_str, validate_time
from drasim.api.validation.core import validate_pod

_NEGATIVE = "must be greater than or equal to 0"
_SELECTOR_MISMATCH = "`selector` does not match template `labels`"


def _nonnegative(spec: dict, key: str, path: Path, errs: Errors) -> int | None:
    """k8s: ValidateNonnegativeField."""
    value = get_int(spec, key, path, errs)
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            errs.append(invalid(path.child(key), value, _NEGATIVE))
        return value
    return None


def _selector(spec: dict, path: Path, errs: Errors, *, kind_word: str | None) -> object:
    """The compiled selector, or None when missing or malformed (errors added)."""
    raw = get_dict(spec, "selector", path, errs)
    if raw is None:
        errs.append(required(path.child("selector"), ""))
        return None
    if not isinstance(raw, dict):
        return None
    if kind_word and not raw.get("matchLabels") and not raw.get("matchExpressions"):
        errs.append(invalid(path.child("selector"), raw, f"empty selector is invalid for {kind_word}"))
    try:
        return compile_label_selector(raw)
    except (LabelSelectorError, TypeError, AttributeError) as e:
        errs.append(invalid(path.child("selector"), raw, str(e) if isinstance(e, LabelSelectorError) else ""))
        return None


def _template(spec: dict, path: Path, errs: Errors, selector) -> dict:
    """The template's labels against the selector, and its pod spec with the Pod validator."""
    t_path = path.child("template")
    template = get_dict(spec, "template", path, errs)
    if template is None:
        errs.append(required(t_path, ""))
    if not isinstance(template, dict):
        return {}
    meta = template.get("metadata") if isinstance(template.get("metadata"), dict) else {}
    labels = meta.get("labels") if isinstance(meta.get("labels"), dict) else {}
    if selector is not None and not selector.empty and not selector.matches(labels):
        errs.append(invalid(t_path.child("metadata", "labels"), labels, _SELECTOR_MISMATCH))
    pod = {"kind": "Pod", "metadata": {"name": "template", "namespace": "default", **{
        k: v for k, v in meta.items() if k in ("labels", "annotations")}}, "spec": template.get("spec") or {}}
    for e in validate_pod(pod):
        if e.field.startswith("spec"):
            errs.append(FieldError(e.type, f"{t_path}.{e.field}", e.bad_value, e.detail))
        elif e.field.startswith("metadata.labels") or e.field.startswith("metadata.annotations"):
            errs.append(FieldError(e.type, f"{t_path}.{e.field}", e.bad_value, e.detail))
    return template.get("spec") if isinstance(template.get("spec"), dict) else {}


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
_IMMUTABLE = "field is immutable"


def _immutable(spec: dict, old: dict | None, key: str, path: Path, errs: Errors) -> None:
    """k8s: ValidateImmutableField."""
    if old is None:
        return
    before = (old.get("spec") or {}).get(key)
    if spec.get(key) != before:
        errs.append(invalid(path.child(key), spec.get(key), _IMMUTABLE))


def _meta(obj: dict, errs: Errors) -> None:
    common.validate_object_meta(obj, namespaced=True, name_fn=common.is_dns1123_subdomain, errs=errs)


def validate_stateful_set(obj: dict, old: dict | None = None) -> Errors:
    errs: Errors = []
    _meta(obj, errs)
    spec = get_dict(obj, "spec", Path(), errs)
    if spec is None:
        spec = {}   # a missing spec is the zero value: its required fields are reported
    if not isinstance(spec, dict):
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
    selector = _selector(spec, path, errs, kind_word="statefulset")
    pod_spec = _template(spec, path, errs, selector)
    restart = pod_spec.get("restartPolicy")
    if restart not in (None, "Always"):   # k8s: ValidatePodTemplateSpecForStatefulSet
        errs.append(not_supported(path.child("template", "spec", "restartPolicy"), restart, ("Always",)))
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
    _meta(obj, errs)
    spec = get_dict(obj, "spec", Path(), errs)
    if spec is None:
        spec = {}   # a missing spec is the zero value: its required fields are reported
    if not isinstance(spec, dict):
        return errs
    path = Path("spec")
    selector = _selector(spec, path, errs, kind_word=None)
    if selector is not None and selector.empty:   # k8s: ValidateDaemonSetSpec
        errs.append(invalid(path.child("selector"), spec.get("selector"), "empty selector is invalid for daemonset"))
    pod_spec = _template(spec, path, errs, selector)
    restart = pod_spec.get("restartPolicy")
    if restart not in (None, "Always"):
        errs.append(not_supported(path.child("template", "spec", "restartPolicy"), restart, ("Always",)))
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
    _meta(obj, errs)
    spec = get_dict(obj, "spec", Path(), errs)
    if spec is None:
        spec = {}   # a missing spec is the zero value: its required fields are reported
    if not isinstance(spec, dict):
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
    selector = _selector(spec, path, errs, kind_word=None)
    pod_spec = _template(spec, path, errs, selector)
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


__all__ = ["validate_daemon_set", "validate_job", "validate_stateful_set"]
