"""The unschedulable message, rendered in one place."""
from drasim.scheduler.framework import Diagnosis, fit_error_message, unresolvable, unschedulable


def test_fit_error_counts_and_sorts_like_go():
    """Counts per reason, "<n> <reason>" sorted as strings ("10 x" before "2 y"), joined, full stop."""
    d = Diagnosis()
    for i in range(10):
        d.node_to_status[f"x{i}"] = unschedulable("x")
    for i in range(2):
        d.node_to_status[f"y{i}"] = unresolvable("y")
    assert fit_error_message(12, d) == "0/12 nodes are available: 10 x, 2 y."


def test_pre_filter_message_replaces_counts():
    """A PreFilter rejection replaces the per-node list."""
    d = Diagnosis(pre_filter_msg='pod "default/p": ResourceClaim not created yet')
    assert fit_error_message(3, d) == '0/3 nodes are available: pod "default/p": ResourceClaim not created yet.'


def test_post_filter_message_is_appended():
    """A PostFilter message follows the counts."""
    d = Diagnosis(post_filter_msg="still not schedulable")
    d.node_to_status["n"] = unresolvable("cannot allocate all claims")
    assert fit_error_message(1, d) == "0/1 nodes are available: 1 cannot allocate all claims. still not schedulable"
