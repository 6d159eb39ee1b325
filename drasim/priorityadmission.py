"""The Priority admission plugin: a pod's spec.priority and spec.preemptionPolicy come from its
PriorityClass, and a PriorityClass may be the global default only alone.

k8s: plugin/pkg/admission/priority/admission.go (admitPod, validatePriorityClass,
getDefaultPriorityClass). The two system classes (system-cluster-critical, system-node-critical)
always exist in a real cluster (kube-apiserver creates them at start and refuses to delete
them); drasim resolves them without storing them, so `kubectl get priorityclasses` lists only
the classes the manifests hold.
"""
from __future__ import annotations

from typing import Iterable

from drasim.api.validation.scheduling import SYSTEM_PRIORITY_CLASSES
from drasim.errors import InputError

__all__ = ["admit_pod", "validate_priority_class", "GIVEN_NOTHING"]

DEFAULT_PRIORITY = 0                       # k8s: DefaultPriorityWhenNoDefaultClassExists
DEFAULT_PREEMPTION_POLICY = "PreemptLowerPriority"
GIVEN_NOTHING = (None, None)


# `phase_classes`: the PriorityClasses of the phase being admitted (not stored yet), in any order,
# as a phase's Namespaces are (a Helm chart puts its classes first; a folder of files may not).
def _classes(store, phase_classes: Iterable[dict]) -> Iterable[dict]:
    yield from store.list("PriorityClass")
    yield from phase_classes


def _find(store, phase_classes: Iterable[dict], name: str) -> dict | None:
    if name in SYSTEM_PRIORITY_CLASSES:
        return {"metadata": {"name": name}, "value": SYSTEM_PRIORITY_CLASSES[name],
                "preemptionPolicy": DEFAULT_PREEMPTION_POLICY}
    found = store.get("PriorityClass", None, name)
    if found is None:
        found = next((o for o in phase_classes if _name(o) == name), None)
    return found


def _name(pc: dict) -> object:
    md = pc.get("metadata")
    return md.get("name") if isinstance(md, dict) else None


def _value(pc: dict) -> int:
    value = pc.get("value")
    return value if isinstance(value, int) else 0   # another type is refused where the class is admitted


def default_class(store, phase_classes: Iterable[dict] = (), besides: object = None) -> dict | None:
    """The global default; of several (a race in a real cluster), the lowest value."""
    best = None
    for pc in _classes(store, phase_classes):
        if _name(pc) == besides:
            continue
        if pc.get("globalDefault") is True and (best is None or _value(pc) < _value(best)):
            best = pc
    return best


def _forbidden(resource: str, name: str, source: str, message: str) -> InputError:
    prefix = f"{source}: " if source else ""
    return InputError(f'{prefix}{resource} "{name}" is forbidden: {message}')


def admit_pod(store, pod: dict, given: tuple[object, object], old: dict | None, phase_classes: Iterable[dict],
              source: str, resource: str = "pods") -> None:
    """Set spec.priority / preemptionPolicy of a pod being created; `given` is what the request
    itself held (before drasim's defaulting). On an update the stored priority is kept."""
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return
    given_priority, given_policy = given
    if old is not None:   # admitPod's Update branch; validation refuses any change
        old_spec = old.get("spec") or {}
        if given_priority is None and old_spec.get("priority") is not None:
            spec["priority"] = old_spec["priority"]
        if given_policy is None and old_spec.get("preemptionPolicy") is not None:
            spec["preemptionPolicy"] = old_spec["preemptionPolicy"]
        return
    # An object of a cluster snapshot (it has a uid, a node or a status) was admitted by its
    # cluster, whose PriorityClasses the snapshot may not hold: its priority is kept as it is.
    status = pod.get("status")
    live = bool((pod.get("metadata") or {}).get("uid") or spec.get("nodeName")) or (
        isinstance(status, dict) and bool(status.get("conditions") or status.get("startTime")))
    name = spec.get("priorityClassName")
    if name:
        pc = _find(store, phase_classes, name)
        if pc is None:
            if live and given_priority is not None:
                return   # a snapshot's running pod: admitted by its cluster, whose classes the snapshot may lack
            raise _forbidden(resource, pod["metadata"].get("name") or "", source,
                             f"no PriorityClass with name {name} was found")
    else:
        pc = default_class(store, phase_classes)
        if pc is not None:
            spec["priorityClassName"] = _name(pc)
    priority = _value(pc) if pc is not None else DEFAULT_PRIORITY
    policy = (pc.get("preemptionPolicy") if pc is not None else None) or DEFAULT_PREEMPTION_POLICY
    if live and given_priority is not None:
        return   # kept as its cluster admitted it
    pod_name = pod["metadata"].get("name") or ""
    if given_priority is not None and given_priority != priority:
        raise _forbidden(resource, pod_name, source,
                         f"the integer value of priority ({given_priority}) must not be provided in pod spec; "
                         f"priority admission controller computed {priority} from the given PriorityClass name")
    spec["priority"] = priority
    if given_policy is not None and given_policy != policy:
        raise _forbidden(resource, pod_name, source,
                         f"the string value of PreemptionPolicy ({given_policy}) must not be provided in pod "
                         f"spec; priority admission controller computed {policy} from the given PriorityClass name")
    spec["preemptionPolicy"] = policy


def validate_priority_class(store, pc: dict, old: dict | None, phase_classes: Iterable[dict], source: str) -> None:
    """Only one global default (validatePriorityClass)."""
    if pc.get("globalDefault") is not True:
        return
    name = pc["metadata"].get("name") or ""
    current = default_class(store, phase_classes, besides=name)
    if current is not None:
        raise _forbidden("priorityclasses.scheduling.k8s.io", name, source,
                         f"PriorityClass {current['metadata']['name']} is already marked as default. "
                         "Only one default can exist")
