"""One `simulate` run as the CLI sees it: phases applied in turn, the pods evicted along the way,
and where it stopped if a phase was refused."""
from __future__ import annotations

from typing import Callable

from drasim.api import podclaims
from drasim.controlplane import ControlPlane, Options
from drasim.errors import InputError
from drasim.store import DELETED, WatchEvent

# k8s: pkg/controller/devicetainteviction (addConditionAndDeletePod) marks the pod with this
# DisruptionTarget reason before deleting it; the deleted object still carries it.
EVICTION_REASON = "DeletionByDeviceTaintManager"


class Simulation:
    def __init__(self, options: Options = Options()) -> None:
        self.cp = ControlPlane(options)
        self.applied = 0                  # phases applied and settled
        self.evicted: list[dict] = []     # pods the device taint eviction controller deleted, as last seen
        self.evicted_claims: dict[tuple, dict] = {}   # their claims at that moment (deleted soon after)
        self.cp.store.subscribe(self._watch_pods, kinds=["Pod"])

    def _watch_pods(self, ev: WatchEvent) -> None:
        if ev.type != DELETED:
            return
        conditions = (ev.obj.get("status") or {}).get("conditions") or ()
        if any(c.get("type") == "DisruptionTarget" and c.get("reason") == EVICTION_REASON for c in conditions):
            self.evicted.append(ev.obj)
            ns = ev.obj["metadata"].get("namespace")
            for _, name, _ in podclaims.pod_claims(ev.obj):
                claim = self.cp.store.get("ResourceClaim", ns, name) if name else None
                if claim is not None:
                    self.evicted_claims[(ns, name)] = claim

    def run(self, phases: list[tuple[str, list]], say: Callable[[str], None] = lambda text: None) -> InputError | None:
        """Apply each phase and settle. A refused phase stops the run: its error is returned, the
        cluster stays as the last applied phase left it (a phase is admitted whole or not at all)."""
        for i, (path, docs) in enumerate(phases, start=1):
            say(f"phase {i}/{len(phases)}: {path}")
            try:
                self.cp.run_phase(docs, owned=True)   # the CLI reads each phase for this run only
            except InputError as err:
                return err
            self.applied = i
        return None

    def held(self) -> dict[tuple, str]:
        """(namespace, name) -> "Plugin: message" for the unscheduled pods a PreEnqueue check holds."""
        out = {}
        for pod in self.cp.store.list("Pod"):
            if not pod["spec"].get("nodeName"):
                found = self.cp.scheduler.pre_enqueue_rejection(pod)
                if found is not None:
                    out[(pod["metadata"].get("namespace"), pod["metadata"]["name"])] = f"{found[0]}: {found[1]}"
        return out

    def objects(self, include_events: bool = False) -> list[dict]:
        return self.cp.objects(include_events=include_events)

    def write_metrics(self, path: str) -> None:
        self.cp.scheduler.export_pending(self.cp.metrics)
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(self.cp.metrics.exposition())
        except OSError as e:
            raise InputError(f"--metrics {path}: cannot write: {e.strerror or e}") from None
