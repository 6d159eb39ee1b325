"""kube-controller-manager's device taint eviction controller, on the virtual clock.

Event handlers (called synchronously by the store, like informer handlers) only
update the controller's indexes and queue work; run_once() does one work item:
delete a pod whose eviction time has come, or write a DeviceTaintRule's status.
Timers (eviction deadlines, the 10 s status period) are clock callbacks that put
items back on the queue, so run_until_quiet settles every deadline.

Pods are deleted with the pod's own grace period (no Eviction API, no PDBs);
what happens to their claims afterwards is the resourceclaim controller's job.

Slices come from the store as drivers published them, and rules are matched with
ruleMatchesDevice: a rule without deviceSelector selects nothing here (no eviction, zero
counts in its status), while the scheduler's tracker applies it to every device in v1.37.0
(api/devicetaints.py rule_taints_device, kubernetes#141620).

k8s: pkg/controller/devicetainteviction/device_taint_eviction.go
Spec: shared/spec/device-taints.md §7-§9. Pure parts: devicetaintstatus.py.
"""
from __future__ import annotations

from drasim.api.devicetaints import NO_EXECUTE, NONE
from drasim.controllers.devicetaintstatus import (
    CONDITION_EVICTION_IN_PROGRESS, FOREVER, RULE_STATUS_PERIOD, AllocatedClaim, Eviction, Pool, PoolId, WhatIf,
    allocation_results, claim_eviction, is_allocated, pod_eviction, pool_id, rule_condition, rule_what_if,
    same_eviction,
)
from drasim.store.events import NORMAL, record_event
from drasim.sim.clock import Clock, parse_time
from drasim.store.memory import ADDED, DELETED, MemoryStore, StoreError, WatchEvent, clone

__all__ = ["DeviceTaintEvictionController", "WhatIf", "rule_what_if"]

# k8s: emitPodDeletionEvent / emitCancelPodDeletionEvent / addConditionAndDeletePod — verbatim.
EVENT_REASON = "DeviceTaintManagerEviction"
EVENT_MARKING = "Marking for deletion"
EVENT_CANCELLING = "Cancelling deletion"
DISRUPTION_CONDITION = {"type": "DisruptionTarget", "status": "True", "lastProbeTime": None,
                        "reason": "DeletionByDeviceTaintManager",
                        "message": "Device Taint manager: deleting due to NoExecute taint"}

PodRef = tuple[str, str, str]          # namespace, name, uid
WorkItem = tuple[str, ...]             # ("pod", ns, name, uid) or ("rule", name, uid)
_KINDS = ("ResourceSlice", "DeviceTaintRule", "ResourceClaim", "Pod")


def _key(obj: dict) -> tuple[str, str]:
    return obj["metadata"].get("namespace") or "", obj["metadata"]["name"]


def _pod_ref(pod: dict) -> PodRef:
    md = pod["metadata"]
    return md.get("namespace") or "", md["name"], md.get("uid") or ""


def _rule_item(rule: dict) -> WorkItem:
    return ("rule", rule["metadata"]["name"], rule["metadata"].get("uid") or "")


class DeviceTaintEvictionController:
    """Evicts pods whose allocated devices carry untolerated NoExecute taints; writes rule status."""

    name = "device-taint-eviction-controller"

    def __init__(self, store: MemoryStore, clock: Clock, rules: bool = True) -> None:
        """`rules`: the DRADeviceTaintRules gate (k8s: the controller gets no rule informer when it is off)."""
        self.store = store
        self.clock = clock
        self._pools: dict[PoolId, Pool] = {}
        self._rules: dict[str, dict] = {}
        self._evicting: list[dict] = []                       # rules whose effect is NoExecute
        # Until a NoExecute taint shows up (a rule or a slice), no claim has an eviction time and
        # no pod is due, so re-checking pods can be skipped: the usual cluster never has one.
        self._noexecute_seen = False
        self._claims: dict[tuple[str, str], AllocatedClaim] = {}
        self._delete_pod_at: dict[PodRef, Eviction] = {}
        self._evicted: dict[str, int] = {}                    # rule uid → pods deleted by this instance
        self._queue: dict[WorkItem, None] = {}                # ordered set, like a workqueue
        self._waiting: dict[WorkItem, float] = {}
        self._failures: dict[WorkItem, int] = {}
        self._events: list[tuple[PodRef, str]] = []
        self._tainted_pools: set[PoolId] = set()             # pools with a NoExecute device taint
        watched = _KINDS if rules else tuple(k for k in _KINDS if k != "DeviceTaintRule")
        store.subscribe(self._on_event, kinds=watched)
        for kind in watched:                                  # informers list existing objects first
            for obj in store.list(kind):
                self._on_event(WatchEvent(ADDED, kind, obj))

    # -- Component -------------------------------------------------------------------------------
    def has_work(self) -> bool:
        return bool(self._queue or self._events)

    def run_once(self) -> None:
        if self._events:                   # the event recorder is asynchronous in Go, too
            events, self._events = self._events, []
            for ref, message in events:
                self._record(ref, message)
            return
        item = next(iter(self._queue))
        del self._queue[item]
        try:
            again = self._maybe_delete_pod(item[1:]) if item[0] == "pod" else self._maybe_update_rule_status(item)
        except StoreError:
            # k8s: workqueue.AddRateLimited — DefaultControllerRateLimiter, 5 ms doubling up to 1000 s.
            failures = self._failures[item] = self._failures.get(item, 0) + 1
            self._add_after(item, min(0.005 * 2 ** (failures - 1), 1000.0))
            return
        self._failures.pop(item, None)
        if again > 0:
            self._add_after(item, again)

    # -- queue -----------------------------------------------------------------------------------
    def _add(self, item: WorkItem) -> None:
        self._queue[item] = None

    def _add_after(self, item: WorkItem, delay: float) -> None:
        """k8s: AddAfter — the earliest pending time wins; no delay means now."""
        if delay <= 0:
            self._add(item)
            return
        when = self.clock.now + delay
        if self._waiting.get(item, FOREVER) <= when:
            return
        self._waiting[item] = when
        self.clock.call_at(when, lambda: self._ready(item, when))

    def _ready(self, item: WorkItem, when: float) -> None:
        if self._waiting.get(item) == when:
            del self._waiting[item]
            self._add(item)

    # -- informer event handlers -----------------------------------------------------------------
    def _on_event(self, event: WatchEvent) -> None:
        if event.kind not in _KINDS:
            return
        if event.type == ADDED:
            old, new = None, event.obj
        elif event.type == DELETED:
            old, new = event.obj, None
        else:
            old, new = event.old, event.obj
        if event.kind == "Pod":
            self._handle_pod_change(old, new)
        elif event.kind == "ResourceClaim":
            self._handle_claim_change(old, new)
        elif event.kind == "ResourceSlice":
            self._handle_slice_change(old, new)
        else:
            if new is None:
                self._rules.pop(old["metadata"]["name"], None)
            else:
                self._rules[new["metadata"]["name"]] = new
            self._evicting = [r for r in self._rules.values() if r["spec"]["taint"].get("effect") == NO_EXECUTE]
            self._noexecute_seen = self._noexecute_seen or bool(self._evicting)
            self._handle_rule_change(old, new)

    def _claim_eviction(self, claim: dict) -> Eviction | None:
        """claim_eviction, skipped while no NoExecute taint exists anywhere (the common case)."""
        if not self._evicting and not self._tainted_pools:
            return None
        return claim_eviction(claim, self._pools, self._evicting)

    def _handle_claim_change(self, old: dict | None, new: dict | None) -> None:
        """k8s: handleClaimChange — track allocated claims, re-check their consumers."""
        claim = new or old
        key = _key(claim)
        if new is None:
            self._claims.pop(key, None)
            self._handle_pods(claim)
            return
        if old is None:
            if is_allocated(claim):
                self._claims[key] = AllocatedClaim(claim, self._claim_eviction(claim))
                self._handle_pods(claim)
            return
        if old["metadata"].get("uid") != new["metadata"].get("uid"):
            self._handle_claim_change(old, None)
            self._handle_claim_change(None, new)
            return
        was, now = is_allocated(old), is_allocated(new)
        if not was and not now:
            return
        if now and not was:
            self._claims[key] = AllocatedClaim(new, self._claim_eviction(new))
        elif was and not now:
            self._claims.pop(key, None)
        else:                               # allocation is immutable: keep the eviction time
            previous = self._claims.get(key)
            self._claims[key] = AllocatedClaim(new, previous.eviction if previous else self._claim_eviction(new))
        if (old.get("status") or {}).get("reservedFor") != (new.get("status") or {}).get("reservedFor"):
            self._handle_pods(old)
        self._handle_pods(new)

    def _handle_rule_change(self, old: dict | None, new: dict | None) -> None:
        """k8s: handleRuleChange — an immediate status update for a new rule and for a changed spec
        (so a NoExecute→None switch shows a fresh dry run); re-evaluate all claims on spec change.

        The spec (§8.1, §8.4, from a 1.35-era copy) says a spec change alone queues nothing; the
        newer controller (v1beta2 informers, PodGroup support) queues one, and v1.37 has it."""
        if old is None:
            self._add(_rule_item(new))
        if new is None:
            self._evicted.pop(old["metadata"].get("uid"), None)
        if old is not None and new is not None and old["metadata"].get("uid") == new["metadata"].get("uid"):
            if old.get("spec") == new.get("spec"):
                return
            self._add(_rule_item(new))
        for allocated in list(self._claims.values()):
            previous, allocated.eviction = allocated.eviction, claim_eviction(allocated.claim, self._pools, self._evicting)
            if not same_eviction(allocated.eviction, previous):
                self._handle_pods(allocated.claim)

    def _handle_slice_change(self, old: dict | None, new: dict | None) -> None:
        """k8s: handleSliceChange — only claims on devices whose NoExecute taints changed are re-checked."""
        pid = pool_id(new or old)
        pool = self._pools.get(pid) or Pool()
        before = pool.noexecute_taints()
        if old is not None:
            pool.remove(old)
        if new is not None:
            pool.add(new)
        if pool.slices:
            self._pools[pid] = pool
        else:
            self._pools.pop(pid, None)
        after = pool.noexecute_taints()
        if pool.slices and after:
            self._tainted_pools.add(pid)
            self._noexecute_seen = True
        else:
            self._tainted_pools.discard(pid)
        if not before and not after:
            return
        modified = {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}
        for allocated in list(self._claims.values()):
            if not any((r["driver"], r["pool"]) == pid and r["device"] in modified
                       for r in allocation_results(allocated.claim)):
                continue
            eviction = claim_eviction(allocated.claim, self._pools, self._evicting)
            if same_eviction(eviction, allocated.eviction):
                continue
            allocated.eviction = eviction
            self._handle_pods(allocated.claim)

    def _handle_pod_change(self, old: dict | None, new: dict | None) -> None:
        """k8s: handlePodChange — only scheduling or claim-status changes matter."""
        if new is None:
            self._cancel_evict(_pod_ref(old))      # gone: no event
            return
        if old is not None and (old.get("spec") or {}).get("nodeName") == (new.get("spec") or {}).get("nodeName") \
                and ((old.get("status") or {}).get("resourceClaimStatuses") or []) \
                == ((new.get("status") or {}).get("resourceClaimStatuses") or []):
            return
        self._handle_pod(new)

    def _handle_pods(self, claim: dict) -> None:
        """Re-check the pods in the claim's reservedFor.

        k8s: handlePods stops at the first entry whose pod is missing or has another UID
        (return, not continue); kept as is — the fix (#135686) was not merged.
        """
        if not self._noexecute_seen:
            return
        namespace = claim["metadata"].get("namespace")
        for consumer in (claim.get("status") or {}).get("reservedFor") or ():
            if consumer.get("apiGroup") or consumer.get("resource") != "pods":
                continue
            pod = self.store.get("Pod", namespace, consumer.get("name"))
            if pod is None or pod["metadata"].get("uid") != consumer.get("uid"):
                return
            self._handle_pod(pod)

    def _handle_pod(self, pod: dict) -> None:
        if not self._noexecute_seen:
            return   # no eviction anywhere and none pending (see __init__)
        ref = _pod_ref(pod)
        eviction = pod_eviction(pod, self._claims)
        if eviction is None:
            if self._cancel_evict(ref):
                self._events.append((ref, EVENT_CANCELLING))
            return
        self._delete_pod_at[ref] = eviction
        self._add_after(("pod", *ref), eviction.when - self.clock.now)
        for reason in eviction.reasons:      # eviction in progress: the rule's status may change
            if reason.rule is not None:
                self._add(_rule_item(reason.rule))

    def _cancel_evict(self, ref: PodRef) -> bool:
        # The queued item stays; the worker finds no deadline and drops it (k8s: cancelEvict).
        return self._delete_pod_at.pop(ref, None) is not None

    # -- work items ------------------------------------------------------------------------------
    def _maybe_delete_pod(self, ref: PodRef) -> float:
        """k8s: maybeDeletePod — delete when due, count it for each rule among the reasons."""
        eviction = self._delete_pod_at.get(ref)
        if eviction is None:
            return 0.0
        if eviction.when > self.clock.now:
            return eviction.when - self.clock.now
        deleted = self._add_condition_and_delete_pod(ref)
        self._delete_pod_at.pop(ref, None)
        if not deleted:
            return 0.0
        for reason in eviction.reasons:
            if reason.rule is not None:
                uid = reason.rule["metadata"].get("uid")
                self._evicted[uid] = self._evicted.get(uid, 0) + 1
                # Not at once: the status must see the deletion (k8s reads the rule from its cache).
                self._add_after(_rule_item(reason.rule), RULE_STATUS_PERIOD)
        return 0.0

    def _add_condition_and_delete_pod(self, ref: PodRef) -> bool:
        """Event, DisruptionTarget condition, DELETE with UID precondition (§7.6). False: pod gone/replaced.

        k8s: addConditionAndDeletePod. A pod already being deleted counts as done (and thus
        as evicted for the rule's counter) without event or condition.
        """
        namespace, name, uid = ref
        pod = self.store.get("Pod", namespace, name)
        if pod is None or pod["metadata"].get("uid") != uid:
            return False
        if pod["metadata"].get("deletionTimestamp"):
            return True
        self._record(ref, EVENT_MARKING)
        status = clone(pod.get("status") or {})
        try:
            if _set_pod_condition(status, dict(DISRUPTION_CONDITION, lastTransitionTime=self.clock.timestamp())):
                self.store.update_status(dict(pod, status=status))
            self.store.delete("Pod", namespace, name, uid=uid)
        except StoreError as err:
            if err.reason == "NotFound":
                return False
            raise                       # retried; a replaced pod is then seen as "not found"
        return True

    def _maybe_update_rule_status(self, item: WorkItem) -> float:
        """k8s: maybeUpdateRuleStatus — at most every RULE_STATUS_PERIOD per generation (§8)."""
        _, name, uid = item
        rule = self.store.get("DeviceTaintRule", None, name)
        if rule is None or rule["metadata"].get("uid") != uid:
            return 0.0
        existing = next((c for c in (rule.get("status") or {}).get("conditions") or ()
                         if c.get("type") == CONDITION_EVICTION_IN_PROGRESS), None)
        if existing is not None and existing.get("lastTransitionTime") \
                and existing.get("observedGeneration", 0) == rule["metadata"].get("generation", 0):
            since = self.clock.now - parse_time(existing["lastTransitionTime"])
            if since < RULE_STATUS_PERIOD:
                return RULE_STATUS_PERIOD - since
        effect = rule["spec"]["taint"].get("effect")
        pending, dry_run = (0, 0), None
        if effect == NONE:          # simulate NoExecute once; never refreshed (§8.4)
            dry_run = rule_what_if(rule, pods=self.store.list("Pod"),
                                   claims=[a.claim for a in self._claims.values()],
                                   slices=[s for p in self._pools.values() for s in p.slices.values()])
        elif effect == NO_EXECUTE:
            pending = self._count_pending(rule)
        condition = rule_condition(rule, pending=pending, dry_run=dry_run, evicted=self._evicted.get(uid, 0))
        if existing is None or any(existing.get(k, 0 if k == "observedGeneration" else "") != v
                                   for k, v in condition.items()):
            self._write_condition(rule, condition)
        return 0.0

    def _count_pending(self, rule: dict) -> tuple[int, int]:
        """Pods not yet being deleted whose eviction reasons include this rule (k8s: countPendingPods)."""
        uid = rule["metadata"].get("uid")
        pods, namespaces = 0, set()
        for pod in self.store.list("Pod"):
            if pod["metadata"].get("deletionTimestamp"):
                continue
            eviction = pod_eviction(pod, self._claims)
            if eviction and any(r.rule is not None and r.rule["metadata"].get("uid") == uid
                                for r in eviction.reasons):
                pods += 1
                namespaces.add(pod["metadata"].get("namespace"))
        return pods, len(namespaces)

    def _write_condition(self, rule: dict, condition: dict) -> None:
        """Apply the one condition (map keyed by type) to /status; lastTransitionTime = now."""
        full = {"type": condition["type"], "status": condition["status"],
                "observedGeneration": condition["observedGeneration"],
                "lastTransitionTime": self.clock.timestamp(),
                "reason": condition["reason"], "message": condition["message"]}
        status = clone(rule.get("status") or {})
        conditions = status.setdefault("conditions", [])
        index = next((i for i, c in enumerate(conditions) if c.get("type") == full["type"]), None)
        if index is None:
            conditions.append(full)
        else:
            conditions[index] = full
        self.store.update_status(dict(rule, status=status))

    def _record(self, ref: PodRef, message: str) -> None:
        namespace, name, uid = ref
        involved = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace, "uid": uid}}
        record_event(self.store, involved, NORMAL, EVENT_REASON, message, self.name)


def _set_pod_condition(status: dict, condition: dict) -> bool:
    """k8s: pkg/api/v1/pod UpdatePodCondition — upsert by type, keep lastTransitionTime if status is unchanged."""
    conditions = status.setdefault("conditions", [])
    for i, existing in enumerate(conditions):
        if existing.get("type") != condition["type"]:
            continue
        if existing.get("status") == condition["status"]:
            condition = dict(condition, lastTransitionTime=existing.get("lastTransitionTime"))
        changed = any(existing.get(k) != condition.get(k) for k in
                      ("status", "reason", "message", "lastProbeTime", "lastTransitionTime"))
        conditions[i] = condition
        return changed
    conditions.append(condition)
    return True
