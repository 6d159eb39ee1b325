"""`drasim plan`: how many nodes of which pool must be added so that the pending pods schedule?

Answered with the real simulation, not an estimate: for each candidate pool the smallest node
count that schedules every pod that pool can serve is found by an exponential then a binary
search over counts, each count one run: that many generated nodes added to (a copy of) the
settled snapshot, as a cluster autoscaler adds them, so every run holds the baseline's pods.
With costs, mixes of two pools are searched as well (for every count of the cheaper-per-node
pool below its own answer, the fewest nodes of the other) and the cheapest answer wins. Pods
that stay Pending even with one fresh node per pending pod of every candidate are named with
the scheduler's reason.

The search assumes adding nodes never makes fewer pods schedule, which holds for the
scheduler's feasibility (more nodes, more options) but not for every scoring tie; each answer
is confirmed by its own run.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from drasim.api import kinds
from drasim.api.loader import Document
from drasim.controlplane import ControlPlane, Options
from drasim.errors import InputError
from drasim.hardware import generate


@dataclass(frozen=True)
class Candidate:
    name: str
    spec: dict           # one pool of a pool spec (drasim/hardware/pools.py)
    cost: float | None   # per node


@dataclass
class Run:
    added: dict[str, int]
    pending: dict[str, str]   # "ns/name" -> the scheduler's reason


@dataclass
class Plan:
    baseline_pending: dict[str, str]
    answers: list[dict] = field(default_factory=list)      # {"add": {pool: n}, "cost": x, "pending": {...}}
    unservable: dict[str, dict[str, str]] = field(default_factory=dict)   # pod -> pool -> reason
    # pool -> how many pending pods it can serve alone, and one it cannot with the reason
    coverage: dict[str, dict] = field(default_factory=dict)
    best: dict | None = None

    def as_json(self) -> dict:
        return asdict(self)


def _pending(cp: ControlPlane) -> dict[str, str]:
    out = {}
    for pod in cp.store.list("Pod"):
        if (pod.get("spec") or {}).get("nodeName"):
            continue
        if (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
            continue
        cond = next((c for c in (pod.get("status") or {}).get("conditions") or () if c.get("type") == "PodScheduled"),
                    {})
        out[f"{pod['metadata'].get('namespace')}/{pod['metadata']['name']}"] = cond.get("message") or "not scheduled yet"
    return out


class Planner:
    def __init__(self, documents: list[Document], candidates: list[Candidate], options: Options = Options()) -> None:
        self.documents = documents
        self.candidates = candidates
        self.options = options
        self.runs = 0
        self._cache: dict[tuple, Run] = {}
        self._base: ControlPlane | None = None

    def _baseline(self) -> ControlPlane:
        """The snapshot applied and settled, once. Every run adds its nodes to a copy of it, as a
        cluster autoscaler adds them to a cluster whose pods are pending: the pods (and the names
        their controllers generated) are the baseline's in every run, so a pod the baseline has
        pending is the same pod in each (generating the nodes first drew other names)."""
        if self._base is None:
            self._base = ControlPlane(self.options)
            self._base.apply(list(self.documents))
            self._base.settle()
        return self._base

    def run(self, added: dict[str, int]) -> Run:
        key = tuple(sorted((k, v) for k, v in added.items() if v))
        if key in self._cache:
            return self._cache[key]
        base = self._baseline()
        objects: list[dict] = []
        for cand in self.candidates:
            n = added.get(cand.name, 0)
            if n:
                pool = dict(cand.spec, name=f"plan-{cand.name}", count=n)
                pool.pop("cost", None)
                objects += generate({"pools": [pool]})
        existing_classes = {d.obj["metadata"].get("name") for d in self.documents if d.kind.kind == "DeviceClass"}
        extra = [Document(f"plan:{cand_name(o)}", kinds.BY_KIND[o["kind"]], o) for o in objects
                 if not (o["kind"] == "DeviceClass" and o["metadata"]["name"] in existing_classes)]
        if extra:
            cp = base.fork()
            cp.apply(extra)
            cp.settle()
        else:
            cp = base
        self.runs += 1
        result = Run(dict(added), _pending(cp))
        self._cache[key] = result
        return result

    def fewest(self, name: str, fixed: dict[str, int], target: set[str], upper: int) -> int | None:
        """The smallest n of pool `name` (with `fixed` others) leaving none of `target` pending."""
        def ok(n: int) -> bool:
            return not (target & set(self.run({**fixed, name: n}).pending))
        if ok(0):
            return 0
        hi = 1
        while not ok(hi):
            if hi >= upper:
                return None
            hi = min(hi * 2, upper)
        lo = hi // 2   # ok(lo) is false (or lo == 0, checked)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if ok(mid):
                hi = mid
            else:
                lo = mid
        return hi


MIX_POINTS = 8   # counts of the first pool tried per pair of pools


def _cost(candidates: dict[str, Candidate], add: dict[str, int]) -> float | None:
    total = 0.0
    for name, n in add.items():
        c = candidates[name].cost
        if n and c is None:
            return None
        total += (c or 0) * n
    return total


def cand_name(obj: dict) -> str:
    return f"{obj['kind']}/{obj['metadata']['name']}"


def plan(documents: list[Document], candidates: list[Candidate], options: Options = Options()) -> Plan:
    if not candidates:
        raise InputError("plan: give at least one candidate pool (--pool POOLS.yaml)")
    planner = Planner(documents, candidates, options)
    baseline = planner.run({})
    result = Plan(dict(baseline.pending))
    if not baseline.pending:
        result.best = {"add": {}, "cost": 0.0, "pending": {}}
        return result
    upper = len(baseline.pending)   # one fresh node per pending pod is always enough, if any is
    servable: dict[str, set[str]] = {}
    for cand in candidates:
        wide = planner.run({cand.name: upper})
        servable[cand.name] = set(baseline.pending) - set(wide.pending)
        left = sorted(p for p in wide.pending if p in baseline.pending)
        for pod in left:
            result.unservable.setdefault(pod, {})[cand.name] = wide.pending[pod]
        result.coverage[cand.name] = {"serves": len(servable[cand.name]), "of": len(baseline.pending),
                                      "cannotServe": ({"pod": left[0], "why": wide.pending[left[0]]} if left else None)}
    # A pod some candidate serves is not unservable.
    served_by_any = set().union(*servable.values())
    result.unservable = {p: r for p, r in result.unservable.items() if p not in served_by_any}
    by_name = {c.name: c for c in candidates}
    for cand in candidates:
        if not servable[cand.name]:
            continue
        target = served_by_any if servable[cand.name] >= served_by_any else servable[cand.name]
        n = planner.fewest(cand.name, {}, target, upper)
        if n is not None:
            add = {cand.name: n}
            result.answers.append({"add": add, "cost": _cost(by_name, add), "pending": planner.run(add).pending})
    priced = [c for c in candidates if c.cost is not None and servable[c.name]]
    for a in priced:
        for b in priced:
            if a.name == b.name or not servable[a.name] - servable[b.name] and a.cost >= b.cost:
                continue   # b alone is at least as good as any mix with a
            reach = planner.fewest(a.name, {}, servable[a.name], upper) or 0
            step = max(1, reach // MIX_POINTS)
            for n_a in range(step, reach + 1, step):
                n_b = planner.fewest(b.name, {a.name: n_a}, served_by_any, upper)
                if n_b:
                    add = {a.name: n_a, b.name: n_b}
                    result.answers.append({"add": add, "cost": _cost(by_name, add), "pending": planner.run(add).pending})
    if not served_by_any:   # no candidate helps any pending pod: adding nothing is as good as anything
        result.best = {"add": {}, "cost": 0.0, "pending": dict(baseline.pending)}
        return result
    full = [x for x in result.answers if not (set(x["pending"]) & served_by_any)]
    if full:
        result.best = min(full, key=lambda x: (x["cost"] if x["cost"] is not None else float("inf"),
                                               sum(x["add"].values()), sorted(x["add"].items())))
    return result
