"""DeviceClass and DeviceTaintRule validation, taints and tolerations (VALID; device-taints.md §3)."""
import copy
import importlib.util

import pytest

from drasim.api.validation import resource, validate_object

SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
             "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
             "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
               "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
               "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
KEY_NAME = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")


def device_class(name="gpu", **spec):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


def rule(name="r", **spec):
    spec.setdefault("taint", {"key": "example.com/broken", "effect": "NoExecute"})
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": name}, "spec": spec}


def messages(obj, old=None):
    return [str(e) for e in validate_object(obj, old)]


@pytest.mark.parametrize("obj", [
    pytest.param(device_class(), id="empty-spec"),
    pytest.param(device_class(extendedResourceName="example.com/gpu"), id="extended-name"),
    pytest.param(device_class(config=[{"opaque": {"driver": "gpu.example.com", "parameters": {"a": 1}}}]), id="config"),
    pytest.param(device_class("a" * 253), id="253-char-name"),
    pytest.param(rule(), id="rule-without-selector"),
    pytest.param(rule(deviceSelector={}), id="rule-empty-selector"),
    pytest.param(rule(deviceSelector={"driver": "gpu.example.com", "pool": "node-1/a", "device": "gpu-0"}), id="rule-selector"),
])
def test_valid(obj):
    """Well-formed classes and rules pass."""
    assert messages(obj) == []


@pytest.mark.parametrize(("obj", "want"), [
    pytest.param(device_class("Bad_Name"), [f'metadata.name: Invalid value: "Bad_Name": {SUBDOMAIN}'], id="class-name"),
    pytest.param(dict(device_class(), metadata={"name": "gpu", "namespace": "default"}),
                 ["metadata.namespace: Forbidden: not allowed on this type"], id="class-namespaced"),
    pytest.param(device_class(extendedResourceName="gpu"),
                 ['spec.extendedResourceName: Invalid value: "gpu": must be a valid extended resource name'], id="ext-no-domain"),
    pytest.param(device_class(extendedResourceName="kubernetes.io/gpu"),
                 ['spec.extendedResourceName: Invalid value: "kubernetes.io/gpu": must be a valid extended resource name'],
                 id="ext-kubernetes-io"),
    pytest.param(device_class(extendedResourceName="requests.example.com/gpu"),
                 ['spec.extendedResourceName: Invalid value: "requests.example.com/gpu": must be a valid extended resource name'],
                 id="ext-requests-prefix"),
    pytest.param(device_class(selectors=[{}]), ["spec.selectors[0].cel: Required value"], id="selector-without-cel"),
    pytest.param(device_class(selectors=[{"cel": {"expression": "x" * 10241}}]),
                 ["spec.selectors[0].cel.expression: Too long: may not be more than 10240 bytes"], id="cel-too-long"),
    pytest.param(device_class(selectors=[{"cel": {"expression": "true"}}] * 33),
                 ["spec.selectors: Too many: 33: must have at most 32 items"], id="too-many-selectors"),
    pytest.param(device_class(config=[{}]), ["spec.config[0].opaque: Required value"], id="config-without-opaque"),
    pytest.param(device_class(config=[{"opaque": {"driver": "d.example.com", "parameters": [1]}}]),
                 ['spec.config[0].opaque.parameters: Invalid value: "<value omitted>": must be a valid JSON object'],
                 id="config-parameters-not-object"),
    pytest.param(device_class(config=[{"opaque": {"driver": "", "parameters": {}}}]),
                 ["spec.config[0].opaque.driver: Required value", f'spec.config[0].opaque.driver: Invalid value: "": {SUBDOMAIN}'],
                 id="config-driver-empty"),
    pytest.param(device_class(config=[{"opaque": {"driver": "d.example.com", "parameters": {"a": "x" * 10240}}}]),
                 ["spec.config[0].opaque.parameters: Too long: may not be more than 10240 bytes"], id="parameters-too-long"),
    pytest.param(rule("Bad_Name"), [f'metadata.name: Invalid value: "Bad_Name": {SUBDOMAIN}'], id="rule-name"),
    pytest.param(rule(taint={"key": "k", "effect": "PreferNoSchedule"}),
                 ['spec.taint.effect: Unsupported value: "PreferNoSchedule": supported values: "NoExecute", "NoSchedule", "None"'],
                 id="taint-effect-unsupported"),
    pytest.param(rule(taint={"key": "k"}), ["spec.taint.effect: Required value"], id="taint-effect-required"),
    pytest.param(rule(taint={"effect": "None"}),
                 ['spec.taint.key: Invalid value: "": name part must be non-empty', f'spec.taint.key: Invalid value: "": {KEY_NAME}'],
                 id="taint-key-required"),
    pytest.param(rule(taint={"key": "k", "value": "bad value", "effect": "None"}),
                 [f'spec.taint.value: Invalid value: "bad value": {LABEL_VALUE}'], id="taint-value"),
    pytest.param(rule(deviceSelector={"driver": "Bad_Driver"}),
                 [f'spec.deviceSelector.driver: Invalid value: "Bad_Driver": {SUBDOMAIN}'], id="selector-driver"),
    pytest.param(rule(deviceSelector={"pool": "a//b"}),
                 [f'spec.deviceSelector.pool: Invalid value: "": {SUBDOMAIN}'], id="selector-pool-empty-part"),
    pytest.param(rule(deviceSelector={"device": "gpu.0"}),
                 ['spec.deviceSelector.device: Invalid value: "gpu.0": must not contain dots'], id="selector-device"),
    pytest.param(rule(taint=None), ['spec.taint.key: Invalid value: "": name part must be non-empty',
                                    f'spec.taint.key: Invalid value: "": {KEY_NAME}', "spec.taint.effect: Required value"],
                 id="taint-missing"),
])
def test_invalid(obj, want):
    """Each bad input yields exactly the API server's messages."""
    assert messages(obj) == want


def test_taint_rule_update_keeps_stored_unknown_effect():
    """device-taints.md §3.3: an unchanged effect is not re-validated on update."""
    old = rule(taint={"key": "k", "effect": "Bogus"})
    new = copy.deepcopy(old)
    new["spec"]["taint"]["value"] = "v"
    assert messages(new, old) == []
    new["spec"]["taint"]["effect"] = "Other"
    assert messages(new, old) == ['spec.taint.effect: Unsupported value: "Other": supported values: "NoExecute", "NoSchedule", "None"']


@pytest.mark.parametrize(("tol", "want"), [
    pytest.param({"operator": "Exists"}, [], id="exists-everything"),
    pytest.param({"key": "k", "operator": "Equal", "value": ""}, [], id="equal-empty-value"),
    pytest.param({"operator": "Equal", "value": "v"}, [], id="empty-key-equal-accepted"),
    pytest.param({"key": "k", "operator": "Exists", "value": "v"},
                 ['t.value: Invalid value: "v": must be empty for operator `Exists`'], id="exists-with-value"),
    pytest.param({"key": "k", "operator": "In"}, ['t.operator: Unsupported value: "In": supported values: "Equal", "Exists"'],
                 id="bad-operator"),
    pytest.param({"key": "k", "operator": ""}, ["t.operator: Required value"], id="empty-operator"),
    pytest.param({"operator": "Exists", "effect": "PreferNoSchedule"},
                 ['t.effect: Unsupported value: "PreferNoSchedule": supported values: "NoExecute", "NoSchedule", "None"'],
                 id="bad-effect"),
    pytest.param({"operator": "Exists", "tolerationSeconds": -5}, [], id="negative-seconds-allowed"),
    pytest.param({"key": "a/b/c", "operator": "Exists"},
                 ["t.key: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' "
                  "or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
                  "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an "
                  "optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"], id="bad-key"),
])
def test_toleration(tol, want):
    """device-taints.md §3.8: toleration key/operator/value/effect rules."""
    errs = []
    resource.validate_device_toleration(tol, resource.Path("t"), errs)
    assert [str(e) for e in errs] == want


def test_cel_errors_are_reported_on_the_expression(monkeypatch):
    """cel.md §6.1: compile errors become field errors on ...selectors[i].cel.expression."""
    monkeypatch.setattr(resource, "_cel_validator", lambda expr, list_types=False: [
        ("Invalid", "compilation failed: ERROR: <input>:1:11: Syntax error: mismatched input"),
        ("Forbidden", "too complex, exceeds cost limit")])
    assert messages(device_class(selectors=[{"cel": {"expression": "device.x =="}}])) == [
        'spec.selectors[0].cel.expression: Invalid value: "device.x ==": compilation failed: ERROR: <input>:1:11: '
        "Syntax error: mismatched input",
        "spec.selectors[0].cel.expression: Forbidden: too complex, exceeds cost limit"]


def test_class_update_skips_unchanged_selectors(monkeypatch):
    """cel.md §6 / allocator.md §3.11: unchanged selectors count as stored and are not recompiled."""
    calls = []
    monkeypatch.setattr(resource, "_cel_validator", lambda expr, list_types=False: calls.append(expr) or [("Invalid", "bad")])
    old = device_class(selectors=[{"cel": {"expression": "old"}}])
    assert messages(copy.deepcopy(old), old) == [] and calls == []
    new = device_class(selectors=[{"cel": {"expression": "new"}}])
    assert messages(new, old) == ['spec.selectors[0].cel.expression: Invalid value: "new": bad']


@pytest.mark.skipif(importlib.util.find_spec("drasim.cel") is None, reason="drasim.cel not written yet")
def test_real_cel_compile_error():
    """With the real CEL module a syntax error is rejected as Invalid on the expression."""
    resource._cel_validator = None
    errs = messages(device_class(selectors=[{"cel": {"expression": "device.driver =="}}]))
    assert len(errs) == 1 and errs[0].startswith('spec.selectors[0].cel.expression: Invalid value: "device.driver ==": ')
