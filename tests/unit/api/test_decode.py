"""Typed decoding (api/decode.py): Go's messages, Go's numbers, and a property over every field
of every kind: a value of another JSON type decodes only where Go accepts it, and otherwise gives
one error line naming that field — never an exception."""
from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drasim.api import decode, decode_schema, gojson
from drasim.api.decodereport import strict_path


def sample(t: decode.GoType, depth: int = 0):
    """A value of every field of the type, each valid (the whole object decodes)."""
    kind = t.kind
    if kind == decode.STRUCT:
        return {} if depth > 14 else {name: sample(ft, depth + 1) for name, ft in t.fields.items()}
    if kind == decode.SLICE:
        return [sample(t.elem, depth + 1)]
    if kind == decode.MAP:
        return {"k.example.com/x": sample(t.elem, depth + 1)}
    return {decode.STRING: "x", decode.BYTES: "eA==", decode.BOOL: True, decode.INT: 1, decode.FLOAT: 1.5,
            decode.QUANTITY: "1Gi", decode.TIME: "2026-01-01T00:00:00Z", decode.INTORSTRING: 1,
            decode.RAW: {"any": [1, "thing"]}}[kind]


SAMPLES = {kind: sample(decode.kind_type(kind)) for kind in decode_schema.KINDS}


def positions(value, path=(), out=None):
    """(path, parent, key) for every value inside."""
    out = [] if out is None else out
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        out.append((path + (key,), value, key))
        positions(child, path + (key,), out)
    return out


POSITIONS = {kind: [p for p, _, _ in positions(obj)] for kind, obj in SAMPLES.items()}


def type_at(t: decode.GoType, path: tuple) -> decode.GoType | None:
    for piece in path:
        if t.kind == decode.RAW:
            return t
        t = t.fields[piece] if t.kind == decode.STRUCT else t.elem
    return t


def go_accepts(t: decode.GoType, value) -> bool:
    """What Go's decoder takes in place of a value of another JSON type."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return (value is None or t.kind == decode.RAW
            or (t.kind == decode.QUANTITY and number)
            or (t.kind == decode.INTORSTRING and (isinstance(value, str) or (number and float(value).is_integer())))
            or (t.kind == decode.FLOAT and number)
            or (t.kind == decode.INT and number and float(value).is_integer()))


OTHER_VALUES = [None, True, "s", "2026-01-01T00:00:00Z", 2.5, 7, [], [1], {}, {"zz": 1}]


def json_type(value) -> str:
    return gojson.json_kind(value) if value is not None else "null"


def test_every_kind_samples_decode():
    """The samples fill every field of every schema, and all of them decode."""
    for kind, obj in SAMPLES.items():
        assert decode.decoding_error(kind, obj) is None, kind
    assert min(len(POSITIONS[k]) for k in ("Pod", "StatefulSet", "Job", "Deployment")) > 1000


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_value_of_another_type_decodes_only_where_go_takes_it(data):
    kind = data.draw(st.sampled_from(sorted(SAMPLES)))
    path = data.draw(st.sampled_from(POSITIONS[kind]))
    obj = copy.deepcopy(SAMPLES[kind])
    parent = obj
    for piece in path[:-1]:
        parent = parent[piece]
    old = parent[path[-1]]
    new = data.draw(st.sampled_from([v for v in OTHER_VALUES if json_type(v) != json_type(old)]))
    parent[path[-1]] = new
    t = type_at(decode.kind_type(kind), path)
    try:
        decode.decode(kind, obj)
        problem = None
    except decode.DecodeError as e:
        problem = str(e)
    if problem is None:
        assert go_accepts(t, new), (kind, path, new)
    else:
        assert not go_accepts(t, new), (kind, path, new, problem)
        assert "\n" not in problem and strict_path(path) in problem, (path, problem)


@pytest.mark.parametrize(("kind", "obj", "message"), [
    pytest.param("Pod", {"spec": {"containers": [{"name": 5}]}},
                 "json: cannot unmarshal number into Go struct field Container.spec.containers.name of type string "
                 "(spec.containers[0].name)", id="list-index-added"),
    pytest.param("Pod", {"metadata": {"labels": {"a": 1}}},
                 "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string "
                 "(metadata.labels.a)", id="map-value"),
    pytest.param("Node", {"status": {"capacity": {"cpu": True}}},
                 "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' "
                 "(status.capacity.cpu: true)", id="quantity-bool"),
    pytest.param("Pod", {"spec": {"containers": [{"ports": [{"containerPort": 2**31}]}]}},
                 "json: cannot unmarshal number 2147483648 into Go struct field ContainerPort.spec.containers.ports."
                 "containerPort of type int32 (spec.containers[0].ports[0].containerPort)", id="int32-overflow"),
    pytest.param("Pod", {"spec": {"containers": [{"livenessProbe": {"tcpSocket": {"port": 2.5}}}]}},
                 "json: cannot unmarshal number 2.5 into Go value of type int32 "
                 "(spec.containers[0].livenessProbe.tcpSocket.port)", id="intorstring-fraction"),
    pytest.param("Pod", {"spec": {"volumes": [{"name": "v", "hostPath": 3}]}},
                 "json: cannot unmarshal number into Go struct field Volume.spec.volumes.hostPath of type "
                 "v1.HostPathVolumeSource (spec.volumes[0].hostPath)", id="embedded-struct-field-is-the-outer-struct's"),
    pytest.param("Pod", {"spec": {"a": 1, "b": 2, "containers": [{"c": 3}]}},
                 'strict decoding error: unknown field "spec.a", unknown field "spec.b", '
                 'unknown field "spec.containers[0].c"', id="unknown-fields-in-key-order"),
    pytest.param("Job", {"spec": {"template": {"spec": {"restartPolicy": 1}}}},
                 "json: cannot unmarshal number into Go struct field PodSpec.spec.template.spec.restartPolicy of type "
                 "v1.RestartPolicy", id="named-string-type"),
    pytest.param("Pod", {"spec": {"hostNetwork": 1, "containers": 1}},
                 "json: cannot unmarshal number into Go struct field PodSpec.spec.containers of type []v1.Container",
                 id="first-type-error-in-key-order"),
])
def test_messages(kind, obj, message):
    assert decode.decoding_error(kind, obj) == message


def test_null_decodes_anywhere_and_kinds_without_schema_pass():
    assert decode.decoding_error("Pod", {"spec": None, "metadata": {"labels": None, "namespace": None}}) is None
    assert decode.decoding_error("Widget", {"anything": [1]}) is None


def test_whole_floats_become_ints_in_a_copy():
    obj = {"spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80.0}]}]}}
    out = decode.decode("Pod", obj)
    port = out["spec"]["containers"][0]["ports"][0]["containerPort"]
    assert port == 80 and type(port) is int
    assert type(obj["spec"]["containers"][0]["ports"][0]["containerPort"]) is float   # input untouched
    valid = {"spec": {"containers": [{"name": "c"}]}}
    assert decode.decode("Pod", valid) is valid   # nothing to change: no copy


@pytest.mark.parametrize(("value", "text", "integer"), [
    (2**70, "1.1805916207174113e+21", None),   # kubectl sends what int64 cannot hold as float64
    (2**64 - 1, "18446744073709551615", 2**64 - 1),   # go-yaml: uint64
    (-(2**63) - 1, "-9223372036854776000", -9223372036854776000),
    (1e20, "100000000000000000000", 10**20),
    (1e21, "1e+21", None),
    (2.0, "2", 2),
    (2.5, "2.5", None),
    (1.5e-7, "1.5e-7", None),
    (0.000001, "0.000001", None),
])
def test_numbers_as_go_writes_and_reads_them(value, text, integer):
    assert gojson.number_text(value) == text
    assert gojson.integer_value(value) == integer


@pytest.mark.parametrize(("text", "error"), [
    ("2026-03-01T00:00:00Z", None),
    ("2026-03-01T00:00:00.5+02:00", None),
    ("2026-03-01", 'parsing time "2026-03-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"'),
    ("2026-13-01T00:00:00Z", 'parsing time "2026-13-01T00:00:00Z": month out of range'),
    ("2026-03-01T00:00:00Zjunk", 'parsing time "2026-03-01T00:00:00Zjunk": extra text: "junk"'),
])
def test_rfc3339_errors(text, error):
    assert gojson.rfc3339_error(text) == error


@pytest.mark.parametrize(("text", "canonical"), [
    ("1e1000000", "10e999999"),        # accepted and printed past Python's int-to-str limit
    ("1e4294967296", "1"),             # ParseQuantity casts the exponent to int32: it wraps
    ("5e-3000000", "1e-9"),            # below a nano unit: rounded up to 1n (not expanded)
    ("1e-12", "1e-9"),
    ("8Ei", "9223372036854775807"),    # BinarySI is capped at the int64 maximum
    ("1E", "1E"),                      # exa, not an exponent without digits
    ("1e21", "1e21"),                  # an exponent has no largest suffix
])
def test_quantities_as_parsequantity_reads_them(text, canonical):
    from drasim.api.quantity import parse_quantity
    assert parse_quantity(text).canonical() == canonical


def test_huge_quantities_compare_exactly_and_bad_suffixes_are_decode_errors():
    from drasim.api.quantity import parse_quantity
    big = parse_quantity("1e1000000")
    assert parse_quantity("1Gi") < big < parse_quantity("2e1000000") and big == parse_quantity("1000e999997")
    assert decode.decoding_error("Node", {"status": {"capacity": {"cpu": "1e99999999999999999999"}}}) == (
        "unable to parse quantity's suffix (status.capacity.cpu: \"1e99999999999999999999\")")
