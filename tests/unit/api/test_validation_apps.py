"""Validation of StatefulSet, DaemonSet and Job, with the apps/batch messages."""
from __future__ import annotations

import pytest

from drasim.api import kinds
from drasim.api.loader import Document
from drasim.controlplane import ControlPlane
from drasim.errors import ManifestError, InvalidObject

LABELS = {"app": "a"}
CONTAINERS = [{"name": "main", "image": "x"}]


def template(labels=LABELS, **spec):
    return {"metadata": {"labels": dict(labels)}, "spec": {"containers": CONTAINERS, **spec}}


def apply(obj):
    cp = ControlPlane()
    cp.apply([Document("w.yaml#1", kinds.lookup(obj["apiVersion"], obj["kind"]), obj)])
    return cp


def error_of(obj) -> str:
    with pytest.raises(InvalidObject) as e:
        apply(obj)
    return str(e.value)


def sts(**spec):
    body = {"serviceName": "a", "selector": {"matchLabels": LABELS}, "template": template()}
    body.update(spec)
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "a"}, "spec": body}


def ds(**spec):
    body = {"selector": {"matchLabels": LABELS}, "template": template()}
    body.update(spec)
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "a"}, "spec": body}


def job(**spec):
    body = {"template": template(restartPolicy="Never")}
    body.update(spec)
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "a"}, "spec": body}


def test_valid_workloads_are_accepted():
    for obj in (sts(), ds(), job()):
        apply(obj)


@pytest.mark.parametrize("obj,message", [
    (sts(replicas=-1), 'StatefulSet.apps "a" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0'),
    (sts(template=template({"app": "b"})), 'spec.template.metadata.labels: Invalid value: {"app":"b"}: '
                                           '`selector` does not match template `labels`'),
    (sts(selector={}), "spec.selector: Invalid value: {}: empty selector is invalid for statefulset"),
    (sts(podManagementPolicy="Random"), "spec.podManagementPolicy: Invalid value: \"Random\": "
                                        "must be 'OrderedReady' or 'Parallel'"),
    (sts(ordinals={"start": -2}), "spec.ordinals.start: Invalid value: -2: must be greater than or equal to 0"),
    (sts(template=template(restartPolicy="Never")),
     'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"'),
    (sts(template={"metadata": {"labels": LABELS}, "spec": {"containers": [{"name": "main"}]}}),
     "spec.template.spec.containers[0].image: Required value"),
    (ds(selector={"matchLabels": {"app": "other"}}), "`selector` does not match template `labels`"),
    (ds(selector={}), "spec.selector: Invalid value: {}: empty selector is invalid for daemonset"),
    (job(template=template()), 'Job.batch "a" is invalid: spec.template.spec.restartPolicy: Required value: '
                               'valid values: "OnFailure", "Never"'),
    (job(template=template(restartPolicy="Sometimes")),
     'spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "OnFailure", "Never"'),
    (job(parallelism=-1), "spec.parallelism: Invalid value: -1: must be greater than or equal to 0"),
    (job(completions=-3), "spec.completions: Invalid value: -3: must be greater than or equal to 0"),
    (job(backoffLimit=-1), "spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0"),
    (job(completionMode="Indexed", parallelism=2), "spec.completions: Required value: when completion mode is Indexed"),
    (job(completionMode="Sorted"), 'spec.completionMode: Unsupported value: "Sorted": supported values: '
                                   '"NonIndexed", "Indexed"'),
])
def test_invalid_specs_are_refused_with_the_api_servers_message(obj, message):
    assert message in error_of(obj)


def test_a_missing_spec_reports_its_required_fields():
    msg = error_of({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "a"}})
    assert "spec.selector: Required value" in msg and "spec.template: Required value" in msg


def test_a_refused_workload_leaves_nothing_behind():
    cp = ControlPlane()
    good = Document("w.yaml#1", kinds.JOB, job())
    bad = Document("w.yaml#2", kinds.JOB, dict(job(parallelism=-1), metadata={"name": "b"}))
    with pytest.raises(InvalidObject):
        cp.run_phase([good, bad])
    assert cp.store.list("Job") == [] and cp.store.list("Pod") == []


@pytest.mark.parametrize("status,message", [
    ({"failed": -1}, "status.failed: Invalid value: -1: must be greater than or equal to 0"),
])
def test_a_snapshot_status_must_have_the_shape_the_controller_reads(status, message):
    assert message in error_of(dict(job(), status=status))


# A status of the wrong JSON type never reaches validation: typed decoding refuses it first, with
# the decoder's message (k8s: the request body cannot be decoded into batch/v1 JobStatus).
@pytest.mark.parametrize("status,message", [
    ({"succeeded": "many"}, "cannot unmarshal string into Go struct field JobStatus.status.succeeded of type int32"),
    ({"startTime": "yesterday"}, 'parsing time "yesterday"'),
    ({"conditions": ["Complete"]}, "(status.conditions[0])"),
    ({"completedIndexes": [1]}, "cannot unmarshal array into Go struct field JobStatus.status.completedIndexes"),
])
def test_a_snapshot_status_of_the_wrong_type_is_refused_by_decoding(status, message):
    with pytest.raises(ManifestError) as e:
        apply(dict(job(), status=status))
    assert 'Job in version "v1" cannot be handled as a Job' in str(e.value) and message in str(e.value)


def test_a_snapshot_job_status_is_kept_and_continued():
    done = dict(job(), status={"startTime": "2026-01-01T00:00:00Z", "succeeded": 1, "conditions": [
        {"type": "Complete", "status": "True", "reason": "CompletionsReached", "message": "m",
         "lastTransitionTime": "2026-01-01T00:01:00Z"}]})
    cp = apply(done)
    cp.settle()
    assert cp.store.get("Job", "default", "a")["status"]["succeeded"] == 1 and not cp.store.list("Pod")


def update_error(first, second) -> str:
    cp = apply(first)
    with pytest.raises(InvalidObject) as e:
        cp.apply([Document("w.yaml#1", kinds.lookup(second["apiVersion"], second["kind"]), second)])
    return str(e.value)


def test_updates_keep_the_immutable_fields():
    assert ("spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
            "'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' "
            "are forbidden") in update_error(sts(), sts(serviceName="other"))
    assert "spec.completions: Invalid value: 3: field is immutable" in update_error(job(), job(completions=3))
    assert "spec.selector: Invalid value" in update_error(ds(), ds(
        selector={"matchLabels": {"app": "a", "x": "y"}}, template=template({"app": "a", "x": "y"})))
    cp = apply(sts())
    cp.apply([Document("w.yaml#1", kinds.STATEFUL_SET, sts(replicas=4, minReadySeconds=5))])   # allowed
    cp = apply(job(parallelism=2, completions=4))
    cp.apply([Document("w.yaml#1", kinds.JOB, job(parallelism=1, completions=4))])   # allowed
