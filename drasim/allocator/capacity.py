"""Consumable capacity: how much of a device's capacity one pick consumes, and whether it fits (spec §12).

k8s: staging/src/k8s.io/dynamic-resource-allocation/structured/internal/incubating/consumable_capacity.go
"""
from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from drasim.api.quantity import BINARY_SI, Quantity

if TYPE_CHECKING:
    from drasim.allocator.model import CapacityRec, DeviceRec


def _ceil(v: Fraction) -> int:
    """Quantity.Value() in Go: rounded up to an integer."""
    return -((-v.numerator) // v.denominator)


def _go_rem(a: int, b: int) -> int:
    """Go's `%`: the remainder takes the sign of the dividend."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def consumed_amount(requested: Quantity | None, cap: CapacityRec) -> Quantity:
    """The amount one pick consumes (spec §12.2): the request rounded by the policy, else default or all."""
    if requested is None:
        if cap.policy and cap.default is not None:
            return cap.default
        return cap.value
    if not cap.policy:
        return requested
    if cap.has_range and cap.range_min is not None:
        return _round_up_range(requested, cap)
    if cap.valid_values is not None:
        for valid in cap.valid_values:  # ascending, ensured by validation
            if requested.value <= valid.value:
                return valid
        return requested  # larger than every valid value: unchanged, then rejected by the policy check
    return requested


def _round_up_range(requested: Quantity, cap: CapacityRec) -> Quantity:
    # Below min becomes min; otherwise up to min + n*step, in whole units (Go uses Value()).
    if requested.value < cap.range_min.value:
        return cap.range_min
    if cap.range_step is None:
        return requested
    step = _ceil(cap.range_step.value)
    low = _ceil(cap.range_min.value)
    added = _ceil(requested.value) - low
    n = added // step if added >= 0 else -((-added) // step)
    if _go_rem(added, step) != 0:
        n += 1
    return Quantity(low + step * n, BINARY_SI)


def violates_policy(consumed: Quantity, cap: CapacityRec) -> bool:
    """Is a consumed amount outside the device's requestPolicy? The default is always accepted (§12.3)."""
    if not cap.policy:
        return False
    if cap.default is not None and consumed.value == cap.default.value:
        return False
    if cap.has_range:
        if cap.range_max is not None and consumed.value > cap.range_max.value:
            return True
        if cap.range_step is not None:
            low = _ceil(cap.range_min.value) if cap.range_min is not None else 0
            if _go_rem(_ceil(consumed.value) - low, _ceil(cap.range_step.value)) != 0:
                return True
        return False
    if cap.valid_values:
        return not any(consumed.value == v.value for v in cap.valid_values)
    return False


def request_fits(device: DeviceRec, requests: dict[str, Quantity] | None,
                 allocated: dict[str, Fraction] | None, allocating: dict[str, Fraction] | None) -> bool:
    """CmpRequestOverCapacity: every capacity of the device can take this pick on top of what is used.

    A request naming a capacity the device lacks makes the device ineligible (§12.4); this applies
    to non-shareable devices too (§12.5, quirk §21.5).
    """
    capacity = device.capacity
    if requests:
        for name in requests:
            if name not in capacity:
                return False
    elif not allocated and not allocating:
        return device.cap_fits_empty
    for name, cap in capacity.items():
        consumed = consumed_amount(requests.get(name) if requests else None, cap)
        if violates_policy(consumed, cap):
            return False
        total = consumed.value
        if allocated:
            total += allocated.get(name, 0)
        if allocating:
            total += allocating.get(name, 0)
        if total > cap.value.value:
            return False
    return True


def consumed_from_request(device: DeviceRec, requests: dict[str, Quantity] | None) -> dict[str, Quantity]:
    """GetConsumedCapacityFromRequest: one entry for every capacity of the device (§12.6)."""
    return {name: consumed_amount(requests.get(name) if requests else None, cap)
            for name, cap in device.capacity.items()}
