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


def claim_statuses(pod: dict) -> dict[str, str | None]:
    """status.resourceClaimStatuses by entry name (claim_name's `statuses`)."""
    return {s.get("name"): s.get("resourceClaimName")
            for s in (pod.get("status") or {}).get("resourceClaimStatuses") or ()}


def claim_name(pod: dict, entry: dict, statuses: dict[str, str | None] | None = None
               ) -> tuple[str | None, bool, str | None]:
    """(claim name or None, whether the pod must own it, error) for one entry."""
    if entry.get("resourceClaimName"):
        return entry["resourceClaimName"], False, None
    if entry.get("resourceClaimTemplateName"):
        statuses = claim_statuses(pod) if statuses is None else statuses
        if entry.get("name") in statuses:
            return statuses[entry["name"]], True, None    # None: no claim needed
        md = pod["metadata"]
        return None, True, f'pod "{md.get("namespace")}/{md["name"]}": {NOT_CREATED}'
    return None, False, "internal error: pod claim entry without claim source"


def pod_claims(pod: dict) -> Iterator[tuple[dict, str | None, bool]]:
    """(entry, claim name or None, must check owner) for every entry, errors as a None name."""
    entries = (pod.get("spec") or {}).get("resourceClaims")
    if not entries:
        return
    statuses = claim_statuses(pod)
    for entry in entries:
        name, check_owner, _ = claim_name(pod, entry, statuses)
        yield entry, name, check_owner


def is_owned_by(claim: dict, pod: dict) -> bool:
    """The claim's controller owner reference is this pod (k8s: IsForPod)."""
    uid = pod["metadata"]["uid"]
    for ref in claim["metadata"].get("ownerReferences") or ():   # a loop: called for every pod event
        if ref.get("uid") == uid and ref.get("controller"):
            return True
    return False


def is_reserved_for(claim: dict, pod: dict) -> bool:
    """status.reservedFor lists this pod (k8s: IsReservedForPod)."""
    uid = pod["metadata"]["uid"]
    for r in (claim.get("status") or {}).get("reservedFor") or ():
        if r.get("uid") == uid:
            return True
    return False


# --- PodGroup claims (DRAWorkloadResourceClaims, beta in v1.37, off) --------------------------------
# k8s: resourceclaim.go BindTo, IsForPod(acceptPodGroupOwner), IsReservedForPod(acceptPodGroupReservation).

POD_GROUP_API_GROUP = "scheduling.k8s.io"


def pod_group_name(pod: dict) -> str | None:
    group = (pod.get("spec") or {}).get("schedulingGroup")
    return group.get("podGroupName") if isinstance(group, dict) else None


def bound_to_group(pod: dict, group: dict | None, entry: dict) -> bool:
    """BindTo: the entry is the PodGroup's claim when the pod is in the group and the group has an
    entry with the same name, resourceClaimName and resourceClaimTemplateName; else it is the pod's."""
    if group is None or pod_group_name(pod) != group["metadata"]["name"] or \
            pod["metadata"].get("namespace") != group["metadata"].get("namespace"):
        return False
    return any(g.get("name") == entry.get("name") and g.get("resourceClaimName") == entry.get("resourceClaimName")
               and g.get("resourceClaimTemplateName") == entry.get("resourceClaimTemplateName")
               for g in (group.get("spec") or {}).get("resourceClaims") or ())


def group_consumer(group: dict) -> dict:
    """The one reservedFor entry a PodGroup's claim gets for all of its pods."""
    md = group["metadata"]
    return {"apiGroup": POD_GROUP_API_GROUP, "resource": "podgroups", "name": md["name"], "uid": md.get("uid")}


def is_group_consumer(ref: dict) -> bool:
    return ref.get("apiGroup") == POD_GROUP_API_GROUP and ref.get("resource") == "podgroups"


def is_owned_by_group(claim: dict, pod: dict) -> bool:
    """IsForPod with acceptPodGroupOwner: the claim's controller is the pod's PodGroup (by name)."""
    name = pod_group_name(pod)
    return name is not None and any(
        ref.get("controller") and ref.get("kind") == "PodGroup" and ref.get("name") == name
        and str(ref.get("apiVersion", "")).split("/")[0] == POD_GROUP_API_GROUP
        for ref in claim["metadata"].get("ownerReferences") or ())


def is_reserved_for_group(claim: dict, pod: dict) -> bool:
    """IsReservedForPod with acceptPodGroupReservation: pods do not know their group's uid, so the
    name is compared."""
    name = pod_group_name(pod)
    return name is not None and any(is_group_consumer(r) and r.get("name") == name
                                    for r in (claim.get("status") or {}).get("reservedFor") or ())
