"""Kubernetes quantities."""
import pytest
from hypothesis import given, strategies as st

from drasim.api.quantity import QuantityError, parse_quantity


@pytest.mark.parametrize(("a", "b", "equal"), [
    pytest.param("64Gi", "65536Mi", True, id="binary-units"),
    pytest.param("64G", "64Gi", False, id="decimal-vs-binary"),
    pytest.param("1", "1000m", True, id="milli"),
    pytest.param("1e3", "1k", True, id="exponent"),
])
def test_equality_is_by_value(a, b, equal):
    """Quantities compare by value, whatever the suffix."""
    assert (parse_quantity(a) == parse_quantity(b)) is equal


@pytest.mark.parametrize(("text", "canonical"), [
    ("65536Mi", "64Gi"), ("1000", "1k"), ("1.5", "1500m"), ("0.5Gi", "512Mi"), ("1536", "1536"),
])
def test_canonical_form(text, canonical):
    """Canonical form picks the largest suffix that keeps an integer mantissa (as Kubernetes prints)."""
    assert parse_quantity(text).canonical() == canonical


@pytest.mark.parametrize("bad", ["", "abc", "1Gb", "--1", "1.2.3", "Gi", "1\n", "1Gi\n"])
def test_rejects_non_quantities(bad):
    """Malformed quantities raise QuantityError with Kubernetes' message."""
    with pytest.raises(QuantityError, match="quantities must match the regular expression"):
        parse_quantity(bad)


@given(st.text(max_size=12))
def test_parse_never_crashes(text):
    """Any string parses or raises QuantityError, never anything else."""
    try:
        parse_quantity(text)
    except QuantityError:
        pass
