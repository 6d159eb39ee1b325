"""Random Deployments on a roomy cluster: every rollout settles with exactly `replicas` pods,
all from the current template, whatever the strategy and fenceposts (k8s: the rollout
invariants of rolling.go and recreate.go)."""
import json

from hypothesis import HealthCheck, given, settings, strategies as st

from drasim.api.loader import load_paths
from drasim.controlplane import ControlPlane

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "big"},
        "status": {"allocatable": {"cpu": "1000", "memory": "1000Gi", "pods": "1000"}}}

fencepost = st.one_of(st.integers(0, 4), st.integers(0, 100).map(lambda p: f"{p}%"))


def deployment(replicas, strategy, image):
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}}, "strategy": strategy,
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "c", "image": image}]}}}}


def is_zero(v):
    return v == 0 or v == "0%"


@st.composite
def strategies(draw):
    if draw(st.booleans()):
        return {"type": "Recreate"}
    surge, unavailable = draw(fencepost), draw(fencepost)
    if is_zero(surge) and is_zero(unavailable):
        surge = 1
    return {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 6), st.integers(0, 6), strategies())
def test_rollouts_settle_on_the_current_template(tmp_path, first, second, strategy):
    cp = ControlPlane()
    for i, docs in enumerate(([NODE, deployment(first, strategy, "a")], [deployment(second, strategy, "b")])):
        path = tmp_path / f"{i}.json"
        path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}))
        cp.run_phase(load_paths([path]))
    pods = [p for p in cp.store.list("Pod", "default")]
    assert len(pods) == second
    assert all(p["spec"]["containers"][0]["image"] == "b" and p["status"]["phase"] == "Running" for p in pods)
    d = cp.store.get("Deployment", "default", "web")
    assert d["status"].get("updatedReplicas", 0) == second == d["status"].get("availableReplicas", 0)
    old = [rs for rs in cp.store.list("ReplicaSet", "default")
           if rs["spec"]["template"]["spec"]["containers"][0]["image"] == "a"]
    assert all(rs["spec"]["replicas"] == 0 for rs in old)
