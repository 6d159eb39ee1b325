"""FieldError rendering, name formats and InvalidObject's message (k8s field/errors.go, api/errors NewInvalid)."""
import pytest

from drasim.api import fielderrors as fe
from drasim.api.fielderrors import FieldError, Path
from drasim.api.validation import common
from drasim.errors import InvalidObject

SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                 "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
                 "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")


@pytest.mark.parametrize(("error", "want"), [
    pytest.param(fe.invalid(Path("spec", "selectors").index(0).child("cel", "expression"), "device.x ==",
                            "compilation failed: boom"),
                 'spec.selectors[0].cel.expression: Invalid value: "device.x ==": compilation failed: boom',
                 id="invalid-string"),
    pytest.param(fe.required("spec.devices.requests[0].name"), "spec.devices.requests[0].name: Required value",
                 id="required-no-detail"),
    pytest.param(fe.too_many("spec.devices", 129, 128), "spec.devices: Too many: 129: must have at most 128 items",
                 id="too-many"),
    pytest.param(fe.too_many("x", 2, 1), "x: Too many: 2: must have at most 1 item", id="too-many-singular"),
    pytest.param(fe.not_supported("spec.x", "Foo", ["A", "B"]), 'spec.x: Unsupported value: "Foo": supported values: "A", "B"',
                 id="not-supported"),
    pytest.param(fe.forbidden("spec.y", "not allowed"), "spec.y: Forbidden: not allowed", id="forbidden"),
    pytest.param(fe.duplicate("spec.devices[1]", "x"), 'spec.devices[1]: Duplicate value: "x"', id="duplicate"),
    pytest.param(fe.too_long("e", 10240), "e: Too long: may not be more than 10240 bytes", id="too-long"),
    pytest.param(fe.invalid("c", 0, "must be greater than zero"), "c: Invalid value: 0: must be greater than zero",
                 id="int-value"),
    pytest.param(fe.invalid("b", False, "x"), "b: Invalid value: false: x", id="bool-value"),
    pytest.param(fe.invalid("n", None, "x"), "n: Invalid value: null: x", id="nil-value-is-json-null"),
    pytest.param(fe.invalid("l", [], "x"), "l: Invalid value: []: x", id="list-value-json"),
    pytest.param(fe.invalid("o", {"int": 1, "bool": True}, "x"), 'o: Invalid value: {"int":1,"bool":true}: x',
                 id="struct-value-json"),
    pytest.param(fe.invalid("q", 'a"b\n', "x"), 'q: Invalid value: "a\\"b\\n": x', id="go-quoting"),
    pytest.param(fe.invalid("h", {"a": "<&>"}, "x"), 'h: Invalid value: {"a":"\\u003c\\u0026\\u003e"}: x',
                 id="json-html-escaping"),
])
def test_field_error_str(error, want):
    """str(FieldError) is byte-for-byte Go's field.Error.Error()."""
    assert str(error) == want


def test_path_helpers():
    """Children join with '.', indexes and map keys use brackets."""
    assert str(Path("spec").child("devices").index(3).child("attributes").key("a/b")) == "spec.devices[3].attributes[a/b]"
    assert str(Path().child("metadata")) == "metadata"


@pytest.mark.parametrize(("value", "want"), [
    pytest.param("my-name", (), id="ok"),
    pytest.param("a.b", ("must not contain dots",), id="dots-in-label"),
    pytest.param("x" * 64, ("must be no more than 63 bytes",), id="too-long"),
    pytest.param("ab\n", None, id="trailing-newline-rejected"),
])
def test_dns1123_label(value, want):
    """IsDNS1123Label: <= 63 bytes, no dots, Go anchors (a trailing newline does not match)."""
    got = common.is_dns1123_label(value)
    if want is None:
        assert got
    else:
        assert got == want


@pytest.mark.parametrize(("value", "want"), [
    pytest.param("example.com/Gpu_1", (), id="ok"),
    pytest.param("deviceclass.resource.kubernetes.io/" + "a" * 63, (), id="63-ok"),
    pytest.param("deviceclass.resource.kubernetes.io/" + "a" * 64, ("name part must be no more than 63 bytes",),
                 id="64-too-long"),
    pytest.param("/x", ("prefix part must be non-empty",), id="empty-prefix"),
])
def test_qualified_name(value, want):
    """IsQualifiedName: optional DNS prefix, name part of at most 63 bytes (extended-resources.md §2.6)."""
    assert common.is_qualified_name(value) == want


def test_invalid_object_single_and_many():
    """NewInvalid: `Kind.group "name" is invalid: <err>`, several errors bracketed, repeats dropped."""
    a = fe.required("spec.devices.requests[0].name")
    b = fe.forbidden("spec.y", "no")
    assert str(InvalidObject("DeviceClass.resource.k8s.io", "gpu", [a])) == (
        'DeviceClass.resource.k8s.io "gpu" is invalid: spec.devices.requests[0].name: Required value')
    assert str(InvalidObject("Pod", "p", [a, b, a])) == (
        'Pod "p" is invalid: [spec.devices.requests[0].name: Required value, spec.y: Forbidden: no]')
    assert str(InvalidObject("Pod", 'q"', [a, a])) == 'Pod "q\\"" is invalid: spec.devices.requests[0].name: Required value'


def test_metadata_name_message():
    """A DNS-subdomain name error carries apimachinery's full text."""
    errs: list[FieldError] = []
    common.validate_object_meta({"metadata": {"name": "Bad_Name"}}, namespaced=False,
                                name_fn=common.is_dns1123_subdomain, errs=errs)
    assert [str(e) for e in errs] == [f'metadata.name: Invalid value: "Bad_Name": {SUBDOMAIN_MSG}']
