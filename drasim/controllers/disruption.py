"""The disruption controller: each PodDisruptionBudget's status (how many pods may be disrupted now).

k8s: pkg/controller/disruption/disruption.go (trySync, getExpectedPodCount, getExpectedScale and its
finders, countHealthyPods, buildDisruptedPodMap, updatePdbStatus / failSafe). The scheduler's
preemption and the eviction API read `status.disruptionsAllowed`; nothing else in drasim does.
"""
from __future__ import annotations

import math

from drasim.api.labelselector import LabelSelectorError, compile_label_selector
from drasim.controllers.workloads.common import controller_of
from drasim.sim.clock import Clock, parse_time
from drasim.store import DELETED, MemoryStore, WatchEvent

DELETION_TIMEOUT = 120.0   # k8s: DeletionTimeout — an eviction not followed by a deletion counts again after 2 min
_RELEVANT = ("PodDisruptionBudget", "Pod", "Deployment", "ReplicaSet", "StatefulSet")


def scaled(value, total: int) -> int:
    """k8s: intstr.GetScaledValueFromIntOrPercent with roundUp."""
    if isinstance(value, str) and value.endswith("%"):
        return math.ceil(int(value[:-1]) * total / 100)
    return int(value)


def pod_is_ready(pod: dict) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (pod.get("status") or {}).get("conditions") or ())


def matching_pods(pdb: dict, pods: list[dict]) -> list[dict]:
    """k8s: getPodsForPdb — same namespace, the selector matches (policy/v1: {} all, none without one)."""
    try:
        selector = compile_label_selector((pdb.get("spec") or {}).get("selector"))
    except LabelSelectorError:
        return []
    return [p for p in pods if selector.matches(p["metadata"].get("labels") or {})]


class NoController(Exception):
    pass


class DisruptionController:
    name = "disruption-controller"

    def __init__(self, store: MemoryStore, clock: Clock) -> None:
        self.store = store
        self.clock = clock
        self._dirty: set[str] = set()            # namespaces
        self._budgets: dict[str, int] = {}       # namespace -> number of budgets in it
        store.subscribe(self._on_event, kinds=_RELEVANT)

    def _on_event(self, ev: WatchEvent) -> None:
        ns = ev.obj["metadata"].get("namespace") or ""
        if ev.kind == "PodDisruptionBudget":
            self._budgets[ns] = self._budgets.get(ns, 0) + (1 if ev.type == "ADDED" else -1 if ev.type == DELETED else 0)
            if ev.old is not None and ev.old.get("spec") == ev.obj.get("spec") \
                    and _disrupted_of(ev.old) == _disrupted_of(ev.obj):
                return   # our own status write (an eviction's disruptedPods entry needs a sync)
            self._dirty.add(ns)
        elif self._budgets.get(ns):   # pods and their owners matter only where a budget exists
            self._dirty.add(ns)

    def has_work(self) -> bool:
        return bool(self._dirty)

    def run_once(self) -> None:
        ns = min(self._dirty)
        self._dirty.discard(ns)
        pods = self.store.list("Pod", ns)
        for pdb in self.store.list("PodDisruptionBudget", ns):
            status = self._status(pdb, matching_pods(pdb, pods))
            if {k: v for k, v in (pdb.get("status") or {}).items() if k != "conditions"} != \
                    {k: v for k, v in status.items() if k != "conditions"} or \
                    _condition_key(pdb.get("status")) != _condition_key(status):
                self._write(pdb, status)

    # -- the status ------------------------------------------------------------------------------
    def _status(self, pdb: dict, pods: list[dict]) -> dict:
        now = self.clock.now
        generation = pdb["metadata"].get("generation") or 1
        try:
            expected, desired = self._expected_pod_count(pdb, pods)
        except NoController as e:   # k8s: failSafe
            return self._fail_safe(pdb, generation, str(e))
        disrupted = self._disrupted(pdb, pods, now)
        healthy = sum(1 for p in pods if not p["metadata"].get("deletionTimestamp")
                      and not (p["metadata"]["name"] in disrupted
                               and parse_time(disrupted[p["metadata"]["name"]]) + DELETION_TIMEOUT > now)
                      and pod_is_ready(p))
        allowed = healthy - desired
        if expected <= 0 or allowed <= 0:
            allowed = 0
        status = {"observedGeneration": generation, "disruptionsAllowed": allowed, "currentHealthy": healthy,
                  "desiredHealthy": desired, "expectedPods": expected}
        if disrupted:
            status["disruptedPods"] = disrupted
        status["conditions"] = [_condition(pdb, generation, allowed > 0, self.clock.timestamp())]
        return status

    def _fail_safe(self, pdb: dict, generation: int, message: str) -> dict:
        old = dict(pdb.get("status") or {})
        old.update({"observedGeneration": generation, "disruptionsAllowed": 0})
        cond = {"type": "DisruptionAllowed", "status": "False", "reason": "SyncFailed", "message": message,
                "observedGeneration": generation, "lastTransitionTime": self.clock.timestamp()}
        old["conditions"] = [cond]
        return old

    def _expected_pod_count(self, pdb: dict, pods: list[dict]) -> tuple[int, int]:
        spec = pdb.get("spec") or {}
        if spec.get("maxUnavailable") is not None:
            expected = self._expected_scale(pods)
            return expected, max(0, expected - scaled(spec["maxUnavailable"], expected))
        min_available = spec.get("minAvailable")
        if isinstance(min_available, int):
            return len(pods), min_available
        if isinstance(min_available, str):
            expected = self._expected_scale(pods)
            return expected, scaled(min_available, expected)
        return 0, 0

    def _expected_scale(self, pods: list[dict]) -> int:
        """k8s: getExpectedScale — the sum of the scales of the pods' controllers (pods without one
        are unmanaged and skipped); finders: Deployment through its ReplicaSet, ReplicaSet, StatefulSet."""
        scales: dict[str, int] = {}
        for pod in pods:
            ref = controller_of(pod)
            if ref is None or ref.get("uid") in scales:
                continue
            found = self._find_scale(ref, pod["metadata"].get("namespace") or "")
            if found is None:
                raise NoController(f'found no controllers for pod "{pod["metadata"]["name"]}"')
            scales[found[0]] = found[1]
        return sum(scales.values())

    def _find_scale(self, ref: dict, ns: str) -> tuple[str, int] | None:
        kind, name = ref.get("kind"), ref.get("name")
        if kind not in ("ReplicaSet", "StatefulSet"):
            return None
        owner = self.store.get(kind, ns, name)
        if owner is None or owner["metadata"].get("uid") != ref.get("uid"):
            return None
        up = controller_of(owner) if kind == "ReplicaSet" else None
        if up is not None and up.get("kind") == "Deployment":
            deployment = self.store.get("Deployment", ns, up.get("name"))
            if deployment is None or deployment["metadata"].get("uid") != up.get("uid"):
                return None
            return deployment["metadata"]["uid"], int((deployment.get("spec") or {}).get("replicas", 1))
        return owner["metadata"]["uid"], int((owner.get("spec") or {}).get("replicas", 1))

    def _disrupted(self, pdb: dict, pods: list[dict], now: float) -> dict[str, str]:
        """k8s: buildDisruptedPodMap — entries of pods still there, not deleted, not expired."""
        entries = (pdb.get("status") or {}).get("disruptedPods") or {}
        live = {p["metadata"]["name"]: p for p in pods}
        return {name: stamp for name, stamp in sorted(entries.items())
                if name in live and not live[name]["metadata"].get("deletionTimestamp")
                and parse_time(stamp) + DELETION_TIMEOUT > now}

    def _write(self, pdb: dict, status: dict) -> None:
        from drasim.store import StoreError

        try:
            self.store.update_status(dict(pdb, status=status))
        except StoreError:
            self._dirty.add(pdb["metadata"].get("namespace") or "")


def _condition(pdb: dict, generation: int, allowed: bool, now: str) -> dict:
    """k8s: updatePdbStatus's DisruptionAllowed condition (its time moves only when the status flips)."""
    status = "True" if allowed else "False"
    old = next((c for c in (pdb.get("status") or {}).get("conditions") or () if c.get("type") == "DisruptionAllowed"),
               None)
    since = old["lastTransitionTime"] if old and old.get("status") == status else now
    return {"type": "DisruptionAllowed", "status": status, "reason": "SufficientPods" if allowed else "InsufficientPods",
            "message": "", "observedGeneration": generation, "lastTransitionTime": since}


def _disrupted_of(pdb: dict) -> dict:
    return (pdb.get("status") or {}).get("disruptedPods") or {}


def _condition_key(status: dict | None) -> tuple:
    return tuple((c.get("type"), c.get("status"), c.get("reason"), c.get("message"))
                 for c in (status or {}).get("conditions") or ())
