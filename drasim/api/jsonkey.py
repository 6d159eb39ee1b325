"""A text that tells decoded API values apart as their repr does, written by orjson.

Caches keyed by the content of a sub-object (a pod spec, a claim spec) need a text that differs
whenever the values differ: repr gives one, but writes a pod spec in some twelve microseconds;
orjson in under one. Both tell apart every JSON-shaped value (dict with its key order, list, str,
int, float, bool, None): orjson writes 1, 1.0, True and "1" apart. It writes NaN and the
infinities as null, but decoded objects hold none — strict decoding refuses them everywhere,
free-form fields included (drasim/api/decode.py `_ok_raw`); tests/unit/api/test_validation_memo.py
holds the texts to repr's and the decoder to that rule. Where orjson cannot write a value
(integers past 64 bits, keys that are not strings) the text is repr's.
"""
from __future__ import annotations

import orjson


def json_key(value) -> bytes | str:
    try:
        return orjson.dumps(value)
    except TypeError:
        return repr(value)
