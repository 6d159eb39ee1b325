"""Defaulting of the workload kinds drasim runs controllers for: StatefulSet, DaemonSet, Job.

k8s: pkg/apis/apps/v1/defaults.go (SetDefaults_StatefulSet, SetDefaults_DaemonSet),
     pkg/apis/batch/v1/defaults.go (SetDefaults_Job), pkg/apis/core/v1/defaults.go (SetDefaults_PodSpec
     for the pod template), pkg/registry/batch/job/strategy.go (generateSelector, PrepareForCreate).
Functions fill a copied object in place; wrong JSON types are left for validation to report.
"""
from __future__ import annotations

MAX_INT32 = 2 ** 31 - 1

# k8s: batch/v1 types.go label keys.
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid"
LEGACY_JOB_NAME_LABEL = "job-name"
LEGACY_CONTROLLER_UID_LABEL = "controller-uid"


def _spec(obj: dict) -> dict | None:
    spec = obj.get("spec")
    return spec if isinstance(spec, dict) else None


def default_pod_template(template: object) -> None:
    """SetDefaults_PodSpec for the fields drasim models (a template is not a Pod: no status, no
    admission-plugin tolerations; the pod made from it gets those when it is created)."""
    if not isinstance(template, dict) or not isinstance(template.get("spec"), dict):
        return
    spec = template["spec"]
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")


def default_stateful_set(obj: dict, now: str) -> None:
    spec = _spec(obj)
    if spec is None:
        return
    spec.setdefault("podManagementPolicy", "OrderedReady")
    strategy = spec.setdefault("updateStrategy", {})
    if isinstance(strategy, dict):
        if not strategy.get("type"):
            strategy["type"] = "RollingUpdate"
            strategy.setdefault("rollingUpdate", {})
        rolling = strategy.get("rollingUpdate")
        if strategy["type"] == "RollingUpdate" and isinstance(rolling, dict):
            rolling.setdefault("partition", 0)
            rolling.setdefault("maxUnavailable", 1)   # MaxUnavailableStatefulSet: beta, on since v1.35
    policy = spec.setdefault("persistentVolumeClaimRetentionPolicy", {})   # StatefulSetAutoDeletePVC (GA)
    if isinstance(policy, dict):
        policy.setdefault("whenDeleted", "Retain")
        policy.setdefault("whenScaled", "Retain")
    for key, value in (("replicas", 1), ("revisionHistoryLimit", 10)):   # *int32: JSON null is nil, then defaulted
        if spec.get(key) is None:
            spec[key] = value
    default_pod_template(spec.get("template"))


def default_daemon_set(obj: dict, now: str) -> None:
    spec = _spec(obj)
    if spec is None:
        return
    strategy = spec.setdefault("updateStrategy", {})
    if isinstance(strategy, dict):
        strategy.setdefault("type", "RollingUpdate")
        if strategy["type"] == "RollingUpdate":
            rolling = strategy.setdefault("rollingUpdate", {})
            if isinstance(rolling, dict):
                rolling.setdefault("maxUnavailable", 1)
                rolling.setdefault("maxSurge", 0)
    spec.setdefault("revisionHistoryLimit", 10)
    default_pod_template(spec.get("template"))


def default_job(obj: dict, now: str) -> None:
    spec = _spec(obj)
    if spec is None:
        return
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
        spec["parallelism"] = 1
    if spec.get("parallelism") is None:
        spec["parallelism"] = 1
    if spec.get("backoffLimit") is None:
        spec["backoffLimit"] = MAX_INT32 if spec.get("backoffLimitPerIndex") is not None else 6
    spec.setdefault("completionMode", "NonIndexed")
    spec.setdefault("suspend", False)
    spec.setdefault("podReplacementPolicy", "Failed" if spec.get("podFailurePolicy") else "TerminatingOrFailed")
    spec.setdefault("manualSelector", False)
    default_pod_template(spec.get("template"))


def generate_job_selector(obj: dict) -> None:
    """k8s: job strategy PrepareForCreate → generateSelector, once the Job has its uid: the template
    gets job-name and controller-uid labels (legacy and batch.kubernetes.io/ keys) and the selector
    matches the controller uid. SetDefaults_Job then gives a Job without labels its template's
    labels (it shares the map in Go, and defaulting runs again on every read)."""
    if obj.get("kind") != "Job":
        return
    spec = _spec(obj)
    md = obj.get("metadata")
    if spec is None or not isinstance(md, dict) or spec.get("manualSelector") is True:
        return
    template = spec.setdefault("template", {})
    if not isinstance(template, dict):
        return
    t_md = template.setdefault("metadata", {})
    if not isinstance(t_md, dict):
        return
    labels = t_md.get("labels")
    if labels is None:
        labels = t_md["labels"] = {}
    if not isinstance(labels, dict):
        return
    for key in (LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL):
        labels.setdefault(key, md.get("name"))
    for key in (LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL):
        labels.setdefault(key, md.get("uid"))
    selector = spec.get("selector")
    if selector is None:
        selector = spec["selector"] = {}
    if isinstance(selector, dict):
        match = selector.get("matchLabels")
        if match is None:
            match = selector["matchLabels"] = {}
        if isinstance(match, dict):
            match.setdefault(CONTROLLER_UID_LABEL, md.get("uid"))
    if not md.get("labels"):
        md["labels"] = dict(labels)


DAEMONSET_TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation"


def prepare_for_create(obj: dict, old: dict | None = None) -> None:
    """The strategies' PrepareForCreate steps that need the object's uid: a Job's generated selector;
    a DaemonSet's templateGeneration 1 (apps/v1 keeps it in an annotation). Also run on an update:
    `kubectl apply` keeps these server-set fields (they are not in the applied configuration), and
    filling them in again gives the same values."""
    if obj.get("kind") == "Job":
        generate_job_selector(obj)
    elif obj.get("kind") == "DaemonSet" and isinstance(obj.get("metadata"), dict):
        annotations = obj["metadata"].get("annotations")
        if annotations is None:
            annotations = obj["metadata"]["annotations"] = {}
        if not isinstance(annotations, dict):
            return
        if old is None:
            annotations.setdefault(DAEMONSET_TEMPLATE_GENERATION_ANNOTATION, "1")
            return
        # k8s: daemonSetStrategy.PrepareForUpdate: a template change bumps templateGeneration
        previous = ((old.get("metadata") or {}).get("annotations") or {}).get(
            DAEMONSET_TEMPLATE_GENERATION_ANNOTATION, "1")
        generation = int(previous) if str(previous).isdigit() else 1
        if (obj.get("spec") or {}).get("template") != (old.get("spec") or {}).get("template"):
            generation += 1
        annotations[DAEMONSET_TEMPLATE_GENERATION_ANNOTATION] = str(generation)


BY_KIND = {
    "StatefulSet": default_stateful_set,
    "DaemonSet": default_daemon_set,
    "Job": default_job,
}

__all__ = ["BY_KIND", "CONTROLLER_UID_LABEL", "DAEMONSET_TEMPLATE_GENERATION_ANNOTATION", "prepare_for_create", "JOB_NAME_LABEL", "LEGACY_CONTROLLER_UID_LABEL",
           "LEGACY_JOB_NAME_LABEL", "default_daemon_set", "default_job", "default_pod_template",
           "default_stateful_set", "generate_job_selector"]
