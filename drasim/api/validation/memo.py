"""Validation of sub-objects that repeat across a fleet, skipped when an equal one was valid.

A snapshot of 16,000 nodes holds 128,000 pods of a few specs and as many claims of one or two;
the API server validates each anew, and so does drasim — except that a part of the validation
that depends only on a sub-object (and the feature gates it reads) and found nothing wrong is
remembered by that sub-object's text (key_text), and skipped for an equal one. Only clean
results are remembered: an object with errors is always validated in full, so every error keeps
its own bad value. The text tells apart every JSON-shaped value (dict, list, str, int, float,
bool, None, with key order) — all that admission's strict decoding lets through to validation.
tests/unit/api/test_validation_memo.py proves the results equal with the memo on and off;
tests/unit/api/test_decodedjson.py the texts as discerning as repr.
"""
from __future__ import annotations

from typing import Callable

from drasim.api.decodedjson import json_key
from drasim.api.fielderrors import FieldError
from drasim.api.validation.resource import LIST_TYPE_ATTRIBUTES

ENABLED = True       # off: every part validated every time (the tests compare both)
MAX_ENTRIES = 10_000   # keys are texts of specs (a KiB or two): tens of MiB at most

_clean: set[tuple] = set()


key_text = json_key   # the inputs' text (drasim/api/decodedjson.py)


def validate(part: str, inputs: tuple, check: Callable[[list[FieldError]], None], errs: list[FieldError],
             text: bytes | str | tuple | None = None) -> None:
    """check(errors) appends the errors of one part of an object's validation; `inputs` is
    everything that part reads (sub-objects, path texts, flags). `text`: key_text(inputs), or
    any key that tells the inputs apart as well, when the caller has it already."""
    if not ENABLED:
        check(errs)
        return
    key = (part, LIST_TYPE_ATTRIBUTES.get(), key_text(inputs) if text is None else text)
    if key in _clean:
        return
    found: list[FieldError] = []
    check(found)
    if found:
        errs.extend(found)
        return
    if len(_clean) >= MAX_ENTRIES:
        _clean.clear()
    _clean.add(key)


def clear() -> None:
    _clean.clear()
