"""Node selection for slices and devices: nodeName, allNodes, or a core/v1 NodeSelector (spec §5.2).

k8s: staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go
(NewNodeSelector + Match): terms are ORed, requirements inside a term ANDed, an empty term
matches nothing; matchExpressions test labels, matchFields test `metadata.name` only.
"""
from __future__ import annotations

from drasim.api.nodeselector import node_selector_matches


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
    try:
        return node_selector_matches(selector, node)
    except ValueError as e:
        raise NodeSelectorError(str(e)) from None
