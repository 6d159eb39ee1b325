"""Semantic version parsing and precedence as blang/semver (used by the Kubernetes semver library)."""
from __future__ import annotations

import pytest

from drasim.cel.semver import SemverError, Version, compare, parse, parse_normalized


@pytest.mark.parametrize(("text", "want"), [
    pytest.param("1.2.3", Version(1, 2, 3), id="plain"),
    pytest.param("0.1.0-alpha.1", Version(0, 1, 0, ("alpha", 1)), id="prerelease"),
    pytest.param("1.0.0+build.5", Version(1, 0, 0), id="build-dropped"),
    pytest.param("1.0.0-rc-1+x", Version(1, 0, 0, ("rc-1",)), id="hyphen-in-prerelease"),
])
def test_parse(text, want):
    """Strict parsing keeps major, minor, patch and pre-release identifiers."""
    assert parse(text) == want


@pytest.mark.parametrize(("text", "message"), [
    pytest.param("", "Version string empty", id="empty"),
    pytest.param("1.2", "No Major.Minor.Patch elements found", id="short"),
    pytest.param("01.2.3", 'Major number must not contain leading zeroes "01"', id="leading-zero"),
    pytest.param("1.x.3", 'Invalid character(s) found in minor number "x"', id="letter"),
    pytest.param("1.2.3-", "Prerelease is empty", id="empty-prerelease"),
    pytest.param("1.2.3-01", 'Numeric PreRelease version must not contain leading zeroes "01"', id="prerelease-zero"),
    pytest.param("1.2.3+", "Build meta data is empty", id="empty-build"),
    pytest.param("1.2.3-a_b", 'Invalid character(s) found in prerelease "a_b"', id="bad-prerelease"),
])
def test_parse_errors(text, message):
    """Invalid versions fail with blang/semver's message."""
    with pytest.raises(SemverError) as err:
        parse(text)
    assert str(err.value) == message


@pytest.mark.parametrize(("text", "want"), [
    pytest.param("v1.2.3", Version(1, 2, 3), id="v-prefix"),
    pytest.param("1", Version(1, 0, 0), id="major-only"),
    pytest.param("1.2", Version(1, 2, 0), id="major-minor"),
    pytest.param("01.02.03", Version(1, 2, 3), id="leading-zeros"),
])
def test_parse_normalized(text, want):
    """semver(s, true) tolerates a v prefix, short forms and leading zeros."""
    assert parse_normalized(text) == want


@pytest.mark.parametrize(("a", "b", "want"), [
    pytest.param("1.0.0", "1.0.0", 0, id="equal"),
    pytest.param("1.0.0", "1.0.1", -1, id="patch"),
    pytest.param("1.10.0", "1.9.0", 1, id="numeric-not-lexical"),
    pytest.param("1.0.0-alpha", "1.0.0", -1, id="prerelease-first"),
    pytest.param("1.0.0-alpha", "1.0.0-alpha.1", -1, id="shorter-first"),
    pytest.param("1.0.0-2", "1.0.0-10", -1, id="numeric-identifiers"),
    pytest.param("1.0.0-1", "1.0.0-a", -1, id="numeric-before-alphanumeric"),
    pytest.param("1.0.0-beta", "1.0.0-alpha", 1, id="lexical"),
])
def test_compare(a, b, want):
    """Precedence follows semver.org section 11."""
    assert compare(parse(a), parse(b)) == want
    assert compare(parse(b), parse(a)) == -want
