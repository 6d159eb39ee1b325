"""The scheduler's pod requests, memoised per stored spec, equal the plain computation — also for a
new spec object in the place of an old one (a pod replaced), and after the memo is full and cleared."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from drasim.api.podresources import pod_requests as plain_pod_requests
from drasim.scheduler import resources
from drasim.scheduler.resources import _non_zero_requests, non_zero_requests, pod_requests

quantities = st.sampled_from(["100m", "1", "2Gi", "500Mi", "0", "3"])
requests = st.dictionaries(st.sampled_from(["cpu", "memory", "example.com/gpu"]), quantities, max_size=3)
containers = st.lists(st.builds(lambda r: {"name": "c", "image": "i", "resources": {"requests": r}}, requests),
                      min_size=1, max_size=3)
specs = st.fixed_dictionaries({"containers": containers}, optional={
    "initContainers": st.lists(st.builds(lambda r, side: {"name": "i", "image": "i", "resources": {"requests": r},
                                                        **({"restartPolicy": "Always"} if side else {})},
                                         requests, st.booleans()), max_size=2),
    "overhead": requests})


@settings(max_examples=200, deadline=None)
@given(st.lists(specs, min_size=1, max_size=6), st.booleans())
def test_memoised_requests_equal_the_plain_ones(spec_list, small):
    if small:
        resources._REQUESTS.clear()
        resources._BY_CONTENT.clear()
    for spec in spec_list:
        pod = {"metadata": {"name": "p"}, "spec": spec}
        for _ in range(2):   # the second ask is answered by the memo
            assert pod_requests(pod) == plain_pod_requests(pod)
            assert non_zero_requests(pod) == _non_zero_requests(pod)
        replaced = {"metadata": {"name": "p"}, "spec": dict(spec)}   # a new spec object, maybe changed
        replaced["spec"]["containers"] = spec["containers"][:1]
        assert pod_requests(replaced) == plain_pod_requests(replaced)


def test_the_result_is_a_fresh_vector():
    pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}
    first = pod_requests(pod)
    first["cpu"] = 0
    assert pod_requests(pod)["cpu"] == 1000


@settings(max_examples=200, deadline=None)
@given(containers, st.lists(st.fixed_dictionaries({}, optional={
    "initContainers": st.lists(st.builds(lambda r: {"name": "i", "image": "i", "resources": {"requests": r}}, requests),
                               max_size=1),
    "overhead": requests, "resources": st.builds(lambda r: {"requests": r}, requests)}), min_size=2, max_size=4))
def test_specs_sharing_containers_keep_their_own_requests(shared, extras):
    """Specs equal in their containers but not in init containers, overhead or pod-level
    resources (each a new object, as a snapshot's pods are) each get their own answer, and equal
    ones share it (the content memo)."""
    for extra in extras + extras:
        pod = {"metadata": {"name": "p"}, "spec": {"containers": [dict(c) for c in shared], **extra}}
        assert pod_requests(pod) == plain_pod_requests(pod)
        assert non_zero_requests(pod) == _non_zero_requests(pod)
