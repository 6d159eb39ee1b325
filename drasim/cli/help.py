"""Help text shared by `--help`, docs/cli.md and the completion scripts (all from one parser)."""
from __future__ import annotations

import argparse
from importlib import metadata


def version() -> str:
    """The installed package's version (pyproject.toml), as pip knows it."""
    try:
        return metadata.version("drasim")
    except metadata.PackageNotFoundError:      # run from a source tree that was never installed
        return "unknown"


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Examples are printed as written; option help is wrapped to the terminal as usual."""

    def __init__(self, prog: str, **kwargs) -> None:
        kwargs.setdefault("max_help_position", 32)
        super().__init__(prog, **kwargs)


EXAMPLES = {
    "drasim": """\
examples:
  drasim simulate examples/gpu-64gi/cluster.yaml examples/gpu-64gi/workload.yaml
  kubectl get nodes,resourceslices,deviceclasses,pods -A -o yaml | drasim simulate - -f workload.yaml
  drasim explain --cluster examples/gpu-64gi trainer-2
  drasim completion bash > /etc/bash_completion.d/drasim

exit status: 0 done, 1 bad input (one "error:" line), 2 bad usage, 130 interrupted (Ctrl-C).
Run "drasim COMMAND --help" for a command's options.""",
    "simulate": """\
examples:
  drasim simulate cluster.yaml workload.yaml           # two phases: the cluster settles after each
  drasim simulate -f cluster/ -f workload.yaml -o json # -f as kubectl apply -f; folders are read recursively
  kubectl get nodes,resourceslices -o yaml | drasim simulate - workload.yaml
  drasim simulate snapshot/ -o wide --show summary,pending,devices
  COLUMNS=80 drasim simulate cluster.yaml              # tables fold to fit 80 columns

Phases are applied in command-line order. Above 50 pods the table output starts with a
summary (pods by phase, devices allocated per node pool and class, pending reasons grouped
with a count) instead of one row per pod; --show chooses the tables. Pods evicted by the
device taint eviction controller are listed as Evicted (they are absent from -o json).
If a later phase is refused, -o table/wide prints the state after the last applied phase,
then the error; -o json/yaml print only the error. Either way the exit status is 1.""",
    "taint-dryrun": """\
examples:
  drasim taint-dryrun maintenance-rule.yaml --cluster cluster.yaml workload.yaml
  drasim taint-dryrun --cluster cluster.yaml workload.yaml maintenance-rule.yaml
  drasim taint-dryrun rule.yaml -f cluster/ -f workload.yaml -o json

When RULE.yaml is not given on its own, the last path after --cluster is the rule.""",
    "explain": """\
examples:
  drasim explain trainer-2 --cluster examples/gpu-64gi
  drasim explain --cluster cluster.yaml workload.yaml default/trainer-2
  drasim explain ml/trainer-0 -f cluster.yaml -f workload.yaml -o json

When POD is not given on its own, the last value after --cluster that is not an existing
path is the pod.""",
    "quota": """\
examples:
  drasim quota examples/quota-three-keys
  drasim quota -f cluster.yaml -f quota.yaml -o json""",
    "bench": """\
examples:
  drasim bench test/integration/scheduler_perf/dra/performance-config.yaml
  drasim bench performance-config.yaml --workload 'SchedulingWithResourceClaimTemplate/*' --json

Ctrl-C stops the run; the workloads that finished are printed first (exit status 130).""",
    "audit": """\
examples:
  drasim audit examples/audit-mixed                    # a half-migrated cluster: findings, exit 1
  kubectl get nodes,pods,deviceclasses,resourceslices,resourcequotas -A -o yaml | drasim audit -
  drasim audit snapshot/ -o json | jq '.findings[] | select(.severity == "error")'

All paths are read as one snapshot. Exit status 1 when an error-level finding exists.""",
    "ledger": """\
examples:
  drasim ledger examples/ledger-mig/cluster.yaml examples/ledger-mig/workload.yaml
  drasim ledger snapshot/ -o csv > chargeback.csv""",
    "inventory": """\
examples:
  drasim inventory examples/inventory/pools.yaml > cluster.yaml
  drasim inventory pools.yaml | drasim simulate - workload.yaml""",
    "plan": """\
examples:
  drasim plan examples/plan-training/cluster.yaml examples/plan-training/workload.yaml \\
      --pool examples/plan-training/pools.yaml
  drasim plan snapshot/ --pool h100.yaml --pool a100.yaml -o json

Exit status 1 when some pending pods stay Pending whatever is added.""",
    "migrate": """\
examples:
  drasim migrate examples/migrate-three-nodes/cluster.yaml --node gpu-1 --node gpu-2 --node gpu-3 \\
      --driver-slices examples/migrate-three-nodes/driver-slices.yaml --class examples/migrate-three-nodes/class.yaml
  drasim migrate snapshot/ --plan --driver-slices slices.yaml --class class.yaml

Each node: cordon, drain (--ignore-daemonsets), device plugin removed (capacity 0), the DRA
driver's slices published, the class created if missing, uncordon. Exit status 1 when a step
stopped or left pods Pending.""",
    "trace": """\
examples:
  drasim trace import --nodes openb_node_list_all_node.csv --pods openb_pod_list_default.csv -o openb/
  drasim replay openb/trace.yaml --cluster openb/cluster.yaml --until 168h

The CSVs are alibaba/clusterdata's cluster-trace-gpu-v2023 (the openb traces).""",
    "rbac": """\
examples:
  drasim rbac who-can create deviceclasses --kubeconfig ~/.kube/drasim
  kubectl get clusterroles,clusterrolebindings,roles,rolebindings -A -o yaml > rbac.yaml
  drasim rbac who-can update resourceclaims/status -n team-a -f rbac.yaml -o json""",
    "snapshot": """\
examples:
  drasim snapshot --kubeconfig ~/.kube/config -o snapshot/
  drasim snapshot --kubeconfig kc --context prod -o prod/ && drasim audit prod/

Secrets and ConfigMaps are never read.""",
    "replay": """\
examples:
  drasim replay examples/timeline/trace.yaml --cluster examples/timeline/cluster.yaml
  drasim replay trace.csv --cluster snapshot/ --until 168h -o json
  drasim replay trace.yaml --cluster cluster.yaml --html week.html

Each job's pods get drasim.io/run-for and finish after it (the simulated kubelet), freeing
their devices.""",
    "sweep": """\
examples:
  drasim sweep examples/sweep/sweep.yaml --workers 2
  drasim sweep sweep.yaml --ray local --results results/      # rerun: finished scenarios are skipped
  drasim sweep sweep.yaml --ray auto -o json                   # join a running Ray cluster

Exit status 1 when a scenario failed (the others are still reported).""",
    "serve": """\
examples:
  drasim serve examples/gpu-64gi/cluster.yaml --kubeconfig ~/.kube/drasim
  KUBECONFIG=~/.kube/drasim kubectl get resourceslices
  drasim serve --kubeconfig kc --speed 100 --data-dir state/   # 100x virtual time, kept across restarts
  drasim serve --kubeconfig kc --etcd-servers http://127.0.0.1:2379   # kept in etcd, kube-apiserver's keys""",
    "features": """\
examples:
  drasim features
  drasim features --feature-gates=DRADeviceCompatibilityGroups=true -o json
  drasim simulate cluster.yaml --feature-gates=DRADeviceTaints=false,DRADeviceTaintRules=false

DRASIM: yes (both settings simulated), default only (v1.37's default is simulated; setting the
gate otherwise prints a warning), no effect (the gate changes speed or objects drasim does not
simulate). Unknown gates, locked gates set away from their default and unmet dependencies are
refused with kube-apiserver's words.""",
    "completion": """\
examples:
  drasim completion bash > ~/.local/share/bash-completion/completions/drasim
  drasim completion zsh > "${fpath[1]}/_drasim"
  drasim completion fish > ~/.config/fish/completions/drasim.fish""",
}
