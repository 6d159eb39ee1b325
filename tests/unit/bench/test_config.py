"""Config structure: params, labels, thresholds, feature gates, topics, API version conversion."""
from pathlib import Path

import pytest

from drasim.allocator import Features
from drasim.bench.config import (ConfigError, Params, Workload, allocator_features, default_topic, labels_match,
                                 parse_duration, threshold_for)
from drasim.bench.convert import to_v1
from drasim.bench.ops import UnsupportedOp, prepare_ops


def params(**values) -> Params:
    return Params(Workload("w1", params=values))


@pytest.mark.parametrize(("raw", "values", "want"), [
    pytest.param({"n": "$x"}, {"x": 5}, {"n": 5}, id="param"),
    pytest.param({"n": "$x|2"}, {"x": 5}, {"n": 5}, id="default-unused-when-set"),
    pytest.param({"n": "$x|2"}, {}, {"n": "2"}, id="default-literal"),
    pytest.param({"n": "$x|"}, {}, {"n": None}, id="empty-default-is-nil"),
    pytest.param({"n": 10, "s": "plain"}, {}, {"n": 10, "s": "plain"}, id="literals"),
])
def test_template_params(raw, values, want):
    """`$name` takes the workload param; `$name|default` falls back to the literal (empty: nil)."""
    assert params(**values).template_params(raw) == want


def test_template_param_not_found():
    """A `$name` without default that the workload lacks is scheduler_perf's error."""
    with pytest.raises(ConfigError, match='parameter "x" not found'):
        params().template_params({"n": "$x"})


OPS = [{"opcode": "createNodes", "countParam": "$nodes"},
       {"opcode": "createPods", "countParam": "$pods", "steadyStateParam": "$steady", "durationParam": "$d",
        "collectMetrics": True}]


def test_prepare_ops_resolves_params():
    """countParam, steadyStateParam and durationParam read the workload's params."""
    ops = prepare_ops(OPS, params(nodes=2.9, pods=4, steady=True, d="1m30s"))
    assert (ops[0].count, ops[1].count, ops[1].steady_state, ops[1].duration) == (2, 4, True, 90.0)
    assert ops[1].namespace == "namespace-1"


@pytest.mark.parametrize(("values", "message"), [
    pytest.param({"pods": 4, "steady": False, "d": "0s"}, "op 0: parameter nodes is undefined", id="undefined"),
    pytest.param({"nodes": 1, "pods": 4, "steady": False, "d": "0s", "extra": 1, "more": 2},
                 "the parameters [extra more] are defined on workload w1, but unused", id="unused"),
    pytest.param({"nodes": 1, "pods": 4, "steady": "yes", "d": "0s"}, "expected a boolean", id="bad-bool"),
    pytest.param({"nodes": 1, "pods": 4, "steady": False, "d": "ten"}, 'invalid duration "ten"', id="bad-duration"),
])
def test_param_errors(values, message):
    """Undefined and unused params are errors, with scheduler_perf's wording."""
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        prepare_ops(OPS, params(**values))


def test_unsupported_op_is_reported_before_params():
    """An op drasim cannot replay is named, before any param check."""
    with pytest.raises(UnsupportedOp, match="op 1: unsupported op createPodSets"):
        prepare_ops([OPS[0], {"opcode": "createPodSets"}], params())


@pytest.mark.parametrize(("labels", "flt", "want"), [
    (("performance",), "performance", True),
    (("integration-test", "short"), "performance", False),
    (("performance", "short"), "performance,+short", True),
    (("performance", "short"), "performance,-short", False),
    (("integration-test",), "integration-test,-performance", True),
    ((), "", True),
])
def test_labels_match(labels, flt, want):
    """`l`/`+l` must be present, `-l` must be absent, all comma-separated terms must hold."""
    assert labels_match(labels, flt) is want


@pytest.mark.parametrize(("raw", "topic", "want"), [
    (120, "dra_extendedresource", 120.0), ({"dra": 56}, "dra", 56.0),
    ({"dra": 56}, "dra_experimental", 0.0), (None, "dra", 0.0),
])
def test_threshold_for(raw, topic, want):
    """A scalar applies to every topic; a map to its topics only (missing: 0, no check)."""
    assert threshold_for(raw, topic) == want


def test_default_topic():
    """The topic follows the config's folder below dra/."""
    assert default_topic(Path("/x/dra/performance-config.yaml")) == "dra"
    assert default_topic(Path("/x/dra/extendedresource/scoring/performance-config.yaml")) == \
        "dra_extendedresource_scoring"


def test_allocator_features():
    """The DRA allocator gates set Features fields; other gates are listed as not modelled."""
    features, ignored = allocator_features({"DRAPrioritizedList": False, "DRADeviceTaints": True,
                                            "SchedulerQueueingHints": True})
    assert features == Features(prioritized_list=False)
    assert ignored == ["SchedulerQueueingHints"]


def test_parse_duration():
    """Go durations: units may be combined; "0" is zero."""
    assert [parse_duration(d) for d in ("10s", "0s", "0", "1m30s", "500ms", "2h")] == [10, 0, 0, 90, 0.5, 7200]


def test_v1alpha3_request_moves_under_exactly():
    """README §7.5: v1alpha3/v1beta1 request fields move under `exactly`; firstAvailable stays."""
    obj = {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "ResourceClaimTemplate", "metadata": {"name": "t"},
           "spec": {"spec": {"devices": {"requests": [
               {"name": "a", "deviceClassName": "c", "tolerations": [{"key": "k", "operator": "Exists"}]},
               {"name": "b", "firstAvailable": [{"name": "s", "deviceClassName": "c"}]}]}}}}
    got, note = to_v1(obj, "t.yaml")
    assert got["apiVersion"] == "resource.k8s.io/v1" and note
    assert got["spec"]["spec"]["devices"]["requests"] == [
        {"name": "a", "exactly": {"deviceClassName": "c", "tolerations": [{"key": "k", "operator": "Exists"}]}},
        {"name": "b", "firstAvailable": [{"name": "s", "deviceClassName": "c"}]}]
    assert obj["apiVersion"] == "resource.k8s.io/v1alpha3"   # input untouched


def test_v1beta2_only_changes_api_version():
    """v1beta2 already has the v1 shape."""
    obj = {"apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceClass", "metadata": {"name": "c"}, "spec": {}}
    assert to_v1(obj, "c.yaml")[0] == dict(obj, apiVersion="resource.k8s.io/v1")
