"""PriorityClasses and the Priority admission plugin (k8s: plugin/pkg/admission/priority/admission.go;
pkg/apis/scheduling/validation ValidatePriorityClass[Update]; SetDefaults_PriorityClass)."""
import copy

import pytest

from drasim.api.defaults import apply_defaults
from drasim.api.validation import validate_object
from drasim.controlplane import ControlPlane
from drasim.errors import InputError

NOW = "2026-01-01T00:00:00Z"


def pc(name, value, **fields):
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value, **fields}


def pod(name="p", **spec):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "i"}], **spec}}


def created(cp, obj):
    cp.create(obj)
    return cp.store.get("Pod", "default", obj["metadata"]["name"])["spec"]


def test_the_class_gives_priority_and_preemption_policy():
    cp = ControlPlane()
    cp.create(pc("batch", 100, preemptionPolicy="Never"))
    spec = created(cp, pod(priorityClassName="batch"))
    assert (spec["priority"], spec["preemptionPolicy"]) == (100, "Never")


def test_without_a_class_priority_is_zero_or_the_global_defaults():
    cp = ControlPlane()
    spec = created(cp, pod("a"))
    assert (spec["priority"], spec["preemptionPolicy"], spec.get("priorityClassName")) == (0, "PreemptLowerPriority", None)
    cp.create(pc("everyone", 7, globalDefault=True))
    spec = created(cp, pod("b"))
    assert (spec["priority"], spec["priorityClassName"]) == (7, "everyone")


def test_the_system_classes_always_exist():
    cp = ControlPlane()
    assert created(cp, pod("n", priorityClassName="system-node-critical"))["priority"] == 2000001000
    assert created(cp, pod("c", priorityClassName="system-cluster-critical"))["priority"] == 2000000000


@pytest.mark.parametrize("spec, message", [
    ({"priorityClassName": "missing"}, 'pods "p" is forbidden: no PriorityClass with name missing was found'),
    ({"priorityClassName": "batch", "priority": 5},
     'pods "p" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission '
     'controller computed 100 from the given PriorityClass name'),
    ({"priority": 5}, 'pods "p" is forbidden: the integer value of priority (5) must not be provided in pod spec; '
                      'priority admission controller computed 0 from the given PriorityClass name'),
    ({"priorityClassName": "batch", "preemptionPolicy": "Never"},
     'pods "p" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority '
     'admission controller computed PreemptLowerPriority from the given PriorityClass name'),
])
def test_a_pod_is_refused_as_the_api_server_refuses_it(spec, message):
    cp = ControlPlane()
    cp.create(pc("batch", 100))
    with pytest.raises(InputError) as e:
        cp.create(pod(**spec))
    assert str(e.value) == message
    assert cp.store.get("Pod", "default", "p") is None


def test_a_matching_priority_is_accepted():
    cp = ControlPlane()
    cp.create(pc("batch", 100))
    assert created(cp, pod(priorityClassName="batch", priority=100, preemptionPolicy="PreemptLowerPriority"))[
        "priority"] == 100


def test_a_snapshots_running_pod_keeps_its_priority_without_its_class():
    cp = ControlPlane()
    running = pod(priorityClassName="gone", priority=42, nodeName="n1")
    running["metadata"]["uid"] = "6f1c0a4e-0000-4000-8000-000000000001"
    assert created(cp, running)["priority"] == 42


def test_only_one_global_default():
    cp = ControlPlane()
    cp.create(pc("first", 1, globalDefault=True))
    with pytest.raises(InputError) as e:
        cp.create(pc("second", 2, globalDefault=True))
    assert str(e.value) == ('priorityclasses.scheduling.k8s.io "second" is forbidden: PriorityClass first is already '
                            'marked as default. Only one default can exist')


def errors(obj, old=None):
    return [str(e) for e in validate_object(apply_defaults(copy.deepcopy(obj), NOW), old)]


def test_priority_class_validation():
    assert errors(pc("ok", -5)) == []
    assert errors(pc("big", 1_000_000_001)) == ["value: Forbidden: maximum allowed value of a user defined priority is 1000000000"]
    assert errors(pc("system-mine", 1)) == [
        "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
        "error: system-mine is not a known system priority class"]
    assert errors(pc("system-node-critical", 5)) == [
        "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
        "error: value of system-node-critical PriorityClass must be 2000001000"]
    assert errors(pc("x", 1, preemptionPolicy="Sometimes")) == [
        'preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"']
    assert apply_defaults(pc("d", 1), NOW)["preemptionPolicy"] == "PreemptLowerPriority"


def test_value_and_preemption_policy_are_immutable():
    old = apply_defaults(pc("x", 1), NOW)
    assert errors(pc("x", 2), old) == ["value: Forbidden: may not be changed in an update."]
    assert errors(pc("x", 1, preemptionPolicy="Never"), old) == [
        'preemptionPolicy: Invalid value: "Never": field is immutable']


def test_a_pods_preemption_policy_is_validated():
    assert errors(pod(preemptionPolicy="Later")) == [
        'spec.preemptionPolicy: Unsupported value: "Later": supported values: "PreemptLowerPriority", "Never"']


def test_a_deployments_pods_get_their_templates_class():
    cp = ControlPlane()
    cp.create(pc("serving", 500))
    cp.create({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "default"},
               "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "d"}},
                        "template": {"metadata": {"labels": {"app": "d"}},
                                     "spec": {"priorityClassName": "serving",
                                              "containers": [{"name": "c", "image": "i"}]}}}})
    cp.settle()
    pods = cp.store.list("Pod", "default")
    assert len(pods) == 2 and {p["spec"]["priority"] for p in pods} == {500}


def test_a_phases_class_serves_its_pods_in_any_order():
    from drasim.api.loader import Document
    from drasim.api import kinds
    cp = ControlPlane()
    cp.apply([Document("f.yaml#1", kinds.POD, pod(priorityClassName="late")),
              Document("f.yaml#2", kinds.PRIORITY_CLASS, pc("late", 9))])
    assert cp.store.get("Pod", "default", "p")["spec"]["priority"] == 9
