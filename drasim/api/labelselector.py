"""metav1.LabelSelector, compiled once and matched against label maps (pod or namespace labels).

k8s: staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go (LabelSelectorAsSelector),
     staging/src/k8s.io/apimachinery/pkg/labels/selector.go (Requirement.Matches, Nothing, Everything).

A missing selector (None) selects nothing; an empty one ({}) selects everything.
matchLabels and matchExpressions are ANDed. Operators: In, NotIn, Exists,
DoesNotExist (the Gt/Lt of node selectors do not exist here). A selector that
does not parse raises LabelSelectorError with apimachinery's message; the API
server rejects such selectors, so this is only reached by unvalidated input.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["EVERYTHING", "NOTHING", "LabelSelector", "LabelSelectorError", "compile_label_selector"]

_IN, _NOT_IN, _EXISTS, _DOES_NOT_EXIST = range(4)
_OPS = {"In": _IN, "NotIn": _NOT_IN, "Exists": _EXISTS, "DoesNotExist": _DOES_NOT_EXIST}

# (key, op, values): values is a frozenset for In/NotIn, None otherwise.
_Req = tuple[str, int, "frozenset[str] | None"]


class LabelSelectorError(ValueError):
    """A label selector that metav1.LabelSelectorAsSelector would refuse."""


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """A compiled selector. `nothing` marks labels.Nothing() (matches no label set)."""

    requirements: tuple[_Req, ...] = ()
    nothing: bool = False

    @property
    def empty(self) -> bool:
        """k8s: Selector.Empty() — no requirements (labels.Everything()); Nothing() is not empty."""
        return not self.requirements and not self.nothing

    def matches(self, labels: dict) -> bool:
        if self.nothing:
            return False
        for key, op, values in self.requirements:
            if op == _IN:
                if key not in labels or labels[key] not in values:  # type: ignore[operator]
                    return False
            elif op == _NOT_IN:
                if key in labels and labels[key] in values:  # type: ignore[operator]
                    return False
            elif op == _EXISTS:
                if key not in labels:
                    return False
            elif key in labels:
                return False
        return True

    def with_match_labels(self, match_labels: dict) -> "LabelSelector":
        """`key In (value)` for each pair, ANDed with this selector.

        k8s: podtopologyspread/common.go mergeLabelSetWithSelector — Nothing() stays
        Nothing() (its requirements cannot be listed), so matchLabelKeys never widen it.
        """
        if self.nothing or not match_labels:
            return self
        added = tuple((k, _IN, frozenset((v,))) for k, v in sorted(match_labels.items()))
        return LabelSelector(added + self.requirements)


NOTHING = LabelSelector(nothing=True)
EVERYTHING = LabelSelector()


def _requirement(expr: dict) -> _Req:
    """One matchExpressions entry. k8s: labels.NewRequirement, messages verbatim."""
    key = expr.get("key") or ""
    operator = expr.get("operator") or ""
    values = list(expr.get("values") or ())
    op = _OPS.get(operator)
    if op is None:
        raise LabelSelectorError(f'"{operator}" is not a valid label selector operator')
    if op in (_IN, _NOT_IN):
        if not values:
            raise LabelSelectorError("values: Invalid value: []: for 'in', 'notin' operators, "
                                     "values set can't be empty")
        return (key, op, frozenset(values))
    if values:
        raise LabelSelectorError(f"values: Invalid value: {values}: values set must be empty "
                                 "for exists and does not exist")
    return (key, op, None)


def compile_label_selector(selector: dict | None) -> LabelSelector:
    """k8s: LabelSelectorAsSelector. None → NOTHING, {} → EVERYTHING."""
    if selector is None:
        return NOTHING
    match_labels = selector.get("matchLabels") or {}
    exprs = selector.get("matchExpressions") or ()
    if not match_labels and not exprs:
        return EVERYTHING
    reqs = [(k, _IN, frozenset((v,))) for k, v in sorted(match_labels.items())]
    reqs.extend(_requirement(e) for e in exprs)
    return LabelSelector(tuple(reqs))
