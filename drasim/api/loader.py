"""Reading manifests: YAML and JSON files, multi-document files, folders and `kind: List`.

Everything `kubectl apply -f` accepts, including `kubectl get ... -o yaml`
output, so a user can snapshot a live cluster and simulate on it. Each
document is identified by file and document number for error messages.
"""
from __future__ import annotations

import gc
import json
import math
import mmap
import os
import re
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import msgspec
import yaml

from drasim.api import kinds, nesting, yamlblock, yamlfast
from drasim.errors import ManifestError

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")

class KubeYAMLLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """YAML as Kubernetes reads it (sigs.k8s.io/yaml: YAML 1.1 via JSON): like PyYAML's safe
    loader, except that unquoted timestamps stay strings (`creationTimestamp: 2026-03-01T00:00:00Z`).
    Uses libyaml when PyYAML was built with it (the wheels are)."""


# Plain scalars are typed by go-yaml v2's rules, not PyYAML's YAML 1.1 ones (k8s: kubectl reads
# manifests with sigs.k8s.io/yaml over go.yaml.in/yaml/v2, resolve.go): y/Y/n/N are bools; no
# base-60 numbers (`1:30` stays a string); 0o17 is an int; a float needs no dot and no exponent
# sign (`2e0`, `1.5e3`), and one beyond float64 stays a string (strconv.ParseFloat fails).
# Timestamps stay strings too: go-yaml keeps them so for untyped values.
_BOOL, _INT, _FLOAT = "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
_GO_RESOLVERS = (
    (_BOOL, r"^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$",
     "yYnNtTfFoO"),
    (_FLOAT, r"^(?:[-+]?(?:[0-9][0-9_]*\.[0-9_]*|\.[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)?"
             r"|[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", "-+0123456789."),
    (_INT, r"^[-+]?(?:0b[0-1_]+|0o[0-7_]+|0[0-7_]+|0|[1-9][0-9_]*|0x[0-9a-fA-F_]+)$", "-+0123456789"),
)
KubeYAMLLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers
            if tag not in ("tag:yaml.org,2002:timestamp", _BOOL, _INT, _FLOAT)]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
for _tag, _pattern, _first in _GO_RESOLVERS:
    KubeYAMLLoader.add_implicit_resolver(_tag, re.compile(_pattern), list(_first))


def _construct_float(loader, node):
    value = yaml.constructor.SafeConstructor.construct_yaml_float(loader, node)
    if math.isinf(value) and "inf" not in node.value.lower():
        return node.value
    return value


def _construct_bool(loader, node):
    if node.value in ("y", "Y", "n", "N"):
        return node.value in ("y", "Y")
    return yaml.constructor.SafeConstructor.construct_yaml_bool(loader, node)


KubeYAMLLoader.add_constructor(_FLOAT, _construct_float)
KubeYAMLLoader.add_constructor(_BOOL, _construct_bool)

# The tag of a plain scalar depends on its text alone (this loader has no path resolvers), and
# manifests repeat the same texts (names, quantities, small ints) endlessly: remember them.
_PLAIN_TAGS: dict[str, str] = {}
_PLAIN_TAGS_MAX = 100_000


def _resolve(self, kind, value, implicit):
    if kind is yaml.ScalarNode and implicit[0]:
        tag = _PLAIN_TAGS.get(value)
        if tag is None:
            tag = yaml.resolver.BaseResolver.resolve(self, kind, value, implicit)
            if len(_PLAIN_TAGS) >= _PLAIN_TAGS_MAX:
                _PLAIN_TAGS.clear()
            _PLAIN_TAGS[value] = tag
        return tag
    return yaml.resolver.BaseResolver.resolve(self, kind, value, implicit)


KubeYAMLLoader.resolve = _resolve
_MERGE_TAG = "tag:yaml.org,2002:merge"


def _construct_mapping(self, node, deep=False):
    """A key repeated in one mapping is an error, as in Kubernetes' reader (go-yaml: `key "x"
    already set in map`); keys brought in by a merge (`<<`) may still be overridden."""
    if isinstance(node, yaml.MappingNode):
        seen = set()
        for key_node, _ in node.value:
            if key_node.tag == _MERGE_TAG or not isinstance(key_node, yaml.ScalarNode):
                continue
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {json.dumps(str(key))} already set in map", key_node.start_mark)
            seen.add(key)
    return yaml.constructor.SafeConstructor.construct_mapping(self, node, deep=deep)


KubeYAMLLoader.construct_mapping = _construct_mapping
_YAML_LOADER = KubeYAMLLoader

# Fields the API server owns or that make no sense to replay from a snapshot.
_DROPPED_METADATA = ("managedFields", "selfLink")


@dataclass(frozen=True, slots=True)
class Document:
    """One object read from a manifest, with where it came from."""

    source: str      # "cluster/gpu.yaml#2" (document number, 1-based)
    kind: kinds.Kind
    obj: dict


STDIN = "-"   # kubectl apply -f -: the manifests come on standard input


def _permission_denied(path) -> ManifestError:
    return ManifestError(f"{path}: permission denied")


def _folder_files(folder: Path) -> list[Path]:
    """Manifest files under a folder, recursively, sorted. A subfolder that cannot be listed is
    an error: silently skipping it would simulate a different cluster (kubectl apply -R says
    "permission denied" too). Symlinked folders are not followed, as before (Path.rglob)."""
    def refuse(err: OSError) -> None:
        if isinstance(err, PermissionError):
            raise _permission_denied(err.filename or folder)
        raise ManifestError(f"{err.filename or folder}: cannot read: {err.strerror or err}")

    out: list[Path] = []
    for root, dirs, files in os.walk(folder, onerror=refuse):
        dirs.sort()
        out.extend(Path(root, f) for f in files if Path(f).suffix in MANIFEST_SUFFIXES and Path(root, f).is_file())
    return sorted(out)


def manifest_files(paths: list[str | Path]) -> list[Path]:
    """Files named directly, and manifest files of folders (recursively, sorted).

    A path named directly is read whatever it is, unless it is a folder: `-` (standard input),
    /dev/stdin, a FIFO, a process substitution (`<(...)`, a /dev/fd/N pipe) as well as files.
    """
    out: list[Path] = []
    for p in map(Path, paths):
        if str(p) == STDIN:
            out.append(p)
        elif p.is_dir():
            if not os.access(p, os.R_OK | os.X_OK):
                raise _permission_denied(p)
            out.extend(_folder_files(p))
        elif p.exists():
            out.append(p)
        else:
            raise ManifestError(f"{p}: no such file or directory")
    return out


def _read(path: Path) -> str:
    """The text of a manifest path, standard input for `-`. Read once, whole: a pipe cannot be re-read."""
    return _decode(path, _read_bytes(path))


def _read_bytes(path: Path) -> bytes:
    try:
        if str(path) == STDIN:
            return sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise _cannot_read(path, e) from None


def _cannot_read(path: Path, e: OSError) -> ManifestError:
    if isinstance(e, PermissionError):
        return _permission_denied(path)
    if isinstance(e, IsADirectoryError):
        return ManifestError(f"{path}: is a directory")
    return ManifestError(f"{path}: cannot read: {e.strerror or e}")


@contextmanager
def _mapped(path: Path):
    """The bytes of a file, mapped rather than read when it can be (a regular, non-empty file):
    the parser then reads the page cache itself — no copy, and a fault per 16 pages instead of
    one per page of a fresh buffer (a fleet snapshot is close to a GiB). A pipe, FIFO or empty
    file is read as _read_bytes reads it, with its words for errors."""
    try:
        with open(path, "rb") as f:
            try:
                mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            except (ValueError, OSError):
                mapped = None
            if mapped is None:
                data = f.read()
    except OSError as e:
        raise _cannot_read(path, e) from None
    if mapped is None:
        yield data
        return
    try:
        yield mapped
    finally:
        mapped.close()


def _decode(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ManifestError(f"{path}: cannot read: not UTF-8 text ({e.reason} at byte {e.start})") from None


def source_name(path: Path) -> str:
    """How documents of a path are named in messages: stdin as kubectl says it."""
    return "STDIN" if str(path) == STDIN else str(path)


def _looks_like_json(path: Path, text: str) -> bool:
    """JSON by name, or, for a name without a manifest suffix (stdin, a pipe), by its first character."""
    if path.suffix in MANIFEST_SUFFIXES:
        return path.suffix == ".json"
    return text.lstrip()[:1] in ("{", "[")


_LIBYAML_DEPTH_PROBLEM = "exceeded maximum nesting depth"


class _NotJSON(ValueError):
    """NaN, Infinity: Python's json reads them, Go's does not."""


def _no_constants(word: str):
    raise _NotJSON(f"invalid character {word[0]!r} looking for beginning of value")   # Go's words


# msgspec reads a JSON text several times faster than the json module, straight into Python
# values (orjson first builds a document of its own: a gigabyte more on a fleet snapshot), and
# gives the same values for what it accepts: integers of any size exactly, floats correctly
# rounded, a repeated key's last value in its first place. It refuses what Go reads differently
# or not at all — NaN/Infinity, numbers beyond float64, lone surrogates, a BOM — and stops at
# Python's recursion limit (below Go's 10,000 levels, so no depth check is needed after it).
# Anything it refuses goes the json module's way, which words the error
# (tests/unit/api/test_json_fast.py).
_MSGSPEC_REFUSES = (msgspec.DecodeError, RecursionError)   # DecodeError covers ValidationError (range)
_FAST_DEPTH = 2_000   # levels msgspec may read: deeper documents go the json module's way


def _decode_shallow(data):
    """msgspec's value of data, refusing (RecursionError) what nests deeper than _FAST_DEPTH.
    msgspec stops at the recursion limit, which a CLI run raises far past Go's 10,000 levels
    (nesting.run_with_room); on Python 3.11 the limit is lowered for the parse (never raised),
    on later versions, whose C recursion limit it does not govern, the value is measured."""
    if sys.version_info >= (3, 12):
        value = msgspec.json.decode(data)
        if nesting.depth(value) > _FAST_DEPTH:
            raise RecursionError("deeper than the fast reader reads")
        return value
    old = sys.getrecursionlimit()
    frames, f = 0, sys._getframe()
    while f is not None:
        frames, f = frames + 1, f.f_back
    budget = frames + _FAST_DEPTH
    if budget >= old:
        return msgspec.json.decode(data)
    sys.setrecursionlimit(budget)
    try:
        return msgspec.json.decode(data)
    finally:
        sys.setrecursionlimit(old)


def _load_json_fast(text: str):
    """The value of a JSON text by msgspec, or _SLOW when the json module must decide."""
    try:
        return _decode_shallow(text)   # a str with lone surrogates is refused too: not UTF-8
    except _MSGSPEC_REFUSES:
        return _SLOW


def _load_json_file(path: Path, data):
    """The value of a .json file's bytes (or mapped file). msgspec reads them in place, checking
    UTF-8 itself, so a large file is neither decoded to a str nor copied; whatever it refuses is
    decoded (wording a UTF-8 error as _read does) and goes the json module's way, as _load_json
    would take it (tests/unit/api/test_json_fast.py)."""
    try:
        if isinstance(data, bytes):
            return _decode_shallow(data)
        with memoryview(data) as view:   # released before the map is closed
            return _decode_shallow(view)
    except _MSGSPEC_REFUSES:
        pass
    return _load_json_slow(_decode(path, bytes(data)))


_SLOW = object()


def _load_json(text: str):
    value = _load_json_fast(text)
    return _load_json_slow(text) if value is _SLOW else value


def _load_json_slow(text: str):
    """The value of a JSON text by the json module, held to Go's rules (constants, depth)."""
    try:
        value = json.loads(text, parse_constant=_no_constants)
    except RecursionError:
        # Deeper than the json module goes here; Go reads 10,000 levels and no more.
        return nesting.loads_deep(text)
    try:
        nesting.check_json_depth(text, value)
    except nesting.TooDeep:
        nesting.loads_deep(text)   # again, for where it happens (raises TooDeep with the offset)
        raise
    return value


@contextmanager
def gc_paused(freeze: bool = False):
    """The cycle collector off for a bulk step that builds trees (no reference cycles) that live
    on — reading manifests, admitting a phase: its passes over them find nothing and cost more
    than the step itself on large snapshots (docs/PERFORMANCE.md). Reference counting still
    frees what is dropped.

    `freeze`: when the step built a snapshot's worth of objects, move everything out of the
    collector's sight (gc.freeze): its next pass would walk all of them, and later full passes
    again. Only for a one-shot run's steps (the CLI reading its phases, admitting a phase it
    handed over): whatever is garbage with cycles then is never collected — a plane dropped
    later, say, by a planning loop that builds many — so library callers do not freeze."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if freeze and gc.get_count()[0] > _BULK_ALLOCATIONS:
                gc.freeze()
            gc.enable()


_BULK_ALLOCATIONS = 200_000   # objects tracked since the pause began: a snapshot, not a manifest


def _load_json_stream(text: str) -> list:
    """JSON values one after another, as kubectl's YAMLOrJSONDecoder reads a JSON input (a
    json.Decoder decoding value after value; whitespace between them, nothing else). Raises
    json.JSONDecodeError at the first bad one, placed in the whole text."""
    decoder = json.JSONDecoder(parse_constant=_no_constants)
    values, pos, end = [], 0, len(text)
    while True:
        pos = _JSON_SPACE.match(text, pos).end()
        if pos >= end:
            return values
        start = pos
        value, pos = decoder.raw_decode(text, pos)
        nesting.check_json_depth(text[start:pos], value)
        values.append(value)


_JSON_SPACE = re.compile(r"[ \t\n\r]*")


def _parse_json_file(path: Path) -> list:
    """The document of a .json file, as _parse reads its text (same values, same errors)."""
    with _mapped(path) as data:
        try:
            return [_load_json_file(path, data)]
        except (json.JSONDecodeError, nesting.TooDeep, _NotJSON):
            text = _decode(path, bytes(data))
    return _parse(path, text)[0]   # words the error, from the text


def _parse(path: Path, text: str) -> tuple[list, bool]:
    """The documents of a text, and whether they are JSON values already (string keys, no aliases)."""
    try:
        if _looks_like_json(path, text):
            try:
                return [_load_json(text)], True
            except json.JSONDecodeError as e:
                if e.msg == "Extra data":   # a stream of values (`jq '.items[]'`): one document each
                    return _load_json_stream(text), True
                if path.suffix == ".json":
                    raise
                # No suffix said JSON: `{a: 1}` is YAML flow style, as kubectl would read it.
        block = yamlblock.load(text, _YAML_LOADER)   # kubectl's plain block shape, read line by line
        if block is not None:
            return block, True   # values as _as_json makes them already
        return list(yamlfast.load_all(text, _YAML_LOADER)), False
    except json.JSONDecodeError as e:
        raise ManifestError(f"{path}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    except nesting.TooDeep as e:
        if e.offset is None:
            raise ManifestError(f"{path}: invalid JSON: {e}") from None
        line = text.count("\n", 0, e.offset) + 1
        column = e.offset - (text.rfind("\n", 0, e.offset) + 1) + 1
        raise ManifestError(f"{path}: invalid JSON at line {line} column {column}: {e}") from None
    except _NotJSON as e:
        raise ManifestError(f"{path}: invalid JSON: {e}") from None
    except RecursionError:
        # Only the PyYAML constructor fallback (merge keys, tags) can still get here.
        raise ManifestError(f"{path}: invalid YAML: {nesting.YAML_DEPTH_PROBLEM}") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or str(e)
        if problem == _LIBYAML_DEPTH_PROBLEM:
            problem = nesting.YAML_DEPTH_PROBLEM   # go-yaml's words for the same limit
        raise ManifestError(f"{path}: invalid YAML{where}: {problem}") from None


def _expand(doc, where: str):
    """Yield (source, object) for a document, flattening `kind: List` (and `*List`) items."""
    if doc is None:
        return
    if not isinstance(doc, dict):
        raise ManifestError(f"{where}: a manifest must be a mapping (an object), not {type(doc).__name__}")
    kind = doc.get("kind")
    if isinstance(kind, str) and kind.endswith("List") and "items" in doc:
        items = doc.get("items") or []
        if not isinstance(items, list):
            raise ManifestError(f"{where}: items: must be a list")
        for i, item in enumerate(items):
            yield from _expand(item, f"{where} items[{i}]")
        return
    yield where, doc


def _type_key(obj: dict) -> tuple | None:
    """(apiVersion, kind) when both are strings; a list or map there is resolve_kind's to refuse."""
    key = (obj.get("apiVersion"), obj.get("kind"))
    return key if isinstance(key[0], str) and isinstance(key[1], str) else None


def _plain_type(obj: dict) -> bool:
    return obj.get("apiVersion").__class__ is str and obj.get("kind").__class__ is str


# What resolve_kind returns without a word for the usual (apiVersion, kind) pairs.
_SIMULATED = {key: kind for key, kind in kinds.BY_API.items() if kind is not kinds.EVENT and key not in kinds.NOT_SIMULATED}


def resolve_kind(obj: dict, source: str) -> kinds.Kind:
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(kind, str) or not kind:
        raise ManifestError(f"{source}: Object 'Kind' is missing")
    if not isinstance(api_version, str) or not api_version:
        raise ManifestError(f"{source}: Object 'apiVersion' is missing")
    found = kinds.lookup(api_version, kind)
    if found is None or found is kinds.EVENT:
        hint = ""
        group, _, version = api_version.rpartition("/")
        if group == kinds.RESOURCE_GROUP and version in kinds.UNSERVED_RESOURCE_VERSIONS:
            hint = f" ({api_version} is not served by Kubernetes v1.37 by default; use {kinds.RESOURCE_GROUP}/v1)"
        elif kinds.BY_KIND.get(kind) is not None and kind != "Event":
            hint = f" (use apiVersion {kinds.BY_KIND[kind].api_version})"
        else:
            known = ", ".join(f"{k.api_version} {k.kind}" for k in kinds.INPUT_KINDS)
            hint = f" (drasim knows: {known})"
        name = (obj.get("metadata") or {}).get("name", "") if isinstance(obj.get("metadata"), dict) else ""
        raise ManifestError(f'{source}: resource mapping not found for name: "{name}": '
                            f'no matches for kind "{kind}" in version "{api_version}"{hint}')
    return found


def _clean(obj: dict, source: str) -> dict:
    md = obj.get("metadata")
    if md is None:
        md = {}
    if not isinstance(md, dict):
        return obj   # admission's decoding refuses it in the API server's words
    if obj.get("metadata") is md and "managedFields" not in md and "selfLink" not in md:   # _DROPPED_METADATA
        return obj   # nothing to drop: the reader's own tree, no copy
    obj = dict(obj)
    obj["metadata"] = {k: v for k, v in md.items() if k not in _DROPPED_METADATA}
    return obj


class _Budget:
    """How many values a file may expand to. Without aliases a YAML or JSON text holds fewer
    values than characters, so more means aliases multiply it (a "billion laughs" bomb);
    go-yaml refuses those too ("document contains excessive aliasing")."""

    __slots__ = ("left",)

    def __init__(self, text: str) -> None:
        self.left = len(text) + 1024


def _json_key(k) -> str:
    return k if isinstance(k, str) else ("true" if k is True else "false" if k is False
                                         else "null" if k is None else str(k))


def _path_of(frames: list, last) -> str:
    """The field path of the value being converted: the keys of the open frames, then `last`."""
    path = ""
    for part in [f[3] for f in frames[1:]] + ([last] if last is not None else []):
        path = (f"{path}[{part}]" if isinstance(part, int) else f"{path}.{part}" if path else part)
    return path


def _as_json(value, path: str = "", budget: _Budget | None = None, too_deep: str | None = None):
    """The value as Kubernetes sees it after its YAML-to-JSON step: map keys become strings
    (`3: x` → "3", `true: x` → "true"); values JSON cannot hold (bytes, sets) are an error.
    Built with an explicit stack, so any depth the readers allow fits; deeper (through
    aliases) is refused as Go's JSON decoder would (nesting.MAX_DEPTH)."""
    def check(v, last, frames):
        if budget is not None:
            budget.left -= 1
            if budget.left < 0:
                raise ManifestError("yaml: document contains excessive aliasing")
        if v is None or isinstance(v, (str, bool, int, float)) or isinstance(v, (dict, list)):
            return
        where = _path_of(frames, last)
        raise ManifestError(f"{(path + '.' + where) if path and where else path or where}: "
                            f"unsupported value of type {type(v).__name__}")

    check(value, None, [])
    if not isinstance(value, (dict, list)):
        return value
    root = {} if isinstance(value, dict) else []
    # frames: [source, items iterator, target, how the parent reached it]
    frames = [[value, iter(value.items() if isinstance(value, dict) else enumerate(value)), root, None]]
    open_ids = {id(value)}
    while frames:
        frame = frames[-1]
        step = next(frame[1], None)
        if step is None:
            open_ids.discard(id(frame[0]))
            frames.pop()
            continue
        k, v = step
        is_map = isinstance(frame[0], dict)
        key = _json_key(k) if is_map else k
        check(v, key, frames)
        if isinstance(v, (dict, list)):
            if id(v) in open_ids:
                where = _path_of(frames, key)
                raise ManifestError(f"{where or '.'}: an alias refers to a node that contains it")
            if len(frames) >= nesting.MAX_DEPTH:
                raise ManifestError(too_deep or (f"invalid character {'{' if isinstance(v, dict) else '['!r} "
                                                 "exceeded max nesting depth"))   # Go's encoding/json
            child = {} if isinstance(v, dict) else []
            open_ids.add(id(v))
            frames.append([v, iter(v.items() if isinstance(v, dict) else enumerate(v)), child, key])
            v = child
        if is_map:
            frame[2][key] = v
        else:
            frame[2].append(v)
    return root


def _skip_note(source: str, obj: dict) -> str:
    """The warning naming one object that is not simulated: where, kind and namespace/name."""
    md = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = md.get("name") or md.get("generateName") or "(no name)"
    ref = f"{md['namespace']}/{name}" if md.get("namespace") else str(name)
    return f"{source}: {obj['apiVersion']} {obj['kind']} {ref} is not simulated; skipped"


def load_file(path: Path, skipped: list[str] | None = None) -> list[Document]:
    """Documents of one file (`-`: standard input). Built-in kinds drasim does not simulate
    (kinds.NOT_SIMULATED) are left out, and one line per such object, naming it, is added to
    `skipped` when given."""
    with gc_paused():
        return _load_file(path, skipped)


def _load_file(path: Path, skipped: list[str] | None) -> list[Document]:
    where = source_name(path)
    docs: list[Document] = []
    if path.suffix == ".json" and str(path) != STDIN:
        values, is_json, budget = _parse_json_file(path), True, None   # never read as a str
    else:
        text = _read(path)
        budget = _Budget(text)
        values, is_json = _parse(Path(where), text)
        del text
    for number, raw in enumerate(values, start=1):
        for source, obj in _expand(raw, f"{where}#{number}"):
            if not is_json:   # JSON values are JSON already: string keys, no aliases, depth checked
                try:
                    obj = _as_json(obj, "", budget, None if path.suffix == ".json" else f"yaml: {nesting.YAML_DEPTH_PROBLEM}")
                except ManifestError as e:
                    raise ManifestError(f"{source}: {e}") from None
                except RecursionError:
                    raise ManifestError(f"{source}: exceeded maximum nesting depth") from None
            kind = _SIMULATED.get((obj.get("apiVersion"), obj.get("kind"))) if _plain_type(obj) else None
            if kind is None:   # not a simulated kind's own apiVersion and kind: the long way, with its words
                if _type_key(obj) in kinds.NOT_SIMULATED:
                    if skipped is not None:
                        skipped.append(_skip_note(source, obj))
                    continue
                kind = resolve_kind(obj, source)
            docs.append(Document(source, kind, _clean(obj, source)))
    return docs


def load_paths(paths: list[str | Path], skipped: list[str] | None = None) -> list[Document]:
    """All documents of the given files and folders, in order (see load_file for `skipped`)."""
    out: list[Document] = []
    for f in manifest_files(paths):
        out.extend(load_file(f, skipped))
    return out
