"""Defaulting as the v1.37 API server does it, for the fields drasim uses.

k8s: pkg/apis/resource/v1/defaults.go, pkg/apis/core/v1/defaults.go,
     plugin/pkg/admission/defaulttolerationseconds (default admission plugin).
Functions take a copy and fill it in place; `now` is the virtual time (RFC 3339).
"""
from __future__ import annotations

from drasim.api import workloaddefaults

DEFAULT_NAMESPACE = "default"
DEFAULT_SCHEDULER = "default-scheduler"
# k8s: plugin/pkg/admission/defaulttolerationseconds: 300 s for not-ready and unreachable.
_DEFAULT_TOLERATION_SECONDS = 300
_NODE_PROBLEM_TAINTS = ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")


def _device_request(req: dict) -> None:
    """allocationMode defaults to ExactCount; ExactCount without count means 1 (allocator.md §4.1)."""
    if not isinstance(req, dict):
        return
    if req.get("allocationMode") in (None, ""):
        req["allocationMode"] = "ExactCount"
    if req["allocationMode"] == "ExactCount" and not req.get("count"):
        req["count"] = 1
    for tol in req.get("tolerations") or ():
        if isinstance(tol, dict) and not tol.get("operator"):
            tol["operator"] = "Equal"  # allocator.md §4.2


def _claim_spec(spec: dict | None) -> None:
    if not isinstance(spec, dict):
        return
    devices = spec.get("devices")
    if not isinstance(devices, dict):
        return
    for req in devices.get("requests") or ():
        if not isinstance(req, dict):
            continue
        if isinstance(req.get("exactly"), dict):
            _device_request(req["exactly"])
        for sub in req.get("firstAvailable") or ():
            _device_request(sub)


def _taint(taint: dict, now: str) -> None:
    """timeAdded defaults to now, whole seconds (device-taints.md §3.4)."""
    if isinstance(taint, dict) and not taint.get("timeAdded"):
        taint["timeAdded"] = now


def default_resource_claim(obj: dict, now: str) -> None:
    _claim_spec(obj.get("spec"))


def default_resource_claim_template(obj: dict, now: str) -> None:
    spec = obj.get("spec")
    if isinstance(spec, dict):
        _claim_spec(spec.get("spec"))


def default_resource_slice(obj: dict, now: str) -> None:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    for device in spec.get("devices") or ():
        if isinstance(device, dict):
            for taint in device.get("taints") or ():
                _taint(taint, now)


def default_device_taint_rule(obj: dict, now: str, old: dict | None = None) -> None:
    """timeAdded: now on create; on an effect change without a new timeAdded, reset to now (§3.5)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict) or not isinstance(spec.get("taint"), dict):
        return
    taint = spec["taint"]
    if old is not None:
        old_taint = (old.get("spec") or {}).get("taint") or {}
        if taint.get("effect") != old_taint.get("effect") and taint.get("timeAdded") in (None, old_taint.get("timeAdded")):
            taint["timeAdded"] = now
        elif not taint.get("timeAdded"):
            taint["timeAdded"] = old_taint.get("timeAdded") or now
    _taint(taint, now)


def _container(c: dict) -> None:
    """Limits missing from requests are copied into requests (extended-resources.md §4.1); a port
    without a protocol is TCP (k8s: SetDefaults_ContainerPort)."""
    if not isinstance(c, dict):
        return
    for port in c.get("ports") or () if isinstance(c.get("ports"), list) else ():
        if isinstance(port, dict) and not port.get("protocol"):
            port["protocol"] = "TCP"
    resources = c.get("resources")
    if not isinstance(resources, dict):
        return
    limits = resources.get("limits")
    if isinstance(limits, dict) and limits:
        requests = resources.setdefault("requests", {})
        if isinstance(requests, dict):
            for name, value in limits.items():
                requests.setdefault(name, value)


def _merge_label_keys(obj: dict, spec: dict) -> None:
    """k8s: pod strategy PrepareForCreate (MatchLabelKeysInPodAffinity): each affinity term's
    matchLabelKeys / mismatchLabelKeys become In / NotIn requirements on the pod's own label
    values in its labelSelector; keys the pod has no label for are skipped."""
    labels = (obj.get("metadata") or {}).get("labels") or {}
    affinity = spec.get("affinity")
    if not isinstance(affinity, dict) or not isinstance(labels, dict):
        return
    for kind in ("podAffinity", "podAntiAffinity"):
        section = affinity.get(kind)
        if not isinstance(section, dict):
            continue
        terms = list(section.get("requiredDuringSchedulingIgnoredDuringExecution") or [])
        terms += [w.get("podAffinityTerm") for w in section.get("preferredDuringSchedulingIgnoredDuringExecution") or []
                  if isinstance(w, dict)]
        for term in terms:
            if not isinstance(term, dict) or not (term.get("matchLabelKeys") or term.get("mismatchLabelKeys")):
                continue
            selector = term.get("labelSelector")
            if not isinstance(selector, dict):
                continue   # k8s: keys are only merged into an existing labelSelector
            exprs = selector.setdefault("matchExpressions", [])
            for field, op in (("matchLabelKeys", "In"), ("mismatchLabelKeys", "NotIn")):
                for key in term.get(field) or ():
                    if isinstance(key, str) and key in labels:
                        exprs.append({"key": key, "operator": op, "values": [labels[key]]})


def default_pod(obj: dict, now: str) -> None:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    _merge_label_keys(obj, spec)
    for key in ("containers", "initContainers"):
        if isinstance(spec.get(key), list):   # wrong types are reported by validation, not here
            for c in spec[key]:
                _container(c)
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("schedulerName", DEFAULT_SCHEDULER)
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("priority", 0)
    tolerations = spec.setdefault("tolerations", [])
    if isinstance(tolerations, list):
        covered = [t.get("key") for t in tolerations if isinstance(t, dict) and t.get("effect") in ("NoExecute", None, "")]
        for key in _NODE_PROBLEM_TAINTS:
            if key not in covered:
                tolerations.append({"key": key, "operator": "Exists", "effect": "NoExecute",
                                    "tolerationSeconds": _DEFAULT_TOLERATION_SECONDS})
    status = obj.setdefault("status", {})
    if isinstance(status, dict):
        status.setdefault("phase", "Pending")
        if "qosClass" not in status:   # a snapshot's pods have theirs: not worked out again
            status["qosClass"] = qos_class(spec)
        _scheduling_gated_condition(spec, status, now)


def _scheduling_gated_condition(spec: dict, status: dict, now: str) -> None:
    """A pod created with schedulingGates and no PodScheduled condition gets PodScheduled=False,
    reason SchedulingGated (k8s: pkg/registry/core/pod/strategy.go applySchedulingGatedCondition,
    from PrepareForCreate only: removing the gates later leaves it for the scheduler to overwrite)."""
    if not (isinstance(spec.get("schedulingGates"), list) and spec["schedulingGates"]):
        return
    conditions = status.get("conditions")
    if conditions is None:
        conditions = status["conditions"] = []
    elif not isinstance(conditions, list):
        return   # a wrong type is decoding's to report
    if any(isinstance(c, dict) and c.get("type") == "PodScheduled" for c in conditions):
        return
    conditions.append({"type": "PodScheduled", "status": "False", "lastProbeTime": None,
                       "lastTransitionTime": now, "reason": "SchedulingGated",
                       "message": "Scheduling is blocked due to non-empty scheduling gates"})


def qos_class(spec: dict) -> str:
    """k8s: pkg/apis/core/v1/helper/qos: Guaranteed, Burstable or BestEffort (cpu and memory only)."""
    containers = [c for key in ("containers", "initContainers") if isinstance(spec.get(key), list)
                  for c in spec[key] if isinstance(c, dict)]
    any_set = False
    guaranteed = True
    for c in containers:
        res = c.get("resources") if isinstance(c.get("resources"), dict) else {}
        req = res.get("requests") if isinstance(res.get("requests"), dict) else {}
        lim = res.get("limits") if isinstance(res.get("limits"), dict) else {}
        for name in ("cpu", "memory"):
            if name in req or name in lim:
                any_set = True
            if name not in lim or (name in req and str(req[name]) != str(lim[name])):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def default_node(obj: dict, now: str) -> None:
    """allocatable defaults to capacity, as the node lifecycle does for static nodes."""
    status = obj.setdefault("status", {})
    if isinstance(status, dict) and isinstance(status.get("capacity"), dict) and "allocatable" not in status:
        status["allocatable"] = dict(status["capacity"])


def default_namespace(obj: dict, now: str) -> None:
    spec = obj.setdefault("spec", {})
    if isinstance(spec, dict):
        spec.setdefault("finalizers", ["kubernetes"])
    status = obj.setdefault("status", {})
    if isinstance(status, dict):
        status.setdefault("phase", "Active")
    md = obj.setdefault("metadata", {})
    labels = md.setdefault("labels", {})
    if isinstance(labels, dict) and md.get("name"):
        labels.setdefault("kubernetes.io/metadata.name", md["name"])


def _pod_template(spec: dict) -> None:
    """k8s: SetDefaults_PodSpec on a template (SetDefaults_Pod's limits → requests and the
    admission plugins' defaults apply to the pods created from it, not to the template)."""
    template = spec.get("template")
    pod_spec = template.get("spec") if isinstance(template, dict) else None
    if not isinstance(pod_spec, dict):
        return
    pod_spec.setdefault("restartPolicy", "Always")
    pod_spec.setdefault("schedulerName", DEFAULT_SCHEDULER)
    pod_spec.setdefault("terminationGracePeriodSeconds", 30)
    pod_spec.setdefault("dnsPolicy", "ClusterFirst")


def _unset_default(spec: dict, key: str, value) -> None:
    """A pointer field's default: JSON null decodes to nil in Go, which defaulting fills as if absent."""
    if spec.get(key) is None:
        spec[key] = value


def default_deployment(obj: dict, now: str) -> None:
    """k8s: pkg/apis/apps/v1/defaults.go SetDefaults_Deployment."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    _unset_default(spec, "replicas", 1)   # `if obj.Spec.Replicas == nil` (*int32)
    strategy = spec.setdefault("strategy", {})
    if isinstance(strategy, dict):
        if not strategy.get("type"):
            strategy["type"] = "RollingUpdate"
        if strategy["type"] == "RollingUpdate":
            rolling = strategy.setdefault("rollingUpdate", {})
            if isinstance(rolling, dict):
                rolling.setdefault("maxUnavailable", "25%")
                rolling.setdefault("maxSurge", "25%")
    _unset_default(spec, "revisionHistoryLimit", 10)      # *int32
    _unset_default(spec, "progressDeadlineSeconds", 600)  # *int32
    _pod_template(spec)


def default_replica_set(obj: dict, now: str) -> None:
    """k8s: SetDefaults_ReplicaSet — replicas 1."""
    spec = obj.get("spec")
    if isinstance(spec, dict):
        _unset_default(spec, "replicas", 1)   # *int32: null is nil
        _pod_template(spec)


def default_priority_class(obj: dict, now: str) -> None:
    """k8s: pkg/apis/scheduling/v1/defaults.go SetDefaults_PriorityClass."""
    if obj.get("preemptionPolicy") is None:
        obj["preemptionPolicy"] = "PreemptLowerPriority"


_BY_KIND = {
    "PriorityClass": default_priority_class,
    "Deployment": default_deployment,
    "ReplicaSet": default_replica_set,
    "ResourceClaim": default_resource_claim,
    "ResourceClaimTemplate": default_resource_claim_template,
    "ResourceSlice": default_resource_slice,
    "Pod": default_pod,
    "Node": default_node,
    "Namespace": default_namespace,
    **workloaddefaults.BY_KIND,   # StatefulSet, DaemonSet, Job
}


def apply_defaults(obj: dict, now: str, old: dict | None = None, namespaced: bool = False) -> dict:
    """Default a (copied) object in place and return it."""
    md = obj.setdefault("metadata", {})
    if namespaced and isinstance(md, dict) and not md.get("namespace"):
        md["namespace"] = DEFAULT_NAMESPACE
    if obj.get("kind") == "DeviceTaintRule":
        default_device_taint_rule(obj, now, old)
    else:
        fn = _BY_KIND.get(obj.get("kind", ""))
        if fn is not None:
            fn(obj, now)
    return obj
