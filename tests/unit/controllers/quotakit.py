"""Shared builders for the quota tests: a quota, a phase document, a one-node control plane."""
from __future__ import annotations

from drasim.api import kinds
from drasim.api.loader import Document
from drasim.controlplane import ControlPlane, options_for


def quota(hard: dict, name: str = "q", **spec) -> dict:
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name, "namespace": "default"},
            "spec": {"hard": hard, **spec}}


def doc(obj: dict) -> Document:
    return Document(f"t/{obj['metadata']['name']}", kinds.lookup(obj["apiVersion"], obj["kind"]), obj)


def one_node_plane() -> ControlPlane:
    """No kubelets; one ready node with room for anything the tests create."""
    plane = ControlPlane(options_for(None, kubelets=False))
    plane.run_phase([doc({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
                          "status": {"allocatable": {"cpu": "100", "memory": "1Ti", "pods": "110"},
                                     "conditions": [{"type": "Ready", "status": "True"}]}})])
    return plane
