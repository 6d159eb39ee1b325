"""Toleration matching and DeviceTaintRule selector matching (device-taints.md §4.3, §5)."""
import pytest
from hypothesis import given, strategies as st

from drasim.api.devicetaints import prevents_allocation, rule_matches_device, rule_taints_device, tolerated, tolerates

TAINT = {"key": "example.com/maintenance", "value": "firmware", "effect": "NoExecute"}


@pytest.mark.parametrize(("toleration", "want"), [
    pytest.param({"key": "example.com/maintenance", "operator": "Equal", "value": "firmware", "effect": "NoExecute"},
                 True, id="equal-all-fields"),
    pytest.param({"key": "example.com/maintenance", "operator": "Equal", "value": "other"}, False, id="wrong-value"),
    pytest.param({"key": "example.com/maintenance", "operator": "Exists"}, True, id="exists-key-any-effect"),
    pytest.param({"operator": "Exists"}, True, id="bare-exists-tolerates-everything"),
    pytest.param({"key": "example.com/maintenance", "operator": "Exists", "effect": "NoSchedule"}, False,
                 id="other-effect-never-covers"),
    pytest.param({"key": "other", "operator": "Exists"}, False, id="other-key"),
    pytest.param({"operator": "Equal", "value": "firmware"}, True, id="empty-key-equal-matches-on-value"),
    pytest.param({"key": "example.com/maintenance", "value": "firmware"}, True, id="operator-defaults-to-equal"),
    pytest.param({"key": "example.com/maintenance", "operator": "Gt", "value": "1"}, False, id="unknown-operator"),
])
def test_tolerates(toleration, want):
    """A toleration matches on effect (empty = any), key (empty = any) and operator/value."""
    assert tolerates(toleration, TAINT) is want


@pytest.mark.parametrize(("effect", "tolerations", "blocked"), [
    pytest.param("NoSchedule", None, True, id="noschedule-untolerated"),
    pytest.param("NoExecute", None, True, id="noexecute-untolerated"),
    pytest.param("None", None, False, id="none-is-ignored"),
    pytest.param("Unknown", None, False, id="unknown-effect-is-ignored"),
    pytest.param("NoSchedule", [{"operator": "Exists"}], False, id="tolerated"),
])
def test_prevents_allocation(effect, tolerations, blocked):
    """Only untolerated NoSchedule/NoExecute taints keep a device from being allocated (§6.1)."""
    assert prevents_allocation(dict(TAINT, effect=effect), tolerations) is blocked


def rule(selector):
    spec = {"taint": TAINT}
    if selector is not ...:
        spec["deviceSelector"] = selector
    return {"spec": spec}


@pytest.mark.parametrize(("selector", "device", "want"), [
    pytest.param(..., ("drv", "pool", "gpu-0"), False, id="absent-selector-matches-nothing"),
    pytest.param(None, ("drv", "pool", "gpu-0"), False, id="null-selector-matches-nothing"),
    pytest.param({}, ("drv", "pool", "gpu-0"), True, id="empty-selector-matches-everything"),
    pytest.param({"driver": "drv"}, ("drv", "any", "x"), True, id="driver-only"),
    pytest.param({"driver": "drv", "pool": "p1"}, ("drv", "p2", "x"), False, id="pool-mismatch"),
    pytest.param({"device": "gpu-0"}, ("other", "p", "gpu-0"), True, id="device-name-in-any-pool"),
    pytest.param({"driver": "drv", "pool": "p", "device": "gpu-1"}, ("drv", "p", "gpu-0"), False, id="device-mismatch"),
])
def test_rule_matches_device(selector, device, want):
    """Set selector fields must equal the device's; unset ones are wildcards; no selector, no match."""
    assert rule_matches_device(rule(selector), *device) is want


def test_scheduler_applies_a_rule_without_selector_to_every_device():
    """v1.37.0's ResourceSlice tracker (applyPatches) only filters when there is a selector, so a
    rule without deviceSelector taints every device for the scheduler, while the eviction
    controller's ruleMatchesDevice selects none (kubernetes#141620)."""
    for no_selector in (rule(...), rule(None)):   # field omitted, or null
        for device in [("drv", "p", "gpu-0"), ("other", "q", "nic-1")]:
            assert rule_taints_device(no_selector, *device) is True
            assert rule_matches_device(no_selector, *device) is False


NAMES = st.sampled_from(["drv", "other", "p", "gpu-0"])


@given(st.dictionaries(st.sampled_from(["driver", "pool", "device"]), NAMES), NAMES, NAMES, NAMES)
def test_scheduler_and_controller_agree_when_a_selector_is_given(selector, driver, pool, device):
    """The two views only differ for an absent selector; `{}` and every other selector match alike."""
    assert rule_taints_device(rule(selector), driver, pool, device) is rule_matches_device(rule(selector), driver, pool, device)


@given(st.dictionaries(st.sampled_from(["key", "operator", "value", "effect"]),
                       st.sampled_from(["", "k", "v", "Exists", "Equal", "NoSchedule", "NoExecute", "None"])))
def test_bare_exists_tolerates_any_taint(toleration):
    """{operator: Exists} tolerates every taint, whatever key, value and effect (§5.2)."""
    assert tolerated([{"operator": "Exists"}], {"key": toleration.get("key", "k"), "value": toleration.get("value", ""),
                                                "effect": toleration.get("effect", "NoSchedule")})
