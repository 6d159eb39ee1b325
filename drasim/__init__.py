"""drasim: a simulated Kubernetes v1.37 control plane for Dynamic Resource Allocation."""

__version__ = "0.1.0"
