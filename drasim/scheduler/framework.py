"""The scheduling framework: statuses, cycle state, node info and plugin protocols.

k8s: staging/src/k8s.io/kube-scheduler/framework/interface.go,
     pkg/scheduler/framework/types.go, pkg/scheduler/framework/cycle_state.go

Plugins are plain classes; each extension point is a Protocol. A plugin
implements only the points it needs. `None` as a Status means Success, as nil
does in Go, which keeps the per-node loop free of allocations.
"""
from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Protocol, runtime_checkable

from drasim.scheduler.resources import Resources, requests_memo


class Code(enum.IntEnum):
    """Same members, same order as kube-scheduler's Code."""

    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5
    PENDING = 6


@dataclass(frozen=True, slots=True)
class Status:
    code: Code
    reasons: tuple[str, ...] = ()
    plugin: str = ""

    @property
    def rejected(self) -> bool:
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING)

    @property
    def is_skip(self) -> bool:
        return self.code == Code.SKIP

    def message(self) -> str:
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> "Status":
        return self if self.plugin == plugin else replace(self, plugin=plugin)


def unschedulable(*reasons: str) -> Status:
    return Status(Code.UNSCHEDULABLE, reasons)


def unresolvable(*reasons: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reasons)


def error_status(message: str) -> Status:
    return Status(Code.ERROR, (message,))


SKIP = Status(Code.SKIP)


class CycleState(dict):
    """Per-cycle key → value store; keys are built from plugin names."""


@dataclass(slots=True)
class PreFilterResult:
    """Nodes a PreFilter plugin restricts the cycle to (None means all nodes)."""

    node_names: set[str] | None = None


@dataclass(slots=True, eq=False)
class NodeInfo:
    """A node and what is already placed on it (pods bound or assumed).

    k8s: pkg/scheduler/framework/types.go NodeInfo. `requested` sums the pod
    requests (non-zero defaults are not used for fit: kube-scheduler's Fit
    plugin compares against actual requests).
    """

    node: dict
    pods: dict[str, dict] = field(default_factory=dict)  # uid -> pod
    requested: Resources = field(default_factory=Resources)
    generation: int = 0
    name: str = ""     # the node's name (fixed for the life of the NodeInfo)
    position: int = 0  # index in the scheduler's node order (SchedulerCache.nodes())
    advertised: frozenset = frozenset()   # DRA-extended names its allocatable lists
    # k8s: NodeInfo.PodsWithAffinity — uid -> pod, for pods with pod (anti-)affinity terms
    with_affinity: dict[str, dict] = field(default_factory=dict)
    # k8s: NodeInfo.NonZeroRequested (scoring's defaults for missing requests), kept per pod
    # added or removed, not summed again over all pods when the node changes.
    non_zero_cpu: int = 0
    non_zero_memory: int = 0

    def __post_init__(self) -> None:
        self.name = self.node["metadata"]["name"]

    def add_pod(self, pod: dict) -> None:
        uid = pod["metadata"]["uid"]
        if uid in self.pods:
            return
        self.pods[uid] = pod
        if has_pod_affinity(pod):
            self.with_affinity[uid] = pod
        # Summed in place (nothing keeps a node's `requested` across a change: readers take it
        # within one Filter or Score call), from the shared memo: no vector copied per pod.
        adds, (cpu, memory) = requests_memo(pod)
        requested = self.requested
        for name, amount in adds.items():
            requested[name] = requested.get(name, 0) + amount
        self.non_zero_cpu += cpu
        self.non_zero_memory += memory
        self.generation += 1

    def remove_pod(self, pod: dict) -> None:
        uid = pod["metadata"]["uid"]
        old = self.pods.pop(uid, None)
        if old is not None:
            self.with_affinity.pop(uid, None)
            subs, (cpu, memory) = requests_memo(old)
            requested = self.requested
            for name, amount in subs.items():
                requested[name] = requested.get(name, 0) - amount
            self.non_zero_cpu -= cpu
            self.non_zero_memory -= memory
            self.generation += 1

    def refresh_pod(self, pod: dict) -> None:
        """A newer object of a pod already here (labels or status changed; requests and
        affinity are immutable), without a generation bump."""
        uid = pod["metadata"]["uid"]
        self.pods[uid] = pod
        if uid in self.with_affinity:
            self.with_affinity[uid] = pod


def has_pod_affinity(pod: dict) -> bool:
    affinity = (pod.get("spec") or {}).get("affinity")
    return bool(affinity and (affinity.get("podAffinity") or affinity.get("podAntiAffinity")))


@runtime_checkable
class PreEnqueuePlugin(Protocol):
    name: ClassVar[str]

    def pre_enqueue(self, pod: dict) -> Status | None: ...


@runtime_checkable
class PreFilterPlugin(Protocol):
    name: ClassVar[str]

    def pre_filter(self, state: CycleState, pod: dict, nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]: ...


@runtime_checkable
class FilterPlugin(Protocol):
    name: ClassVar[str]

    def filter(self, state: CycleState, pod: dict, node: NodeInfo) -> Status | None: ...


@runtime_checkable
class PostFilterPlugin(Protocol):
    name: ClassVar[str]

    def post_filter(self, state: CycleState, pod: dict, diagnosis: "Diagnosis") -> Status | None: ...


@runtime_checkable
class ScorePlugin(Protocol):
    """score() returns 0..100 per node; normalize() (optional) rescales in place."""

    name: ClassVar[str]
    weight: int

    def score(self, state: CycleState, pod: dict, node: NodeInfo) -> int: ...


@runtime_checkable
class ReservePlugin(Protocol):
    name: ClassVar[str]

    def reserve(self, state: CycleState, pod: dict, node_name: str) -> Status | None: ...

    def unreserve(self, state: CycleState, pod: dict, node_name: str) -> None: ...


@runtime_checkable
class PreBindPlugin(Protocol):
    name: ClassVar[str]

    def pre_bind(self, state: CycleState, pod: dict, node_name: str) -> Status | None: ...


MAX_NODE_SCORE = 100


@dataclass(slots=True)
class Diagnosis:
    """Why a pod did not fit. k8s: pkg/scheduler/framework/types.go Diagnosis."""

    node_to_status: dict[str, Status] = field(default_factory=dict)
    absent_status: Status | None = None
    pre_filter_msg: str = ""
    post_filter_msg: str = ""
    unschedulable_plugins: set[str] = field(default_factory=set)
    narrowed_by: set[str] = field(default_factory=set)   # PreFilter plugins that named the nodes left


def narrowed_message(d: Diagnosis) -> str:
    """The status of the nodes PreFilter results left out. k8s: schedule_one.go findNodesThatFitPod,
    `node(s) didn't satisfy plugin(s) %v` of the plugins that narrowed the nodes (sets.List: sorted)."""
    return f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(d.narrowed_by))}]"


def fit_error_message(num_nodes: int, d: Diagnosis) -> str:
    """k8s: pkg/scheduler/framework/types.go, FitError.Error().

    "0/3 nodes are available: 1 Insufficient cpu, 2 cannot allocate all claims."
    Reasons are counted across nodes, rendered "<count> <reason>", sorted as
    strings (so "10 x" sorts before "2 y", as in Go) and joined with ", ".
    """
    msg = f"0/{num_nodes} nodes are available:"
    if d.pre_filter_msg:
        msg += f" {d.pre_filter_msg}."
    else:
        counts: Counter[str] = Counter()
        for status in d.node_to_status.values():
            for r in status.reasons:
                counts[r] += 1
        absent = num_nodes - len(d.node_to_status)
        if absent > 0 and d.absent_status is not None:
            for r in d.absent_status.reasons:
                counts[r] += absent
        if counts:
            msg += " " + ", ".join(sorted(f"{n} {r}" for r, n in counts.items())) + "."
    if d.post_filter_msg:
        msg += f" {d.post_filter_msg}"
    return msg


# The SignatureIndex of this cycle's pod (see scheduler/filtercache.py), or None.
# Plugins read what they stashed with a verdict through verdict_extra.
VERDICTS_KEY = "drasim/verdicts"


def verdict_extra(state: CycleState, node: NodeInfo, plugin: str) -> Any:
    """What `plugin` stashed with its positive verdict on a node found feasible in this cycle.

    Valid for the feasible nodes of the current cycle only (the scheduler evaluated
    or validated them while filtering; the node has changed since, when the pod was assumed).
    """
    index = state.get(VERDICTS_KEY)
    return index.extra(node.position, plugin) if index is not None else None


def get_state(state: CycleState, key: str) -> Any:
    try:
        return state[key]
    except KeyError:
        from drasim.errors import InternalError

        raise InternalError(f"reading {key!r} from cycle state: not found") from None
