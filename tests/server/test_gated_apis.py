"""APIs behind feature gates are served only with their gate on (PodGroup: GenericWorkload)."""
from tests.server.harness import Serve

PODGROUPS = "/apis/scheduling.k8s.io/v1beta1/namespaces/default/podgroups"


def test_podgroups_served_with_the_gate_and_gang_scheduled(tmp_path):
    s = Serve(tmp_path, extra=("--feature-gates=GenericWorkload=true",))
    try:
        code, listing = s.call("GET", "/apis/scheduling.k8s.io/v1beta1")
        assert code == 200 and {"podgroups", "workloads"} <= {r["name"] for r in listing["resources"]}
        code, pg = s.call("POST", PODGROUPS, {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                                              "metadata": {"name": "g"},
                                              "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}})
        assert code == 201, pg
    finally:
        s.stop()


def test_podgroups_not_served_by_default(tmp_path):
    s = Serve(tmp_path)
    try:
        assert s.call("GET", PODGROUPS)[0] == 404
        assert s.call("GET", "/apis/scheduling.k8s.io/v1beta1")[0] == 404
    finally:
        s.stop()
