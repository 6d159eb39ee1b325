"""--feature-gates as kube-apiserver reads it (component-base featuregate.Set / SetFromMap), and the
v1.37 table (staging/src/k8s.io/kube-scheduler/pkg/features/kube_features.go)."""
import json

import pytest
from hypothesis import given, strategies as st

from drasim import featuregates as fg

FLAG = 'invalid argument "{}" for "--feature-gates" flag: '


@pytest.mark.parametrize("value, message", [
    ("Foo=true", "unrecognized feature gate: Foo"),
    ("DRAExtendedResource=false", "cannot set feature gate DRAExtendedResource to false, feature is locked to true"),
    ("DynamicResourceAllocation=false",
     "cannot set feature gate DynamicResourceAllocation to false, feature is locked to true"),
    ("GenericWorkload", "missing bool value for GenericWorkload"),
    ("GenericWorkload=yes",
     'invalid value of GenericWorkload=yes, err: strconv.ParseBool: parsing "yes": invalid syntax'),
    # DRADeviceTaintRules (GA, on) depends on DRADeviceTaints (pkg/features dependencies)
    ("DRADeviceTaints=false",
     "DRADeviceTaintRules is enabled, but depends on features that are disabled: [DRADeviceTaints]"),
    ("DRAPrioritizedList=false,DRAAdminAccess=false",
     "[cannot set feature gate DRAAdminAccess to false, feature is locked to true, "
     "cannot set feature gate DRAPrioritizedList to false, feature is locked to true]"),
])
def test_refused_as_kube_apiserver_words_it(value, message):
    with pytest.raises(fg.FeatureGateError) as e:
        fg.from_flag(value)
    assert str(e.value) == FLAG.format(value) + message


def test_accepted_spellings():
    gates = fg.from_flag(" GenericWorkload = 1 ,,DRADeviceCompatibilityGroups=T,DRAConsumableCapacity=FALSE")
    assert gates["GenericWorkload"] and gates["DRADeviceCompatibilityGroups"] and not gates["DRAConsumableCapacity"]
    # a locked gate set to its own default is fine; so are both taint gates off together
    assert fg.from_flag("DRAExtendedResource=true")["DRAExtendedResource"]
    off = fg.from_flag("DRADeviceTaints=false,DRADeviceTaintRules=false")
    assert not off["DRADeviceTaints"] and not off["DRADeviceTaintRules"]


def test_all_alpha_sets_unlocked_alpha_gates_but_not_explicit_ones():
    gates = fg.from_flag("AllAlpha=true,DRADerivedAttributes=false")
    assert gates["SchedulerPreQueueingHints"] and gates["DRADeviceCompatibilityGroups"]
    assert not gates["DRADerivedAttributes"]
    assert gates["GenericWorkload"] is False          # beta: untouched by AllAlpha


@pytest.mark.parametrize("name, stage, default, locked", [
    ("GenericWorkload", "BETA", False, False),
    ("DRAWorkloadResourceClaims", "BETA", False, False),
    ("SchedulerPreQueueingHints", "ALPHA", False, False),
    ("DRADeviceTaintRules", "GA", True, False),
    ("DRADeviceTaints", "GA", True, False),
    ("DRAExtendedResource", "GA", True, True),
    ("DRAPrioritizedList", "GA", True, True),
    ("DRAConsumableCapacity", "BETA", True, False),
    ("DRADeviceBindingConditions", "BETA", True, False),
    ("DRADeviceCompatibilityGroups", "ALPHA", False, False),
    ("DRAListTypeAttributes", "ALPHA", False, False),
    ("TopologyAwareWorkloadScheduling", "ALPHA", False, False),
    ("DRAFractionalCapacityRange", "BETA", False, False),
])
def test_v137_table(name, stage, default, locked):
    g = fg.GATES[name]
    assert (g.stage, g.default, g.locked) == (stage, default, locked)


@given(st.dictionaries(st.sampled_from(sorted(fg.GATES)), st.booleans(), max_size=6))
def test_resolve_never_half_applies(overrides):
    """Either every override is taken, or the whole value is refused (nothing half applied)."""
    try:
        gates = fg.resolve(overrides)
    except fg.FeatureGateError:
        return
    assert all(gates[k] == v for k, v in overrides.items())
    assert all(gates[d] for name, on in gates.items() if on for d in fg.GATES[name].depends_on)


def _drasim(capsys, *args):
    from drasim.cli.main import main

    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_features_command_lists_the_table_and_the_chosen_setting(capsys):
    code, out, err = _drasim(capsys, "features", "--feature-gates=GenericWorkload=true", "-o", "json")
    assert code == 0, err
    items = {g["name"]: g for g in json.loads(out)["featureGates"]}
    assert set(items) == set(fg.GATES)
    assert items["GenericWorkload"]["enabled"] is True and items["GenericWorkload"]["default"] is False
    assert items["DRADeviceTaints"]["modelled"] == "yes"


def test_bad_gate_is_one_clear_error_before_any_work(tmp_path, capsys):
    code, out, err = _drasim(capsys, "simulate", str(tmp_path / "missing.yaml"), "--feature-gates=DRAPrioritizedList=false")
    assert code == 1 and out == ""
    assert err.strip() == ("error: " + FLAG.format("DRAPrioritizedList=false")
                                  + "cannot set feature gate DRAPrioritizedList to false, feature is locked to true")
