"""ResourceSlice spec.partitionTypeAttribute (DRAResourcePoolStatus, alpha), off vs on.

Expected from v1.37's source: off, resourceslice strategy dropDisabledFields removes it; on,
validation.go validatePartitionTypeAttribute checks the slice and each device consuming counters.
"""
import pytest

from drasim import featuregates
from drasim.controlplane import ControlPlane, options_for
from drasim.errors import InvalidObject

OFF = featuregates.DEFAULTS
ON = featuregates.from_flag("DRAResourcePoolStatus=true")
DRIVER = "gpu.example.com"


def part(name, **attrs):
    return {"name": name, "attributes": attrs,
            "consumesCounters": [{"counterSet": "gpu-0", "counters": {"mem": {"value": "1"}}}]}


def slice_with(attr: str, *devices) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
            "spec": {"driver": DRIVER, "nodeName": "n1", "partitionTypeAttribute": attr,
                     "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 2}, "devices": list(devices)}}


def test_off_the_field_is_dropped():
    cp = ControlPlane(options_for(OFF))
    cp.create(slice_with(f"{DRIVER}/profile", {"name": "plain"}))   # would be refused with the gate on
    assert "partitionTypeAttribute" not in cp.store.get("ResourceSlice", None, "s")["spec"]


def test_on_a_bare_or_qualified_string_attribute_is_accepted_and_plain_devices_are_exempt():
    cp = ControlPlane(options_for(ON))
    cp.create(slice_with(f"{DRIVER}/profile", part("mig-1g", profile={"string": "1g.10gb"}),
                         part("mig-2g", **{f"{DRIVER}/profile": {"string": "2g.20gb"}}), {"name": "whole"}))
    assert cp.store.get("ResourceSlice", None, "s")["spec"]["partitionTypeAttribute"] == f"{DRIVER}/profile"


@pytest.mark.parametrize("attr, devices, message", [
    (f"{DRIVER}/profile", [{"name": "whole"}],
     f'spec.partitionTypeAttribute: Invalid value: "{DRIVER}/profile": may only be set on a slice which declares '
     "devices that consume counters"),
    ("profile", [part("p", profile={"string": "x"})],
     'spec.partitionTypeAttribute: Invalid value: "profile": a fully qualified name must be a domain and a name '
     "separated by a slash"),
    (f"{DRIVER}/profile", [part("p")],
     f"spec.devices[0].attributes[{DRIVER}/profile]: Required value: device consumes counters and "
     "`partitionTypeAttribute` names this attribute, so it must be set"),
    (f"{DRIVER}/profile", [part("p", profile={"int": 2})],
     f"spec.devices[0].attributes[{DRIVER}/profile]: Invalid value: "),
])
def test_on_bad_uses_are_refused(attr, devices, message):
    cp = ControlPlane(options_for(ON))
    with pytest.raises(InvalidObject) as err:
        cp.create(slice_with(attr, *devices))
    assert message in str(err.value)
    if message.endswith("Invalid value: "):
        assert "must be a string value because `partitionTypeAttribute` names this attribute" in str(err.value)
