"""PodDisruptionBudgets: the disruption controller's status, preemption preferring victims whose
budget allows it (k8s: disruption.go; default_preemption.go filterPodsWithPDBViolation,
SelectVictimsOnNode; preemption.go pickOneNodeForPreemption)."""
import pytest

from drasim.controlplane import ControlPlane
from drasim.errors import InputError
from tests.priority import prioritise


def node(cp, name, cpu="1"):
    cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
               "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "10"}}})


def pod(cp, name, cpu="1", priority=0, labels=None, node_name=None):
    spec = {"priority": priority, "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}]}
    if node_name:
        spec["nodeSelector"] = {"kubernetes.io/hostname": node_name}
    prioritise(cp, spec)
    cp.create({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": "default", "labels": labels or {}}, "spec": spec})
    cp.settle()


def pdb(cp, name, selector, **spec):
    cp.create({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name, "namespace": "default"},
               "spec": {"selector": {"matchLabels": selector}, **spec}})
    cp.settle()
    return cp.store.get("PodDisruptionBudget", "default", name)["status"]


def labelled_nodes(cp, *names):
    for n in names:
        cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": n, "labels": {"kubernetes.io/hostname": n}},
                   "status": {"allocatable": {"cpu": "1", "memory": "8Gi", "pods": "10"}}})


def test_status_counts_ready_pods_against_min_available():
    cp = ControlPlane()
    node(cp, "n1", cpu="4")
    for i in range(3):
        pod(cp, f"web-{i}", labels={"app": "web"})
    status = pdb(cp, "web", {"app": "web"}, minAvailable=2)
    assert (status["expectedPods"], status["currentHealthy"], status["desiredHealthy"], status["disruptionsAllowed"]) \
        == (3, 3, 2, 1)
    [cond] = status["conditions"]
    assert (cond["type"], cond["status"], cond["reason"]) == ("DisruptionAllowed", "True", "SufficientPods")
    cp.delete("Pod", "default", "web-0")
    cp.settle()
    status = cp.store.get("PodDisruptionBudget", "default", "web")["status"]
    assert status["disruptionsAllowed"] == 0 and status["conditions"][0]["reason"] == "InsufficientPods"


def test_max_unavailable_needs_a_controller_scale():
    """maxUnavailable counts against the controllers' scale; a pod with an owner that is not a scalable
    controller fails the sync safe (no disruptions)."""
    cp = ControlPlane()
    node(cp, "n1", cpu="8")
    cp.create({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
               "spec": {"replicas": 4, "selector": {"matchLabels": {"app": "web"}},
                        "template": {"metadata": {"labels": {"app": "web"}},
                                     "spec": {"containers": [{"name": "c", "image": "i",
                                                              "resources": {"requests": {"cpu": "1"}}}]}}}})
    cp.settle()
    status = pdb(cp, "web", {"app": "web"}, maxUnavailable="25%")
    assert (status["expectedPods"], status["desiredHealthy"], status["disruptionsAllowed"]) == (4, 3, 1)


@pytest.mark.parametrize("spec, message", [
    ({"minAvailable": 1, "maxUnavailable": 1}, "minAvailable and maxUnavailable cannot be both set"),
    ({"minAvailable": -1}, "spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"),
    ({"maxUnavailable": "150%"}, 'spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%'),
    ({"minAvailable": 1, "unhealthyPodEvictionPolicy": "Sometimes"},
     'spec.unhealthyPodEvictionPolicy: Unsupported value: "Sometimes": supported values: "AlwaysAllow", '
     '"IfHealthyBudget"'),
])
def test_validation(spec, message):
    cp = ControlPlane()
    with pytest.raises(InputError, match="PodDisruptionBudget.policy \"b\" is invalid") as e:
        cp.create({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "b", "namespace": "default"},
                   "spec": {"selector": {"matchLabels": {"a": "b"}}, **spec}})
    assert message in str(e.value)


@pytest.mark.parametrize("guarded, victim", [(False, "on-n1"), (True, "on-n2")])
def test_preemption_prefers_the_node_without_budget_violations(guarded, victim):
    """Two equal candidates: node order picks n1; with a budget that allows no disruption of the pod
    on n1, the node with fewer violating victims (n2) wins first."""
    cp = ControlPlane()
    labelled_nodes(cp, "n1", "n2")
    pod(cp, "on-n1", labels={"app": "db"}, node_name="n1")
    pod(cp, "on-n2", labels={"app": "batch"}, node_name="n2")
    if guarded:
        assert pdb(cp, "db", {"app": "db"}, minAvailable=1)["disruptionsAllowed"] == 0
    pod(cp, "urgent", priority=1000)
    assert cp.store.get("Pod", "default", victim) is None
    assert cp.store.get("Pod", "default", "urgent")["spec"]["nodeName"] == ("n1" if victim == "on-n1" else "n2")


def test_violating_victims_are_reprieved_first():
    """One of two equal-priority pods must go: the one whose budget forbids it is reprieved."""
    from drasim.scheduler.plugins.defaultpreemption import split_by_pdb_violation

    pods = [{"metadata": {"name": n, "namespace": "default", "labels": {"app": a}}} for n, a in
            (("x", "db"), ("y", "db"), ("z", "web"))]
    budget = {"metadata": {"namespace": "default"}, "spec": {"selector": {"matchLabels": {"app": "db"}}},
              "status": {"disruptionsAllowed": 1}}
    violating, fine = split_by_pdb_violation(pods, [budget])
    assert [p["metadata"]["name"] for p in violating] == ["y"] and [p["metadata"]["name"] for p in fine] == ["x", "z"]
    empty = dict(budget, spec={"selector": {}})
    assert split_by_pdb_violation(pods, [dict(empty, status={"disruptionsAllowed": 0})])[0] == []

    cp = ControlPlane()
    node(cp, "n1", cpu="2")
    pod(cp, "free", labels={"app": "batch"})      # started first: without budgets it would be reprieved
    pod(cp, "guarded", labels={"app": "db"})
    assert pdb(cp, "db", {"app": "db"}, minAvailable=1)["disruptionsAllowed"] == 0
    pod(cp, "urgent", priority=1000)
    assert cp.store.get("Pod", "default", "guarded") is not None
    assert cp.store.get("Pod", "default", "free") is None
