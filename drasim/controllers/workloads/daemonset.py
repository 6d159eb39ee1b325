"""The DaemonSet controller of kube-controller-manager.

k8s: pkg/controller/daemon/daemon_controller.go (syncDaemonSet, manage, podsShouldBeOnNode, syncNodes,
     NodeShouldRunDaemonPod, predicates, NewPod, updateDaemonSetStatus, getUnscheduledPodsWithoutNode),
     pkg/controller/daemon/util/daemonset_util.go (AddOrUpdateDaemonPodTolerations, CreatePodTemplate,
     ReplaceDaemonSetPodNodeNameNodeAffinity, GetTargetNodeName, IsPodUpdated), update.go (rollingUpdate).

One pod per node that the pod would be admitted to: node name, the template's nodeSelector and
required node affinity, and node taints against the template's tolerations plus the ones the
controller adds (not-ready and unreachable NoExecute; disk-pressure, memory-pressure, pid-pressure,
unschedulable NoSchedule; network-unavailable NoSchedule for hostNetwork pods). Since v1.12 the pod is
not bound by the controller: it gets a required node affinity term on `metadata.name` and the default
scheduler places it, so its resources, claims and quota count like any pod's. Pods are
`<daemonset>-<5 characters>`, labelled `controller-revision-hash` and `pod-template-generation`.

Deliberate difference, so a run settles: a daemon pod that keeps failing on a node (kubelet
rejection) is replaced with k8s' doubling backoff from 1 s, but once the delay reaches its 15 min cap
the controller waits for a node or DaemonSet change instead of retrying forever.
"""
from __future__ import annotations

from drasim.api.nodeselector import required_node_affinity
from collections import Counter

from drasim.controllers.workloads.common import (ControllerContext, KeyQueue, available_at, claim_pods, controller_of,
                                                 is_pod_ready as is_ready, is_terminal, is_terminating, phase,
                                                 pod_from_template, selector_of, submit_pod)
from drasim.controllers.workloads.history import CONTROLLER_REVISION_HASH_LABEL, RevisionNames, template_hash
from drasim.scheduler.plugins.tainttoleration import tolerations_tolerate
from drasim.store import DELETED, StoreError, WatchEvent, clone
from drasim.store.events import NORMAL, WARNING, record_event

COMPONENT = "daemonset-controller"
TEMPLATE_GENERATION_LABEL = "pod-template-generation"
TEMPLATE_GENERATION_ANNOTATION = "deprecated.daemonset.template.generation"
_BACKOFF_START, _BACKOFF_MAX = 1.0, 15 * 60.0   # k8s: failedPodsBackoff (1 s doubling, 15 min cap)

# k8s: AddOrUpdateDaemonPodTolerations, in its order.
DAEMON_TOLERATIONS = (
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
)
HOST_NETWORK_TOLERATION = {"key": "node.kubernetes.io/network-unavailable", "operator": "Exists",
                           "effect": "NoSchedule"}


def add_daemon_tolerations(spec: dict) -> None:
    """k8s: AddOrUpdateDaemonPodTolerations via AddOrUpdateTolerationInPodSpec: a toleration with the
    same key, operator, value and effect is replaced, otherwise the new one is appended."""
    wanted = list(DAEMON_TOLERATIONS) + ([HOST_NETWORK_TOLERATION] if spec.get("hostNetwork") else [])
    tolerations = [t for t in spec.get("tolerations") or () if isinstance(t, dict)]
    for new in wanted:
        for i, old in enumerate(tolerations):
            if all((old.get(k) or "") == (new.get(k) or "") for k in ("key", "operator", "value", "effect")):
                tolerations[i] = dict(new)
                break
        else:
            tolerations.append(dict(new))
    spec["tolerations"] = tolerations


def node_name_affinity(affinity: dict | None, node_name: str) -> dict:
    """k8s: ReplaceDaemonSetPodNodeNameNodeAffinity: the required node selector becomes one term,
    `metadata.name In [node]` (preferred terms and pod (anti-)affinity are kept)."""
    affinity = clone(affinity) if isinstance(affinity, dict) else {}
    node_affinity = affinity.setdefault("nodeAffinity", {})
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}
    return affinity


def target_node(pod: dict) -> str | None:
    """k8s: GetTargetNodeName: spec.nodeName, or the node of the metadata.name affinity term."""
    spec = pod.get("spec") or {}
    if spec.get("nodeName"):
        return spec["nodeName"]
    required = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    for term in required.get("nodeSelectorTerms") or ():
        for expr in (term or {}).get("matchFields") or ():
            if expr.get("key") == "metadata.name" and expr.get("operator") == "In":
                values = expr.get("values") or []
                return values[0] if len(values) == 1 else None
    return None


def daemon_pod_spec(ds: dict, node_name: str) -> dict:
    """k8s: NewPod: the template's spec on the node, with the daemon tolerations."""
    spec = clone(((ds.get("spec") or {}).get("template") or {}).get("spec") or {})
    spec["nodeName"] = node_name
    add_daemon_tolerations(spec)
    return spec


class Eligibility:
    """k8s: NodeShouldRunDaemonPod for one DaemonSet, compiled once for all nodes: the daemon pod's
    required node affinity (nodeSelector and affinity) and tolerations do not depend on the node."""

    def __init__(self, ds: dict) -> None:
        template_spec = ((ds.get("spec") or {}).get("template") or {}).get("spec") or {}
        self.node_name = template_spec.get("nodeName")
        spec = daemon_pod_spec(ds, "")
        self.affinity = required_node_affinity({"spec": spec})
        self.tolerations = spec["tolerations"]

    def __call__(self, node: dict) -> tuple[bool, bool]:
        """(shouldRun, shouldContinueRunning)."""
        if self.node_name and self.node_name != node["metadata"]["name"]:
            return False, False
        if not self.affinity.matches(node):
            return False, False
        untolerated = [t for t in (node.get("spec") or {}).get("taints") or () if isinstance(t, dict)
                       and t.get("effect") in ("NoSchedule", "NoExecute")
                       and not tolerations_tolerate(self.tolerations, t)]
        if untolerated:
            return False, not any(t.get("effect") == "NoExecute" for t in untolerated)
        return True, True


def should_run(node: dict, ds: dict) -> tuple[bool, bool]:
    """k8s: NodeShouldRunDaemonPod: (shouldRun, shouldContinueRunning)."""
    return Eligibility(ds)(node)


def _created_order(pod: dict) -> tuple:
    """k8s: podByCreationTimestampAndPhase: scheduled first, then oldest, then by name."""
    return (not (pod.get("spec") or {}).get("nodeName"), pod["metadata"].get("creationTimestamp") or "",
            pod["metadata"]["name"])


def controller(ctx: ControllerContext) -> "DaemonSetController":
    return DaemonSetController(ctx)


class DaemonSetController:
    name = "daemonset-controller"

    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx   # ctx.create: ControlPlane.client_create (defaults, validation, quota)
        self.store = store = ctx.store
        self.queue = KeyQueue(ctx.clock)
        self._blocked: set[tuple[str, str]] = set()
        self._backoff: dict[tuple[str, str], tuple[float, float]] = {}   # (ds uid, node) -> (delay, next try)
        self._revisions = RevisionNames()
        store.subscribe(self._on_event, kinds=("DaemonSet", "Pod", "Node", "ResourceQuota"))

    def _on_event(self, ev: WatchEvent) -> None:
        md = ev.obj["metadata"]
        ns = md.get("namespace") or ""
        if ev.kind == "DaemonSet":
            if ev.type != DELETED:
                self.queue.add((ns, md["name"]))
        elif ev.kind == "Node":
            # k8s: addNode/updateNode/deleteNode enqueue the sets whose answer may change
            for ds in self.store.list("DaemonSet"):
                self.queue.add((ds["metadata"].get("namespace") or "", ds["metadata"]["name"]))
        elif ev.kind == "ResourceQuota":
            for key in sorted(k for k in self._blocked if k[0] == ns):
                self._blocked.discard(key)
                self.queue.add(key)
        elif self.store.count("DaemonSet"):   # pods wake nothing when there is no DaemonSet
            for obj in (ev.old, ev.obj):
                if obj is None:
                    continue
                ref = controller_of(obj)
                if ref is not None:
                    if ref.get("kind") == "DaemonSet" and ref.get("apiVersion", "").startswith("apps/"):
                        self.queue.add((ns, ref.get("name")))
                    continue
                labels = obj["metadata"].get("labels") or {}
                for ds in self.store.list("DaemonSet", ns):
                    sel = selector_of(ds)
                    if sel is not None and not sel.empty and sel.matches(labels):
                        self.queue.add((ns, ds["metadata"]["name"]))

    def has_work(self) -> bool:
        return bool(self.queue)

    def run_once(self) -> None:
        ns, name = self.queue.pop()
        ds = self.store.get("DaemonSet", ns, name)
        if ds is not None:
            self.sync(ds)

    # -- sync ------------------------------------------------------------------------------------------
    def sync(self, ds: dict) -> None:
        sel = selector_of(ds)
        if sel is None or sel.empty:
            record_event(self.store, ds, WARNING, "SelectingAll",
                         "This daemon set is selecting all pods. A non-empty selector is required.", COMPONENT)
            return
        if ds["metadata"].get("deletionTimestamp"):
            return
        nodes = sorted(self.store.list("Node"), key=lambda n: n["metadata"]["name"])
        by_node = self._pods_by_node(ds)
        hash_ = self._revisions.name(ds["metadata"]["uid"], template_hash((ds.get("spec") or {}).get("template") or {}),
                                     _snapshot_hash(ds, by_node))
        eligible = Eligibility(ds)
        verdicts = {n["metadata"]["name"]: eligible(n) for n in nodes}
        to_create: list[str] = []
        to_delete: list[dict] = []
        for node in nodes:
            create, delete = self._pods_should_be_on_node(ds, node, by_node.get(node["metadata"]["name"], []),
                                                          verdicts[node["metadata"]["name"]])
            to_create += create
            to_delete += delete
        known = {n["metadata"]["name"] for n in nodes}
        for node_name, pods in sorted(by_node.items()):   # k8s: getUnscheduledPodsWithoutNode
            if node_name not in known:
                to_delete += [p for p in pods if not (p.get("spec") or {}).get("nodeName")]
        self._sync_nodes(ds, to_delete, to_create, hash_)
        if ((ds.get("spec") or {}).get("updateStrategy") or {}).get("type", "RollingUpdate") == "RollingUpdate":
            self._rolling_update(ds, nodes, hash_, verdicts)
        self._write_status(ds, nodes, hash_, verdicts)

    def _updated(self, ds: dict, pod: dict, hash_: str) -> bool:
        """k8s: util.IsPodUpdated — the current hash, or the current templateGeneration."""
        labels = pod["metadata"].get("labels") or {}
        generation = (ds["metadata"].get("annotations") or {}).get(TEMPLATE_GENERATION_ANNOTATION)
        return labels.get(CONTROLLER_REVISION_HASH_LABEL) == hash_ or (
            generation is not None and labels.get(TEMPLATE_GENERATION_LABEL) == str(generation))

    def _rolling_update(self, ds: dict, nodes: list[dict], hash_: str, verdicts: dict) -> None:
        """k8s: update.go rollingUpdate without surge: old pods that are not available go at once;
        available ones are deleted while fewer than maxUnavailable nodes lack an available pod.
        manage() then makes the node's pod from the current template."""
        by_node = self._pods_by_node(ds)
        min_ready = int((ds.get("spec") or {}).get("minReadySeconds") or 0)
        now = self.store.clock.now
        eligible = [n for n in nodes if verdicts[n["metadata"]["name"]][0]]
        rolling = ((ds.get("spec") or {}).get("updateStrategy") or {}).get("rollingUpdate") or {}
        max_unavailable = _scaled_up(rolling.get("maxUnavailable", 1), len(eligible))
        unavailable = 0
        broken: list[dict] = []
        healthy: list[dict] = []
        for node in eligible:
            pods = [p for p in by_node.get(node["metadata"]["name"], []) if not is_terminating(p) and not is_terminal(p)]
            if len(pods) > 1:
                continue   # k8s: findUpdatedPodsOnNode — manage() prunes first
            available = bool(pods) and (available_at(pods[0], min_ready) or float("inf")) <= now
            if not pods or self._updated(ds, pods[0], hash_):
                unavailable += not available
            elif available:
                healthy.append(pods[0])
            else:
                broken.append(pods[0])
        budget = max(max_unavailable - unavailable, 0)
        for pod in broken + healthy[:budget]:
            md = pod["metadata"]
            try:
                self.store.delete("Pod", md.get("namespace"), md["name"], uid=md.get("uid"))
            except StoreError:
                continue
            record_event(self.store, ds, NORMAL, "SuccessfulDelete", f"Deleted pod: {md['name']}", COMPONENT)

    def _pods_by_node(self, ds: dict) -> dict[str, list[dict]]:
        """k8s: getNodesToDaemonPods (terminal pods being deleted are left out)."""
        out: dict[str, list[dict]] = {}
        for pod in claim_pods(self.ctx, ds):
            if is_terminal(pod) and is_terminating(pod):
                continue
            node = target_node(pod)
            if node:
                out.setdefault(node, []).append(pod)
        return out

    def _pods_should_be_on_node(self, ds: dict, node: dict, pods: list[dict],
                                verdict: tuple[bool, bool]) -> tuple[list[str], list[dict]]:
        """k8s: podsShouldBeOnNode (surge is not modelled: at most one running pod per node)."""
        run, keep = verdict
        name = node["metadata"]["name"]
        if run and not pods:
            return [name], []
        if keep:
            running: list[dict] = []
            delete: list[dict] = []
            for pod in pods:
                if is_terminating(pod):
                    continue
                if phase(pod) == "Failed":
                    if self._in_backoff(ds, name):
                        continue
                    record_event(self.store, ds, WARNING, "FailedDaemonPod",
                                 f"Found failed daemon pod {pod['metadata'].get('namespace')}/{pod['metadata']['name']}"
                                 f" on node {name}, will try to kill it", COMPONENT)
                    delete.append(pod)
                elif phase(pod) == "Succeeded":
                    record_event(self.store, ds, NORMAL, "SucceededDaemonPod",
                                 f"Found succeeded daemon pod {pod['metadata'].get('namespace')}/"
                                 f"{pod['metadata']['name']} on node {name}, will try to delete it", COMPONENT)
                    delete.append(pod)
                else:
                    running.append(pod)
            running.sort(key=_created_order)
            return [], delete + running[1:]
        return [], [p for p in pods if not is_terminating(p)]

    def _in_backoff(self, ds: dict, node: str) -> bool:
        key = (ds["metadata"]["uid"], node)
        now = self.store.clock.now
        delay, next_try = self._backoff.get(key, (0.0, 0.0))
        if now < next_try:
            return True
        if delay >= _BACKOFF_MAX:
            return True   # see the module docstring: wait for a change instead of retrying forever
        delay = _BACKOFF_START if delay == 0 else min(2 * delay, _BACKOFF_MAX)
        self._backoff[key] = (delay, now + delay)
        self.queue.add_after((ds["metadata"].get("namespace") or "", ds["metadata"]["name"]), delay)
        return False

    def _sync_nodes(self, ds: dict, to_delete: list[dict], nodes: list[str], hash_: str) -> None:
        """k8s: syncNodes: creates in slow-start batches (a failure skips the rest), then deletes."""
        template = self._pod_template(ds, hash_)
        done, batch = 0, 1
        while done < len(nodes):
            size = min(batch, len(nodes) - done)
            results = [self._create_on(ds, template, node) for node in nodes[done:done + size]]
            done += size
            if not all(results):
                break
            batch = 2 * size
        for pod in to_delete:
            md = pod["metadata"]
            try:
                self.store.delete("Pod", md.get("namespace"), md["name"], uid=md.get("uid"))
            except StoreError:
                continue
            record_event(self.store, ds, NORMAL, "SuccessfulDelete", f"Deleted pod: {md['name']}", COMPONENT)

    @staticmethod
    def _pod_template(ds: dict, hash_: str) -> dict:
        """k8s: CreatePodTemplate: daemon tolerations, pod-template-generation and hash labels."""
        template = clone((ds.get("spec") or {}).get("template") or {})
        spec = template.setdefault("spec", {})
        add_daemon_tolerations(spec)
        labels = template.setdefault("metadata", {}).setdefault("labels", {})
        generation = (ds["metadata"].get("annotations") or {}).get(TEMPLATE_GENERATION_ANNOTATION)
        if generation is not None:
            labels[TEMPLATE_GENERATION_LABEL] = str(generation)
        labels[CONTROLLER_REVISION_HASH_LABEL] = hash_
        return template

    def _create_on(self, ds: dict, template: dict, node_name: str) -> bool:
        pod = pod_from_template(template, ds)
        pod["spec"]["affinity"] = node_name_affinity(pod["spec"].get("affinity"), node_name)
        created, _ = submit_pod(self.ctx, pod, ds, COMPONENT)
        if created is None:
            md = ds["metadata"]
            self._blocked.add((md.get("namespace") or "", md["name"]))
            return False
        return True

    def _write_status(self, ds: dict, nodes: list[dict], hash_: str, verdicts: dict) -> None:
        """k8s: updateDaemonSetStatus / storeDaemonSetStatus."""
        ds = self.store.get("DaemonSet", ds["metadata"].get("namespace"), ds["metadata"]["name"]) or ds
        by_node = self._pods_by_node(ds)
        min_ready = int((ds.get("spec") or {}).get("minReadySeconds") or 0)
        desired = current = misscheduled = ready = updated = available = 0
        now = self.store.clock.now
        for node in nodes:
            run, _ = verdicts[node["metadata"]["name"]]
            pods = sorted(by_node.get(node["metadata"]["name"], []), key=_created_order)
            if not run:
                misscheduled += bool(pods)
                continue
            desired += 1
            if not pods:
                continue
            current += 1
            pod = pods[0]
            if is_ready(pod):
                ready += 1
                when = available_at(pod, min_ready)
                if when is not None and when <= now:
                    available += 1
                elif when is not None:
                    self.queue.add_after((ds["metadata"].get("namespace") or "", ds["metadata"]["name"]), when - now)
            updated += self._updated(ds, pod, hash_)
        status = {"currentNumberScheduled": current, "numberMisscheduled": misscheduled,
                  "desiredNumberScheduled": desired, "numberReady": ready,
                  "observedGeneration": ds["metadata"].get("generation", 1)}
        for key, value in (("updatedNumberScheduled", updated), ("numberAvailable", available),
                           ("numberUnavailable", desired - available)):
            if value:   # omitempty in apps/v1
                status[key] = value
        if ds.get("status") != status:
            self.store.update_status(dict(ds, status=status), copy=False)


def _snapshot_hash(ds: dict, by_node: dict[str, list[dict]]) -> str | None:
    """The hash Kubernetes gave the DaemonSet's current template, as its pods of the current
    templateGeneration carry it (a replayed snapshot); None when there are none. New pods then
    carry the cluster's hash too."""
    generation = (ds["metadata"].get("annotations") or {}).get(TEMPLATE_GENERATION_ANNOTATION)
    hashes = Counter((p["metadata"].get("labels") or {}).get(CONTROLLER_REVISION_HASH_LABEL)
                     for pods in by_node.values() for p in pods
                     if (p["metadata"].get("labels") or {}).get(TEMPLATE_GENERATION_LABEL) == generation)
    hashes.pop(None, None)
    return hashes.most_common(1)[0][0] if hashes else None


def _scaled_up(value, total: int) -> int:
    """k8s: intstr.GetScaledValueFromIntOrPercent(roundUp=true); at least 1 without surge."""
    if isinstance(value, str) and value.endswith("%") and value[:-1].isdigit():
        n = -(-int(value[:-1]) * total // 100)
    else:
        n = value if isinstance(value, int) and not isinstance(value, bool) else 1
    return max(n, 1)


__all__ = ["DAEMON_TOLERATIONS", "DaemonSetController", "Eligibility", "add_daemon_tolerations", "node_name_affinity",
           "should_run", "target_node"]
