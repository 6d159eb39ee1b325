"""Token-level work on CEL source text: what cel-cpp cannot be told through its API.

1. Unknown domain -> empty map (spec §3.5). Kubernetes wraps `device.attributes` and
   `device.capacity` in a map whose lookup of a missing key yields an empty map, while
   `in`, size() and iteration see only the real keys. cel-cpp maps cannot do that, so the
   lookups written directly on those two maps are rewritten to equivalent CEL:

       device.attributes[X]          -> device.attributes[?X].orValue({})
       device.attributes.id          -> device.attributes[?"id"].orValue({})
       device.attributes[?X]         -> optional.of(device.attributes[?X].orValue({}))
       device.attributes.?id         -> optional.of(device.attributes[?"id"].orValue({}))
       has(device.attributes.id)     -> true     (the lookup always "finds" a map)

   The original text is type-checked first, so error positions refer to what the user wrote.
   Not covered: a lookup on an alias of the outer map (`cel.bind(a, device.attributes, a["x"])`).

2. Literal validators (cel-go ValidateRegexLiterals/Duration/Timestamp, base.go): find calls
   whose argument is a string literal, so they can be checked at compile time.
"""
from __future__ import annotations

from dataclasses import dataclass

OUTER_MAPS = frozenset({"attributes", "capacity"})
MACROS = frozenset({"all", "exists", "exists_one", "existsOne", "map", "filter", "transformList",
                    "transformMap", "transformMapEntry", "sortBy"})
_QUOTES = ('"""', "'''", '"', "'")
_STRING_PREFIXES = frozenset({"r", "b", "rb", "br"})


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "ws" (blanks and comments), "str", "ident", "punct"
    text: str
    start: int
    lead: str = ""  # blanks and comments before the token (set by significant())


def _string_end(src: str, i: int, raw: bool) -> int:
    """Index just past the string literal whose opening quote is at *i*."""
    quote = next(q for q in _QUOTES if src.startswith(q, i))
    j = i + len(quote)
    while j < len(src):
        if not raw and src[j] == "\\":
            j += 2
            continue
        if src.startswith(quote, j):
            return j + len(quote)
        if len(quote) == 1 and src[j] == "\n":
            return j
        j += 1
    return len(src)


def tokenize(src: str) -> list[Token]:
    tokens: list[Token] = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c.isspace() or src.startswith("//", i):
            j = i
            while j < n and (src[j].isspace() or src.startswith("//", j)):
                if src.startswith("//", j):
                    k = src.find("\n", j)
                    j = n if k < 0 else k
                else:
                    j += 1
            tokens.append(Token("ws", src[i:j], i))
        elif c in "\"'":
            j = _string_end(src, i, raw=False)
            tokens.append(Token("str", src[i:j], i))
        elif c.isalpha() or c == "_":
            j = i + 1
            while j < n and (src[j].isalnum() or src[j] == "_"):
                j += 1
            word = src[i:j]
            if word.lower() in _STRING_PREFIXES and j < n and src[j] in "\"'":
                j = _string_end(src, j, raw="r" in word.lower())
                tokens.append(Token("str", src[i:j], i))
            else:
                tokens.append(Token("ident", word, i))
        else:
            j = i + 1
            tokens.append(Token("punct", c, i))
        i = j
    return tokens


def significant(src: str) -> list[Token]:
    """Tokens without blanks and comments; each keeps the blanks before it in `lead`."""
    sig, lead = [], ""
    for t in tokenize(src):
        if t.kind == "ws":
            lead = t.text
        else:
            sig.append(Token(t.kind, t.text, t.start, lead))
            lead = ""
    return sig


def _matching(sig: list[Token], open_at: int) -> int:
    """Index in *sig* of the bracket closing the one at *open_at*, or -1."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = []
    for k in range(open_at, len(sig)):
        t = sig[k]
        if t.kind != "punct":
            continue
        if t.text in pairs:
            stack.append(pairs[t.text])
        elif stack and t.text == stack[-1]:
            stack.pop()
            if not stack:
                return k
    return -1


def _texts(sig: list[Token], k: int, *texts: str) -> bool:
    return all(k + d < len(sig) and sig[k + d].text == t for d, t in enumerate(texts))


def _is_outer_map(sig: list[Token], k: int) -> bool:
    """`device . attributes|capacity` starts at sig[k], and `device` is the variable."""
    return (sig[k].kind == "ident" and sig[k].text == "device" and _texts(sig, k + 1, ".")
            and k + 2 < len(sig) and sig[k + 2].text in OUTER_MAPS
            and not (k > 0 and sig[k - 1].text in (".", "?")))


def _rewrite(sig: list[Token]) -> str:
    out: list[str] = []
    k = 0
    while k < len(sig):
        t = sig[k]
        if (t.text == "has" and _texts(sig, k + 1, "(") and k + 2 < len(sig) and _is_outer_map(sig, k + 2)
                and _texts(sig, k + 5, ".") and k + 6 < len(sig) and sig[k + 6].kind == "ident"
                and _texts(sig, k + 7, ")")):
            out.append(t.lead + "true")
            k += 8
            continue
        if not _is_outer_map(sig, k):
            out.append(t.lead + t.text)
            k += 1
            continue
        out.append(t.lead)
        base = f"device.{sig[k + 2].text}"
        j = k + 3
        if _texts(sig, j, "[") and (end := _matching(sig, j)) > 0:
            optional = _texts(sig, j + 1, "?")
            inner = _rewrite(sig[j + (2 if optional else 1):end])
            lookup = f"{base}[?({inner})].orValue({{}})"
            out.append(f"optional.of({lookup})" if optional else lookup)
            k = end + 1
        elif (_texts(sig, j, ".", "?") and j + 2 < len(sig) and sig[j + 2].kind == "ident"
              and not _texts(sig, j + 3, "(")):
            out.append(f'optional.of({base}[?"{sig[j + 2].text}"].orValue({{}}))')
            k = j + 3
        elif (_texts(sig, j, ".") and j + 1 < len(sig) and sig[j + 1].kind == "ident"
              and not _texts(sig, j + 2, "(")):
            out.append(f'{base}[?"{sig[j + 1].text}"].orValue({{}})')
            k = j + 2
        else:
            out.append(base)
            k = j
    return "".join(out)


def rewrite_domain_lookups(src: str) -> str:
    """The expression with outer-map lookups made total (see the module docstring)."""
    if "attributes" not in src and "capacity" not in src:
        return src
    return _rewrite(significant(src))


@dataclass(frozen=True, slots=True)
class LiteralCall:
    function: str  # "matches", "duration" or "timestamp"
    literal: str  # the literal's source text
    offset: int  # position of the literal in the source


def literal_calls(src: str) -> list[LiteralCall]:
    """Calls whose checked argument is a string literal: x.matches('re'), matches(x, 're'),
    duration('1s'), timestamp('...')."""
    sig = significant(src)
    found = []
    for k, t in enumerate(sig):
        if t.kind != "ident" or t.text not in ("matches", "duration", "timestamp") or not _texts(sig, k + 1, "("):
            continue
        end = _matching(sig, k + 1)
        if end < 0 or sig[end - 1].kind != "str":
            continue
        single = end - 1 == k + 2
        second = t.text == "matches" and sig[end - 2].text == ","
        if single or second:
            found.append(LiteralCall(t.text, sig[end - 1].text, sig[end - 1].start))
    return found


def position(src: str, offset: int) -> tuple[int, int, str]:
    """1-based line and column of *offset*, and that line's text."""
    line_start = src.rfind("\n", 0, offset) + 1
    line_end = src.find("\n", offset)
    line = src[line_start:line_end if line_end >= 0 else len(src)]
    return src.count("\n", 0, offset) + 1, offset - line_start + 1, line


def _chain_start(sig: list[Token], k: int) -> int:
    """Start of the postfix chain (a.b["c"].d(e)) that ends at sig[k]."""
    closers = {")": "(", "]": "[", "}": "{"}
    while k >= 0:
        t = sig[k]
        if t.kind == "punct" and t.text in closers:
            depth = 0
            while k >= 0:  # back to the matching opener
                if sig[k].text in closers:
                    depth += 1
                elif sig[k].text in closers.values():
                    depth -= 1
                    if depth == 0:
                        break
                k -= 1
            prev = sig[k - 1] if k > 0 else None
            continues = prev is not None and (prev.text in (")", "]") or prev.kind == "ident" and prev.text != "in")
            if sig[k].text == "{" or not continues:
                return k
            k -= 1
        elif t.kind in ("ident", "str"):
            if k > 0 and sig[k - 1].text in (".", "?"):
                k -= 2 if sig[k - 1].text == "." else 3
                continue
            return k
        else:
            return k + 1
    return 0


def macro_receivers(src: str) -> list[str]:
    """Source text of the ranges that comprehension macros iterate over, in order."""
    sig = significant(src)
    found = []
    for k, t in enumerate(sig):
        if t.kind == "ident" and t.text in MACROS and k > 1 and sig[k - 1].text == "." and _texts(sig, k + 1, "("):
            start = _chain_start(sig, k - 2)
            if start <= k - 2:
                found.append("".join(s.lead + s.text for s in sig[start:k - 1]).strip())
    return found
