"""The checked AST of a compiled expression, as plain Python nodes.

cel-expr-python gives no AST object, but `Expression.serialize()` returns cel-cpp's
`cel.expr.CheckedExpr` (in a google.protobuf.Any): the macro-expanded expression tree, the
type the checker deduced for every node (`type_map`) and the overloads every call may
resolve to (`reference_map`). That is what cel-go's cost estimator walks (checker/cost.go),
so the estimator (drasim/cel/cost.py) works on it too.

The message types are declared here from the field numbers of cel-spec's
proto/cel/expr/syntax.proto and checked.proto; only the fields the estimator reads.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cache
from typing import Any

from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto
_SCALARS = {"string": _F.TYPE_STRING, "int64": _F.TYPE_INT64, "uint64": _F.TYPE_UINT64,
            "bool": _F.TYPE_BOOL, "double": _F.TYPE_DOUBLE, "bytes": _F.TYPE_BYTES,
            "int32": _F.TYPE_INT32, "enum": _F.TYPE_INT32}

# message -> [(name, number, type, repeated)]; a type that is not a scalar names a message
# of this file. Enums are read as int32 (same wire encoding).
_MESSAGES: dict[str, list[tuple[str, int, str, bool]]] = {
    "Constant": [("null_value", 1, "enum", False), ("bool_value", 2, "bool", False),
                 ("int64_value", 3, "int64", False), ("uint64_value", 4, "uint64", False),
                 ("double_value", 5, "double", False), ("string_value", 6, "string", False),
                 ("bytes_value", 7, "bytes", False)],
    "Ident": [("name", 1, "string", False)],
    "Select": [("operand", 1, "Expr", False), ("field", 2, "string", False), ("test_only", 3, "bool", False)],
    "Call": [("target", 1, "Expr", False), ("function", 2, "string", False), ("args", 3, "Expr", True)],
    "CreateList": [("elements", 1, "Expr", True), ("optional_indices", 2, "int32", True)],
    "Entry": [("id", 1, "int64", False), ("field_key", 2, "string", False), ("map_key", 3, "Expr", False),
              ("value", 4, "Expr", False), ("optional_entry", 5, "bool", False)],
    "CreateStruct": [("message_name", 1, "string", False), ("entries", 2, "Entry", True)],
    "Comprehension": [("iter_var", 1, "string", False), ("iter_range", 2, "Expr", False),
                      ("accu_var", 3, "string", False), ("accu_init", 4, "Expr", False),
                      ("loop_condition", 5, "Expr", False), ("loop_step", 6, "Expr", False),
                      ("result", 7, "Expr", False), ("iter_var2", 8, "string", False)],
    "Expr": [("id", 2, "int64", False), ("const_expr", 3, "Constant", False),
             ("ident_expr", 4, "Ident", False), ("select_expr", 5, "Select", False),
             ("call_expr", 6, "Call", False), ("list_expr", 7, "CreateList", False),
             ("struct_expr", 8, "CreateStruct", False), ("comprehension_expr", 9, "Comprehension", False)],
    "ListType": [("elem_type", 1, "Type", False)],
    "MapType": [("key_type", 1, "Type", False), ("value_type", 2, "Type", False)],
    "AbstractType": [("name", 1, "string", False), ("parameter_types", 2, "Type", True)],
    "Empty": [],
    "Type": [("dyn", 1, "Empty", False), ("null", 2, "enum", False), ("primitive", 3, "enum", False),
             ("wrapper", 4, "enum", False), ("well_known", 5, "enum", False),
             ("list_type", 6, "ListType", False), ("map_type", 7, "MapType", False),
             ("message_type", 9, "string", False), ("type_param", 10, "string", False),
             ("type", 11, "Type", False), ("error", 12, "Empty", False),
             ("abstract_type", 14, "AbstractType", False)],
    "Reference": [("name", 1, "string", False), ("overload_id", 3, "string", True)],
    "CheckedExpr": [("reference_map", 2, "ReferenceMapEntry", True), ("type_map", 3, "TypeMapEntry", True),
                    ("expr", 4, "Expr", False)],
}
_ONEOF_GROUPS = {"Constant": "constant_kind", "Expr": "expr_kind", "Type": "type_kind", "Entry": "key_kind"}
_ONEOF_EXCLUDED = {"Expr": {"id"}, "Entry": {"id", "value", "optional_entry"}}
_PACKAGE = "drasim.celexpr"  # not cel.expr: never clash with a real registration in the pool


def _message(fdp: descriptor_pb2.FileDescriptorProto, name: str) -> None:
    msg = fdp.message_type.add(name=name)
    oneof = _ONEOF_GROUPS.get(name)
    if oneof:
        msg.oneof_decl.add(name=oneof)
    for fname, number, ftype, repeated in _MESSAGES[name]:
        f = msg.field.add(name=fname, number=number,
                          label=_F.LABEL_REPEATED if repeated else _F.LABEL_OPTIONAL)
        if ftype in _SCALARS:
            f.type = _SCALARS[ftype]
        else:
            f.type = _F.TYPE_MESSAGE
            f.type_name = f".{_PACKAGE}.{ftype}"
        if oneof and fname not in _ONEOF_EXCLUDED.get(name, ()):
            f.oneof_index = 0


def _map_entry(fdp: descriptor_pb2.FileDescriptorProto, name: str, value: str) -> None:
    msg = fdp.message_type.add(name=name)
    msg.field.add(name="key", number=1, type=_F.TYPE_INT64, label=_F.LABEL_OPTIONAL)
    msg.field.add(name="value", number=2, type=_F.TYPE_MESSAGE, label=_F.LABEL_OPTIONAL,
                  type_name=f".{_PACKAGE}.{value}")


@cache
def _checked_expr_class() -> Any:
    fdp = descriptor_pb2.FileDescriptorProto(name="drasim/cel/checked_expr.proto", package=_PACKAGE,
                                             syntax="proto3")
    for name in _MESSAGES:
        _message(fdp, name)
    # Written as repeated entries rather than proto maps: same wire format, no map options.
    _map_entry(fdp, "ReferenceMapEntry", "Reference")
    _map_entry(fdp, "TypeMapEntry", "Type")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.CheckedExpr"))


# --- types --------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class CelType:
    """A checked type: kind is one of bool int uint double string bytes null duration
    timestamp any list map message type_param type dyn error opaque; `name` for message,
    type_param and opaque types; `params` for list (elem), map (key, value), opaque."""

    kind: str
    name: str = ""
    params: tuple[CelType, ...] = ()

    def __str__(self) -> str:
        if self.params:
            return f"{self.name or self.kind}({', '.join(map(str, self.params))})"
        return self.name or self.kind


DYN = CelType("dyn")
_PRIMITIVES = {1: "bool", 2: "int", 3: "uint", 4: "double", 5: "string", 6: "bytes"}
_WELL_KNOWN = {1: "any", 2: "timestamp", 3: "duration"}
# Messages cel-go treats as other CEL types (checker/types.go, common/types well-known).
_MESSAGE_ALIASES = {"google.protobuf.Struct": CelType("map", params=(CelType("string"), DYN)),
                    "google.protobuf.Value": DYN, "google.protobuf.ListValue": CelType("list", params=(DYN,)),
                    "google.protobuf.Duration": CelType("duration"),
                    "google.protobuf.Timestamp": CelType("timestamp")}


def _type(t: Any) -> CelType:
    which = t.WhichOneof("type_kind")
    if which == "primitive":
        return CelType(_PRIMITIVES.get(t.primitive, "dyn"))
    if which == "wrapper":  # nullable scalar: cel-go sizes it like the scalar
        return CelType(_PRIMITIVES.get(t.wrapper, "dyn"))
    if which == "well_known":
        return CelType(_WELL_KNOWN.get(t.well_known, "dyn"))
    if which == "list_type":
        return CelType("list", params=(_type(t.list_type.elem_type),))
    if which == "map_type":
        return CelType("map", params=(_type(t.map_type.key_type), _type(t.map_type.value_type)))
    if which == "message_type":
        return _MESSAGE_ALIASES.get(t.message_type) or CelType("message", t.message_type)
    if which == "type_param":
        return CelType("type_param", t.type_param)
    if which == "abstract_type":
        return CelType("opaque", t.abstract_type.name, tuple(_type(p) for p in t.abstract_type.parameter_types))
    if which == "null":
        return CelType("null")
    if which == "type":
        return CelType("type")
    if which == "error":
        return CelType("error")
    return DYN


# --- expressions --------------------------------------------------------------------------

@dataclass(slots=True, eq=False)
class Node:
    """One expression node. `kind` is const, ident, select, call, list, map, struct or comp.

    const: value.  ident: name.  select: operand, field, test_only.
    call: function, target (None for a global call), args, overloads.
    list: args (the elements).  map / struct: entries [(key node or field name, value node)].
    comp: iter_var, iter_var2, accu_var and the five parts in `parts`
          (iter_range, accu_init, loop_condition, loop_step, result)."""

    id: int
    kind: str
    type: CelType = DYN
    value: Any = None
    name: str = ""
    field: str = ""
    test_only: bool = False
    operand: Node | None = None
    target: Node | None = None
    function: str = ""
    args: list[Node] = dataclasses.field(default_factory=list)
    overloads: tuple[str, ...] = ()
    entries: list[tuple[Any, Node]] = dataclasses.field(default_factory=list)
    iter_var: str = ""
    iter_var2: str = ""
    accu_var: str = ""
    parts: tuple[Node, ...] = ()

    @property
    def iter_range(self) -> Node:
        return self.parts[0]

    @property
    def accu_init(self) -> Node:
        return self.parts[1]

    @property
    def loop_condition(self) -> Node:
        return self.parts[2]

    @property
    def loop_step(self) -> Node:
        return self.parts[3]

    @property
    def result(self) -> Node:
        return self.parts[4]


def _constant(c: Any) -> Any:
    which = c.WhichOneof("constant_kind")
    if which is None or which == "null_value":
        return None
    return getattr(c, which)


class _Builder:
    def __init__(self, types: dict[int, CelType], refs: dict[int, tuple[str, ...]]) -> None:
        self.types = types
        self.refs = refs

    def node(self, e: Any) -> Node:
        # An explicit stack, not recursion: an AST may be deeper than Python's frame limit allows
        # comfortably (cel-cpp accepts up to its own recursion limit of nesting).
        root: Node | None = None
        stack: list[tuple[Any, Any]] = [(e, None)]
        while stack:
            msg, attach = stack.pop()
            n = self._shallow(msg, stack)
            if attach is None:
                root = n
            else:
                attach(n)
        assert root is not None
        return root

    def _shallow(self, e: Any, stack: list) -> Node:
        which = e.WhichOneof("expr_kind")
        n = Node(id=e.id, kind="const", type=self.types.get(e.id, DYN))
        if which == "const_expr":
            n.value = _constant(e.const_expr)
        elif which == "ident_expr":
            n.kind, n.name = "ident", e.ident_expr.name
        elif which == "select_expr":
            s = e.select_expr
            n.kind, n.field, n.test_only = "select", s.field, s.test_only
            stack.append((s.operand, lambda c: setattr(n, "operand", c)))
        elif which == "call_expr":
            c = e.call_expr
            n.kind, n.function, n.overloads = "call", c.function, self.refs.get(e.id, ())
            n.args = [None] * len(c.args)  # type: ignore[list-item]
            if c.HasField("target"):
                stack.append((c.target, lambda t: setattr(n, "target", t)))
            for i, a in enumerate(c.args):
                stack.append((a, lambda x, i=i: n.args.__setitem__(i, x)))
        elif which == "list_expr":
            n.kind = "list"
            n.args = [None] * len(e.list_expr.elements)  # type: ignore[list-item]
            for i, a in enumerate(e.list_expr.elements):
                stack.append((a, lambda x, i=i: n.args.__setitem__(i, x)))
        elif which == "struct_expr":
            s = e.struct_expr
            n.kind = "struct" if s.message_name else "map"
            n.name = s.message_name
            n.entries = [None] * len(s.entries)  # type: ignore[list-item]
            for i, entry in enumerate(s.entries):
                self._entry(n, i, entry, stack)
        elif which == "comprehension_expr":
            c = e.comprehension_expr
            n.kind, n.iter_var, n.iter_var2, n.accu_var = "comp", c.iter_var, c.iter_var2, c.accu_var
            parts: list = [None] * 5
            n.parts = parts  # type: ignore[assignment]
            for i, part in enumerate((c.iter_range, c.accu_init, c.loop_condition, c.loop_step, c.result)):
                stack.append((part, lambda x, i=i: parts.__setitem__(i, x)))
        return n

    @staticmethod
    def _entry(n: Node, i: int, entry: Any, stack: list) -> None:
        holder: list = [entry.field_key if entry.WhichOneof("key_kind") == "field_key" else None, None]
        n.entries[i] = holder  # type: ignore[call-overload]
        if entry.WhichOneof("key_kind") == "map_key":
            stack.append((entry.map_key, lambda k: holder.__setitem__(0, k)))
        stack.append((entry.value, lambda v: holder.__setitem__(1, v)))


def checked_ast(serialized: bytes) -> Node:
    """The root node of `Expression.serialize()` (a CheckedExpr in a google.protobuf.Any)."""
    wrapper = any_pb2.Any()
    wrapper.ParseFromString(serialized)
    checked = _checked_expr_class()()
    checked.ParseFromString(wrapper.value)
    types = {entry.key: _type(entry.value) for entry in checked.type_map}
    refs = {entry.key: tuple(entry.value.overload_id) for entry in checked.reference_map}
    return _Builder(types, refs).node(checked.expr)
