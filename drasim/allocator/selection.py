"""Which devices a request may take: selector evaluation with a per-device memo (spec §8, §10).

k8s: staging/src/k8s.io/dynamic-resource-allocation/structured/internal/incubating/allocator_incubating.go
(isSelectable, selectorsMatch), …/cel/errors.go (EnhanceRuntimeError).
"""
from __future__ import annotations

from drasim.allocator.features import Features
from drasim.allocator.model import DeviceRec, SliceRec
from drasim.allocator.nodeselector import NodeSelectorError, node_matches
from drasim.allocator.requests import ReqData
from drasim.errors import AllocationError

_NO_SUCH_KEY_HINT = (". consider using CEL optional chaining (.? followed by orValue()) "
                     "or guarding the check with has() for optional fields")


def enhance_runtime_error(msg: str) -> str:
    """k8s: dynamic-resource-allocation/cel/errors.go EnhanceRuntimeError (idempotent)."""
    if "no such key:" in msg and _NO_SUCH_KEY_HINT not in msg:
        return msg + _NO_SUCH_KEY_HINT
    return msg


class Selection:
    """Selector evaluation with per-device memo (spec §10): class first, stop at the first false."""

    __slots__ = ("node", "features")

    def __init__(self, node: dict, features: Features) -> None:
        self.node = node
        self.features = features

    def is_selectable(self, rd: ReqData, dev: DeviceRec, slice_: SliceRec, label: str) -> bool:
        if not self.features.device_binding and dev.binding_conditions:
            return False
        key = rd.sel_key
        ok = dev.sel_cache.get(key)
        if ok is None:
            ok = (self._all_match(dev, rd.klass.selectors, f"class {rd.klass.name}")
                  and self._all_match(dev, rd.selectors, f"claim {label}"))
            dev.sel_cache[key] = ok
        if ok and slice_.per_device:
            try:
                return node_matches(self.node, dev.node_name, dev.all_nodes, dev.node_selector)
            except NodeSelectorError as exc:
                raise AllocationError(f"failed to parse node selector: {exc}") from None
        return ok

    def _all_match(self, dev: DeviceRec, selectors: tuple[str, ...], owner: str) -> bool:
        for i, expr in enumerate(selectors):
            if not self._matches(dev, expr, i, owner):
                return False
        return True

    @staticmethod
    def _matches(dev: DeviceRec, expr: str, index: int, owner: str) -> bool:
        cached = dev.sel_cache.get(expr)
        if cached is True or cached is False:
            return cached
        from drasim.cel import CelCompileError, CelRuntimeError, compile_selector
        from drasim.cel.plain import judge, raw_lookup
        try:
            selector = compile_selector(expr)
        except CelCompileError as exc:
            raise AllocationError(f"{owner}: selector #{index}: CEL compile error: {exc}") from None
        if cached is None:
            if selector.plain is not None and not selector.refused:
                # What selector.matches would say, without building the device's CEL values
                # (drasim/cel/plain.py); None when only the program can tell.
                error = dev.cel_error()
                cached = enhance_runtime_error(error) if error is not None else \
                    judge(selector.plain, dev.driver, raw_lookup(dev.driver, dev.raw))
            if cached is None:
                try:
                    cached = bool(selector.matches(dev.cel_input()))
                except CelRuntimeError as exc:
                    cached = enhance_runtime_error(str(exc))
            dev.sel_cache[expr] = cached
        if isinstance(cached, str):
            raise AllocationError(f"{owner}: selector #{index} on device {dev.id}: CEL runtime error: {cached}")
        return cached
