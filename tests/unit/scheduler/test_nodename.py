"""NodeName plugin (k8s: plugins/nodename/node_name.go)."""
from __future__ import annotations

import pytest

from drasim.scheduler.framework import Code, CycleState, PreFilterResult
from drasim.scheduler.plugins.nodename import ERR_REASON, NodeName
from plugin_builders import info, node, pod


@pytest.mark.parametrize(("node_name", "want"), [
    pytest.param(None, None, id="unset-fits-any"),
    pytest.param("node-1", None, id="same-node"),
    pytest.param("node-2", ERR_REASON, id="other-node"),
])
def test_filter(node_name, want):
    """A pod with spec.nodeName fits only that node; the rejection is unresolvable."""
    status = NodeName().filter(CycleState(), pod(node_name=node_name), info(node("node-1")))
    if want is None:
        assert status is None
    else:
        assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE and status.reasons == (want,)


def test_reason_is_verbatim():
    """The reason is kube-scheduler's string."""
    assert ERR_REASON == "node(s) didn't match the requested node name"


@pytest.mark.parametrize(("node_name", "want"), [
    pytest.param(None, None, id="no-restriction"),
    pytest.param("node-2", PreFilterResult({"node-2"}), id="narrowed-to-named-node"),
])
def test_pre_filter(node_name, want):
    """PreFilter narrows the cycle to the named node."""
    assert NodeName().pre_filter(CycleState(), pod(node_name=node_name), []) == (want, None)
