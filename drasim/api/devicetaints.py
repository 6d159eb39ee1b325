"""Device taints and tolerations: matching rules shared by the allocator and the eviction controller.

k8s: staging/src/k8s.io/dynamic-resource-allocation/resourceclaim/devicetoleration.go (ToleratesTaint),
     pkg/controller/devicetainteviction/device_taint_eviction.go (ruleMatchesDevice),
     staging/src/k8s.io/dynamic-resource-allocation/resourceslice/tracker/tracker.go (applyPatches).
Spec: ../shared/spec/device-taints.md §4-§5.

Which devices a DeviceTaintRule selects depends on who asks, in v1.37.0: the ResourceSlice
tracker (what kube-scheduler allocates from) applies a rule *without* deviceSelector to every
device, while the eviction controller and the rule status match such a rule to no device, as the
API documents (kubernetes#141620; the tracker changed only after v1.37.0, #141648). So a NoSchedule
or NoExecute rule without selector blocks every new allocation but never evicts a pod.
"""
from __future__ import annotations

NO_SCHEDULE = "NoSchedule"
NO_EXECUTE = "NoExecute"
NONE = "None"
EFFECTS = (NO_SCHEDULE, NO_EXECUTE, NONE)


def tolerates(toleration: dict, taint: dict) -> bool:
    """One toleration against one taint (device-taints.md §5.1).

    Effect empty or equal; key empty or equal; Exists matches any value,
    Equal (or empty operator) needs the exact value; any other operator never matches.
    An empty key with Equal is accepted and matches on value alone (§3.9).
    """
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    if key and key != taint.get("key"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Exists":
        return True
    if operator == "Equal":
        return (toleration.get("value") or "") == (taint.get("value") or "")
    return False


def tolerated(tolerations: list[dict] | None, taint: dict) -> bool:
    """A taint is tolerated if any toleration tolerates it (§5.3)."""
    return any(tolerates(t, taint) for t in tolerations or ())


def prevents_allocation(taint: dict, tolerations: list[dict] | None) -> bool:
    """NoSchedule/NoExecute taints block allocation unless tolerated; None and unknown effects never do (§6.1)."""
    return taint.get("effect") in (NO_SCHEDULE, NO_EXECUTE) and not tolerated(tolerations, taint)


def rule_matches_device(rule: dict, driver: str, pool: str, device: str) -> bool:
    """Does a DeviceTaintRule select this device for eviction and rule status? (§4.3)

    An absent selector matches nothing; a present one matches when each field it
    sets equals the device's; unset fields are wildcards, so `{}` matches all.
    k8s: device_taint_eviction.go ruleMatchesDevice. The scheduler differs: rule_taints_device.
    """
    selector = (rule.get("spec") or {}).get("deviceSelector")
    if selector is None:
        return False
    return _selector_matches(selector, driver, pool, device)


def rule_taints_device(rule: dict, driver: str, pool: str, device: str) -> bool:
    """Does the scheduler see this rule's taint on this device? (ResourceSlice tracker, v1.37.0)

    Like rule_matches_device, except that an absent selector selects *every* device: the
    tracker only filters by the selector's fields when there is a selector.
    k8s: tracker.go applyPatches (kubernetes#141620).
    """
    selector = (rule.get("spec") or {}).get("deviceSelector")
    if selector is None:
        return True
    return _selector_matches(selector, driver, pool, device)


def _selector_matches(selector: dict, driver: str, pool: str, device: str) -> bool:
    if selector.get("driver") and selector["driver"] != driver:
        return False
    if selector.get("pool") and selector["pool"] != pool:
        return False
    if selector.get("device") and selector["device"] != device:
        return False
    return True
