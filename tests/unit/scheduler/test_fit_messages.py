"""The default filters' reasons rendered by fit_error_message (k8s: FitError.Error())."""
from __future__ import annotations

from drasim.scheduler.framework import fit_error_message
from drasim.scheduler.plugins.nodeaffinity import NodeAffinity
from drasim.scheduler.plugins.nodename import NodeName
from drasim.scheduler.plugins.nodeports import NodePorts
from drasim.scheduler.plugins.noderesources import Fit
from drasim.scheduler.plugins.nodeunschedulable import NodeUnschedulable
from drasim.scheduler.plugins.tainttoleration import TaintToleration
from plugin_builders import container, info, node, pod, run_filters


def default_filters():
    return [NodeUnschedulable(), NodeName(), TaintToleration(), NodeAffinity(), NodePorts(),
            Fit(lambda name: False)]


def test_three_nodes():
    """Reasons are counted per node and sorted: "1 Insufficient cpu, 2 node(s) didn't match ..."."""
    nodes = [info(node("small", labels={"pool": "gpu"}, allocatable={"cpu": "1"})),
             info(node("cpu-1", labels={"pool": "cpu"})), info(node("cpu-2", labels={"pool": "cpu"}))]
    p = pod(containers=[container(cpu="2")], node_selector={"pool": "gpu"})
    d = run_filters(default_filters(), p, nodes)
    assert fit_error_message(3, d) == (
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector.")


def test_ten_sorts_before_two():
    """Go sorts the "<count> <reason>" strings, so "10 ..." comes before "2 ..."."""
    tainted = [info(node(f"t{i}", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}])) for i in range(10)]
    full = [info(node(f"f{i}", allocatable={"cpu": "1"})) for i in range(2)]
    cordoned = [info(node("c", unschedulable=True))]
    d = run_filters(default_filters(), pod(containers=[container(cpu="2")]), tainted + full + cordoned)
    assert fit_error_message(13, d) == ("0/13 nodes are available: 1 node(s) were unschedulable, "
                                        "10 node(s) had untolerated taint(s), 2 Insufficient cpu.")


def test_first_failing_filter_reports():
    """Filters run in profile order; a node reports only the first plugin's reasons."""
    n = info(node("n", unschedulable=True, allocatable={"cpu": "1"}))
    d = run_filters(default_filters(), pod(containers=[container(cpu="2")]), [n])
    assert d.node_to_status["n"].plugin == "NodeUnschedulable"
    assert fit_error_message(1, d) == "0/1 nodes are available: 1 node(s) were unschedulable."


def test_several_fit_reasons_per_node():
    """Fit reports every insufficient resource of a node."""
    n = info(node("n", allocatable={"cpu": "1", "memory": "1Gi"}))
    d = run_filters(default_filters(), pod(containers=[container(cpu="2", memory="2Gi")]), [n])
    assert fit_error_message(1, d) == "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory."
