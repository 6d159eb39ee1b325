"""A device of a ResourceSlice that passed validation has nothing the CEL input could not
represent: the allocator relies on it (DeviceRec(admitted=True) skips computing the error)."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from drasim.api.decode import decoding_error
from drasim.api.validation import validate_object
from drasim.cel.device import device_error

versions = st.sampled_from(["1.2.3", "0.0.1-alpha.1", "1.2", "", "v1.0.0", "01.2.3", "1.0.0+build.1", "1.0.0-"])
quantities = st.one_of(st.sampled_from(["1", "24480Mi", "1k", "bad", "", "1.5Gi", "-1", "0.1m"]),
                       st.integers(-3, 10**6), st.none(), st.floats(allow_nan=False, width=32))
attribute = st.one_of(
    st.fixed_dictionaries({"int": st.integers(-3, 3)}), st.fixed_dictionaries({"bool": st.booleans()}),
    st.fixed_dictionaries({"string": st.text(max_size=8)}), st.fixed_dictionaries({"version": versions}),
    st.just({}), st.fixed_dictionaries({"int": st.integers(0, 2), "string": st.just("x")}),
    st.fixed_dictionaries({"version": st.integers(0, 3)}), st.fixed_dictionaries({"string": st.none()}),
)
names = st.sampled_from(["model", "gpu.example.com/model", "driverVersion", "x.y/z", "Bad Name"])
devices = st.fixed_dictionaries({"name": st.sampled_from(["d0", "d1"])}, optional={
    "attributes": st.dictionaries(names, attribute, max_size=3),
    "capacity": st.dictionaries(st.sampled_from(["memory", "gpu.example.com/c"]),
                                st.one_of(st.builds(lambda q: {"value": q}, quantities), st.just({})), max_size=2),
})


@settings(max_examples=400, deadline=None)
@given(device=devices)
def test_a_valid_slice_has_no_device_error(device):
    slice_ = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
              "spec": {"driver": "gpu.example.com", "nodeName": "n1",
                       "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1}, "devices": [device]}}
    if decoding_error("ResourceSlice", slice_) is not None or validate_object(slice_, None):
        return   # refused before admission: decoding first (a capacity of .inf is not JSON), then validation
    assert device_error(device) is None
