"""NodeUnschedulable plugin (k8s: plugins/nodeunschedulable/node_unschedulable.go)."""
from __future__ import annotations

import pytest

from drasim.scheduler.framework import Code, CycleState
from drasim.scheduler.plugins.nodeunschedulable import ERR_REASON, NodeUnschedulable
from plugin_builders import info, node, pod

KEY = "node.kubernetes.io/unschedulable"


@pytest.mark.parametrize(("cordoned", "tolerations", "fits"), [
    pytest.param(False, None, True, id="schedulable-node"),
    pytest.param(True, None, False, id="cordoned"),
    pytest.param(True, [{"key": KEY, "operator": "Exists", "effect": "NoSchedule"}], True, id="tolerates-exists"),
    pytest.param(True, [{"key": KEY, "operator": "Equal", "value": "", "effect": "NoSchedule"}], True,
                 id="tolerates-equal-empty-value"),
    pytest.param(True, [{"operator": "Exists"}], True, id="tolerates-everything"),
    pytest.param(True, [{"key": KEY, "operator": "Exists", "effect": "NoExecute"}], False, id="wrong-effect"),
    pytest.param(True, [{"key": KEY, "operator": "Equal", "value": "x", "effect": "NoSchedule"}], False,
                 id="wrong-value"),
])
def test_filter(cordoned, tolerations, fits):
    """spec.unschedulable rejects unless the pod tolerates node.kubernetes.io/unschedulable:NoSchedule."""
    status = NodeUnschedulable().filter(CycleState(), pod(tolerations=tolerations), info(node(unschedulable=cordoned)))
    if fits:
        assert status is None
    else:
        assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        assert status.reasons == ("node(s) were unschedulable",) == (ERR_REASON,)
