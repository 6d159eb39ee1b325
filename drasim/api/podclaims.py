"""Which ResourceClaim a pod's `spec.resourceClaims` entry refers to.

k8s: staging/src/k8s.io/dynamic-resource-allocation/resourceclaim/resourceclaim.go (Name,
IsForPod). A direct entry names its claim; a template entry's claim is the one the
resourceclaim controller recorded in `status.resourceClaimStatuses` (its name is null when
no claim is needed), and such a claim must be owned by the pod. The claim the scheduler
writes for extended resources is not an entry: it is in `status.extendedResourceClaimStatus`.
"""
from __future__ import annotations

from typing import Iterator

NOT_CREATED = "ResourceClaim not created yet"
RESERVED_FOR_MAX_SIZE = 256   # k8s: ResourceClaimReservedForMaxSize (CanBeReserved)


def _statuses(pod: dict) -> dict[str, str | None]:
    return {s.get("name"): s.get("resourceClaimName")
            for s in (pod.get("status") or {}).get("resourceClaimStatuses") or ()}


def claim_name(pod: dict, entry: dict, statuses: dict[str, str | None] | None = None
               ) -> tuple[str | None, bool, str | None]:
    """(claim name or None, whether the pod must own it, error) for one entry."""
    if entry.get("resourceClaimName"):
        return entry["resourceClaimName"], False, None
    if entry.get("resourceClaimTemplateName"):
        statuses = _statuses(pod) if statuses is None else statuses
        if entry.get("name") in statuses:
            return statuses[entry["name"]], True, None    # None: no claim needed
        md = pod["metadata"]
        return None, True, f'pod "{md.get("namespace")}/{md["name"]}": {NOT_CREATED}'
    return None, False, "internal error: pod claim entry without claim source"


def pod_claims(pod: dict) -> Iterator[tuple[dict, str | None, bool]]:
    """(entry, claim name or None, must check owner) for every entry, errors as a None name."""
    statuses = _statuses(pod)
    for entry in (pod.get("spec") or {}).get("resourceClaims") or ():
        name, check_owner, _ = claim_name(pod, entry, statuses)
        yield entry, name, check_owner


def is_owned_by(claim: dict, pod: dict) -> bool:
    """The claim's controller owner reference is this pod (k8s: IsForPod)."""
    uid = pod["metadata"]["uid"]
    return any(ref.get("uid") == uid and ref.get("controller")
               for ref in claim["metadata"].get("ownerReferences") or ())


def is_reserved_for(claim: dict, pod: dict) -> bool:
    """status.reservedFor lists this pod (k8s: IsReservedForPod)."""
    uid = pod["metadata"]["uid"]
    return any(r.get("uid") == uid for r in (claim.get("status") or {}).get("reservedFor") or ())
