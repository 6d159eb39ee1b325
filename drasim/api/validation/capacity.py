"""Device capacity `requestPolicy` validation (consumable capacity, beta and on in v1.37).

k8s: pkg/apis/resource/validation/validation.go (validateRequestPolicy, validateRequestPolicyRange,
validateRequestPolicyValidValues). Spec: allocator.md §3.8, §22.2.

DRAFractionalCapacityRange is on: when any range value is fractional, step arithmetic
uses milli-values and values that are not whole milli-units are rejected; otherwise
it uses Quantity.Value() (rounded up) after an int64 range check. Messages print
quantities in canonical form (Quantity.String()).
"""
from __future__ import annotations

from fractions import Fraction

from drasim.api.fielderrors import Path, duplicate, forbidden, invalid, required, too_many
from drasim.api.quantity import Quantity
from drasim.api.validation.common import BAD, Errors, get_dict, get_list, get_quantity

VALID_VALUES_MAX = 10  # CapacityRequestPolicyDiscreteMaxOptions
MAX_INT64 = 2**63 - 1
_BOTH = 'exactly one policy can be specified, cannot specify "validValues" and "validRange" at the same time'


def validate_request_policy(capacity: Quantity, policy: dict, path: Path, errs: Errors) -> None:
    """One of validValues/validRange; either needs `default`."""
    values = get_list(policy, "validValues", path, errs)
    rng = get_dict(policy, "validRange", path, errs)
    if values is BAD or rng is BAD:
        return
    if values and rng is not None:
        errs.append(forbidden(path, _BOTH))
        return
    default = None
    if policy.get("default") is not None:
        default = get_quantity(policy["default"], path.child("default"), errs)
        if default is None:
            return
    if values:
        if default is None:
            errs.append(required(path.child("default"), "required when validValues is defined"))
        else:
            _validate_valid_values(default, capacity, values, path.child("validValues"), errs)
    elif rng is not None:
        if default is None:
            errs.append(required(path.child("default"), "required when validRange is defined"))
        else:
            _validate_range(default, capacity, rng, path.child("validRange"), errs)


def _validate_valid_values(default: Quantity, capacity: Quantity, raw: list, path: Path, errs: Errors) -> None:
    values: list[Quantity | None] = [get_quantity(v, path.index(i), errs) for i, v in enumerate(raw)]
    if any(v is None for v in values):
        return
    for i in range(len(values) - 1):
        if values[i] > values[i + 1]:
            errs.append(invalid(path.index(i + 1), values[i + 1].canonical(), "values must be sorted in ascending order"))
    found_default = False
    if len(values) > VALID_VALUES_MAX:
        errs.append(too_many(path, len(values), VALID_VALUES_MAX))
    else:
        seen: set[Fraction] = set()
        for i, option in enumerate(values):
            if option > capacity:
                errs.append(invalid(path.index(i), option.canonical(),
                                    f"option is larger than capacity value: {capacity.canonical()}"))
            if option == default:
                found_default = True
        for i, option in enumerate(values):
            if option.value in seen:
                errs.append(duplicate(path.index(i), _decimal(option.value)))
            seen.add(option.value)
    if not found_default:
        errs.append(invalid(path, default.canonical(), "default value is not valid according to the requestPolicy"))


def _validate_range(default: Quantity, capacity: Quantity, rng: dict, path: Path, errs: Errors) -> None:
    q: dict[str, Quantity | None] = {"default": default}
    for name in ("min", "max", "step"):
        q[name] = None
        if rng.get(name) is not None:
            q[name] = get_quantity(rng[name], path.child(name), errs)
            if q[name] is None:
                return
    lo, hi, step = q["min"], q["max"], q["step"]
    if lo is None:
        errs.append(required(path.child("min"), "required when validRange is defined"))
        return
    cap = capacity.canonical()
    if lo > capacity:
        errs.append(invalid(path.child("min"), lo.canonical(), f"min is larger than capacity value: {cap}"))
    if default < lo:
        errs.append(invalid(path.child("default"), default.canonical(), f"default is less than min: {lo.canonical()}"))
    if hi is not None:
        if lo > hi:
            errs.append(invalid(path.child("max"), lo.canonical(), f"min is larger than max: {hi.canonical()}"))
        if hi > capacity:
            errs.append(invalid(path.child("max"), hi.canonical(), f"max is larger than capacity value: {cap}"))
        if default > hi:
            errs.append(invalid(path.child("default"), default.canonical(), f"default is more than max: {hi.canonical()}"))
    present = [(n, v) for n, v in q.items() if v is not None]
    use_milli = any(not v.is_integer() for _, v in present)
    if use_milli:
        unsafe = [(n, v) for n, v in present if (v.value * 1000).denominator != 1]
        for n, v in unsafe:
            errs.append(invalid(path.child(n), v.canonical(), "value cannot be represented as a milli value"))
        if unsafe:
            return
    if step is None:
        return
    if step.value <= 0:
        errs.append(invalid(path.child("step"), step.canonical(), "must be greater than zero"))
        return
    added = lo + step
    if added > capacity:
        errs.append(invalid(path.child("step"), step.canonical(),
                            f"one step {added.canonical()} is larger than capacity value: {cap}"))
    if not use_milli:
        bad = False
        for n, v in present:
            if v.value < 0:
                errs.append(invalid(path.child(n), v.canonical(), "must be greater than or equal to 0"))
                bad = True
            elif v.value > MAX_INT64:
                errs.append(invalid(path.child(n), v.canonical(), f"must not be larger than {MAX_INT64}"))
                bad = True
        if bad:
            return
    for value in (default, hi):
        if value is not None and not _on_step(value, lo, step, use_milli):
            errs.append(invalid(path.child("step"), value.canonical(),
                                f"value is not a multiple of a given step ({step.canonical()}) from ({lo.canonical()})"))


def _on_step(value: Quantity, lo: Quantity, step: Quantity, use_milli: bool) -> bool:
    if use_milli:
        return (value.milli_value() - lo.milli_value()) % step.milli_value() == 0
    # Go's % truncates toward zero; only "is it zero" matters, which agrees with Python's.
    return (value.int_value() - lo.int_value()) % step.int_value() == 0


def _decimal(v: Fraction) -> str:
    """inf.Dec String() of an exact value: an integer, or digits with a decimal point."""
    if v.denominator == 1:
        return str(v.numerator)
    scale = 0
    while (v * 10**scale).denominator != 1 and scale < 30:
        scale += 1
    digits = str(abs((v * 10**scale).numerator)).rjust(scale + 1, "0")
    sign = "-" if v < 0 else ""
    return f"{sign}{digits[:-scale]}.{digits[-scale:]}"
