"""Pure evaluation behind the device taint eviction controller: pools, tolerations,
eviction times, the DeviceTaintRule status condition and the "what would this rule
do?" library (rule_what_if, behind a future `drasim taint-dryrun`).

Nothing here touches the store or the clock; the controller
(drasim/controllers/devicetainteviction.py) feeds it objects and writes results.

k8s: pkg/controller/devicetainteviction/device_taint_eviction.go
Spec: shared/spec/device-taints.md §4, §7, §8, §9.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Iterator

from drasim.api.podclaims import pod_claims
from drasim.api.devicetaints import NO_EXECUTE, NONE, rule_matches_device, tolerates
from drasim.sim.clock import parse_time

__all__ = [
    "AllocatedClaim", "AllocatedDevice", "Eviction", "PodEviction", "PodToleration", "Pool", "TrackedTaint",
    "WhatIf", "claim_eviction", "dry_run_message", "eviction_delay", "pending_message", "pod_eviction",
    "rule_condition", "rule_what_if",
]

# k8s: resource/v1 DeviceTaintConditionEvictionInProgress and the reasons of maybeUpdateRuleStatus.
CONDITION_EVICTION_IN_PROGRESS = "EvictionInProgress"
REASON_PODS_PENDING = "PodsPendingEviction"
REASON_COMPLETED = "Completed"
REASON_NOT_STARTED = "NotStarted"
REASON_NO_EFFECT = "NoEffect"
REASON_OTHER_EFFECT = "OtherEffect"
# k8s: ruleStatusPeriod — shortest time between status updates while eviction is in progress (§8.1).
RULE_STATUS_PERIOD = 10.0

FOREVER = math.inf

PoolId = tuple[str, str]           # (driver, pool)
DeviceId = tuple[str, str, str]    # (driver, pool, device)


# -- time and tolerations ----------------------------------------------------------------------

def taint_time_added(taint: dict, owner: dict) -> float:
    """The taint's timeAdded; the owning slice's or rule's creation time when unset (§3.4, §7.9)."""
    text = taint.get("timeAdded") or owner["metadata"].get("creationTimestamp")
    return parse_time(text) if text else 0.0


def eviction_delay(tolerations: list[dict] | None, taint: dict) -> float | None:
    """Seconds after timeAdded at which `taint` evicts, given one allocation result's tolerations.

    None: no counting toleration (evict at timeAdded). FOREVER: tolerated without
    tolerationSeconds. Only tolerations with effect exactly NoExecute count, so an
    effect-less `{operator: Exists}` does not protect (§7.2, §7.3). k8s: claimEvictionTime
    """
    delay: float | None = None
    for toleration in tolerations or ():
        if toleration.get("effect") != NO_EXECUTE or not tolerates(toleration, taint):
            continue
        seconds = toleration.get("tolerationSeconds")
        if seconds is None:
            return FOREVER
        seconds = max(int(seconds), 0)     # negative counts as 0
        delay = seconds if delay is None else min(delay, seconds)
    return delay


# -- pods and claims -----------------------------------------------------------------------------

def pod_claim_names(pod: dict) -> Iterator[tuple[str, bool]]:
    """(claim name, must check owner) for each claim the pod references (§7.4); template claims
    not created yet (or not needed) are skipped, and the scheduler-written extended-resource
    claim is never looked at (§7.5, #141290)."""
    for _, name, must_check_owner in pod_claims(pod):
        if name:
            yield name, must_check_owner


def claim_serves_pod(pod: dict, claim: dict, must_check_owner: bool) -> bool:
    """Owner check for template claims (IsForPod) and reservedFor lists the pod's UID (IsReservedForPod)."""
    uid = pod["metadata"].get("uid")
    if must_check_owner:
        if claim["metadata"].get("namespace") != pod["metadata"].get("namespace"):
            return False
        if not any(ref.get("controller") and ref.get("uid") == uid
                   for ref in claim["metadata"].get("ownerReferences") or ()):
            return False
    return any(ref.get("uid") == uid for ref in (claim.get("status") or {}).get("reservedFor") or ())


def allocation_results(claim: dict) -> list[dict]:
    return claim["status"]["allocation"].get("devices", {}).get("results") or []


def is_allocated(claim: dict | None) -> bool:
    return bool(claim) and bool((claim.get("status") or {}).get("allocation"))


# -- pools ---------------------------------------------------------------------------------------

class Pool:
    """The slices of one (driver, pool); only the newest generation counts (§4.1)."""

    __slots__ = ("slices", "max_generation", "_devices", "_noexecute")

    def __init__(self) -> None:
        self.slices: dict[str, dict] = {}
        self.max_generation = -math.inf
        self._devices: dict[str, tuple[dict, dict]] | None = None
        self._noexecute: dict[str, list[dict]] | None = None

    def add(self, slice_: dict) -> None:
        self.slices[slice_["metadata"]["name"]] = slice_
        self.max_generation = max(self.max_generation, _generation(slice_))
        self._devices = self._noexecute = None

    def remove(self, slice_: dict) -> None:
        self.slices.pop(slice_["metadata"]["name"], None)
        self.max_generation = max((_generation(s) for s in self.slices.values()), default=-math.inf)
        self._devices = self._noexecute = None

    def devices(self) -> dict[str, tuple[dict, dict]]:
        """device name → (slice, device) of the newest generation (k8s: pool.getDevice)."""
        if self._devices is None:
            self._devices = {}
            for slice_ in self.slices.values():
                if _generation(slice_) == self.max_generation:
                    for device in slice_["spec"].get("devices") or ():
                        self._devices.setdefault(device["name"], (slice_, device))
        return self._devices

    def noexecute_taints(self) -> dict[str, list[dict]]:
        """device name → its NoExecute taints (k8s: pool.getTaintedDevices); kept until the pool
        changes. Do not modify it."""
        if self._noexecute is None:
            self._noexecute = self._find_noexecute_taints()
        return self._noexecute

    def _any_device_tainted(self) -> bool:
        for slice_ in self.slices.values():   # loops, not a generator: called for every slice event
            if _generation(slice_) == self.max_generation:
                for device in slice_["spec"].get("devices") or ():
                    if device.get("taints"):
                        return True
        return False

    def _find_noexecute_taints(self) -> dict[str, list[dict]]:
        out: dict[str, list[dict]] = {}
        if not self._any_device_tainted():
            return out   # no newest-generation device has a taint (most pools): devices() is not needed
        for name, (_, device) in self.devices().items():
            taints = [t for t in device.get("taints") or () if t.get("effect") == NO_EXECUTE]
            if taints:
                out[name] = taints
        return out


def _generation(slice_: dict) -> int:
    return int(slice_["spec"].get("pool", {}).get("generation") or 0)


def pool_id(slice_: dict) -> PoolId:
    return slice_["spec"]["driver"], slice_["spec"]["pool"]["name"]


def build_pools(slices: Iterable[dict]) -> dict[PoolId, Pool]:
    pools: dict[PoolId, Pool] = {}
    for slice_ in slices:
        pools.setdefault(pool_id(slice_), Pool()).add(slice_)
    return pools


# -- eviction times -------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True, eq=False)
class TrackedTaint:
    """One NoExecute taint and where it comes from: a rule, or taint #index of a slice device.

    Equality is by object identity of the rule/slice, as Go compares pointers: a
    re-written rule or slice is a different reason (k8s: trackedTaint).
    """
    rule: dict | None
    slice: dict | None = None
    device: str = ""
    index: int = 0

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, TrackedTaint) and self.rule is other.rule and self.slice is other.slice
                and self.device == other.device and self.index == other.index)

    def __hash__(self) -> int:
        return hash((id(self.rule), id(self.slice), self.device, self.index))

    def taint(self) -> dict:
        if self.rule is not None:
            return self.rule["spec"]["taint"]
        for device in self.slice["spec"].get("devices") or ():
            if device["name"] == self.device:
                return device["taints"][self.index]
        raise LookupError(self.device)

    def sort_key(self) -> tuple:
        """Rules first (by name), then slice taints by driver/pool/device/index (k8s: Compare)."""
        if self.rule is not None:
            return (0, self.rule["metadata"]["name"], "", "", 0)
        spec = self.slice["spec"]
        return (1, spec["driver"], spec["pool"]["name"], self.device, self.index)


@dataclass(frozen=True, slots=True)
class Eviction:
    """When pods must go and every taint that contributes (k8s: evictionAndReason)."""
    when: float
    reasons: tuple[TrackedTaint, ...]


def same_eviction(a: Eviction | None, b: Eviction | None) -> bool:
    """k8s: evictionAndReason.equal — two nils are *not* equal, so callers re-check the pods."""
    return a is not None and b is not None and a == b


class AllocatedClaim:
    """An allocated claim and its eviction (k8s: allocatedClaim)."""

    __slots__ = ("claim", "eviction")

    def __init__(self, claim: dict, eviction: Eviction | None) -> None:
        self.claim = claim
        self.eviction = eviction


def claim_eviction(claim: dict, pools: dict[PoolId, Pool], rules: list[dict]) -> Eviction | None:
    """Earliest deadline over all untolerated NoExecute taints of the claim's devices (§7.2).

    `rules` are the NoExecute rules. k8s: claimEvictionTime, allEvictingDeviceTaints.
    """
    when: float | None = None
    reasons: set[TrackedTaint] = set()
    for result in allocation_results(claim):
        for tracked in _evicting_taints(result, pools, rules):
            taint = tracked.taint()
            delay = eviction_delay(result.get("tolerations"), taint)
            if delay == FOREVER:
                continue
            deadline = taint_time_added(taint, tracked.rule or tracked.slice) + (delay or 0)
            reasons.add(tracked)
            when = deadline if when is None else min(when, deadline)
    if when is None:
        return None
    return Eviction(when, tuple(sorted(reasons, key=TrackedTaint.sort_key)))


def _evicting_taints(result: dict, pools: dict[PoolId, Pool], rules: list[dict]) -> list[TrackedTaint]:
    """NoExecute taints of the device's newest slice, then every NoExecute rule selecting it.

    The slices are the API's, not the scheduler's patched view; rules are matched here with
    ruleMatchesDevice, so a rule without deviceSelector never evicts although v1.37.0's scheduler
    sees its taint on every device (api/devicetaints.py, kubernetes#141620).
    """
    driver, pool_name, device_name = result["driver"], result["pool"], result["device"]
    out: list[TrackedTaint] = []
    pool = pools.get((driver, pool_name))
    slice_, device = pool.devices().get(device_name, (None, None)) if pool else (None, None)
    if device is not None:
        out.extend(TrackedTaint(None, slice_, device_name, i) for i, taint in enumerate(device.get("taints") or ())
                   if taint.get("effect") == NO_EXECUTE)
    out.extend(TrackedTaint(rule) for rule in rules if rule_matches_device(rule, driver, pool_name, device_name))
    return out


def pod_eviction(pod: dict, claims: dict[tuple[str, str], AllocatedClaim]) -> Eviction | None:
    """Earliest deadline over the scheduled pod's qualifying claims, reasons joined (§7.4, §7.6).

    k8s: podEvictionTime. Extended-resource claims are never looked at (§7.5).
    """
    if not (pod.get("spec") or {}).get("nodeName"):
        return None
    namespace = pod["metadata"].get("namespace") or ""
    eviction: Eviction | None = None
    for name, must_check_owner in pod_claim_names(pod):
        allocated = claims.get((namespace, name))
        if allocated is None or allocated.eviction is None \
                or not claim_serves_pod(pod, allocated.claim, must_check_owner):
            continue
        if eviction is None:
            eviction = allocated.eviction
            continue
        merged = {r.sort_key(): r for r in allocated.eviction.reasons}
        for reason in eviction.reasons:
            merged.setdefault(reason.sort_key(), reason)
        eviction = Eviction(min(eviction.when, allocated.eviction.when), tuple(merged[k] for k in sorted(merged)))
    return eviction


# -- rule status condition -----------------------------------------------------------------------

def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many.format(n=n)


def pending_message(pods: int, namespaces: int) -> str:
    """k8s: maybeUpdateRuleStatus, reason PodsPendingEviction (§8.2)."""
    return (_plural(pods, "1 pod needs to be evicted in ", "{n} pods need to be evicted in ")
            + _plural(namespaces, "1 namespace.", "{n} different namespaces."))


def dry_run_message(published: int, allocated: int, pods: int, namespaces: int) -> str:
    """k8s: maybeUpdateRuleStatus, reason NoEffect (§8.3); verbatim, singular/plural as Kubernetes."""
    return (_plural(published, "1 published device selected. ", "{n} published devices selected. ")
            + _plural(allocated, "1 allocated device selected. ", "{n} allocated devices selected. ")
            + _plural(pods, "1 pod would be evicted in ", "{n} pods would be evicted in ")
            + _plural(namespaces, "1 namespace ", "{n} different namespaces ")
            + "if the effect was NoExecute. This information will not be updated again. "
              "Recreate the DeviceTaintRule to trigger an update.")


OTHER_EFFECT_MESSAGE = "Eviction only happens for the NoExecute effect."


def rule_condition(rule: dict, *, pending: tuple[int, int] = (0, 0), dry_run: "WhatIf | None" = None,
                   evicted: int = 0) -> dict:
    """The EvictionInProgress condition without lastTransitionTime (§8.2-§8.6).

    `pending` = (pods, namespaces) still waiting for eviction by this NoExecute rule;
    `dry_run` = the what-if of a None rule; `evicted` = pods this controller deleted for it.
    """
    effect = rule["spec"]["taint"].get("effect")
    status, message = "False", ""
    if effect == NO_EXECUTE:
        if pending[0] > 0:
            status, reason, message = "True", REASON_PODS_PENDING, pending_message(*pending)
        else:
            reason = REASON_COMPLETED if evicted > 0 else REASON_NOT_STARTED
    elif effect == NONE:
        reason, message = REASON_NO_EFFECT, dry_run.message() if dry_run else dry_run_message(0, 0, 0, 0)
    else:
        reason, message = REASON_OTHER_EFFECT, OTHER_EFFECT_MESSAGE
    if evicted > 0:     # §8.6 suffix, separated by a space only after a non-empty message
        message += (" " if message else "") + _plural(evicted, "1 pod ", "{n} pods ") \
            + "evicted since starting the controller."
    return {"type": CONDITION_EVICTION_IN_PROGRESS, "status": status, "reason": reason, "message": message,
            "observedGeneration": rule["metadata"].get("generation", 0)}


# -- what-if -------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class AllocatedDevice:
    claim: str              # namespace/name
    request: str
    device: DeviceId


@dataclass(frozen=True, slots=True)
class PodEviction:
    """A pod the rule would evict `after_seconds` after the taint's timeAdded, and why then."""
    pod: str                # namespace/name
    after_seconds: int
    reason: str
    claims: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PodToleration:
    """A pod using selected devices whose every hit is tolerated forever (NoExecute, no tolerationSeconds)."""
    pod: str
    claims: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class WhatIf:
    """What a DeviceTaintRule would do if its effect was NoExecute (the None dry run, §8.3)."""
    published_devices: tuple[DeviceId, ...]
    allocated_devices: tuple[AllocatedDevice, ...]
    claims_hit: tuple[str, ...]
    evicted_pods: tuple[PodEviction, ...]
    tolerating_pods: tuple[PodToleration, ...]

    @property
    def namespaces(self) -> tuple[str, ...]:
        return tuple(sorted({p.pod.split("/", 1)[0] for p in self.evicted_pods}))

    def message(self) -> str:
        """The NoEffect condition message Kubernetes would write for these numbers."""
        return dry_run_message(len(self.published_devices), len(self.allocated_devices),
                               len(self.evicted_pods), len(self.namespaces))


def rule_what_if(rule: dict, *, pods: Iterable[dict], claims: Iterable[dict], slices: Iterable[dict]) -> WhatIf:
    """Simulate `rule` as NoExecute against the given objects; no writes, no clock.

    Counts as the controller's dry run does (k8s: countTaintedDevices, countPendingPods):
    published = devices of newest-generation slices the selector matches; allocated =
    allocation result entries it matches; evicted = scheduled, not-deleting pods that would
    get an eviction deadline from this rule (finite tolerationSeconds included); pods whose
    every hit is tolerated forever are listed apart. Taints from slices are not considered.
    """
    taint = dict(rule["spec"]["taint"], effect=NO_EXECUTE)
    claims_by_key = {(c["metadata"].get("namespace") or "", c["metadata"]["name"]): c for c in claims}
    published = sorted((driver, pool, name) for (driver, pool), p in build_pools(slices).items()
                       for name in p.devices() if rule_matches_device(rule, driver, pool, name))
    allocated: list[AllocatedDevice] = []
    hits: dict[tuple[str, str], list[tuple[str, float | None]]] = {}   # claim → [(device text, delay)]
    for key, claim in claims_by_key.items():
        if not is_allocated(claim):
            continue
        for result in allocation_results(claim):
            device = (result["driver"], result["pool"], result["device"])
            if rule_matches_device(rule, *device):
                allocated.append(AllocatedDevice("/".join(key), result.get("request", ""), device))
                hits.setdefault(key, []).append(("/".join(device), eviction_delay(result.get("tolerations"), taint)))
    evicted, tolerating = _pods_hit(pods, hits, claims_by_key)
    return WhatIf(tuple(published), tuple(sorted(allocated, key=lambda a: (a.claim, a.device))),
                  tuple(sorted("/".join(k) for k in hits)), tuple(evicted), tuple(tolerating))


def _pods_hit(pods: Iterable[dict], hits: dict, claims_by_key: dict[tuple[str, str], dict],
              ) -> tuple[list[PodEviction], list[PodToleration]]:
    """Pods that reach a hit claim per §7.4: evicted at the earliest non-forever hit, else tolerating."""
    evicted: list[PodEviction] = []
    tolerating: list[PodToleration] = []
    for pod in pods:
        md = pod["metadata"]
        if not (pod.get("spec") or {}).get("nodeName") or md.get("deletionTimestamp"):
            continue
        ns = md.get("namespace") or ""
        best: tuple[float, str] | None = None
        used: list[str] = []
        for name, must_check_owner in pod_claim_names(pod):
            claim = claims_by_key.get((ns, name))
            if (ns, name) not in hits or not claim_serves_pod(pod, claim, must_check_owner):
                continue
            used.append(f"{ns}/{name}")
            for device, delay in hits[(ns, name)]:
                if delay == FOREVER:
                    continue
                why = (f"{device} in claim {ns}/{name}: no NoExecute toleration" if delay is None else
                       f"{device} in claim {ns}/{name}: tolerationSeconds {int(delay)}")
                if best is None or (delay or 0) < best[0]:
                    best = (delay or 0, why)
        pod_name = f"{ns}/{md['name']}"
        if best is not None:
            evicted.append(PodEviction(pod_name, int(best[0]), best[1], tuple(used)))
        elif used:
            tolerating.append(PodToleration(pod_name, tuple(used)))
    evicted.sort(key=lambda p: p.pod)
    tolerating.sort(key=lambda p: p.pod)
    return evicted, tolerating
