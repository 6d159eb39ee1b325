"""ValidatePodUpdate (k8s pkg/apis/core/validation/validation.go): a pod's spec is immutable but for
images, activeDeadlineSeconds, added tolerations, removed scheduling gates and a negative grace
period set to 1; everything else is one Forbidden error on `spec` naming the changed field."""
import copy

import pytest

from drasim.api.defaults import apply_defaults
from drasim.api.validation import validate_object

FORBIDDEN = "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`"


def live_pod(**spec):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "pause"}], **spec}}
    pod = apply_defaults(pod, "2026-01-01T00:00:00Z")
    pod["metadata"].update(uid="u1", resourceVersion="5")
    return pod


def errors(old, change):
    new = copy.deepcopy(old)
    change(new["spec"])
    return [str(e) for e in validate_object(new, old)]


def test_an_unchanged_pod_is_valid():
    old = live_pod(nodeName="n1")
    assert errors(old, lambda s: None) == []


@pytest.mark.parametrize("change", [
    lambda s: s.__setitem__("containers", [dict(s["containers"][0], image="nginx:2")]),
    lambda s: s.__setitem__("activeDeadlineSeconds", 30),
    lambda s: s.__setitem__("tolerations", s["tolerations"] + [{"key": "gpu", "operator": "Exists"}]),
    lambda s: s.__setitem__("tolerations", [dict(t, tolerationSeconds=10) for t in s["tolerations"]]),
])
def test_the_updatable_fields_may_change(change):
    assert errors(live_pod(nodeName="n1"), change) == []


@pytest.mark.parametrize("change, changed", [
    (lambda s: s.__setitem__("nodeName", "n2"), 'spec.nodeName: "n1" → "n2"'),
    (lambda s: s["containers"][0].__setitem__("ports", [{"containerPort": 80, "protocol": "TCP"}]),
     'spec.containers[0].ports: <none> → [{"containerPort":80,"protocol":"TCP"}]'),
    (lambda s: s.__setitem__("restartPolicy", "Never"), 'spec.restartPolicy: "Always" → "Never"'),
])
def test_other_changes_are_forbidden_naming_what_changed(change, changed):
    errs = errors(live_pod(nodeName="n1"), change)
    assert len(errs) == 1 and errs[0].startswith(FORBIDDEN) and errs[0].endswith(f"negative) ({changed})")
    assert "\n" not in errs[0]


def test_containers_may_not_be_added_or_removed():
    errs = errors(live_pod(), lambda s: s["containers"].append({"name": "d", "image": "x"}))
    assert errs == ["spec.containers: Forbidden: pod updates may not add or remove containers"]


def test_an_image_may_not_be_emptied():
    errs = errors(live_pod(), lambda s: s["containers"][0].__setitem__("image", ""))
    assert "spec.containers[0].image: Required value" in errs


def test_tolerations_may_only_be_added():
    old = live_pod(tolerations=[{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}])
    errs = errors(old, lambda s: s.__setitem__("tolerations", s["tolerations"][1:]))
    assert "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds" in errs


def test_active_deadline_may_be_set_or_lowered_only():
    old = live_pod(activeDeadlineSeconds=60)
    assert errors(old, lambda s: s.__setitem__("activeDeadlineSeconds", 30)) == []
    assert errors(old, lambda s: s.__setitem__("activeDeadlineSeconds", 90)) == [
        "spec.activeDeadlineSeconds: Invalid value: 90: must be less than or equal to previous value"]
    assert errors(old, lambda s: s.pop("activeDeadlineSeconds")) == [
        "spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value"]


def test_scheduling_gates_may_only_be_removed_and_gated_pods_may_change_placement():
    old = live_pod(schedulingGates=[{"name": "wait"}])
    assert errors(old, lambda s: s.pop("schedulingGates")) == []
    assert errors(old, lambda s: s.__setitem__("nodeSelector", {"gpu": "a100"})) == []
    errs = errors(old, lambda s: s["schedulingGates"].append({"name": "more"}))
    assert errs == ["spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'more'"]


def test_a_negative_grace_period_may_become_one():
    old = live_pod(terminationGracePeriodSeconds=-1)
    assert errors(old, lambda s: s.__setitem__("terminationGracePeriodSeconds", 1)) == []
    assert errors(old, lambda s: s.__setitem__("terminationGracePeriodSeconds", 5))[0].startswith(FORBIDDEN)
