"""NodeAffinity plugin (k8s: plugins/nodeaffinity/node_affinity.go)."""
from __future__ import annotations

import pytest

from drasim.scheduler.framework import SKIP, Code, CycleState, PreFilterResult
from drasim.scheduler.plugins.nodeaffinity import (
    ERR_REASON_CONFLICT, ERR_REASON_ENFORCED, ERR_REASON_POD, NodeAffinity)
from plugin_builders import expr, info, node, pod, run_scores, term

ZONE_A = info(node("a", labels={"zone": "a", "disk": "ssd"}))
ZONE_B = info(node("b", labels={"zone": "b"}))


def required(*terms):
    return {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}


def preferred(*weighted):
    return {"preferredDuringSchedulingIgnoredDuringExecution":
            [{"weight": w, "preference": t} for w, t in weighted]}


def test_reasons_are_verbatim():
    """Reasons are kube-scheduler's strings."""
    assert ERR_REASON_POD == "node(s) didn't match Pod's node affinity/selector"
    assert ERR_REASON_ENFORCED == "node(s) didn't match scheduler-enforced node affinity"
    assert ERR_REASON_CONFLICT == "pod affinity terms conflict"


@pytest.mark.parametrize(("p", "want_a", "want_b"), [
    pytest.param(pod(), True, True, id="no-constraints"),
    pytest.param(pod(node_selector={"zone": "a"}), True, False, id="node-selector"),
    pytest.param(pod(affinity=required(term(expr("zone", "In", "b")))), False, True, id="required-affinity"),
    pytest.param(pod(node_selector={"zone": "a"}, affinity=required(term(expr("disk", "Exists")))), True, False,
                 id="selector-and-affinity"),
    pytest.param(pod(node_selector={"zone": "a"}, affinity=required(term(expr("zone", "In", "b")))), False, False,
                 id="selector-and-affinity-disagree"),
])
def test_filter(p, want_a, want_b):
    """nodeSelector and required node affinity must both match; mismatch is unresolvable."""
    pl, state = NodeAffinity(), CycleState()
    pl.pre_filter(state, p, [ZONE_A, ZONE_B])
    for ni, want in ((ZONE_A, want_a), (ZONE_B, want_b)):
        status = pl.filter(state, p, ni)
        if want:
            assert status is None
        else:
            assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE and status.reasons == (ERR_REASON_POD,)


def test_filter_without_pre_filter():
    """Filter computes the constraints itself when PreFilter did not run."""
    assert NodeAffinity().filter(CycleState(), pod(node_selector={"zone": "b"}), ZONE_A).reasons == (ERR_REASON_POD,)


def name_in(*names):
    return expr("metadata.name", "In", *names)


@pytest.mark.parametrize(("p", "want"), [
    pytest.param(pod(), (None, SKIP), id="skip-without-constraints"),
    pytest.param(pod(node_selector={"zone": "a"}), (None, None), id="selector-only"),
    pytest.param(pod(affinity=required(term(fields=[name_in("a")]))), (PreFilterResult({"a"}), None), id="pinned"),
    pytest.param(pod(affinity=required(term(fields=[name_in("a")]), term(fields=[name_in("b")]))),
                 (PreFilterResult({"a", "b"}), None), id="terms-union"),
    pytest.param(pod(affinity=required(term(fields=[name_in("a")]), term(expr("zone", "Exists")))),
                 (None, None), id="unpinned-term-allows-all"),
    pytest.param(pod(affinity=required(term(fields=[name_in("a"), name_in("b")]))),
                 (None, Code.UNSCHEDULABLE_AND_UNRESOLVABLE), id="conflict"),
])
def test_pre_filter(p, want):
    """PreFilter skips pods without constraints and narrows to nodes pinned by metadata.name."""
    result, status = NodeAffinity().pre_filter(CycleState(), p, [])
    want_result, want_status = want
    assert result == want_result
    if isinstance(want_status, Code):
        assert status.code == want_status and status.reasons == (ERR_REASON_CONFLICT,)
    else:
        assert status == want_status


def test_added_affinity():
    """addedAffinity from the profile applies to every pod, with its own reason."""
    pl = NodeAffinity(added_affinity=required(term(expr("zone", "In", "a"))))
    state = CycleState()
    _, status = pl.pre_filter(state, pod(), [])
    assert status is None  # not skipped: the added selector must run
    assert pl.filter(state, pod(), ZONE_A) is None
    assert pl.filter(state, pod(), ZONE_B).reasons == (ERR_REASON_ENFORCED,)


def test_score_preferred_weights_normalised():
    """Score sums matching preferred weights; NormalizeScore scales the best to 100."""
    p = pod(affinity=preferred((10, term(expr("zone", "In", "a"))), (30, term(expr("zone", "In", "b"))),
                               (20, term(expr("disk", "In", "ssd")))))
    nodes = [ZONE_A, ZONE_B, info(node("c"))]
    assert run_scores(NodeAffinity(), p, nodes) == [100, 100, 0]   # raw 30, 30, 0
    p2 = pod(affinity=preferred((10, term(expr("zone", "In", "a"))), (30, term(expr("zone", "In", "b")))))
    assert run_scores(NodeAffinity(), p2, nodes) == [33, 100, 0]   # raw 10, 30, 0


def test_score_skipped_without_preferences():
    """PreScore skips the plugin when neither the pod nor the profile has preferred terms."""
    assert run_scores(NodeAffinity(), pod(), [ZONE_A]) is None
