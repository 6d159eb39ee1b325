"""Property tests: random slices and claims never crash, never double-allocate, and are deterministic."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as st

from drasim.allocator import AllocatedState
from drasim.errors import AllocationError

from .builders import (CLASS_A, CLASS_B, DRIVER_A, DRIVER_B, NODE_1, NODE_2, claim, consumes, counters, device, klass,
                       new_allocator, node, request, slice_, subrequest, first_available)

SELECTORS = ['device.attributes["driver-a"].numa == 1', 'device.driver == "driver-a"',
             'device.attributes["driver-a"].model == "x"']  # the last one may fail at runtime


@st.composite
def devices(draw, prefix: str):
    out = []
    for i in range(draw(st.integers(0, 4))):
        attrs = {}
        if draw(st.booleans()):
            attrs["numa"] = draw(st.integers(0, 2))
        if draw(st.integers(0, 5)) == 0:
            attrs["model"] = "x"
        extra = {}
        if draw(st.integers(0, 4)) == 0:
            extra["allowMultipleAllocations"] = True
        if draw(st.integers(0, 3)) == 0:
            extra["capacity"] = {"memory": {"value": draw(st.sampled_from(["4", "8"]))}}
        if draw(st.integers(0, 4)) == 0:
            extra["taints"] = [{"key": "k", "value": "v", "effect": draw(st.sampled_from(["NoSchedule", "None"]))}]
        if draw(st.integers(0, 3)) == 0:
            extra["consumesCounters"] = [consumes("cs", mem=draw(st.sampled_from(["2", "4"])))]
        out.append(device(f"{prefix}{i}", attrs, **extra))
    return out


@st.composite
def slices(draw):
    out = []
    for i in range(draw(st.integers(1, 4))):
        driver = draw(st.sampled_from([DRIVER_A, DRIVER_B]))
        where = draw(st.sampled_from(["node1", "node2", "all"]))
        kw = {"node": NODE_1} if where == "node1" else {"node": NODE_2} if where == "node2" else {"node": None, "allNodes": True}
        spec = {}
        if draw(st.booleans()):
            spec["sharedCounters"] = [counters("cs", mem=draw(st.sampled_from(["4", "8"])))]
            devs = []
        else:
            devs = draw(devices(f"d{i}-"))
        out.append(slice_(f"s{i}", *devs, driver=driver, pool=draw(st.sampled_from(["p1", "p2"])),
                          generation=draw(st.integers(0, 1)), count=draw(st.integers(1, 2)), **kw, **spec))
    return out


@st.composite
def requests(draw, name: str):
    cls = draw(st.sampled_from([CLASS_A, CLASS_B]))
    sels = draw(st.lists(st.sampled_from(SELECTORS), max_size=1))
    kind = draw(st.integers(0, 5))
    tolerations = [{"key": "k", "operator": "Exists"}] if draw(st.booleans()) else None
    capacity = {"memory": draw(st.sampled_from(["1", "3", "8"]))} if draw(st.integers(0, 3)) == 0 else None
    if kind == 0:
        return request(name, cls, None, *sels, mode="All", tolerations=tolerations)
    if kind == 1:
        return first_available(name, subrequest("a", cls, 2, *sels), subrequest("b", cls, 1, tolerations=tolerations))
    return request(name, cls, draw(st.integers(1, 3)), *sels, admin=True if kind == 2 else None,
                   tolerations=tolerations, capacity=capacity)


@st.composite
def claims(draw):
    out = []
    for ci in range(draw(st.integers(1, 3))):
        reqs = [draw(requests(f"r{ri}")) for ri in range(draw(st.integers(1, 2)))]
        constraints = []
        if draw(st.booleans()):
            constraints.append({draw(st.sampled_from(["matchAttribute", "distinctAttribute"])): "driver-a/numa"})
        out.append(claim(f"c{ci}", *reqs, constraints=constraints))
    return out


def run(slice_list, claim_list, rounds: int = 3):
    """Allocate the pod's claims repeatedly on two nodes, recording each allocation; returns outcomes."""
    a = new_allocator(slice_list, [klass(CLASS_A, DRIVER_A), klass(CLASS_B, DRIVER_B)])
    state = AllocatedState()
    outcomes = []
    for _ in range(rounds):
        for n in (NODE_1, NODE_2):
            try:
                got = a.allocate(node(n), claim_list, state)
            except AllocationError as exc:
                outcomes.append(("error", type(exc).__name__, str(exc)))
                continue
            outcomes.append(("ok", got))
            for allocation in got or ():
                state.add(allocation)
    return outcomes, state


def exclusive_ids(outcomes) -> list[str]:
    ids = []
    for outcome in outcomes:
        if outcome[0] == "ok" and outcome[1]:
            for allocation in outcome[1]:
                for r in allocation["devices"]["results"]:
                    if not r.get("adminAccess") and "shareID" not in r:
                        ids.append(f"{r['driver']}/{r['pool']}/{r['device']}")
    return ids


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(slices(), claims())
def test_random_inputs(slice_list, claim_list):
    """Never crashes; no exclusive device is allocated twice; the same inputs give the same outcomes."""
    outcomes, _ = run(slice_list, claim_list)
    ids = exclusive_ids(outcomes)
    assert len(ids) == len(set(ids)), ids
    again, _ = run(slice_list, claim_list)
    assert again == outcomes


@st.composite
def simple_claims(draw):
    """Claims that mostly take the quick path: plain exactly requests, sometimes a selector."""
    sels = draw(st.lists(st.sampled_from(SELECTORS), max_size=1))
    cls = draw(st.sampled_from([CLASS_A, CLASS_A, CLASS_B]))
    return [claim(f"c{ci}", *[request(f"r{ri}", cls, draw(st.integers(1, 3)), *sels)
                              for ri in range(draw(st.integers(1, 2)))])
            for ci in range(draw(st.integers(1, 2)))]


def _some_in_use(a, taken: int) -> AllocatedState:
    """An allocated state with up to `taken` one-device claims of class A allocated on node 1."""
    state = AllocatedState()
    for _ in range(taken):
        try:
            got = a.allocate(node(NODE_1), [claim("pre", request("r", CLASS_A, 1))], state)
        except AllocationError:
            break
        for allocation in got or ():
            state.add(allocation)
    return state


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(slices(), st.one_of(simple_claims(), claims()), st.integers(0, 3))
def test_fits_agrees_with_allocate(slice_list, claim_list, taken):
    """Allocator.fits, when it decides, says exactly whether allocate finds a solution, with the same errors."""
    a = new_allocator(slice_list, [klass(CLASS_A, DRIVER_A), klass(CLASS_B, DRIVER_B)])
    state = _some_in_use(a, taken)
    for n in (NODE_1, NODE_2):
        try:
            quick = a.fits(node(n), claim_list, state)
        except AllocationError as exc:
            quick = ("error", str(exc))
        try:
            full = a.allocate(node(n), claim_list, state) is not None
        except AllocationError as exc:
            full = ("error", str(exc))
        if quick is not None:
            assert quick == full


def unwound(search) -> bool:
    """Nothing reserved is left behind: what a failed search must look like (kubernetes#140431)."""
    counters_back = all(v == 0 for sets in search.consumed.values() for used in sets.values() for v in used.values())
    constraints_back = all(c.count == 0 for cs in search.constraints for c in cs)
    return (counters_back and constraints_back and not search.allocating and not search.allocating_capacity
            and not getattr(search, "live_shares", None) and not any(search.results) and not any(search.groups_running.values()))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(slices(), claims(), st.booleans())
def test_failed_search_gives_everything_back(slice_list, claim_list, groups):
    """Every rejection and every undo releases exactly what the pick reserved, so a search that
    finds no solution (or stops on an error) ends with nothing reserved."""
    from unittest import mock

    from drasim.allocator import Features, allocator as allocator_module
    from drasim.allocator.search import Search

    made = []

    class Recording(Search):
        __slots__ = ()

        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

    a = new_allocator(slice_list, [klass(CLASS_A, DRIVER_A), klass(CLASS_B, DRIVER_B)],
                      Features(compatibility_groups=groups))
    with mock.patch.object(allocator_module, "Search", Recording):
        for n in (NODE_1, NODE_2):
            try:
                got = a.allocate(node(n), claim_list, AllocatedState())
            except AllocationError:
                got = None
            if got is None and made:
                assert unwound(made[-1])
            made.clear()


@st.composite
def mostly_plain_slices(draw):
    """Slices whose devices are mostly of the kinds the plain path takes (attributes, sometimes a
    capacity), with now and then one it must leave to the search."""
    out = []
    for i in range(draw(st.integers(1, 3))):
        devs = []
        for k in range(draw(st.integers(0, 8))):
            attrs = {"numa": draw(st.integers(0, 2))} if draw(st.booleans()) else {}
            if draw(st.integers(0, 6)) == 0:
                attrs["model"] = "x"
            extra = {}
            if draw(st.integers(0, 4)) == 0:
                extra["capacity"] = {"memory": {"value": draw(st.sampled_from(["4", "8"]))}}
            if draw(st.integers(0, 15)) == 0:
                extra["allowMultipleAllocations"] = True
            if draw(st.integers(0, 15)) == 0:
                extra["taints"] = [{"key": "k", "value": "v", "effect": "NoSchedule"}]
            devs.append(device(f"d{i}-{k}", attrs, **extra))
        where = draw(st.sampled_from(["node1", "node2", "all"]))
        kw = {"node": NODE_1} if where == "node1" else {"node": NODE_2} if where == "node2" else {"node": None, "allNodes": True}
        out.append(slice_(f"s{i}", *devs, driver=draw(st.sampled_from([DRIVER_A, DRIVER_A, DRIVER_B])),
                          pool=f"p{i}", **kw))
    return out


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(mostly_plain_slices(), mostly_plain_slices(), slices()),
       st.one_of(simple_claims(), simple_claims(), claims()), st.integers(0, 4),
       st.booleans())
def test_allocate_plan_equals_allocate(slice_list, claim_list, taken, consumable):
    """Allocator.allocate_plan, when it decides, gives exactly what allocate's search gives: the same
    allocations (devices, order, configs, node selectors) or the same None."""
    from drasim.allocator import Features
    a = new_allocator(slice_list, [klass(CLASS_A, DRIVER_A), klass(CLASS_B, DRIVER_B)],
                      features=Features(consumable_capacity=consumable))
    state = _some_in_use(a, taken)
    for n in (NODE_1, NODE_2):
        try:
            plan = a.plan(claim_list)
            quick = a.allocate_plan(node(n), claim_list, plan, state)
        except AllocationError as exc:
            quick = ("error", str(exc))
        try:
            full = a.allocate(node(n), claim_list, state)
        except AllocationError as exc:
            full = ("error", str(exc))
        if quick is not NotImplemented:
            assert quick == full
