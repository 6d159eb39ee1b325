"""Which pods a ReplicaSet deletes first when it scales down.

k8s: pkg/controller/controller_utils.go ActivePodsWithRanks.Less, logarithmicRankDiff,
     pkg/controller/replicaset/replica_set.go getPodsToDelete, getPodsRankedByRelatedPodsOnSameNode.
Features: PodDeletionCost (beta, on) and LogarithmicScaleDown (GA) as in v1.37.
"""
from __future__ import annotations

import math
from functools import cmp_to_key

from drasim.controllers.workloads.common import POD_DELETION_COST, is_pod_active, is_pod_ready, ready_condition
from drasim.sim.clock import parse_time

_PHASE_ORDINAL = {"Pending": 0, "Unknown": 1, "Running": 2}


def _deletion_cost(pod: dict) -> int:
    """k8s: GetDeletionCostFromPodAnnotations — an int32; anything else counts as 0 here
    (the API server rejects such annotations on pods)."""
    raw = (pod["metadata"].get("annotations") or {}).get(POD_DELETION_COST)
    try:
        value = int(raw) if raw is not None else 0
    except (TypeError, ValueError):
        return 0
    return value if -(2 ** 31) <= value < 2 ** 31 else 0


def _time(value) -> float | None:
    try:
        return parse_time(value) if value else None
    except (TypeError, ValueError):
        return None


def _log_rank(t: float, now: float) -> int:
    """k8s: logarithmicRankDiff's per-pod rank: floor(log2(age in ns)), -1 for no age."""
    d = (now - t) * 1e9
    return int(math.log2(d)) if d > 0 else -1


def _compare_time(t1: float | None, t2: float | None, uid1: str, uid2: str, now: float) -> int:
    """k8s: afterOrZero under LogarithmicScaleDown — a missing or more recent time first, in
    power-of-two age buckets, uid breaking ties within a bucket."""
    if t1 is None or t2 is None:
        if (t1 is None) != (t2 is None):
            return -1 if t1 is None else 1
        return 0
    diff = _log_rank(t1, now) - _log_rank(t2, now)
    if diff == 0:
        return -1 if uid1 < uid2 else (1 if uid1 > uid2 else 0)
    return -1 if diff < 0 else 1


def _max_restarts(pod: dict) -> int:
    return max((int(s.get("restartCount") or 0) for s in (pod.get("status") or {}).get("containerStatuses") or ()
                if isinstance(s, dict)), default=0)


def rank_for_deletion(pods: list[dict], related: list[dict], now: float) -> list[dict]:
    """Pods in the order a ReplicaSet deletes them (first = deleted first)."""
    on_node: dict[str, int] = {}
    for p in related:
        if is_pod_active(p):
            node = (p.get("spec") or {}).get("nodeName") or ""
            on_node[node] = on_node.get(node, 0) + 1
    rank = {id(p): on_node.get((p.get("spec") or {}).get("nodeName") or "", 0) for p in pods}

    def less(a: dict, b: dict) -> int:
        na, nb = (a.get("spec") or {}).get("nodeName") or "", (b.get("spec") or {}).get("nodeName") or ""
        if na != nb and (not na or not nb):               # 1. unassigned < assigned
            return -1 if not na else 1
        pa = _PHASE_ORDINAL.get((a.get("status") or {}).get("phase"), 0)
        pb = _PHASE_ORDINAL.get((b.get("status") or {}).get("phase"), 0)
        if pa != pb:                                       # 2. Pending < Unknown < Running
            return -1 if pa < pb else 1
        ra, rb = is_pod_ready(a), is_pod_ready(b)
        if ra != rb:                                       # 3. not ready < ready
            return -1 if not ra else 1
        ca, cb = _deletion_cost(a), _deletion_cost(b)
        if ca != cb:                                       # 4. lower pod-deletion-cost first
            return -1 if ca < cb else 1
        if rank[id(a)] != rank[id(b)]:                     # 5. doubled up < not doubled up
            return -1 if rank[id(a)] > rank[id(b)] else 1
        ua, ub = a["metadata"].get("uid") or "", b["metadata"].get("uid") or ""
        if ra and rb:                                      # 6. ready for less time first
            ta = _time(ready_condition(a).get("lastTransitionTime"))
            tb = _time(ready_condition(b).get("lastTransitionTime"))
            if ta != tb:
                c = _compare_time(ta, tb, ua, ub, now)
                if c:
                    return c
        xa, xb = _max_restarts(a), _max_restarts(b)
        if xa != xb:                                       # 7. more restarts first
            return -1 if xa > xb else 1
        ta, tb = _time(a["metadata"].get("creationTimestamp")), _time(b["metadata"].get("creationTimestamp"))
        if ta != tb:                                       # 8. newer first
            return _compare_time(ta, tb, ua, ub, now)
        return 0

    return sorted(pods, key=cmp_to_key(less))
