"""A quick walk that says an object's metadata is clean: validate_object_meta's checks
without field paths or error values. Every object of a snapshot passes it; only the others
take the walk that finds and words the errors (common._object_meta_errors).
tests/unit/api/test_validation_metaclean.py proves both agree on mutated metadata."""
from __future__ import annotations

from datetime import datetime

from drasim.api.passed import Passed
from drasim.api.validation.common import (TOTAL_ANNOTATION_SIZE_LIMIT, byte_len, dns1123_label_clean,
                                          dns1123_subdomain_clean, is_dns1123_label, is_dns1123_subdomain,
                                          is_qualified_name, label_value_clean)

# Names are unique, so the name checks' caches miss for every object of a snapshot: for the two
# usual formats, "no messages" is read off the pattern (common.dns1123_subdomain_clean).
_NAME_IS_CLEAN = {is_dns1123_subdomain: dns1123_subdomain_clean, is_dns1123_label: dns1123_label_clean}
_GOOD_TIMES = Passed(10_000)   # creationTimestamps that parsed: a snapshot repeats a few


def _time_ok(created: str) -> bool:
    """Whether a creationTimestamp parses (RFC 3339, as _object_meta_errors reads it); the
    ones that did are remembered."""
    if created in _GOOD_TIMES:
        return True
    try:
        datetime.fromisoformat(created[:-1] + "+00:00" if created[-1:] in ("Z", "z") else created)
    except ValueError:
        return False
    _GOOD_TIMES.remember(created)
    return True


def clean(obj: dict, namespaced: bool, name_fn) -> bool:
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return False   # missing metadata has no name: an error too
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        return False
    quick = _NAME_IS_CLEAN.get(name_fn)
    if not quick(name) if quick is not None else name_fn(name):
        return False
    namespace = meta.get("namespace")
    if namespace is not None and not isinstance(namespace, str):
        return False
    if namespaced:
        if not namespace or is_dns1123_label(namespace):
            return False
    elif namespace:
        return False
    created = meta.get("creationTimestamp")
    if created is not None and not (isinstance(created, str) and _time_ok(created)):
        return False
    generation = meta.get("generation")
    if generation is not None:
        if isinstance(generation, float) and generation.is_integer():
            generation = int(generation)
        elif not isinstance(generation, int) or isinstance(generation, bool):
            return False
        if generation < 0:
            return False
    return _labels_clean(meta.get("labels")) and _annotations_clean(meta.get("annotations"))


# Label keys and values and annotation keys that passed, remembered (a fleet's objects share
# them); a value the set does not hold is checked, as _string_map and the checks above did.
_GOOD_LABEL_KEYS = Passed(10_000)
_GOOD_LABEL_VALUES = Passed(10_000)
_GOOD_ANNOTATION_KEYS = Passed(10_000)


def _labels_clean(labels) -> bool:
    if labels is None:
        return True
    if labels.__class__ is not dict:
        return False
    for k, v in labels.items():
        if k not in _GOOD_LABEL_KEYS:
            if not isinstance(k, str) or is_qualified_name(k):
                return False
            _GOOD_LABEL_KEYS.remember(k)
        if v is None:
            v = ""
        elif v.__class__ is not str:   # unhashable, maybe: not looked up
            return False
        if v not in _GOOD_LABEL_VALUES:
            if not label_value_clean(v):
                return False
            _GOOD_LABEL_VALUES.remember(v)
    return True


def _annotations_clean(annotations) -> bool:
    if annotations is None:
        return True
    if annotations.__class__ is not dict:
        return False
    size = 0
    for k, v in annotations.items():
        if k not in _GOOD_ANNOTATION_KEYS:
            if not isinstance(k, str) or is_qualified_name(k.lower()):
                return False
            _GOOD_ANNOTATION_KEYS.remember(k)
        if v is None:
            v = ""
        elif v.__class__ is not str:
            return False
        size += byte_len(k) + byte_len(v)
    return size <= TOTAL_ANNOTATION_SIZE_LIMIT
