"""A Deployment's status from its ReplicaSets (pure functions of the objects and the clock).

k8s: pkg/controller/deployment/sync.go (calculateStatus), progress.go (syncRolloutStatus,
     getReplicaFailures). Zero counts are left out, as the API's omitempty does.
"""
from __future__ import annotations

from drasim.controllers.workloads import deploymentutil as du


def calculate_status(d: dict, all_rss: list, new: dict | None, clock) -> dict:
    """k8s: calculateStatus — counts from the ReplicaSets, the Available condition."""
    all_rss = [rs for rs in all_rss if rs is not None]
    available = du.total_status(all_rss, "availableReplicas")
    unavailable = max(du.total_replicas(all_rss) - available, 0)
    old = d.get("status") or {}
    status = {"observedGeneration": d["metadata"].get("generation", 1)}
    for key, value in (("replicas", du.total_status(all_rss, "replicas")),
                       ("updatedReplicas", du.rs_status(new, "replicas") if new else 0),
                       ("readyReplicas", du.total_status(all_rss, "readyReplicas")),
                       ("availableReplicas", available), ("unavailableReplicas", unavailable)):
        if value:
            status[key] = value
    if old.get("conditions"):
        status["conditions"] = [dict(c) for c in old["conditions"]]
    if old.get("collisionCount") is not None:
        status["collisionCount"] = old["collisionCount"]
    now = clock.timestamp()
    if available >= du.replicas(d) - du.max_unavailable(d):
        du.set_condition(status, du.new_condition("Available", "True", "MinimumReplicasAvailable",
                                                  "Deployment has minimum availability.", now))
    else:
        du.set_condition(status, du.new_condition("Available", "False", "MinimumReplicasUnavailable",
                                                  "Deployment does not have minimum availability.", now))
    return status


def rollout_status(d: dict, all_rss: list, new: dict | None, clock) -> dict:
    """k8s: syncRolloutStatus's new status — Progressing (complete, progressing, timed out) and
    ReplicaFailure promoted from the ReplicaSets (the new one's first)."""
    status = calculate_status(d, all_rss, new, clock)
    now = clock.timestamp()
    if not du.has_progress_deadline(d):
        du.remove_condition(status, "Progressing")
    current = du.condition(d.get("status") or {}, "Progressing")
    complete_before = status.get("replicas", 0) == status.get("updatedReplicas", 0) and current is not None \
        and current.get("reason") == "NewReplicaSetAvailable"
    if du.has_progress_deadline(d) and not complete_before:
        what = f'ReplicaSet "{new["metadata"]["name"]}"' if new is not None else f'Deployment "{d["metadata"]["name"]}"'
        if du.deployment_complete(d, status):
            du.set_condition(status, du.new_condition("Progressing", "True", "NewReplicaSetAvailable",
                                                      f"{what} has successfully progressed.", now))
        elif du.deployment_progressing(d, status):
            cond = du.new_condition("Progressing", "True", "ReplicaSetUpdated", f"{what} is progressing.", now)
            if current is not None:
                if current.get("status") == "True":
                    cond["lastTransitionTime"] = current.get("lastTransitionTime")
                du.remove_condition(status, "Progressing")
            du.set_condition(status, cond)
        elif du.deployment_timed_out(d, status, clock.now):
            du.set_condition(status, du.new_condition("Progressing", "False", "ProgressDeadlineExceeded",
                                                      f"{what} has timed out progressing.", now))
    failures = [c for rs in ([new] if new is not None else []) + [rs for rs in all_rss if rs is not None]
                for c in (rs.get("status") or {}).get("conditions") or () if c.get("type") == "ReplicaFailure"]
    if failures:
        c = failures[0]   # k8s: ReplicaSetToDeploymentCondition
        du.set_condition(status, {"type": "ReplicaFailure", "status": c.get("status"),
                                  "lastUpdateTime": c.get("lastTransitionTime"),
                                  "lastTransitionTime": c.get("lastTransitionTime"),
                                  "reason": c.get("reason"), "message": c.get("message")})
    else:
        du.remove_condition(status, "ReplicaFailure")
    return status
