"""Extended resource names and the name -> DeviceClass cache (spec §2)."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from drasim.api.extendedresource import (
    IMPLICIT_PREFIX, ExtendedResourceCache, is_dra_extended_resource_name, is_extended_resource_name)

T0 = "2026-01-01T00:00:00Z"
T1 = "2026-01-01T00:00:01Z"


def device_class(name: str, explicit: str | None = None, created: str = T0) -> dict:
    spec = {} if explicit is None else {"extendedResourceName": explicit}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": name, "uid": f"uid-{name}", "creationTimestamp": created}, "spec": spec}


def cache_with(*events) -> ExtendedResourceCache:
    cache = ExtendedResourceCache()
    for kind, *objs in events:
        getattr(cache, kind)(*objs)
    return cache


@pytest.mark.parametrize(("name", "want"), [
    pytest.param("example.com/gpu", True, id="domain-name"),
    pytest.param("gpu", False, id="no-slash"),
    pytest.param("cpu", False, id="cpu"),
    pytest.param("hugepages-2Mi", False, id="hugepages"),
    pytest.param("kubernetes.io/gpu", False, id="kubernetes-io"),
    pytest.param("foo.kubernetes.io/gpu", False, id="sub-kubernetes-io"),
    pytest.param("requests.example.com/gpu", False, id="requests-prefix"),
    pytest.param("Example.com/gpu", False, id="uppercase-domain"),
    pytest.param("example.com/" + "g" * 63, True, id="name-63"),
    pytest.param("example.com/" + "g" * 64, False, id="name-64"),
    pytest.param("example.com/-gpu", False, id="name-starts-dash"),
    pytest.param("a/b/c", False, id="two-slashes"),
    pytest.param("example.com/gpu\n", False, id="trailing-newline"),   # Go's $ is the end of the text only
    pytest.param("example.com\n/gpu", False, id="newline-in-domain"),
    pytest.param(IMPLICIT_PREFIX + "gpu", False, id="implicit-is-native"),
])
def test_is_extended_resource_name(name, want):
    """An extended name is non-native, not `requests.`-prefixed and quota-qualifiable."""
    assert is_extended_resource_name(name) is want


@pytest.mark.parametrize(("name", "want"), [
    pytest.param("example.com/gpu", True, id="explicit"),
    pytest.param(IMPLICIT_PREFIX + "gpu", True, id="implicit"),
    pytest.param(IMPLICIT_PREFIX + "x" * 100, True, id="implicit-long-still-prefix"),
    pytest.param("cpu", False, id="cpu"),
    pytest.param("memory", False, id="memory"),
    pytest.param("kubernetes.io/gpu", False, id="kubernetes-io"),
])
def test_is_dra_extended_resource_name(name, want):
    """§2.1: DRA-extended = extended name, or anything with the implicit prefix."""
    assert is_dra_extended_resource_name(name) is want


def test_implicit_and_explicit_names():
    """§2.2/§2.3: a class answers to its explicit name and its implicit name."""
    cache = cache_with(("on_add", device_class("gpu", "example.com/gpu")), ("on_add", device_class("fpga")))
    assert cache.class_for("example.com/gpu") == "gpu"
    assert cache.class_for(IMPLICIT_PREFIX + "gpu") == "gpu"
    assert cache.class_for(IMPLICIT_PREFIX + "fpga") == "fpga"
    assert cache.class_for("example.com/fpga") is None
    assert cache.explicit_name_of("gpu") == "example.com/gpu"
    assert cache.explicit_name_of("fpga") is None


def test_long_class_name_still_maps():
    """§2.6: a class name longer than 63 chars is unusable by pods, but its mapping exists."""
    name = "c" * 100
    cache = cache_with(("on_add", device_class(name)))
    assert cache.class_for(IMPLICIT_PREFIX + name) == name


@pytest.mark.parametrize(("events", "owner"), [
    pytest.param([("on_add", device_class("a", "x/g", T0)), ("on_add", device_class("b", "x/g", T1))],
                 "b", id="newer-wins-arriving-later"),
    pytest.param([("on_add", device_class("b", "x/g", T1)), ("on_add", device_class("a", "x/g", T0))],
                 "b", id="newer-wins-arriving-first"),
    pytest.param([("on_add", device_class("b", "x/g", T0)), ("on_add", device_class("a", "x/g", T0))],
                 "a", id="tie-smaller-name-wins-later"),
    pytest.param([("on_add", device_class("a", "x/g", T0)), ("on_add", device_class("b", "x/g", T0))],
                 "a", id="tie-smaller-name-wins-first"),
    pytest.param([("on_add", device_class("a", "x/g", "2026-01-01T00:00:00.9Z")),
                  ("on_add", device_class("b", "x/g", "2026-01-01T00:00:00.1Z"))],
                 "a", id="sub-second-ignored"),
])
def test_explicit_name_clash(events, owner):
    """§2.7/§2.8: newest class wins an explicit name; equal seconds: smallest name."""
    assert cache_with(*events).class_for("x/g") == owner


def test_losing_late_class_gets_no_implicit_mapping():
    """§2.9: a loser arriving after the winner is ignored entirely, implicit name included."""
    cache = cache_with(("on_add", device_class("new", "x/g", T1)), ("on_add", device_class("old", "x/g", T0)))
    assert cache.class_for(IMPLICIT_PREFIX + "old") is None
    assert cache.explicit_name_of("old") == "x/g"      # §2.10: still reports its own name


def test_delete_of_loser_removes_winners_explicit_mapping():
    """§2.9: deleting any class drops the mapping of its explicit name, no fallback."""
    old, new = device_class("old", "x/g", T0), device_class("new", "x/g", T1)
    cache = cache_with(("on_add", old), ("on_add", new), ("on_delete", old))
    assert cache.class_for("x/g") is None
    assert cache.class_for(IMPLICIT_PREFIX + "new") == "new"
    cache.on_update(new, new)                           # an update brings it back
    assert cache.class_for("x/g") == "new"


def test_delete_of_winner_has_no_fallback():
    """§2.9: the remaining class does not take over until it gets an update event."""
    old, new = device_class("old", "x/g", T0), device_class("new", "x/g", T1)
    cache = cache_with(("on_add", old), ("on_add", new), ("on_delete", new))
    assert cache.class_for("x/g") is None
    assert cache.class_for(IMPLICIT_PREFIX + "old") == "old"
    cache.on_update(old, old)
    assert cache.class_for("x/g") == "old"


def test_rename_explicit_drops_old_name():
    """§2.9: changing X to Y deletes the X mapping."""
    v1, v2 = device_class("a", "x/g"), device_class("a", "y/g")
    cache = cache_with(("on_add", v1), ("on_update", v1, v2))
    assert cache.class_for("x/g") is None
    assert cache.class_for("y/g") == "a"
    assert cache.explicit_name_of("a") == "y/g"


def test_rename_drops_name_owned_by_other_class():
    """§2.9: the old explicit name is deleted even if another class owns it now."""
    a1 = device_class("a", "x/g", T0)
    b = device_class("b", "x/g", T1)
    cache = cache_with(("on_add", a1), ("on_add", b), ("on_update", a1, device_class("a", "y/g", T0)))
    assert cache.class_for("x/g") is None
    assert cache.class_for("y/g") == "a"


def test_removing_explicit_name():
    """§2.10: an update without extendedResourceName clears class -> name."""
    v1, v2 = device_class("a", "x/g"), device_class("a")
    cache = cache_with(("on_add", v1), ("on_update", v1, v2))
    assert cache.class_for("x/g") is None
    assert cache.explicit_name_of("a") is None
    assert cache.class_for(IMPLICIT_PREFIX + "a") == "a"


def test_delete_clears_everything():
    """on_delete removes implicit, explicit and class -> name entries."""
    a = device_class("a", "x/g")
    cache = cache_with(("on_add", a), ("on_delete", a))
    assert cache.resource_names() == {}
    assert cache.explicit_name_of("a") is None


@given(st.permutations([("a", T0), ("b", T0), ("c", T1), ("d", T1)]))
def test_steady_state_independent_of_add_order(order):
    """§2.8: adds only, in any order: the newest class wins, ties by smallest name."""
    cache = ExtendedResourceCache()
    for name, created in order:
        cache.on_add(device_class(name, "x/g", created))
    assert cache.class_for("x/g") == "c"
