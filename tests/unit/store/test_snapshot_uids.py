"""A snapshot loaded with the seed that made it: new objects never get a uid the snapshot's
objects have (their draws are the loading plane's next draws; kube-apiserver's random uids
never repeat either)."""
from drasim.api.loader import Document, load_paths
from drasim.api import kinds
from drasim.controlplane import ControlPlane, Options
from drasim.store import clone
from tests.scenarios.test_examples import EXAMPLES


def _uids(cp):
    return [o["metadata"]["uid"] for o in cp.objects() if o["metadata"].get("uid")]


def test_new_objects_after_a_snapshot_of_the_same_seed_get_new_uids():
    first = ControlPlane(Options(seed=0))
    first.run_phase(load_paths([EXAMPLES / "gpu-64gi" / "cluster.yaml"]))
    first.run_phase(load_paths([EXAMPLES / "gpu-64gi" / "workload.yaml"]))
    snapshot = [Document("snapshot", kinds.BY_KIND[o["kind"]], clone(o)) for o in first.objects()
                if o["kind"] in ("Namespace", "DeviceClass", "Node", "ResourceSlice", "Pod", "ResourceClaim")]
    # The loading plane draws for the snapshot's objects in another order and count (no
    # generated names, no controller writes): replay the first plane's draws directly.
    loaded = ControlPlane(Options(seed=0))
    loaded.run_phase(snapshot)
    replay = ControlPlane(Options(seed=0)).store
    drawn = {replay.new_uid() for _ in range(len(snapshot) * 4)}
    assert drawn & set(_uids(loaded)), "not vacuous: the next draws include the snapshot's uids"
    for i in range(len(snapshot) * 4):
        loaded.store.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"new-{i}"}})
    uids = _uids(loaded)
    assert len(uids) == len(set(uids))
