"""The eviction subresource's budget check: may this pod be evicted now, and what does its budget
record? k8s: pkg/registry/core/pod/storage/eviction.go (EvictionREST.Create, canIgnorePDB,
getPodDisruptionBudgets, checkAndDecrement, the unhealthyPodEvictionPolicy rules).

API-server logic with no HTTP in it: `drasim serve`'s pods/eviction and `drasim migrate`'s drain
both use it (a refusal is EvictionRefused, which the server writes as a Status).
"""
from __future__ import annotations

from drasim.api.labelselector import LabelSelectorError, compile_label_selector
from drasim.controllers.disruption import pod_is_ready
from drasim.errors import InputError

MAX_DISRUPTED_PODS = 2000
BUDGET_MESSAGE = "Cannot evict pod as it would violate the pod's disruption budget."


def budgets_for(pod: dict, pdbs: list[dict]) -> list[dict]:
    """A nil or empty selector matches nothing here (eviction.go's own rule)."""
    labels = pod["metadata"].get("labels") or {}
    out = []
    for b in pdbs:
        raw = (b.get("spec") or {}).get("selector")
        if not raw or not (raw.get("matchLabels") or raw.get("matchExpressions")):
            continue
        try:
            if compile_label_selector(raw).matches(labels):
                out.append(b)
        except LabelSelectorError:
            continue
    return out


class EvictionRefused(InputError):
    """The Status kube-apiserver answers a refused eviction with."""

    def __init__(self, code: int, reason: str, message: str, cause: str | None = None) -> None:
        super().__init__(message if cause is None else f"{message} ({cause})")
        self.code, self.reason, self.message, self.cause = code, reason, message, cause

    def details(self) -> dict | None:
        if self.cause is None:
            return None
        return {"causes": [{"reason": "DisruptionBudget", "message": self.cause}], "retryAfterSeconds": 0}


def _too_many(message: str) -> EvictionRefused:
    return EvictionRefused(429, "TooManyRequests", BUDGET_MESSAGE, message)


def check(pod: dict, pdbs: list[dict], now: str) -> dict | None:
    """None: evict without touching a budget; else the budget with the eviction recorded (to be written
    before the pod is deleted). Raises EvictionRefused when the budget refuses."""
    phase = (pod.get("status") or {}).get("phase")
    if phase in ("Succeeded", "Failed", "Pending") or pod["metadata"].get("deletionTimestamp"):
        return None   # canIgnorePDB
    matching = budgets_for(pod, pdbs)
    if not matching:
        return None
    if len(matching) > 1:
        raise EvictionRefused(500, "InternalError", "This pod has more than one PodDisruptionBudget, which the "
                          "eviction subresource does not support.")
    pdb = matching[0]
    status = dict(pdb.get("status") or {})
    name = pdb["metadata"]["name"]
    if not pod_is_ready(pod):
        policy = (pdb.get("spec") or {}).get("unhealthyPodEvictionPolicy") or "IfHealthyBudget"
        healthy, desired = status.get("currentHealthy", 0), status.get("desiredHealthy", 0)
        if policy == "AlwaysAllow" or (desired > 0 and healthy >= desired):
            return None
    if (status.get("observedGeneration") or 0) < (pdb["metadata"].get("generation") or 1):
        raise _too_many(f"The disruption budget {name} is still being processed by the server.")
    allowed = int(status.get("disruptionsAllowed") or 0)
    if allowed < 0:
        raise EvictionRefused(403, "Forbidden", "pdb disruptions allowed is negative")
    disrupted = dict(status.get("disruptedPods") or {})
    if len(disrupted) > MAX_DISRUPTED_PODS:
        raise EvictionRefused(403, "Forbidden", "DisruptedPods map too big - too many evictions not confirmed by PDB controller")
    if allowed == 0:
        raise _too_many(f"The disruption budget {name} needs {status.get('desiredHealthy', 0)} healthy pods and "
                        f"has {status.get('currentHealthy', 0)} currently")
    status["disruptionsAllowed"] = allowed - 1
    if allowed - 1 == 0:
        status["conditions"] = [{"type": "DisruptionAllowed", "status": "False", "reason": "InsufficientPods",
                                 "message": "", "observedGeneration": status.get("observedGeneration"),
                                 "lastTransitionTime": now}]
    disrupted[pod["metadata"]["name"]] = now
    status["disruptedPods"] = disrupted
    return dict(pdb, status=status)
