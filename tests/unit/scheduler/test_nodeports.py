"""NodePorts plugin (k8s: plugins/nodeports/node_ports.go, HostPortInfo.CheckConflict)."""
from __future__ import annotations

import pytest

from drasim.scheduler.framework import SKIP, Code, CycleState
from drasim.scheduler.plugins.nodeports import ERR_REASON, NodePorts, host_ports
from plugin_builders import container, info, node, pod


def port(host_port, ip="", protocol="TCP"):
    out = {"containerPort": 8080, "hostPort": host_port, "protocol": protocol}
    if ip:
        out["hostIP"] = ip
    return out


def with_ports(*ports, name="p"):
    return pod(name, containers=[container(ports=list(ports))])


@pytest.mark.parametrize(("existing", "wanted", "fits"), [
    pytest.param([], [port(80)], True, id="free"),
    pytest.param([port(80)], [port(80)], False, id="same-port"),
    pytest.param([port(80)], [port(81)], True, id="other-port"),
    pytest.param([port(80, protocol="UDP")], [port(80)], True, id="other-protocol"),
    pytest.param([port(80, "1.1.1.1")], [port(80, "1.1.1.2")], True, id="other-ip"),
    pytest.param([port(80, "1.1.1.1")], [port(80, "1.1.1.1")], False, id="same-ip"),
    pytest.param([port(80, "1.1.1.1")], [port(80)], False, id="wildcard-wanted"),
    pytest.param([port(80)], [port(80, "1.1.1.1")], False, id="wildcard-used"),
])
def test_filter(existing, wanted, fits):
    """A wanted host port conflicts on the same protocol/port at the same IP or 0.0.0.0."""
    ni = info(node(), with_ports(*existing, name="old")) if existing else info(node())
    p = with_ports(*wanted)
    pl, state = NodePorts(), CycleState()
    pl.pre_filter(state, p, [ni])
    status = pl.filter(state, p, ni)
    if fits:
        assert status is None
    else:
        assert status.code == Code.UNSCHEDULABLE and status.reasons == (ERR_REASON,)
        assert ERR_REASON == "node(s) didn't have free ports for the requested pod ports"


def test_pre_filter_skips_pods_without_host_ports():
    """No host ports: PreFilter returns Skip."""
    assert NodePorts().pre_filter(CycleState(), pod(containers=[container(ports=[port(0)])]), []) == (None, SKIP)


def test_host_ports_include_sidecars_only():
    """Regular containers and sidecars hold host ports; plain init containers do not."""
    p = pod(containers=[container(ports=[port(80)])],
            inits=[container("init", ports=[port(81)]), container("side", ports=[port(82, protocol="")], sidecar=True)])
    assert host_ports(p) == (("0.0.0.0", "TCP", 82), ("0.0.0.0", "TCP", 80))


def test_used_ports_follow_node_changes():
    """The per-node port cache is rebuilt when pods come or go."""
    ni = info(node())
    pl, p = NodePorts(), with_ports(port(80))
    state = CycleState()
    pl.pre_filter(state, p, [ni])
    assert pl.filter(state, p, ni) is None
    holder = with_ports(port(80), name="holder")
    ni.add_pod(holder)
    assert pl.filter(state, p, ni) is not None
    ni.remove_pod(holder)
    assert pl.filter(state, p, ni) is None
