"""The object store: versions, uids, finalizers, watch."""
import pytest

from drasim.sim.clock import Clock
from drasim.store import ADDED, DELETED, MODIFIED, MemoryStore, StoreError


def claim(name="c", **extra):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default", **extra}, "spec": {"devices": {}}}


@pytest.fixture
def store():
    return MemoryStore(Clock("2026-01-01T00:00:00Z"))


def test_create_assigns_server_fields(store):
    """Create fills uid, resourceVersion, creationTimestamp and generation 1."""
    obj = store.create(claim())
    md = obj["metadata"]
    assert md["uid"] and md["resourceVersion"] == "1" and md["generation"] == 1
    assert md["creationTimestamp"] == "2026-01-01T00:00:00Z"


def test_create_keeps_given_creation_timestamp(store):
    """A manifest's creationTimestamp (e.g. from kubectl get -o yaml) is kept."""
    obj = store.create(claim(creationTimestamp="2025-05-05T05:05:05Z"))
    assert obj["metadata"]["creationTimestamp"] == "2025-05-05T05:05:05Z"


def test_duplicate_create_is_already_exists(store):
    """Creating an existing name fails like the API server (409 AlreadyExists)."""
    store.create(claim())
    with pytest.raises(StoreError, match='resourceclaims.resource.k8s.io "c" already exists'):
        store.create(claim())


def test_generate_name_is_deterministic_per_seed():
    """generateName appends five characters from a seeded generator: same seed, same names."""
    names = []
    for _ in range(2):
        s = MemoryStore(Clock(0), seed=7)
        names.append(s.create({**claim(), "metadata": {"generateName": "pod-gpu-", "namespace": "default"}})
                     ["metadata"]["name"])
    assert names[0] == names[1] and names[0].startswith("pod-gpu-") and len(names[0]) == len("pod-gpu-") + 5


def test_update_bumps_generation_only_on_spec_change(store):
    """generation counts spec changes; a metadata-only update keeps it."""
    obj = store.create(claim())
    labelled = dict(obj, metadata=dict(obj["metadata"], labels={"a": "b"}))
    assert store.update(labelled)["metadata"]["generation"] == 1
    changed = dict(store.get("ResourceClaim", "default", "c"), spec={"devices": {"requests": []}})
    assert store.update(changed)["metadata"]["generation"] == 2


def test_stale_resource_version_conflicts(store):
    """An update carrying an old resourceVersion is a Conflict."""
    obj = store.create(claim())
    store.update_status(dict(obj, status={"reservedFor": []}))
    with pytest.raises(StoreError, match="the object has been modified"):
        store.update(obj)


def test_update_keeps_status_and_update_status_keeps_spec(store):
    """The main resource cannot change status; /status cannot change spec."""
    obj = store.create(claim())
    store.update_status(dict(obj, status={"reservedFor": [{"name": "p"}]}, spec={"changed": True}))
    current = store.get("ResourceClaim", "default", "c")
    assert current["spec"] == {"devices": {}} and current["status"]["reservedFor"][0]["name"] == "p"
    store.update(dict(current, status={}))
    assert store.get("ResourceClaim", "default", "c")["status"]["reservedFor"]


def test_delete_with_finalizer_marks_then_removes(store):
    """With finalizers, delete only sets deletionTimestamp; removing the last one deletes."""
    events = []
    store.subscribe(lambda ev: events.append(ev.type))
    store.create(claim(finalizers=["x"]))
    store.delete("ResourceClaim", "default", "c")
    marked = store.get("ResourceClaim", "default", "c")
    assert marked["metadata"]["deletionTimestamp"]
    store.update(dict(marked, metadata=dict(marked["metadata"], finalizers=[])))
    assert store.get("ResourceClaim", "default", "c") is None
    assert events == [ADDED, MODIFIED, DELETED]


def test_delete_uid_precondition(store):
    """A delete with another uid as precondition is refused."""
    store.create(claim())
    with pytest.raises(StoreError, match="Precondition failed"):
        store.delete("ResourceClaim", "default", "c", uid="other")


def test_snapshot_of_an_object_being_deleted(store):
    """deletionTimestamp from a snapshot: kept while finalizers hold the object, otherwise the
    deletion completes at once (ADDED then DELETED)."""
    events = []
    store.subscribe(lambda e: events.append((e.type, e.obj["metadata"]["name"])))
    held = store.create(claim("held", deletionTimestamp="2025-05-05T05:05:05Z", finalizers=["x/y"]))
    assert held["metadata"]["deletionTimestamp"] == "2025-05-05T05:05:05Z"
    assert store.get("ResourceClaim", "default", "held") is held
    store.create(claim("gone", deletionTimestamp="2025-05-05T05:05:05Z"))
    assert store.get("ResourceClaim", "default", "gone") is None
    assert events == [(ADDED, "held"), (ADDED, "gone"), (DELETED, "gone")]
