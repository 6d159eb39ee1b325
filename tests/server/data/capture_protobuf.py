"""Capture the protobuf bodies the real kubectl sends, with the JSON it prints for the same object.

    python tests/server/data/capture_protobuf.py KUBECONFIG > tests/server/data/kubectl_protobuf.json

Run against any server kubectl can discover (e.g. `drasim serve`): the body is logged by
`kubectl -v=9` (client-go's hexdump) before the server answers, and `--dry-run=client -o json`
prints encoding/json of the same typed object. test_protobody.py decodes the first and
expects the second.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

COMMANDS = [
    ["create", "namespace", "golden"],
    ["create", "quota", "q", "--hard=cpu=1,memory=1Gi,pods=2,requests.example.com/gpu=1", "-n", "default"],
    ["create", "quota", "scoped", "--hard=pods=5", "--scopes=BestEffort", "-n", "default"],
    ["create", "deployment", "d", "--image=nginx", "--image=busybox", "--replicas=3", "--port=80", "-n", "default"],
    ["create", "job", "j", "--image=busybox", "-n", "default", "--", "sleep", "1"],
    ["create", "cronjob", "cj", "--image=busybox", "--schedule=*/1 * * * *", "-n", "default"],
    ["create", "priorityclass", "pc", "--value=1000", "--description=golden", "--preemption-policy=Never"],
    ["create", "poddisruptionbudget", "pdb", "--selector=app=a", "--min-available=50%", "-n", "default"],
    ["create", "poddisruptionbudget", "pdb2", "--selector=app=a", "--max-unavailable=1", "-n", "default"],
    ["create", "role", "r", "--verb=get,list", "--resource=pods,deployments.apps", "--resource-name=a", "-n", "default"],
    ["create", "clusterrole", "cr", "--verb=get", "--non-resource-url=/metrics"],
    ["create", "clusterrolebinding", "crb", "--clusterrole=view", "--user=u", "--group=g",
     "--serviceaccount=default:sa"],
    ["create", "configmap", "cm", "--from-literal=a=b", "--from-literal=empty=", "-n", "default"],
    ["create", "secret", "generic", "s", "--from-literal=a=b", "-n", "default"],
    ["create", "serviceaccount", "sa", "-n", "default"],
]
HEX = re.compile(r"^\s*[0-9a-f]{8}  ((?:[0-9a-f]{2} {1,2})+)")


def body_hex(stderr: str) -> str:
    lines = stderr.splitlines()
    start = next(i for i, line in enumerate(lines) if '"Request Body"' in line)
    out = []
    for line in lines[start + 1:]:
        m = HEX.match(line)
        if not m:
            break
        out.append(m.group(1).replace(" ", ""))
    return "".join(out)


def main(kubeconfig: str) -> None:
    kubectl = str(Path(sys.executable).parent / "kubectl") if (Path(sys.executable).parent / "kubectl").exists() \
        else shutil.which("kubectl")
    cases = []
    for args in COMMANDS:
        base = [kubectl, "--kubeconfig", kubeconfig]
        cut = args.index("--") if "--" in args else len(args)   # flags go before a command's `--`
        sent = subprocess.run([*base, *args[:cut], "-v=9", *args[cut:]], capture_output=True, text=True)
        printed = subprocess.run([*base, *args[:cut], "--dry-run=client", "-o", "json", *args[cut:]],
                                 capture_output=True, text=True, check=True)
        cases.append({"command": "kubectl " + " ".join(args), "protobuf": body_hex(sent.stderr),
                      "json": json.loads(printed.stdout)})
    json.dump(cases, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv[1])
