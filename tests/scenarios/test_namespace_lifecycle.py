"""NamespaceLifecycle admission and namespace deletion (k8s: admission/plugin/namespace/lifecycle,
pkg/controller/namespace)."""
from pathlib import Path

import pytest

from drasim.api.loader import load_paths
from drasim.controlplane import ControlPlane
from drasim.errors import InputError
from drasim.namespacelifecycle import SYSTEM_NAMESPACES

POD = """
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: %s}
spec: {containers: [{name: c, image: i}]}
"""
NAMESPACE = "apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}\n"


def run(tmp_path: Path, cp: ControlPlane, text: str, name: str = "phase.yaml") -> None:
    path = tmp_path / name
    path.write_text(text)
    cp.run_phase(load_paths([path]))


def test_system_namespaces_exist_from_the_start():
    cp = ControlPlane()
    assert sorted(n["metadata"]["name"] for n in cp.store.list("Namespace")) == sorted(SYSTEM_NAMESPACES)


def test_an_object_in_a_namespace_nobody_created_is_refused(tmp_path):
    cp = ControlPlane()
    with pytest.raises(InputError) as e:
        run(tmp_path, cp, POD % "team-x")
    assert str(e.value) == f'{tmp_path / "phase.yaml"}#1: namespaces "team-x" not found'
    assert cp.store.list("Pod") == [] and cp.store.get("Namespace", None, "team-x") is None


def test_a_namespace_anywhere_in_the_same_phase_makes_it_valid(tmp_path):
    cp = ControlPlane()
    run(tmp_path, cp, POD % "team-x" + "---\n" + NAMESPACE % "team-x")
    assert cp.store.get("Pod", "team-x", "p") is not None


def test_a_terminating_namespace_refuses_new_objects(tmp_path):
    cp = ControlPlane()
    held = """
apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: team-x
  finalizers: [example.com/hold]
spec: {containers: [{name: c, image: i}]}
"""
    run(tmp_path, cp, NAMESPACE % "team-x" + "---" + held)
    run(tmp_path, cp, "apiVersion: drasim.io/v1alpha1\nkind: PhaseOperations\ndelete: [{kind: Namespace, name: team-x}]\n",
        "delete.yaml")
    ns = cp.store.get("Namespace", None, "team-x")
    assert ns["status"]["phase"] == "Terminating"   # the pod's finalizer holds it
    conditions = {c["type"]: c for c in ns["status"]["conditions"]}
    assert conditions["NamespaceContentRemaining"]["message"] == "Some resources are remaining: pods. has 1 resource instances"
    assert conditions["NamespaceFinalizersRemaining"]["message"] == \
        "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances"
    with pytest.raises(InputError) as e:
        run(tmp_path, cp, (POD % "team-x").replace("name: p,", "name: q,"), "late.yaml")
    assert str(e.value).endswith('pods "q" is forbidden: unable to create new content in namespace team-x '
                                 "because it is being terminated")


def test_a_deleted_namespace_is_emptied_and_goes(tmp_path):
    cp = ControlPlane()
    run(tmp_path, cp, NAMESPACE % "team-x" + "---" + POD % "team-x")
    run(tmp_path, cp, "apiVersion: drasim.io/v1alpha1\nkind: PhaseOperations\ndelete: [{kind: Namespace, name: team-x}]\n",
        "delete.yaml")
    assert cp.store.get("Namespace", None, "team-x") is None and cp.store.list("Pod", "team-x") == []


def test_immortal_namespaces_may_not_be_deleted(tmp_path):
    cp = ControlPlane()
    with pytest.raises(InputError, match='namespaces "default" is forbidden: this namespace may not be deleted'):
        run(tmp_path, cp, "apiVersion: drasim.io/v1alpha1\nkind: PhaseOperations\ndelete: [{kind: Namespace, name: default}]\n")


def test_deleting_a_namespace_with_a_deployment_settles_with_nothing_left(tmp_path):
    """The namespace controller deletes the Deployment, ReplicaSet and pods; the ReplicaSet's
    attempts to replace its pods are refused as the namespace is terminating (no FailedCreate
    events, as in k8s), and the namespace goes."""
    cp = ControlPlane()
    run(tmp_path, cp, NAMESPACE % "team-x" + """---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team-x}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
""")
    assert len(cp.store.list("Pod", "team-x")) == 2
    run(tmp_path, cp, "apiVersion: drasim.io/v1alpha1\nkind: PhaseOperations\ndelete: [{kind: Namespace, name: team-x}]\n",
        "delete.yaml")
    assert cp.store.get("Namespace", None, "team-x") is None
    for kind in ("Deployment", "ReplicaSet", "Pod", "Event"):
        assert cp.store.list(kind, "team-x") == [], kind
