"""Shape of status.allocation: results, config (FromClass/FromClaim) and nodeSelector (spec §18)."""
from __future__ import annotations

import pytest

from .builders import (CLASS_A, CLASS_B, DRIVER_A, NODE_1, allocate, claim, device, first_available, klass, node,
                       opaque, request, slice_, subrequest)

PIN = {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [NODE_1]}]}]}
ZONE_A = {"key": "zone", "operator": "In", "values": ["a"]}
RACK_1 = {"key": "rack", "operator": "In", "values": ["1"]}


def sel(*exprs: dict) -> dict:
    return {"nodeSelectorTerms": [{"matchExpressions": list(exprs)}]}


def test_result_entry_shape():
    """One result per device: request, driver, pool, device; optional fields only when set (§18.1)."""
    s = [slice_("s1", device("d1", bindingConditions=["ready"], bindingFailureConditions=["failed"]))]
    (got,) = allocate([claim("c0", request("r0"))], s)
    assert got == {"devices": {"results": [{"request": "r0", "driver": DRIVER_A, "pool": "pool-1", "device": "d1",
                                            "bindingConditions": ["ready"], "bindingFailureConditions": ["failed"]}]},
                   "nodeSelector": PIN}


@pytest.mark.parametrize(("slices", "want"), [
    pytest.param([slice_("s1", device("d1"), node=None, allNodes=True)], None, id="all-nodes-no-selector"),
    pytest.param([slice_("s1", device("d1"), node=None, nodeSelector=sel(ZONE_A))], sel(ZONE_A), id="slice-selector-copied"),
    pytest.param([slice_("s1", device("d1"), node=None, nodeSelector=sel(ZONE_A)),
                  slice_("s2", device("d2"), pool="pool-2", node=None, nodeSelector=sel(ZONE_A, RACK_1))],
                 sel(ZONE_A, RACK_1), id="selectors-merged-without-duplicates"),
    pytest.param([slice_("s1", device("d1"), node=None, nodeSelector=sel(ZONE_A)), slice_("s2", device("d2"), pool="pool-2")],
                 PIN, id="node-local-device-pins-to-node"),
    pytest.param([slice_("s1", device("d1", bindsToNode=True), node=None, allNodes=True),
                  slice_("s2", device("d2"), pool="pool-2", node=None, allNodes=True)], PIN, id="binds-to-node-pins"),
    pytest.param([slice_("s1", device("d1", nodeSelector=sel(RACK_1)), device("d2", allNodes=True), node=None,
                         perDeviceNodeSelection=True)], sel(RACK_1), id="per-device-selector"),
])
def test_node_selector(slices, want):
    """nodeSelector: pinned if any device is node-local, else merged single terms, absent if all-nodes (§18.3)."""
    (got,) = allocate([claim("c0", request("r0", CLASS_A, 2) if len(slices) > 1 or "perDeviceNodeSelection" in slices[0]["spec"]
                             else request("r0"))], slices, node_=node(NODE_1, zone="a", rack="1"))
    assert got.get("nodeSelector") == want


def test_config_from_class_and_claim():
    """Class configs first (once per class, listing requests), then claim configs that match (§18.2)."""
    classes = [klass(CLASS_A, DRIVER_A, config=[opaque(a=1)]), klass(CLASS_B, DRIVER_A, config=[opaque(b=1), opaque(b=2)])]
    c = claim("c0", request("r0", CLASS_A), request("r1", CLASS_B), request("r2", CLASS_A),
              config=[{"requests": ["r1"], **opaque(x=1)}, {"requests": ["nope"], **opaque(x=2)}, opaque(x=3)])
    s = [slice_("s1", device("d1"), device("d2"), device("d3"))]
    (got,) = allocate([c], s, classes)
    assert got["devices"]["config"] == [
        {"source": "FromClass", "requests": ["r0", "r2"], **opaque(a=1)},
        {"source": "FromClass", "requests": ["r1"], **opaque(b=1)},
        {"source": "FromClass", "requests": ["r1"], **opaque(b=2)},
        {"source": "FromClaim", "requests": ["r1"], **opaque(x=1)},
        {"source": "FromClaim", **opaque(x=3)},
    ]


def test_config_covering_all_requests_is_cleared():
    """A config naming every request is written without `requests` (§18.2)."""
    classes = [klass(CLASS_A, DRIVER_A, config=[opaque(a=1)])]
    c = claim("c0", request("r0"), request("r1"), config=[{"requests": ["r0", "r1"], **opaque(x=1)}])
    (got,) = allocate([c], [slice_("s1", device("d1"), device("d2"))], classes)
    assert got["devices"]["config"] == [{"source": "FromClass", **opaque(a=1)}, {"source": "FromClaim", **opaque(x=1)}]


def test_config_for_subrequests():
    """Subrequest results are named req/sub; configs for the chosen subrequest apply (§14.2, §18.2)."""
    classes = [klass(CLASS_A, DRIVER_A, config=[opaque(a=1)]), klass(CLASS_B, "driver-b")]
    c = claim("c0", first_available("r0", subrequest("s0", CLASS_B), subrequest("s1", CLASS_A)), request("r1"),
              config=[{"requests": ["r0/s1"], **opaque(x=1)}, {"requests": ["r0/s0"], **opaque(x=2)}])
    (got,) = allocate([c], [slice_("s1", device("d1"), device("d2"))], classes)
    assert [r["request"] for r in got["devices"]["results"]] == ["r0/s1", "r1"]
    assert got["devices"]["config"] == [{"source": "FromClass", **opaque(a=1)},
                                        {"source": "FromClaim", "requests": ["r0/s1"], **opaque(x=1)}]


def test_no_config_key_when_empty():
    """Empty config is omitted; results are always present."""
    (got,) = allocate([claim("c0", request("r0"))], [slice_("s1", device("d1"))])
    assert set(got["devices"]) == {"results"}
