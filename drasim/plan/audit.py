"""`drasim audit`: is this cluster ready to move from device plugins to DRA?

The snapshot is admitted object by object (an object the API server would refuse is a
finding, not the end of the audit), the rest is applied as one phase, findings that depend
on the state as written are taken, then the cluster settles and the findings that depend on
what the scheduler and controllers do are added. Each finding names the objects involved, its
severity and the fix; the rules are those v1.37 documents for KEP-5004 extended resources
(spec extended-resources.md) and device taints (spec device-taints.md).

Severities: `error` — something fails today or will fail after the move (the audit exits 1);
`warning` — works, but not as the manifest suggests or not after the move; `info` — worth
knowing.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from drasim import admission
from drasim.api.devicetaints import NO_EXECUTE, rule_matches_device, tolerated
from drasim.api.extendedresource import implicit_name, is_extended_resource_name, is_qualified_name
from drasim.api.loader import Document
from drasim.api.quantity import parse_quantity
from drasim.controllers import quota
from drasim.controlplane import ControlPlane, Options
from drasim.errors import InputError, InvalidObject
from drasim.plan.inventory import DEVICE_PLUGIN, NameInventory, inventory, requested_names

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITY_ORDER = {ERROR: 0, WARNING: 1, INFO: 2}
SPECIAL_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"


@dataclass(frozen=True)
class Finding:
    code: str                  # stable identifier, for scripts: "class-name-conflict", …
    severity: str
    message: str
    objects: tuple[str, ...]   # "DeviceClass/gpu-a", "Pod default/demo", "Deployment default/demo"
    fix: str
    rule: str                  # the spec rule or Kubernetes source it follows


@dataclass
class Report:
    findings: list[Finding] = field(default_factory=list)
    inventory: list[NameInventory] = field(default_factory=list)

    @property
    def has_errors(self) -> bool:
        return any(f.severity == ERROR for f in self.findings)

    def as_json(self) -> dict:
        return {"findings": [asdict(f) for f in self.sorted_findings()],
                "inventory": [asdict(i) for i in self.inventory]}

    def sorted_findings(self) -> list[Finding]:
        return sorted(self.findings, key=lambda f: (SEVERITY_ORDER[f.severity], f.code, f.objects))


def _ref(obj: dict) -> str:
    md = obj.get("metadata") or {}
    ns = md.get("namespace")
    return f"{obj.get('kind')} {ns}/{md.get('name')}" if ns else f"{obj.get('kind')}/{md.get('name')}"


# -- admission, object by object --------------------------------------------------------------------

_REQUEST_LIMIT_TEXTS = ("must be equal to", "Limit must be set for non overcommitable resources")


def _request_limit_findings(doc: Document) -> list[Finding]:
    """Explicit extended names are not overcommittable: limit required, request == limit
    (extended-resources.md §4.2)."""
    if doc.kind.kind != "Pod" or not isinstance(doc.obj.get("spec"), dict):
        return []
    out = []
    spec = doc.obj["spec"]
    for key in ("initContainers", "containers"):
        for i, c in enumerate(spec.get(key) or ()):
            res = c.get("resources") if isinstance(c, dict) else None
            if not isinstance(res, dict):
                continue
            requests, limits = res.get("requests") or {}, res.get("limits") or {}
            if not isinstance(requests, dict) or not isinstance(limits, dict):
                continue
            for name, value in requests.items():
                if not is_extended_resource_name(name) or str(limits.get(name)) == str(value):
                    continue
                limit = limits.get(name)
                what = "has no limit" if limit is None else f"asks for {value} but its limit is {limit}"
                out.append(Finding(
                    "extended-request-not-limit", ERROR,
                    f"{doc.source}: spec.{key}[{i}] {what} for {name}: the API server refuses the pod "
                    f"(requests of an extended resource must equal its limit)",
                    (_ref(doc.obj),), f"set resources.limits[{name}] = resources.requests[{name}], "
                    f"or give only the limit (requests are defaulted from it)", "extended-resources.md §4.2"))
    return out


def admit_each(cp: ControlPlane, documents: list[Document]) -> tuple[list[Document], list[Finding]]:
    """The documents the API server accepts, and a finding for each it refuses.

    They are tried on a plane of their own, as fresh as `cp`: admission names objects and draws
    uids from the store's seeded generator, and `cp` must draw what `drasim simulate` and
    `drasim explain` of the same input draw, so that the pods the findings name are theirs."""
    trial = ControlPlane(cp.options)
    pending = [d.obj for d in documents]
    valid, findings = [], []
    for doc in documents:
        specific = _request_limit_findings(doc)
        try:
            admission.prepare(trial.store, doc.kind, doc.obj, None, doc.source, pending, cp.options.gates)
        except InvalidObject as e:
            findings.extend(specific)
            rest = [err for err in e.errors if not any(t in str(err) for t in _REQUEST_LIMIT_TEXTS)]
            if rest or not specific:
                findings.append(Finding("invalid-object", ERROR, str(e), (_ref(doc.obj),),
                                        "correct the fields the API server names", "the resource's validation"))
            continue
        except InputError as e:
            findings.append(Finding("invalid-object", ERROR, str(e), (_ref(doc.obj),),
                                    "correct the manifest", "the API server's decoding"))
            continue
        valid.append(doc)
    return valid, findings


# -- findings on the cluster as written ---------------------------------------------------------------

def class_findings(cp: ControlPlane) -> list[Finding]:
    classes = cp.store.list("DeviceClass")
    out = []
    by_name: dict[str, list[dict]] = {}
    for dc in classes:
        name = (dc.get("spec") or {}).get("extendedResourceName")
        if name:
            by_name.setdefault(name, []).append(dc)
    for name, owners in sorted(by_name.items()):
        if len(owners) < 2:
            continue
        winner = cp.er_cache.class_for(name)
        losers = sorted(dc["metadata"]["name"] for dc in owners if dc["metadata"]["name"] != winner)
        out.append(Finding(
            "class-name-conflict", WARNING,
            f"{len(owners)} DeviceClasses set extendedResourceName {name}: {winner or '(none)'} serves it "
            f"(the newest class wins; on equal creationTimestamp the smallest name), "
            f"{', '.join(losers)} {'is' if len(losers) == 1 else 'are'} silently ignored for it",
            tuple(f"DeviceClass/{dc['metadata']['name']}" for dc in owners),
            f"give each class its own extendedResourceName, or remove it from {', '.join(losers)}",
            "extended-resources.md §2.7-2.9"))
    for dc in classes:
        cls = dc["metadata"]["name"]
        if not is_qualified_name(implicit_name(cls)):
            out.append(Finding(
                "implicit-name-too-long", WARNING,
                f"DeviceClass {cls}: its implicit name {implicit_name(cls)} is not a valid resource name "
                f"(the class name is {len(cls)} characters, at most 63 fit): pods cannot request it",
                (f"DeviceClass/{cls}",), "set spec.extendedResourceName on the class, or use a shorter name",
                "extended-resources.md §2.6"))
    return out


def _devices(cp: ControlPlane):
    for sl in cp.store.list("ResourceSlice"):
        spec = sl.get("spec") or {}
        pool = (spec.get("pool") or {}).get("name", "")
        for device in spec.get("devices") or ():
            yield spec.get("driver", ""), pool, device


def taint_rule_findings(cp: ControlPlane) -> list[Finding]:
    devices = [(d, p, dev.get("name", "")) for d, p, dev in _devices(cp)]
    out = []
    for rule in sorted(cp.store.list("DeviceTaintRule"), key=lambda r: r["metadata"]["name"]):
        name = rule["metadata"]["name"]
        hits = sum(1 for d, p, n in devices if rule_matches_device(rule, d, p, n))
        if hits == 0:
            out.append(Finding("taint-rule-matches-nothing", WARNING,
                               f"DeviceTaintRule {name} selects no device of the snapshot's ResourceSlices",
                               (f"DeviceTaintRule/{name}",),
                               "check spec.deviceSelector's driver, pool and device names against the slices",
                               "device-taints.md §4.3"))
        elif hits == len(devices) and len(devices) > 1:
            out.append(Finding("taint-rule-matches-everything", WARNING,
                               f"DeviceTaintRule {name} selects all {hits} devices of the cluster",
                               (f"DeviceTaintRule/{name}",),
                               "narrow spec.deviceSelector (driver, pool, device) to the devices meant",
                               "device-taints.md §4.3"))
    return out


def _device_taints(cp: ControlPlane) -> dict[tuple[str, str, str], list[dict]]:
    rules = cp.store.list("DeviceTaintRule")
    out = {}
    for driver, pool, device in _devices(cp):
        name = device.get("name", "")
        taints = list(device.get("taints") or ())
        taints += [r["spec"]["taint"] for r in rules if rule_matches_device(r, driver, pool, name)]
        out[(driver, pool, name)] = taints
    return out


def allocated_claim_findings(cp: ControlPlane) -> list[Finding]:
    """Claims already allocated: on devices with an untolerated NoExecute taint (their pods will
    be evicted), or pinned to a node that is gone or cordoned."""
    taints = _device_taints(cp)
    nodes = {n["metadata"]["name"]: n for n in cp.store.list("Node")}
    out = []
    for claim in cp.store.list("ResourceClaim"):
        allocation = (claim.get("status") or {}).get("allocation")
        if not allocation:
            continue
        ref = _ref(claim)
        pods = tuple(f"Pod {claim['metadata'].get('namespace')}/{r.get('name')}"
                     for r in (claim.get("status") or {}).get("reservedFor") or ())
        for result in (allocation.get("devices") or {}).get("results") or ():
            key = (result.get("driver", ""), result.get("pool", ""), result.get("device", ""))
            for taint in taints.get(key, ()):
                if taint.get("effect") == NO_EXECUTE and not tolerated(result.get("tolerations"), taint):
                    out.append(Finding(
                        "noexecute-untolerated", ERROR,
                        f"{ref}: device {'/'.join(key)} has the NoExecute taint {taint.get('key')}"
                        f"{'=' + taint['value'] if taint.get('value') else ''} that the claim does not tolerate: "
                        f"the device taint eviction controller deletes {', '.join(pods) or 'its pods'}",
                        (ref, *pods), "add a toleration to the claim's request, or remove the taint",
                        "device-taints.md §7"))
        pinned = _pinned_node(allocation)
        if pinned and (pinned not in nodes or (nodes[pinned].get("spec") or {}).get("unschedulable")):
            state = "does not exist" if pinned not in nodes else "is cordoned"
            out.append(Finding(
                "claim-pinned-to-node", WARNING,
                f"{ref} is allocated on node {pinned}, which {state}: its devices stay there until the "
                f"claim is deallocated, and pods using it can only run on that node",
                (ref, f"Node/{pinned}", *pods), "delete or deallocate the claim before the node goes away",
                "allocator.md (allocation nodeSelector)"))
    return out


def _pinned_node(allocation: dict) -> str | None:
    """The node an allocation's nodeSelector names with metadata.name (as allocations of
    node-local devices are written), else None."""
    for term in (allocation.get("nodeSelector") or {}).get("nodeSelectorTerms") or ():
        for req in term.get("matchFields") or ():
            if req.get("key") == "metadata.name" and req.get("operator") == "In" and len(req.get("values") or ()) == 1:
                return req["values"][0]
    return None


def ephemeral_findings(cp: ControlPlane) -> list[Finding]:
    out = []
    for pod in cp.store.list("Pod"):
        spec = pod.get("spec") or {}
        if spec.get("ephemeralContainers") and requested_names(pod):
            names = ", ".join(sorted(requested_names(pod)))
            out.append(Finding(
                "ephemeral-container-no-device", WARNING,
                f"{_ref(pod)} has ephemeral containers and asks for {names}: an extended resource served "
                f"by DRA goes to the init and regular containers only, never to ephemeral ones",
                (_ref(pod),), "give the debug container the device through the pod spec, not as an "
                "ephemeral container", "extended-resources.md §4.4"))
    return out


# -- findings after the cluster settled -------------------------------------------------------------

def inventory_findings(cp: ControlPlane, names: list[NameInventory]) -> list[Finding]:
    out = []
    for inv in names:
        owners = tuple(sorted({f"{u.owner.split('/')[0]} {u.namespace}/{u.owner.split('/', 1)[1]}"
                               for u in inv.uses}))
        backends = {b.backend for b in inv.nodes}
        if inv.device_class is None and DEVICE_PLUGIN not in backends:
            out.append(Finding(
                "no-backend", ERROR,
                f"{inv.name}: {inv.pods} pod(s) ask for it, but no node advertises it and no DeviceClass maps "
                f"it: the pods stay Pending (Insufficient {inv.name})",
                owners, f"create a DeviceClass with extendedResourceName: {inv.name}, or install the device "
                "plugin that advertises it", "extended-resources.md §3.1"))
        elif inv.device_class is None:
            out.append(Finding(
                "no-dra-class", WARNING,
                f"{inv.name}: only device plugins serve it; no DeviceClass maps it, so once the plugins are "
                f"removed its {inv.pods} pod(s) stay Pending",
                owners, f"create a DeviceClass with extendedResourceName: {inv.name} selecting the DRA "
                "driver's devices before the move", "extended-resources.md §2.2, §3.1"))
        for b in inv.nodes:
            if b.backend == DEVICE_PLUGIN and b.dra_devices:
                out.append(Finding(
                    "device-plugin-and-dra", WARNING,
                    f"node {b.node} advertises {inv.name} through a device plugin ({b.capacity}) while a DRA "
                    f"driver publishes {b.dra_devices} device(s) that {inv.device_class} selects: the "
                    f"scheduler uses the device plugin for {inv.name} there and never those devices",
                    (f"Node/{b.node}", f"DeviceClass/{inv.device_class}"),
                    f"remove the device plugin from {b.node} (its allocatable for {inv.name} drops to 0), "
                    "or stop the DRA driver there", "extended-resources.md §3.2"))
    return out


def quota_findings(cp: ControlPlane, names: list[NameInventory]) -> list[Finding]:
    """Quotas whose implicit-name or devices limit would deny once every pod asking for an
    explicit name is served by DRA (each device then counts under all three keys, §11.3)."""
    out = []
    explicit = {inv.name: inv.device_class for inv in names if inv.device_class and not inv.implicit}
    for q in sorted(cp.store.list("ResourceQuota"), key=lambda o: (o["metadata"].get("namespace"),
                                                                    o["metadata"]["name"])):
        ns = q["metadata"].get("namespace") or ""
        hard = (q.get("spec") or {}).get("hard") or {}
        pods, claims = cp.store.list("Pod", ns), cp.store.list("ResourceClaim", ns)
        for name, cls in sorted(explicit.items()):
            keys = ("requests." + implicit_name(cls), quota.devices_key(cls))
            limited = [k for k in keys if k in hard]
            if not limited:
                continue
            probe = {"metadata": {"name": "probe", "namespace": ns}, "spec": {"hard": {k: "0" for k in keys}}}
            used = quota.quota_used(probe, pods, claims, cp.er_cache, now=cp.clock.now)
            extra = _not_yet_on_dra(pods, claims, name, cp.clock.now)
            for key in limited:
                now_used = parse_quantity(used.get(key, "0")).int_value()
                after = now_used + extra
                limit = parse_quantity(hard[key]).int_value()
                if extra and after > limit:
                    out.append(Finding(
                        "quota-denies-after-move", ERROR,
                        f"ResourceQuota {ns}/{q['metadata']['name']}: {key} is limited to {limit} and counts "
                        f"{now_used} now; once the {extra} {name} device(s) device plugins serve (or no one "
                        f"serves) today come from DRA, it counts {after}, and claims beyond {limit} are denied",
                        (f"ResourceQuota {ns}/{q['metadata']['name']}",),
                        f"raise {key} to at least {after} before the move (the same devices also count under "
                        f"requests.{name})", "extended-resources.md §11.3, §11.6"))
    return out


def _not_yet_on_dra(pods: list[dict], claims: list[dict], name: str, now: float) -> int:
    """Pod requests for `name` of charged pods without an allocated extended-resource claim."""
    served = {(c["metadata"].get("ownerReferences") or [{}])[0].get("uid") for c in claims
              if (c["metadata"].get("annotations") or {}).get(SPECIAL_CLAIM_ANNOTATION) == "true"
              and (c.get("status") or {}).get("allocation")}
    return sum(requested_names(p).get(name, 0) for p in pods
               if quota.is_pod_charged(p, now) and p["metadata"].get("uid") not in served)


def pending_findings(cp: ControlPlane) -> list[Finding]:
    out = []
    for pod in sorted(cp.store.list("Pod"), key=lambda p: (p["metadata"].get("namespace"), p["metadata"]["name"])):
        if (pod.get("spec") or {}).get("nodeName"):
            continue
        cond = next((c for c in (pod.get("status") or {}).get("conditions") or () if c.get("type") == "PodScheduled"),
                    None)
        why = (cond or {}).get("message") or "not scheduled"
        out.append(Finding("pod-pending", WARNING, f"{_ref(pod)} stays Pending: {why}", (_ref(pod),),
                           f"drasim explain {pod['metadata'].get('namespace')}/{pod['metadata']['name']} "
                           "--cluster … shows why on every node", "kube-scheduler"))
    return out


def audit(documents: list[Document], options: Options = Options()) -> Report:
    cp = ControlPlane(options)
    valid, findings = admit_each(cp, documents)
    try:
        cp.apply(valid)
    except InputError as e:   # e.g. quota admission across objects: nothing of the phase was stored
        findings.append(Finding("phase-rejected", ERROR, str(e), (), "correct the object named", "kubectl apply"))
        return Report(findings)
    findings += class_findings(cp) + taint_rule_findings(cp) + allocated_claim_findings(cp) + ephemeral_findings(cp)
    cp.settle()
    names = inventory(cp)
    findings += inventory_findings(cp, names) + quota_findings(cp, names) + pending_findings(cp)
    return Report(findings, names)


__all__ = ["ERROR", "INFO", "WARNING", "Finding", "Report", "audit"]
