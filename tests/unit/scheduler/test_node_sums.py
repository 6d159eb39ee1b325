"""A node's summed requests, kept in place from the shared per-content memo, equal a recount.

NodeInfo.add_pod / remove_pod add each pod's requests into the node's vector in place, reading
the memo's dict (shared by every pod of the same content) without copying it. After any
sequence of adds, removes and re-adds — pods alike in content but each its own spec object, as
a snapshot's are, and pods sharing one spec object — the node's `requested` must equal the sum
of the plain computation over the pods it holds (zero entries aside: a removed resource stays
at 0, as it did when the vector was copied), its non-zero sums likewise, and the memo must
still answer what it answered before (nothing summed into it).
"""
from __future__ import annotations

import copy

from hypothesis import given, settings, strategies as st

from drasim.api.podresources import pod_requests as plain_pod_requests
from drasim.scheduler import resources
from drasim.scheduler.framework import NodeInfo
from drasim.scheduler.resources import _non_zero_requests, requests_memo

quantities = st.sampled_from(["100m", "1", "2Gi", "500Mi", "0", "3"])
requests = st.dictionaries(st.sampled_from(["cpu", "memory", "example.com/gpu", "pods"]), quantities, max_size=3)
containers = st.lists(st.builds(lambda r: {"name": "c", "image": "i", "resources": {"requests": r}}, requests),
                      min_size=1, max_size=2)
specs = st.fixed_dictionaries({"containers": containers}, optional={
    "initContainers": st.lists(st.builds(lambda r, side: {"name": "i", "image": "i", "resources": {"requests": r},
                                                        **({"restartPolicy": "Always"} if side else {})},
                                         requests, st.booleans()), max_size=2),
    "overhead": requests, "resources": st.builds(lambda r: {"requests": r}, requests)})
# (operation, spec index, pod index): add a pod with a copy of a spec (alike content, its own
# objects), add a pod sharing the spec object itself, or remove a pod
ops = st.lists(st.tuples(st.sampled_from(["add_copy", "add_shared", "remove"]), st.integers(0, 5),
                         st.integers(0, 7)), min_size=1, max_size=40)


def _recount(info: NodeInfo) -> tuple[dict, int, int]:
    total: dict[str, int] = {}
    cpu = memory = 0
    for pod in info.pods.values():
        for name, amount in plain_pod_requests(pod).items():
            total[name] = total.get(name, 0) + amount
        c, m = _non_zero_requests(pod)
        cpu, memory = cpu + c, memory + m
    return {k: v for k, v in total.items() if v}, cpu, memory


@settings(max_examples=300, deadline=None)
@given(st.lists(specs, min_size=1, max_size=6), ops, st.booleans())
def test_node_sums_equal_a_recount(spec_list, operations, cold):
    if cold:
        resources._REQUESTS.clear()
        resources._BY_CONTENT.clear()
    node = NodeInfo({"metadata": {"name": "n"}})
    pods: dict[int, dict] = {}
    for op, s, p in operations:
        spec = spec_list[s % len(spec_list)]
        if op == "remove":
            if p in pods:
                node.remove_pod(pods.pop(p))
        elif p not in pods:
            pods[p] = {"metadata": {"name": f"p{p}", "uid": f"u{p}"},
                       "spec": copy.deepcopy(spec) if op == "add_copy" else spec}
            node.add_pod(pods[p])
        total, cpu, memory = _recount(node)
        assert {k: v for k, v in node.requested.items() if v} == total
        assert (node.non_zero_cpu, node.non_zero_memory) == (cpu, memory)
    for pod in pods.values():   # the shared memo was read, never summed into
        adds, non_zero = requests_memo(pod)
        assert adds == plain_pod_requests(pod) and non_zero == _non_zero_requests(pod)


def test_two_nodes_never_share_a_vector():
    """The first pod of a node must not make the memo's dict the node's vector."""
    spec = {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}
    a, b = NodeInfo({"metadata": {"name": "a"}}), NodeInfo({"metadata": {"name": "b"}})
    a.add_pod({"metadata": {"uid": "1"}, "spec": spec})
    b.add_pod({"metadata": {"uid": "2"}, "spec": spec})
    a.add_pod({"metadata": {"uid": "3"}, "spec": spec})
    assert (a.requested["cpu"], b.requested["cpu"]) == (2000, 1000)
