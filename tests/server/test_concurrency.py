"""Many writers at once against `drasim serve`: optimistic concurrency as the API server does it
(a stale resourceVersion is 409 Conflict, no acknowledged update is lost), generateName never
collides, and `kill -9` under 8 concurrent writers loses no acknowledged create."""
import threading

from tests.server.harness import Serve, create_pods_until_killed

WRITERS = 8
STALE = ('Operation cannot be fulfilled on pods "shared": the object has been modified; '
         'please apply your changes to the latest version and try again')


def pod(name=None, generate=None):
    md = {"namespace": "default"}
    md.update({"name": name} if name else {"generateName": generate})
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md,
            "spec": {"containers": [{"name": "c", "image": "i"}]}}


def run_writers(target):
    threads = [threading.Thread(target=target, args=(k,)) for k in range(WRITERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)


def test_eight_writers_on_one_object_get_409s_and_lose_no_acknowledged_update(tmp_path):
    s = Serve(tmp_path)
    path = "/api/v1/namespaces/default/pods/shared"
    try:
        assert s.call("POST", "/api/v1/namespaces/default/pods", pod("shared"))[0] == 201
        acknowledged, conflicts, messages = [], [], set()
        lock = threading.Lock()

        def writer(k):
            # Read-modify-write with the read resourceVersion, retrying on 409 as client-go's
            # retry.RetryOnConflict does; each acknowledged write adds one token to an annotation.
            for i in range(15):
                token = f"w{k}-{i}"
                while True:
                    _, current = s.call("GET", path)
                    notes = dict(current["metadata"].get("annotations") or {})
                    notes["log"] = (notes.get("log", "") + " " + token).strip()
                    current["metadata"]["annotations"] = notes
                    code, body = s.call("PUT", path, current)
                    with lock:
                        if code == 200:
                            acknowledged.append(token)
                            break
                        assert code == 409, (code, body)
                        conflicts.append(token)
                        messages.add((body["reason"], body["message"]))
        run_writers(writer)
        _, final = s.call("GET", path)
        logged = final["metadata"]["annotations"]["log"].split()
        assert len(acknowledged) == WRITERS * 15
        assert sorted(logged) == sorted(acknowledged)   # every acknowledged update is in the object, once
        assert conflicts, "8 interleaved read-modify-write loops never collided"
        assert messages == {("Conflict", STALE)}
        # A write carrying a resourceVersion that is certainly stale is refused the same way.
        stale = dict(final, metadata=dict(final["metadata"], resourceVersion="1"))
        assert s.call("PUT", path, stale)[1]["message"] == STALE
    finally:
        s.stop()


def test_concurrent_generate_name_creates_never_collide(tmp_path):
    s = Serve(tmp_path)
    names, codes = [], []
    lock = threading.Lock()

    def writer(k):
        for _ in range(20):
            code, body = s.call("POST", "/api/v1/namespaces/default/pods", pod(generate="job-"))
            with lock:
                codes.append(code)
                if code == 201:
                    names.append(body["metadata"]["name"])
    try:
        run_writers(writer)
        assert codes == [201] * (WRITERS * 20)
        assert len(set(names)) == WRITERS * 20 and all(n.startswith("job-") and len(n) == 9 for n in names)
    finally:
        s.stop()


def test_kill_9_under_eight_writers_loses_no_acknowledged_create(tmp_path):
    data = tmp_path / "data"
    acknowledged = create_pods_until_killed(Serve(tmp_path, extra=("--data-dir", str(data))), WRITERS)
    s = Serve(tmp_path, extra=("--data-dir", str(data)))
    try:
        names = {p["metadata"]["name"] for p in s.call("GET", "/api/v1/pods")[1]["items"]}
        missing = set(acknowledged) - names
        assert not missing, f"{len(missing)} acknowledged creates lost, e.g. {sorted(missing)[:5]}"
        assert len(acknowledged) >= 200
    finally:
        s.stop()
