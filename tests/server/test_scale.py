"""The scale subresource (`kubectl scale`): autoscaling/v1 Scale over Deployments, ReplicaSets
and StatefulSets, written through the parent's write path."""
from __future__ import annotations

import json

import pytest

from drasim.server.scale import selector_string
from tests.server.harness import Serve

SCALE = "/apis/apps/v1/namespaces/default/deployments/web/scale"


@pytest.fixture(scope="module")
def s(kubectl_available, tmp_path_factory):
    server = Serve(tmp_path_factory.mktemp("scale"))
    try:
        server.kubectl("create", "deployment", "web", "--image=nginx", "--replicas=1")
        yield server
    finally:
        server.stop()


def test_kubectl_scale_sets_the_parents_replicas(s):
    assert s.kubectl("scale", "deployment", "web", "--replicas=3").stdout == "deployment.apps/web scaled\n"
    assert s.kubectl("get", "deployment", "web", "-o", "jsonpath={.spec.replicas}").stdout == "3"
    code, scale = s.call("GET", SCALE)
    deployment = json.loads(s.kubectl("get", "deployment", "web", "-o", "json").stdout)
    assert code == 200 and scale["kind"] == "Scale" and scale["apiVersion"] == "autoscaling/v1"
    assert scale["spec"] == {"replicas": 3} and scale["status"]["selector"] == "app=web"
    assert scale["metadata"]["uid"] == deployment["metadata"]["uid"]
    assert scale["metadata"]["resourceVersion"] == deployment["metadata"]["resourceVersion"]
    # kubectl's own precondition (--current-replicas) reads the Scale first
    wrong = s.kubectl("scale", "deployment", "web", "--current-replicas=2", "--replicas=4", check=False)
    assert wrong.returncode == 1 and "Expected replicas to be 2, was 3" in wrong.stderr
    s.wait_until(lambda: json.loads(s.kubectl("get", "pods", "-l", "app=web", "-o", "json").stdout)["items"]
                 .__len__() == 3)


def test_scale_writes_are_checked(s):
    code, current = s.call("GET", SCALE)
    code, status = s.call("PUT", SCALE, dict(current, spec={"replicas": -1}))
    assert (code, status["reason"], status["message"]) == (422, "Invalid", 'Scale.autoscaling "web" is invalid: '
                                                           "spec.replicas: Invalid value: -1: must be greater than or equal to 0")
    assert status["details"]["causes"] == [{"reason": "FieldValueInvalid", "field": "spec.replicas",
                                            "message": "Invalid value: -1: must be greater than or equal to 0"}]
    stale = dict(current, metadata=dict(current["metadata"], resourceVersion="1"), spec={"replicas": 2})
    code, status = s.call("PUT", SCALE, stale)
    assert (code, status["reason"]) == (409, "Conflict")
    assert status["message"].startswith('Operation cannot be fulfilled on deployments.apps "web": the object has been modified')
    code, status = s.call("PATCH", SCALE, {"spec": {"replicas": "two"}}, content_type="application/merge-patch+json")
    assert code == 400 and "cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32" \
        in status["message"]
    code, scale = s.call("PATCH", SCALE, [{"op": "replace", "path": "/spec/replicas", "value": 2}],
                         content_type="application/json-patch+json")
    assert (code, scale["spec"]["replicas"]) == (200, 2)
    code, status = s.call("GET", "/api/v1/namespaces/default/pods/web/scale")
    assert code == 404   # pods have no scale subresource


def test_selector_string_is_label_selector_as_selector_string():
    assert selector_string({"matchLabels": {"b": "2", "a": "1"},
                            "matchExpressions": [{"key": "c", "operator": "In", "values": ["y", "x"]},
                                                 {"key": "0", "operator": "DoesNotExist"},
                                                 {"key": "d", "operator": "NotIn", "values": ["z"]},
                                                 {"key": "e", "operator": "Exists"}]}) == \
        "!0,a=1,b=2,c in (x,y),d notin (z),e"
    assert selector_string(None) == "" and selector_string({}) == ""
