"""Node selection for slices and devices: nodeName, allNodes, or a core/v1 NodeSelector (spec §5.2).

k8s: staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go
(NewNodeSelector + Match): terms are ORed, requirements inside a term ANDed, an empty term
matches nothing; matchExpressions test labels, matchFields test `metadata.name` only.
"""
from __future__ import annotations


class NodeSelectorError(ValueError):
    """A node selector that cannot be parsed (only possible for unvalidated input)."""


def node_matches(node: dict, node_name: str, all_nodes: bool, selector: dict | None) -> bool:
    """k8s: pools_incubating.go NodeMatches."""
    if node_name:
        return _name(node) == node_name
    if all_nodes:
        return True
    if selector is not None:
        return selector_matches(selector, node)
    return False


def _name(node: dict) -> str:
    return (node.get("metadata") or {}).get("name", "")


def selector_matches(selector: dict, node: dict) -> bool:
    """Does a NodeSelector match the node? Raises NodeSelectorError for an unparsable requirement."""
    meta = node.get("metadata") or {}
    labels = meta.get("labels") or {}
    fields = {"metadata.name": meta.get("name", "")}
    matched = False
    for i, term in enumerate(selector.get("nodeSelectorTerms") or ()):
        exprs = term.get("matchExpressions") or ()
        flds = term.get("matchFields") or ()
        if not exprs and not flds:
            continue  # an empty term matches no objects
        # Parse every requirement (errors are reported even if an earlier term matched).
        ok = all(_label_requirement(r, labels, i, j) for j, r in enumerate(exprs))
        ok = all(_field_requirement(r, fields, i, j) for j, r in enumerate(flds)) and ok
        matched = matched or ok
    return matched


def _label_requirement(req: dict, labels: dict, term: int, index: int) -> bool:
    key, op, values = req.get("key", ""), req.get("operator", ""), list(req.get("values") or ())
    where = f"nodeSelectorTerms[{term}].matchExpressions[{index}]"
    if op in ("In", "NotIn"):
        if not values:
            raise NodeSelectorError(f"{where}.values: Required value: for 'in', 'notin' operators, values set can't be empty")
        present = key in labels
        if op == "In":
            return present and labels[key] in values
        return not present or labels[key] not in values
    if op in ("Exists", "DoesNotExist"):
        if values:
            raise NodeSelectorError(f"{where}.values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
        return (key in labels) == (op == "Exists")
    if op in ("Gt", "Lt"):
        if len(values) != 1:
            raise NodeSelectorError(f"{where}.values: Required value: for 'Gt', 'Lt' operators, exactly one value is required")
        try:
            bound = int(values[0])
        except ValueError:
            raise NodeSelectorError(f"{where}.values[0]: Invalid value: {values[0]!r}: for 'Gt', 'Lt' operators, the value must be an integer") from None
        try:
            have = int(labels[key])
        except (KeyError, ValueError):
            return False
        return have > bound if op == "Gt" else have < bound
    raise NodeSelectorError(f"{where}.operator: Invalid value: {op!r}: not a valid selector operator")


def _field_requirement(req: dict, fields: dict, term: int, index: int) -> bool:
    key, op, values = req.get("key", ""), req.get("operator", ""), list(req.get("values") or ())
    where = f"nodeSelectorTerms[{term}].matchFields[{index}]"
    if len(values) != 1:
        raise NodeSelectorError(f"{where}.values: Invalid value: {values!r}: must have one element")
    if op == "In":
        return fields.get(key, "") == values[0]
    if op == "NotIn":
        return fields.get(key, "") != values[0]
    raise NodeSelectorError(f"{where}.operator: Invalid value: {op!r}: not a valid selector operator")
