"""YAML documents to Python values, faster than PyYAML's constructor and equal to it.

PyYAML with libyaml parses and composes the node graph in C, then builds the values with
its pure-Python SafeConstructor, which is most of the time on large manifests (a
ResourceSlice with many devices). Kubernetes manifests use a small part of YAML: mappings,
sequences and plain or quoted scalars. This module builds those directly from the composed
nodes and hands every scalar tag other than `str` to SafeConstructor's own method, so the
values are the same (YAML 1.1 ints, floats, bools, nulls as PyYAML reads them), except that a
key repeated in one mapping is an error, as in Kubernetes, where PyYAML keeps the last. Anything
else — merge keys (`<<`), `!!set`, `!!omap`, custom tags — goes through SafeConstructor
for the whole document, errors included.
"""
from __future__ import annotations

import json
from collections.abc import Iterator

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_SCALAR_TAGS = frozenset({"tag:yaml.org,2002:null", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int",
                          "tag:yaml.org,2002:float", "tag:yaml.org,2002:binary",
                          "tag:yaml.org,2002:timestamp"})


class _Unsupported(Exception):
    """A node this builder leaves to SafeConstructor."""


class _Builder:
    __slots__ = ("loader", "scalar_ctors", "memo")

    def __init__(self, loader) -> None:
        self.loader = loader
        ctors = type(loader).yaml_constructors
        # Only tags this loader class resolves to (a loader may drop, e.g., timestamps).
        self.scalar_ctors = {tag: ctors[tag] for tag in _SCALAR_TAGS if tag in ctors}
        self.memo: dict[int, object] = {}   # anchors/aliases: one node, one value (as PyYAML)

    def build(self, node):
        if isinstance(node, ScalarNode):
            tag = node.tag
            if tag == _STR:
                return node.value
            ctor = self.scalar_ctors.get(tag)
            if ctor is None:
                raise _Unsupported
            return ctor(self.loader, node)
        key = id(node)
        if key in self.memo:
            return self.memo[key]
        if isinstance(node, MappingNode):
            if node.tag != _MAP:
                raise _Unsupported
            out: dict = {}
            self.memo[key] = out
            build = self.build
            for key_node, value_node in node.value:
                if key_node.tag == _STR and isinstance(key_node, ScalarNode):
                    k = key_node.value
                elif isinstance(key_node, ScalarNode) and key_node.tag in self.scalar_ctors:
                    k = build(key_node)
                else:
                    raise _Unsupported   # merge keys, complex keys: SafeConstructor's rules
                if k in out:
                    # Kubernetes' YAML reader refuses what PyYAML would overwrite silently
                    # (go-yaml via sigs.k8s.io/yaml: `key "name" already set in map`).
                    raise yaml.constructor.ConstructorError(
                        None, None, f"key {json.dumps(str(k))} already set in map", key_node.start_mark)
                out[k] = build(value_node)
            return out
        if isinstance(node, SequenceNode):
            if node.tag != _SEQ:
                raise _Unsupported
            items: list = []
            self.memo[key] = items
            build = self.build
            items.extend(build(n) for n in node.value)
            return items
        raise _Unsupported


def load_all(text: str, loader_class) -> Iterator[object]:
    """Like yaml.load_all(text, Loader=loader_class); raises the same yaml.YAMLError."""
    loader = loader_class(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            try:
                yield _Builder(loader).build(node)
            except _Unsupported:
                yield loader.construct_document(node)
    finally:
        loader.dispose()


def load(text: str, loader_class) -> object:
    """Like yaml.load(text, Loader=loader_class): the single document, None if empty."""
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        try:
            return _Builder(loader).build(node)
        except _Unsupported:
            return loader.construct_document(node)
    finally:
        loader.dispose()


__all__ = ["load", "load_all", "yaml"]
