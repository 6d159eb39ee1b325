"""The subset of Go's text/template that scheduler_perf templates use.

k8s: test/integration/scheduler_perf (getSpecFromTextTemplateFile, getTemplateFuncs);
Go: text/template (parse, exec, funcs). Supported: text, `{{- -}}` trimming, comments,
fields (`.Index`, `.a.b`, `.`), variables (`$x := …`, `$x = …`, `$`), literals, parenthesised
pipelines, `|`, `if`/`else`/`else if`/`end`, `range` (over an int, a list or a map, with
`$v :=` or `$i, $v :=`, and `else`), `with`, and the built-ins and, or, not, eq, ne, lt, le,
gt, ge, len, index, print, println. Substitution is verbatim: no escaping.

A template is parsed once (`parse`) and executed many times (`Template.execute`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from drasim.bench.gofuncs import FUNCS, GoTemplateError, go_print, truth
from drasim.bench.golex import split_actions, tokens, unquote

__all__ = ["GoTemplateError", "Template", "parse"]

_MISSING = object()   # a field that is not there: Go's invalid reflect.Value, printed "<no value>"


# --- syntax tree ----------------------------------------------------------------------------------

@dataclass(slots=True)
class Field:
    var: str | None          # None: fields of dot; "$x": fields of a variable
    names: tuple[str, ...]   # () for "." or a bare variable


@dataclass(slots=True)
class Literal:
    value: Any


@dataclass(slots=True)
class Ident:
    name: str


@dataclass(slots=True)
class Pipeline:
    decl: tuple[str, ...]
    assign: bool             # `=` (assign to an existing variable) rather than `:=`
    cmds: list[list[Any]]    # each command is a list of operands
    line: int = 0


@dataclass(slots=True)
class Block:
    kind: str                # "if", "range", "with"
    pipe: Pipeline
    body: list = field(default_factory=list)
    orelse: list = field(default_factory=list)
    chained: bool = False    # an `else if`: shares its parent's `end`


# --- parsing ----------------------------------------------------------------------------------

class _Parser:
    def __init__(self, toks: list[tuple[str, str]], where: str, line: int = 0) -> None:
        self.toks, self.i, self.where, self.line = toks, 0, where, line   # the action's line

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        if tok is None:
            raise GoTemplateError(f"{self.where}: unexpected end of action")
        self.i += 1
        return tok

    def pipeline(self, allow_decl: bool = True, line: int = 0, in_range: bool = False) -> Pipeline:
        decl, assign = self._declaration(in_range) if allow_decl else ((), False)
        cmds = [self.command()]
        while self.peek() == ("op", "|"):
            self.take()
            cmds.append(self.command())
        return Pipeline(decl, assign, cmds, line)

    def _declaration(self, in_range: bool) -> tuple[tuple[str, ...], bool]:
        toks, i = self.toks, self.i
        names: list[str] = []
        while i < len(toks) and toks[i][0] == "var" and "." not in toks[i][1]:
            names.append(toks[i][1])
            i += 1
            if in_range and i < len(toks) and toks[i] == ("op", ",") and len(names) == 1:
                i += 1
                continue
            break
        if names and i < len(toks) and toks[i] in (("decl", ":="), ("op", "=")):
            self.i = i + 1
            return tuple(names), toks[i][1] == "="
        return (), False

    def command(self) -> list[Any]:
        ops: list[Any] = []
        while (tok := self.peek()) is not None and tok not in (("op", "|"), ("op", ")")):
            ops.append(self.operand())
        if not ops:
            raise GoTemplateError(f"{self.where}: missing value for command")
        return ops

    def operand(self) -> Any:
        kind, text = self.take()
        if kind == "field":
            return Field(None, tuple(n for n in text.split(".") if n))
        if kind == "var":
            var, *names = text.split(".")
            return Field(var, tuple(names))
        if kind in ("str", "raw"):
            return Literal(unquote(text) if kind == "str" else text[1:-1])
        if kind == "num":
            return Literal(_number(text))
        if kind == "ident":
            if text in ("true", "false"):
                return Literal(text == "true")
            if text == "nil":
                return Literal(None)
            return Ident(text)
        if (kind, text) == ("op", "("):
            pipe = self.pipeline(line=self.line)   # errors inside name the action's line
            if self.take() != ("op", ")"):
                raise GoTemplateError(f"{self.where}: unclosed left paren")
            return pipe
        raise GoTemplateError(f"{self.where}: unexpected {text!r} in operand")


def _number(text: str) -> int | float:
    if text.lower().lstrip("+-").startswith("0x"):
        return int(text, 16)
    try:
        return int(text)
    except ValueError:
        return float(text)


_KEYWORDS = ("if", "range", "with", "else", "end")


def _build_tree(src: str, name: str) -> list:
    root: list = []
    stack: list[tuple[Block | None, list]] = [(None, root)]
    for item in split_actions(src, name):
        out = stack[-1][1]
        if item[0] == "text":
            if item[1]:
                out.append(item[1])
            continue
        body, line = item[1], item[2]
        where = f"template: {name}:{line}"
        if body.startswith("/*"):
            continue
        toks = tokens(body, where)
        if not toks:
            raise GoTemplateError(f"{where}: missing value for command")
        head = toks[0][1] if toks[0][0] == "ident" else None
        p = _Parser(toks[1:] if head in _KEYWORDS else toks, where, line)
        if head in ("if", "range", "with"):
            block = Block(head, p.pipeline(line=line, in_range=head == "range"))
            out.append(block)
            stack.append((block, block.body))
        elif head == "else":
            block = stack[-1][0]
            if block is None:
                raise GoTemplateError(f"{where}: unexpected {{{{else}}}}")
            if p.peek() in (("ident", "if"), ("ident", "with")):
                kind = p.take()[1]
                nested = Block(kind, p.pipeline(line=line), chained=True)
                block.orelse.append(nested)
                stack[-1] = (block, block.orelse)
                stack.append((nested, nested.body))
            else:
                stack[-1] = (block, block.orelse)
        elif head == "end":
            while True:
                if len(stack) == 1:
                    raise GoTemplateError(f"{where}: unexpected {{{{end}}}}")
                block, _ = stack.pop()
                if not block.chained:
                    break
        else:
            pipe = p.pipeline(line=line)
            out.append(pipe)
        if p.peek() is not None:
            raise GoTemplateError(f"{where}: unexpected {p.peek()[1]!r} in command")
    if len(stack) > 1:
        raise GoTemplateError(f"template: {name}:{src.count(chr(10)) + 1}: unexpected EOF")
    return root


# --- execution --------------------------------------------------------------------------------

class _ArgumentError(GoTemplateError):
    """An error evaluating a lazily taken argument, passed through the call unchanged."""


class _Exec:
    __slots__ = ("name", "out", "vars", "funcs")

    def __init__(self, name: str, data: Any, funcs: dict[str, Callable]) -> None:
        self.name = name
        self.out: list[str] = []
        self.vars: list[tuple[str, Any]] = [("$", data)]
        self.funcs = funcs

    def walk(self, nodes: list, dot: Any) -> None:
        for node in nodes:
            if isinstance(node, str):
                self.out.append(node)
            elif isinstance(node, Pipeline):
                value = self.pipeline(node, dot)
                if not node.decl:
                    self.out.append("<no value>" if value is _MISSING else go_print(value))
            else:
                self.block(node, dot)

    def block(self, node: Block, dot: Any) -> None:
        mark = len(self.vars)
        if node.kind == "range":
            self.range_(node, dot)
        else:
            value = self.pipeline(node.pipe, dot)
            taken = truth(None if value is _MISSING else value)
            if taken:
                self.walk(node.body, value if node.kind == "with" else dot)
            else:
                self.walk(node.orelse, dot)
        del self.vars[mark:]

    def range_(self, node: Block, dot: Any) -> None:
        pipe = node.pipe
        value = self.pipeline(Pipeline((), False, pipe.cmds, pipe.line), dot)
        if isinstance(value, bool) or value is _MISSING or value is None:
            items: list = []
        elif isinstance(value, int):
            items = [(i, i) for i in range(value)]
        elif isinstance(value, (list, tuple)):
            items = list(enumerate(value))
        elif isinstance(value, dict):
            items = [(k, value[k]) for k in sorted(value)]
        else:
            raise GoTemplateError(f"template: {self.name}:{pipe.line}: range can't iterate over {go_print(value)}")
        if not items:
            self.walk(node.orelse, dot)
            return
        mark = len(self.vars)
        for key, elem in items:
            del self.vars[mark:]
            if len(pipe.decl) == 1:
                self.vars.append((pipe.decl[0], elem))
            elif len(pipe.decl) == 2:
                self.vars.append((pipe.decl[0], key))
                self.vars.append((pipe.decl[1], elem))
            self.walk(node.body, elem)

    def pipeline(self, pipe: Pipeline, dot: Any) -> Any:
        value: Any = _MISSING
        for i, cmd in enumerate(pipe.cmds):
            value = self.command(cmd, dot, pipe.line, value if i else _MISSING, piped=i > 0)
        if pipe.decl:
            if pipe.assign:
                self.set_var(pipe.decl[0], value, pipe.line)
            else:
                self.vars.append((pipe.decl[0], value))
        return value

    def command(self, cmd: list, dot: Any, line: int, final: Any, piped: bool) -> Any:
        head = cmd[0]
        if isinstance(head, Ident):
            fn = self.funcs.get(head.name)
            if fn is None:
                raise GoTemplateError(f'template: {self.name}:{line}: function "{head.name}" not defined')
            lazy = getattr(fn, "lazy", False)
            if lazy:   # and/or: arguments evaluated only as far as needed
                args = [(lambda a=a: self.lazy_arg(a, dot, line)) for a in cmd[1:]]
                if piped:
                    args.append(lambda: final)
            else:
                args = [self.arg(a, dot, line) for a in cmd[1:]]
                if piped:
                    args.append(final)
            try:
                return fn(*args)
            except _ArgumentError:
                raise   # Go's evalArg reports it as it is, not as the call's error
            except GoTemplateError as e:
                raise GoTemplateError(f"template: {self.name}:{line}: error calling {head.name}: {e}") from None
            except TypeError:
                raise GoTemplateError(f"template: {self.name}:{line}: wrong number of args for {head.name}: "
                                      f"got {len(args)}") from None
        if len(cmd) > 1 or piped:
            raise GoTemplateError(f"template: {self.name}:{line}: can't give argument to non-function")
        return self.arg(head, dot, line, allow_missing=True)

    def lazy_arg(self, node: Any, dot: Any, line: int) -> Any:
        try:
            return self.arg(node, dot, line)
        except _ArgumentError:
            raise
        except GoTemplateError as e:
            raise _ArgumentError(str(e)) from None

    def arg(self, node: Any, dot: Any, line: int, allow_missing: bool = False) -> Any:
        if isinstance(node, Literal):
            return node.value
        if isinstance(node, Pipeline):
            value = self.pipeline(node, dot)
        elif isinstance(node, Field):
            value = self.field(node, dot, line)
        else:
            raise GoTemplateError(f"template: {self.name}:{line}: can't use {node.name} as a value")
        if value is _MISSING and not allow_missing:
            return None   # a missing map key passed to a function is a nil interface
        return value

    def field(self, node: Field, dot: Any, line: int) -> Any:
        value = dot if node.var is None else self.get_var(node.var, line)
        for name in node.names:
            if isinstance(value, dict):
                value = value.get(name, _MISSING)
            elif value is None or value is _MISSING:
                raise GoTemplateError(f"template: {self.name}:{line}: nil pointer evaluating interface {{}}.{name}")
            else:
                raise GoTemplateError(f"template: {self.name}:{line}: can't evaluate field {name} in "
                                      f"type {type(value).__name__}")
        return value

    def get_var(self, name: str, line: int) -> Any:
        for vname, value in reversed(self.vars):
            if vname == name:
                return value
        raise GoTemplateError(f'template: {self.name}:{line}: undefined variable "{name}"')

    def set_var(self, name: str, value: Any, line: int) -> None:
        for i in range(len(self.vars) - 1, -1, -1):
            if self.vars[i][0] == name:
                self.vars[i] = (name, value)
                return
        raise GoTemplateError(f'template: {self.name}:{line}: undefined variable "{name}"')


class Template:
    """A parsed template; `execute(data)` renders it (data is usually a dict: Index, Count, params)."""

    __slots__ = ("name", "tree", "funcs")

    def __init__(self, name: str, tree: list, funcs: dict[str, Callable]) -> None:
        self.name, self.tree, self.funcs = name, tree, funcs

    def execute(self, data: Any) -> str:
        ex = _Exec(self.name, data, self.funcs)
        ex.walk(self.tree, data)
        return "".join(ex.out)


def parse(src: str, name: str = "object", funcs: dict[str, Callable] | None = None) -> Template:
    """Parse *src*; raises GoTemplateError (with `template: name:line:`) for bad syntax."""
    return Template(name, _build_tree(src, name), FUNCS if funcs is None else {**FUNCS, **funcs})
