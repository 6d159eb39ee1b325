"""Simulated kubelets and their DRA drivers.

k8s: pkg/kubelet/cm/dra/manager.go (PrepareResources), pkg/kubelet/lifecycle/predicate.go.

A pod bound to a node starts (phase Running) once every claim it uses is
allocated and reserved for it; the node's DRA driver then "prepares" the
devices and returns CDI device IDs, which kubelet hands to the containers
that reference the claim (or, for the extended-resource claim, to the
containers its requestMappings name). drasim records them per container in
the annotation `dra.drasim.io/cdi-devices` (a JSON object).

CDI IDs follow the DRA example driver's scheme: `k8s.<driver>/<class>=<claim uid>-<device>`,
where <class> is the first label of the driver name.

A pod annotated `drasim.io/run-for: <Go duration>` (`30m`, `1h30m`) with restartPolicy Never
or OnFailure runs that long on the virtual clock, then its containers exit 0 and the pod
Succeeds (its claims are then released by the resourceclaim controller, as for any pod that
is done). Without it a pod runs forever. Kubernetes accepts any annotation value, so a bad
one (not a duration, negative, or on a restartPolicy Always pod, whose containers kubelet
would restart) is not refused: the pod runs until deleted and gets a Warning Event
`InvalidRunFor` (also in `Kubelets.warnings`, which `drasim simulate` prints).
"""
from __future__ import annotations

import itertools
import json
import re
from collections import deque

from drasim.api.extendedresource import is_dra_extended_resource_name, is_extended_resource_name
from drasim.api.podclaims import is_reserved_for_group, pod_claims
from drasim.api.podresources import CPU, MEMORY, pod_requests, resource_list
from drasim.node import devicemetadata
from drasim.store.events import NORMAL, WARNING, record_event
from drasim.store import DELETED, MemoryStore, WatchEvent, clone

CDI_ANNOTATION = "dra.drasim.io/cdi-devices"
RUN_FOR_ANNOTATION = "drasim.io/run-for"
COMPONENT = "kubelet"

# Go's time.ParseDuration: units and their length in nanoseconds.
_DURATION_UNITS = {"ns": 1, "us": 1_000, "µs": 1_000, "μs": 1_000, "ms": 1_000_000, "s": 10**9,
                   "m": 60 * 10**9, "h": 3600 * 10**9}
_DURATION_PART = re.compile(r"(\d*)(?:\.(\d*))?([^0-9.]*)")
_MAX_DURATION_NS = 2**63 - 1


def parse_go_duration(text: str) -> float:
    """Seconds of a Go duration ("1h30m", "1.5s", "300ms"), with time.ParseDuration's rules and
    messages (k8s: Go time/format.go ParseDuration). Raises ValueError."""
    quoted = json.dumps(text)
    s = text
    negative = s[:1] == "-"
    if s[:1] in "+-" and s:
        s = s[1:]
    if s == "0":
        return 0.0
    if not s:
        raise ValueError(f"time: invalid duration {quoted}")
    total = 0
    pos = 0
    while pos < len(s):
        m = _DURATION_PART.match(s, pos)
        whole, frac, unit = m.group(1), m.group(2), m.group(3)
        if not whole and not frac:
            raise ValueError(f"time: invalid duration {quoted}")
        if not unit:
            raise ValueError(f"time: missing unit in duration {quoted}")
        if unit not in _DURATION_UNITS:
            raise ValueError(f"time: unknown unit {json.dumps(unit)} in duration {quoted}")
        scale = _DURATION_UNITS[unit]
        total += int(whole or 0) * scale + (int(frac) * scale // 10 ** len(frac) if frac else 0)
        if total > _MAX_DURATION_NS:
            raise ValueError(f"time: invalid duration {quoted}")
        pos = m.end()
    return (-total if negative else total) / 1e9


_DRA_EXTENDED: dict[str, bool] = {}   # resource name -> is_dra_extended_resource_name (a few names per cluster)


def _is_dra_extended(name: str) -> bool:
    known = _DRA_EXTENDED.get(name)
    if known is None:
        if len(_DRA_EXTENDED) >= 4096:
            _DRA_EXTENDED.clear()
        known = _DRA_EXTENDED[name] = is_dra_extended_resource_name(name)
    return known


def cdi_id(driver: str, claim_uid: str, device: str) -> str:
    return f"k8s.{driver}/{driver.split('.')[0]}={claim_uid}-{device}"


class Kubelets:
    """All simulated kubelets of the cluster, as one component."""

    name = "kubelet"

    def __init__(self, store: MemoryStore, watch: bool = True) -> None:
        """watch=False: kubelets that never run (scheduler_perf's setting) do not follow the store."""
        self.store = store
        self.workload_claims = False   # DRAWorkloadResourceClaims: a PodGroup's reservation covers its pods
        self._queue: deque[tuple[str, str]] = deque()
        self._queued: set[tuple[str, str]] = set()
        self._waiting: dict[tuple[str, str], set[str]] = {}   # pod key -> claim names it waits for
        self._waiters: dict[tuple[str, str], set[tuple[str, str]]] = {}   # (ns, claim) -> pod keys
        self._waiting_order: dict[tuple[str, str], int] = {}
        self._waiting_seq = itertools.count()
        # What admission compares against, kept up to date from watch events instead of summing
        # every pod of the node for each pod admitted (that made one full node quadratic): per
        # node, the DRA extended resources its Running pods request, and each counted pod's (non-empty) share.
        self._node_usage: dict[str, dict[str, int]] = {}
        self._counted: dict[tuple[str, str], tuple[str, dict, object, dict[str, int]]] = {}
        self.warnings: list[str] = []   # bad run-for annotations, for the CLI to print
        if watch:
            store.subscribe(self._on_event, kinds=("Pod", "ResourceClaim"))
        self._attributes = devicemetadata.SliceAttributes(store, watch=watch)

    def _on_event(self, ev: WatchEvent) -> None:
        md = ev.obj["metadata"]
        if ev.kind == "Pod":
            key = (md.get("namespace"), md["name"])
            self._account(key, None if ev.type == DELETED else ev.obj)
            if ev.type == DELETED:
                self._set_waiting(key, set())
            elif ev.obj["spec"].get("nodeName") and (ev.obj.get("status") or {}).get("phase") == "Pending":
                self._enqueue(key)
        elif ev.type != DELETED:
            waiters = self._waiters.get((md.get("namespace"), md["name"]))
            if waiters:   # in the order the pods started waiting, as a scan of _waiting gives
                for key in sorted(waiters, key=self._waiting_order.__getitem__):
                    self._enqueue(key)

    def _set_waiting(self, key: tuple[str, str], claims: set[str]) -> None:
        for name in self._waiting.get(key, set()) - claims:
            waiters = self._waiters[(key[0], name)]
            waiters.discard(key)
            if not waiters:
                del self._waiters[(key[0], name)]
        if not claims:
            self._waiting.pop(key, None)
            self._waiting_order.pop(key, None)
            return
        for name in claims:
            self._waiters.setdefault((key[0], name), set()).add(key)
        self._waiting[key] = claims
        self._waiting_order.setdefault(key, next(self._waiting_seq))

    def _account(self, key: tuple[str, str], pod: dict | None) -> None:
        """Keep the node's usage by Running pods current (k8s: kubelet admission sees the
        node's active pods, lifecycle/predicate.go Admit)."""
        counts = pod is not None and pod["spec"].get("nodeName") and \
            (pod.get("status") or {}).get("phase") == "Running"
        ext = (pod.get("status") or {}).get("extendedResourceClaimStatus") if pod is not None else None
        old = self._counted.get(key)
        if old is not None:
            if counts and old[0] == pod["spec"]["nodeName"] and old[1] is pod["spec"] and old[2] is ext:
                return
            usage = self._node_usage[old[0]]
            for name, value in old[3].items():
                usage[name] -= value
            del self._counted[key]
        if counts:
            share = self._extended_share(pod)
            if not share:
                # Counts for nothing (most pods): no entry, no node usage to make (it is read
                # with .get); a later change of the pod computes its share afresh.
                return
            node = pod["spec"]["nodeName"]
            usage = self._node_usage.setdefault(node, {})
            for name, value in share.items():
                usage[name] = usage.get(name, 0) + value
            self._counted[key] = (node, pod["spec"], ext, share)

    @classmethod
    def _extended_share(cls, pod: dict) -> dict[str, int]:
        """The DRA extended resources a pod counts for on its node: its admission requests
        (allocatable None) restricted to DRA extended resource names. PodRequests adds each
        resource up on its own (podresources.py) and pod-level requests only replace cpu and
        memory, so a pod whose containers, init containers and overhead request no such name
        (or only names its extended-resource claim serves) counts for none: most pods, and the
        full computation is left to the others."""
        spec = pod["spec"]
        served = None   # (container, resource) pairs the extended-resource claim serves
        for key in ("containers", "initContainers"):
            for c in spec.get(key) or ():
                for name in (c.get("resources") or {}).get("requests") or ():
                    if not _is_dra_extended(name):
                        continue
                    if served is None:
                        status = (pod.get("status") or {}).get("extendedResourceClaimStatus") or {}
                        # A null entry decodes to a zero RequestMapping in Go (encoding/json: null
                        # into a struct is a no-op): it names no container, so it serves none.
                        served = {(m.get("containerName"), m.get("resourceName")) for m in _request_mappings(status)}
                    if (c.get("name"), name) not in served:
                        return cls._full_extended_share(pod)
        for name in spec.get("overhead") or ():
            if _is_dra_extended(name):
                return cls._full_extended_share(pod)
        return {}

    @classmethod
    def _full_extended_share(cls, pod: dict) -> dict[str, int]:
        return {name: value for name, value in cls._admission_requests(pod, None).items()
                if is_dra_extended_resource_name(name)}

    def _enqueue(self, key: tuple[str, str]) -> None:
        if key not in self._queued:
            self._queued.add(key)
            self._queue.append(key)

    def has_work(self) -> bool:
        return bool(self._queue)

    def run_once(self) -> None:
        key = self._queue.popleft()
        self._queued.discard(key)
        pod = self.store.get("Pod", *key)
        if pod is None or not pod["spec"].get("nodeName") or (pod.get("status") or {}).get("phase") != "Pending":
            return
        self._sync_pod(key, pod)

    def _claims_ready(self, pod: dict) -> tuple[dict[str, dict], set[str]]:
        """Claims by entry name (plus the extended-resource claim), and the names not ready yet."""
        ns = pod["metadata"].get("namespace")
        uid = pod["metadata"]["uid"]
        ready: dict[str, dict] = {}
        waiting: set[str] = set()
        names = {entry["name"]: name for entry, name, _ in pod_claims(pod)}
        ext = (pod.get("status") or {}).get("extendedResourceClaimStatus")
        if ext:
            names["\x00extended"] = ext.get("resourceClaimName")
        for entry, claim_name in names.items():
            if claim_name is None:
                if entry in {e["name"] for e in pod["spec"].get("resourceClaims") or ()
                             if e.get("resourceClaimTemplateName")} and entry not in {
                        s.get("name") for s in (pod.get("status") or {}).get("resourceClaimStatuses") or ()}:
                    waiting.add(entry)
                continue
            claim = self.store.get("ResourceClaim", ns, claim_name)
            reserved = claim is not None and (
                any(r.get("uid") == uid for r in (claim.get("status") or {}).get("reservedFor") or ())
                or (self.workload_claims and is_reserved_for_group(claim, pod)))   # k8s: acceptPodGroupReservation
            if claim is None or not (claim.get("status") or {}).get("allocation") or not reserved:
                waiting.add(claim_name)
            else:
                ready[entry] = claim
        return ready, waiting

    def _sync_pod(self, key: tuple[str, str], pod: dict) -> None:
        rejection = self._admit(pod)
        if rejection is not None:
            self._reject(pod, *rejection)
            return
        ready, waiting = self._claims_ready(pod)
        self._set_waiting(key, waiting)
        if waiting:
            return
        cdi, files = self._prepare(pod, ready)
        self._start(pod, cdi, files)

    def _admit(self, pod: dict) -> tuple[str, str] | None:
        """Kubelet admission of node resources (k8s: lifecycle/predicate.go, extended-resources.md §9.1).

        Requests served by the pod's extended-resource claim are removed first, and explicit
        extended names the node does not list at all are dropped; the rest must fit the node's
        allocatable next to the pods already admitted there. Returns (reason, message) or None.
        """
        node = self.store.get("Node", None, pod["spec"]["nodeName"])
        if node is None:
            return None
        allocatable = resource_list((node.get("status") or {}).get("allocatable")
                                    or (node.get("status") or {}).get("capacity"))
        requests = self._admission_requests(pod, allocatable)
        if not requests:
            return None
        # The other pods' requests need no trimming to this node's list: a name checked below
        # is one the node lists (or not an extended resource), which trimming keeps anyway.
        used = self._node_usage.get(node["metadata"]["name"], {})
        for name in sorted(requests):
            if name in (CPU, MEMORY) or not is_dra_extended_resource_name(name):
                continue   # drasim admits on extended resources only; cpu/memory fit is the scheduler's
            capacity = allocatable.get(name, 0)
            if requests[name] + used.get(name, 0) > capacity:
                return (f"OutOf{name}", f"Pod was rejected: Node didn't have enough resource: {name}, "
                        f"requested: {requests[name]}, used: {used.get(name, 0)}, capacity: {capacity}")
        return None

    @staticmethod
    def _admission_requests(pod: dict, allocatable: dict[str, int] | None) -> dict[str, int]:
        """Requests kubelet admits on; with allocatable None, names the node lacks are kept."""
        mapped: dict[str, set[str]] = {}
        status = (pod.get("status") or {}).get("extendedResourceClaimStatus") or {}
        for m in _request_mappings(status):
            mapped.setdefault(m.get("containerName"), set()).add(m.get("resourceName"))
        stripped = {"spec": dict(pod["spec"])}
        for key in ("containers", "initContainers"):
            out = []
            for c in pod["spec"].get(key) or ():
                req = dict((c.get("resources") or {}).get("requests") or {})
                for name in list(req):
                    if name in mapped.get(c.get("name"), ()):
                        del req[name]   # served by the extended-resource claim
                    elif allocatable is not None and is_extended_resource_name(name) and name not in allocatable:
                        del req[name]   # k8s: removeMissingExtendedResources
                out.append(dict(c, resources={"requests": req}))
            stripped["spec"][key] = out
        return pod_requests(stripped)

    def _reject(self, pod: dict, reason: str, message: str) -> None:
        status = clone(pod.get("status") or {})
        status.update(phase="Failed", reason=reason, message=message)
        self.store.update_status(dict(pod, status=status), copy=False)
        record_event(self.store, pod, WARNING, reason, message, COMPONENT)

    def _prepare(self, pod: dict, claims: dict[str, dict]) -> tuple[dict[str, list[str]], dict[str, dict]]:
        """CDI device IDs per container (k8s: kubelet DRA manager + driver NodePrepareResources), and the
        device metadata files mounted into each container (KEP-5304, node/devicemetadata.py)."""
        per_container: dict[str, list[str]] = {}
        files: dict[str, dict] = {}
        prepared = {entry: devicemetadata.claim_files(claim, self._attributes) for entry, claim in claims.items()}
        containers = (pod["spec"].get("initContainers") or []) + (pod["spec"].get("containers") or [])
        for c in containers:
            ids: list[str] = []
            mounted: dict[str, dict] = {}
            for ref in (c.get("resources") or {}).get("claims") or ():
                claim = claims.get(ref.get("name"))
                if claim is None:
                    continue
                for r in ((claim["status"]["allocation"].get("devices") or {}).get("results") or ()):
                    request = r["request"].split("/")[0]
                    if ref.get("request") and ref["request"] != request:
                        continue
                    ids.append(cdi_id(r["driver"], claim["metadata"]["uid"], r["device"]))
                    mounted.setdefault(*prepared[ref["name"]][(r["driver"], request)])
            ext_claim = claims.get("\x00extended")
            if ext_claim is not None:
                mappings = _request_mappings(pod["status"]["extendedResourceClaimStatus"])
                wanted = {m.get("requestName") for m in mappings if m.get("containerName") == c["name"]}
                for r in ext_claim["status"]["allocation"]["devices"]["results"]:
                    if r["request"] in wanted:
                        ids.append(cdi_id(r["driver"], ext_claim["metadata"]["uid"], r["device"]))
                        mounted.setdefault(*prepared["\x00extended"][(r["driver"], r["request"].split("/")[0])])
            if ids:
                per_container[c["name"]] = ids
            if mounted:
                files[c["name"]] = mounted
        return per_container, files

    def _start(self, pod: dict, cdi: dict[str, list[str]], files: dict[str, dict]) -> None:
        now = self.store.clock.timestamp()
        if cdi:
            updated = clone(pod)
            annotations = updated["metadata"].setdefault("annotations", {})
            annotations[CDI_ANNOTATION] = json.dumps(cdi, sort_keys=True)
            if files:
                annotations[devicemetadata.ANNOTATION] = json.dumps(files, sort_keys=True)
            updated["metadata"].pop("resourceVersion", None)
            pod = self.store.update(updated)
        status = clone(pod.get("status") or {})
        status["phase"] = "Running"
        status["startTime"] = now
        status["hostIP"] = "10.0.0.1"
        conditions = [c for c in status.get("conditions") or [] if c.get("type") == "PodScheduled"]
        for t in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady"):
            conditions.append({"type": t, "status": "True", "lastProbeTime": None, "lastTransitionTime": now})
        status["conditions"] = conditions
        status["containerStatuses"] = [
            {"name": c["name"], "image": c.get("image", ""), "imageID": "", "ready": True, "started": True,
             "restartCount": 0, "state": {"running": {"startedAt": now}}}
            for c in pod["spec"].get("containers") or ()]
        pod = self.store.update_status(dict(pod, status=status), copy=False)
        record_event(self.store, pod, NORMAL, "Started", "Started container(s)", COMPONENT)
        self._schedule_completion(pod)

    def _schedule_completion(self, pod: dict) -> None:
        """drasim's run-for annotation: the containers exit 0 after that long (virtual time)."""
        text = (pod["metadata"].get("annotations") or {}).get(RUN_FOR_ANNOTATION)
        if text is None:
            return
        try:
            seconds = parse_go_duration(text)
            if seconds < 0:
                raise ValueError(f"time: negative duration {json.dumps(text)}")
            if pod["spec"].get("restartPolicy", "Always") == "Always":
                # k8s: kubelet restarts containers that exit under restartPolicy Always; such a
                # pod never Succeeds.
                raise ValueError("restartPolicy Always restarts containers that exit")
        except ValueError as e:
            message = f"annotation {RUN_FOR_ANNOTATION}: {e}; the pod runs until deleted"
            record_event(self.store, pod, WARNING, "InvalidRunFor", message, COMPONENT)
            md = pod["metadata"]
            self.warnings.append(f"pod {md.get('namespace')}/{md['name']}: {message}")
            return
        key = (pod["metadata"].get("namespace"), pod["metadata"]["name"])
        uid = pod["metadata"]["uid"]
        self.store.clock.call_later(seconds, lambda: self._complete(key, uid))

    def _complete(self, key: tuple[str, str], uid: str) -> None:
        """All containers exited 0: phase Succeeded (k8s: kubelet status manager for a pod whose
        containers terminated with restartPolicy Never/OnFailure; conditions as
        pkg/kubelet/status/generate.go writes them for a completed pod)."""
        pod = self.store.get("Pod", *key)
        if pod is None or pod["metadata"]["uid"] != uid or (pod.get("status") or {}).get("phase") != "Running":
            return
        now = self.store.clock.timestamp()
        status = clone(pod["status"])
        status["phase"] = "Succeeded"
        conditions = []
        for c in status.get("conditions") or []:
            if c.get("type") == "PodReadyToStartContainers":
                c = dict(c, status="False", lastTransitionTime=now)
            elif c.get("type") in ("Ready", "ContainersReady"):
                c = dict(c, status="False", reason="PodCompleted", lastTransitionTime=now)
            elif c.get("type") == "Initialized":
                c = dict(c, reason="PodCompleted")
            conditions.append(c)
        status["conditions"] = conditions
        for cs in status.get("containerStatuses") or []:
            started = ((cs.get("state") or {}).get("running") or {}).get("startedAt", now)
            cs.update(ready=False, started=False,
                      state={"terminated": {"exitCode": 0, "reason": "Completed",
                                            "startedAt": started, "finishedAt": now}})
        self.store.update_status(dict(pod, status=status), copy=False)


def _request_mappings(status: dict) -> list[dict]:
    """extendedResourceClaimStatus.requestMappings, a null entry read as Go reads it: a zero
    RequestMapping (encoding/json: null into a struct is a no-op), which names no container."""
    return [m if m is not None else {} for m in status.get("requestMappings") or ()]
