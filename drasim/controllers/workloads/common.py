"""Helpers every workload controller shares (see the package docstring for the list).

k8s: pkg/controller/controller_utils.go (GetPodFromTemplate, PodControl, FilterActivePods,
     IsPodActive), pkg/controller/controller_ref_manager.go (ClaimObject, adopt, release),
     staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/controller_ref.go, pkg/api/v1/pod/util.go.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Callable

from drasim.api.labelselector import LabelSelector
from drasim.errors import InputError
from drasim.sim.clock import Clock, parse_time
from drasim.store import MemoryStore, clone
from drasim.store.events import NORMAL, WARNING, record_event

POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
NAMESPACE_TERMINATING = "because it is being terminated"   # NamespaceLifecycle's refusal


@dataclass
class ControllerContext:
    store: MemoryStore
    clock: Clock
    create: Callable[[dict], dict]
    delete: Callable[..., "dict | None"]


def controller_ref(owner: dict) -> dict:
    """k8s: metav1.NewControllerRef — controller and blockOwnerDeletion both true."""
    md = owner["metadata"]
    return {"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": md["name"], "uid": md["uid"],
            "controller": True, "blockOwnerDeletion": True}


def controller_of(obj: dict) -> dict | None:
    """k8s: metav1.GetControllerOf — the owner reference with controller: true."""
    for ref in obj["metadata"].get("ownerReferences") or ():
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref
    return None


def is_controlled_by(obj: dict, owner: dict) -> bool:
    ref = controller_of(obj)
    return ref is not None and ref.get("uid") == owner["metadata"]["uid"]


def _pods_prefix(name: str) -> str:
    """k8s: getPodsPrefix — `<name>-` unless that is no valid pod name prefix (too long)."""
    prefix = f"{name}-"
    return prefix if len(prefix) <= 253 else name


def pod_from_template(template: dict, owner: dict, namespace: str) -> dict:
    """k8s: GetPodFromTemplate — labels, annotations and finalizers from the template's metadata,
    a deep copy of its spec, generateName `<owner>-`, the owner as controller."""
    t_md = template.get("metadata") or {}
    md: dict = {"generateName": _pods_prefix(owner["metadata"]["name"]), "namespace": namespace,
                "ownerReferences": [controller_ref(owner)]}
    for key in ("labels", "annotations"):
        if t_md.get(key):
            md[key] = dict(t_md[key])
    if t_md.get("finalizers"):
        md["finalizers"] = list(t_md["finalizers"])
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": clone(template.get("spec") or {})}


def is_namespace_terminating_error(error: Exception) -> bool:
    """k8s: apierrors.HasStatusCause(err, NamespaceTerminatingCause)."""
    return NAMESPACE_TERMINATING in str(error)


def create_pod(ctx: ControllerContext, template: dict, owner: dict, component: str) -> tuple[dict | None, InputError | None]:
    """k8s: RealPodControl.CreatePods — events SuccessfulCreate / FailedCreate (none for a
    namespace being terminated)."""
    pod = pod_from_template(template, owner, owner["metadata"].get("namespace") or "default")
    if not (pod["metadata"].get("labels") or {}):
        error = InputError("unable to create pods, no labels")
        record_event(ctx.store, owner, WARNING, "FailedCreate", f"Error creating: {error}", component)
        return None, error
    try:
        created = ctx.create(pod)
    except InputError as e:
        if not is_namespace_terminating_error(e):
            record_event(ctx.store, owner, WARNING, "FailedCreate", f"Error creating: {e}", component)
        return None, e
    record_event(ctx.store, owner, NORMAL, "SuccessfulCreate", f"Created pod: {created['metadata']['name']}",
                 component)
    return created, None


def delete_pod(ctx: ControllerContext, pod: dict, owner: dict, component: str) -> InputError | None:
    """k8s: RealPodControl.DeletePod — events SuccessfulDelete / FailedDelete; a pod already gone is fine."""
    md = pod["metadata"]
    if ctx.store.get("Pod", md.get("namespace"), md["name"]) is None:
        return None
    try:
        ctx.delete("Pod", md.get("namespace"), md["name"])
    except InputError as e:
        record_event(ctx.store, owner, WARNING, "FailedDelete", f"Error deleting: {e}", component)
        return e
    record_event(ctx.store, owner, NORMAL, "SuccessfulDelete", f"Deleted pod: {md['name']}", component)
    return None


# -- pod state (k8s: pkg/api/v1/pod/util.go, controller_utils.go) -----------------------------------

def is_pod_active(pod: dict) -> bool:
    """k8s: IsPodActive — not Succeeded/Failed and not being deleted."""
    phase = (pod.get("status") or {}).get("phase")
    return phase not in ("Succeeded", "Failed") and not pod["metadata"].get("deletionTimestamp")


def ready_condition(pod: dict) -> dict | None:
    for c in (pod.get("status") or {}).get("conditions") or ():
        if isinstance(c, dict) and c.get("type") == "Ready":
            return c
    return None


def is_pod_ready(pod: dict) -> bool:
    c = ready_condition(pod)
    return c is not None and c.get("status") == "True"


def is_pod_available(pod: dict, min_ready_seconds: int, now: float) -> bool:
    """k8s: podutil.IsPodAvailable — ready for at least minReadySeconds."""
    if not is_pod_ready(pod):
        return False
    if not min_ready_seconds:
        return True
    since = ready_condition(pod).get("lastTransitionTime")
    return bool(since) and parse_time(since) + min_ready_seconds <= now


def available_at(pod: dict, min_ready_seconds: int) -> float | None:
    """When a ready pod becomes available (None when it is not ready)."""
    c = ready_condition(pod)
    if c is None or c.get("status") != "True" or not c.get("lastTransitionTime"):
        return None
    return parse_time(c["lastTransitionTime"]) + min_ready_seconds


# -- ControllerRefManager ----------------------------------------------------------------------------

def claim_objects(ctx: ControllerContext, owner: dict, selector: LabelSelector, objects: list[dict]) -> list[dict]:
    """k8s: BaseControllerRefManager.ClaimObject for each object: keep what is ours and matches,
    adopt matching orphans (not while the owner is being deleted), release ours that no longer
    match. Returns the claimed objects (fresh from the store after a write)."""
    owner_md = owner["metadata"]
    deleting = bool(owner_md.get("deletionTimestamp"))
    claimed = []
    for obj in objects:
        md = obj["metadata"]
        ref = controller_of(obj)
        matches = selector.matches(md.get("labels") or {})
        if ref is not None:
            if ref.get("uid") != owner_md["uid"]:
                continue
            if matches:
                claimed.append(obj)
            elif not deleting:
                _write_refs(ctx, obj, [r for r in md.get("ownerReferences") or () if r.get("uid") != owner_md["uid"]])
            continue
        if deleting or not matches or md.get("deletionTimestamp"):
            continue
        if md.get("namespace") != owner_md.get("namespace"):
            continue
        adopted = _write_refs(ctx, obj, [*(md.get("ownerReferences") or ()), controller_ref(owner)])
        if adopted is not None:
            claimed.append(adopted)
    return claimed


def _write_refs(ctx: ControllerContext, obj: dict, refs: list[dict]) -> dict | None:
    updated = clone(obj)
    if refs:
        updated["metadata"]["ownerReferences"] = refs
    else:
        updated["metadata"].pop("ownerReferences", None)
    updated["metadata"].pop("resourceVersion", None)
    try:
        return ctx.store.update(updated)
    except InputError:
        return None


# -- work queue --------------------------------------------------------------------------------------

class KeyQueue:
    """A deduplicating FIFO of (namespace, name) keys, with delayed adds on the virtual clock
    (client-go's workqueue with AddAfter). A later add_after for a key replaces an earlier one."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._queue: deque[tuple[str, str]] = deque()
        self._queued: set[tuple[str, str]] = set()
        self._timers: dict[tuple[str, str], tuple[float, int | None]] = {}

    def add(self, key: tuple[str, str]) -> None:
        if key not in self._queued:
            self._queued.add(key)
            self._queue.append(key)

    def add_after(self, key: tuple[str, str], delay: float) -> None:
        when = self.clock.now + max(delay, 0)
        old = self._timers.get(key)
        if old is not None:
            if old[0] <= when:
                return
            self.clock.cancel(old[1])
        self._timers[key] = (when, self.clock.call_at(when, lambda: self._fire(key)))

    def forget(self, key: tuple[str, str]) -> None:
        """Cancel a delayed add (the object no longer needs the check)."""
        old = self._timers.pop(key, None)
        if old is not None:
            self.clock.cancel(old[1])

    def _fire(self, key: tuple[str, str]) -> None:
        self._timers.pop(key, None)
        self.add(key)

    def __bool__(self) -> bool:
        return bool(self._queue)

    def pop(self) -> tuple[str, str]:
        key = self._queue.popleft()
        self._queued.discard(key)
        return key
