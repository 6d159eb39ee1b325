"""Tiny builders for the default-plugin tests: nodes, pods, NodeInfo, a filter runner."""
from __future__ import annotations

import itertools

from drasim.scheduler.framework import CycleState, Diagnosis, NodeInfo

_uids = itertools.count()


def node(name="node-1", labels=None, taints=None, unschedulable=False, allocatable=None):
    alloc = {"cpu": "4", "memory": "8Gi", "pods": "110", "ephemeral-storage": "100Gi"}
    alloc.update(allocatable or {})
    spec = {}
    if taints is not None:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    return {"metadata": {"name": name, "labels": dict(labels or {})}, "spec": spec,
            "status": {"allocatable": alloc, "capacity": dict(alloc)}}


def container(name="c", ports=None, sidecar=False, **requests):
    out = {"name": name, "resources": {"requests": {k.replace("_", "-"): v for k, v in requests.items()}}}
    if ports:
        out["ports"] = ports
    if sidecar:
        out["restartPolicy"] = "Always"
    return out


def pod(name="p", containers=None, inits=None, node_name=None, node_selector=None, affinity=None,
        tolerations=None, overhead=None, pod_requests=None):
    spec = {"containers": containers if containers is not None else [container()]}
    if inits:
        spec["initContainers"] = inits
    if node_name:
        spec["nodeName"] = node_name
    if node_selector is not None:
        spec["nodeSelector"] = node_selector
    if affinity is not None:
        spec["affinity"] = {"nodeAffinity": affinity}
    if tolerations is not None:
        spec["tolerations"] = tolerations
    if overhead:
        spec["overhead"] = overhead
    if pod_requests:
        spec["resources"] = {"requests": pod_requests}
    return {"metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}-{next(_uids)}"}, "spec": spec}


def info(n: dict, *pods: dict) -> NodeInfo:
    ni = NodeInfo(n)
    for p in pods:
        ni.add_pod(p)
    return ni


def term(*exprs, fields=()):
    return {"matchExpressions": list(exprs), "matchFields": list(fields)}


def expr(key, op, *values):
    out = {"key": key, "operator": op}
    if values:
        out["values"] = list(values)
    return out


def run_filters(plugins, p: dict, nodes: list[NodeInfo]) -> Diagnosis:
    """PreFilter then Filter per node, first rejection wins (k8s RunFilterPlugins order)."""
    state = CycleState()
    for pl in plugins:
        if hasattr(pl, "pre_filter"):
            pl.pre_filter(state, p, nodes)
    d = Diagnosis()
    for n in nodes:
        for pl in plugins:
            status = pl.filter(state, p, n)
            if status is not None:
                d.node_to_status[n.name] = status.with_plugin(pl.name)
                break
    return d


def run_scores(plugin, p: dict, nodes: list[NodeInfo]) -> list[int] | None:
    """PreScore, Score, NormalizeScore; None when PreScore skips the plugin."""
    state = CycleState()
    status = plugin.pre_score(state, p, nodes) if hasattr(plugin, "pre_score") else None
    if status is not None and status.is_skip:
        return None
    scores = [plugin.score(state, p, n) for n in nodes]
    if hasattr(plugin, "normalize"):
        plugin.normalize(state, p, scores)
    return scores
