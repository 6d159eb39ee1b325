"""Small builders for the workload controller tests: nodes, sets, jobs, phases, kubelet stand-ins."""
from __future__ import annotations

from drasim.api import kinds
from drasim.api.loader import Document
from drasim.controlplane import ControlPlane, Options


def docs(*objs: dict) -> list[Document]:
    return [Document(f"test#{i}", kinds.lookup(o["apiVersion"], o["kind"]), o) for i, o in enumerate(objs, 1)]


def node(name: str, *, labels: dict | None = None, taints: list | None = None, unschedulable: bool = False,
         cpu: str = "8") -> dict:
    spec: dict = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
            "spec": spec,
            "status": {"capacity": {"cpu": cpu, "memory": "32Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def pod_template(labels: dict, **spec) -> dict:
    return {"metadata": {"labels": dict(labels)},
            "spec": {"containers": [{"name": "main", "image": "registry.example.com/app:1"}], **spec}}


def stateful_set(name: str, replicas: int = 3, **spec) -> dict:
    labels = {"app": name}
    body = {"serviceName": name, "replicas": replicas, "selector": {"matchLabels": labels},
            "template": pod_template(labels)}
    body.update(spec)
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": name, "namespace": "default"},
            "spec": body}


def daemon_set(name: str, **template_spec) -> dict:
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": {"matchLabels": labels}, "template": pod_template(labels, **template_spec)}}


def job(name: str, **spec) -> dict:
    template = spec.pop("template", None) or {
        "spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "registry.example.com/batch:1"}]}}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": "default"},
            "spec": {"template": template, **spec}}


def quota(name: str, hard: dict) -> dict:
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name, "namespace": "default"},
            "spec": {"hard": hard}}


def control_plane(*objs: dict, kubelets: bool = True) -> ControlPlane:
    cp = ControlPlane(Options(kubelets=kubelets))
    if objs:
        cp.run_phase(docs(*objs))
    return cp


def pods(cp: ControlPlane, ns: str = "default") -> dict[str, dict]:
    return {p["metadata"]["name"]: p for p in cp.store.list("Pod", ns)}


def set_phase(cp: ControlPlane, pod: dict, phase: str, *, ready: bool | None = None) -> dict:
    """What a kubelet would write: the phase, and a Ready condition (True while Running)."""
    stamp = cp.clock.timestamp()
    status = dict(pod.get("status") or {}, phase=phase)
    ready = phase == "Running" if ready is None else ready
    conditions = [c for c in status.get("conditions") or () if c.get("type") != "Ready"]
    conditions.append({"type": "Ready", "status": "True" if ready else "False", "lastTransitionTime": stamp})
    status["conditions"] = conditions
    return cp.store.update_status(dict(pod, status=status))


def events(cp: ControlPlane, reason: str | None = None) -> list[dict]:
    out = sorted(cp.store.list("Event"), key=lambda e: int(e["metadata"]["resourceVersion"]))
    return [e for e in out if reason is None or e["reason"] == reason]
