"""PodTopologySpread plugin (k8s: plugins/podtopologyspread/{filtering,scoring}_test.go, re-expressed)."""
from __future__ import annotations

import pytest

from drasim.scheduler.framework import Code, CycleState
from drasim.scheduler.plugins.podtopologyspread import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH, IGNORED_SCORE, PodTopologySpread)
from plugin_builders import expr, info, node, pod, term

ZONE, HOST = "zone", "kubernetes.io/hostname"
FOO = {"matchExpressions": [expr("foo", "Exists")]}


def spread(key, max_skew=1, selector=FOO, when="DoNotSchedule", **extra):
    out = {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when}
    if selector is not None:
        out["labelSelector"] = selector
    out.update(extra)
    return out


def lpod(name, labels=None, constraints=None, namespace="default", terminating=False, **kw):
    """A pod with labels, namespace and topology spread constraints (builders.pod plus metadata)."""
    p = pod(name, **kw)
    p["metadata"].update(labels=dict(labels or {}), namespace=namespace)
    if terminating:
        p["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    if constraints is not None:
        p["spec"]["topologySpreadConstraints"] = constraints
    return p


def hnode(name, zone=None, taints=None, **labels):
    labels = {HOST: name, **labels}
    if zone is not None:
        labels[ZONE] = zone
    return node(name, labels=labels, taints=taints)


def cluster(placement: dict[str, list[dict]], nodes: list[dict]):
    return [info(n, *placement.get(n["metadata"]["name"], ())) for n in nodes]


def foos(node_name, n, **kw):
    return [lpod(f"{node_name}-{i}", {"foo": ""}, **kw) for i in range(n)]


FOUR = [hnode("node-a", "zone1"), hnode("node-b", "zone1"), hnode("node-x", "zone2"), hnode("node-y", "zone2")]


def run_filter(p, nodes):
    """PreFilter, then Filter per node: {node: (code, reason)}; None means it fits."""
    plugin, state = PodTopologySpread(), CycleState()
    _, status = plugin.pre_filter(state, p, nodes)
    assert status is None or status.is_skip
    out = {}
    for n in nodes:
        s = plugin.filter(state, p, n)
        out[n.name] = None if s is None else (s.code, s.message())
    return out


FIT, SKEW, LABEL = None, (Code.UNSCHEDULABLE, ERR_REASON_CONSTRAINTS_NOT_MATCH), \
    (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_NODE_LABEL_NOT_MATCH)


@pytest.mark.parametrize(("p", "nodes", "want"), [
    pytest.param(lpod("p", {"foo": ""}, [spread(ZONE)]), cluster({}, FOUR), [FIT] * 4, id="no-existing-pods"),
    pytest.param(lpod("p", {"bar": ""}, [spread(ZONE)]), cluster({}, FOUR), [FIT] * 4,
                 id="no-existing-pods-incoming-not-self-matching"),
    pytest.param(lpod("p", {"foo": ""}, [spread(ZONE)]),
                 cluster({"node-a": foos("a", 2, namespace="other"), "node-x": foos("x", 1)}, FOUR),
                 [FIT, FIT, SKEW, SKEW], id="other-namespace-not-counted"),
    pytest.param(lpod("p", {"foo": ""}, [spread(ZONE)]),
                 cluster({"node-a": foos("a", 1), "node-b": foos("b", 2), "node-x": foos("x", 3)}, FOUR),
                 [FIT] * 4, id="zones-3-3-all-fit"),
    pytest.param(lpod("p", {"foo": ""}, [spread(ZONE)]),
                 cluster({n: foos(n, 1) for n in ("node-a", "node-b", "node-x", "node-y")},
                         [hnode("node-a", "zone1"), hnode("node-b"), hnode("node-x", "zone2"),
                          hnode("node-y", "zone2")]),
                 [FIT, LABEL, SKEW, SKEW], id="zones-1-2-node-b-lacks-zone"),
    pytest.param(lpod("p", {"foo": ""}, [spread("rack")]), cluster({}, FOUR), [LABEL] * 4,
                 id="no-node-has-the-key"),
    pytest.param(lpod("p", {"foo": ""}, [spread(HOST)]),
                 cluster({"node-a": foos("a", 2), "node-b": foos("b", 1), "node-y": foos("y", 3)}, FOUR),
                 [SKEW, SKEW, FIT, SKEW], id="nodes-2-1-0-3-only-x"),
    pytest.param(lpod("p", {"foo": ""}, [spread(HOST, 2)]),
                 cluster({"node-a": foos("a", 2), "node-b": foos("b", 1), "node-y": foos("y", 3)}, FOUR),
                 [SKEW, FIT, FIT, SKEW], id="nodes-2-1-0-3-maxskew-2"),
    pytest.param(lpod("p", {"bar": ""}, [spread(HOST)]),
                 cluster({"node-a": foos("a", 2), "node-b": foos("b", 1), "node-y": foos("y", 3)}, FOUR),
                 [SKEW, FIT, FIT, SKEW], id="nodes-2-1-0-3-not-self-matching"),
    pytest.param(lpod("p", {"foo": ""}, [spread(HOST)],
                      affinity={"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                          term(expr(HOST, "NotIn", "node-b", "node-x"))]}}),
                 cluster({"node-a": foos("a", 2), "node-b": foos("b", 1), "node-y": foos("y", 3)}, FOUR),
                 [FIT, FIT, FIT, SKEW], id="node-affinity-honored-min-is-2"),
    pytest.param(lpod("p", {"foo": ""}, [spread(HOST, nodeAffinityPolicy="Ignore")],
                      affinity={"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                          term(expr(HOST, "NotIn", "node-b", "node-x"))]}}),
                 cluster({"node-a": foos("a", 2), "node-b": foos("b", 1), "node-y": foos("y", 3)}, FOUR),
                 [SKEW, SKEW, FIT, SKEW], id="node-affinity-ignored"),
    pytest.param(lpod("p", {"foo": ""}, [spread(HOST)]),
                 cluster({"node-a": foos("a", 2) + foos("a-t", 3, terminating=True), "node-b": foos("b", 1),
                          "node-x": foos("x", 1), "node-y": foos("y", 1)}, FOUR),
                 [SKEW, FIT, FIT, FIT], id="terminating-pods-not-counted"),
    pytest.param(lpod("p", {"foo": ""}, [spread(HOST, minDomains=5)]),
                 cluster({n: foos(n, 1) for n in ("node-a", "node-b", "node-x", "node-y")}, FOUR),
                 [SKEW] * 4, id="min-domains-above-domains-minimum-is-0"),
    pytest.param(lpod("p", {"foo": ""}, [spread(HOST, minDomains=4)]),
                 cluster({n: foos(n, 1) for n in ("node-a", "node-b", "node-x", "node-y")}, FOUR),
                 [FIT] * 4, id="min-domains-reached"),
    pytest.param(lpod("p", {"foo": ""}, [spread(HOST, nodeTaintsPolicy="Honor")]),
                 cluster({"node-a": foos("a", 1), "node-b": foos("b", 1), "node-x": foos("x", 1)},
                         FOUR[:3] + [hnode("node-y", "zone2", taints=[{"key": "k", "effect": "NoSchedule"}])]),
                 [FIT] * 4, id="taints-honored-tainted-node-not-a-domain"),
    pytest.param(lpod("p", {"foo": ""}, [spread(HOST)]),
                 cluster({"node-a": foos("a", 1), "node-b": foos("b", 1), "node-x": foos("x", 1)},
                         FOUR[:3] + [hnode("node-y", "zone2", taints=[{"key": "k", "effect": "NoSchedule"}])]),
                 [SKEW, SKEW, SKEW, FIT], id="taints-ignored-by-default"),
    pytest.param(lpod("p", {"foo": "", "rev": "2"}, [spread(HOST, matchLabelKeys=["rev"])]),
                 cluster({"node-a": [lpod("a0", {"foo": "", "rev": "1"})] * 1, "node-b": [],
                          "node-x": [lpod("x0", {"foo": "", "rev": "2"})], "node-y": []}, FOUR),
                 [FIT, FIT, SKEW, FIT], id="match-label-keys-narrow-the-selector"),
    pytest.param(lpod("p", {"foo": ""}, [spread(ZONE), spread(HOST)]),
                 cluster({"node-a": foos("a", 1), "node-x": foos("x", 1), "node-y": foos("y", 1)}, FOUR),
                 [SKEW, FIT, SKEW, SKEW], id="two-constraints-both-checked"),
    pytest.param(lpod("p", {"foo": ""}, [spread(HOST, selector={})]),
                 cluster({"node-a": [lpod("a0", {"x": "y"})]}, FOUR),
                 [SKEW, FIT, FIT, FIT], id="empty-selector-counts-every-pod"),
    pytest.param(lpod("p", {"foo": ""}, [spread(HOST, selector=None)]),
                 cluster({"node-a": foos("a", 3)}, FOUR),
                 [FIT] * 4, id="missing-selector-counts-nothing"),
])
def test_filter(p, nodes, want):
    """skew = matching pods in the node's domain + self-match - global minimum must stay <= maxSkew."""
    assert list(run_filter(p, nodes).values()) == want


def test_pre_filter_skips_without_hard_constraints():
    """No DoNotSchedule constraints: PreFilter returns Skip (system defaults never apply in drasim)."""
    plugin, nodes = PodTopologySpread(), cluster({}, FOUR)
    for p in (lpod("p"), lpod("p", constraints=[spread(ZONE, when="ScheduleAnyway")])):
        _, status = plugin.pre_filter(CycleState(), p, nodes)
        assert status is not None and status.is_skip


def test_depends_on_other_pods():
    """Only pods with topology spread constraints depend on other pods."""
    plugin = PodTopologySpread()
    assert not plugin.depends_on_other_pods(lpod("p"))
    assert plugin.depends_on_other_pods(lpod("p", constraints=[spread(ZONE, when="ScheduleAnyway")]))


def run_score(p, nodes, filtered_names=None):
    """PreFilter (all nodes), PreScore and Score on the filtered nodes, then NormalizeScore."""
    plugin, state = PodTopologySpread(), CycleState()
    plugin.pre_filter(state, p, nodes)
    filtered = [n for n in nodes if filtered_names is None or n.name in filtered_names]
    status = plugin.pre_score(state, p, filtered)
    if status is not None and status.is_skip:
        return None
    scores = [plugin.score(state, p, n) for n in filtered]
    plugin.normalize(state, p, scores)
    return dict(zip((n.name for n in filtered), scores))


def soft(key, max_skew=1, **kw):
    return spread(key, max_skew, when="ScheduleAnyway", **kw)


ABCD = [hnode("node-a", "zone1"), hnode("node-b", "zone1"), hnode("node-c", "zone2"), hnode("node-d", "zone2")]


@pytest.mark.parametrize(("p", "nodes", "filtered", "want"), [
    pytest.param(lpod("p", {"foo": ""}, [soft(HOST)]), cluster({}, ABCD[:2]), None,
                 {"node-a": 100, "node-b": 100}, id="no-existing-pods"),
    pytest.param(lpod("p", {"foo": ""}, [soft(HOST)]), cluster({"node-a": foos("a", 1)}, ABCD[:2]), {"node-a"},
                 {"node-a": 100}, id="one-candidate"),
    pytest.param(lpod("p", {"foo": ""}, [soft(HOST)]),
                 cluster({"node-a": foos("a", 1), "node-b": foos("b", 1)}, ABCD[:2]), None,
                 {"node-a": 100, "node-b": 100}, id="same-number-of-pods"),
    # raw = round(count * ln(4 + 2)): 4, 2, 0, 5 -> 100 * (5 + 0 - raw) / 5
    pytest.param(lpod("p", {"foo": ""}, [soft(HOST)]),
                 cluster({"node-a": foos("a", 2), "node-b": foos("b", 1), "node-d": foos("d", 3)}, ABCD), None,
                 {"node-a": 20, "node-b": 60, "node-c": 100, "node-d": 0}, id="four-candidates"),
    # maxSkew 2 adds 1: raw 5, 3, 1, 6 -> 100 * (7 - raw) / 6
    pytest.param(lpod("p", {"foo": ""}, [soft(HOST, 2)]),
                 cluster({"node-a": foos("a", 2), "node-b": foos("b", 1), "node-d": foos("d", 3)}, ABCD), None,
                 {"node-a": 33, "node-b": 66, "node-c": 100, "node-d": 16}, id="four-candidates-maxskew-2"),
    # zone counts come from every node of the domain, feasible or not: zone1 = 3, zone2 = 3
    pytest.param(lpod("p", {"foo": ""}, [soft(ZONE)]),
                 cluster({"node-a": foos("a", 2), "node-b": foos("b", 1), "node-d": foos("d", 3)}, ABCD),
                 {"node-a", "node-c"}, {"node-a": 100, "node-c": 100}, id="zone-counts-include-infeasible-nodes"),
    # zone1 = 3, zone2 = 1; ln(2 + 2) = 1.386: raw 4 and 1 -> 100 * (4 + 1 - raw) / 4
    pytest.param(lpod("p", {"foo": ""}, [soft(ZONE)]),
                 cluster({"node-a": foos("a", 2), "node-b": foos("b", 1), "node-d": foos("d", 1)}, ABCD), None,
                 {"node-a": 25, "node-b": 25, "node-c": 100, "node-d": 100}, id="zones-3-1"),
    pytest.param(lpod("p", {"foo": ""}, [soft(ZONE)]),
                 cluster({"node-a": foos("a", 1)}, ABCD[:3] + [hnode("node-d")]), None,
                 {"node-a": 0, "node-b": 0, "node-c": 100, "node-d": 0}, id="node-missing-key-scores-0"),
    pytest.param(lpod("p", {"foo": ""}, [soft(ZONE)]),
                 cluster({}, ABCD[:1] + [hnode("node-d")]), None,
                 {"node-a": 100, "node-d": 0}, id="ignored-node-differs-from-tied-nodes"),
    pytest.param(lpod("p", {"foo": ""}, [spread(ZONE)]), cluster({}, ABCD), None, None, id="no-soft-constraints"),
])
def test_score(p, nodes, filtered, want):
    """Fewer matching pods in a node's domains scores higher; nodes without the keys score 0."""
    assert run_score(p, nodes, filtered) == want


def test_ignored_node_raw_score_is_sentinel():
    """Score itself marks a node lacking a key, so normalization runs even when scored nodes tie."""
    plugin, state = PodTopologySpread(), CycleState()
    p, nodes = lpod("p", {"foo": ""}, [soft(ZONE)]), cluster({}, [hnode("node-a", "zone1"), hnode("node-d")])
    plugin.pre_filter(state, p, nodes)
    plugin.pre_score(state, p, nodes)
    assert [plugin.score(state, p, n) for n in nodes] == [0, IGNORED_SCORE]
