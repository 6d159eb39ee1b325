"""One node, many pods: the whole control plane (kubelets included) must stay linear.

    python benchmarks/one_node.py [pods ...]        # default 1000 2000 5000 10000

One Node with room for every pod (cpu 1m each, `pods` allocatable above N), N plain pods
created in one phase, settled; prints wall seconds and µs per pod. A component that looks at
every pod of the node for each new pod (kubelet admission did) makes the total quadratic.
"""
from __future__ import annotations

import sys
import time

from drasim.api.loader import Document
from drasim.api import kinds
from drasim.controlplane import ControlPlane


def documents(n: int) -> list[Document]:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"},
            "status": {"allocatable": {"cpu": "1000", "memory": "1000Gi", "pods": str(n + 10)}}}
    docs = [Document("one-node.yaml#1", kinds.BY_KIND["Node"], node)]
    for i in range(n):
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"pod-{i}", "namespace": "default"},
               "spec": {"containers": [{"name": "c", "image": "i",
                                        "resources": {"requests": {"cpu": "1m", "memory": "1Mi"}}}]}}
        docs.append(Document(f"one-node.yaml#{i + 2}", kinds.BY_KIND["Pod"], pod))
    return docs


def run(n: int) -> tuple[float, int]:
    docs = documents(n)
    cp = ControlPlane()
    start = time.perf_counter()
    cp.run_phase(docs)
    took = time.perf_counter() - start
    running = sum(1 for p in cp.store.list("Pod") if (p.get("status") or {}).get("phase") == "Running")
    return took, running


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or [1000, 2000, 5000, 10000]
    print(f"{'pods':>7} {'running':>8} {'seconds':>8} {'µs/pod':>8}")
    for n in sizes:
        took, running = run(n)
        print(f"{n:>7} {running:>8} {took:>8.2f} {took / n * 1e6:>8.0f}")


if __name__ == "__main__":
    main(sys.argv[1:])
