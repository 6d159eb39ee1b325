"""GangScheduling: all-or-nothing initial placement of a PodGroup's pods (GenericWorkload, beta, off).

k8s: pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go (PreEnqueue: the PodGroup must
exist and at least minCount of its pods must be known; Permit: wait until minCount pods are scheduled;
EventsToRegister: a pod of the group added, the PodGroup added). The pod group cycle itself is
drasim/scheduler/podgroupcycle.py.

A pod belongs to a group through spec.schedulingGroup.podGroupName (same namespace). The group's
pods counted here are the ones the scheduler knows: not terminal, not being deleted, pending or bound
(k8s: PodGroupState.AllPodsCount).
"""
from __future__ import annotations

from drasim.scheduler.framework import Code, Status
from drasim.store import DELETED, MemoryStore, WatchEvent

NAME = "GangScheduling"
WAITING_FOR_PODS = "waiting for minCount pods from a gang to appear in scheduling queue"
WAITING_FOR_SCHEDULED = "waiting for minCount pods from a gang to be scheduled"

GroupKey = tuple[str, str]


def group_key(pod: dict) -> GroupKey | None:
    group = (pod.get("spec") or {}).get("schedulingGroup")
    name = group.get("podGroupName") if isinstance(group, dict) else None
    return (pod["metadata"].get("namespace") or "", name) if name else None


def gang_min_count(pod_group: dict | None) -> int | None:
    """minCount of a gang policy; None for a basic policy (or no group)."""
    gang = (((pod_group or {}).get("spec") or {}).get("schedulingPolicy") or {}).get("gang")
    return int(gang.get("minCount") or 0) if isinstance(gang, dict) else None


class GangScheduling:
    name = NAME

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self._members: dict[GroupKey, dict[str, dict]] = {}   # group -> uid -> pod (live members)
        store.subscribe(self._on_pod, kinds=("Pod",))
        for pod in store.list("Pod"):
            self._on_pod(WatchEvent("ADDED", "Pod", pod))

    def _on_pod(self, ev: WatchEvent) -> None:
        key = group_key(ev.obj)
        if key is None:
            return
        uid = ev.obj["metadata"]["uid"]
        live = ev.type != DELETED and not ev.obj["metadata"].get("deletionTimestamp") and \
            (ev.obj.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
        members = self._members.setdefault(key, {})
        if live:
            members[uid] = ev.obj
        else:
            members.pop(uid, None)

    # -- lookups -------------------------------------------------------------------------------
    def pod_group(self, pod: dict) -> dict | None:
        key = group_key(pod)
        return self.store.get("PodGroup", key[0], key[1]) if key else None

    def min_count(self, pod: dict) -> int | None:
        """The gang minCount that governs this pod, or None (no group, basic policy, group missing)."""
        return gang_min_count(self.pod_group(pod)) if group_key(pod) else None

    def members(self, key: GroupKey) -> list[dict]:
        return list(self._members.get(key, {}).values())

    def member_uids(self, key: GroupKey) -> frozenset[str]:
        return frozenset(self._members.get(key, ()))

    # -- PreEnqueue ----------------------------------------------------------------------------
    def pre_enqueue(self, pod: dict) -> Status | None:
        key = group_key(pod)
        if key is None:
            return None
        group = self.store.get("PodGroup", *key)
        if group is None:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                          (f'waiting for pods\'s pod group "{key[1]}" to appear in scheduling queue',))
        need = gang_min_count(group)
        if need is not None and len(self._members.get(key, ())) < need:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (WAITING_FOR_PODS,))
        return None
