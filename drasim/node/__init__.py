"""Simulated kubelets and DRA drivers."""
