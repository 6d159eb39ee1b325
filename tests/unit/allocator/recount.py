"""What AllocatedState must hold, recounted from the live allocations without its code
(allocateddevices.go foreachAllocatedDevice: every result of every allocated claim)."""
from __future__ import annotations

from collections import Counter
from fractions import Fraction

from drasim.api.quantity import parse_quantity


def recount(allocations, consumable: bool = True) -> tuple[dict, dict, dict]:
    """(exclusive device -> holders, shared device -> shares, shared device -> consumed capacity,
    zero amounts left out)."""
    exclusive: Counter = Counter()
    shares: Counter = Counter()
    capacity: dict[str, dict[str, Fraction]] = {}
    for allocation in allocations:
        for r in (allocation.get("devices") or {}).get("results") or ():
            if r.get("adminAccess"):
                continue
            device = f"{r.get('driver', '')}/{r.get('pool', '')}/{r.get('device', '')}"
            if consumable and r.get("shareID") is not None:
                shares[device] += 1
                if r.get("consumedCapacity") is not None:
                    agg = capacity.setdefault(device, {})
                    for name, q in r["consumedCapacity"].items():
                        agg[name] = agg.get(name, 0) + parse_quantity(q).value
            else:
                exclusive[device] += 1
    return dict(exclusive), dict(shares), {d: {n: v for n, v in agg.items() if v} for d, agg in capacity.items()}


def counted(state) -> tuple[dict, dict, dict]:
    """The same three of an AllocatedState (a released share's names stay at 0 while others hold it)."""
    return (state._exclusive, state._shares,
            {d: {n: v for n, v in agg.items() if v} for d, agg in state._capacity.items()})
