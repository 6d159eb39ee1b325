"""TaintToleration: node taints against pod tolerations.

k8s: pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go,
     staging/src/k8s.io/api/core/v1/toleration.go (ToleratesTaint),
     staging/src/k8s.io/component-helpers/scheduling/corev1/helpers.go (FindMatchingUntoleratedTaint),
     pkg/scheduler/framework/plugins/helper/normalize_score.go (DefaultNormalizeScore).

Filter: a NoSchedule or NoExecute taint that no toleration tolerates rejects
the node. Score: the number of PreferNoSchedule taints not tolerated by the
pod's PreferNoSchedule (or effect-less) tolerations; normalised in reverse, so
the node with the fewest such taints gets 100.
"""
from __future__ import annotations

import re
from typing import ClassVar

from drasim.scheduler.framework import MAX_NODE_SCORE, CycleState, NodeInfo, Status, unresolvable
from drasim.api.nodeselector import parse_go_int64
from drasim.scheduler.plugins.names import TAINT_TOLERATION

__all__ = [
    "ERR_REASON",
    "TaintToleration",
    "default_normalize_score",
    "tolerates_taint",
    "tolerations_tolerate",
]

# k8s (v1.37): the reason no longer names the taint (it is only logged), so all
# tainted nodes collapse into one "N node(s) had untolerated taint(s)" entry.
ERR_REASON = "node(s) had untolerated taint(s)"
_REJECTED = unresolvable(ERR_REASON)

_NO_SCHEDULE, _NO_EXECUTE, _PREFER_NO_SCHEDULE = "NoSchedule", "NoExecute", "PreferNoSchedule"
_PRE_SCORE_KEY = "PreScore" + TAINT_TOLERATION

# k8s: apimachinery validate/content IsDecimalInteger, checked before ParseInt
# for the Lt/Gt toleration operators: no leading zeros, no "+", no "-0".
_DECIMAL_INTEGER = re.compile(r"0|-?[1-9][0-9]*")


def _as_decimal_int(text: str) -> int | None:
    return parse_go_int64(text) if _DECIMAL_INTEGER.fullmatch(text) else None


def tolerates_taint(toleration: dict, taint: dict, enable_comparison_operators: bool = False) -> bool:
    """k8s: v1.Toleration.ToleratesTaint.

    Empty effect matches every effect; empty key matches every key; Exists
    matches any value, Equal (or no operator) the exact value. Lt/Gt compare
    integers (taint value < or > toleration value) and only under the
    TaintTolerationComparisonOperators gate, alpha and off in v1.37.
    """
    effect = toleration.get("effect")
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key")
    if key and key != taint.get("key"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Equal":
        return (toleration.get("value") or "") == (taint.get("value") or "")
    if operator == "Exists":
        return True
    if operator in ("Lt", "Gt") and enable_comparison_operators:
        bound = _as_decimal_int(toleration.get("value") or "")
        actual = _as_decimal_int(taint.get("value") or "")
        if bound is None or actual is None:
            return False
        return actual < bound if operator == "Lt" else actual > bound
    return False


def tolerations_tolerate(tolerations: list[dict], taint: dict, enable_comparison_operators: bool = False) -> bool:
    """k8s: TolerationsTolerateTaint: any toleration suffices."""
    for t in tolerations:
        if tolerates_taint(t, taint, enable_comparison_operators):
            return True
    return False


def default_normalize_score(scores: list[int], reverse: bool, max_priority: int = MAX_NODE_SCORE) -> None:
    """k8s: helper.DefaultNormalizeScore, in place (one score per node, in node order).

    Scale to 0..max by the highest score (integer division, as Go's int64);
    `reverse` flips the result. All zeros stay 0, or become max when reversed.
    """
    highest = max(scores, default=0)
    if highest == 0:
        if reverse:
            scores[:] = [max_priority] * len(scores)
        return
    for i, score in enumerate(scores):
        scaled = max_priority * score // highest
        scores[i] = max_priority - scaled if reverse else scaled


class TaintToleration:
    """Filter on hard taints, score on PreferNoSchedule taints."""

    name: ClassVar[str] = TAINT_TOLERATION

    def __init__(self, weight: int = 3, enable_comparison_operators: bool = False) -> None:
        self.weight = weight
        self.enable_comparison_operators = enable_comparison_operators

    def filter(self, state: CycleState, pod: dict, node: NodeInfo) -> Status | None:
        taints = (node.node.get("spec") or {}).get("taints")
        if not taints:
            return None
        tolerations = (pod.get("spec") or {}).get("tolerations") or ()
        cmp_ops = self.enable_comparison_operators
        for taint in taints:
            if taint.get("effect") not in (_NO_SCHEDULE, _NO_EXECUTE):
                continue
            if not tolerations_tolerate(tolerations, taint, cmp_ops):  # type: ignore[arg-type]
                return _REJECTED
        return None

    def pre_score(self, state: CycleState, pod: dict, nodes: list[NodeInfo]) -> Status | None:
        state[_PRE_SCORE_KEY] = _prefer_no_schedule_tolerations(pod)
        return None

    def score(self, state: CycleState, pod: dict, node: NodeInfo) -> int:
        tolerations = state.get(_PRE_SCORE_KEY)
        if tolerations is None:  # PreScore not run: compute here, as kube-scheduler's fallback would
            tolerations = state[_PRE_SCORE_KEY] = _prefer_no_schedule_tolerations(pod)
        count = 0
        for taint in (node.node.get("spec") or {}).get("taints") or ():
            if taint.get("effect") == _PREFER_NO_SCHEDULE and not tolerations_tolerate(
                    tolerations, taint, self.enable_comparison_operators):
                count += 1
        return count

    def normalize(self, state: CycleState, pod: dict, scores: list[int]) -> None:
        default_normalize_score(scores, reverse=True)



def _prefer_no_schedule_tolerations(pod: dict) -> list[dict]:
    """k8s: getAllTolerationPreferNoSchedule: effect PreferNoSchedule or empty (all effects)."""
    return [t for t in (pod.get("spec") or {}).get("tolerations") or ()
            if not t.get("effect") or t.get("effect") == _PREFER_NO_SCHEDULE]
