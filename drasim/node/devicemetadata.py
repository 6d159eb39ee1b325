"""Device metadata files in containers (KEP-5304, the device attributes downward API; beta, no gate).

k8s: staging/src/k8s.io/dynamic-resource-allocation/kubeletplugin/metadata.go (metadataWriter:
processPreparedClaim, buildDeviceMetadata, containerFilePath), api/metadata/types.go and helpers.go
(the in-container layout), api/metadata/v1alpha1/types.go (DeviceMetadata).

A driver built on the kubelet plugin helper with EnableDeviceMetadata writes, when it prepares a
claim, one file per (claim, request) that a CDI spec bind-mounts read-only into each container using
the request's devices:

  /var/run/kubernetes.io/dra-device-attributes/resourceclaims/<claim>/<request>/<driver>-metadata.json
  /var/run/kubernetes.io/dra-device-attributes/resourceclaimtemplates/<pod claim name>/<request>/<driver>-metadata.json

(the second for claims made from a template: the claim has the `resource.kubernetes.io/pod-claim-name`
annotation). The file holds a DeviceMetadata object (metadata.resource.k8s.io/v1alpha1): the claim's
name, namespace and uid, generation 1, the pod claim name, and one request (its name as in the
allocation result, `req/sub` for a subrequest; the path uses the base request) listing each device's
driver, pool, name and attributes. drasim's simulated drivers opt in and report each device's
ResourceSlice attributes (a real driver chooses what it reports). Each file is one JSON object here;
Go writes a stream with one object per configured version, and v1alpha1 is the only one.
"""
from __future__ import annotations

from drasim import smallsets
from drasim.store import DELETED, MemoryStore, WatchEvent

ANNOTATION = "dra.drasim.io/device-metadata"
CONTAINER_DIR = "/var/run/kubernetes.io/dra-device-attributes"
POD_CLAIM_NAME = "resource.kubernetes.io/pod-claim-name"
API_VERSION = "metadata.resource.k8s.io/v1alpha1"


def container_path(driver: str, claim: dict, base_request: str) -> str:
    """k8s: metadataWriter.containerFilePath."""
    pod_claim = ((claim["metadata"].get("annotations") or {}).get(POD_CLAIM_NAME) or "")
    if pod_claim:
        return f"{CONTAINER_DIR}/resourceclaimtemplates/{pod_claim}/{base_request}/{driver}-metadata.json"
    return f"{CONTAINER_DIR}/resourceclaims/{claim['metadata']['name']}/{base_request}/{driver}-metadata.json"


def device_metadata(claim: dict, driver: str, request_ref: str, results: list[dict], attributes) -> dict:
    """k8s: buildDeviceMetadata, as the versioned JSON encoder writes it."""
    md = claim["metadata"]
    # ObjectMeta's omitempty/omitzero fields: no creationTimestamp, no empty namespace or uid
    meta = {k: v for k, v in (("name", md["name"]), ("namespace", md.get("namespace")), ("uid", md.get("uid")))
            if v}
    meta["generation"] = 1
    obj: dict = {"kind": "DeviceMetadata", "apiVersion": API_VERSION, "metadata": meta}
    pod_claim = (md.get("annotations") or {}).get(POD_CLAIM_NAME)
    if pod_claim is not None:
        obj["podClaimName"] = pod_claim
    devices = []
    for r in results:
        dev = {"driver": driver, "pool": r["pool"], "name": r["device"]}
        attrs = attributes(driver, r["pool"], r["device"])
        if attrs:
            dev["attributes"] = attrs
        devices.append(dev)
    obj["requests"] = [{"name": request_ref, "devices": devices}]
    return obj


def claim_files(claim: dict, attributes) -> dict[tuple[str, str], tuple[str, dict]]:
    """(driver, base request) -> (container path, DeviceMetadata) for one prepared claim
    (k8s: processPreparedClaim groups the prepared devices by request, per driver)."""
    grouped: dict[tuple[str, str], list[dict]] = {}
    refs: dict[tuple[str, str], str] = {}
    for r in ((claim["status"]["allocation"].get("devices") or {}).get("results") or ()):
        key = (r["driver"], r["request"].split("/")[0])
        grouped.setdefault(key, []).append(r)
        refs.setdefault(key, r["request"])
    return {key: (container_path(key[0], claim, key[1]), device_metadata(claim, key[0], refs[key], results, attributes))
            for key, results in grouped.items()}


class SliceAttributes:
    """What each simulated driver knows of its devices: their attributes in the pool's newest
    generation (kept current from ResourceSlice watch events)."""

    def __init__(self, store: MemoryStore, watch: bool = True) -> None:
        self._slices: dict[str, tuple] = {}   # slice -> (generation, device -> attrs, index keys)
        self._index: dict[tuple[str, str, str], object] = {}    # (driver, pool, device) -> slices (smallsets)
        if watch:
            store.subscribe(self._on_event, kinds=("ResourceSlice",))
        for s in store.list("ResourceSlice"):
            self._add(s)

    def _on_event(self, ev: WatchEvent) -> None:
        self._remove(ev.obj["metadata"]["name"])
        if ev.type != DELETED:
            self._add(ev.obj)

    def _remove(self, name: str) -> None:
        entry = self._slices.pop(name, None)
        if entry is None:
            return
        for key in entry[2]:
            smallsets.discard(self._index, key, name)

    def _add(self, s: dict) -> None:
        spec = s.get("spec") or {}
        pool = spec.get("pool") or {}
        driver, pool_name, name = spec.get("driver", ""), pool.get("name", ""), s["metadata"]["name"]
        attrs: dict[str, dict] = {}
        keys = []
        for d in spec.get("devices") or ():   # one loop, no comprehensions: called for every slice event
            device = d.get("name", "")
            attrs[device] = d.get("attributes") or {}
            keys.append((driver, pool_name, device))
            smallsets.add(self._index, keys[-1], name)
        self._slices[name] = (pool.get("generation") or 0, attrs, keys)

    def __call__(self, driver: str, pool: str, device: str) -> dict:
        names = smallsets.values(self._index, (driver, pool, device))
        if not names:
            return {}
        newest = max(names, key=lambda n: (self._slices[n][0], n))
        return self._slices[newest][1].get(device) or {}
