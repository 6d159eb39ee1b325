"""PodTopologySpread: spread matching pods evenly over topology domains.

k8s: pkg/scheduler/framework/plugins/podtopologyspread/{plugin,common,filtering,scoring}.go

Filter (whenUnsatisfiable DoNotSchedule): PreFilter counts, per constraint and
topology value, the pods matching the constraint's selector in the pod's
namespace on every node that carries all the constraints' topology keys and
passes the constraint's node inclusion policies. A node is rejected when
`matching pods in its domain + (1 if the pod matches itself) - global minimum`
exceeds maxSkew; the global minimum is 0 while fewer domains than minDomains exist.

Score (ScheduleAnyway): fewer matching pods in a node's domains scores higher,
each constraint weighted by log(number of domains + 2).

System default constraints (defaultingType: System — hostname maxSkew 3 and zone
maxSkew 5, ScheduleAnyway) apply only to pods without constraints of their own
that a Service, ReplicationController, ReplicaSet or StatefulSet selects
(k8s: common.go buildDefaultConstraints, helper.DefaultSelector). drasim has none
of these kinds, so the default selector is always empty and defaults never apply:
pods without topologySpreadConstraints skip this plugin entirely.

Selectors: `labelSelector: {}` counts every pod of the namespace, as the API
documents (kubernetes/kubernetes#141340 fixed countPodsMatchSelector, which
counted none); a missing labelSelector counts none (labels.Nothing()).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from drasim.api.labelselector import LabelSelector, LabelSelectorError, compile_label_selector
from drasim.api.nodeselector import RequiredNodeAffinity, required_node_affinity
from drasim.scheduler.framework import (
    MAX_NODE_SCORE, SKIP, CycleState, NodeInfo, PreFilterResult, Status, error_status, unresolvable,
    unschedulable)
from drasim.scheduler.plugins.names import POD_TOPOLOGY_SPREAD
from drasim.scheduler.plugins.tainttoleration import tolerations_tolerate

__all__ = ["ERR_REASON_CONSTRAINTS_NOT_MATCH", "ERR_REASON_NODE_LABEL_NOT_MATCH", "PodTopologySpread"]

# k8s: plugin.go, verbatim.
ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"
_REJECTED = unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH)
_REJECTED_LABEL = unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH)

_PRE_FILTER_KEY = "PreFilter" + POD_TOPOLOGY_SPREAD
_PRE_SCORE_KEY = "PreScore" + POD_TOPOLOGY_SPREAD
_ALL_NODES_KEY = "AllNodes" + POD_TOPOLOGY_SPREAD
_HOSTNAME = "kubernetes.io/hostname"
_HONOR = "Honor"
# Score of a node lacking a topology key (k8s: scoring.go IgnoredNodes, invalidScore).
# Returned by score() itself, not only by normalize(), so the raw scores of ignored and
# scored nodes differ and normalization runs even when every scored node ties.
IGNORED_SCORE = -1


@dataclass(frozen=True, slots=True)
class _Constraint:
    """k8s: common.go topologySpreadConstraint (selector parsed, defaults applied)."""

    max_skew: int
    topology_key: str
    selector: LabelSelector
    min_domains: int
    honor_affinity: bool   # nodeAffinityPolicy, default Honor
    honor_taints: bool     # nodeTaintsPolicy, default Ignore


def _constraints(pod: dict, action: str) -> tuple[_Constraint, ...]:
    """k8s: common.go filterTopologySpreadConstraints: the pod's constraints with this whenUnsatisfiable.

    matchLabelKeys (GA) add `key In (pod's value)` for the keys the pod has; kube-apiserver
    may already have merged them into labelSelector, and merging again changes nothing.
    """
    labels = pod["metadata"].get("labels") or {}
    out = []
    for c in pod["spec"].get("topologySpreadConstraints") or ():
        if c.get("whenUnsatisfiable") != action:
            continue
        selector = compile_label_selector(c.get("labelSelector"))
        keys = c.get("matchLabelKeys")
        if keys:
            selector = selector.with_match_labels({k: labels[k] for k in keys if k in labels})
        min_domains = c.get("minDomains")
        out.append(_Constraint(int(c.get("maxSkew") or 0), c.get("topologyKey") or "", selector,
                               1 if min_domains is None else int(min_domains),
                               (c.get("nodeAffinityPolicy") or _HONOR) == _HONOR,
                               c.get("nodeTaintsPolicy") == _HONOR))
    return tuple(out)


def _node_labels(info: NodeInfo) -> dict:
    return info.node["metadata"].get("labels") or {}


def _has_all_keys(labels: dict, constraints: tuple[_Constraint, ...]) -> bool:
    """k8s: common.go nodeLabelsMatchSpreadConstraints."""
    for c in constraints:
        if c.topology_key not in labels:
            return False
    return True


def _count_matching(info: NodeInfo, selector: LabelSelector, namespace: str) -> int:
    """k8s: common.go countPodsMatchSelector — terminating pods and other namespaces are not counted."""
    if selector.nothing:
        return 0
    count = 0
    for p in info.pods.values():
        md = p["metadata"]
        if md.get("deletionTimestamp") or md.get("namespace") != namespace:
            continue
        if selector.matches(md.get("labels") or {}):
            count += 1
    return count


class _Inclusion:
    """Whether a node counts for a constraint. k8s: common.go matchNodeInclusionPolicies.

    NodeInclusionPolicyInPodTopologySpread is GA: nodeAffinityPolicy Honor counts only nodes
    matching the pod's nodeSelector and required node affinity; nodeTaintsPolicy Honor counts
    only nodes without an untolerated NoSchedule/NoExecute taint.
    """

    __slots__ = ("_affinity", "_tolerations", "_need_affinity", "_need_taints")

    def __init__(self, pod: dict, constraints: tuple[_Constraint, ...]) -> None:
        self._need_affinity = any(c.honor_affinity for c in constraints)
        self._need_taints = any(c.honor_taints for c in constraints)
        self._affinity: RequiredNodeAffinity | None = required_node_affinity(pod) if self._need_affinity else None
        self._tolerations = pod["spec"].get("tolerations") or ()

    def node(self, info: NodeInfo) -> tuple[bool, bool]:
        """(passes node affinity, passes taints) for this node."""
        affinity_ok = self._affinity.matches(info.node) if self._affinity is not None else True
        taints_ok = True
        if self._need_taints:
            for taint in (info.node.get("spec") or {}).get("taints") or ():
                if taint.get("effect") in ("NoSchedule", "NoExecute") and \
                        not tolerations_tolerate(self._tolerations, taint):  # type: ignore[arg-type]
                    taints_ok = False
                    break
        return affinity_ok, taints_ok


def _included(c: _Constraint, affinity_ok: bool, taints_ok: bool) -> bool:
    return (affinity_ok or not c.honor_affinity) and (taints_ok or not c.honor_taints)


@dataclass(slots=True)
class _PreFilterState:
    constraints: tuple[_Constraint, ...]
    counts: list[dict[str, int]]   # per constraint: topology value -> matching pods
    min_match: list[int]           # per constraint: the global minimum used for skew
    self_match: list[int]          # per constraint: 1 when the pod matches its own selector


_NO_CONSTRAINTS = _PreFilterState((), [], [], [])


@dataclass(slots=True)
class _PreScoreState:
    constraints: tuple[_Constraint, ...]
    ignored: set[str]              # filtered nodes lacking a topology key
    counts: list[dict[str, int]]   # per non-hostname constraint: value -> matching pods
    weights: list[float]           # per constraint: log(domains + 2)
    namespace: str


class PodTopologySpread:
    """Hard (Filter) and soft (Score) topology spread constraints of a pod."""

    name: ClassVar[str] = POD_TOPOLOGY_SPREAD

    def __init__(self, weight: int = 2) -> None:
        self.weight = weight

    def depends_on_other_pods(self, pod: dict) -> bool:
        """Filter and Score count pods on other nodes exactly when the pod has constraints."""
        return bool((pod.get("spec") or {}).get("topologySpreadConstraints"))

    # -- filtering ---------------------------------------------------------

    def pre_filter(self, state: CycleState, pod: dict, nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        if not pod["spec"].get("topologySpreadConstraints"):
            state[_PRE_FILTER_KEY] = _NO_CONSTRAINTS
            return None, SKIP
        state[_ALL_NODES_KEY] = nodes   # PreScore counts over all nodes, not only the feasible ones
        try:
            constraints = _constraints(pod, "DoNotSchedule")
        except LabelSelectorError as err:
            return None, error_status(f"get constraints from pod: obtaining pod's hard topology spread "
                                      f"constraints: {err}")
        if not constraints:
            state[_PRE_FILTER_KEY] = _NO_CONSTRAINTS
            return None, SKIP
        state[_PRE_FILTER_KEY] = _pre_filter_state(pod, constraints, nodes)
        return None, None

    def filter(self, state: CycleState, pod: dict, node: NodeInfo) -> Status | None:
        s = state.get(_PRE_FILTER_KEY)
        if s is None:
            return error_status(f'reading "{_PRE_FILTER_KEY}" from cycleState: not found')
        if not s.constraints:
            return None
        labels = _node_labels(node)
        for i, c in enumerate(s.constraints):
            value = labels.get(c.topology_key)
            if value is None:
                return _REJECTED_LABEL
            if s.counts[i].get(value, 0) + s.self_match[i] - s.min_match[i] > c.max_skew:
                return _REJECTED
        return None

    # -- scoring -----------------------------------------------------------

    def pre_score(self, state: CycleState, pod: dict, nodes: list[NodeInfo]) -> Status | None:
        if not pod["spec"].get("topologySpreadConstraints"):
            return SKIP
        all_nodes = state.get(_ALL_NODES_KEY) or nodes
        if not all_nodes:
            return SKIP
        try:
            constraints = _constraints(pod, "ScheduleAnyway")
        except LabelSelectorError as err:
            return error_status(f"calculating preScoreState: obtaining pod's soft topology spread "
                                f"constraints: {err}")
        if not constraints:
            return SKIP
        state[_PRE_SCORE_KEY] = _pre_score_state(pod, constraints, nodes, all_nodes)
        return None

    def score(self, state: CycleState, pod: dict, node: NodeInfo) -> int:
        s: _PreScoreState = state[_PRE_SCORE_KEY]
        if node.name in s.ignored:
            return IGNORED_SCORE
        labels = _node_labels(node)
        total = 0.0
        for i, c in enumerate(s.constraints):
            value = labels.get(c.topology_key)
            if value is None:
                continue
            if c.topology_key == _HOSTNAME:
                count = _count_matching(node, c.selector, s.namespace)
            else:
                count = s.counts[i].get(value, 0)
            # k8s: scoreForCount — maxSkew-1 waters down differences between domains.
            total += count * s.weights[i] + (c.max_skew - 1)
        return math.floor(total + 0.5)   # Go's math.Round (half away from zero; total >= 0)

    def normalize(self, state: CycleState, pod: dict, scores: list[int]) -> None:
        """k8s: NormalizeScore — fewest matching pods gets 100; ignored nodes get 0."""
        kept = [s for s in scores if s != IGNORED_SCORE]
        if not kept:
            scores[:] = [0] * len(scores)
            return
        low, high = min(kept), max(kept)
        for i, s in enumerate(scores):
            if s == IGNORED_SCORE:
                scores[i] = 0
            elif high == 0:
                scores[i] = MAX_NODE_SCORE
            else:
                scores[i] = MAX_NODE_SCORE * (high + low - s) // high


def _pre_filter_state(pod: dict, constraints: tuple[_Constraint, ...], nodes: list[NodeInfo]) -> _PreFilterState:
    """k8s: filtering.go calPreFilterState."""
    namespace = pod["metadata"].get("namespace") or ""
    inclusion = _Inclusion(pod, constraints)
    counts: list[dict[str, int]] = [{} for _ in constraints]
    for info in nodes:
        labels = _node_labels(info)
        if not _has_all_keys(labels, constraints):
            continue
        affinity_ok, taints_ok = inclusion.node(info)
        for i, c in enumerate(constraints):
            if not _included(c, affinity_ok, taints_ok):
                continue
            value = labels[c.topology_key]
            domain = counts[i]
            # A domain exists once an eligible node is in it, even with no matching pod.
            domain[value] = domain.get(value, 0) + _count_matching(info, c.selector, namespace)
    pod_labels = pod["metadata"].get("labels") or {}
    min_match = []
    for c, domain in zip(constraints, counts):
        # k8s: minMatchNum — with fewer eligible domains than minDomains the minimum is 0.
        min_match.append(0 if len(domain) < c.min_domains or not domain else min(domain.values()))
    self_match = [1 if c.selector.matches(pod_labels) else 0 for c in constraints]
    return _PreFilterState(constraints, counts, min_match, self_match)


def _pre_score_state(pod: dict, constraints: tuple[_Constraint, ...], filtered: list[NodeInfo],
                     all_nodes: list[NodeInfo]) -> _PreScoreState:
    """k8s: scoring.go initPreScoreState and PreScore.

    Domains are those of the feasible nodes; pods are counted on every node in such a
    domain. Hostname constraints are counted per node in Score.
    """
    namespace = pod["metadata"].get("namespace") or ""
    ignored: set[str] = set()
    counts: list[dict[str, int]] = [{} for _ in constraints]
    for info in filtered:
        labels = _node_labels(info)
        if not _has_all_keys(labels, constraints):
            ignored.add(info.name)
            continue
        for i, c in enumerate(constraints):
            if c.topology_key != _HOSTNAME:
                counts[i].setdefault(labels[c.topology_key], 0)
    weights = []
    for i, c in enumerate(constraints):
        size = len(filtered) - len(ignored) if c.topology_key == _HOSTNAME else len(counts[i])
        weights.append(math.log(size + 2))   # k8s: topologyNormalizingWeight
    inclusion = _Inclusion(pod, constraints)
    for info in all_nodes:
        labels = _node_labels(info)
        if not _has_all_keys(labels, constraints):
            continue
        affinity_ok, taints_ok = inclusion.node(info)
        for i, c in enumerate(constraints):
            if not _included(c, affinity_ok, taints_ok):
                continue
            domain = counts[i]
            value = labels[c.topology_key]
            if value in domain:
                domain[value] += _count_matching(info, c.selector, namespace)
    return _PreScoreState(constraints, ignored, counts, weights, namespace)
