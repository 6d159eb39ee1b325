"""createPods: burst and steady state (k8s: scheduler_perf executor.go runCreatePodsOp, README §4.5).

Time here is wall-clock time of drasim's own work: the steady-state `duration` and the
collector's 1 s ticks are measured with time.perf_counter, so throughput is pods bound
per second of simulation work.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable

from drasim.bench.config import ConfigError
from drasim.bench.objects import base_pod, with_metadata
from drasim.bench.ops import Op
from drasim.store import StoreError

if TYPE_CHECKING:
    from drasim.bench.executor import Executor

PROGRESS_MIN_PODS = 200      # smaller phases finish before a bar would be readable
PROGRESS_INTERVAL = 0.25     # seconds between progress-bar refreshes


def _pod_factory(ex: Executor, op: Op) -> Callable[[int, int], dict]:
    ns, params, template = op.namespace, op.template_params, op.template

    def make(index: int, count: int) -> dict:
        if template:
            pod = ex.renderer.render(template, {**params, "Index": index, "Count": count})
        else:
            pod = base_pod()
        # README §3: every pod gets signature=signature-label-<Index>.
        return with_metadata(pod, namespace=ns, labels={"signature": f"signature-label-{index}"})
    return make


def _pod_creator(ex: Executor) -> Callable[..., dict]:
    """Every pod takes the API server's whole write path, as in scheduler_perf: decoding,
    defaults, naming, validation and admission (quota when present)."""
    create = ex.cp.create

    def create_pod(pod: dict, source: str = "") -> dict:
        return create(pod, source=source)
    return create_pod


def create_pods(ex: Executor, op: Op) -> None:
    ns = op.namespace
    ex.cp.ensure_namespace(ns)
    make = _pod_factory(ex, op)
    source = op.template or "createPods"
    create = _pod_creator(ex)
    if op.collect_metrics:
        ex._start(ns, {ns})
    if op.steady_state:
        _steady_state(ex, op, make, source)
    else:
        bar = _bar(ex, f"{ns}: {op.count} pods", op.count)
        poll = ex._poll
        react = ex._react
        for i in range(op.count):
            create(make(i, op.count), source=source)
            react()   # the scheduler and controllers work while the client is still creating
            poll()
        if not op.skip_wait:
            _wait_burst(ex, ns, op.count, bar)
        if bar is not None:
            bar.close()
    if op.collect_metrics:
        ex._stop()


def _wait_burst(ex: Executor, ns: str, count: int, bar) -> None:
    if bar is None:
        ex._drive_until(lambda: ex.unbound[ns] <= 0, f"createPods {ns}")
        return
    state = {"next": 0.0}
    unbound = ex.unbound

    def done() -> bool:
        now = time.perf_counter()
        if now >= state["next"]:
            state["next"] = now + PROGRESS_INTERVAL
            bar.update(count - max(unbound[ns], 0))
        return unbound[ns] <= 0
    ex._drive_until(done, f"createPods {ns}")


def _steady_state(ex: Executor, op: Op, make: Callable[[int, int], dict], source: str) -> None:
    """Keep `count` pods pending: each pod that gets a node is deleted and replaced (batch of one)."""
    ns = op.namespace
    create, delete, step, poll = _pod_creator(ex), ex.store.delete, ex.cp.step, ex._poll
    queue = ex._replace
    queue.clear()
    ex._replace_ns = ns
    bound_before = ex.bound_total
    start = time.perf_counter()
    end = start + op.duration
    bar = _bar(ex, f"{ns}: steady state {op.duration:g}s", op.duration) if op.duration >= 2 else None
    next_bar = 0.0
    try:
        for i in range(op.count):
            create(make(i, op.count), source=source)
        while True:
            while queue:
                qns, name = queue.popleft()
                try:
                    delete("Pod", qns, name)
                except StoreError:
                    pass    # already gone
                create(make(0, 1), source=source)
            now = time.perf_counter()
            if now >= end:
                break
            if bar is not None and now >= next_bar:
                next_bar = now + PROGRESS_INTERVAL
                bar.update(now - start)
            if not step() and not queue:
                ex.notes.append(f"steady state in {ns}: the cluster went quiet after {now - start:.2f}s "
                                f"of {op.duration:g}s; stopped early (later ticks would add no samples)")
                break
            poll()
    finally:
        ex._replace_ns = None
        if bar is not None:
            bar.close()
    if ex.bound_total == bound_before:
        raise ConfigError(f"steady state in {ns}: no pod was scheduled")


def _bar(ex: Executor, description: str, total: float):
    if ex.progress is None or total < (2 if isinstance(total, float) else PROGRESS_MIN_PODS):
        return None
    return ex.progress(description, total)
