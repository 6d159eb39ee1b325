"""KEP-5491 list-typed attributes through the control plane, off vs on.

Expected results are worked out from v1.37's source, not from drasim:
- off: the API server drops `bools|ints|strings|versions` (resourceslice strategy dropDisabledFields),
  so an attribute holding only a list is left empty and validateDeviceAttribute refuses it;
  `includes` is not declared for new selectors (compile.go: FeatureEnabled EnableListTypeAttributes).
- on: kube-scheduler picks the experimental allocator, whose constraints read every attribute as a
  set (attributeAsSet): matchAttribute keeps a running intersection that must stay non-empty and is
  not widened again when a device is given back; distinctAttribute wants pairwise disjoint sets.
"""
import pytest

from drasim import featuregates
from drasim.controlplane import ControlPlane, options_for
from drasim.errors import InvalidObject

OFF = featuregates.DEFAULTS
ON = featuregates.from_flag("DRAListTypeAttributes=true")
DRIVER = "dra.example.com"


def base(gates) -> ControlPlane:
    cp = ControlPlane(options_for(gates))
    cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
               "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "10"}}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "dev"},
               "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}})
    return cp


def slice_of(devices: dict[str, dict]) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
            "spec": {"driver": DRIVER, "nodeName": "n1", "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": n, "attributes": attrs} for n, attrs in devices.items()]}}


def claim_and_pod(cp: ControlPlane, requests: int, constraint: dict | None = None, selector: str | None = None):
    exactly = {"deviceClassName": "dev"}
    if selector:
        exactly["selectors"] = [{"cel": {"expression": selector}}]
    devices = {"requests": [{"name": f"r{i}", "exactly": dict(exactly)} for i in range(requests)]}
    if constraint:
        devices["constraints"] = [constraint]
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
               "metadata": {"name": "c", "namespace": "default"}, "spec": {"devices": devices}})
    cp.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
               "spec": {"containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "x"}]}}],
                        "resourceClaims": [{"name": "x", "resourceClaimName": "c"}]}})
    cp.settle()


def placed(cp: ControlPlane):
    pod = cp.store.get("Pod", "default", "p")
    claim = cp.store.get("ResourceClaim", "default", "c")
    alloc = (claim.get("status") or {}).get("allocation")
    devices = [r["device"] for r in alloc["devices"]["results"]] if alloc else None
    return pod["spec"].get("nodeName"), devices


def roots(*values):
    return {"roots": {"strings": list(values)}}


def test_off_the_list_is_dropped_and_the_slice_refused():
    cp = base(OFF)
    with pytest.raises(InvalidObject) as err:
        cp.create(slice_of({"d0": roots("a")}))
    assert "spec.devices[0].attributes[roots]: Invalid value: \"\": exactly one value must be specified" in str(err.value)
    assert cp.store.get("ResourceSlice", None, "s") is None


def test_off_scalars_match_by_equality_as_before():
    cp = base(OFF)
    cp.create(slice_of({"d0": {"m": {"string": "x"}}, "d1": {"m": {"string": "y"}}, "d2": {"m": {"string": "x"}}}))
    claim_and_pod(cp, 2, {"matchAttribute": f"{DRIVER}/m"})
    assert placed(cp) == ("n1", ["d0", "d2"])


def test_on_the_slice_keeps_its_lists():
    cp = base(ON)
    cp.create(slice_of({"d0": roots("a", "b")}))
    assert cp.store.get("ResourceSlice", None, "s")["spec"]["devices"][0]["attributes"]["roots"] == {"strings": ["a", "b"]}


def test_on_match_needs_a_common_element_of_the_running_intersection():
    # r0=d0 {a,b}; r1=d1 {b,c} narrows to {b}; d2 {a} meets d0 but not {b}; d3 {b,x} fits.
    cp = base(ON)
    cp.create(slice_of({"d0": roots("a", "b"), "d1": roots("b", "c"), "d2": roots("a"), "d3": roots("x", "b")}))
    claim_and_pod(cp, 3, {"matchAttribute": f"{DRIVER}/roots"})
    assert placed(cp) == ("n1", ["d0", "d1", "d3"])


def test_on_match_scalar_and_list_mix_and_kinds_never_meet():
    # A scalar is a set of one: d0 "b" meets d2 [a, b]; d1 int 7 has another kind.
    cp = base(ON)
    cp.create(slice_of({"d0": {"roots": {"string": "b"}}, "d1": {"roots": {"int": 7}}, "d2": roots("a", "b")}))
    claim_and_pod(cp, 2, {"matchAttribute": f"{DRIVER}/roots"})
    assert placed(cp) == ("n1", ["d0", "d2"])


def test_on_match_intersection_is_not_widened_when_a_device_is_given_back():
    # Devices d0 {a,b}, d1 {b}, d2 {a}, d3 {a}; three requests must share one value ({a}: d0 d2 d3).
    # Go: r0=d0 ({a,b}), r1=d1 ({b}), r2 fails; d1 is given back but the intersection stays {b},
    # so r1 cannot take d2 or d3 and r0 moves on; r0=d1 ({b}) fails likewise; r0=d2 ({a}),
    # r1=d0, r2=d3 succeeds. A search that restored {a,b} would have found d0, d2, d3.
    cp = base(ON)
    cp.create(slice_of({"d0": roots("a", "b"), "d1": roots("b"), "d2": roots("a"), "d3": roots("a")}))
    claim_and_pod(cp, 3, {"matchAttribute": f"{DRIVER}/roots"})
    assert placed(cp) == ("n1", ["d2", "d0", "d3"])


def test_on_distinct_wants_pairwise_disjoint_sets():
    cp = base(ON)
    cp.create(slice_of({"d0": roots("a", "b"), "d1": roots("b", "c"), "d2": roots("c", "d"), "d3": roots("e")}))
    claim_and_pod(cp, 3, {"distinctAttribute": f"{DRIVER}/roots"})
    # d1 shares b with d0; d2 is disjoint from d0; d3 from both.
    assert placed(cp) == ("n1", ["d0", "d2", "d3"])


def test_on_distinct_unsatisfiable_leaves_the_pod_pending():
    cp = base(ON)
    cp.create(slice_of({"d0": roots("a", "b"), "d1": roots("b", "c"), "d2": roots("c", "a")}))
    claim_and_pod(cp, 2, {"distinctAttribute": f"{DRIVER}/roots"})
    assert placed(cp) == (None, None)


def test_includes_is_refused_off_and_selects_on():
    expression = f'device.attributes["{DRIVER}"].roots.includes("c")'
    cp = base(OFF)
    with pytest.raises(InvalidObject) as err:
        claim_and_pod(cp, 1, selector=expression)
    assert "undeclared reference to 'includes'" in str(err.value)
    cp = base(ON)
    cp.create(slice_of({"d0": roots("a", "b"), "d1": roots("b", "c")}))
    claim_and_pod(cp, 1, selector=expression)
    assert placed(cp) == ("n1", ["d1"])
