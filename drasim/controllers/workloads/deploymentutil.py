"""Deployment arithmetic: template hash, maxSurge/maxUnavailable, revisions, proportions, progress.

k8s: pkg/controller/deployment/util/deployment_util.go (ResolveFenceposts, MaxSurge, MaxUnavailable,
     NewRSNewReplicas, IsSaturated, FindNewReplicaSet, FindOldReplicaSets, EqualIgnoreHash,
     SetNewReplicaSetAnnotations, GetProportion, DeploymentComplete, DeploymentProgressing,
     DeploymentTimedOut, SetDeploymentCondition), pkg/controller/controller_utils.go (ComputeHash),
     staging/src/k8s.io/apimachinery/pkg/util/intstr (GetScaledValueFromIntOrPercent),
     staging/src/k8s.io/apimachinery/pkg/util/rand (SafeEncodeString).

The pod-template-hash: Kubernetes hashes a spew dump of the Go object with FNV-32a (plus the
collisionCount, little-endian) and renders the decimal sum with SafeEncodeString. A Go object
dump cannot be reproduced from JSON, so drasim hashes the template's canonical JSON (sorted
keys, no spaces) the same way: the names differ from a real cluster's, but are as stable
(same template, same name) and have the same shape.
"""
from __future__ import annotations

import json
import math

from drasim.controllers.workloads.history import safe_encode
from drasim.sim.clock import parse_time

REVISION = "deployment.kubernetes.io/revision"
REVISION_HISTORY = "deployment.kubernetes.io/revision-history"
DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS = "deployment.kubernetes.io/max-replicas"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
HASH_LABEL = "pod-template-hash"   # apps.DefaultDeploymentUniqueLabelKey
_SKIPPED_ANNOTATIONS = frozenset({LAST_APPLIED, REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS,
                                  "deprecated.deployment.rollback.to"})
MAX_REV_HISTORY_CHARS = 2000


def fnv32a(data: bytes) -> int:
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def compute_hash(template: dict, collision_count: int | None) -> str:
    """k8s: controller.ComputeHash (see the module docstring for the one difference)."""
    data = json.dumps(template, sort_keys=True, separators=(",", ":")).encode()
    if collision_count is not None:
        data += int(collision_count & 0xFFFFFFFF).to_bytes(4, "little")
    return safe_encode(str(fnv32a(data)))


# -- intstr ------------------------------------------------------------------------------------------

def scaled_value(value, total: int, round_up: bool) -> int:
    """k8s: intstr.GetScaledValueFromIntOrPercent (validation guarantees the form)."""
    if isinstance(value, str) and value.endswith("%"):
        pct = int(value[:-1])
        exact = pct * total / 100
        return math.ceil(exact) if round_up else math.floor(exact)
    return int(value)


def resolve_fenceposts(max_surge, max_unavailable, desired: int) -> tuple[int, int]:
    """k8s: ResolveFenceposts — surge rounds up, unavailable down; both 0 makes unavailable 1."""
    surge = scaled_value(0 if max_surge is None else max_surge, desired, True)
    unavailable = scaled_value(0 if max_unavailable is None else max_unavailable, desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def replicas(obj: dict) -> int:
    return int((obj.get("spec") or {}).get("replicas", 1))


def is_rolling(d: dict) -> bool:
    return ((d["spec"].get("strategy") or {}).get("type")) == "RollingUpdate"


def _rolling(d: dict) -> dict:
    return (d["spec"].get("strategy") or {}).get("rollingUpdate") or {}


def max_surge(d: dict) -> int:
    if not is_rolling(d):
        return 0
    return resolve_fenceposts(_rolling(d).get("maxSurge"), _rolling(d).get("maxUnavailable"), replicas(d))[0]


def max_unavailable(d: dict) -> int:
    if not is_rolling(d) or replicas(d) == 0:
        return 0
    unavailable = resolve_fenceposts(_rolling(d).get("maxSurge"), _rolling(d).get("maxUnavailable"), replicas(d))[1]
    return min(unavailable, replicas(d))


def rs_status(rs: dict | None, key: str) -> int:
    return int(((rs or {}).get("status") or {}).get(key) or 0)


def total_replicas(rss: list) -> int:
    return sum(replicas(rs) for rs in rss if rs is not None)


def total_status(rss: list, key: str) -> int:
    return sum(rs_status(rs, key) for rs in rss if rs is not None)


def new_rs_new_replicas(d: dict, all_rss: list, new_rs: dict) -> int:
    """k8s: NewRSNewReplicas."""
    if is_rolling(d):
        surge = scaled_value(_rolling(d).get("maxSurge", 0), replicas(d), True)
        current = total_replicas(all_rss)
        max_total = replicas(d) + surge
        if current >= max_total:
            return replicas(new_rs)
        return replicas(new_rs) + min(max_total - current, replicas(d) - replicas(new_rs))
    return replicas(d)


def is_saturated(d: dict, rs: dict | None) -> bool:
    """k8s: IsSaturated."""
    if rs is None:
        return False
    try:
        desired = int((rs["metadata"].get("annotations") or {}).get(DESIRED_REPLICAS, ""))
    except ValueError:
        return False
    return replicas(rs) == replicas(d) and desired == replicas(d) and rs_status(rs, "availableReplicas") == replicas(d)


# -- new and old ReplicaSets -----------------------------------------------------------------------

def _pruned(value):
    """Semantic equality treats empty and absent maps and lists alike."""
    if isinstance(value, dict):
        out = {k: _pruned(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in ({}, [], None)}
    if isinstance(value, list):
        return [_pruned(v) for v in value]
    return value


def template_without_hash(template: dict) -> dict:
    t = dict(template or {})
    md = dict(t.get("metadata") or {})
    labels = {k: v for k, v in (md.get("labels") or {}).items() if k != HASH_LABEL}
    md["labels"] = labels
    t["metadata"] = md
    return _pruned(t)


def equal_ignore_hash(t1: dict, t2: dict) -> bool:
    """k8s: EqualIgnoreHash."""
    return template_without_hash(t1) == template_without_hash(t2)


def by_creation(rss: list[dict]) -> list[dict]:
    """k8s: ReplicaSetsByCreationTimestamp (name breaks ties)."""
    return sorted(rss, key=lambda rs: (rs["metadata"].get("creationTimestamp") or "", rs["metadata"]["name"]))


def find_new_rs(d: dict, rss: list[dict]) -> dict | None:
    """The oldest ReplicaSet whose template equals the Deployment's (k8s: FindNewReplicaSet)."""
    wanted = template_without_hash(d["spec"].get("template") or {})
    for rs in by_creation(rss):
        if template_without_hash(rs["spec"].get("template") or {}) == wanted:
            return rs
    return None


def find_old_rss(d: dict, rss: list[dict]) -> list[dict]:
    new = find_new_rs(d, rss)
    return [rs for rs in rss if new is None or rs["metadata"]["uid"] != new["metadata"]["uid"]]


def active(rss: list) -> list[dict]:
    """k8s: FilterActiveReplicaSets — spec.replicas > 0."""
    return [rs for rs in rss if rs is not None and replicas(rs) > 0]


def revision(rs: dict) -> int:
    try:
        return int((rs["metadata"].get("annotations") or {}).get(REVISION, "0"))
    except ValueError:
        return 0


def copy_annotations(d: dict, rs_annotations: dict) -> bool:
    """k8s: copyDeploymentAnnotationsToReplicaSet."""
    changed = False
    for k, v in (d["metadata"].get("annotations") or {}).items():
        if k in _SKIPPED_ANNOTATIONS or rs_annotations.get(k) == v:
            continue
        rs_annotations[k] = v
        changed = True
    return changed


def set_replicas_annotations(annotations: dict, desired: int, maximum: int) -> bool:
    changed = False
    for key, value in ((DESIRED_REPLICAS, str(desired)), (MAX_REPLICAS, str(maximum))):
        if annotations.get(key) != value:
            annotations[key] = value
            changed = True
    return changed


def set_new_rs_annotations(d: dict, annotations: dict, new_revision: str, exists: bool) -> bool:
    """k8s: SetNewReplicaSetAnnotations."""
    changed = copy_annotations(d, annotations)
    old = annotations.get(REVISION)
    try:
        old_int = int(old) if old else 0
    except ValueError:
        return False
    if old_int < int(new_revision):
        annotations[REVISION] = new_revision
        changed = True
        if old is not None:
            history = annotations.get(REVISION_HISTORY, "")
            entries = [e for e in history.split(",") if e] + [old]
            while len(",".join(entries)) > MAX_REV_HISTORY_CHARS and len(entries) > 1:
                entries.pop(0)
            annotations[REVISION_HISTORY] = ",".join(entries)
    if not exists and set_replicas_annotations(annotations, replicas(d), replicas(d) + max_surge(d)):
        changed = True
    return changed


def replicas_annotations_need_update(rs: dict, desired: int, maximum: int) -> bool:
    ann = rs["metadata"].get("annotations") or {}
    return ann.get(DESIRED_REPLICAS) != str(desired) or ann.get(MAX_REPLICAS) != str(maximum)


def get_proportion(rs: dict, d: dict, to_add: int, added: int) -> int:
    """k8s: GetProportion / getReplicaSetFraction."""
    if rs is None or replicas(rs) == 0 or to_add == 0 or to_add == added:
        return 0
    if replicas(d) == 0:
        fraction = -replicas(rs)
    else:
        deployment_replicas = replicas(d) + max_surge(d)
        try:
            annotated = int((rs["metadata"].get("annotations") or {}).get(MAX_REPLICAS, ""))
        except ValueError:
            annotated = int((d.get("status") or {}).get("replicas") or 0)
        if annotated == 0:
            return 0
        fraction = _round_half_away(replicas(rs) * deployment_replicas / annotated) - replicas(rs)
    allowed = to_add - added
    return min(fraction, allowed) if to_add > 0 else max(fraction, allowed)


def _round_half_away(x: float) -> int:
    """k8s: integer.RoundToInt32 (math.Round: halves away from zero)."""
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


# -- status and conditions ---------------------------------------------------------------------------

def condition(status: dict, type_: str) -> dict | None:
    return next((c for c in status.get("conditions") or () if c.get("type") == type_), None)


def new_condition(type_: str, status: str, reason: str, message: str, now: str) -> dict:
    return {"type": type_, "status": status, "lastUpdateTime": now, "lastTransitionTime": now,
            "reason": reason, "message": message}


def set_condition(status: dict, cond: dict) -> None:
    """k8s: SetDeploymentCondition — same status and reason: unchanged; same status: keep the
    transition time; the condition moves to the end."""
    current = condition(status, cond["type"])
    if current is not None and current.get("status") == cond["status"] and current.get("reason") == cond["reason"]:
        return
    if current is not None and current.get("status") == cond["status"]:
        cond = dict(cond, lastTransitionTime=current.get("lastTransitionTime"))
    status["conditions"] = [c for c in status.get("conditions") or () if c.get("type") != cond["type"]] + [cond]


def remove_condition(status: dict, type_: str) -> None:
    kept = [c for c in status.get("conditions") or () if c.get("type") != type_]
    if kept:
        status["conditions"] = kept
    else:
        status.pop("conditions", None)


def has_progress_deadline(d: dict) -> bool:
    value = d["spec"].get("progressDeadlineSeconds")
    return value is not None and value != 2 ** 31 - 1


def deployment_complete(d: dict, status: dict) -> bool:
    n = replicas(d)
    return (status.get("updatedReplicas", 0) == n and status.get("replicas", 0) == n
            and status.get("availableReplicas", 0) == n
            and status.get("observedGeneration", 0) >= d["metadata"].get("generation", 1))


def deployment_progressing(d: dict, new: dict) -> bool:
    old = d.get("status") or {}
    g = lambda s, k: int(s.get(k) or 0)  # noqa: E731
    return (g(new, "updatedReplicas") > g(old, "updatedReplicas")
            or g(new, "replicas") - g(new, "updatedReplicas") < g(old, "replicas") - g(old, "updatedReplicas")
            or g(new, "readyReplicas") > g(old, "readyReplicas")
            or g(new, "availableReplicas") > g(old, "availableReplicas"))


def deployment_timed_out(d: dict, status: dict, now: float) -> bool:
    """k8s: DeploymentTimedOut."""
    if not has_progress_deadline(d):
        return False
    cond = condition(status, "Progressing")
    if cond is None or cond.get("reason") == "NewReplicaSetAvailable":
        return False
    if cond.get("reason") == "ProgressDeadlineExceeded":
        return True
    return parse_time(cond["lastUpdateTime"]) + int(d["spec"]["progressDeadlineSeconds"]) < now
