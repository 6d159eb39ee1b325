"""Extended resources served by DRA: routing, the special claim's requests, its metadata.

Pure helpers for the DynamicResources plugin (spec §3, §5, §6).
k8s: pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources.go

Flow: PreFilter computes `pod_extended_requests(pod)` once and checks
`has_mapped_extended_resource`; Filter calls `route_extended_resources` per node
and, if some name is DRA-routed, `build_requests_and_mappings` for that node's
variant of the claim; PreBind creates `new_extended_resource_claim(...)`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from drasim.api.extendedresource import ExtendedResourceCache, is_dra_extended_resource_name
from drasim.api.podresources import is_sidecar, pod_requests, resource_list
from drasim.api.quantity import QuantityError, parse_quantity

__all__ = [
    "EXTENDED_RESOURCE_CLAIM_ANNOTATION",
    "GENERATED_NAME_BASE_MAX",
    "REASON_CANNOT_FIT_RESOURCE",
    "REASON_CANNOT_SCHEDULE_EXTENDED_RESOURCE_CLAIM",
    "SPECIAL_CLAIM_IN_MEMORY_NAME",
    "Routing",
    "build_requests_and_mappings",
    "dra_routed_names",
    "has_mapped_extended_resource",
    "is_extended_resource_claim_of",
    "name_from_generate_name",
    "new_extended_resource_claim",
    "pod_extended_requests",
    "route_extended_resources",
]

# k8s: staging/src/k8s.io/api/resource/v1/types.go (ExtendedResourceClaimAnnotation); value must be "true".
EXTENDED_RESOURCE_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
# k8s: extendeddynamicresources.go (specialClaimInMemName): deliberately not a valid object name.
SPECIAL_CLAIM_IN_MEMORY_NAME = "<extended-resources>"
# Filter reasons, verbatim (spec §3.6).
REASON_CANNOT_FIT_RESOURCE = "cannot fit resource"
REASON_CANNOT_SCHEDULE_EXTENDED_RESOURCE_CLAIM = "cannot schedule extended resource claim"
# k8s: staging/src/k8s.io/apiserver/pkg/storage/names/generate.go: 63 - 5 random characters.
GENERATED_NAME_BASE_MAX = 58


# --- §3: which names a node serves through DRA -----------------------------------------


def pod_extended_requests(pod: dict) -> dict[str, int]:
    """Pod-level requests (init max / sum rules) of DRA-extended names, zeros dropped.

    Computed once per cycle (PreFilter); spec §3 "pod request". k8s: PodRequests +
    framework.NewResource(...).ScalarResources, filtered as filterExtendedResources does.
    """
    return {name: q for name, q in pod_requests(pod).items()
            if q != 0 and is_dra_extended_resource_name(name)}


def has_mapped_extended_resource(extended_requests: Mapping[str, int], cache: ExtendedResourceCache) -> bool:
    """PreFilter gate (spec §7.1): some requested DRA-extended name resolves to a class.
    k8s: hasDeviceClassMappedExtendedResource"""
    return any(cache.class_for(name) is not None for name in extended_requests)


@dataclass(frozen=True, slots=True)
class Routing:
    """The per-(node, name) decision of spec §3.1 for one pod on one node.

    dra: names DynamicResources must allocate on this node (name -> pod request);
    device_plugin: names left to NodeResourcesFit (allocatable listed, and > 0 or no class);
    unresolved: names neither listed by the node nor mapped to a class
    (DynamicResources rejects the node with `cannot fit resource`).
    """

    dra: dict[str, int]
    device_plugin: tuple[str, ...]
    unresolved: tuple[str, ...]

    @property
    def fits(self) -> bool:
        return not self.unresolved


def route_extended_resources(extended_requests: Mapping[str, int], allocatable: Mapping[str, int],
                             cache: ExtendedResourceCache) -> Routing:
    """spec §3.1-§3.4 over pre-computed inputs (the hot path: one call per node).

    k8s: filterExtendedResources. DRA when a class resolves and allocatable is absent
    or 0; `cannot fit` when not listed and no class; otherwise the device-plugin path.
    """
    dra: dict[str, int] = {}
    device_plugin: list[str] = []
    unresolved: list[str] = []
    for name in sorted(extended_requests):
        quantity = extended_requests[name]
        if quantity == 0 or not is_dra_extended_resource_name(name):
            continue
        listed = name in allocatable
        if cache.class_for(name) is not None and allocatable.get(name, 0) == 0:
            dra[name] = quantity
        elif not listed:
            unresolved.append(name)
        else:
            device_plugin.append(name)
    return Routing(dra, tuple(device_plugin), tuple(unresolved))


def dra_routed_names(pod: dict, node: dict, cache: ExtendedResourceCache) -> Routing:
    """Convenience wrapper of route_extended_resources for one pod and one node dict."""
    status = node.get("status") or {}
    allocatable = resource_list(status.get("allocatable") or status.get("capacity"))
    return route_extended_resources(pod_extended_requests(pod), allocatable, cache)


# --- §5: the claim's requests and the container mappings -----------------------------------


def _container_quantity(container: dict, name: str) -> int:
    """Integer quantity of *name* in the container's requests; 0 if absent or fractional.

    k8s: createResourceRequestAndMappings uses Quantity.AsInt64 on the stored
    (canonical) quantity: a non-integer value yields no request at all (spec §12.4).
    """
    value = ((container.get("resources") or {}).get("requests") or {}).get(name)
    if value is None:
        return 0
    try:
        q = parse_quantity(value)
    except QuantityError:
        return 0
    value = q.value
    if value.denominator != 1:
        return 0
    n = value.numerator   # an int: compared without Fraction arithmetic
    return n if -(2**63) <= n < 2**63 else 0


def _request_index(container: dict, name: str) -> int:
    """spec §5.2: position of *name* among all of the container's request keys, byte order."""
    keys = sorted(((container.get("resources") or {}).get("requests") or {}),
                  key=lambda k: k.encode())
    return keys.index(name)


def _device_request(name: str, class_name: str, count: int) -> dict:
    # spec §5.3: exactly one ExactCount selection of the class, nothing else.
    return {"name": name, "exactly": {"deviceClassName": class_name,
                                      "allocationMode": "ExactCount", "count": count}}


def _mapping(container: dict, resource: str, request_name: str) -> dict:
    return {"containerName": container.get("name", ""), "resourceName": resource,
            "requestName": request_name}


def _own_or_reused(index: int, container: dict, resource: str, class_name: str,
                   reusable: Iterable[dict | None]) -> tuple[dict | None, list[dict]]:
    """One container's share of *resource*: reuse requests first, then its own remainder.

    spec §5.4-§5.5. Long-lived containers pass nothing reusable; a short-lived one
    passes the long-lived requests at indices >= its own, in index order.
    """
    want = _container_quantity(container, resource)
    if want == 0:
        return None, []
    mappings: list[dict] = []
    covered = 0
    for request in reusable:
        if request is None:
            continue
        covered += request["exactly"]["count"]
        mappings.append(_mapping(container, resource, request["name"]))
        if covered >= want:
            return None, mappings
    name = f"container-{index}-request-{_request_index(container, resource)}"
    mappings.append(_mapping(container, resource, name))
    return _device_request(name, class_name, want - covered), mappings


def _for_resource(containers: list[dict], long_lived: list[int], short_lived: list[int],
                  resource: str, class_name: str) -> tuple[list[dict], list[dict]]:
    """Requests and mappings of one DRA-routed name (spec §5.4-§5.6, §5.9 order)."""
    long_requests: list[dict | None] = [None] * len(containers)
    long_mappings: list[dict] = []
    for i in long_lived:
        long_requests[i], maps = _own_or_reused(i, containers[i], resource, class_name, ())
        long_mappings += maps
    # spec §5.6: short-lived containers run one at a time and share the largest
    # remainder (first one on a tie); mappings to the others are rewritten to it.
    largest: dict | None = None
    short_names: set[str] = set()
    short_mappings: list[dict] = []
    for i in short_lived:
        request, maps = _own_or_reused(i, containers[i], resource, class_name, long_requests[i:])
        if request is not None:
            short_names.add(request["name"])
            if largest is None or largest["exactly"]["count"] < request["exactly"]["count"]:
                largest = request
        short_mappings += maps
    if largest is not None and len(short_names) > 1:
        short_names.discard(largest["name"])
        short_mappings = [dict(m, requestName=largest["name"]) if m["requestName"] in short_names else m
                          for m in short_mappings]
    requests = ([largest] if largest is not None else []) + [r for r in long_requests if r is not None]
    return requests, long_mappings + short_mappings


def build_requests_and_mappings(pod: dict, routed: Iterable[str],
                                cache: ExtendedResourceCache) -> tuple[list[dict], list[dict]]:
    """The node-specific special claim's `spec.devices.requests` and the pod's
    `extendedResourceClaimStatus.requestMappings` (spec §5).

    *routed* holds the DRA-routed names of the chosen node (Routing.dra); names that
    no longer resolve to a class are skipped. Containers are numbered over
    initContainers + containers (spec §5.1); ephemeral containers never count (§4.4).
    k8s: createRequestsAndMappings, createResourceRequestAndMappings, partitionContainerIndices
    """
    spec = pod.get("spec") or {}
    inits = spec.get("initContainers") or []
    containers = list(inits) + list(spec.get("containers") or [])
    long_lived: list[int] = []
    short_lived: list[int] = []
    for i, container in enumerate(containers):
        if i < len(inits) and not is_sidecar(container):
            short_lived.append(i)
        else:
            long_lived.append(i)
    requests: list[dict] = []
    mappings: list[dict] = []
    for resource in sorted(set(routed), key=lambda n: n.encode()):   # spec §5.9: byte order
        class_name = cache.class_for(resource)
        if class_name is None:
            continue
        reqs, maps = _for_resource(containers, long_lived, short_lived, resource, class_name)
        requests += reqs
        mappings += maps
    requests.sort(key=lambda r: r["name"].encode())                   # spec §5.8
    return requests, mappings


# --- §6: the claim object ------------------------------------------------------------------


def new_extended_resource_claim(pod: dict, requests: list[dict]) -> dict:
    """The ResourceClaim the scheduler creates in PreBind (spec §6.2), before the API
    server assigns a name: no name, no uid, no finalizer, no status.

    k8s: preFilterExtendedResources (metadata) + createExtendedResourceClaimInAPI.
    """
    meta = pod.get("metadata") or {}
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "namespace": meta.get("namespace", ""),
            "generateName": f"{meta.get('name', '')}-extended-resources-",
            "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": meta.get("name", ""),
                                 "uid": meta.get("uid", ""), "controller": True}],
            "annotations": {EXTENDED_RESOURCE_CLAIM_ANNOTATION: "true"},
        },
        "spec": {"devices": {"requests": [_copy_request(r) for r in requests]}},
    }


def _copy_request(request: dict) -> dict:
    return {"name": request["name"], "exactly": dict(request["exactly"])}


def name_from_generate_name(generate_name: str, suffix: str) -> str:
    """The API server's generated name: base cut to 58 characters + 5 random ones (spec §6.2).
    k8s: staging/src/k8s.io/apiserver/pkg/storage/names/generate.go"""
    return generate_name[:GENERATED_NAME_BASE_MAX] + suffix


def is_extended_resource_claim_of(claim: dict, pod: dict) -> bool:
    """spec §6.4: annotation exactly "true" and a controller owner reference with the
    pod's name and UID (kind and namespace are not checked, as in Kubernetes).
    k8s: findExtendedResourceClaim"""
    meta = claim.get("metadata") or {}
    if (meta.get("annotations") or {}).get(EXTENDED_RESOURCE_CLAIM_ANNOTATION) != "true":
        return False
    pod_meta = pod.get("metadata") or {}
    return any(ref.get("controller") is True and ref.get("name") == pod_meta.get("name")
               and ref.get("uid") == pod_meta.get("uid")
               for ref in meta.get("ownerReferences") or ())
