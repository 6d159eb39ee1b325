"""What the workload controllers share: pods from a PodTemplateSpec, controller references, adoption,
pod state, revision hashes, and a work queue.

k8s: pkg/controller/controller_utils.go (GetPodFromTemplate, FilterActivePods, RealPodControl),
     pkg/controller/controller_ref_manager.go (PodControllerRefManager.ClaimPods),
     pkg/api/v1/pod/util.go (IsPodReady, IsPodAvailable), pkg/controller/history (HashControllerRevision),
     apimachinery util/rand SafeEncodeString.
Creates go through the API server's write path (ControlPlane.controller_create: defaults, validation,
quota admission), so a pod a controller makes is treated like any other.

Expectations (k8s: ControllerExpectations) are not needed: the store notifies synchronously, so a
controller always sees the pods it created before its next sync.
"""
from __future__ import annotations

import json
from collections import deque
from typing import Callable

from drasim.api.labelselector import LabelSelectorError, compile_label_selector
from drasim.errors import InputError
from drasim.sim.clock import parse_time
from drasim.store import MemoryStore, clone

CONTROLLER_REVISION_HASH_LABEL = "controller-revision-hash"
# k8s: util/rand: the alphabet of generated names and safe-encoded hashes.
_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"


def controller_ref(owner: dict) -> dict:
    """k8s: metav1.NewControllerRef."""
    md = owner["metadata"]
    return {"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": md["name"], "uid": md["uid"],
            "controller": True, "blockOwnerDeletion": True}


def controller_of(obj: dict) -> dict | None:
    """k8s: metav1.GetControllerOf."""
    for ref in obj["metadata"].get("ownerReferences") or ():
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref
    return None


def pod_from_template(template: dict, owner: dict, *, name: str | None = None) -> dict:
    """k8s: GetPodFromTemplate: labels, annotations and finalizers of the template, its spec, the owner's
    namespace and controller reference; generateName `<owner>-` unless a name is given."""
    t_md = template.get("metadata") or {}
    md: dict = {"namespace": owner["metadata"].get("namespace") or "default"}
    if name:
        md["name"] = name
    else:
        md["generateName"] = owner["metadata"]["name"] + "-"
    for key in ("labels", "annotations"):
        if t_md.get(key):
            md[key] = dict(t_md[key])
    if t_md.get("finalizers"):
        md["finalizers"] = list(t_md["finalizers"])
    md["ownerReferences"] = [controller_ref(owner)]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": clone(template.get("spec") or {})}


def selector_of(obj: dict):
    """The compiled spec.selector, or None if it does not parse (validation refuses those)."""
    try:
        return compile_label_selector((obj.get("spec") or {}).get("selector"))
    except (LabelSelectorError, TypeError, AttributeError):
        return None


def claim_pods(store: MemoryStore, owner: dict, accept: Callable[[dict], bool] = lambda pod: True) -> list[dict]:
    """k8s: PodControllerRefManager.ClaimPods: the pods the owner controls, after adopting orphans that
    match its selector and releasing owned pods that no longer match. `accept` narrows what may be
    claimed (the StatefulSet controller only claims pods named after the set)."""
    md = owner["metadata"]
    uid, ns = md["uid"], md.get("namespace")
    selector = selector_of(owner)
    deleting = bool(md.get("deletionTimestamp"))
    claimed: list[dict] = []
    for pod in sorted(store.list("Pod", ns), key=lambda p: p["metadata"]["name"]):
        ref = controller_of(pod)
        matches = selector is not None and not selector.empty and selector.matches(
            pod["metadata"].get("labels") or {}) and accept(pod)
        if ref is not None:
            if ref.get("uid") != uid:
                continue
            if matches or deleting:
                claimed.append(pod)
            else:
                claimed_off = clone(pod)
                claimed_off["metadata"]["ownerReferences"] = [r for r in pod["metadata"]["ownerReferences"]
                                                              if r.get("uid") != uid]
                claimed_off["metadata"].pop("resourceVersion", None)
                store.update(claimed_off)
            continue
        if matches and not deleting and not pod["metadata"].get("deletionTimestamp"):
            adopted = clone(pod)
            adopted["metadata"].setdefault("ownerReferences", []).append(controller_ref(owner))
            adopted["metadata"].pop("resourceVersion", None)
            claimed.append(store.update(adopted))
    return claimed


# -- pod state (k8s: pkg/api/v1/pod/util.go, controller_utils.go) ---------------------------------

def phase(pod: dict) -> str:
    return (pod.get("status") or {}).get("phase") or ""


def is_terminating(pod: dict) -> bool:
    return bool(pod["metadata"].get("deletionTimestamp"))


def is_terminal(pod: dict) -> bool:
    return phase(pod) in ("Succeeded", "Failed")


def is_active(pod: dict) -> bool:
    """k8s: IsPodActive — not finished and not being deleted."""
    return not is_terminal(pod) and not is_terminating(pod)


def _ready_condition(pod: dict) -> dict | None:
    for c in (pod.get("status") or {}).get("conditions") or ():
        if isinstance(c, dict) and c.get("type") == "Ready":
            return c
    return None


def is_ready(pod: dict) -> bool:
    """k8s: podutil.IsPodReady."""
    c = _ready_condition(pod)
    return c is not None and c.get("status") == "True"


def available_at(pod: dict, min_ready_seconds: int) -> float | None:
    """When a ready pod counts as available (Ready for minReadySeconds); None if not ready.
    k8s: podutil.IsPodAvailable."""
    c = _ready_condition(pod)
    if c is None or c.get("status") != "True":
        return None
    if not min_ready_seconds:
        return float("-inf")
    since = c.get("lastTransitionTime")
    try:
        return parse_time(since) + min_ready_seconds if since else float("-inf")
    except ValueError:
        return float("-inf")


# -- revision hashes ------------------------------------------------------------------------------

def safe_encode(text: str) -> str:
    """k8s: rand.SafeEncodeString."""
    return "".join(_ALPHANUMS[ord(ch) % len(_ALPHANUMS)] for ch in text)


def template_hash(template: dict, collision_count: int = 0) -> str:
    """A ControllerRevision hash of a pod template: FNV-1 (32 bit) over the revision's data, the JSON
    patch `{"spec":{"template":{..., "$patch":"replace"}}}`, safe-encoded (k8s: history.HashControllerRevision,
    statefulset/daemonset getPatch). The shape is Kubernetes'; the value cannot equal the one a
    cluster shows, because the API server's template carries defaults drasim does not fill
    (imagePullPolicy, terminationMessagePath, securityContext, ...) and Go's encoder orders fields
    by struct, not by name. It is deterministic: the same template gives the same hash."""
    patch = {"spec": {"template": dict(template, **{"$patch": "replace"})}}
    data = json.dumps(patch, sort_keys=True, separators=(",", ":")).encode()
    h = 0x811C9DC5
    for byte in data:
        h = (h * 0x01000193) & 0xFFFFFFFF
        h ^= byte
    if collision_count:
        for byte in str(collision_count).encode():
            h = (h * 0x01000193) & 0xFFFFFFFF
            h ^= byte
    return safe_encode(str(h))


class RevisionNames:
    """The revision name of an object's current template, per object uid.

    A snapshot of a live cluster carries Kubernetes' own revision names (which drasim's hash cannot
    reproduce, see template_hash): the first time an object is seen, `seed` (what its status or its
    pods say) names its template as it is then, so replaying the snapshot does not roll its pods.
    A later template change gets drasim's hash."""

    def __init__(self) -> None:
        self._names: dict[str, dict[str, str]] = {}

    def name(self, uid: str, computed: str, seed: str | None) -> str:
        known = self._names.get(uid)
        if known is None:
            known = self._names[uid] = {computed: seed or computed}
        return known.setdefault(computed, computed)


# -- creation -------------------------------------------------------------------------------------

def create_pod(create: Callable[[dict], dict], pod: dict) -> tuple[dict | None, str | None]:
    """Create through the API server; (stored pod, None) or (None, the API server's message)."""
    try:
        return create(pod), None
    except InputError as e:
        return None, str(e)


class WorkQueue:
    """A controller's queue of (namespace, name) keys, each queued once (k8s: workqueue)."""

    def __init__(self) -> None:
        self._keys: deque[tuple[str, str]] = deque()
        self._queued: set[tuple[str, str]] = set()

    def add(self, ns: str, name: str) -> None:
        key = (ns or "", name)
        if key not in self._queued:
            self._queued.add(key)
            self._keys.append(key)

    def __bool__(self) -> bool:
        return bool(self._keys)

    def pop(self) -> tuple[str, str]:
        key = self._keys.popleft()
        self._queued.discard(key)
        return key


__all__ = ["CONTROLLER_REVISION_HASH_LABEL", "RevisionNames", "WorkQueue", "available_at", "claim_pods", "controller_of",
           "controller_ref", "create_pod", "is_active", "is_ready", "is_terminal", "is_terminating", "phase",
           "pod_from_template", "safe_encode", "selector_of", "template_hash"]
