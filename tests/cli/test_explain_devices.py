"""`drasim explain`, down to the device: one test per reason a device cannot serve a request."""
import json

from drasim.cli.main import main
from drasim.controlplane import ControlPlane
from drasim.plan.devicewhy import explain_node

DRIVER = "gpu.example.com"


def cluster(devices, *, counters=None, slice_count=1, extra=()):
    cp = ControlPlane()
    cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
               "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "10"}}})
    if counters:
        cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "counters"},
                   "spec": {"driver": DRIVER, "nodeName": "n1",
                            "pool": {"name": "n1", "generation": 1, "resourceSliceCount": slice_count},
                            "sharedCounters": counters}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "devices"},
               "spec": {"driver": DRIVER, "nodeName": "n1",
                        "pool": {"name": "n1", "generation": 1, "resourceSliceCount": slice_count},
                        "devices": devices}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
               "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}],
                        "extendedResourceName": "example.com/gpu"}})
    for obj in extra:
        cp.create(obj)
    cp.settle()
    return cp


def claim(name, **exactly):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": name, "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu", **exactly}}]}}}


def pod(name, claim_name=None, limits=None):
    spec = {"containers": [{"name": "c", "image": "i", "resources": {}}]}
    if claim_name:
        spec["resourceClaims"] = [{"name": "r", "resourceClaimName": claim_name}]
        spec["containers"][0]["resources"]["claims"] = [{"name": "r"}]
    if limits:
        spec["containers"][0]["resources"]["limits"] = limits
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def why(cp, pod_name):
    p = cp.store.get("Pod", "default", pod_name)
    assert not p["spec"].get("nodeName"), "the pod was expected to stay Pending"
    return explain_node(cp, p, cp.store.get("Node", None, "n1"))


def place(cp, *objs):
    for o in objs:
        cp.create(o)
    cp.settle()


def test_request_selector_false_names_the_expression_and_the_values():
    cp = cluster([{"name": "g0", "attributes": {"mem": {"int": 40}}}])
    place(cp, claim("c", selectors=[{"cel": {"expression": f'device.attributes["{DRIVER}"].mem >= 80'}}]), pod("p", "c"))
    [r] = why(cp, "p")
    [d] = r.devices
    assert d.reason == f'request selector #0 is false: device.attributes["{DRIVER}"].mem >= 80'
    assert d.detail == f"{DRIVER}.mem=40"
    assert r.hint == "no device matches the class and the request selectors"


def test_untolerated_taints_from_the_slice_and_from_a_rule():
    rule = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": "maint"},
            "spec": {"deviceSelector": {"driver": DRIVER, "pool": "n1", "device": "g1"},
                     "taint": {"key": "maintenance", "effect": "NoSchedule"}}}
    cp = cluster([{"name": "g0", "taints": [{"key": "broken", "value": "ecc", "effect": "NoExecute"}]}, {"name": "g1"}],
                 extra=[rule])
    place(cp, claim("c"), pod("p", "c"))
    [r] = why(cp, "p")
    assert [d.reason for d in r.devices] == ["taint broken=ecc:NoExecute is not tolerated",
                                             "taint maintenance:NoSchedule is not tolerated"]


def test_allocated_devices_name_their_claims_and_the_hint_says_so():
    cp = cluster([{"name": "g0"}, {"name": "g1"}])
    place(cp, claim("first", count=2), pod("a", "first"), claim("second"), pod("b", "second"))
    [r] = why(cp, "b")
    assert {(d.reason, d.detail) for d in r.devices} == {("allocated", "to claim default/first")}
    assert r.hint == ("2 device(s) match the class and the request, 0 free, 1 needed; the others are allocated "
                      "to default/first")


def test_exhausted_counter_set():
    counters = [{"name": "chip", "counters": {"mem": {"value": "80Gi"}}}]
    part = lambda n, v: {"name": n, "attributes": {"size": {"string": n.split("-")[0]}},  # noqa: E731
                         "consumesCounters": [{"counterSet": "chip", "counters": {"mem": {"value": v}}}]}
    cp = cluster([part("half-0", "40Gi"), part("half-1", "40Gi"), part("full", "80Gi")], counters=counters,
                 slice_count=2)
    place(cp, claim("h", selectors=[{"cel": {"expression": f'device.attributes["{DRIVER}"].size == "half"'}}]),
          pod("a", "h"),
          claim("f", selectors=[{"cel": {"expression": f'device.attributes["{DRIVER}"].size == "full"'}}]),
          pod("b", "f"))
    [r] = why(cp, "b")
    full = next(d for d in r.devices if d.device.endswith("/full"))
    assert full.reason == "counter set exhausted" and "chip.mem: needs 85899345920, 42949672960 left" in full.detail


def test_not_enough_capacity_left_on_a_shared_device():
    nic = {"name": "nic", "allowMultipleAllocations": True, "capacity": {"bw": {"value": "10"}}}
    cp = cluster([nic])
    place(cp, claim("a", capacity={"requests": {"bw": "8"}}), pod("pa", "a"),
          claim("b", capacity={"requests": {"bw": "4"}}), pod("pb", "b"))
    [r] = why(cp, "pb")
    [d] = r.devices
    assert (d.reason, d.detail) == ("not enough capacity left", "bw: requested 4, 2 left")


def test_incomplete_pool():
    cp = cluster([{"name": "g0"}], slice_count=2)   # one slice of two published
    place(cp, claim("c"), pod("p", "c"))
    [r] = why(cp, "p")
    assert r.devices[0].reason.startswith("pool incomplete")


def test_constraint_rules_out_the_combination():
    cp = cluster([{"name": "g0", "attributes": {"numa": {"int": 0}}}, {"name": "g1", "attributes": {"numa": {"int": 1}}}])
    c = claim("c", count=2)
    c["spec"]["devices"]["constraints"] = [{"requests": ["r"], "matchAttribute": f"{DRIVER}/numa"}]
    place(cp, c, pod("p", "c"))
    [r] = why(cp, "p")
    assert r.usable == 2 and "constraints" in r.hint


def test_extended_resource_names_the_class_and_why_its_devices_do_not_fit():
    cp = cluster([{"name": "g0"}])
    place(cp, pod("a", limits={"example.com/gpu": 1}), pod("b", limits={"example.com/gpu": 1}))
    [r] = why(cp, "b")
    assert r.claim == "extended resource example.com/gpu (class gpu)"
    assert [d.reason for d in r.devices] == ["allocated"]


def test_cli_prints_the_device_section_and_json_has_it(tmp_path, capsys):
    (tmp_path / "c.yaml").write_text(f"""apiVersion: v1
kind: Node
metadata: {{name: n1, labels: {{kubernetes.io/hostname: n1}}}}
status: {{allocatable: {{cpu: "8", memory: 8Gi, pods: "10"}}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: s}}
spec:
  driver: {DRIVER}
  nodeName: n1
  pool: {{name: n1, generation: 1, resourceSliceCount: 1}}
  devices: [{{name: g0, attributes: {{mem: {{int: 40}}}}}}]
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: gpu}}
spec:
  selectors: [{{cel: {{expression: 'device.attributes["{DRIVER}"].mem > 64'}}}}]
---
apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: default}}
spec:
  containers: [{{name: c, image: i, resources: {{limits: {{deviceclass.resource.kubernetes.io/gpu: 1}}}}}}]
""")
    assert main(["explain", "p", "--cluster", str(tmp_path / "c.yaml")]) == 0
    out = capsys.readouterr().out
    assert "class selector #0 is false" in out and f"{DRIVER}.mem=40" in out
    assert main(["explain", "p", "--cluster", str(tmp_path / "c.yaml"), "-o", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    [r] = data["devices"]["n1"]
    assert r["devices"][0]["reason"].startswith("class selector #0 is false")
