"""drasim.io/run-for: a pod that finishes after a virtual-time duration, and frees its devices."""
import pytest

from drasim.cli.main import main
from drasim.controlplane import ControlPlane
from drasim.node.kubelet import RUN_FOR_ANNOTATION, parse_go_duration
from drasim.sim.clock import parse_time

OBJECTS = [
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
     "status": {"allocatable": {"cpu": "4", "memory": "4Gi", "pods": "10"}}},
    {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
     "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}},
    {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
     "spec": {"driver": "gpu.example.com", "nodeName": "n1",
              "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1}, "devices": [{"name": "g0"}]}},
    {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
     "metadata": {"name": "tpl", "namespace": "default"},
     "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}}},
]


def pod(name: str, run_for: str | None, restart: str = "Never") -> dict:
    md = {"name": name, "namespace": "default"}
    if run_for is not None:
        md["annotations"] = {RUN_FOR_ANNOTATION: run_for}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md,
            "spec": {"restartPolicy": restart,
                     "containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "gpu"}]}}],
                     "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "tpl"}]}}


def cluster(*pods: dict) -> ControlPlane:
    cp = ControlPlane()
    for obj in OBJECTS + list(pods):
        cp.create(obj)
    cp.settle()
    return cp


def condition(p: dict, type_: str) -> dict:
    return next(c for c in p["status"]["conditions"] if c["type"] == type_)


def test_pod_succeeds_after_run_for_and_its_device_goes_to_the_next_pod():
    cp = cluster(pod("first", "1h30m"), pod("second", None))
    first = cp.store.get("Pod", "default", "first")
    assert first["status"]["phase"] == "Succeeded"
    [cs] = first["status"]["containerStatuses"]
    term = cs["state"]["terminated"]
    assert (term["exitCode"], term["reason"], cs["ready"]) == (0, "Completed", False)
    assert parse_time(term["finishedAt"]) - parse_time(term["startedAt"]) == 5400
    assert (condition(first, "Ready")["status"], condition(first, "Ready")["reason"]) == ("False", "PodCompleted")
    assert condition(first, "ContainersReady")["reason"] == "PodCompleted"
    # k8s resourceclaim controller: the claim made for a pod that is done is deleted.
    claims = cp.store.list("ResourceClaim", "default")
    assert [c["metadata"]["ownerReferences"][0]["name"] for c in claims] == ["second"]
    second = cp.store.get("Pod", "default", "second")
    assert second["status"]["phase"] == "Running"
    assert claims[0]["status"]["allocation"]["devices"]["results"][0]["device"] == "g0"
    assert claims[0]["status"]["reservedFor"] == [{"resource": "pods", "name": "second",
                                                    "uid": second["metadata"]["uid"]}]


@pytest.mark.parametrize(("value", "restart", "why"), [
    ("soon", "Never", 'time: invalid duration "soon"'),
    ("10", "OnFailure", 'time: missing unit in duration "10"'),
    ("-5m", "Never", 'time: negative duration "-5m"'),
    ("5m", "Always", "restartPolicy Always restarts containers that exit"),
])
def test_a_bad_value_is_an_event_not_a_refusal(value, restart, why):
    cp = cluster(pod("p", value, restart))
    p = cp.store.get("Pod", "default", "p")
    assert p["status"]["phase"] == "Running"
    message = f"annotation drasim.io/run-for: {why}; the pod runs until deleted"
    [event] = [e for e in cp.store.list("Event") if e["reason"] == "InvalidRunFor"]
    assert (event["type"], event["message"], event["involvedObject"]["name"]) == ("Warning", message, "p")
    assert cp.kubelets.warnings == [f"pod default/p: {message}"]


def test_simulate_prints_the_warning_and_succeeds(tmp_path, capsys):
    import yaml
    path = tmp_path / "m.yaml"
    path.write_text(yaml.safe_dump_all(OBJECTS + [pod("p", "1 h")]))
    assert main(["simulate", str(path)]) == 0
    err = capsys.readouterr().err
    assert err == ('warning: pod default/p: annotation drasim.io/run-for: time: unknown unit " h" in duration '
                   '"1 h"; the pod runs until deleted\n')


@pytest.mark.parametrize(("text", "seconds"), [
    ("0", 0), ("1h30m", 5400), ("1.5s", 1.5), ("300ms", 0.3), (".5m", 30), ("1.s", 1), ("+2h", 7200),
    ("1h1m1s1ms1us1ns", 3661.001001001), ("2562047h", 2562047 * 3600),
])
def test_go_durations(text, seconds):
    assert parse_go_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize(("text", "message"), [
    ("", 'time: invalid duration ""'), ("s", 'time: invalid duration "s"'),
    ("1", 'time: missing unit in duration "1"'), ("1d", 'time: unknown unit "d" in duration "1d"'),
    ("3000000h", 'time: invalid duration "3000000h"'),
])
def test_go_duration_errors(text, message):
    with pytest.raises(ValueError) as e:
        parse_go_duration(text)
    assert str(e.value) == message
