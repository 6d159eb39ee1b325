"""ResourceQuota accounting for pods and ResourceClaims, including extended resources
served by DRA (spec §11), for the quota controller and admission.

k8s: pkg/quota/v1/evaluator/core/pods.go, pkg/quota/v1/evaluator/core/resource_claims.go,
staging/src/k8s.io/apiserver/pkg/quota/v1/{resources.go,generic/evaluator.go},
pkg/controller/resourcequota/resource_quota_controller.go (syncResourceQuota). Admission's
charging of these usages is in quotaadmission.py.

Quantities follow Go's Quantity.Add: a zero left operand takes the right one's
format, so `status.used` prints like the first non-zero contribution (1Gi, 500m).
"""
from __future__ import annotations

from datetime import datetime
from fractions import Fraction
from typing import Iterable, Mapping

from drasim.api.extendedresource import (
    IMPLICIT_PREFIX, ExtendedResourceCache, is_dra_extended_resource_name, is_native_resource_name)
from drasim.api.quantity import Quantity, parse_quantity
from drasim.scheduler.plugins.extendedresources import EXTENDED_RESOURCE_CLAIM_ANNOTATION

__all__ = [
    "ALLOCATION_RESULTS_MAX_SIZE",
    "CLAIM_OBJECT_COUNT",
    "POD_OBJECT_COUNT",
    "claim_matching_resources",
    "claim_usage",
    "devices_key",
    "is_pod_charged",
    "pod_matches_scopes",
    "pod_matching_resources",
    "pod_usage",
    "quota_used",
    "Usage",
    "verified_pod_usage",
]

POD_OBJECT_COUNT = "count/pods"
CLAIM_OBJECT_COUNT = "count/resourceclaims.resource.k8s.io"
DEVICES_SUFFIX = ".deviceclass.resource.k8s.io/devices"      # k8s: core/v1 ResourceClaimsPerClass
REQUESTS = "requests."
IMPLICIT_REQUESTS_PREFIX = REQUESTS + IMPLICIT_PREFIX        # k8s: ResourceImplicitExtendedClaimsPerClass
ALLOCATION_RESULTS_MAX_SIZE = 32                              # k8s: resource/v1 AllocationResultsMaxSize
_HUGEPAGES = "hugepages-"
_POD_RESOURCES = frozenset({
    POD_OBJECT_COUNT, "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods"})
_ZERO = Quantity(0)
_ONE = Quantity(1)

Usage = dict[str, Quantity]


def devices_key(class_name: str) -> str:
    """`<class>.deviceclass.resource.k8s.io/devices` (k8s: V1ResourceByDeviceClass)."""
    return class_name + DEVICES_SUFFIX


# --- Go-faithful quantity arithmetic ------------------------------------------------------


def quantity_of(value: Fraction, fmt: str) -> Quantity:
    """Quantity(value, fmt) for a value that is a Fraction already (no copy: admission makes one
    per key and create)."""
    q = Quantity.__new__(Quantity)
    q.value, q.format, q._text = value, fmt, None
    return q


def _add(a: Quantity, b: Quantity) -> Quantity:
    return quantity_of(a.value + b.value, b.format if a.value == 0 else a.format)


def _sub(a: Quantity, b: Quantity) -> Quantity:
    return quantity_of(a.value - b.value, b.format if a.value == 0 else a.format)


def _add_into(into: Usage, other: Mapping[str, Quantity]) -> None:
    for key, q in other.items():
        into[key] = _add(into[key], q) if key in into else q


def _max_into(into: Usage, other: Mapping[str, Quantity]) -> None:
    for key, q in other.items():
        if key not in into or q > into[key]:
            into[key] = q


def _parse_list(values: Mapping | None) -> Usage:
    return {name: parse_quantity(v) for name, v in (values or {}).items()}


# --- pods (k8s: pods.go) ------------------------------------------------------------------


def _is_pod_level_resource(name: str) -> bool:
    return name in ("cpu", "memory") or name.startswith(_HUGEPAGES)


def _pod_total(pod: dict, field: str) -> Usage:
    """PodRequests / PodLimits over quantities (spec-side only; no resize status).
    k8s: staging/src/k8s.io/component-helpers/resource/helpers.go"""
    spec = pod.get("spec") or {}
    total: Usage = {}
    for c in spec.get("containers") or ():
        _add_into(total, _parse_list((c.get("resources") or {}).get(field)))
    sidecars: Usage = {}
    init_max: Usage = {}
    for c in spec.get("initContainers") or ():
        own = _parse_list((c.get("resources") or {}).get(field))
        if c.get("restartPolicy") == "Always":
            _add_into(total, own)
            _add_into(sidecars, own)
            phase = sidecars
        else:
            phase = dict(own)
            _add_into(phase, sidecars)
        _max_into(init_max, phase)
    _max_into(total, init_max)
    pod_level = spec.get("resources") or {}
    if field == "requests":
        gate = pod_level.get("requests") or {}
    else:
        gate = {**(pod_level.get("requests") or {}), **(pod_level.get("limits") or {})}
    if any(_is_pod_level_resource(n) for n in gate):
        for name, q in _parse_list(pod_level.get(field)).items():
            if _is_pod_level_resource(name):
                total[name] = q
    for name, q in _parse_list(spec.get("overhead")).items():
        if field == "requests":
            total[name] = _add(total[name], q) if name in total else q
        elif name in total and total[name].value != 0:   # limits: only non-zero ones grow
            total[name] = _add(total[name], q)
    return total


def _timestamp(text: str | None) -> float | None:
    if not text:
        return None
    return datetime.fromisoformat(str(text).replace("Z", "+00:00")).timestamp()


def is_pod_charged(pod: dict, now: float | None = None) -> bool:
    """k8s: QuotaV1Pod. Terminal pods and pods past deletionTimestamp + grace are free.
    *now* is Unix seconds; without it the grace-period test is skipped."""
    if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
        return False
    meta = pod.get("metadata") or {}
    deleted = _timestamp(meta.get("deletionTimestamp"))
    grace = meta.get("deletionGracePeriodSeconds")
    if now is not None and deleted is not None and grace is not None and now > deleted + grace:
        return False
    return True


def pod_usage(pod: dict, *, now: float | None = None) -> Usage:
    """A pod's quota usage (spec §11.1). k8s: PodUsageFunc + podComputeUsageHelper"""
    result: Usage = {POD_OBJECT_COUNT: _ONE}    # object count: charged even at end of life
    if not is_pod_charged(pod, now):
        return result
    requests, limits = _pod_total(pod, "requests"), _pod_total(pod, "limits")
    result["pods"] = _ONE
    for name in ("cpu", "memory", "ephemeral-storage"):
        if name in requests:
            result[name] = requests[name]
            result[REQUESTS + name] = requests[name]
        if name in limits:
            result["limits." + name] = limits[name]
    for name, q in requests.items():
        if name.startswith(_HUGEPAGES):
            result[name] = q
            result[REQUESTS + name] = q
        if is_dra_extended_resource_name(name):
            # spec §11.1: only `requests.<name>`; explicit and implicit names alike.
            result[REQUESTS + name] = q
    return result


def _is_extended_name_for_quota(name: str) -> bool:
    """k8s: pods.go isExtendedResourceNameForQuota (implicit names allowed since KEP-5004)."""
    return name.startswith(REQUESTS) and (not is_native_resource_name(name)
                                          or name.startswith(IMPLICIT_REQUESTS_PREFIX))


def pod_matching_resources(names: Iterable[str]) -> list[str]:
    """Quota keys the pod evaluator tracks (spec §11.5). k8s: podEvaluator.MatchingResources"""
    names = list(names)
    result = [n for n in names if n in _POD_RESOURCES]
    for n in names:
        if n.startswith(_HUGEPAGES) or n.startswith(REQUESTS + _HUGEPAGES):
            result.append(n)
        if _is_extended_name_for_quota(n):
            result.append(n)
    return result


def _is_best_effort(pod: dict) -> bool:
    """k8s: pkg/apis/core/v1/helper/qos GetPodQOS (BestEffort only)."""
    if qos := (pod.get("status") or {}).get("qosClass"):
        return qos == "BestEffort"
    spec = pod.get("spec") or {}
    lists = [spec.get("resources") or {}]
    lists += [c.get("resources") or {} for c in (spec.get("initContainers") or []) + (spec.get("containers") or [])]
    for res in lists:
        for field in ("requests", "limits"):
            for name, q in _parse_list(res.get(field)).items():
                if name in ("cpu", "memory") and q.value != 0:
                    return False
    return True


def _scope_selectors(quota: dict) -> list[dict]:
    spec = quota.get("spec") or {}
    selectors = [{"scopeName": s, "operator": "Exists"} for s in spec.get("scopes") or ()]
    return selectors + list((spec.get("scopeSelector") or {}).get("matchExpressions") or ())


def _pod_matches_scope(pod: dict, sel: dict) -> bool:
    """k8s: podMatchesScopeFunc (CrossNamespacePodAffinity is not modelled: never matches)."""
    scope, spec = sel.get("scopeName"), pod.get("spec") or {}
    deadline = spec.get("activeDeadlineSeconds")
    terminating = deadline is not None and deadline >= 0
    if scope == "Terminating":
        return terminating
    if scope == "NotTerminating":
        return not terminating
    if scope == "BestEffort":
        return _is_best_effort(pod)
    if scope == "NotBestEffort":
        return not _is_best_effort(pod)
    if scope == "PriorityClass":
        pc, op, values = spec.get("priorityClassName") or "", sel.get("operator"), sel.get("values") or []
        return {"Exists": bool(pc), "DoesNotExist": not pc, "In": bool(pc) and pc in values,
                "NotIn": not pc or pc not in values}.get(op, False)
    return False


def pod_matches_scopes(pod: dict, quota: dict) -> bool:
    """True when the pod falls under every scope of the quota (no scopes: always)."""
    return all(_pod_matches_scope(pod, sel) for sel in _scope_selectors(quota))


# --- claims (k8s: resource_claims.go) -------------------------------------------------------


def _devices(selection: dict) -> int:
    mode = selection.get("allocationMode", "ExactCount")
    if mode == "ExactCount":
        return int(selection.get("count", 1))
    if mode == "All":
        return ALLOCATION_RESULTS_MAX_SIZE     # worst case
    return 0                                   # unknown mode: not charged


def _controller_ref(claim: dict) -> dict | None:
    for ref in (claim.get("metadata") or {}).get("ownerReferences") or ():
        if ref.get("controller") is True:
            return ref
    return None


def _special_owner_uid(claim: dict) -> str | None:
    """UID of the v1 Pod controlling an annotated special claim (k8s: extendedResourceClaimPodUIDOwnerIndex)."""
    if ((claim.get("metadata") or {}).get("annotations") or {}).get(EXTENDED_RESOURCE_CLAIM_ANNOTATION) != "true":
        return None
    ref = _controller_ref(claim)
    if ref is None or ref.get("kind") != "Pod" or ref.get("apiVersion") != "v1":
        return None
    return ref.get("uid")


def _created(obj: dict) -> float:
    t = _timestamp((obj.get("metadata") or {}).get("creationTimestamp"))
    return float("-inf") if t is None else float(int(t // 1))   # metav1.Time: whole seconds


def verified_pod_usage(claim: dict, pods_by_uid: Mapping[str, dict],
                       owned_claims: Iterable[dict], *, now: float | None = None) -> Usage | None:
    """The owning pod's usage if *claim* is its verified special claim (spec §11.4), else None.

    *owned_claims*: the special claims in the claim's namespace controlled by the same
    pod UID (may include *claim*; other claims are ignored). k8s: getVerifiedPodUsage
    """
    uid = _special_owner_uid(claim)
    if uid is None:
        return None
    meta = claim.get("metadata") or {}
    pod = pods_by_uid.get(uid)
    ref = _controller_ref(claim) or {}
    if pod is None or (pod.get("metadata") or {}).get("name") != ref.get("name") \
            or (pod.get("metadata") or {}).get("namespace") != meta.get("namespace"):
        return None
    status = (pod.get("status") or {}).get("extendedResourceClaimStatus")
    if status is not None:
        if status.get("resourceClaimName") != meta.get("name"):
            return None
    else:
        # No status yet: only the oldest special claim (then smallest name) is exempted.
        mine = (_created(claim), meta.get("name", ""))
        for other in owned_claims:
            if _special_owner_uid(other) != uid or \
                    (other.get("metadata") or {}).get("namespace") != meta.get("namespace"):
                continue
            theirs = (_created(other), (other.get("metadata") or {}).get("name", ""))
            if theirs[0] < mine[0] or (theirs[0] == mine[0] and theirs[1] < mine[1]):
                return None
    return pod_usage(pod, now=now)


def _base_claim_usage(claim: dict) -> Usage:
    """spec §11.2: 1 object + devices per class (firstAvailable: largest per class)."""
    result: Usage = {CLAIM_OBJECT_COUNT: _ONE}
    for request in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ():
        if request.get("firstAvailable"):
            largest: Usage = {}
            for sub in request["firstAvailable"]:
                key, q = devices_key(sub.get("deviceClassName", "")), Quantity(_devices(sub))
                if q > largest.get(key, _ZERO):
                    largest[key] = q
            _add_into(result, largest)
        elif (exactly := request.get("exactly")) is not None:
            _add_into(result, {devices_key(exactly.get("deviceClassName", "")): Quantity(_devices(exactly))})
    return result


def _add_extended_usage(result: Usage, pod_used: Usage | None, cache: ExtendedResourceCache) -> None:
    """spec §11.3: charge implicit and explicit `requests.` keys per class, minus what the
    verified owning pod already pays; only positive remainders. k8s: addExtendedResourceQuota"""
    extended: Usage = {}
    for key in sorted(result):
        if not key.endswith(DEVICES_SUFFIX) or len(key) == len(DEVICES_SUFFIX):
            continue
        class_name = key[: -len(DEVICES_SUFFIX)]
        extended[IMPLICIT_REQUESTS_PREFIX + class_name] = result[key]
        if explicit := cache.explicit_name_of(class_name):
            extended[REQUESTS + explicit] = result[key]
    for key, q in extended.items():
        if pod_used and key in pod_used:
            q = _sub(q, pod_used[key])
        if q.value > 0:
            result[key] = q


def claim_usage(claim: dict, *, pods_by_uid: Mapping[str, dict], claims_in_namespace: Iterable[dict],
                cache: ExtendedResourceCache, now: float | None = None) -> Usage:
    """A ResourceClaim's quota usage (spec §11.2-§11.4). k8s: claimEvaluator.Usage"""
    result = _base_claim_usage(claim)
    _add_extended_usage(result, verified_pod_usage(claim, pods_by_uid, claims_in_namespace, now=now), cache)
    return result


def claim_matching_resources(names: Iterable[str], cache: ExtendedResourceCache) -> list[str]:
    """Quota keys the claim evaluator tracks (spec §11.5). k8s: claimEvaluator.MatchingResources"""
    result = []
    for n in names:
        if n == CLAIM_OBJECT_COUNT or n.endswith(DEVICES_SUFFIX):
            result.append(n)
            continue
        if n.startswith(IMPLICIT_REQUESTS_PREFIX) and cache.explicit_name_of(n[len(IMPLICIT_REQUESTS_PREFIX):]):
            result.append(n)
            continue
        if _is_extended_name_for_quota(n) and cache.class_for(n[len(REQUESTS):]) is not None:
            result.append(n)
    return result


# --- the quota controller: status.used (k8s: CalculateUsage + syncResourceQuota) ------------


def quota_used(quota: dict, pods: Iterable[dict], claims: Iterable[dict], cache: ExtendedResourceCache,
               *, now: float | None = None) -> dict[str, str]:
    """The quota's new `status.used`: previous values overwritten by what the pod and claim
    evaluators measure, restricted to the `spec.hard` keys, as canonical strings."""
    namespace = (quota.get("metadata") or {}).get("namespace")
    hard = list(((quota.get("spec") or {}).get("hard") or {}))
    pods = [p for p in pods if (p.get("metadata") or {}).get("namespace") == namespace]
    claims = [c for c in claims if (c.get("metadata") or {}).get("namespace") == namespace]
    scoped = bool(_scope_selectors(quota))
    new_usage: Usage = {}
    pod_keys = pod_matching_resources(hard)
    if pod_keys:
        stats: Usage = {k: _ZERO for k in pod_keys}
        for pod in pods:
            if pod_matches_scopes(pod, quota):
                _add_into(stats, pod_usage(pod, now=now))
        _add_into(new_usage, stats)
    claim_keys = claim_matching_resources(hard, cache)
    if claim_keys:
        stats = {k: _ZERO for k in claim_keys}
        if not scoped:      # k8s: claims use MatchesNoScopeFunc, so a scoped quota counts none
            pods_by_uid = {(p.get("metadata") or {}).get("uid"): p for p in pods}
            owned: dict[str, list[dict]] = {}
            for c in claims:
                if (uid := _special_owner_uid(c)) is not None:
                    owned.setdefault(uid, []).append(c)
            for claim in claims:
                peers = owned.get(_special_owner_uid(claim) or "", ())
                _add_into(stats, claim_usage(claim, pods_by_uid=pods_by_uid, claims_in_namespace=peers,
                                             cache=cache, now=now))
        _add_into(new_usage, stats)
    used = _parse_list((quota.get("status") or {}).get("used"))
    used.update(new_usage)
    return {k: used[k].canonical() for k in hard if k in used}
