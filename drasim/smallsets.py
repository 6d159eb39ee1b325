"""Indexes from a key to a small set of values, most of them holding one value.

The controllers' and kubelets' informer-style indexes (pod uid -> claims it owns, owner uid ->
dependents, device -> slices) map nearly every key to exactly one value: a set per key costs
~200 bytes and a set construction per insert, a snapshot of a large fleet has hundreds of
thousands of them. Here a key with one value holds that value itself and one with several holds
a set, so an insert into a fresh key is a dict store. Values must be hashable and never sets.
"""
from __future__ import annotations

from typing import Hashable, Iterable, MutableMapping

_EMPTY: tuple = ()


def add(index: MutableMapping, key: Hashable, value: Hashable) -> None:
    held = index.get(key)
    if held is None:
        index[key] = value
    elif type(held) is set:
        held.add(value)
    elif held != value:
        index[key] = {held, value}


def discard(index: MutableMapping, key: Hashable, value: Hashable) -> None:
    """Remove value from key's values; a key left without values is dropped."""
    held = index.get(key)
    if held is None:
        return
    if type(held) is set:
        held.discard(value)
        if len(held) == 1:   # a set holds two values or more
            index[key] = next(iter(held))
    elif held == value:
        del index[key]


def values(index: MutableMapping, key: Hashable) -> Iterable:
    """key's values (a set, or a 1-tuple): empty when the key has none."""
    held = index.get(key)
    if held is None:
        return _EMPTY
    return held if type(held) is set else (held,)


def pop(index: MutableMapping, key: Hashable) -> Iterable:
    held = index.pop(key, None)
    if held is None:
        return _EMPTY
    return held if type(held) is set else (held,)
