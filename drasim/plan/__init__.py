"""Planning answers over a simulated cluster: clients of the control plane, never part of it.

    audit.audit(documents) -> audit.Report   is this cluster ready to move from device plugins to DRA?
    inventory.inventory(cp)                  who asks for which extended resource, and what serves it
    ledger.ledger(cp)                        per namespace, what its device counts bought in hardware
    scaleout.plan(documents, candidates)     which nodes to add so the pending pods schedule
"""
from drasim.plan import audit, inventory, ledger, scaleout
from drasim.plan.audit import ERROR, INFO, WARNING, Finding, Report
from drasim.plan.inventory import NameInventory, NodeBackend, Use

__all__ = ["ERROR", "INFO", "WARNING", "Finding", "NameInventory", "NodeBackend", "Report", "Use", "audit",
           "inventory", "ledger", "scaleout"]
