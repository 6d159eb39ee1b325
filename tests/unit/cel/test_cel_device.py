"""The `device` variable built from a ResourceSlice device (spec cel.md §3)."""
from __future__ import annotations

import pytest

from drasim.cel import CelRuntimeError, compile_selector, device_input
from drasim.cel.device import split_qualified_name


@pytest.mark.parametrize(("name", "want"), [
    pytest.param("memory", ("drv.example.com", "memory"), id="driver-domain"),
    pytest.param("other.io/memory", ("other.io", "memory"), id="own-domain"),
])
def test_split_qualified_name(name, want):
    """Spec §3.2: a name without "/" belongs to the driver's domain."""
    assert split_qualified_name(name, "drv.example.com") == want


def test_grouping_by_domain():
    """Spec §3.2: `memory` and `drv.example.com/memory` are the same entry."""
    d = device_input("drv.example.com", {"name": "d", "capacity": {"drv.example.com/memory": {"value": "1Gi"}},
                                         "attributes": {"x.io/a": {"int": 1}, "b": {"bool": True}}})
    device = d.variables["device"]
    assert set(device["capacity"]) == {"drv.example.com"}
    assert set(device["attributes"]) == {"x.io", "drv.example.com"}
    assert compile_selector('device.attributes["drv.example.com"].b && device.attributes["x.io"].a == 1').matches(d)


def test_allow_multiple_allocations():
    """Spec §3.1: the device's flag, false when unset."""
    assert compile_selector("device.allowMultipleAllocations").matches(
        device_input("d", {"name": "d", "allowMultipleAllocations": True}))
    assert not compile_selector("device.allowMultipleAllocations").matches(device_input("d", {"name": "d"}))


@pytest.mark.parametrize(("attribute", "message"), [
    pytest.param({"version": "1.2"}, "attribute v: parse semantic version: No Major.Minor.Patch elements found", id="bad-version"),
    pytest.param({}, "attribute v: unsupported attribute value", id="no-value"),
])
def test_bad_attribute_fails_every_evaluation(attribute, message):
    """Spec §3.3: an attribute that cannot be represented fails evaluation with Kubernetes' text."""
    d = device_input("d", {"name": "d", "attributes": {"v": attribute}})
    with pytest.raises(CelRuntimeError) as err:
        compile_selector("true").matches(d)
    assert str(err.value) == message


def test_list_attributes():
    """Spec §3.3: alpha list attributes become lists."""
    d = device_input("d", {"name": "d", "attributes": {"l": {"ints": [1, 2]}, "v": {"versions": ["1.0.0"]}}})
    assert compile_selector('device.attributes["d"].l.includes(2) && size(device.attributes["d"].v) == 1').matches(d)


def test_activation_reused_and_renewed():
    """The activation is built once and renewed after many uses (bounded arena memory)."""
    d = device_input("d", {"name": "d"})
    first = d.activation()
    assert d.activation() is first
    for _ in range(5000):
        d.activation()
    assert d.activation() is not first


def test_a_null_capacity_value_is_the_zero_quantity():
    """Go decodes `value: null` (or no value) as the zero Quantity, as the allocator's model does."""
    from drasim.cel import compile_selector, device_input
    from drasim.cel.device import device_error
    for cap in ({"value": None}, {}):
        device = {"name": "d", "capacity": {"memory": cap}}
        assert device_error(device) is None
        selector = compile_selector('device.capacity["gpu.example.com"].memory.compareTo(quantity("0")) == 0')
        assert selector.matches(device_input("gpu.example.com", device)) is True
