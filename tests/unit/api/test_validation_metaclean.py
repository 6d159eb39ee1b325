"""validation/metaclean.py: the quick "clean?" walk agrees with the walk that words errors.

validate_object_meta returns at once when metaclean says clean and otherwise runs
_object_meta_errors; on any metadata — snapshot-like, mutated at random — both must give the
same errors and the same returned metadata."""
import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api.validation import common

META = {"name": "gpu-node-1", "namespace": "fleet", "uid": "5f285bc1-7373-43c2-b93c-3ebb5a3f11e7",
        "generateName": "gpu-", "creationTimestamp": "2026-01-01T00:00:00Z", "generation": 2,
        "resourceVersion": "7", "labels": {"kubernetes.io/hostname": "gpu-node-1", "zone": "a", "empty": ""},
        "annotations": {"example.com/Note": "x" * 40, "a": "b"}}
values = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 2), st.sampled_from([1.0, 1.5, -1.0, float("nan"), 2e300]),
    st.sampled_from(["", "x", "X", "a.b", "a_b", "-a", "a/b", "/a", "a/", "a/b/c", "Example.com/x", "a" * 64,
                     "a" * 254, "2026-01-01T00:00:00Z", "2026-01-01", "2026-13-01T00:00:00Z", "2026-01-01T00:00:00z",
                     "x" * 300_000, "é", "a" * 63, "a" * 253, "a\n", "a-", "a.b-c.d", "ab.", "a..b"]),
    st.just({}), st.just({"a": "b"}), st.just({"a": 1}), st.just({1: "a"}), st.just({"a": None}), st.just(["a"]))
KEYS = ["name", "namespace", "creationTimestamp", "generation", "labels", "annotations", "uid"]


@settings(max_examples=1500, deadline=None)
@given(st.data(), st.booleans(), st.sampled_from([common.is_dns1123_subdomain, common.is_dns1123_label]))
def test_the_quick_walk_agrees_with_the_full_one(data, namespaced, name_fn):
    obj = {"kind": "X", "metadata": copy.deepcopy(META)}
    for _ in range(data.draw(st.integers(0, 3))):
        md = obj.get("metadata")
        how = data.draw(st.sampled_from(["field", "map", "remove", "metadata"]))
        if how == "metadata" or not isinstance(md, dict):
            obj["metadata"] = copy.deepcopy(data.draw(st.one_of(values, st.just(copy.deepcopy(META)))))
        elif how == "remove":
            md.pop(data.draw(st.sampled_from(KEYS)), None)
        elif how == "map" and isinstance(md.get(m := data.draw(st.sampled_from(["labels", "annotations"]))), dict):
            md[m][data.draw(values.filter(lambda v: isinstance(v, (str, int, type(None)))))] = copy.deepcopy(data.draw(values))
        else:
            md[data.draw(st.sampled_from(KEYS))] = copy.deepcopy(data.draw(values))
    quick_errs, full_errs = [], []
    quick = common.validate_object_meta(obj, namespaced=namespaced, name_fn=name_fn, errs=quick_errs)
    full = common._object_meta_errors(obj, namespaced, name_fn, full_errs)
    assert [str(e) for e in quick_errs] == [str(e) for e in full_errs]
    assert quick == full


def test_snapshot_metadata_is_clean_by_the_quick_walk():
    from drasim.api.validation import metaclean
    assert metaclean.clean({"metadata": META}, True, common.is_dns1123_subdomain)
    assert not metaclean.clean({"metadata": dict(META, namespace="")}, True, common.is_dns1123_subdomain)
    assert metaclean.clean({"metadata": dict(META, namespace="")}, False, common.is_dns1123_subdomain)


@settings(max_examples=500, deadline=None)
@given(st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=()), max_size=20))
def test_byte_len_is_the_utf8_length_with_surrogates_as_three(text):
    """The ASCII shortcut in byte_len gives Go's len(string) as the encoding does."""
    assert common.byte_len(text) == len(text.encode("utf-8", "surrogatepass"))


@settings(max_examples=800, deadline=None)
@given(st.one_of(st.sampled_from(["a" * 63, "a" * 64, "a" * 253, "a" * 254, ("a" * 62 + ".") * 4 + "a", "a\n", "a-",
                                  "-a", "a.b", "a..b", "A", "é", "a_b", "1", "a" * 300]),
                 st.text(st.sampled_from("ab-.1A\n_é"), min_size=1, max_size=70)),
       st.sampled_from([common.is_dns1123_subdomain, common.is_dns1123_label]))
def test_quick_name_check_is_the_name_format_check(name, name_fn):
    """The pattern shortcut for names says clean exactly when the format check has no message."""
    from drasim.api.validation import metaclean
    meta = {"metadata": {"name": name}}
    assert metaclean.clean(meta, False, name_fn) == (not name_fn(name))
    quick = common.dns1123_subdomain_clean if name_fn is common.is_dns1123_subdomain else common.dns1123_label_clean
    assert quick(name) == (not name_fn(name))


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.sampled_from(["", "a" * 63, "a" * 64, "-a", "a-", "a_b", "A.b", "é", "a\n", "a b"]),
                 st.text(st.sampled_from("aZ9-_.\n é"), max_size=70)))
def test_quick_label_value_check_is_the_label_value_check(value):
    assert common.label_value_clean(value) == (not common.is_label_value(value))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["labels-key", "labels-value", "annotations-key"]),
       st.sampled_from(["-a", "a-", "a_", "A..b", "a/b/c", "/a", "a" * 64, "é", "a\n", ""]), st.integers(1, 3))
def test_remembered_checks_remember_only_what_passed(where, bad, times):
    """Label keys and values and annotation keys are remembered once they pass: a bad one
    asked again, after good ones, is still bad (ordered as a fleet asks: the same maps again)."""
    from drasim.api.validation import metaclean
    field, part = where.split("-")
    good = {"labels": {"app": "a", "zone": "z"}, "annotations": {"example.com/a": "x"}}[field]
    bad_map = dict(good, **({bad: "v"} if part == "key" else {"app": bad}))
    if part == "value" and not common.is_label_value(bad) or part == "key" and not common.is_qualified_name(
            bad.lower() if field == "annotations" else bad):
        return   # not bad after all ("" is a fine label value)
    for _ in range(times):
        assert metaclean.clean({"metadata": {"name": "n", field: good}}, False, common.is_dns1123_subdomain)
        assert not metaclean.clean({"metadata": {"name": "n", field: bad_map}}, False, common.is_dns1123_subdomain)
