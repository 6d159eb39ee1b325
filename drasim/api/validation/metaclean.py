"""A quick walk that says an object's metadata is clean: validate_object_meta's checks
without field paths or error values. Every object of a snapshot passes it; only the others
take the walk that finds and words the errors (common._object_meta_errors).
tests/unit/api/test_validation_metaclean.py proves both agree on mutated metadata."""
from __future__ import annotations

from datetime import datetime

from drasim.api.validation.common import (TOTAL_ANNOTATION_SIZE_LIMIT, byte_len, dns1123_label_clean,
                                          dns1123_subdomain_clean, is_dns1123_label, is_dns1123_subdomain,
                                          is_qualified_name, label_value_clean)

# Names are unique, so the name checks' caches miss for every object of a snapshot: for the two
# usual formats, "no messages" is read off the pattern (common.dns1123_subdomain_clean).
_NAME_IS_CLEAN = {is_dns1123_subdomain: dns1123_subdomain_clean, is_dns1123_label: dns1123_label_clean}
_GOOD_TIMES: set[str] = set()   # creationTimestamps that parsed: a snapshot repeats a few
_GOOD_TIMES_MAX = 10_000


def _string_map(meta: dict, key: str) -> list | None:
    """The (key, value or "") pairs of a map of strings; None when _string_map would report."""
    value = meta.get(key)
    if value is None:
        return []
    if not isinstance(value, dict):
        return None
    out = []
    for k, v in value.items():
        if not isinstance(k, str) or (v is not None and not isinstance(v, str)):
            return None
        out.append((k, v or ""))
    return out


def _time_ok(created: str) -> bool:
    """Whether a creationTimestamp parses (RFC 3339, as _object_meta_errors reads it); the
    ones that did are remembered."""
    if created in _GOOD_TIMES:
        return True
    try:
        datetime.fromisoformat(created[:-1] + "+00:00" if created[-1:] in ("Z", "z") else created)
    except ValueError:
        return False
    if len(_GOOD_TIMES) >= _GOOD_TIMES_MAX:
        _GOOD_TIMES.clear()
    _GOOD_TIMES.add(created)
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
    labels = _string_map(meta, "labels")
    if labels is None or any(is_qualified_name(k) or not label_value_clean(v) for k, v in labels):
        return False
    annotations = _string_map(meta, "annotations")
    if annotations is None or any(is_qualified_name(k.lower()) for k, _ in annotations):
        return False
    return sum(byte_len(k) + byte_len(v) for k, v in annotations) <= TOTAL_ANNOTATION_SIZE_LIMIT
