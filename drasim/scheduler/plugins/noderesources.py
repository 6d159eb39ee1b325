"""NodeResourcesFit and NodeResourcesBalancedAllocation.

k8s: pkg/scheduler/framework/plugins/noderesources/{fit.go, resource_allocation.go,
     least_allocated.go, balanced_allocation.go}, pkg/scheduler/util/pod_resources.go,
     staging/src/k8s.io/component-helpers/scheduling/corev1/resource_names.go.
Spec: extended-resources.md §3.1-§3.5 (DRA-backed extended resources, KEP-5004).

Fit filters on the pod's effective requests (PodRequests) against allocatable
minus what pods on the node already request. A DRA-extended name that the node
does not advertise (absent or 0) is left to DynamicResources when a DeviceClass
maps it; otherwise it is "Insufficient <name>" like any other resource.

Fit scores with LeastAllocated over cpu and memory (weight 1 each), using the
non-zero request defaults (100m cpu, 200Mi memory for a container that does not
request them) both for the pod and for the pods already on the node.
BalancedAllocation scores how evenly cpu and memory would be used, with actual
requests, and skips best-effort pods.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, ClassVar, Iterable

from drasim.api.extendedresource import is_dra_extended_resource_name, is_extended_resource_name
from drasim.api.podresources import CPU, MEMORY, PODS, resource_list
from drasim.scheduler.framework import SKIP, Code, CycleState, NodeInfo, Status
from drasim.scheduler.plugins.names import NODE_RESOURCES_BALANCED_ALLOCATION, NODE_RESOURCES_FIT
from drasim.scheduler.resources import (DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST, non_zero_requests,
                                       pod_requests)

__all__ = [
    "BalancedAllocation",
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_MILLI_CPU_REQUEST",
    "Fit",
    "is_scalar_resource_name",
    "non_zero_requests",
]

EPHEMERAL_STORAGE = "ephemeral-storage"

# k8s: fit.go reasons, verbatim; other resources read "Insufficient <name>".
REASON_TOO_MANY_PODS = "Too many pods"
REASON_INSUFFICIENT_CPU = "Insufficient cpu"
REASON_INSUFFICIENT_MEMORY = "Insufficient memory"
REASON_INSUFFICIENT_EPHEMERAL_STORAGE = "Insufficient ephemeral-storage"

_PRE_FILTER_KEY = "PreFilter" + NODE_RESOURCES_FIT
_PRE_SCORE_KEY = "PreScore" + NODE_RESOURCES_FIT
_BALANCED_PRE_SCORE_KEY = "PreScore" + NODE_RESOURCES_BALANCED_ALLOCATION
_MAX_SCORE = 100

# --- resource names (k8s: pkg/scheduler/util/utils.go) ----------------------------

def is_scalar_resource_name(name: str) -> bool:
    """k8s: schedutil.IsScalarResourceName: extended, hugepages, prefixed native, attachable volumes."""
    return (is_extended_resource_name(name) or name.startswith("hugepages-")
            or "kubernetes.io/" in name or name.startswith("attachable-volumes-"))


# --- per-node facts, cached across cycles -----------------------------------------

@dataclass(slots=True)
class _Allocatable:
    node: dict                     # the node object these values were parsed from
    values: dict[str, int]
    cpu: int
    memory: int
    ephemeral: int
    pods: int


class _NodeFacts:
    """Parsed allocatable per node object; the non-zero request sums NodeInfo keeps."""

    __slots__ = ("_alloc",)

    def __init__(self) -> None:
        self._alloc: dict[str, _Allocatable] = {}

    def allocatable(self, info: NodeInfo) -> _Allocatable:
        node = info.node
        entry = self._alloc.get(info.name)
        if entry is None or entry.node is not node:
            status = node.get("status") or {}
            values = resource_list(status.get("allocatable"))  # k8s: NodeInfo uses Allocatable only
            entry = _Allocatable(node, values, values.get(CPU, 0), values.get(MEMORY, 0),
                                 values.get(EPHEMERAL_STORAGE, 0), values.get(PODS, 0))
            self._alloc[info.name] = entry
        return entry

    @staticmethod
    def non_zero_requested(info: NodeInfo) -> tuple[int, int]:
        """k8s: NodeInfo.NonZeroRequested, kept by NodeInfo as pods come and go."""
        return info.non_zero_cpu, info.non_zero_memory


# --- NodeResourcesFit -------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Scalar:
    name: str
    quantity: int
    delegable: bool      # DRA-extended and mapped to a DeviceClass: DRA serves it where the node does not
    reason: str


@dataclass(frozen=True, slots=True)
class _FitRequest:
    """The pod's requests, computed once per cycle (k8s: preFilterState)."""

    cpu: int
    memory: int
    ephemeral: int
    scalars: tuple[_Scalar, ...]

    @property
    def is_empty(self) -> bool:
        return not (self.cpu or self.memory or self.ephemeral or self.scalars)


def _least_requested(requested: int, capacity: int) -> int:
    """k8s: least_allocated.go leastRequestedScore."""
    if capacity == 0 or requested > capacity:
        return 0
    return (capacity - requested) * _MAX_SCORE // capacity


class Fit:
    """Filters on resources; scores with LeastAllocated (cpu, memory; weight 1 each)."""

    name: ClassVar[str] = NODE_RESOURCES_FIT

    def __init__(self, resolves_to_class: Callable[[str], bool], *, weight: int = 1,
                 ignored_resources: Iterable[str] = (), ignored_resource_groups: Iterable[str] = ()) -> None:
        """`resolves_to_class(name)`: does a DeviceClass map this extended resource name (spec §2)?

        `ignored_resources` / `ignored_resource_groups` are NodeResourcesFitArgs'
        ignoredResources / ignoredResourceGroups (extended resources Fit skips).
        """
        self.weight = weight
        self._resolves_to_class = resolves_to_class
        self._ignored = frozenset(ignored_resources)
        self._ignored_groups = frozenset(ignored_resource_groups)
        self._facts = _NodeFacts()

    def pre_filter(self, state: CycleState, pod: dict, nodes: list[NodeInfo]) -> tuple[None, None]:
        state[_PRE_FILTER_KEY] = self._compute_request(pod)
        return None, None

    def _compute_request(self, pod: dict) -> _FitRequest:
        reqs = pod_requests(pod)
        scalars = []
        for name in sorted(reqs):  # k8s iterates a map; sorted keeps reasons deterministic
            quantity = reqs[name]
            if quantity == 0 or name in (CPU, MEMORY, EPHEMERAL_STORAGE, PODS) or not is_scalar_resource_name(name):
                continue
            if is_extended_resource_name(name) and (
                    name in self._ignored or name.split("/", 1)[0] in self._ignored_groups):
                continue
            # The class mapping does not depend on the node: ask once per cycle.
            delegable = is_dra_extended_resource_name(name) and self._resolves_to_class(name)
            scalars.append(_Scalar(name, quantity, delegable, f"Insufficient {name}"))
        return _FitRequest(reqs.get(CPU, 0), reqs.get(MEMORY, 0), reqs.get(EPHEMERAL_STORAGE, 0), tuple(scalars))

    def filter(self, state: CycleState, pod: dict, node: NodeInfo) -> Status | None:
        req = state.get(_PRE_FILTER_KEY)
        if req is None:
            req = state[_PRE_FILTER_KEY] = self._compute_request(pod)
        alloc = self._facts.allocatable(node)
        reasons: list[str] = []
        unresolvable = False
        if len(node.pods) + 1 > alloc.pods:
            reasons.append(REASON_TOO_MANY_PODS)  # never unresolvable: preemption frees a slot
        if not req.is_empty:
            used = node.requested
            # k8s: fitsRequest. Unresolvable when the pod exceeds the node's whole allocatable.
            for quantity, capacity, resource, reason in (
                    (req.cpu, alloc.cpu, CPU, REASON_INSUFFICIENT_CPU),
                    (req.memory, alloc.memory, MEMORY, REASON_INSUFFICIENT_MEMORY),
                    (req.ephemeral, alloc.ephemeral, EPHEMERAL_STORAGE, REASON_INSUFFICIENT_EPHEMERAL_STORAGE)):
                if quantity > 0 and quantity > capacity - used.get(resource, 0):
                    reasons.append(reason)
                    unresolvable = unresolvable or quantity > capacity
            for s in req.scalars:
                capacity = alloc.values.get(s.name, 0)
                if s.delegable and capacity <= 0:
                    continue  # spec §3.1: DRA path; DynamicResources allocates it on this node
                if s.quantity > capacity - used.get(s.name, 0):
                    reasons.append(s.reason)
                    unresolvable = unresolvable or s.quantity > capacity
        if not reasons:
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable else Code.UNSCHEDULABLE, tuple(reasons))

    def pre_score(self, state: CycleState, pod: dict, nodes: list[NodeInfo]) -> Status | None:
        state[_PRE_SCORE_KEY] = non_zero_requests(pod)
        return None

    def score(self, state: CycleState, pod: dict, node: NodeInfo) -> int:
        pod_cpu, pod_mem = state.get(_PRE_SCORE_KEY) or self._pre_scored(state, pod)
        alloc = self._facts.allocatable(node)
        node_cpu, node_mem = self._facts.non_zero_requested(node)
        # k8s: leastResourceScorer; a resource the node has none of is left out of the mean.
        total = weights = 0
        if alloc.cpu:
            total, weights = total + _least_requested(node_cpu + pod_cpu, alloc.cpu), weights + 1
        if alloc.memory:
            total, weights = total + _least_requested(node_mem + pod_mem, alloc.memory), weights + 1
        return total // weights if weights else 0

    def _pre_scored(self, state: CycleState, pod: dict) -> tuple[int, int]:
        """PreScore did not run: compute here, as kube-scheduler's Score falls back to."""
        value = state[_PRE_SCORE_KEY] = non_zero_requests(pod)
        return value


# --- NodeResourcesBalancedAllocation ----------------------------------------------

class BalancedAllocation:
    """Favours nodes whose cpu and memory fractions stay close. k8s: balanced_allocation.go."""

    name: ClassVar[str] = NODE_RESOURCES_BALANCED_ALLOCATION

    def __init__(self, weight: int = 1) -> None:
        self.weight = weight
        self._facts = _NodeFacts()

    def pre_score(self, state: CycleState, pod: dict, nodes: list[NodeInfo]) -> Status | None:
        reqs = pod_requests(pod)
        cpu, mem = reqs.get(CPU, 0), reqs.get(MEMORY, 0)
        state[_BALANCED_PRE_SCORE_KEY] = (cpu, mem)
        if cpu == 0 and mem == 0:
            # k8s: skipped for best-effort pods, or they would all pile onto one node (#129138).
            return SKIP
        return None

    def score(self, state: CycleState, pod: dict, node: NodeInfo) -> int:
        if _BALANCED_PRE_SCORE_KEY not in state:
            self.pre_score(state, pod, [])
        pod_cpu, pod_mem = state[_BALANCED_PRE_SCORE_KEY]
        if pod_cpu == 0 and pod_mem == 0:
            return 0
        alloc = self._facts.allocatable(node)
        used = node.requested  # k8s: useRequested=true, actual requests without defaults
        fractions = [min(1.0, (used.get(r, 0) + p) / a)
                     for r, p, a in ((CPU, pod_cpu, alloc.cpu), (MEMORY, pod_mem, alloc.memory)) if a]
        std = abs(fractions[0] - fractions[1]) / 2 if len(fractions) == 2 else 0.0
        return int((1 - std) * _MAX_SCORE)  # Go int64(float) truncates, as int() does

