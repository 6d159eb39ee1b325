"""NodeAffinity: pod.spec.nodeSelector, required and preferred node affinity.

k8s: pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go

PreFilter compiles the pod's hard constraints once per cycle; if the required
terms pin `metadata.name`, the cycle is narrowed to those nodes. Filter matches
the compiled constraints. Score sums the weights of matching preferred terms;
NormalizeScore scales them to 0..100.
"""
from __future__ import annotations

from typing import ClassVar

from drasim.scheduler.framework import (
    SKIP,
    CycleState,
    NodeInfo,
    PreFilterResult,
    Status,
    error_status,
    unresolvable,
)
from drasim.api.nodeselector import (
    NodeSelector,
    PreferredSchedulingTerms,
    RequiredNodeAffinity,
    compile_node_selector,
    compile_preferred_terms,
    required_node_affinity,
)
from drasim.scheduler.plugins.names import NODE_AFFINITY
from drasim.scheduler.plugins.tainttoleration import default_normalize_score

__all__ = ["ERR_REASON_CONFLICT", "ERR_REASON_ENFORCED", "ERR_REASON_POD", "NodeAffinity"]

# k8s: node_affinity.go reasons, verbatim.
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"
_REJECTED_POD = unresolvable(ERR_REASON_POD)
_REJECTED_ENFORCED = unresolvable(ERR_REASON_ENFORCED)

_PRE_FILTER_KEY = "PreFilter" + NODE_AFFINITY
_PRE_SCORE_KEY = "PreScore" + NODE_AFFINITY
_NAME_FIELD = "metadata.name"


class NodeAffinity:
    """Hard and soft node constraints of a pod, plus optional profile-wide addedAffinity."""

    name: ClassVar[str] = NODE_AFFINITY

    def __init__(self, weight: int = 2, added_affinity: dict | None = None) -> None:
        """`added_affinity` is NodeAffinityArgs.addedAffinity (a v1.NodeAffinity), applied to every pod."""
        self.weight = weight
        self._added_selector: NodeSelector | None = None
        self._added_preferred: PreferredSchedulingTerms | None = None
        if added_affinity:
            required = added_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
            if required is not None:
                self._added_selector = compile_node_selector(required)
                if self._added_selector.parse_errors:
                    raise ValueError("parsing addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: "
                                     + "; ".join(self._added_selector.parse_errors))
            preferred = added_affinity.get("preferredDuringSchedulingIgnoredDuringExecution")
            if preferred:
                terms, errors = compile_preferred_terms(preferred)
                if errors:
                    raise ValueError("parsing addedAffinity.preferredDuringSchedulingIgnoredDuringExecution: "
                                     + "; ".join(errors))
                self._added_preferred = terms

    # -- filtering ---------------------------------------------------------

    def pre_filter(self, state: CycleState, pod: dict, nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        spec = pod.get("spec") or {}
        required = _required_terms(spec)
        if required is None and self._added_selector is None and spec.get("nodeSelector") is None:
            # k8s: nothing to check; the state is still written so that Filter
            # stays correct for a cycle that ignores Skip.
            state[_PRE_FILTER_KEY] = RequiredNodeAffinity()
            return None, SKIP
        state[_PRE_FILTER_KEY] = required_node_affinity(pod)
        terms = (required or {}).get("nodeSelectorTerms") or ()
        if not terms:
            return None, None
        names = _pinned_node_names(terms)
        if names is None:
            return None, None
        if not names:
            return None, unresolvable(ERR_REASON_CONFLICT)
        return PreFilterResult(names), None

    def filter(self, state: CycleState, pod: dict, node: NodeInfo) -> Status | None:
        if self._added_selector is not None and not self._added_selector.matches(node.node):
            return _REJECTED_ENFORCED
        required = state.get(_PRE_FILTER_KEY)
        if required is None:  # k8s: falls back to computing it when PreFilter did not run
            required = state[_PRE_FILTER_KEY] = required_node_affinity(pod)
        return None if required.matches(node.node) else _REJECTED_POD

    # -- scoring -----------------------------------------------------------

    def pre_score(self, state: CycleState, pod: dict, nodes: list[NodeInfo]) -> Status | None:
        preferred, errors = _pod_preferred_terms(pod)
        if errors:
            return error_status("; ".join(errors))
        state[_PRE_SCORE_KEY] = preferred
        if preferred is None and self._added_preferred is None:
            return SKIP  # k8s: NodeAffinity Score has nothing to do with the pod
        return None

    def score(self, state: CycleState, pod: dict, node: NodeInfo) -> int:
        if _PRE_SCORE_KEY in state:
            preferred = state[_PRE_SCORE_KEY]
        else:
            preferred, _ = _pod_preferred_terms(pod)
            state[_PRE_SCORE_KEY] = preferred
        total = 0
        if self._added_preferred is not None:
            total += self._added_preferred.score(node.node)
        if preferred is not None:
            total += preferred.score(node.node)
        return total

    def normalize(self, state: CycleState, pod: dict, scores: list[int]) -> None:
        default_normalize_score(scores, reverse=False)


def _required_terms(spec: dict) -> dict | None:
    affinity = (spec.get("affinity") or {}).get("nodeAffinity") or {}
    return affinity.get("requiredDuringSchedulingIgnoredDuringExecution")


def _pinned_node_names(terms: list[dict]) -> set[str] | None:
    """Node names the required terms allow, or None when some term allows any node.

    k8s: PreFilter. Within a term, `metadata.name In [...]` requirements are
    ANDed (intersection); terms are ORed (union). A term without such a
    requirement allows every node.
    """
    allowed: set[str] = set()
    for term in terms:
        term_names: set[str] | None = None
        for req in term.get("matchFields") or ():
            if req.get("key") == _NAME_FIELD and req.get("operator") == "In":
                values = set(req.get("values") or ())
                term_names = values if term_names is None else term_names & values
        if term_names is None:
            return None
        allowed |= term_names
    return allowed


def _pod_preferred_terms(pod: dict) -> tuple[PreferredSchedulingTerms | None, tuple[str, ...]]:
    affinity = ((pod.get("spec") or {}).get("affinity") or {}).get("nodeAffinity") or {}
    preferred = affinity.get("preferredDuringSchedulingIgnoredDuringExecution")
    if preferred is None:
        return None, ()
    return compile_preferred_terms(preferred)
