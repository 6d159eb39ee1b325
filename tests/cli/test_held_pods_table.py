"""Pods held before scheduling are listed as pending with their reason (issue 8.7, 16.3): a
missing ResourceClaim has no condition nor Event in v1.37, so the reason comes from the
scheduler's queue; a missing template has the resourceclaim controller's Warning Event."""
from drasim.cli.main import main

MISSING_CLAIM = """apiVersion: v1
kind: Pod
metadata: {name: needs-claim, namespace: default}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: nope}]
  containers: [{name: c, image: i, resources: {claims: [{name: gpu}]}}]
"""
MISSING_TEMPLATE = """apiVersion: v1
kind: Pod
metadata: {name: needs-template, namespace: default}
spec:
  resourceClaims: [{name: gpu, resourceClaimTemplateName: tpl}]
  containers: [{name: c, image: i, resources: {claims: [{name: gpu}]}}]
"""


def test_pending_table_names_why_pods_are_held(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    (tmp_path / "pods.yaml").write_text(MISSING_CLAIM + "---\n" + MISSING_TEMPLATE)
    assert main(["simulate", str(tmp_path / "pods.yaml")]) == 0
    rows = {line.split("│")[0].strip(): line.split("│")[1].strip()
            for line in capsys.readouterr().out.splitlines() if "│" in line and line.strip().startswith("default/")}
    assert rows["default/needs-claim"] == 'DynamicResources: resourceclaim.resource.k8s.io "nope" not found'
    assert rows["default/needs-template"] == ('FailedResourceClaimCreation: PodResourceClaim gpu: resource claim template '
                                              '"tpl": resourceclaimtemplate.resource.k8s.io "tpl" not found')


def test_explain_gives_the_same_reason(tmp_path, capsys):
    (tmp_path / "pods.yaml").write_text(MISSING_CLAIM)
    assert main(["explain", "needs-claim", "--cluster", str(tmp_path / "pods.yaml")]) == 0
    assert 'resourceclaim.resource.k8s.io "nope" not found' in capsys.readouterr().out
