"""`drasim trace import`: openb CSVs (alibaba/clusterdata cluster-trace-gpu-v2023 format) to a DRA
cluster and a trace. The CSVs here are written in that format by the test, a few rows of each kind."""

import pytest
import yaml

from drasim.api.loader import load_paths
from drasim.cel import compile_selector, device_input
from drasim.cli.main import main
from drasim.controlplane import ControlPlane

NODES = """sn,cpu_milli,memory_mib,gpu,model
openb-node-0000,32000,262144,0,
openb-node-0001,96000,786432,8,V100M32
openb-node-0002,64000,262144,2,T4
"""
PODS = """name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
openb-pod-0000,12000,16384,1,1000,,LS,Running,100,3700,100
openb-pod-0001,6000,12288,1,460,,LS,Running,200,900,200
openb-pod-0002,16000,32768,1,1000,V100M16|V100M32,LS,Running,300,400,300
openb-pod-0003,88000,327680,8,1000,,Burstable,Succeeded,400,10400,400
openb-pod-0004,4000,8192,0,0,,BE,Running,500,600,500
"""


@pytest.fixture
def imported(tmp_path):
    (tmp_path / "nodes.csv").write_text(NODES)
    (tmp_path / "pods.csv").write_text(PODS)
    out = tmp_path / "out"
    assert main(["trace", "import", "--nodes", str(tmp_path / "nodes.csv"), "--pods", str(tmp_path / "pods.csv"),
                 "-o", str(out)]) == 0
    return out


def test_nodes_slices_and_jobs(imported):
    objs = list(yaml.safe_load_all((imported / "cluster.yaml").read_text()))
    nodes = {o["metadata"]["name"]: o for o in objs if o["kind"] == "Node"}
    assert nodes["openb-node-0001"]["status"]["allocatable"]["cpu"] == "96000m"
    assert nodes["openb-node-0001"]["metadata"]["labels"]["openb.example.com/gpu-model"] == "V100M32"
    slices = {o["spec"]["nodeName"]: o for o in objs if o["kind"] == "ResourceSlice"}
    assert set(slices) == {"openb-node-0001", "openb-node-0002"}   # no GPUs, no slice
    assert len(slices["openb-node-0001"]["spec"]["devices"]) == 8
    jobs = yaml.safe_load((imported / "trace.yaml").read_text())["jobs"]
    assert [(j["name"], j["at"], j["runFor"]) for j in jobs][:2] == [("openb-pod-0000", "0s", "3600s"),
                                                                  ("openb-pod-0001", "100s", "700s")]
    ControlPlane().apply(load_paths([imported / "cluster.yaml"]))   # all of it passes validation


def test_gpu_spec_selects_only_those_models(imported):
    objs = list(yaml.safe_load_all((imported / "cluster.yaml").read_text()))
    [tmpl] = [o for o in objs if o["kind"] == "ResourceClaimTemplate"
              and "selectors" in o["spec"]["spec"]["devices"]["requests"][0]["exactly"]]
    sel = compile_selector(tmpl["spec"]["spec"]["devices"]["requests"][0]["exactly"]["selectors"][0]["cel"]["expression"])
    devices = {o["spec"]["nodeName"]: o["spec"]["devices"][0] for o in objs if o["kind"] == "ResourceSlice"}
    assert sel.matches(device_input("openb.example.com", devices["openb-node-0001"])) is True
    assert sel.matches(device_input("openb.example.com", devices["openb-node-0002"])) is False


def test_sharing_task_consumes_its_milli_share(imported):
    objs = list(yaml.safe_load_all((imported / "cluster.yaml").read_text()))
    shares = [o["spec"]["spec"]["devices"]["requests"][0]["exactly"].get("capacity") for o in objs
              if o["kind"] == "ResourceClaimTemplate"]
    assert {"requests": {"milli": "460"}} in shares


def test_extended_resource_option(tmp_path):
    (tmp_path / "nodes.csv").write_text(NODES)
    (tmp_path / "pods.csv").write_text(PODS)
    out = tmp_path / "ext"
    assert main(["trace", "import", "--nodes", str(tmp_path / "nodes.csv"), "--pods", str(tmp_path / "pods.csv"),
                 "-o", str(out), "--whole-gpus", "extended"]) == 0
    jobs = yaml.safe_load((out / "trace.yaml").read_text())["jobs"]
    limits = jobs[0]["pod"]["spec"]["containers"][0]["resources"]["limits"]
    assert limits == {"openb.example.com/gpu": "1"}


def test_bad_csv_is_one_clear_error(tmp_path, capsys):
    (tmp_path / "nodes.csv").write_text("name,cpus\nx,1\n")
    (tmp_path / "pods.csv").write_text(PODS)
    assert main(["trace", "import", "--nodes", str(tmp_path / "nodes.csv"), "--pods", str(tmp_path / "pods.csv"),
                 "-o", str(tmp_path / "o")]) == 1
    assert "not an openb CSV: missing column(s) sn" in capsys.readouterr().err
