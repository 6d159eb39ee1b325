"""Decisions must not depend on Python's per-process string hash seed (set iteration order).

Found by the fork test under PYTHONHASHSEED=38: pods moved from the unschedulable pool together were
queued in set order when their queue times tied, so two runs of one workload placed pods
differently. The same random workloads run in two processes with different hash seeds must end
identically, every settle included.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import json, random, sys
from tests.property.workload_ops import random_ops, run
from drasim.controlplane import Options
out = {}
for seed in (6, 11, 17):
    final, history = run(Options(seed=5), random_ops(random.Random(seed), 120))
    out[seed] = json.dumps([final, history], sort_keys=True, default=str)
print(json.dumps(out))
"""


def _run(hash_seed: str) -> dict:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300, check=True)
    return json.loads(done.stdout)


def test_random_workloads_end_the_same_under_two_hash_seeds():
    assert _run("1") == _run("38")
