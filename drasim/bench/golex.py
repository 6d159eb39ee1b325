"""Lexing for the Go template subset: splitting text from `{{ }}` actions, and action tokens.

Go: text/template/parse/lex.go (trim markers `{{- ` and ` -}}`, comments, quoted strings).
"""
from __future__ import annotations

import re

from drasim.bench.gofuncs import GoTemplateError

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<decl>:=)
  | (?P<op>[=|(),])
  | (?P<str>"(?:[^"\\\n]|\\.)*")
  | (?P<raw>`[^`]*`)
  | (?P<num>[-+]?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?))
  | (?P<var>\$[A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)
  | (?P<field>(?:\.[A-Za-z_][A-Za-z0-9_]*)+|\.)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
""", re.VERBOSE)

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "0": "\0"}


def unquote(text: str) -> str:
    body = text[1:-1]
    return re.sub(r"\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)",
                  lambda m: chr(int(m.group(1)[1:], 16)) if m.group(1)[0] in "ux" and len(m.group(1)) > 1
                  else _ESCAPES.get(m.group(1), m.group(1)), body)


def tokens(body: str, where: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(body):
        m = _TOKEN.match(body, pos)
        if m is None:
            raise GoTemplateError(f"{where}: unexpected {body[pos]!r} in command")
        pos = m.end()
        if m.lastgroup != "ws":
            out.append((m.lastgroup, m.group()))
    return out


def split_actions(src: str, name: str):
    """Yield ("text", str) and ("action", body, line) items, applying trim markers."""
    pos, items = 0, []
    while True:
        start = src.find("{{", pos)
        if start < 0:
            items.append(["text", src[pos:]])
            return items
        text = src[pos:start]
        inner = start + 2
        if src.startswith("- ", inner) or src[inner:inner + 2] in ("-\n", "-\t", "-\r"):
            text = text.rstrip(" \t\r\n")
            inner += 1
        items.append(["text", text])
        end = _find_close(src, inner, name)
        body = src[inner:end]
        trim_right = body.endswith(" -") or body[-2:] in ("\n-", "\t-", "\r-")
        if trim_right:
            body = body[:-1]
        items.append(["action", body.strip(), src.count("\n", 0, start) + 1])
        pos = end + 2
        if trim_right:
            while pos < len(src) and src[pos] in " \t\r\n":
                pos += 1


def _find_close(src: str, pos: int, name: str) -> int:
    quote = None
    while pos < len(src):
        c = src[pos]
        if quote:
            if c == "\\" and quote != "`":
                pos += 1
            elif c == quote:
                quote = None
        elif c in "\"`'":
            quote = c
        elif src.startswith("}}", pos):
            return pos
        elif src.startswith("/*", pos):
            close = src.find("*/", pos + 2)
            if close < 0:
                break
            pos = close + 1
        pos += 1
    raise GoTemplateError(f"template: {name}: unclosed action")


