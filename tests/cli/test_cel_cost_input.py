"""CEL selectors over the cost limit: the API server's error at the right field, exit 1, fast,
and selectors near the limit still accepted (cel.md §5.4)."""
import json
import textwrap
import time

import pytest

from drasim.cli.main import main

NINE_REPLACE = '"a"' + '.replace("a", "aaaaaaaaaa")' * 9 + ".size() > 0"
HUNDRED = "[" + ", ".join(map(str, range(100))) + "]"
THREE_NESTED = f"{HUNDRED}.all(x, {HUNDRED}.all(y, {HUNDRED}.all(z, x + y + z > 0)))"
# 989 379 and 1 022 147 (tests/unit/cel/test_cost.py)
UNDER = ("device.attributes.all(a, device.attributes.all(b, device.attributes.all(c, "
         + " + ".join(["1"] * 27) + " > 0)))")
OVER = ("device.attributes.all(a, device.attributes.all(b, device.attributes.all(c, "
        + " + ".join(["1"] * 28) + " > 0)))")


def device_class(expression: str) -> str:
    return f"""
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: gpu}}
spec:
  selectors:
  - cel: {{expression: 'device.driver == "gpu.example.com"'}}
  - cel:
      expression: {json.dumps(expression)}
"""


def claim(expression: str) -> str:
    return f"""
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: c, namespace: default}}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu
        selectors:
        - cel:
            expression: {json.dumps(expression)}
"""


def template(expression: str) -> str:
    return f"""
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {{name: t, namespace: default}}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        firstAvailable:
        - name: big
          deviceClassName: gpu
          selectors:
          - cel:
              expression: {json.dumps(expression)}
"""


def run(tmp_path, capsys, text: str):
    path = tmp_path / "objects.yaml"
    path.write_text(textwrap.dedent(text))
    code = main(["simulate", str(path), "-o", "json"])
    out, err = capsys.readouterr()
    return code, out, err, str(path)


@pytest.mark.parametrize(("build", "where"), [
    pytest.param(device_class, 'DeviceClass.resource.k8s.io "gpu" is invalid: spec.selectors[1].cel.expression',
                 id="class"),
    pytest.param(claim, 'ResourceClaim.resource.k8s.io "c" is invalid: '
                 "spec.devices.requests[0].exactly.selectors[0].cel.expression", id="claim"),
    pytest.param(template, 'ResourceClaimTemplate.resource.k8s.io "t" is invalid: '
                 "spec.spec.devices.requests[0].firstAvailable[0].selectors[0].cel.expression", id="template"),
])
@pytest.mark.parametrize("expression", [
    pytest.param(NINE_REPLACE, id="nine-replace"),
    pytest.param(THREE_NESTED, id="three-nested-100"),
    pytest.param(OVER, id="just-over"),
])
def test_over_limit_is_forbidden(tmp_path, capsys, build, where, expression):
    """One line: file, object, field path and `Forbidden: too complex, exceeds cost limit`."""
    start = time.perf_counter()
    code, out, err, path = run(tmp_path, capsys, build(expression))
    assert time.perf_counter() - start < 5
    assert code == 1 and out == ""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"error: {path}")
    assert lines[0].endswith(f"{where}: Forbidden: too complex, exceeds cost limit")


def test_just_under_the_limit_is_accepted(tmp_path, capsys):
    """989 379 of 1 000 000: created, and the class selects the device."""
    code, out, err, _ = run(tmp_path, capsys, device_class(UNDER) + "---\n" + claim("true"))
    assert code == 0, err
    kinds = [o["kind"] for o in json.loads(out)["items"]]
    assert kinds.count("DeviceClass") == 1 and kinds.count("ResourceClaim") == 1
