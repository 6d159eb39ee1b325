"""The `labelSelector=` query parameter, read as kube-apiserver reads it.

k8s: staging/src/k8s.io/apimachinery/pkg/labels/selector.go (Lexer, Parser.parse,
parseRequirement, parseKeyAndInferOperator, parseOperator, parseValues, parseIdentifiersList,
parseExactValue, NewRequirement, Requirement.Matches). The grammar and the error messages are
that file's, including the ones a user meets with a typo (`found '', expected: ',' or ')'`,
`<nil>: Invalid value: ...` for a bad key: the apiserver parses without a field path).

    parse(text) -> list of Requirement (sorted by key, as parse does), or raises SelectorSyntaxError
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from drasim.api.fielderrors import FieldError, invalid
from drasim.api.validation.common import is_label_value, is_qualified_name

_DECIMAL = re.compile(r"[+-]?[0-9]+")
_SPECIAL = frozenset("=!(),><")
_WHITESPACE = frozenset(" \t\r\n")
_TOKENS = {")": "CLOSE", ",": "COMMA", "!": "NOT", "==": "EQEQ", "=": "EQ", ">": "GT", "in": "IN",
           "<": "LT", "!=": "NEQ", "notin": "NOTIN", "(": "OPEN"}
_BINARY = ("in", "notin", "=", "==", "!=", "gt", "lt")   # selection's operator names, in Go's order
_OPERATOR = {"IN": "in", "EQ": "=", "EQEQ": "==", "GT": "gt", "LT": "lt", "NOTIN": "notin", "NEQ": "!="}


class SelectorSyntaxError(ValueError):
    """What labels.Parse returns; str() is its Error()."""


@dataclass(frozen=True, slots=True)
class Requirement:
    key: str
    operator: str   # in notin = == != exists !  gt lt
    values: tuple[str, ...]

    def matches(self, labels: dict) -> bool:
        """k8s: Requirement.Matches."""
        value = labels.get(self.key)
        if self.operator in ("in", "=", "=="):
            return value is not None and value in self.values
        if self.operator in ("notin", "!="):
            return value is None or value not in self.values
        if self.operator == "exists":
            return self.key in labels
        if self.operator == "!":
            return self.key not in labels
        if value is None or len(self.values) != 1:
            return False
        have, want = parse_int64(value), parse_int64(self.values[0])
        if have is None or want is None:
            return False
        return have > want if self.operator == "gt" else have < want


def parse_int64(text: str) -> int | None:
    """Go's strconv.ParseInt(text, 10, 64), or None where it fails: an optional sign and ASCII
    digits only (Python's int also takes "1_0", spaces and other digits) within int64."""
    if not _DECIMAL.fullmatch(text):
        return None
    n = int(text)
    return n if -2**63 <= n < 2**63 else None


def _lex(text: str) -> list[tuple[str, str]]:
    """k8s: Lexer.Lex until the end of the string; (token, literal) pairs."""
    items, pos, n = [], 0, len(text)
    while True:
        while pos < n and text[pos] in _WHITESPACE:
            pos += 1
        if pos >= n:
            items.append(("END", ""))
            return items
        if text[pos] in _SPECIAL:   # the longest operator the symbols spell
            buffer, last, end = "", None, pos
            while end < n and text[end] in _SPECIAL:
                buffer += text[end]
                if buffer in _TOKENS:
                    last, end = (_TOKENS[buffer], buffer), end + 1
                elif last is not None:
                    break
                else:
                    end += 1
            if last is None:
                items.append(("ERROR", f"error expected: keyword found '{buffer}'"))
                pos = end
            else:
                items.append(last)
                pos += len(last[1])
            continue
        end = pos
        while end < n and text[end] not in _SPECIAL and text[end] not in _WHITESPACE:
            end += 1
        word = text[pos:end]
        items.append((_TOKENS.get(word, "ID") if word in ("in", "notin") else "ID", word))
        pos = end


class _Parser:
    def __init__(self, text: str) -> None:
        self.items = _lex(text)
        self.pos = 0

    def _look(self, values: bool = True) -> tuple[str, str]:
        tok, lit = self.items[self.pos]
        return ("ID", lit) if values and tok in ("IN", "NOTIN") else (tok, lit)

    def _take(self, values: bool = True) -> tuple[str, str]:
        item = self._look(values)
        self.pos += 1
        return item

    def parse(self) -> list[Requirement]:
        out: list[Requirement] = []
        while True:
            tok, lit = self._look()
            if tok in ("ID", "NOT"):
                try:
                    out.append(self._requirement())
                except SelectorSyntaxError as e:
                    raise SelectorSyntaxError(f"unable to parse requirement: {e}") from None
                tok, lit = self._take()
                if tok == "END":
                    return out
                if tok != "COMMA":
                    raise SelectorSyntaxError(f"found '{lit}', expected: ',' or 'end of string'")
                tok2, lit2 = self._look()
                if tok2 not in ("ID", "NOT"):
                    raise SelectorSyntaxError(f"found '{lit2}', expected: identifier after ','")
            elif tok == "END":
                return out
            else:
                raise SelectorSyntaxError(f"found '{lit}', expected: !, identifier, or 'end of string'")

    def _requirement(self) -> Requirement:
        negated = False
        tok, key = self._take()
        if tok == "NOT":
            negated = True
            tok, key = self._take()
        if tok != "ID":
            raise SelectorSyntaxError(f"found '{key}', expected: identifier")
        if problems := is_qualified_name(key):   # validateLabelKey with the parser's (nil) path
            raise SelectorSyntaxError(str(invalid("<nil>", key, "; ".join(problems))))
        if negated or self._look()[0] in ("END", "COMMA"):
            return _new(key, "!" if negated else "exists", ())
        tok, lit = self._take(values=False)
        if tok not in _OPERATOR:
            raise SelectorSyntaxError(f"found '{lit}', expected: {', '.join(_BINARY)}")
        op = _OPERATOR[tok]
        values = self._values() if op in ("in", "notin") else self._exact_value()
        return _new(key, op, tuple(sorted(set(values))))

    def _values(self) -> list[str]:
        tok, lit = self._take()
        if tok != "OPEN":
            raise SelectorSyntaxError(f"found '{lit}' expected: '('")
        tok, lit = self._look()
        if tok in ("ID", "COMMA"):
            values = self._identifiers()
            if self._take()[0] != "CLOSE":
                raise SelectorSyntaxError(f"found '{lit}', expected: ')'")
            return values
        if tok == "CLOSE":
            self._take()
            return [""]
        raise SelectorSyntaxError(f"found '{lit}', expected: ',', ')' or identifier")

    def _identifiers(self) -> list[str]:
        values: list[str] = []
        while True:
            tok, lit = self._take()
            if tok == "ID":
                values.append(lit)
                tok2, lit2 = self._look()
                if tok2 == "COMMA":
                    continue
                if tok2 == "CLOSE":
                    return values
                raise SelectorSyntaxError(f"found '{lit2}', expected: ',' or ')'")
            if tok == "COMMA":   # "(," ",)" ",,": empty values
                if not values:
                    values.append("")
                if self._look()[0] in ("CLOSE", "COMMA"):
                    values.append("")
                    if self._look()[0] == "CLOSE":
                        return values
                continue
            raise SelectorSyntaxError(f"found '{lit}', expected: ',', or identifier")

    def _exact_value(self) -> list[str]:
        tok, _ = self._look()
        if tok in ("END", "COMMA"):
            return [""]
        tok, lit = self._take()
        if tok == "ID":
            return [lit]
        raise SelectorSyntaxError(f"found '{lit}', expected: identifier")


def _new(key: str, op: str, values: tuple[str, ...]) -> Requirement:
    """k8s: NewRequirement's value checks (the key was checked as it was read)."""
    errs: list[FieldError] = []
    if op in ("gt", "lt"):
        for i, v in enumerate(values):
            if parse_int64(v) is None:
                errs.append(invalid(f"values[{i}]", v, "for 'Gt', 'Lt' operators, the value must be an integer"))
    for i, v in enumerate(values):
        if problems := is_label_value(v):
            errs.append(invalid(f"values[{i}][{key}]", v, "; ".join(problems)))
    if errs:   # utilerrors.Aggregate: one error alone, else [a, b]
        raise SelectorSyntaxError(str(errs[0]) if len(errs) == 1 else "[" + ", ".join(map(str, errs)) + "]")
    return Requirement(key, op, values)


def parse(text: str) -> list[Requirement]:
    """k8s: labels.Parse — requirements sorted by key; raises SelectorSyntaxError."""
    return sorted(_Parser(text).parse(), key=lambda r: r.key)
