"""orjson's speed for decoded API values: content keys and deep copies.

Decoded objects (what strict decoding let through: drasim/api/decode.py) hold only what JSON
can write — dicts with string keys, lists, str, int, float, bool, None — and no NaN or infinity,
which decoding refuses everywhere, free-form fields included (`_ok_raw`). For such values orjson
writes a text that tells apart exactly what repr tells apart (1, 1.0, True and "1" apart, key
order kept), in a microsecond where repr takes ten, and reads it back as an equal deep copy in
half the time of a Python walk. Where orjson cannot write a value (integers past 64 bits, keys
that are not strings, strings that are not valid UTF-8, nesting past 255 levels) both fall
back to the slow way.
tests/unit/api/test_decodedjson.py holds both to repr and clone, and decode to the no-NaN rule.
"""
from __future__ import annotations

import orjson

from drasim.api.nesting import clone_deep


def json_key(value) -> bytes | str:
    """A text equal for two decoded values exactly when their reprs are equal."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return repr(value)


def copy_decoded(value):
    """A deep copy of a decoded value, equal to it (and to drasim.store.clone's copy)."""
    try:
        return orjson.loads(orjson.dumps(value))
    except TypeError:   # also orjson's depth limit (255): manifests may nest deeper
        return clone_deep(value)
