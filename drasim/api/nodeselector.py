"""Node selectors and node affinity terms, compiled once and matched against nodes.

k8s: staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go,
     staging/src/k8s.io/apimachinery/pkg/labels/selector.go (Requirement.Matches),
     staging/src/k8s.io/apimachinery/pkg/fields/selector.go (one-term selectors).

A v1.NodeSelector is a list of terms, ORed; a term's matchExpressions (labels)
and matchFields (only `metadata.name` exists on a node) are ANDed. A term with
neither selects nothing. A term that does not parse (unknown operator, wrong
number of values, a non-integer for Gt/Lt) is reported in `parse_errors` and
never matches; the other terms still do ("lazy errors", as kube-scheduler's
NodeAffinity filter uses them). Callers that must reject bad selectors (the
DRA allocator, for ResourceSlice node selectors) check `parse_errors`.

Label key/value syntax is not re-validated here: the API server rejects
malformed keys and values before the scheduler ever sees them.
"""
from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass

__all__ = [
    "NodeSelector",
    "PreferredSchedulingTerms",
    "RequiredNodeAffinity",
    "compile_node_selector",
    "compile_preferred_terms",
    "node_selector_matches",
    "parse_go_int64",
    "required_node_affinity",
]

_IN, _NOT_IN, _EXISTS, _DOES_NOT_EXIST, _GT, _LT = range(6)
_LABEL_OPS = {"In": _IN, "NotIn": _NOT_IN, "Exists": _EXISTS, "DoesNotExist": _DOES_NOT_EXIST, "Gt": _GT, "Lt": _LT}
_FIELD_OPS = {"In": _IN, "NotIn": _NOT_IN}
_NAME_FIELD = "metadata.name"

# Go's strconv.ParseInt(s, 10, 64): optional sign, ASCII digits, nothing else.
_GO_INT = re.compile(r"[+-]?[0-9]+")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def parse_go_int64(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64), or None where Go returns an error."""
    if not _GO_INT.fullmatch(text):
        return None
    value = int(text)
    return value if _INT64_MIN <= value <= _INT64_MAX else None


# A compiled requirement: (key, op, operand). The operand is a frozenset of
# values for In/NotIn, an int for Gt/Lt, None for Exists/DoesNotExist.
_Req = tuple[str, int, object]


def _compile_label_req(expr: dict) -> _Req | str:
    """One matchExpressions entry, or the parse error. k8s: labels.NewRequirement."""
    key = expr.get("key") or ""
    operator = expr.get("operator") or ""
    values = list(expr.get("values") or ())
    op = _LABEL_OPS.get(operator)
    if op is None:
        return f"{operator!r} is not a valid node selector operator"
    if op in (_IN, _NOT_IN):
        if not values:
            return "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty"
        return (key, op, frozenset(values))
    if op in (_EXISTS, _DOES_NOT_EXIST):
        if values:
            return f"values: Invalid value: {values}: values set must be empty for exists and does not exist"
        return (key, op, None)
    if len(values) != 1:
        return f"values: Invalid value: {values}: for 'Gt', 'Lt' operators, exactly one value is required"
    bound = parse_go_int64(values[0])
    if bound is None:
        return f"values[0]: Invalid value: {values[0]!r}: for 'Gt', 'Lt' operators, the value must be an integer"
    return (key, op, bound)


def _compile_field_req(expr: dict) -> _Req | str:
    """One matchFields entry. k8s: nodeSelectorRequirementsAsFieldSelector (In/NotIn, one value)."""
    operator = expr.get("operator") or ""
    values = list(expr.get("values") or ())
    op = _FIELD_OPS.get(operator)
    if op is None:
        return f"{operator!r} is not a valid node field selector operator"
    if len(values) != 1:
        return f"unexpected number of value ({len(values)}) for node field selector operator {operator!r}"
    return (expr.get("key") or "", op, values[0])


def _label_req_matches(req: _Req, labels: dict) -> bool:
    """k8s: labels.Requirement.Matches."""
    key, op, operand = req
    if op == _IN:
        return key in labels and labels[key] in operand  # type: ignore[operator]
    if op == _NOT_IN:
        return key not in labels or labels[key] not in operand  # type: ignore[operator]
    if op == _EXISTS:
        return key in labels
    if op == _DOES_NOT_EXIST:
        return key not in labels
    if key not in labels:
        return False
    value = parse_go_int64(labels[key])
    if value is None:
        return False
    return value > operand if op == _GT else value < operand  # type: ignore[operator]


@dataclass(frozen=True, slots=True)
class _Term:
    labels: tuple[_Req, ...]
    fields: tuple[_Req, ...]

    def matches(self, node_labels: dict, node_name: str) -> bool:
        for req in self.labels:
            if not _label_req_matches(req, node_labels):
                return False
        # k8s: fields are only checked when the node has a name (the field set is not empty).
        if node_name:
            for key, op, value in self.fields:
                got = node_name if key == _NAME_FIELD else ""
                if (got == value) != (op == _IN):
                    return False
        return True


def _is_empty_term(term: dict) -> bool:
    return not term.get("matchExpressions") and not term.get("matchFields")


def _compile_term(term: dict) -> _Term | str:
    labels: list[_Req] = []
    for expr in term.get("matchExpressions") or ():
        req = _compile_label_req(expr)
        if isinstance(req, str):
            return req
        labels.append(req)
    fields: list[_Req] = []
    for expr in term.get("matchFields") or ():
        req = _compile_field_req(expr)
        if isinstance(req, str):
            return req
        fields.append(req)
    return _Term(tuple(labels), tuple(fields))


def _node_labels(node: dict) -> dict:
    return node.get("metadata", {}).get("labels") or {}


def _node_name(node: dict) -> str:
    return node.get("metadata", {}).get("name") or ""


@dataclass(frozen=True, slots=True)
class NodeSelector:
    """A compiled v1.NodeSelector: terms ORed, unparsable terms never match."""

    terms: tuple[_Term, ...]
    parse_errors: tuple[str, ...] = ()

    def matches(self, node: dict) -> bool:
        labels, name = _node_labels(node), _node_name(node)
        return any(t.matches(labels, name) for t in self.terms)


def compile_node_selector(selector: dict) -> NodeSelector:
    """k8s: nodeaffinity.NewLazyErrorNodeSelector. Empty terms are dropped (they select nothing)."""
    terms: list[_Term] = []
    errors: list[str] = []
    for term in selector.get("nodeSelectorTerms") or ():
        if _is_empty_term(term):
            continue
        compiled = _compile_term(term)
        if isinstance(compiled, str):
            errors.append(compiled)
        else:
            terms.append(compiled)
    return NodeSelector(tuple(terms), tuple(errors))


@dataclass(frozen=True, slots=True)
class PreferredSchedulingTerms:
    """Compiled preferredDuringSchedulingIgnoredDuringExecution: (weight, term) pairs."""

    terms: tuple[tuple[int, _Term], ...]

    def score(self, node: dict) -> int:
        """Sum of the weights of the terms that match the node."""
        labels, name = _node_labels(node), _node_name(node)
        return sum(w for w, t in self.terms if t.matches(labels, name))


def compile_preferred_terms(terms: list[dict] | None) -> tuple[PreferredSchedulingTerms, tuple[str, ...]]:
    """k8s: nodeaffinity.NewPreferredSchedulingTerms. Weight-0 and empty terms are skipped.

    Returns the compiled terms and the parse errors; kube-scheduler treats any
    parse error as an error of the whole PreScore (the pod's cycle fails).
    """
    out: list[tuple[int, _Term]] = []
    errors: list[str] = []
    for term in terms or ():
        weight = int(term.get("weight") or 0)
        preference = term.get("preference") or {}
        if weight == 0 or _is_empty_term(preference):
            continue
        compiled = _compile_term(preference)
        if isinstance(compiled, str):
            errors.append(compiled)
        else:
            out.append((weight, compiled))
    return PreferredSchedulingTerms(tuple(out)), tuple(errors)


@dataclass(frozen=True, slots=True)
class RequiredNodeAffinity:
    """pod.spec.nodeSelector AND requiredDuringSchedulingIgnoredDuringExecution.

    k8s: nodeaffinity.GetRequiredNodeAffinity / RequiredNodeAffinity.Match.
    `node_selector` is None when the pod has no required node affinity; a
    present one with no (usable) terms matches nothing.
    """

    label_selector: tuple[tuple[str, str], ...] = ()
    node_selector: NodeSelector | None = None

    def matches(self, node: dict) -> bool:
        if self.label_selector:
            labels = _node_labels(node)
            for key, value in self.label_selector:
                if labels.get(key) != value:
                    return False
        if self.node_selector is not None:
            return self.node_selector.matches(node)
        return True


def required_node_affinity(pod: dict) -> RequiredNodeAffinity:
    """Compile a pod's hard node constraints once (per scheduling cycle)."""
    spec = pod.get("spec") or {}
    selector = tuple((spec.get("nodeSelector") or {}).items())
    required = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution"))
    return RequiredNodeAffinity(selector, None if required is None else compile_node_selector(required))


# Compiled selectors by object identity (the selector dict is kept so its id is
# not reused while cached). Objects are never mutated, so identity is enough.
_COMPILED: OrderedDict[int, tuple[dict, NodeSelector]] = OrderedDict()
_COMPILED_MAX = 4096


def node_selector_matches(selector: dict, node: dict) -> bool:
    """Strict matching for API objects (e.g. a ResourceSlice's spec.nodeSelector).

    k8s: nodeaffinity.NewNodeSelector, which fails on any unparsable term;
    raises ValueError with the parse errors in that case.
    """
    key = id(selector)
    hit = _COMPILED.get(key)
    if hit is not None and hit[0] is selector:
        _COMPILED.move_to_end(key)
        compiled = hit[1]
    else:
        compiled = compile_node_selector(selector)
        _COMPILED[key] = (selector, compiled)
        if len(_COMPILED) > _COMPILED_MAX:
            _COMPILED.popitem(last=False)
    if compiled.parse_errors:
        raise ValueError("; ".join(compiled.parse_errors))
    return compiled.matches(node)
