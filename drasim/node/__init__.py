"""Simulated kubelets and their DRA drivers."""
from drasim.node.kubelet import Kubelets, cdi_id

__all__ = ["Kubelets", "cdi_id"]
