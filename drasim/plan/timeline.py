"""Time: pods that arrive and finish, replayed on the virtual clock, and what it cost.

A trace is YAML or CSV:

    jobs:                                  # YAML
    - {name: train, at: 0s, namespace: ml, pod: pods/train.yaml, count: 4, runFor: 2h, priority: 100}
    - {name: infer, at: 30m, namespace: web, pod: pods/infer.yaml, count: 10, runFor: 8h}
    events:                                # manifests applied at a time: a maintenance rule, new slices
    - {at: 2h, apply: maintenance-rule.yaml}

    name,at,namespace,pod,count,runFor,priority     # CSV, one job per row
    train,0s,ml,pods/train.yaml,4,2h,100

Paths are relative to the trace. Each job creates `count` pods `<name>-<i>` from its pod
manifest at `at` (after the cluster phases), with `drasim.io/run-for` set from `runFor`: the
simulated kubelet moves each to Succeeded that long after it started, which frees its devices
(the resourceclaim controller deletes claims made from templates). Pods in the cluster manifests
may carry `drasim.io/arrival: <duration>` themselves to arrive later.

The replay records, from the store's events: when each pod was created, bound and finished;
every claim allocation interval and its devices (device-hours per namespace and class); and a
sample of pending/running pods and allocated devices after every change (pending over time,
utilisation, devices idle while pods wait).
"""
from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from drasim.api import kinds
from drasim.api.duration import parse_go_duration
from drasim.api.loader import Document, load_paths
from drasim.controlplane import ControlPlane, Options
from drasim.errors import InputError
from drasim.store import ADDED, DELETED

RUN_FOR_ANNOTATION = "drasim.io/run-for"
ARRIVAL_ANNOTATION = "drasim.io/arrival"


@dataclass(frozen=True)
class Job:
    name: str
    at: float
    namespace: str
    pod: dict
    count: int
    run_for: str | None
    priority: int | None


@dataclass(frozen=True)
class Event:
    at: float
    documents: tuple[Document, ...]


@dataclass
class Trace:
    jobs: list[Job] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)


def _duration(value, where: str) -> float:
    try:
        seconds = parse_go_duration(str(value))
    except ValueError as e:
        raise InputError(f"{where}: {e}") from None
    if seconds < 0:
        raise InputError(f"{where}: must not be negative")
    return seconds


def _pod_template(path: Path, where: str) -> dict:
    docs = load_paths([path])
    pods = [d.obj for d in docs if d.kind.kind == "Pod"]
    if len(pods) != 1:
        raise InputError(f"{where}: {path} must hold exactly one Pod, it holds {len(pods)}")
    return pods[0]


def _job(raw: dict, base: Path, where: str) -> Job:
    if not isinstance(raw, dict):
        raise InputError(f"{where}: a job is a mapping")
    unknown = sorted(set(raw) - {"name", "at", "namespace", "pod", "count", "runFor", "priority"})
    if unknown:
        raise InputError(f"{where}: unknown field {unknown[0]!r}")
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise InputError(f"{where}.name: required")
    if not isinstance(raw.get("pod"), (str, dict)):
        raise InputError(f"{where}.pod: required (a file with one Pod manifest, or the manifest inline)")
    try:
        count = int(raw.get("count", 1))
        priority = None if raw.get("priority") in (None, "") else int(raw["priority"])
    except (TypeError, ValueError):
        raise InputError(f"{where}: count and priority must be integers") from None
    if not 1 <= count <= 100_000:
        raise InputError(f"{where}.count: must be from 1 to 100000")
    run_for = raw.get("runFor")
    if run_for not in (None, ""):
        _duration(run_for, f"{where}.runFor")
    return Job(name, _duration(raw.get("at", "0s"), f"{where}.at"), str(raw.get("namespace") or "default"),
               raw["pod"] if isinstance(raw["pod"], dict) else _pod_template(base / raw["pod"], f"{where}.pod"), count,
               None if run_for in (None, "") else str(run_for), priority)


def load_trace(path: str) -> Trace:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read: {e}") from None
    base = p.resolve().parent
    trace = Trace()
    if p.suffix == ".csv":
        for i, row in enumerate(csv.DictReader(io.StringIO(text)), start=2):
            trace.jobs.append(_job({k: v for k, v in row.items() if v not in (None, "")}, base, f"{path}:{i}"))
        return trace
    try:   # libyaml when PyYAML has it: imported traces hold thousands of inline pods
        raw = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as e:
        raise InputError(f"{path}: invalid YAML: {e}") from None
    if not isinstance(raw, dict) or set(raw) - {"jobs", "events"}:
        raise InputError(f"{path}: a trace is a mapping with jobs and events")
    for i, job in enumerate(raw.get("jobs") or ()):
        trace.jobs.append(_job(job, base, f"{path}: jobs[{i}]"))
    for i, ev in enumerate(raw.get("events") or ()):
        where = f"{path}: events[{i}]"
        if not isinstance(ev, dict) or not isinstance(ev.get("apply"), str):
            raise InputError(f"{where}: an event is {{at: DURATION, apply: FILE}}")
        trace.events.append(Event(_duration(ev.get("at", "0s"), f"{where}.at"), tuple(load_paths([base / ev["apply"]]))))
    return trace


@dataclass
class PodRecord:
    namespace: str
    name: str
    job: str
    created: float
    bound: float | None = None
    finished: float | None = None
    node: str | None = None
    evicted: bool = False
    classes: tuple[str, ...] = ()   # the DeviceClasses of its claims' requests, when it was bound


@dataclass
class Allocation:
    namespace: str
    claim: str
    devices: tuple[tuple[str, str, str, str | None], ...]   # (driver, pool, device, class)
    start: float
    end: float | None = None
    node: str | None = None          # the node the allocation is for
    memory_bytes: int = 0            # of its devices, where the slices say (ledger's GiB-hours)


@dataclass
class Timeline:
    start: float
    end: float
    pods: dict[str, PodRecord] = field(default_factory=dict)
    allocations: list[Allocation] = field(default_factory=list)
    samples: list[tuple[float, int, int, int]] = field(default_factory=list)   # (t, pending, running, devices)
    total_devices: int = 0
    evictions: int = 0
    devices_by_class: dict[str, int] = field(default_factory=dict)   # devices each class selects
    devices_by_pool: dict[str, int] = field(default_factory=dict)    # devices per node pool label
    node_pools: dict[str, str] = field(default_factory=dict)         # node -> its pool


class _Recorder:
    """Store subscriber that turns events into the timeline."""

    def __init__(self, cp: ControlPlane, timeline: Timeline, jobs: dict[str, str]) -> None:
        self.cp, self.t, self.jobs = cp, timeline, jobs
        self.open: dict[str, Allocation] = {}
        self.pending = self.running = self.devices = 0
        cp.store.subscribe(self.on_event, kinds=("Pod", "ResourceClaim"))

    def now(self) -> float:
        return self.cp.clock.now - self.t.start

    memory: dict[tuple, int] = {}

    def _pod_classes(self, pod: dict) -> tuple[str, ...]:
        from drasim.api.podclaims import pod_claims
        ns = pod["metadata"].get("namespace")
        names = [name for _, name, _ in pod_claims(pod) if name]
        ext = (pod.get("status") or {}).get("extendedResourceClaimStatus") or {}
        if ext.get("resourceClaimName"):
            names.append(ext["resourceClaimName"])
        classes = set()
        for name in names:
            claim = self.cp.store.get("ResourceClaim", ns, name)
            if claim is not None:
                classes.update(c for c in _request_classes(claim).values() if c)
        return tuple(sorted(classes))

    def sample(self) -> None:
        point = (self.now(), self.pending, self.running, self.devices)
        if self.t.samples and self.t.samples[-1][0] == point[0]:
            self.t.samples[-1] = point
        else:
            self.t.samples.append(point)

    def on_event(self, ev) -> None:
        obj = ev.obj
        md = obj["metadata"]
        key = f"{md.get('namespace')}/{md['name']}"
        if ev.kind == "Pod":
            rec = self.t.pods.get(key)
            old_state = _pod_state(ev.old) if ev.type != ADDED else None
            new_state = None if ev.type == DELETED else _pod_state(obj)
            if rec is None and ev.type == ADDED:
                rec = self.t.pods[key] = PodRecord(md.get("namespace") or "", md["name"],
                                                   self.jobs.get(key, ""), self.now())
            if rec is not None:
                if new_state == "running" and rec.bound is None:
                    rec.bound, rec.node = self.now(), obj["spec"].get("nodeName")
                    rec.classes = self._pod_classes(obj)
                if new_state == "done" and rec.finished is None:
                    rec.finished = self.now()
                if ev.type == DELETED and rec.finished is None:
                    rec.finished = self.now()
                    rec.evicted = any(c.get("type") == "DisruptionTarget" for c in
                                      (obj.get("status") or {}).get("conditions") or ())
                    self.t.evictions += rec.evicted
            for state, delta in ((old_state, -1), (new_state, +1)):
                if state == "pending":
                    self.pending += delta
                elif state == "running":
                    self.running += delta
        else:
            allocation = None if ev.type == DELETED else (obj.get("status") or {}).get("allocation")
            current = self.open.get(key)
            if current is not None and allocation is None:
                current.end = self.now()
                self.devices -= len(current.devices)
                del self.open[key]
            elif current is None and allocation is not None:
                classes = _request_classes(obj)
                devices = tuple((r.get("driver", ""), r.get("pool", ""), r.get("device", ""),
                                 classes.get((r.get("request") or "").split("/")[0]))
                                for r in (allocation.get("devices") or {}).get("results") or ())
                a = Allocation(md.get("namespace") or "", md["name"], devices, self.now(),
                               node=_allocation_node(allocation), memory_bytes=sum(self.memory.get(d[:3], 0)
                                                                                   for d in devices))
                self.t.allocations.append(a)
                self.open[key] = a
                self.devices += len(devices)
        self.sample()


def _allocation_node(allocation: dict) -> str | None:
    for term in (allocation.get("nodeSelector") or {}).get("nodeSelectorTerms") or ():
        for req in term.get("matchFields") or ():
            if req.get("key") == "metadata.name" and len(req.get("values") or ()) == 1:
                return req["values"][0]
    return None


def _inventory(cp: ControlPlane, timeline: "Timeline", recorder: "_Recorder") -> None:
    """Devices per class and per node pool, and each device's memory, at the start."""
    from drasim.hardware.common import POOL_LABEL
    from drasim.plan.inventory import class_devices_by_node
    from drasim.plan.ledger import _memory

    for node in cp.store.list("Node"):
        labels = node["metadata"].get("labels") or {}
        timeline.node_pools[node["metadata"]["name"]] = labels.get(POOL_LABEL) or "(no node pool label)"
    for dc in cp.store.list("DeviceClass"):
        timeline.devices_by_class[dc["metadata"]["name"]] = sum(class_devices_by_node(cp, dc["metadata"]["name"]).values())
    memory = {}
    for sl in cp.store.list("ResourceSlice"):
        spec = sl.get("spec") or {}
        pool = timeline.node_pools.get(spec.get("nodeName"), "(shared)")
        for d in spec.get("devices") or ():
            timeline.devices_by_pool[pool] = timeline.devices_by_pool.get(pool, 0) + 1
            memory[(spec.get("driver"), (spec.get("pool") or {}).get("name"), d.get("name"))] = _memory(d) or 0
    recorder.memory = memory


def _pod_state(pod: dict | None) -> str | None:
    if pod is None:
        return None
    phase = (pod.get("status") or {}).get("phase")
    if phase in ("Succeeded", "Failed"):
        return "done"
    return "running" if pod["spec"].get("nodeName") else "pending"


def _request_classes(claim: dict) -> dict[str, str | None]:
    out = {}
    for r in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ():
        exactly = r.get("exactly") or {}
        out[r.get("name")] = exactly.get("deviceClassName") or next(
            (s.get("deviceClassName") for s in r.get("firstAvailable") or ()), None)
    return out


def _job_pod(job: Job, i: int) -> dict:
    pod = {k: v for k, v in job.pod.items() if k != "status"}
    md = dict(pod.get("metadata") or {})
    md.pop("generateName", None)
    md["name"], md["namespace"] = f"{job.name}-{i}", job.namespace
    annotations = dict(md.get("annotations") or {})
    if job.run_for:
        annotations[RUN_FOR_ANNOTATION] = job.run_for
    md["annotations"] = annotations
    pod["metadata"] = md
    if job.priority is not None:
        pod["spec"] = dict(pod.get("spec") or {}, priority=job.priority)
    return pod


def _run(cp: ControlPlane, end: float | None, progress, start: float, horizon: float) -> None:
    """Run to quiescence (or virtual time `end`), telling `progress(done, total)` in virtual
    seconds every few thousand steps (a month of a large cluster takes minutes)."""
    clock, components, steps = cp.clock, cp.components, 0
    while True:
        for component in components:
            if component.has_work():
                component.run_once()
                break
        else:
            nxt = clock.next_timer()
            if nxt is None or (end is not None and nxt > end):
                break
            clock.fire_next()
        steps += 1
        if progress is not None and steps % 5000 == 0:
            progress(min(clock.now - start, horizon), horizon)
    if progress is not None:
        progress(horizon, horizon)


def replay(phases: list[list[Document]], trace: Trace, options: Options = Options(),
           until: float | None = None, progress=None) -> Timeline:
    cp = ControlPlane(options)
    late: list[tuple[float, Document]] = []
    for docs in phases:   # pods with drasim.io/arrival come later
        now_docs = []
        for d in docs:
            arrival = ((d.obj.get("metadata") or {}).get("annotations") or {}).get(ARRIVAL_ANNOTATION)
            if d.kind.kind == "Pod" and arrival is not None:
                late.append((_duration(arrival, f"{d.source}: metadata.annotations[{ARRIVAL_ANNOTATION}]"), d))
            else:
                now_docs.append(d)
        cp.run_phase(now_docs)
    timeline = Timeline(cp.clock.now, cp.clock.now)
    timeline.total_devices = sum(len((s.get("spec") or {}).get("devices") or ()) for s in cp.store.list("ResourceSlice"))
    jobs = {f"{j.namespace}/{j.name}-{i}": j.name for j in trace.jobs for i in range(j.count)}
    recorder = _Recorder(cp, timeline, jobs)
    _inventory(cp, timeline, recorder)
    errors: list[InputError] = []

    def arrive(docs: list[Document]):
        def fire():
            try:
                cp.apply(docs)
            except InputError as e:   # e.g. quota: the arrival is refused, the replay goes on
                errors.append(e)
        return fire

    start = cp.clock.now
    for job in trace.jobs:
        docs = [Document(f"trace job {job.name} pod {i}", kinds.POD, _job_pod(job, i)) for i in range(job.count)]
        cp.clock.call_at(start + job.at, arrive(docs))
    for ev in trace.events:
        cp.clock.call_at(start + ev.at, arrive(list(ev.documents)))
    for at, doc in late:
        cp.clock.call_at(start + at, arrive([doc]))
    horizon = until if until is not None else max(
        [j.at + (parse_go_duration(j.run_for) if j.run_for else 0) for j in trace.jobs] +
        [e.at for e in trace.events] + [at for at, _ in late] + [0.0])
    _run(cp, None if until is None else start + until, progress, start, horizon)
    if until is not None and cp.clock.now < start + until:
        cp.clock.advance(start + until - cp.clock.now)   # the replay covers the whole span asked for
    timeline.end = cp.clock.now
    timeline.cp = cp   # type: ignore[attr-defined]  (the end state, for a ledger over the timeline)
    recorder.sample()
    timeline.errors = [str(e) for e in errors]   # type: ignore[attr-defined]
    return timeline


def percentiles(values: list[float], ps=(50, 90, 99)) -> dict[str, float] | None:
    if not values:
        return None
    ordered = sorted(values)
    return {f"p{p}": ordered[max(0, math.ceil(len(ordered) * p / 100) - 1)] for p in ps}


def summary(t: Timeline) -> dict:
    """Per namespace: pods, scheduled, never scheduled, evicted, time to schedule, device-hours and
    GiB-hours of device memory; time to schedule and utilisation per DeviceClass; utilisation per
    node pool; overall utilisation (time-weighted allocated / published devices); the device-hours
    left idle while pods were pending; evictions."""
    end = t.end - t.start
    hours_total = end / 3600

    def ns_row(ns: str) -> dict:
        return by_ns.setdefault(ns, {"pods": 0, "scheduled": 0, "neverScheduled": 0, "evicted": 0, "waits": [],
                                     "deviceHours": 0.0, "memoryGiBHours": 0.0})

    by_ns: dict[str, dict] = {}
    waits_by_class: dict[str, list[float]] = {}
    for rec in t.pods.values():
        ns = ns_row(rec.namespace)
        ns["pods"] += 1
        if rec.bound is None:
            ns["neverScheduled"] += 1
        else:
            ns["scheduled"] += 1
            ns["waits"].append(rec.bound - rec.created)
            for cls in rec.classes:
                waits_by_class.setdefault(cls, []).append(rec.bound - rec.created)
        ns["evicted"] += rec.evicted
    by_class: dict[str, float] = {}
    by_pool: dict[str, float] = {}
    for a in t.allocations:
        hours = ((a.end if a.end is not None else end) - a.start) / 3600
        row = ns_row(a.namespace)
        row["deviceHours"] += hours * len(a.devices)
        row["memoryGiBHours"] += hours * a.memory_bytes / 1024 ** 3
        pool = t.node_pools.get(a.node, "(shared)") if a.node else "(shared)"
        by_pool[pool] = by_pool.get(pool, 0.0) + hours * len(a.devices)
        for d in a.devices:
            by_class[d[3] or "(unknown)"] = by_class.get(d[3] or "(unknown)", 0.0) + hours
    busy = idle_while_waiting = 0.0
    for (t0, pending, _, devices), nxt in zip(t.samples, t.samples[1:] + [(end, 0, 0, 0)]):
        span = max(0.0, nxt[0] - t0)
        busy += devices * span
        if pending:
            idle_while_waiting += (t.total_devices - devices) * span
    for ns in by_ns.values():
        ns["timeToSchedule"] = percentiles(ns.pop("waits"))
        ns["deviceHours"] = round(ns["deviceHours"], 6)
        ns["memoryGiBHours"] = round(ns["memoryGiBHours"], 6)

    def share(used: float, devices: int) -> float | None:
        return round(used / (devices * hours_total), 6) if devices and hours_total else None

    return {"duration": end, "namespaces": dict(sorted(by_ns.items())),
            "deviceHoursByClass": {k: round(v, 6) for k, v in sorted(by_class.items())},
            "timeToScheduleByClass": {k: percentiles(v) for k, v in sorted(waits_by_class.items())},
            "utilisationByClass": {k: share(by_class.get(k, 0.0), n) for k, n in sorted(t.devices_by_class.items())},
            "utilisationByNodePool": {k: share(by_pool.get(k, 0.0), n) for k, n in sorted(t.devices_by_pool.items())},
            "utilisation": busy / (t.total_devices * end) if t.total_devices and end else 0.0,
            "idleDeviceHoursWhilePodsPending": round(idle_while_waiting / 3600, 6),
            "evictions": t.evictions, "refusedArrivals": getattr(t, "errors", [])}
