"""Deeply nested manifests: the readers' limits, and walkers that do not recurse.

Kubernetes reads manifests with go-yaml and Go's encoding/json, both of which accept 10,000
levels of nesting and refuse more: go-yaml's scanner says `exceeded max depth of 10000`
(go.yaml.in/yaml scannerc.go, max_flow_level / max_indents), encoding/json says `invalid
character '[' exceeded max nesting depth` (encoding/json scanner.go, maxNestingDepth). YAML
goes through JSON on its way in (sigs.k8s.io/yaml), so a YAML document is held to both.

Python's own readers stop far earlier (libyaml at 1,000 levels, the json module and any
recursive walker at the interpreter's recursion limit), so the values are built here without
recursion; `MAX_DEPTH` is counted as Go counts it: one level per object or array.
"""
from __future__ import annotations

import json
import re
from json.decoder import scanstring

MAX_DEPTH = 10_000
YAML_DEPTH_PROBLEM = f"exceeded max depth of {MAX_DEPTH}"   # go-yaml's words


class TooDeep(ValueError):
    """Nesting beyond MAX_DEPTH; `offset` is the character where the limit was crossed."""

    def __init__(self, offset: int | None, char: str) -> None:
        super().__init__(f"invalid character {char!r} exceeded max nesting depth")   # Go's words
        self.offset = offset


def _clone(value):
    if isinstance(value, dict):
        return {k: _clone(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clone(v) for v in value]
    return value


def clone(value):
    """Deep copy of JSON-shaped data; much faster than copy.deepcopy. Recursive (the fast way)
    up to the interpreter's limit, then with an explicit stack: manifests may nest 10,000 deep."""
    try:
        return _clone(value)
    except RecursionError:
        return clone_deep(value)


def clone_deep(value):
    """Deep copy of JSON-shaped data with an explicit stack (any depth)."""
    if not isinstance(value, (dict, list)):
        return value
    root = {} if isinstance(value, dict) else []
    stack = [(value, root)]
    while stack:
        src, dst = stack.pop()
        if isinstance(src, dict):
            for k, v in src.items():
                if isinstance(v, (dict, list)):
                    child = {} if isinstance(v, dict) else []
                    stack.append((v, child))
                    dst[k] = child
                else:
                    dst[k] = v
        else:
            for v in src:
                if isinstance(v, (dict, list)):
                    child = {} if isinstance(v, dict) else []
                    stack.append((v, child))
                    dst.append(child)
                else:
                    dst.append(v)
    return root


def check_json_depth(text: str, value) -> None:
    """Raise TooDeep if a value json.loads read from `text` nests deeper than Go reads.
    Counting brackets first keeps the walk off ordinary manifests."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    try:
        if _within_max_depth(value, 1):
            return
    except RecursionError:
        pass   # deeper than this thread's recursion limit allows: the explicit stack below decides
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (dict, list)):
            if d > MAX_DEPTH:
                raise TooDeep(None, "{" if isinstance(v, dict) else "[")
            stack.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))


def _within_max_depth(value, level: int) -> bool:
    """Whether no object or array nests deeper than MAX_DEPTH, visiting containers only, by
    recursion (5x faster than the explicit stack on a large snapshot's millions of scalars)."""
    if level > MAX_DEPTH:
        return False
    for x in (value.values() if value.__class__ is dict else value):
        c = x.__class__
        if (c is dict or c is list) and not _within_max_depth(x, level + 1):
            return False
    return True


def depth(value) -> int:
    """Levels of objects and arrays (a scalar is 0, `[]` is 1), without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            deepest = max(deepest, d)
            stack.extend((x, d + 1) for x in v.values())
        elif isinstance(v, list):
            deepest = max(deepest, d)
            stack.extend((x, d + 1) for x in v)
    return deepest


# -- JSON without recursion ------------------------------------------------------------

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_LITERALS = {"true": True, "false": False, "null": None}


def loads_deep(text: str):
    """json.loads for documents too deep for the json module: same values, Go's depth limit.

    Raises json.JSONDecodeError for bad syntax and TooDeep beyond MAX_DEPTH. Only used when
    json.loads gave up (RecursionError), so speed matters less than not recursing."""
    pos = _WS.match(text, 0).end()
    stack: list = []          # open containers; for a dict, the pending key is kept alongside
    keys: list = []
    value, pos = _scalar_or_open(text, pos, stack, keys)
    while stack:
        pos = _WS.match(text, pos).end()
        container = stack[-1]
        if value is not _OPEN:
            if isinstance(container, dict):
                container[keys[-1]] = value
            else:
                container.append(value)
            char = text[pos:pos + 1]
            if char == ",":
                pos = _WS.match(text, pos + 1).end()
                if isinstance(container, dict):
                    pos = _key(text, pos, keys)
                value, pos = _scalar_or_open(text, pos, stack, keys)
                continue
            closer = "}" if isinstance(container, dict) else "]"
            if char != closer:
                raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)
            pos += 1
            value = stack.pop()
            if isinstance(container, dict):
                keys.pop()
            continue
        # A container was just opened: empty, or its first entry.
        closer = "}" if isinstance(container, dict) else "]"
        if text[pos:pos + 1] == closer:
            value = stack.pop()
            if isinstance(container, dict):
                keys.pop()
            pos += 1
            continue
        if isinstance(container, dict):
            pos = _key(text, pos, keys)
        value, pos = _scalar_or_open(text, pos, stack, keys)
    end = _WS.match(text, pos).end()
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return value


_OPEN = object()


def _key(text: str, pos: int, keys: list) -> int:
    if text[pos:pos + 1] != '"':
        raise json.JSONDecodeError("Expecting property name enclosed in double quotes", text, pos)
    key, pos = scanstring(text, pos + 1)
    pos = _WS.match(text, pos).end()
    if text[pos:pos + 1] != ":":
        raise json.JSONDecodeError("Expecting ':' delimiter", text, pos)
    keys[-1] = key
    return _WS.match(text, pos + 1).end()


def _scalar_or_open(text: str, pos: int, stack: list, keys: list):
    char = text[pos:pos + 1]
    if char in ("{", "["):
        if len(stack) >= MAX_DEPTH:
            raise TooDeep(pos, char)
        if char == "{":
            stack.append({})
            keys.append(None)
        else:
            stack.append([])
        return _OPEN, pos + 1
    if char == '"':
        return scanstring(text, pos + 1)
    for word, val in _LITERALS.items():
        if text.startswith(word, pos):
            return val, pos + len(word)
    m = _NUMBER.match(text, pos)
    if m:
        s = m.group()
        return (float(s) if any(c in s for c in ".eE") else int(s)), m.end()
    raise json.JSONDecodeError("Expecting value", text, pos)


# -- everything else: room to recurse ------------------------------------------------------

# Recursive walkers elsewhere (defaulting, validation, schema, rendering, json.dumps) take a
# few Python frames and C frames per level. Measured on 10,000-level opaque parameters
# (tests/unit/api/test_nesting.py): the deepest path needs about 3 frames per level and well
# under 64 MiB of C stack; these leave ample margin.
RECURSION_LIMIT = 20 * MAX_DEPTH + 1_000
STACK_BYTES = 512 * 1024 * 1024


def run_with_room(fn, *args):
    """fn(*args) in a thread whose stack and recursion limit fit MAX_DEPTH-deep values, so
    nothing on the way from the reader to the output stops at Python's default 1,000 levels.
    Returns its result or raises its exception. The stack is reserved address space; only the
    pages a deep input touches are used."""
    import sys
    import threading

    outcome: dict = {}

    def body() -> None:
        try:
            outcome["result"] = fn(*args)
        except BaseException as e:   # handed to the caller's thread as is
            outcome["error"] = e

    old_limit = sys.getrecursionlimit()
    old_stack = threading.stack_size()
    try:
        threading.stack_size(STACK_BYTES)
    except (ValueError, RuntimeError):   # a platform that will not: run here, default limits
        return fn(*args)
    try:
        worker = threading.Thread(target=body, name="drasim", daemon=True)
        sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
        worker.start()
    finally:
        threading.stack_size(old_stack)
    try:
        worker.join()
    finally:
        sys.setrecursionlimit(old_limit)
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("result")


# -- writing JSON at any depth -----------------------------------------------------------------

def _float_text(f: float) -> str:
    if f != f:
        return "NaN"
    if f in (float("inf"), float("-inf")):
        return "Infinity" if f > 0 else "-Infinity"
    return float.__repr__(f)


def dumps_indented(value, indent: int = 2) -> str:
    """Exactly json.dumps(value, indent=indent), written with an explicit stack.

    json.dumps with an indent runs the json module's Python encoder, whose nested generators
    make a document d levels deep cost d² steps (5,000 levels: 18 s); this is linear."""
    from json.encoder import encode_basestring_ascii as quote

    out: list[str] = []
    write = out.append

    def scalar(v) -> str:
        if isinstance(v, str):
            return quote(v)
        if v is None:
            return "null"
        if v is True:
            return "true"
        if v is False:
            return "false"
        if isinstance(v, int):
            return int.__repr__(v)
        if isinstance(v, float):
            return _float_text(v)
        raise TypeError(f"Object of type {type(v).__name__} is not JSON serializable")

    # Each frame: (iterator over entries, is_map, level, first?) ; entries are written as met.
    def open_(v, level):
        if isinstance(v, dict):
            if not v:
                write("{}")
                return None
            write("{")
            return [iter(v.items()), True, level + 1, True]
        if not v:
            write("[]")
            return None
        write("[")
        return [iter(v), False, level + 1, True]

    if not isinstance(value, (dict, list)):
        return scalar(value)
    stack = [open_(value, 0)]
    if stack[0] is None:
        return "".join(out)
    while stack:
        frame = stack[-1]
        entry = next(frame[0], _END)
        if entry is _END:
            stack.pop()
            write("\n" + " " * (indent * (frame[2] - 1)) + ("}" if frame[1] else "]"))
            continue
        write(("\n" if frame[3] else ",\n") + " " * (indent * frame[2]))
        frame[3] = False
        if frame[1]:
            k, v = entry
            if not isinstance(k, str):   # json.dumps' key rules
                k = "true" if k is True else "false" if k is False else "null" if k is None \
                    else _float_text(k) if isinstance(k, float) else int.__repr__(k)
            write(quote(k) + ": ")
        else:
            v = entry
        if isinstance(v, (dict, list)):
            child = open_(v, frame[2])
            if child is not None:
                stack.append(child)
        else:
            write(scalar(v))
    return "".join(out)


_END = object()
