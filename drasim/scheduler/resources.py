"""Resource vectors for node fit. k8s: pkg/scheduler/framework/types.go (Resource)."""
from __future__ import annotations

from drasim.api.decodedjson import json_key
from drasim.api.podresources import CPU, MEMORY, is_sidecar, quantity_units, resource_list
from drasim.api.podresources import pod_requests as _pod_requests

# k8s: pkg/scheduler/util/pod_resources.go. Used for scoring only, so that
# pods without requests still spread instead of piling onto one node.
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024


class Resources(dict):
    """name -> integer amount (cpu in millicores); missing means zero."""

    def __add__(self, other: dict) -> "Resources":
        out = Resources(self)
        for k, v in other.items():
            out[k] = out.get(k, 0) + v
        return out

    def __sub__(self, other: dict) -> "Resources":
        out = Resources(self)
        for k, v in other.items():
            out[k] = out.get(k, 0) - v
        return out


# The scheduler sees stored pods, which are never changed in place (the store replaces them), and
# a pod's status updates keep its spec object: PreFilter, Score, the cache and the signature ask
# about the same spec several times per cycle. Keyed by the spec's identity (the entry keeps the
# spec alive, so its id is not reused while it is there).
_REQUESTS: dict[int, tuple[dict, dict[str, int], tuple[int, int]]] = {}


# A fleet's pods repeat a few specs, each pod with its own spec object (a snapshot read, a
# template rendered): what the requests are computed from, by content, too. Stored pods come
# decoded, so json_key tells their contents apart (drasim/api/decodedjson.py).
_BY_CONTENT: dict[bytes | str, tuple[dict[str, int], tuple[int, int]]] = {}


def _memo(pod: dict) -> tuple[dict, dict[str, int], tuple[int, int]]:
    spec = pod.get("spec") or {}
    hit = _REQUESTS.get(id(spec))
    if hit is None or hit[0] is not spec:
        key = json_key((spec.get("containers"), spec.get("initContainers"), spec.get("resources"),
                        spec.get("overhead")))   # all that both computations read
        found = _BY_CONTENT.get(key)
        if found is None:
            if len(_BY_CONTENT) >= 8192:
                _BY_CONTENT.clear()
            found = _BY_CONTENT[key] = (_pod_requests(pod), _non_zero_requests(pod))
        if len(_REQUESTS) >= 8192:
            _REQUESTS.clear()
        hit = _REQUESTS[id(spec)] = (spec, found[0], found[1])
    return hit


def requests_memo(pod: dict) -> tuple[dict[str, int], tuple[int, int]]:
    """(pod_requests, non_zero_requests) in one look-up, the first shared: read it, never change it."""
    hit = _memo(pod)
    return hit[1], hit[2]


def pod_requests(pod: dict) -> Resources:
    """Effective requests of a pod (k8s PodRequests); a fresh vector."""
    return Resources(_memo(pod)[1])


# --- non-zero requests (scoring) ---------------------------------------------------

def _non_zero_container(container: dict) -> tuple[int, int]:
    requests = (container.get("resources") or {}).get("requests") or {}
    # k8s: applyNonMissing: a missing request gets the default; an explicit 0 stays 0.
    cpu = quantity_units(CPU, requests[CPU]) if CPU in requests else DEFAULT_MILLI_CPU_REQUEST
    mem = quantity_units(MEMORY, requests[MEMORY]) if MEMORY in requests else DEFAULT_MEMORY_REQUEST
    return cpu, mem


def non_zero_requests(pod: dict) -> tuple[int, int]:
    """See _non_zero_requests (memoised like pod_requests)."""
    return _memo(pod)[2]


def _non_zero_requests(pod: dict) -> tuple[int, int]:
    """(milli-cpu, memory) of PodRequests with NonMissingContainerRequests = {100m, 200Mi}.

    Same aggregation as drasim.api.podresources.pod_requests (sidecars add up,
    init containers by max of their phase), then pod-level requests replace
    cpu/memory and overhead is added.
    """
    spec = pod.get("spec") or {}
    cpu = mem = 0
    for c in spec.get("containers") or ():
        c_cpu, c_mem = _non_zero_container(c)
        cpu, mem = cpu + c_cpu, mem + c_mem
    side_cpu = side_mem = init_cpu = init_mem = 0
    for c in spec.get("initContainers") or ():
        c_cpu, c_mem = _non_zero_container(c)
        if is_sidecar(c):
            cpu, mem = cpu + c_cpu, mem + c_mem
            side_cpu, side_mem = side_cpu + c_cpu, side_mem + c_mem
            phase_cpu, phase_mem = side_cpu, side_mem
        else:
            phase_cpu, phase_mem = c_cpu + side_cpu, c_mem + side_mem
        init_cpu, init_mem = max(init_cpu, phase_cpu), max(init_mem, phase_mem)
    cpu, mem = max(cpu, init_cpu), max(mem, init_mem)
    pod_level = resource_list((spec.get("resources") or {}).get("requests"))
    cpu, mem = pod_level.get(CPU, cpu), pod_level.get(MEMORY, mem)
    overhead = resource_list(spec.get("overhead"))
    return cpu + overhead.get(CPU, 0), mem + overhead.get(MEMORY, 0)
