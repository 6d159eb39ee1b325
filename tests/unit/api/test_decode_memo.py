"""decode: quantities and times that parsed are remembered; the answers stay what parsing says.

Values that are equal in Python but typed apart (1, 1.0, True, "1"; 0.0 and -0.0) and values
of every other type go through the remembered check one after another, and each answer must be
the fresh check's (memo cleared before it)."""
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api import decode

leaves = st.one_of(
    st.sampled_from(["1", "1.0", "64Gi", "500m", "1e3", "1E3", "0.5", "-0", "+1", ".5", "1Ki", "1ki", "", " 1",
                     "2026-01-01T00:00:00Z", "2026-01-01T00:00:00", "2026-02-30T00:00:00Z", "2026-01-01T00:00:00.5+01:00",
                     "9" * 40, "1e400", "nan"]),
    st.integers(-2**70, 2**70), st.floats(), st.booleans(), st.none(), st.just(1), st.just(1.0), st.just(True),
    st.just(0.0), st.just(-0.0), st.text(max_size=8), st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2))


def fresh(check, v) -> bool:
    decode._GOOD_LEAVES.clear()
    return check(v)


@settings(max_examples=400, deadline=None)
@given(st.lists(leaves, min_size=1, max_size=12))
def test_remembered_answers_are_the_fresh_ones(values):
    for check in (decode._ok_quantity, decode._ok_time):
        expected = [fresh(check, v) for v in values]
        decode._GOOD_LEAVES.clear()
        assert [check(v) for v in values + values] == expected + expected


def test_a_parsed_value_is_remembered():
    decode._GOOD_LEAVES.clear()
    assert decode._ok_quantity("64Gi") and decode._ok_time("2026-01-01T00:00:00Z")
    assert (decode.QUANTITY, str, "64Gi") in decode._GOOD_LEAVES and (decode.TIME, str, "2026-01-01T00:00:00Z") in decode._GOOD_LEAVES
    assert not decode._ok_quantity(True) and not decode._ok_time(1)
