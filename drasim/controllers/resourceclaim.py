"""The resourceclaim controller of kube-controller-manager.

k8s: pkg/controller/resourceclaim/controller.go.

- For each pod entry with `resourceClaimTemplateName` it creates one claim from
  the template (generateName `<pod>-<entry>-`, the pod as controlling owner,
  annotation `resource.kubernetes.io/pod-claim-name`) and records it in
  `pod.status.resourceClaimStatuses`. A recorded claim that was deleted (or is no
  longer the pod's) is made again under a new name (handleClaim), unless the pod
  is being deleted or is done.
- It removes pods that are gone or finished from `status.reservedFor`; a claim
  nobody uses any more is deallocated (structured parameters need no driver
  for that) and loses its delete-protection finalizer; a claim owned by a pod
  that is gone or finished is deleted.
"""
from __future__ import annotations

from collections import deque

from drasim import smallsets
from drasim.api.podclaims import (RESERVED_FOR_MAX_SIZE, bound_to_group, claim_statuses, group_consumer,
                                  is_group_consumer, is_owned_by, is_owned_by_group, is_reserved_for,
                                  is_reserved_for_group, pod_claims, pod_group_name)
from drasim.api.podclaims import claim_name as entry_claim_name
from drasim.controllers.batching import run_batch
from drasim.store.events import WARNING, record_event
from drasim.metrics import Metrics
from drasim.errors import InputError
from drasim.store import DELETED, MemoryStore, WatchEvent, clone

COMPONENT = "resource_claim"
POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
PODGROUP_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/podgroup-claim-name"   # KEP-5729
DELETE_PROTECTION_FINALIZER = "resource.kubernetes.io/delete-protection"
_MAX_BASE_LEN = 57  # k8s maxBaseLen: "Leave space for hyphen and 5 random characters"
_OWNER_KINDS = ("Pod", "PodGroup")


def generate_name(pod_name: str, entry: str) -> str:
    """k8s: controller.go handleClaim. `<pod>-<entry>-`; when that is longer than 57 (room for the
    API server's 5 random characters and a hyphen in 63), both parts are cut in proportion to the
    whole prefix's length and joined by one hyphen, with no hyphen at the end (as Go writes it)."""
    prefix = f"{pod_name}-{entry}-"
    if len(prefix) > _MAX_BASE_LEN:
        whole = len(prefix)
        prefix = f"{pod_name[: len(pod_name) * _MAX_BASE_LEN // whole]}-{entry[: len(entry) * _MAX_BASE_LEN // whole]}"
    return prefix


_DONE_PHASES = ("Succeeded", "Failed")


def is_pod_done(pod: dict) -> bool:
    """Terminal, or being deleted (k8s: podutil IsPodTerminal / deletion)."""
    return (pod.get("status") or {}).get("phase") in _DONE_PHASES or bool(
        pod["metadata"].get("deletionTimestamp"))


class ResourceClaimController:
    name = "resourceclaim-controller"

    def __init__(self, store: MemoryStore, metrics: Metrics | None = None, create=None) -> None:
        self.store = store
        # Creates go through the API server (quota admission): see ControlPlane.client_create.
        self._create = create or (lambda obj: store.create(obj, copy=False))
        self._blocked: dict[str, set[tuple[str, str]]] = {}   # namespace -> pods whose claim create was refused
        # (namespace, template) -> pods that named it before it existed. kube-controller-manager
        # retries such a pod with backoff (its syncPod returns the error); drasim retries when the
        # template appears, the one change that can make the retry succeed.
        self._awaiting_template: dict[tuple[str, str], set[str]] = {}
        self.metrics = metrics
        self._pods: deque[tuple[str, str]] = deque()
        self._claims: deque[tuple[str, str]] = deque()
        self._groups: deque[tuple[str, str]] = deque()
        # What each queue holds, by kind: one (namespace, name) tuple serves both.
        self._queued: dict[str, set[tuple[str, str]]] = {"Pod": set(), "ResourceClaim": set(), "PodGroup": set()}
        # Indexes (informer indexers), drasim/smallsets.py maps: pod uid -> claims it owns / claims
        # reserved for it; claim -> names of pods on a node using it.
        self._owned: dict[str, object] = {}
        self._bound_users: dict[tuple[str, str], object] = {}
        self._reserved: dict[str, object] = {}
        self.workload_claims = False   # DRAWorkloadResourceClaims (beta, off): claims of PodGroups
        store.subscribe(self._on_event, kinds=("Pod", "ResourceClaim", "ResourceQuota", "ResourceClaimTemplate",
                                               "PodGroup"))

    def _enqueue(self, kind: str, ns: str, name: str) -> None:
        self._enqueue_key(kind, (ns, name))

    def _enqueue_key(self, kind: str, key: tuple[str, str]) -> None:
        queued = self._queued[kind]
        if key in queued:
            return
        queued.add(key)
        (self._pods if kind == "Pod" else self._groups if kind == "PodGroup" else self._claims).append(key)

    def _on_event(self, ev: WatchEvent) -> None:
        md = ev.obj["metadata"]
        if ev.kind == "Pod":
            # A pod without claim entries (most of them) is in no claim index and needs no work.
            entries = None if ev.type == DELETED else (ev.obj.get("spec") or {}).get("resourceClaims")
            statuses = claim_statuses(ev.obj) if entries else None
            self._index_bound_user(ev, entries, statuses)
            if entries and self._pod_needs_work(ev.obj, statuses):
                self._enqueue("Pod", md.get("namespace"), md["name"])
            if ev.type == DELETED or is_pod_done(ev.obj):
                self._enqueue_claims_of(ev.obj)
        elif ev.kind == "ResourceClaim":
            key = (md.get("namespace"), md["name"])
            if ev.type == DELETED:
                self._unblock(md.get("namespace"))
                self._enqueue_owner_pod(ev.obj)
            if ev.type == DELETED or ev.old is None or not self._same_index_keys(ev.old, ev.obj):
                if ev.old is not None:
                    self._unindex(ev.old, key)
                if ev.type != DELETED:
                    self._index(ev.obj, key)
            if ev.type != DELETED:
                self._enqueue_key("ResourceClaim", key)
                users = smallsets.values(self._bound_users, key)
                if users and (ev.obj.get("status") or {}).get("allocation"):
                    for pod_name in sorted(users):
                        self._enqueue("Pod", key[0], pod_name)
        elif ev.kind == "PodGroup":
            if not self.workload_claims:
                return
            ns = md.get("namespace")
            if ev.type == DELETED:
                self._enqueue_claims_of(ev.obj)
                return
            self._enqueue("PodGroup", ns, md["name"])
            if ev.old is None or (ev.old.get("status") or {}).get("resourceClaimStatuses") != \
                    (ev.obj.get("status") or {}).get("resourceClaimStatuses"):
                for pod in self.store.list("Pod", ns):   # members waiting for the group's claim names
                    if pod_group_name(pod) == md["name"]:
                        self._enqueue("Pod", ns, pod["metadata"]["name"])
        elif ev.kind == "ResourceQuota":
            self._unblock(md.get("namespace"))
        elif ev.kind == "ResourceClaimTemplate":
            if ev.type != DELETED:
                ns = md.get("namespace")
                for kind_name in sorted(self._awaiting_template.pop((ns, md["name"]), ())):
                    kind, _, name = kind_name.rpartition("\x00") if "\x00" in kind_name else ("Pod", "", kind_name)
                    self._enqueue(kind, ns, name)

    def _pod_needs_work(self, pod: dict, statuses: dict[str, str | None]) -> bool:
        """k8s: controller.go podNeedsWork — a claim to create from a template, or (the pod has a
        node) an allocated claim to reserve for it; the first entry that settles it decides.
        `statuses`: the pod's claim_statuses."""
        if self.workload_claims and pod_group_name(pod):
            return True   # PodGroup claims (beta, off by default): always looked at by _sync_pod
        if pod["metadata"].get("deletionTimestamp"):
            return False                      # "pod is deleted"
        ns = pod["metadata"].get("namespace")
        bound = bool(pod["spec"].get("nodeName"))
        for entry in pod["spec"].get("resourceClaims") or ():
            name, check_owner, error = entry_claim_name(pod, entry, statuses)
            if error is not None:
                return True                   # e.g. "ResourceClaim not created yet"
            if name is None:
                return False                  # "claim is not needed"
            claim = self.store.get("ResourceClaim", ns, name)
            if claim is None:
                return bool(entry.get("resourceClaimTemplateName"))   # else the user must create it
            if check_owner and not is_owned_by(claim, pod):
                return False                  # "conflicting claim needs to be removed by user"
            if not bound:
                continue
            status = claim.get("status") or {}
            if status.get("allocation") and not is_reserved_for(claim, pod) \
                    and len(status.get("reservedFor") or ()) < RESERVED_FOR_MAX_SIZE:
                return True                   # "need to reserve claim for pod"
        return False

    def _index_bound_user(self, ev: WatchEvent, entries: list | None, statuses: dict | None) -> None:
        """claim -> pods on a node that name it (k8s: the podResourceClaimIndex), so an allocation
        showing up later reaches the pods that still need it reserved. `entries` and `statuses`:
        the new pod's claim entries and claim_statuses (None when deleted or without entries)."""
        old = ev.old
        if old is not None and (old.get("spec") or {}).get("nodeName"):
            ns, name = old["metadata"].get("namespace"), old["metadata"]["name"]
            for _entry, claim_name, _ in pod_claims(old):
                if claim_name is not None:
                    smallsets.discard(self._bound_users, (ns, claim_name), name)
        if entries and ev.obj["spec"].get("nodeName"):
            ns, name = ev.obj["metadata"].get("namespace"), ev.obj["metadata"]["name"]
            for entry in entries:
                claim_name = entry_claim_name(ev.obj, entry, statuses)[0]
                if claim_name is not None:
                    smallsets.add(self._bound_users, (ns, claim_name), name)

    def _unblock(self, namespace: str | None) -> None:
        """Room may have been made in the namespace's quota: try refused creates again (k8s retries)."""
        for ns, name in sorted(self._blocked.pop(namespace or "", ())):
            self._enqueue("Pod", ns, name)

    @staticmethod
    def _same_index_keys(old: dict, new: dict) -> bool:
        """Owners and reservedFor unchanged (most claim updates): the indexes stay as they are."""
        refs, old_refs = new["metadata"].get("ownerReferences"), old["metadata"].get("ownerReferences")
        reserved = (new.get("status") or {}).get("reservedFor")
        old_reserved = (old.get("status") or {}).get("reservedFor")
        return (refs is old_refs or refs == old_refs) and (reserved is old_reserved or reserved == old_reserved)

    def _index(self, claim: dict, key: tuple[str, str], change=smallsets.add) -> None:
        """Index the claim under its controlling Pod/PodGroup owners and its consumers' uids."""
        for r in claim["metadata"].get("ownerReferences") or ():
            if r.get("controller") and r.get("kind") in _OWNER_KINDS:
                change(self._owned, r.get("uid"), key)
        for r in (claim.get("status") or {}).get("reservedFor") or ():
            change(self._reserved, r.get("uid"), key)

    def _unindex(self, claim: dict, key: tuple[str, str]) -> None:
        self._index(claim, key, smallsets.discard)

    def _enqueue_owner_pod(self, claim: dict) -> None:
        """A deleted claim's controlling pod (or PodGroup), if it still needs work: the claim was made from its
        template and is re-created (k8s: onResourceClaimDelete enqueues the pods of the
        podResourceClaimIndex; only a template's claim is re-created, and its pod owns it)."""
        ns = claim["metadata"].get("namespace")
        for ref in claim["metadata"].get("ownerReferences") or ():
            if ref.get("kind") == "PodGroup" and ref.get("controller") and self.workload_claims:
                self._enqueue("PodGroup", ns, ref.get("name"))   # _sync_pod_group makes a lost claim again
            if ref.get("kind") == "Pod" and ref.get("controller"):
                pod = self.store.get("Pod", ns, ref.get("name"))
                if pod is not None and pod["metadata"].get("uid") == ref.get("uid") and not is_pod_done(pod) \
                        and self._pod_needs_work(pod, claim_statuses(pod)):
                    self._enqueue("Pod", ns, pod["metadata"]["name"])

    def _enqueue_claims_of(self, owner: dict) -> None:
        """The claims a pod (or PodGroup) owns or is reserved for."""
        uid = owner["metadata"].get("uid")
        for key in sorted({*smallsets.values(self._owned, uid), *smallsets.values(self._reserved, uid)}):
            self._enqueue("ResourceClaim", *key)

    def has_work(self) -> bool:
        return bool(self._pods or self._claims or self._groups)

    def run_once(self) -> None:
        run_batch(self, self._run_one)   # a settle after a snapshot load checks every claim, writing nothing

    def _run_one(self) -> None:
        if self._groups:
            ns, name = key = self._groups.popleft()
            self._queued["PodGroup"].discard(key)
            self._sync_pod_group(ns, name)
        elif self._pods:
            ns, name = key = self._pods.popleft()
            self._queued["Pod"].discard(key)
            self._sync_pod(ns, name)
        elif self._claims:
            ns, name = key = self._claims.popleft()
            self._queued["ResourceClaim"].discard(key)
            self._sync_claim(ns, name)

    # -- pods ---------------------------------------------------------------------
    def _sync_pod(self, ns: str, name: str) -> None:
        pod = self.store.get("Pod", ns, name)
        if pod is None or is_pod_done(pod):
            return
        statuses = list((pod.get("status") or {}).get("resourceClaimStatuses") or [])
        known = {s.get("name"): i for i, s in enumerate(statuses)}
        added = False
        group = self._group_of(pod)
        for entry in pod["spec"].get("resourceClaims") or ():
            template_name = entry.get("resourceClaimTemplateName")
            if not template_name:
                continue
            at = known.get(entry.get("name"))
            if at is not None and (bound_to_group(pod, group, entry) or not self._recorded_claim_lost(pod, statuses[at])):
                continue
            if bound_to_group(pod, group, entry):   # the group's claim: its name comes from the group's status
                generated = {g.get("name"): g.get("resourceClaimName")
                             for g in (group.get("status") or {}).get("resourceClaimStatuses") or ()}
                if entry["name"] not in generated:
                    continue   # not created yet: the pod waits (PreEnqueue), the group's update brings it back
                statuses.append({"name": entry["name"], "resourceClaimName": generated[entry["name"]]})
                added = True
                continue
            claim = self._existing_claim(pod, entry["name"]) or self._create_claim(pod, entry, template_name)
            if claim is None:
                # k8s: syncPod stops at the first entry that fails (Event, error returned) and
                # writes no resourceClaimStatuses; claims made so far are found again next time.
                return
            recorded = {"name": entry["name"], "resourceClaimName": claim["metadata"]["name"]}
            if at is None:
                statuses.append(recorded)
            else:   # the status apply is keyed by entry name: the lost claim's name is replaced
                statuses[at] = recorded
            added = True
        if added:
            pod = self.store.get("Pod", ns, name)
            status = clone(pod.get("status") or {})
            status["resourceClaimStatuses"] = statuses
            pod = self.store.update_status(dict(pod, status=status), copy=False)
        if pod["spec"].get("nodeName"):
            self._reserve_for_bound_pod(pod)

    def _recorded_claim_lost(self, pod: dict, recorded: dict) -> bool:
        """k8s handleClaim: a claim recorded in pod.status.resourceClaimStatuses "should exist ...
        but perhaps it was deleted accidentally. In that case we re-create it"; one no longer owned
        by the pod is replaced by a new one too. A recorded name of null means no claim is needed."""
        name = recorded.get("resourceClaimName")
        if name is None:
            return False
        claim = self.store.get("ResourceClaim", pod["metadata"].get("namespace"), name)
        return claim is None or not is_owned_by(claim, pod)

    def _reserve_for_bound_pod(self, pod: dict) -> None:
        """A pod that has a node without the scheduler (spec.nodeName set by its author) gets
        its allocated claims reserved here; the controller never allocates.
        k8s: syncPod (pod.Spec.NodeName != "" → reserveForPod), podNeedsWork, CanBeReserved."""
        ns = pod["metadata"].get("namespace")
        group = self._group_of(pod)
        for pod_entry, claim_name, check_owner in pod_claims(pod):
            if claim_name is None:
                continue
            claim = self.store.get("ResourceClaim", ns, claim_name)
            grouped = bound_to_group(pod, group, pod_entry)
            if claim is None or (check_owner and not (is_owned_by(claim, pod) or (grouped and is_owned_by_group(claim, pod)))):
                continue
            status = claim.get("status") or {}
            reserved = status.get("reservedFor") or []
            done = is_reserved_for_group(claim, pod) if grouped else is_reserved_for(claim, pod)
            if status.get("allocation") and not done and len(reserved) < RESERVED_FOR_MAX_SIZE:
                entry = group_consumer(group) if grouped else {
                    "resource": "pods", "name": pod["metadata"]["name"], "uid": pod["metadata"]["uid"]}
                self.store.update_status(dict(claim, status=dict(status, reservedFor=[*reserved, entry])),
                                         copy=False)

    def _existing_claim(self, pod: dict, entry: str) -> dict | None:
        """A claim created earlier for this pod entry (k8s: findPodResourceClaim)."""
        for ns, name in sorted(smallsets.values(self._owned, pod["metadata"]["uid"])):
            claim = self.store.get("ResourceClaim", ns, name)
            if claim is not None and (claim["metadata"].get("annotations") or {}).get(
                    POD_CLAIM_NAME_ANNOTATION) == entry:
                return claim
        return None

    def _create_claim(self, owner: dict, entry: dict, template_name: str) -> dict | None:
        """A claim from the template for a pod's (or, DRAWorkloadResourceClaims, a PodGroup's) entry:
        generateName `<owner>-<entry>-`, the owner as controller, the entry in an annotation."""
        ns = owner["metadata"].get("namespace")
        is_group = owner.get("kind") == "PodGroup"
        what = "PodGroupResourceClaim" if is_group else "PodResourceClaim"
        template = self.store.get("ResourceClaimTemplate", ns, template_name)
        if template is None:
            waiter = f"PodGroup\x00{owner['metadata']['name']}" if is_group else owner["metadata"]["name"]
            self._awaiting_template.setdefault((ns, template_name), set()).add(waiter)
            record_event(self.store, owner, WARNING, "FailedResourceClaimCreation",
                         f'{what} {entry["name"]}: resource claim template "{template_name}": '
                         f'resourceclaimtemplate.resource.k8s.io "{template_name}" not found', COMPONENT)
            return None
        t_md = (template.get("spec") or {}).get("metadata") or {}
        annotations = dict(t_md.get("annotations") or {})
        annotations[PODGROUP_CLAIM_NAME_ANNOTATION if is_group else POD_CLAIM_NAME_ANNOTATION] = entry["name"]
        claim = {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaim",
            "metadata": {
                "generateName": generate_name(owner["metadata"]["name"], entry["name"]),
                "namespace": ns,
                "annotations": annotations,
                "ownerReferences": [{"apiVersion": owner.get("apiVersion", "v1"), "kind": owner.get("kind", "Pod"),
                                     "name": owner["metadata"]["name"], "uid": owner["metadata"]["uid"],
                                     "controller": True, "blockOwnerDeletion": True}],
            },
            # Shared, not copied: stored objects are never changed in place, only replaced.
            "spec": (template.get("spec") or {}).get("spec") or {},
        }
        if t_md.get("labels"):
            claim["metadata"]["labels"] = dict(t_md["labels"])
        try:
            created = self._create(claim)
        except InputError as e:
            if not is_group:
                self._blocked.setdefault(ns, set()).add((ns, owner["metadata"]["name"]))
            if self.metrics:
                self.metrics.claim_create("failure", "false")
            record_event(self.store, owner, WARNING, "FailedResourceClaimCreation",
                         f"{what} {entry['name']}: create ResourceClaim: {e}", COMPONENT)
            return None
        if self.metrics:
            admin = any((r.get("exactly") or {}).get("adminAccess")
                        for r in (claim["spec"].get("devices") or {}).get("requests") or ())
            self.metrics.claim_create("success", str(admin).lower())
        return created

    # -- pod groups (DRAWorkloadResourceClaims) ------------------------------------------
    def _sync_pod_group(self, ns: str, name: str) -> None:
        """One claim per template entry of the group, recorded in status.resourceClaimStatuses; none
        while the group is being deleted. k8s: the controller's PodGroup sync (KEP-5729)."""
        group = self.store.get("PodGroup", ns, name)
        if group is None or group["metadata"].get("deletionTimestamp"):
            return
        statuses = [dict(x) for x in (group.get("status") or {}).get("resourceClaimStatuses") or ()]
        recorded = {x.get("name"): x for x in statuses}
        changed = False
        for entry in (group.get("spec") or {}).get("resourceClaims") or ():
            template_name = entry.get("resourceClaimTemplateName")
            if not template_name:
                continue
            have = recorded.get(entry["name"])
            if have is not None and have.get("resourceClaimName") and \
                    self.store.get("ResourceClaim", ns, have["resourceClaimName"]) is not None:
                continue
            claim = self._existing_group_claim(group, entry["name"]) or self._create_claim(group, entry, template_name)
            if claim is None:
                break
            if have is None:
                have = {"name": entry["name"]}
                statuses.append(have)
            have["resourceClaimName"] = claim["metadata"]["name"]
            changed = True
        if changed:
            group = self.store.get("PodGroup", ns, name)
            self.store.update_status(dict(group, status=dict(group.get("status") or {}, resourceClaimStatuses=statuses)))

    def _existing_group_claim(self, group: dict, entry: str) -> dict | None:
        for ns, name in sorted(smallsets.values(self._owned, group["metadata"]["uid"])):
            claim = self.store.get("ResourceClaim", ns, name)
            if claim is not None and (claim["metadata"].get("annotations") or {}).get(
                    PODGROUP_CLAIM_NAME_ANNOTATION) == entry:
                return claim
        return None

    # -- claims ---------------------------------------------------------------------
    def _sync_claim(self, ns: str, name: str) -> None:
        claim = self.store.get("ResourceClaim", ns, name)
        if claim is None:
            return
        reserved = (claim.get("status") or {}).get("reservedFor") or []
        if reserved and self._consumers_all_there(ns, reserved):
            return   # in use and every consumer still there: nothing below applies (the usual claim)
        status = dict(claim.get("status") or {})   # shallow: only top-level keys are replaced
        keep = [r for r in reserved if not self._consumer_gone(ns, r)]
        changed = len(keep) != len(reserved)
        if changed:
            if keep:
                status["reservedFor"] = keep
            else:
                status.pop("reservedFor", None)
        if not keep and status.get("allocation") and (changed or claim["metadata"].get("deletionTimestamp")
                                                      or self._owner_gone(claim)):
            status.pop("allocation", None)
            status.pop("devices", None)   # k8s: stale device status dropped with the allocation
            changed = True
        if changed:
            claim = self.store.update_status(dict(claim, status=status), copy=False)
        if not status.get("allocation") and not keep:
            if DELETE_PROTECTION_FINALIZER in (claim["metadata"].get("finalizers") or ()):
                updated = clone(claim)
                updated["metadata"]["finalizers"] = [f for f in updated["metadata"]["finalizers"]
                                                     if f != DELETE_PROTECTION_FINALIZER]
                if not updated["metadata"]["finalizers"]:
                    del updated["metadata"]["finalizers"]
                updated["metadata"].pop("resourceVersion", None)
                self.store.update(updated)
                claim = self.store.get("ResourceClaim", ns, name)
                if claim is None:
                    return
            if self._owner_gone(claim) and not claim["metadata"].get("deletionTimestamp"):
                self.store.delete("ResourceClaim", ns, name)

    def _group_of(self, pod: dict) -> dict | None:
        name = pod_group_name(pod) if self.workload_claims else None
        return self.store.get("PodGroup", pod["metadata"].get("namespace"), name) if name else None

    def _consumers_all_there(self, ns: str, reserved: list[dict]) -> bool:
        for ref in reserved:
            if self._consumer_gone(ns, ref):
                return False
        return True

    def _consumer_gone(self, ns: str, ref: dict) -> bool:
        if ref.get("apiGroup"):
            if is_group_consumer(ref):   # k8s: a reservation for a PodGroup that is gone (only with the gate on)
                if not self.workload_claims:
                    return False
                group = self.store.get("PodGroup", ns, ref.get("name"))
                return group is None or group["metadata"].get("uid") != ref.get("uid")
            return False
        if ref.get("resource") != "pods":
            return False
        pod = self.store.get("Pod", ns, ref.get("name"))
        if pod is None:
            return True
        md = pod["metadata"]
        # is_pod_done, inlined: called for every consumer of every claim in a startup sync
        return md["uid"] != ref.get("uid") or bool(md.get("deletionTimestamp")) or \
            (pod.get("status") or {}).get("phase") in _DONE_PHASES

    def _owner_gone(self, claim: dict) -> bool:
        """Owned (as controller) by a pod that no longer exists or is done."""
        ns = claim["metadata"].get("namespace")
        for ref in claim["metadata"].get("ownerReferences") or ():
            if ref.get("kind") == "PodGroup" and ref.get("controller") and self.workload_claims:
                group = self.store.get("PodGroup", ns, ref.get("name"))
                return group is None or group["metadata"].get("uid") != ref.get("uid")
            if ref.get("kind") == "Pod" and ref.get("controller"):
                pod = self.store.get("Pod", ns, ref.get("name"))
                return pod is None or pod["metadata"]["uid"] != ref.get("uid") or is_pod_done(pod)
        return False
