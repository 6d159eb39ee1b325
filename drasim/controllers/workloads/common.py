"""Helpers every workload controller shares (see the package docstring for the list).

k8s: pkg/controller/controller_utils.go (GetPodFromTemplate, PodControl, FilterActivePods,
     IsPodActive), pkg/controller/controller_ref_manager.go (ClaimObject, adopt, release),
     staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/controller_ref.go, pkg/api/v1/pod/util.go.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Callable

from drasim.api.labelselector import LabelSelector, LabelSelectorError, compile_label_selector
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


def pod_from_template(template: dict, owner: dict, namespace: str | None = None, *, name: str | None = None) -> dict:
    """k8s: GetPodFromTemplate — labels, annotations and finalizers from the template's metadata,
    a deep copy of its spec, the owner as controller; generateName `<owner>-` unless a name is given
    (StatefulSet pods are named by ordinal). The namespace defaults to the owner's."""
    t_md = template.get("metadata") or {}
    md: dict = {"namespace": namespace or owner["metadata"].get("namespace") or "default"}
    if name:
        md["name"] = name
    else:
        md["generateName"] = _pods_prefix(owner["metadata"]["name"])
    md["ownerReferences"] = [controller_ref(owner)]
    for key in ("labels", "annotations"):
        if t_md.get(key):
            md[key] = dict(t_md[key])
    if t_md.get("finalizers"):
        md["finalizers"] = list(t_md["finalizers"])
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": clone(template.get("spec") or {})}


def selector_of(obj: dict) -> LabelSelector | None:
    """The compiled spec.selector, or None if it does not parse (validation refuses those)."""
    try:
        return compile_label_selector((obj.get("spec") or {}).get("selector"))
    except (LabelSelectorError, TypeError, AttributeError):
        return None


def is_namespace_terminating_error(error: Exception) -> bool:
    """k8s: apierrors.HasStatusCause(err, NamespaceTerminatingCause)."""
    return NAMESPACE_TERMINATING in str(error)


def create_pod(ctx: ControllerContext, template: dict, owner: dict, component: str) -> tuple[dict | None, InputError | None]:
    """k8s: RealPodControl.CreatePods — a pod from the template, created with events."""
    return submit_pod(ctx, pod_from_template(template, owner), owner, component)


def submit_pod(ctx: ControllerContext, pod: dict, owner: dict, component: str) -> tuple[dict | None, InputError | None]:
    """k8s: RealPodControl.createPods — events SuccessfulCreate / FailedCreate (none for a
    namespace being terminated). Returns (stored pod, None) or (None, the API server's error)."""
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

def phase(pod: dict) -> str:
    return (pod.get("status") or {}).get("phase") or ""


def is_terminating(pod: dict) -> bool:
    return bool(pod["metadata"].get("deletionTimestamp"))


def is_terminal(pod: dict) -> bool:
    return phase(pod) in ("Succeeded", "Failed")


def is_pod_active(pod: dict) -> bool:
    """k8s: IsPodActive — not Succeeded/Failed and not being deleted."""
    return not is_terminal(pod) and not is_terminating(pod)


def ready_condition(pod: dict) -> dict | None:
    for c in (pod.get("status") or {}).get("conditions") or ():
        if isinstance(c, dict) and c.get("type") == "Ready":
            return c
    return None


def is_pod_ready(pod: dict) -> bool:
    """k8s: podutil.IsPodReady."""
    c = ready_condition(pod)
    return c is not None and c.get("status") == "True"


def available_at(pod: dict, min_ready_seconds: int) -> float | None:
    """When a ready pod counts as available (k8s: podutil.IsPodAvailable): at once without
    minReadySeconds (-inf), else minReadySeconds after its Ready condition's lastTransitionTime.
    None when it is not ready, or when that time is unknown (IsPodAvailable: never available)."""
    c = ready_condition(pod)
    if c is None or c.get("status") != "True":
        return None
    if not min_ready_seconds:
        return float("-inf")
    try:
        return parse_time(c["lastTransitionTime"]) + min_ready_seconds if c.get("lastTransitionTime") else None
    except ValueError:
        return None


def is_pod_available(pod: dict, min_ready_seconds: int, now: float) -> bool:
    """k8s: podutil.IsPodAvailable — ready for at least minReadySeconds."""
    when = available_at(pod, min_ready_seconds)
    return when is not None and when <= now


# -- ControllerRefManager ----------------------------------------------------------------------------

def claim_objects(ctx: ControllerContext, owner: dict, selector: LabelSelector, objects: list[dict],
                  accept: Callable[[dict], bool] = lambda obj: True) -> list[dict]:
    """k8s: BaseControllerRefManager.ClaimObject for each object: keep what is ours and matches,
    adopt matching orphans (not while the owner is being deleted), release ours that no longer
    match. `accept` is ClaimPods' extra filter (a StatefulSet only claims pods named after it).
    Returns the claimed objects (fresh from the store after a write)."""
    owner_md = owner["metadata"]
    deleting = bool(owner_md.get("deletionTimestamp"))
    claimed = []
    for obj in objects:
        md = obj["metadata"]
        ref = controller_of(obj)
        matches = selector.matches(md.get("labels") or {}) and accept(obj)
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


def claim_pods(ctx: ControllerContext, owner: dict, accept: Callable[[dict], bool] = lambda pod: True) -> list[dict]:
    """k8s: PodControllerRefManager.ClaimPods over the owner's namespace, by name, with its
    spec.selector (a selector that does not parse, or selects everything, claims nothing)."""
    selector = selector_of(owner)
    if selector is None or selector.empty:
        return []
    pods = sorted(ctx.store.list("Pod", owner["metadata"].get("namespace")), key=lambda p: p["metadata"]["name"])
    return claim_objects(ctx, owner, selector, pods, accept)


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
