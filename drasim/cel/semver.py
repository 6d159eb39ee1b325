"""Semantic versions as Kubernetes' CEL semver library sees them.

k8s: staging/src/k8s.io/apiserver/pkg/cel/library/semverlib.go (version 1), which parses
with github.com/blang/semver/v4. The error texts below are blang's, because they reach
users verbatim ("attribute cuda: parse semantic version: ..." or a CEL runtime error).

A version is (major, minor, patch, pre); build metadata is parsed and validated but
dropped, because blang's Compare (and so CEL equality) ignores it.
"""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

_DIGITS = frozenset("0123456789")
_ALNUM = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-")
_UINT64_MAX = 2**64 - 1


class SemverError(ValueError):
    """Not a semantic version; the message is blang/semver's."""


class Version(NamedTuple):
    major: int
    minor: int
    patch: int
    pre: tuple[int | str, ...] = ()

    def __str__(self) -> str:
        core = f"{self.major}.{self.minor}.{self.patch}"
        return core + ("-" + ".".join(str(p) for p in self.pre) if self.pre else "")


def _parse_number(text: str, what: str) -> int:
    if any(c not in _DIGITS for c in text):
        raise SemverError(f'Invalid character(s) found in {what} number "{text}"')
    if len(text) > 1 and text[0] == "0":
        raise SemverError(f'{what.capitalize()} number must not contain leading zeroes "{text}"')
    if not text:  # Go's strconv.ParseUint on an empty string
        raise SemverError('strconv.ParseUint: parsing "": invalid syntax')
    value = int(text)
    if value > _UINT64_MAX:
        raise SemverError(f'strconv.ParseUint: parsing "{text}": value out of range')
    return value


def _parse_pre(text: str) -> int | str:
    if not text:
        raise SemverError("Prerelease is empty")
    if all(c in _DIGITS for c in text):
        if len(text) > 1 and text[0] == "0":
            raise SemverError(f'Numeric PreRelease version must not contain leading zeroes "{text}"')
        return int(text)
    if all(c in _ALNUM for c in text):
        return text
    raise SemverError(f'Invalid character(s) found in prerelease "{text}"')


@lru_cache(maxsize=4096)
def parse(text: str) -> Version:
    """Strict parse, as blang semver.Parse."""
    if not text:
        raise SemverError("Version string empty")
    parts = text.split(".", 2)
    if len(parts) != 3:
        raise SemverError("No Major.Minor.Patch elements found")
    major = _parse_number(parts[0], "major")
    minor = _parse_number(parts[1], "minor")
    rest, build = parts[2], None
    if "+" in rest:
        rest, build = rest.split("+", 1)
    pre_text = None
    if "-" in rest:
        rest, pre_text = rest.split("-", 1)
    patch = _parse_number(rest, "patch")
    pre = tuple(_parse_pre(p) for p in pre_text.split(".")) if pre_text is not None else ()
    if build is not None:
        for item in build.split("."):
            if not item:
                raise SemverError("Build meta data is empty")
            if any(c not in _ALNUM for c in item):
                raise SemverError(f'Invalid character(s) found in build meta data "{item}"')
    return Version(major, minor, patch, pre)


def parse_normalized(text: str) -> Version:
    """semver(s, true): drop a "v" prefix, strip leading zeros, fill in short forms.

    k8s: semverlib.go normalizeAndParse.
    """
    if text.startswith("v"):
        text = text[1:]
    parts = text.split(".", 2)
    for i, part in enumerate(parts):
        if len(part) > 1:
            part = part.lstrip("0")
            if not part or part[0] not in _DIGITS:
                part = "0" + part
            parts[i] = part
    if len(parts) < 3:
        if "+" in parts[-1] or "-" in parts[-1]:
            raise SemverError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return parse(".".join(parts))


def _compare_pre(a: tuple[int | str, ...], b: tuple[int | str, ...]) -> int:
    if not a or not b:  # a release sorts after any of its pre-releases
        return (not a) - (not b)
    for x, y in zip(a, b):
        if x == y:
            continue
        if isinstance(x, int) != isinstance(y, int):
            return -1 if isinstance(x, int) else 1  # numeric identifiers sort first
        return -1 if x < y else 1  # type: ignore[operator]
    return (len(a) > len(b)) - (len(a) < len(b))


def compare(a: Version, b: Version) -> int:
    """-1, 0 or 1, by semver precedence (blang Version.Compare)."""
    if a[:3] != b[:3]:
        return -1 if a[:3] < b[:3] else 1
    return _compare_pre(a.pre, b.pre)
