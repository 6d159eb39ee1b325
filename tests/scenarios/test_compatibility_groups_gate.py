"""KEP-5963 through the control plane: with the alpha gate off the API server drops
`compatibilityGroups` (dropDisabledFields), with it on the scheduler enforces and records them."""
from drasim import featuregates
from drasim.controlplane import ControlPlane, options_for

OFF = featuregates.DEFAULTS
ON = featuregates.from_flag("DRADeviceCompatibilityGroups=true")

DRIVER = "gpu.example.com"


def cluster(gates) -> ControlPlane:
    cp = ControlPlane(options_for(gates))
    cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
               "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "10"}}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
               "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}})
    pool = {"name": "n1", "generation": 1, "resourceSliceCount": 2}
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "counters"},
               "spec": {"driver": DRIVER, "nodeName": "n1", "pool": pool,
                        "sharedCounters": [{"name": "gpu-0", "counters": {"mem": {"value": "8"}}}]}})

    def part(name: str, group: str) -> dict:
        return {"name": name, "consumesCounters": [{"counterSet": "gpu-0", "counters": {"mem": {"value": "4"}},
                                                     "compatibilityGroups": [group]}]}
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "parts"},
               "spec": {"driver": DRIVER, "nodeName": "n1", "pool": pool,
                        "devices": [part("mig-0", "mig"), part("vgpu-0", "vgpu")]}})
    for name in ("a", "b"):
        cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                   "metadata": {"name": name, "namespace": "default"},
                   "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}}})
        cp.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
                   "spec": {"containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "x"}]}}],
                            "resourceClaims": [{"name": "x", "resourceClaimName": name}]}})
    cp.settle()
    return cp


def test_gate_off_drops_the_field_and_devices_allocate_as_plain_partitions():
    cp = cluster(OFF)
    parts = cp.store.get("ResourceSlice", None, "parts")
    assert all("compatibilityGroups" not in c for d in parts["spec"]["devices"] for c in d["consumesCounters"])
    assert all(cp.store.get("Pod", "default", n)["spec"].get("nodeName") == "n1" for n in ("a", "b"))


def test_gate_on_keeps_mig_and_vgpu_apart_and_records_the_snapshot():
    cp = cluster(ON)
    pods = {n: cp.store.get("Pod", "default", n)["spec"].get("nodeName") for n in ("a", "b")}
    assert pods == {"a": "n1", "b": None}
    [result] = cp.store.get("ResourceClaim", "default", "a")["status"]["allocation"]["devices"]["results"]
    assert result["device"] == "mig-0" and result["compatibilityGroups"] == {"gpu-0": ["mig"]}


def test_gate_off_keeps_the_field_on_objects_that_already_used_it():
    from drasim.disabledfields import drop_disabled_fields

    def slice_with(groups):
        entry = {"counterSet": "gpu-0", "counters": {}}
        if groups:
            entry["compatibilityGroups"] = groups
        return {"spec": {"devices": [{"name": "d", "consumesCounters": [entry]}]}}

    new = slice_with(["mig"])
    drop_disabled_fields("ResourceSlice", new, None, OFF)
    assert "compatibilityGroups" not in new["spec"]["devices"][0]["consumesCounters"][0]
    kept = slice_with(["vgpu"])
    drop_disabled_fields("ResourceSlice", kept, slice_with(["mig"]), OFF)
    assert kept["spec"]["devices"][0]["consumesCounters"][0]["compatibilityGroups"] == ["vgpu"]
    on = slice_with(["mig"])
    drop_disabled_fields("ResourceSlice", on, None, ON)
    assert on["spec"]["devices"][0]["consumesCounters"][0]["compatibilityGroups"] == ["mig"]


def _slice_with_groups(groups) -> dict:
    pool = {"name": "n1", "generation": 1, "resourceSliceCount": 1}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "bad"},
            "spec": {"driver": DRIVER, "nodeName": "n1", "pool": pool,
                     "devices": [{"name": "p", "consumesCounters": [
                         {"counterSet": "gpu-0", "counters": {"mem": {"value": "1"}}, "compatibilityGroups": groups}]}]}}


import pytest  # noqa: E402

from drasim.errors import InvalidObject  # noqa: E402

_GROUPS = "spec.devices[0].consumesCounters[0].compatibilityGroups"


@pytest.mark.parametrize("groups, message", [
    # the types' declarative rules: +k8s:maxItems=2, +k8s:unique=set, +k8s:eachVal=+k8s:format=k8s-short-name
    (["a", "b", "c"], f"{_GROUPS}: Too many: 3: must have at most 2 items"),
    (["mig", "mig"], f'{_GROUPS}[1]: Duplicate value: "mig"'),
    (["MIG"], f'{_GROUPS}[0]: Invalid value: "MIG": a lowercase RFC 1123 label must consist of'),
])
def test_gate_on_refuses_malformed_groups(groups, message):
    cp = ControlPlane(options_for(ON))
    with pytest.raises(InvalidObject) as err:
        cp.create(_slice_with_groups(groups))
    assert message in str(err.value)
    assert cp.store.get("ResourceSlice", None, "bad") is None


def test_gate_on_accepts_two_distinct_labels_and_off_drops_bad_ones_before_validation():
    ControlPlane(options_for(ON)).create(_slice_with_groups(["mig", "vgpu-1"]))
    cp = ControlPlane(options_for(OFF))
    cp.create(_slice_with_groups(["A", "A", "b"]))   # dropped, so never validated
    assert "compatibilityGroups" not in cp.store.get("ResourceSlice", None, "bad")["spec"]["devices"][0]["consumesCounters"][0]
