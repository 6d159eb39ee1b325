"""A line reader for the plain block YAML that `kubectl get -o yaml` prints, equal to the full path.

kubectl's YAML (sigs.k8s.io/yaml: JSON re-emitted by go-yaml) and drasim's own output are
regular: one block mapping or sequence entry per line, scalars on one line, plain or quoted,
`{}` and `[]` for empty ones, sequences under a key indented or not. libyaml composes every
such line into node objects that yamlfast then turns into values; this reader builds the values
from the lines directly, several times faster on a large snapshot.

It reads only that shape and answers None for anything else — a comment, a tab, a blank line,
a multi-line or block scalar, an escape in a double-quoted one, anchors, aliases, tags, flow
collections with content, several documents, a repeated key, characters outside printable
ASCII, nesting deeper than MAX_LEVELS — and the caller then takes the full path (libyaml,
yamlfast, loader._as_json), which gives the same values or words the error. Plain scalars
are typed by the loader's own resolver and constructors (go-yaml's rules), map keys become
strings as in loader._as_json, so a document read here equals the full path's value exactly
(tests/unit/api/test_yamlblock.py compares them on generated and mutated documents).
"""
from __future__ import annotations

import re

from yaml.nodes import ScalarNode

MAX_LEVELS = 200   # deeper block YAML is left to the full path (it counts Go's 10,000 levels)
_REMEMBERED = 200_000   # lines and scalars remembered at most

_STR = "tag:yaml.org,2002:str"
_MAP, _SEQ = 0, 1

# One line: indentation, an optional "- ", then `key:` (plain or single-quoted key) with an
# optional value after one space, or (after "- " only) a scalar alone.
_KEY = r"[A-Za-z0-9_./][A-Za-z0-9_./-]*|'(?:[^'\n]|'')*'|\"[^\"\\\\\n]*\""
_LINE = re.compile(r"( *)(- )?(?:(" + _KEY + r"):(?: (.+))?|(.+))\Z")
# Values: plain scalars that cannot be anything but one plain scalar on this line (no indicator
# first, no ": " or " #" inside, no ":" or space last), one-line quoted scalars, empty collections.
_PLAIN = re.compile(r"(?:[^-?:,\[\]{}#&*!|>'\"%@` ]|-(?=[^ ]))(?:(?!: | #).)*(?<![: ])\Z")
_SINGLE = re.compile(r"'((?:[^']|'')*)'\Z")
_SINGLE_OPEN = re.compile(r"'((?:[^']|'')*)\Z")        # its first line, when it goes on
_SINGLE_MORE = re.compile(r"((?:[^']|'')*)(')?\Z")     # a further line; the quote ends it
_DOUBLE = re.compile(r'"([^"\\]*)"\Z')
# Characters the text may hold: printable ASCII and line feeds. Blank lines, comments,
# trailing spaces and document markers (`---`, `...`, `%`) are refused line by line below.
_PRINTABLE = bytes(range(32, 127)) + b"\n"
# Plain scalars whose first character cannot start a non-string by any of the loader's
# implicit resolvers are strings without asking it (checked against the loader at use).
_RESOLVER_FIRSTS = frozenset("yYnNtTfFoO-+0123456789.~<=")


def scalar_reader(loader_class) -> "_Scalars":
    """A reusable scalar typer for load(): building one costs more than reading a small text."""
    return _Scalars(loader_class)


class _Unusual(Exception):
    pass


class _Scalars:
    """Plain scalar text -> value, typed by the loader's resolver and constructors, remembered."""

    __slots__ = ("loader", "ctors", "known", "lines")

    def __init__(self, loader_class) -> None:
        self.loader = loader_class("")
        self.ctors = type(self.loader).yaml_constructors
        firsts = set(type(self.loader).yaml_implicit_resolvers)
        if not firsts <= _RESOLVER_FIRSTS | {"", "!", "&", "*"}:   # those three never start a scalar read here
            raise _Unusual   # a resolver this reader does not know of: the full path decides
        self.known: dict[str, object] = {}
        self.lines: dict[str, tuple] = {}   # line -> its reading (_read), for texts read with these scalars

    def plain(self, text: str):
        if text[0] not in _RESOLVER_FIRSTS:
            return text
        found = self.known.get(text, self)
        if found is not self:
            return found
        tag = self.loader.resolve(ScalarNode, text, (True, False))
        if tag == _STR:
            value = text
        elif tag in ("tag:yaml.org,2002:null", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int",
                     "tag:yaml.org,2002:float"):
            value = self.ctors[tag](self.loader, ScalarNode(tag, text))
        else:
            raise _Unusual   # merge keys, `=`: the full path's rules
        if len(self.known) >= _REMEMBERED:
            self.known.clear()   # names and uids fill it; what repeats comes back at once
        self.known[text] = value
        return value

    def value(self, text: str):
        c = text[0]
        if c == "'":
            m = _SINGLE.match(text)
            if m is None:
                raise _Unusual
            return m.group(1).replace("''", "'")
        if c == '"':
            m = _DOUBLE.match(text)
            if m is None:
                raise _Unusual
            return m.group(1)
        if text == "{}":
            return {}
        if text == "[]":
            return []
        if _PLAIN.match(text) is None:
            raise _Unusual
        return self.plain(text)

    def key(self, text: str) -> str:
        """A map key that is a string. Typed keys (`1:`, `true:`, `null:`) are left to the full
        path: it compares them as Python values (False == 0) to find repeated keys."""
        if text[0] == "'":
            return text[1:-1].replace("''", "'")
        if text[0] == '"':
            return text[1:-1]
        value = self.plain(text)
        if value.__class__ is not str:
            raise _Unusual
        return value


def _open_single(text: str) -> str | None:
    """The first line's part of a single-quoted scalar that goes on to the next line, or None."""
    if text[0] != "'" or _SINGLE.match(text) is not None:
        return None
    m = _SINGLE_OPEN.match(text)
    if m is None or text.endswith(" "):   # trailing spaces: folding would drop them
        raise _Unusual
    return m.group(1)


def load(text: str, loader_class, scalars: "_Scalars | None" = None) -> list | None:
    """The documents of a text (one), as the full YAML path would give them, or None when the
    text is not of the plain block shape this reader knows. *scalars* (from `scalar_reader`)
    keeps typed scalars across many small texts (a benchmark's rendered templates)."""
    if not text or not text.isascii() or text.encode("ascii").translate(None, _PRINTABLE):
        return None
    try:
        return [_read(text, scalars if scalars is not None else _Scalars(loader_class))]
    except _Unusual:
        return None


# What a line holds, by kind: `key:` and nothing, `key: scalar`, `key: {}`, `key: []`, `key: 'open
# quoted scalar…`, and a bare line (no key, no dash: only a continuation may be that).
_NULL, _SCALAR, _EMPTY_MAP, _EMPTY_SEQ, _OPEN, _BARE = range(6)


def _line_info(line: str, scalars: _Scalars) -> tuple:
    """(indent, dash, key, kind, value, the plain scalar's text or None) of one line; raises _Unusual for a key or dash
    line this reader does not read (such a line could not continue a scalar either)."""
    m = _LINE.match(line)
    if m is None:
        raise _Unusual
    spaces, dash, key, value, item = m.groups()
    indent = len(spaces)
    if key is not None:
        key = scalars.key(key)
    elif dash is None:
        return (indent, False, None, _BARE, None, None)
    else:
        value = item
    if value is None:
        return (indent, dash is not None, key, _NULL, None, None)
    if value == "{}":
        return (indent, dash is not None, key, _EMPTY_MAP, None, None)
    if value == "[]":
        return (indent, dash is not None, key, _EMPTY_SEQ, None, None)
    opened = _open_single(value)
    if opened is not None:
        return (indent, dash is not None, key, _OPEN, opened, None)
    if dash is not None and key is None and value == "":
        raise _Unusual
    return (indent, dash is not None, key, _SCALAR, scalars.value(value), None if value[0] in "'\"" else value)


def _read(text: str, scalars: _Scalars):
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if not lines:
        raise _Unusual
    # Kubernetes objects repeat most of their lines word for word (`kind: Pod`, `- type: Ready`),
    # and a benchmark's rendered templates each other's: a line's reading is remembered with the
    # scalars it was read by (its values are immutable; empty collections are made anew).
    seen = scalars.lines
    # Open collections: [indent of their entries, container, _MAP or _SEQ]; `waiting`: the key
    # of a mapping entry whose value is on the following lines.
    stack: list[list] = []
    waiting: tuple | None = None   # (mapping, key, indent of the mapping)
    # The last plain scalar, which lines indented deeper continue (folded: emitters wrap long
    # ones at 80 columns): [container, key or index, its container's indent, its lines].
    plain: list | None = None
    quoted: list | None = None   # the same for a single-quoted scalar not closed on its line
    root = None
    for line in lines:
        if quoted is not None:
            # A single-quoted scalar going on: lines folded with one space, indentation dropped.
            indent = len(line) - len(line.lstrip(" "))
            more = _SINGLE_MORE.match(line, indent)
            if indent <= quoted[2] or more is None or line.endswith(" "):   # blank or trailing spaces
                raise _Unusual
            quoted[3].append(more.group(1))
            if more.group(2):
                quoted[0][quoted[1]] = " ".join(quoted[3]).replace("''", "'")
                quoted = None
            continue
        info = seen.get(line)
        if info is None:
            info = _line_info(line, scalars)
            if len(seen) >= _REMEMBERED:
                seen.clear()   # a stop would keep the first objects' unique lines for good
            seen[line] = info
        indent, dash, key, kind, value, is_plain = info   # is_plain: the text, if plain
        if plain is not None:
            if indent > plain[2]:
                content = line[indent:]
                if dash or _PLAIN.match(content) is None:
                    raise _Unusual
                plain[3].append(content)
                continue
            if len(plain[3]) > 1:   # folded: one space between the lines, typed as a whole
                plain[0][plain[1]] = scalars.plain(" ".join(plain[3]))
            plain = None
        if kind == _BARE:
            raise _Unusual   # a scalar where a mapping entry or a sequence item belongs
        if kind == _EMPTY_MAP:
            value = {}
        elif kind == _EMPTY_SEQ:
            value = []
        if waiting is not None:
            mapping, wkey, windent = waiting
            waiting = None
            if indent > windent or (indent == windent and dash):
                # The value of `wkey:` is the collection this line opens.
                child: list | dict = [] if dash else {}
                mapping[wkey] = child
                stack.append([indent, child, _SEQ if dash else _MAP])
                if len(stack) > MAX_LEVELS:
                    raise _Unusual
        if root is None:
            if indent:
                raise _Unusual
            root = [] if dash else {}
            stack.append([0, root, _SEQ if dash else _MAP])
        # Close what this line's indentation leaves.
        top = stack[-1]
        while top[0] > indent:
            stack.pop()
            if not stack:
                raise _Unusual
            top = stack[-1]
        if top[0] != indent:
            raise _Unusual
        if dash:
            if top[2] != _SEQ:
                raise _Unusual
            seq = top[1]
            if key is None:
                seq.append(value)
                if kind == _OPEN:
                    seq[-1] = None
                    quoted = [seq, len(seq) - 1, indent, [value]]
                elif is_plain is not None:
                    plain = [seq, len(seq) - 1, indent, [is_plain]]
                continue
            entry: dict = {}
            seq.append(entry)
            indent += 2
            top = [indent, entry, _MAP]
            stack.append(top)
            if len(stack) > MAX_LEVELS:
                raise _Unusual
        elif top[2] == _SEQ:
            # A key at a sequence's indentation: the indentless sequence under a key has ended.
            stack.pop()
            if not stack or stack[-1][0] != indent or stack[-1][2] != _MAP:
                raise _Unusual
            top = stack[-1]
        mapping = top[1]
        if key in mapping:
            raise _Unusual   # a repeated key: the full path words the error
        if kind == _NULL:
            mapping[key] = None
            waiting = (mapping, key, indent)
        elif kind == _OPEN:
            mapping[key] = None
            quoted = [mapping, key, indent, [value]]
        else:
            mapping[key] = value
            if is_plain is not None:
                plain = [mapping, key, indent, [is_plain]]
    if quoted is not None:
        raise _Unusual   # never closed: the full path words the error
    if plain is not None and len(plain[3]) > 1:
        plain[0][plain[1]] = scalars.plain(" ".join(plain[3]))
    return root
