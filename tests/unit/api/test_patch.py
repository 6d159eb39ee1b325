from hypothesis import given, strategies as st

import pytest

from drasim.api.patch import PatchError, json_patch, merge_patch, strategic_merge

POD = {"metadata": {"name": "p", "finalizers": ["a"], "labels": {"x": "1"}},
       "spec": {"containers": [{"name": "a", "image": "i1", "env": [{"name": "E", "value": "1"}]},
                               {"name": "b", "image": "i2"}],
                "tolerations": [{"key": "k1"}]}}


def test_strategic_merge_merges_containers_by_name_and_replaces_plain_lists():
    out = strategic_merge(POD, {"spec": {"containers": [{"name": "b", "image": "i3"}, {"name": "c", "image": "i4"}],
                                         "tolerations": [{"key": "k2"}]}})
    assert [(c["name"], c["image"]) for c in out["spec"]["containers"]] == [("a", "i1"), ("b", "i3"), ("c", "i4")]
    assert out["spec"]["tolerations"] == [{"key": "k2"}]
    assert out["spec"]["containers"][0]["env"] == [{"name": "E", "value": "1"}]
    assert POD["spec"]["containers"][1]["image"] == "i2"   # the original is untouched


def test_strategic_merge_directives():
    out = strategic_merge(POD, {"spec": {"containers": [{"name": "a", "$patch": "delete"}],
                                         "$setElementOrder/containers": [{"name": "b"}]},
                                "metadata": {"$deleteFromPrimitiveList/finalizers": ["a"], "labels": {"x": None}}})
    assert [c["name"] for c in out["spec"]["containers"]] == ["b"]
    assert out["metadata"]["finalizers"] == [] and out["metadata"]["labels"] == {}
    replaced = strategic_merge(POD, {"spec": {"$patch": "replace", "containers": []}})
    assert replaced["spec"] == {"containers": []}
    nested = strategic_merge(POD, {"spec": {"containers": [{"name": "a", "env": [{"name": "F", "value": "2"}]}]}})
    assert [e["name"] for e in nested["spec"]["containers"][0]["env"]] == ["E", "F"]
    with pytest.raises(PatchError):
        strategic_merge(POD, {"spec": {"containers": [{"image": "no-name"}]}})


def test_json_patch_operations():
    doc = {"a": {"b": [1, 2]}, "c": 1}
    out = json_patch(doc, [{"op": "add", "path": "/a/b/-", "value": 3}, {"op": "remove", "path": "/c"},
                           {"op": "replace", "path": "/a/b/0", "value": 9}, {"op": "copy", "from": "/a/b", "path": "/d"},
                           {"op": "move", "from": "/d", "path": "/e"}, {"op": "test", "path": "/e/2", "value": 3}])
    assert out == {"a": {"b": [9, 2, 3]}, "e": [9, 2, 3]}
    with pytest.raises(PatchError):
        json_patch(doc, [{"op": "remove", "path": "/missing"}])
    with pytest.raises(PatchError) as e:
        json_patch(doc, {"op": "add"})
    assert e.value.malformed


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=3),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3),
                           max_leaves=10)
objects = st.dictionaries(st.text(max_size=2), json_values, max_size=4)


@given(objects, objects)
def test_merge_patch_rfc7386_properties(target, patch):
    out = merge_patch(target, patch)
    for key, value in patch.items():
        if value is None:
            assert key not in out
        elif not isinstance(value, dict):
            assert out[key] == value
    for key in target:
        if key not in patch:
            assert out[key] == target[key]
    assert merge_patch(out, patch) == out   # idempotent
