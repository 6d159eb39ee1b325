"""The object model: kinds, quantities, loading, defaulting, validation, and the shared
rules of the API (node selectors, device taints, extended resource names).

Objects are plain dicts in the Kubernetes JSON shape; these modules read and check them.
"""
from drasim.api.kinds import ALL_KINDS, BY_KIND, Kind, lookup
from drasim.api.loader import Document, load_paths
from drasim.api.quantity import Quantity, QuantityError, parse_quantity

__all__ = ["ALL_KINDS", "BY_KIND", "Document", "Kind", "Quantity", "QuantityError", "load_paths", "lookup",
           "parse_quantity"]
