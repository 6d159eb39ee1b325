"""Effective resource requests of a pod, as kube-scheduler and quota compute them.

k8s: staging/src/k8s.io/component-helpers/resource/helpers.go (PodRequests).
Regular containers and sidecars (init containers with restartPolicy Always)
add up; each ordinary init container runs alone next to the sidecars started
before it, so the pod needs the maximum of those phases; overhead is added.
Values are integers: cpu in millicores, everything else in whole units
(rounded up, as Quantity.Value() does).
"""
from __future__ import annotations

from drasim.api.quantity import parse_quantity

CPU = "cpu"
MEMORY = "memory"
PODS = "pods"


def quantity_units(name: str, value: object) -> int:
    q = parse_quantity(value)  # type: ignore[arg-type]
    return q.milli_value() if name == CPU else q.int_value()


def resource_list(values: dict | None) -> dict[str, int]:
    return {name: quantity_units(name, v) for name, v in (values or {}).items()}


def _add(into: dict[str, int], other: dict[str, int]) -> None:
    for k, v in other.items():
        into[k] = into.get(k, 0) + v


def _max(into: dict[str, int], other: dict[str, int]) -> None:
    for k, v in other.items():
        if v > into.get(k, 0):
            into[k] = v


def is_sidecar(container: dict) -> bool:
    return container.get("restartPolicy") == "Always"


def container_requests(container: dict) -> dict[str, int]:
    return resource_list((container.get("resources") or {}).get("requests"))


def pod_requests(pod: dict) -> dict[str, int]:
    """The pod's effective requests (k8s PodRequests), by resource name."""
    spec = pod.get("spec") or {}
    reqs: dict[str, int] = {}
    for c in spec.get("containers") or ():
        _add(reqs, container_requests(c))
    sidecars: dict[str, int] = {}
    init_max: dict[str, int] = {}
    for c in spec.get("initContainers") or ():
        creq = container_requests(c)
        if is_sidecar(c):
            _add(reqs, creq)
            _add(sidecars, creq)
            phase = dict(sidecars)
        else:
            phase = dict(creq)
            _add(phase, sidecars)
        _max(init_max, phase)
    _max(reqs, init_max)
    # Pod-level resources (PodLevelResources, on by default) replace the
    # container sum for the resources they name (cpu, memory).
    pod_level = resource_list(((spec.get("resources") or {}).get("requests")))
    for k, v in pod_level.items():
        if k in (CPU, MEMORY):
            reqs[k] = v
    _add(reqs, resource_list(spec.get("overhead")))
    return reqs
