"""A ResourceQuota created in the phase that creates the pods it names limits none of them
(kube-apiserver's quota admission reads status.hard, which the quota controller's first sync
fills): the run says so, and a quota of an earlier phase does limit."""
import pytest
import yaml

from drasim.api.loader import load_paths
from drasim.controlplane import ControlPlane
from drasim.errors import InputError

QUOTA = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "default"},
         "spec": {"hard": {"pods": "2"}}}
NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "10"}}}


def _pod(i: int, node: str | None = None) -> dict:
    spec = {"containers": [{"name": "c", "image": "i"}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "default"}, "spec": spec}


def _phase(tmp_path, name: str, objects: list[dict]):
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(objects))
    return load_paths([str(path)])


def test_a_quota_created_with_the_pods_limits_none_and_the_run_says_so(tmp_path):
    cp = ControlPlane()
    cp.apply(_phase(tmp_path, "all.yaml", [QUOTA, NODE] + [_pod(i) for i in range(4)]))
    cp.settle()
    assert all(p["spec"].get("nodeName") == "n1" for p in cp.store.list("Pod"))
    assert [w for w in cp.warnings if 'ResourceQuota "q" limits none of the 4 pods and claims' in w]


def test_pods_already_running_in_a_snapshot_are_no_reason_to_warn(tmp_path):
    cp = ControlPlane()
    cp.apply(_phase(tmp_path, "snapshot.yaml", [QUOTA, NODE] + [_pod(i, node="n1") for i in range(3)]))
    assert not cp.warnings


def test_a_quota_of_an_earlier_phase_limits(tmp_path):
    cp = ControlPlane()
    cp.apply(_phase(tmp_path, "quota.yaml", [QUOTA, NODE]))
    cp.settle()
    cp.apply(_phase(tmp_path, "pods.yaml", [_pod(0), _pod(1)]))
    cp.settle()
    with pytest.raises(InputError, match="exceeded quota: q"):
        cp.apply(_phase(tmp_path, "more.yaml", [_pod(2)]))
    assert not cp.warnings
