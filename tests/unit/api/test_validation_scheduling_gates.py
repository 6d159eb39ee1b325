"""Scheduling gates at creation (k8s pkg/apis/core/validation/validation.go validateSchedulingGates,
ValidatePodCreate) and the condition the API server adds (pkg/registry/core/pod/strategy.go
applySchedulingGatedCondition)."""
import pytest

from drasim.api.defaults import apply_defaults
from drasim.api.validation import validate_object

NOW = "2026-01-01T00:00:00Z"


def pod(**spec):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "pause"}], **spec}}


def errors(obj):
    return [str(e) for e in validate_object(apply_defaults(obj, NOW))]


def test_good_gates_are_valid():
    assert errors(pod(schedulingGates=[{"name": "example.com/a"}, {"name": "b"}])) == []


def test_gate_names_are_qualified_names_reported_at_the_entry():
    assert errors(pod(schedulingGates=[{"name": "ok"}, {"name": "has space"}])) == [
        "spec.schedulingGates[1]: Invalid value: \"has space\": name part must consist of alphanumeric characters, "
        "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
        "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"]


def test_a_repeated_gate_is_a_duplicate():
    assert errors(pod(schedulingGates=[{"name": "a"}, {"name": "b"}, {"name": "a"}])) == [
        'spec.schedulingGates[2]: Duplicate value: "a"']


def test_a_gated_pod_may_not_name_its_node_at_creation():
    assert errors(pod(nodeName="n1", schedulingGates=[{"name": "a"}])) == [
        "spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared"]
    assert errors(pod(nodeName="n1")) == []


@pytest.mark.parametrize("existing", [None, [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]])
def test_the_gated_condition_is_added_only_when_there_is_no_podscheduled_condition(existing):
    obj = pod(schedulingGates=[{"name": "a"}])
    if existing:
        obj["status"] = {"conditions": existing}
    conds = apply_defaults(obj, NOW)["status"]["conditions"]
    if existing:
        assert conds == existing
    else:
        assert conds == [{"type": "PodScheduled", "status": "False", "lastProbeTime": None, "lastTransitionTime": NOW,
                          "reason": "SchedulingGated",
                          "message": "Scheduling is blocked due to non-empty scheduling gates"}]
