"""Prometheus metrics that v1.37 components keep for DRA, in one registry per simulation.

Names and labels follow the spec (extended-resources.md §10):
k8s: staging/src/k8s.io/dynamic-resource-allocation/resourceclaim/metrics/metrics.go,
     pkg/controller/resourceclaim/metrics/metrics.go, pkg/scheduler/metrics/metrics.go.
"""
from __future__ import annotations

from typing import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, disable_created_metrics, generate_latest
from prometheus_client.core import GaugeMetricFamily

# Go's client_golang exposes no *_created series; they would also make output differ per run.
disable_created_metrics()

EXTENDED_RESOURCE_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name"


class _ClaimsCollector:
    """dynamic_resource_allocation_resource_claims{allocated, admin_access, source}, computed from the store."""

    def __init__(self, list_claims: Callable[[], list[dict]]) -> None:
        self.list_claims = list_claims

    def describe(self):
        return []

    def collect(self):
        family = GaugeMetricFamily("dynamic_resource_allocation_resource_claims",
                                   "Number of ResourceClaims by allocation state, admin access and source",
                                   labels=["allocated", "admin_access", "source"])
        counts: dict[tuple[str, str, str], int] = {}
        for claim in self.list_claims():
            allocation = (claim.get("status") or {}).get("allocation")
            annotations = claim["metadata"].get("annotations") or {}
            if annotations.get(EXTENDED_RESOURCE_ANNOTATION) == "true":
                source = "extended_resource"
            elif POD_CLAIM_NAME_ANNOTATION in annotations:
                source = "resource_claim_template"
            else:
                source = ""
            admin = any((r.get("exactly") or {}).get("adminAccess")
                        for r in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ())
            key = ("true" if allocation else "false", "true" if admin else "false", source)
            counts[key] = counts.get(key, 0) + 1
        for key in sorted(counts):
            family.add_metric(list(key), counts[key])
        yield family


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.claim_creates = Counter(
            "dynamic_resource_allocation_resourceclaim_creates", "Number of ResourceClaim creation requests",
            ["status", "admin_access"], registry=self.registry)
        self.schedule_attempts = Counter(
            "scheduler_schedule_attempts", "Number of attempts to schedule pods, by the result",
            ["result", "profile"], registry=self.registry)
        self.pending_pods = Gauge(
            "scheduler_pending_pods", "Number of pending pods, by the queue type",
            ["queue"], registry=self.registry)
        self.evictions = Counter(
            "device_taint_eviction_controller_pod_deletions", "Number of pods deleted by the device taint eviction controller",
            registry=self.registry)

        self._children: dict[tuple, object] = {}

    def attempt(self, result: str, profile: str) -> None:
        """scheduler_schedule_attempts_total{result, profile} += 1 (children kept: labels() is slow)."""
        self._child(self.schedule_attempts, result, profile).inc()

    def claim_create(self, status: str, admin_access: str) -> None:
        """dynamic_resource_allocation_resourceclaim_creates_total{status, admin_access} += 1."""
        self._child(self.claim_creates, status, admin_access).inc()

    def _child(self, metric, *values: str):
        key = (id(metric), *values)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*values)
        return child

    def watch_claims(self, list_claims: Callable[[], list[dict]]) -> None:
        self.registry.register(_ClaimsCollector(list_claims))

    def exposition(self) -> str:
        return generate_latest(self.registry).decode()
