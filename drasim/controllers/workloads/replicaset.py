"""The ReplicaSet controller.

k8s: pkg/controller/replicaset/replica_set.go (syncReplicaSet, manageReplicas, slowStartBatch,
     getPodsToDelete, getIndirectlyRelatedPods, add/update/deletePod), replica_set_utils.go
     (calculateStatus, updateReplicaSetStatus, NewReplicaSetCondition).

Pods are created from the template through the API server's write path (defaults, validation,
NamespaceLifecycle, quota): `<rs>-<5 random characters>` from generateName. A refused create is
a FailedCreate event and the ReplicaFailure condition; it is tried again when quota in the
namespace changes (k8s retries with backoff; the simulation waits for the event that can help,
so it settles). Pods are deleted at once (graceful termination is not modelled).
"""
from __future__ import annotations

from drasim.api.labelselector import LabelSelectorError, compile_label_selector
from drasim.controllers.workloads.common import (ControllerContext, KeyQueue, claim_objects, controller_of,
                                                 create_pod, delete_pod, is_namespace_terminating_error,
                                                 is_pod_active, is_pod_available, is_pod_ready, available_at)
from drasim.controllers.workloads.ranking import rank_for_deletion
from drasim.errors import InputError
from drasim.store import DELETED, WatchEvent, clone

COMPONENT = "replicaset-controller"
BURST_REPLICAS = 500          # k8s: BurstReplicas, the most pods created or deleted in one sync
SLOW_START_INITIAL_BATCH = 1  # k8s: controller.SlowStartInitialBatchSize


def controller(ctx: ControllerContext) -> "ReplicaSetController":
    return ReplicaSetController(ctx)


def slow_start_batch(count: int, initial: int, fn) -> tuple[int, Exception | None]:
    """k8s: slowStartBatch — calls in batches of 1, 2, 4, …; stops after a batch with an error.
    Returns (successes, first error)."""
    remaining, batch, successes = count, min(count, initial), 0
    while batch > 0:
        errors = [e for e in (fn() for _ in range(batch)) if e is not None]
        successes += batch - len(errors)
        if errors:
            return successes, errors[0]
        remaining -= batch
        batch = min(2 * batch, remaining)
    return successes, None


def new_condition(type_: str, status: str, reason: str, message: str, now: str) -> dict:
    return {"type": type_, "status": status, "lastTransitionTime": now, "reason": reason, "message": message}


class ReplicaSetController:
    name = "replicaset-controller"

    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx
        self.store = ctx.store
        self.queue = KeyQueue(ctx.clock)
        self._blocked: dict[str, set[tuple[str, str]]] = {}   # namespace -> RSes whose create was refused
        ctx.store.subscribe(self._on_event, kinds=("ReplicaSet", "Pod", "ResourceQuota"))

    # -- informer handlers (k8s: addPod, updatePod, deletePod, addRS, updateRS) ------------------------
    def _on_event(self, ev: WatchEvent) -> None:
        md = ev.obj["metadata"]
        ns = md.get("namespace") or ""
        if ev.kind == "ReplicaSet":
            if ev.type != DELETED:
                self.queue.add((ns, md["name"]))
            else:
                self.queue.forget((ns, md["name"]))
            return
        if ev.kind == "ResourceQuota":
            for key in sorted(self._blocked.pop(ns, ())):
                self.queue.add(key)
            return
        for obj in (ev.old, ev.obj) if ev.old is not None and ev.old is not ev.obj else (ev.obj,):
            ref = controller_of(obj)
            if ref is not None:
                if ref.get("kind") == "ReplicaSet":
                    self._enqueue_owner(ns, ref)
            elif ev.type != DELETED and self.store.any_in("ReplicaSet", ns):
                for rs in self.store.list("ReplicaSet", ns):   # an orphan: RSes that may adopt it
                    if _selects(rs, ev.obj):
                        self.queue.add((ns, rs["metadata"]["name"]))
        if ev.type == DELETED:
            for key in sorted(self._blocked.pop(ns, ())):
                self.queue.add(key)

    def _enqueue_owner(self, ns: str, ref: dict) -> None:
        rs = self.store.get("ReplicaSet", ns, ref.get("name") or "")
        if rs is not None and rs["metadata"]["uid"] == ref.get("uid"):
            self.queue.add((ns, rs["metadata"]["name"]))

    def has_work(self) -> bool:
        return bool(self.queue)

    def run_once(self) -> None:
        self.sync(*self.queue.pop())

    # -- sync ---------------------------------------------------------------------------------------
    def sync(self, ns: str, name: str) -> None:
        rs = self.store.get("ReplicaSet", ns, name)
        if rs is None:
            return
        try:
            selector = compile_label_selector(rs["spec"].get("selector"))
        except LabelSelectorError:
            return   # k8s: HandleError and give up on this sync; validation prevents it
        pods = [p for p in self.store.list("Pod", ns) if is_pod_active(p)]
        pods = claim_objects(self.ctx, rs, selector, pods)
        error = None
        if not rs["metadata"].get("deletionTimestamp"):
            error = self._manage(pods, rs)
        if error is not None and not is_namespace_terminating_error(error):
            self._blocked.setdefault(ns, set()).add((ns, name))
        rs = self.store.get("ReplicaSet", ns, name)
        if rs is None:
            return
        self._update_status(rs, calculate_status(rs, pods, error, self.ctx.clock))

    def _manage(self, pods: list[dict], rs: dict) -> InputError | None:
        """k8s: manageReplicas."""
        diff = len(pods) - int(rs["spec"].get("replicas", 1))
        if diff < 0:
            count = min(-diff, BURST_REPLICAS)
            template = rs["spec"].get("template") or {}

            def create_one():
                _, error = create_pod(self.ctx, template, rs, COMPONENT)
                if error is not None and is_namespace_terminating_error(error):
                    return None   # k8s: nothing to do, every create in the namespace fails
                return error

            _, error = slow_start_batch(count, SLOW_START_INITIAL_BATCH, create_one)
            return error
        if diff > 0:
            count = min(diff, BURST_REPLICAS)
            doomed = pods if count >= len(pods) else rank_for_deletion(pods, self._related_pods(rs),
                                                                         self.ctx.clock.now)[:count]
            first = None
            for pod in doomed:
                error = delete_pod(self.ctx, pod, rs, COMPONENT)
                first = first or error
            return first
        return None

    def _related_pods(self, rs: dict) -> list[dict]:
        """k8s: getIndirectlyRelatedPods — pods of every ReplicaSet with the same controller."""
        ns = rs["metadata"].get("namespace")
        owner = controller_of(rs)
        siblings = {rs["metadata"]["uid"]}
        if owner is not None:
            siblings |= {o["metadata"]["uid"] for o in self.store.list("ReplicaSet", ns)
                         if (controller_of(o) or {}).get("uid") == owner.get("uid")}
        return [p for p in self.store.list("Pod", ns) if (controller_of(p) or {}).get("uid") in siblings]

    def _update_status(self, rs: dict, status: dict) -> None:
        """k8s: updateReplicaSetStatus — written when it or the observed generation changed; a
        resync after minReadySeconds catches pods that become available."""
        status["observedGeneration"] = rs["metadata"].get("generation", 1)
        if status != (rs.get("status") or {}):
            rs = self.store.update_status(dict(rs, status=status), copy=False)
        min_ready = int(rs["spec"].get("minReadySeconds") or 0)
        key = (rs["metadata"].get("namespace") or "", rs["metadata"]["name"])
        if min_ready > 0 and status.get("readyReplicas", 0) != status.get("availableReplicas", 0):
            ns = rs["metadata"].get("namespace")
            times = [t for p in self.store.list("Pod", ns) if is_controlled_by_uid(p, rs)
                     and (t := available_at(p, min_ready)) is not None and t > self.ctx.clock.now]
            if times:
                self.queue.add_after(key, min(times) - self.ctx.clock.now)


def is_controlled_by_uid(pod: dict, rs: dict) -> bool:
    return (controller_of(pod) or {}).get("uid") == rs["metadata"]["uid"]


def _selects(rs: dict, pod: dict) -> bool:
    try:
        return compile_label_selector(rs["spec"].get("selector")).matches(pod["metadata"].get("labels") or {})
    except LabelSelectorError:
        return False


def calculate_status(rs: dict, pods: list[dict], error: Exception | None, clock) -> dict:
    """k8s: replica_set_utils.go calculateStatus (zero counts are omitted, as omitempty does)."""
    status = clone(rs.get("status") or {})
    template_labels = ((rs["spec"].get("template") or {}).get("metadata") or {}).get("labels") or {}
    min_ready = int(rs["spec"].get("minReadySeconds") or 0)
    fully = ready = available = 0
    for pod in pods:
        labels = pod["metadata"].get("labels") or {}
        if all(labels.get(k) == v for k, v in template_labels.items()):
            fully += 1
        if is_pod_ready(pod):
            ready += 1
            if is_pod_available(pod, min_ready, clock.now):
                available += 1
    conditions = [c for c in status.get("conditions") or () if c.get("type") != "ReplicaFailure"]
    failure = next((c for c in status.get("conditions") or () if c.get("type") == "ReplicaFailure"), None)
    if error is not None and failure is None:
        diff = len(pods) - int(rs["spec"].get("replicas", 1))
        reason = "FailedCreate" if diff < 0 else "FailedDelete" if diff > 0 else ""
        conditions.append(new_condition("ReplicaFailure", "True", reason, str(error), clock.timestamp()))
    elif error is not None:
        conditions.append(failure)
    status = {"replicas": len(pods)}
    for key, value in (("fullyLabeledReplicas", fully), ("readyReplicas", ready), ("availableReplicas", available)):
        if value:
            status[key] = value
    if conditions:
        status["conditions"] = conditions
    return status
