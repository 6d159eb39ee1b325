"""The fast JSON reader (msgspec) gives exactly what the json module path gives, or steps aside.

loader._load_json reads with msgspec and falls back to loader._load_json_slow (json.loads held
to Go's rules) for whatever msgspec refuses. Equal here means equal values
of equal types (1, 1.0 and True are different; so are 0.0 and -0.0) in equal key order, or the
same error, on generated documents, on their mutations and on the corner cases Go cares about.
"""
import json
import math

import orjson
import pytest
from hypothesis import given, settings, strategies as st

from drasim.api import loader, nesting


def typed(value):
    """A value with every type made visible, for comparisons where 1 == 1.0 == True will not do."""
    if isinstance(value, dict):
        return ("dict", [(k, typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [typed(v) for v in value])
    if isinstance(value, float):
        return ("float", "nan" if math.isnan(value) else repr(value))
    return (type(value).__name__, value)


def outcome(read, text: str):
    try:
        return ("value", typed(read(text)))
    except (ValueError, RecursionError) as e:   # JSONDecodeError, TooDeep, _NotJSON
        return ("error", type(e).__name__, str(e), getattr(e, "offset", None))


def same_as_slow_path(text: str) -> None:
    assert outcome(loader._load_json, text) == outcome(loader._load_json_slow, text)


scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                    st.integers(-2**64 - 10, 2**64 + 10).filter(lambda i: abs(i) > 2**62),
                    st.floats(allow_nan=False, allow_infinity=False), st.floats(width=32),
                    st.text(max_size=6), st.sampled_from(["\u2028", "é", "\U0001f600", "\x00", "\x1f", '"\\']))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=4)), max_leaves=25)


@settings(max_examples=400, deadline=None)
@given(values, st.sampled_from(["compact", "indent", "ascii", "orjson"]))
def test_generated_documents_read_alike(value, style):
    if style == "orjson":
        try:
            text = orjson.dumps(value).decode()
        except (orjson.JSONEncodeError, UnicodeDecodeError):
            return   # big ints, surrogates: orjson does not write them; the other styles do
    else:
        text = json.dumps(value, indent=2 if style == "indent" else None, ensure_ascii=style == "ascii")
    same_as_slow_path(text)


json_tokens = st.sampled_from(['{', '}', '[', ']', ',', ':', '"a"', '"a"', '1', '-0', '1.5e3', '1E400', '-1e-400',
                               '12345678901234567890', '9223372036854775808', '-9223372036854775809',
                               '18446744073709551616', 'NaN', '-Infinity', 'Infinity', 'true', 'null', 'nul',
                               '"\\ud800"', '"\\udc00\\ud800"', '"\\u0041"', '"\\x"', ' ', '\t', '\n', '\r',
                               '\ufeff', '\x0b', '\u00a0', '"\x01"', '01', '1.', '.5', '+1', '0x1', '"', "'a'"])


@settings(max_examples=600, deadline=None)
@given(st.lists(json_tokens, max_size=14))
def test_token_soup_reads_alike(tokens):
    """Mostly invalid texts: both refuse them with the same words, or both read the same value."""
    same_as_slow_path("".join(tokens))


@settings(max_examples=300, deadline=None)
@given(values, st.integers(0, 10_000), st.sampled_from(["", "x", ",", "}", "]", '"', "\\", "NaN", "0" * 20, " "]),
       st.integers(0, 3))
def test_mutated_documents_read_alike(value, at, insert, cut):
    text = json.dumps(value)
    at %= len(text) + 1
    same_as_slow_path(text[:at] + insert + text[at + cut:])


@pytest.mark.parametrize("text", [
    '{"a": 1, "b": 2, "a": 3}',                       # a repeated key: the last wins, in the first's place
    '123456789012345678901234567890', '-9223372036854775809', '18446744073709551615', '18446744073709551616',
    '[1.0, -0.0, 0, -0, 1e2, 1E400, -1e400, 5e-324, 1e-400, 0.1, 2.5e-5]',
    '[NaN]', '[Infinity]', '[-Infinity]', '"\\ud800"', '"\\ud83d\\ude00"', '\ufeff{}', '{} ', ' \t\r\n[]',
    '[1,]', '{"a":1,}', '"\x7f"', '"\x1f"', '', '   ', '{"a" 1}', '[1] [2]',
    "[" * 1025 + "]" * 1025, "[" * nesting.MAX_DEPTH + "]" * nesting.MAX_DEPTH,
    "[" * (nesting.MAX_DEPTH + 1) + "]" * (nesting.MAX_DEPTH + 1),
])
def test_go_corner_cases_read_alike(text):
    same_as_slow_path(text)


def test_the_fast_path_is_taken_for_ordinary_documents():
    """Not vacuous: ordinary manifests are read by msgspec (long integers too: it reads them
    exactly), odd ones are left to the json module."""
    assert loader._load_json_fast('{"kind": "Pod", "n": [1, 2.5, null, true]}') == {"kind": "Pod", "n": [1, 2.5, None, True]}
    assert loader._load_json_fast('[123456789012345678901234567890]') == [123456789012345678901234567890]
    for odd in ('[NaN]', '"\\ud800"', '[1e400]', '\ufeff[]', "[" * 2000 + "]" * 2000):
        assert loader._load_json_fast(odd) is loader._SLOW


number_literals = st.builds(
    lambda sign, whole, frac, exp: sign + whole + frac + exp,
    st.sampled_from(["", "-"]),
    st.one_of(st.just("0"), st.from_regex(r"[1-9][0-9]{0,40}", fullmatch=True)),
    st.one_of(st.just(""), st.from_regex(r"\.[0-9]{1,40}", fullmatch=True)),
    st.one_of(st.just(""), st.from_regex(r"[eE][+-]?[0-9]{1,4}", fullmatch=True)))


@settings(max_examples=600, deadline=None)
@given(number_literals)
def test_number_literals_read_alike(literal):
    """Long mantissas, big and tiny exponents, halfway cases: the same int or the same correctly
    rounded float (or both step aside: beyond float64)."""
    same_as_slow_path(f"[{literal}, {{\"n\": {literal}}}]")


# -- .json files read as bytes (loader._parse_json_file) -----------------------------------
import re
import sys
import tempfile
from pathlib import Path

from drasim.errors import ManifestError


def file_outcome(read, data: bytes):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "snapshot.json"
        path.write_bytes(data)
        try:
            return ("value", typed(read(path)))
        except ManifestError as e:
            return ("refused", str(e).replace(folder, "DIR"))


def text_path_value(path):
    """What a .json file gave before it was read as bytes: decoded, then _parse's text path."""
    values, is_json = loader._parse(path, loader._read(path))
    assert is_json
    return values


def same_file_outcome(data: bytes) -> None:
    assert file_outcome(loader._parse_json_file, data) == file_outcome(text_path_value, data)


@settings(max_examples=300, deadline=None)
@given(values, st.integers(0, 10_000), st.sampled_from([b"", b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xef\xbb\xbf",
                                                        b"\x00", b"9" * 19, b"NaN", b"}", b'"', b"\\u", b"\xe2\x80\xa8"]),
       st.integers(0, 3), st.booleans())
def test_json_files_read_as_bytes_alike(value, at, insert, cut, ascii_only):
    """Generated documents, their byte mutations (invalid UTF-8, BOMs, long digit runs, broken
    syntax): the bytes path gives the text path's values, or refuses with its words."""
    data = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    at %= len(data) + 1
    same_file_outcome(data[:at] + insert + data[at + cut:])


@pytest.mark.parametrize("data", [
    b'\xef\xbb\xbf{"a": 1}', b'{"a": "\xff"}', b'{"a": "\xed\xa0\x80"}', b"[12345678901234567890]",
    b"[NaN]", b"", b"[" * 1025 + b"]" * 1025, b"[" * (nesting.MAX_DEPTH + 1) + b"]" * (nesting.MAX_DEPTH + 1),
    b'{"kind": "List", "items": [{"a": 1}]}', b'{"a": 1}\n{"b": 2}', b'"\\ud800"',
])
def test_json_file_corner_cases_read_alike(data):
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(10_000)   # typed() walks 1,025 levels
    try:
        same_file_outcome(data)
    finally:
        sys.setrecursionlimit(limit)


def test_a_json_fifo_is_read_not_mapped(tmp_path):
    """A FIFO (or pipe) named .json cannot be mapped: it is read, once, as before."""
    import os
    import threading
    fifo = tmp_path / "piped.json"
    os.mkfifo(fifo)
    text = json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}})
    writer = threading.Thread(target=lambda: fifo.write_text(text))
    writer.start()
    docs = loader.load_file(fifo)
    writer.join()
    assert [d.obj for d in docs] == [json.loads(text)]


def test_a_mapped_file_is_closed_after_reading(tmp_path, monkeypatch):
    """Files are mapped, and the map is closed whether the file parses or is refused (a view
    left open would make closing it fail)."""
    maps = []
    real = loader.mmap.mmap

    def tracked(*args, **kwargs):
        maps.append(real(*args, **kwargs))
        return maps[-1]

    monkeypatch.setattr(loader.mmap, "mmap", tracked)
    path = tmp_path / "a.json"
    path.write_bytes(b'{"a": [1, 2]}')
    assert loader._parse_json_file(path) == [{"a": [1, 2]}]
    path.write_bytes(b'{"a": ')
    with pytest.raises(ManifestError, match="invalid JSON"):
        loader._parse_json_file(path)
    assert len(maps) == 2 and all(m.closed for m in maps)


def test_deep_documents_are_left_to_the_json_module_even_with_room_to_recurse():
    """The CLI runs with a recursion limit far past Go's 10,000 levels (nesting.run_with_room);
    msgspec would read 10,001 levels there, so the fast reader is held to _FAST_DEPTH and the
    recursion limit is as it was afterwards."""
    deep = "[" * (loader._FAST_DEPTH + 10) + "]" * (loader._FAST_DEPTH + 10)
    shallow = "[" * 500 + "]" * 500

    def read():
        limit = sys.getrecursionlimit()
        out = loader._load_json_fast(deep) is loader._SLOW, loader._load_json_fast(shallow) is not loader._SLOW
        return out + (sys.getrecursionlimit() == limit,)

    assert nesting.run_with_room(read) == (True, True, True)
