"""Reading manifests: YAML and JSON files, multi-document files, folders and `kind: List`.

Everything `kubectl apply -f` accepts, including `kubectl get ... -o yaml`
output, so a user can snapshot a live cluster and simulate on it. Each
document is identified by file and document number for error messages.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import yaml

from drasim.api import kinds, nesting, yamlfast
from drasim.errors import ManifestError

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")

class KubeYAMLLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """YAML as Kubernetes reads it (sigs.k8s.io/yaml: YAML 1.1 via JSON): like PyYAML's safe
    loader, except that unquoted timestamps stay strings (`creationTimestamp: 2026-03-01T00:00:00Z`).
    Uses libyaml when PyYAML was built with it (the wheels are)."""


KubeYAMLLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}

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


def manifest_files(paths: list[str | Path]) -> list[Path]:
    """Files named directly, and manifest files of folders (recursively, sorted)."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*") if f.is_file() and f.suffix in MANIFEST_SUFFIXES))
        elif p.is_file():
            out.append(p)
        else:
            raise ManifestError(f"{p}: no such file or directory")
    return out


_LIBYAML_DEPTH_PROBLEM = "exceeded maximum nesting depth"


class _NotJSON(ValueError):
    """NaN, Infinity: Python's json reads them, Go's does not."""


def _no_constants(word: str):
    raise _NotJSON(f"invalid character {word[0]!r} looking for beginning of value")   # Go's words


def _load_json(text: str):
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


def _parse(path: Path, text: str) -> list:
    try:
        if path.suffix == ".json":
            return [_load_json(text)]
        return list(yamlfast.load_all(text, _YAML_LOADER))
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
        raise ManifestError(f"{source}: metadata: must be an object")
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


def load_file(path: Path, skipped: list[str] | None = None) -> list[Document]:
    """Documents of one file. Built-in kinds drasim does not simulate (kinds.NOT_SIMULATED) are
    left out, and one line per such kind is added to `skipped` when given."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ManifestError(f"{path}: cannot read: {e}") from None
    docs: list[Document] = []
    budget = _Budget(text)
    for number, raw in enumerate(_parse(path, text), start=1):
        for source, obj in _expand(raw, f"{path}#{number}"):
            try:
                obj = _as_json(obj, "", budget, None if path.suffix == ".json" else f"yaml: {nesting.YAML_DEPTH_PROBLEM}")
            except ManifestError as e:
                raise ManifestError(f"{source}: {e}") from None
            if isinstance(obj.get("apiVersion"), str) and isinstance(obj.get("kind"), str) and \
                    (obj["apiVersion"], obj["kind"]) in kinds.NOT_SIMULATED:   # (a list is no kind)
                if skipped is not None:
                    note = f"{obj['apiVersion']} {obj['kind']} objects are not simulated and were skipped"
                    if note not in skipped:
                        skipped.append(note)
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
