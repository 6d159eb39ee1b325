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

from drasim.api.nesting import MAX_DEPTH, YAML_DEPTH_PROBLEM

_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_SCALAR_TAGS = frozenset({"tag:yaml.org,2002:null", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int",
                          "tag:yaml.org,2002:float", "tag:yaml.org,2002:binary",
                          "tag:yaml.org,2002:timestamp"})


def _allow_go_yaml_depth() -> None:
    """libyaml (0.2.5+) refuses more than 1,000 levels; go-yaml allows 10,000. Raise libyaml's
    process-wide limit through its exported setter (PyYAML does not wrap it); the builder below
    enforces 10,000 itself, counted as Go counts it. Without libyaml, nothing to do."""
    try:
        import ctypes

        import yaml._yaml as cyaml
        setter = ctypes.CDLL(cyaml.__file__).yaml_set_max_nest_level
    except (ImportError, OSError, AttributeError):
        return
    setter.argtypes = [ctypes.c_int]
    setter(MAX_DEPTH)   # libyaml then refuses flow level 10,001 as go-yaml does


_allow_go_yaml_depth()


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
        """The node's value, built with an explicit stack (go-yaml's 10,000 levels fit)."""
        if isinstance(node, ScalarNode):
            return self._scalar(node)
        memo = self.memo
        root = self._open(node, 1)
        if not isinstance(root, _Pending):
            return root
        stack = [root]
        while stack:
            top = stack[-1]
            if top.index == len(top.node.value):
                stack.pop()
                continue
            item = top.node.value[top.index]
            top.index += 1
            if top.is_map:
                key_node, value_node = item
                k = self._key(key_node)
                if k in top.value:
                    # Kubernetes' YAML reader refuses what PyYAML would overwrite silently
                    # (go-yaml via sigs.k8s.io/yaml: `key "name" already set in map`).
                    raise yaml.constructor.ConstructorError(
                        None, None, f"key {json.dumps(str(k))} already set in map", key_node.start_mark)
            else:
                value_node = item
            if isinstance(value_node, ScalarNode):
                v = self._scalar(value_node)
            elif id(value_node) in memo:
                v = memo[id(value_node)]
            else:
                child = self._open(value_node, len(stack) + 1)
                if isinstance(child, _Pending):
                    stack.append(child)
                    v = child.value
                else:
                    v = child
            if top.is_map:
                top.value[k] = v
            else:
                top.value.append(v)
        return root.value

    def _scalar(self, node):
        tag = node.tag
        if tag == _STR:
            return node.value
        ctor = self.scalar_ctors.get(tag)
        if ctor is None:
            raise _Unsupported
        return ctor(self.loader, node)

    def _key(self, key_node):
        if isinstance(key_node, ScalarNode):
            if key_node.tag == _STR:
                return key_node.value
            if key_node.tag in self.scalar_ctors:
                return self._scalar(key_node)
        raise _Unsupported   # merge keys, complex keys: SafeConstructor's rules

    def _open(self, node, level: int):
        """A collection's (still empty) value, remembered for aliases, as a _Pending to fill."""
        key = id(node)
        if key in self.memo:
            return self.memo[key]
        if level > MAX_DEPTH:
            # k8s: go-yaml's scanner (flow level / indents) and then encoding/json refuse more.
            raise yaml.MarkedYAMLError(None, None, YAML_DEPTH_PROBLEM, node.start_mark)
        if isinstance(node, MappingNode):
            if node.tag != _MAP:
                raise _Unsupported
            pending = _Pending(node, {}, True)
        elif isinstance(node, SequenceNode):
            if node.tag != _SEQ:
                raise _Unsupported
            pending = _Pending(node, [], False)
        else:
            raise _Unsupported
        self.memo[key] = pending.value
        return pending


class _Pending:
    """A mapping or sequence being filled: its node, its value, how far its children got."""

    __slots__ = ("node", "value", "is_map", "index")

    def __init__(self, node, value, is_map: bool) -> None:
        self.node, self.value, self.is_map, self.index = node, value, is_map, 0


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
