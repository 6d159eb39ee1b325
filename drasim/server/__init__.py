"""Kubernetes-compatible HTTP API and /metrics over the store (not built yet: see docs/ARCHITECTURE.md)."""
__all__: list[str] = []
