"""Table columns of the workload kinds (apps/v1, batch/v1), ready for when drasim/api/kinds.py
serves them. k8s: pkg/printers/internalversion/printers.go (printDeployment, printReplicaSet,
printStatefulSet, printDaemonSet, printJob)."""
from __future__ import annotations

from drasim.server.tables import AGE, NAME, _age, _col, _name, _since, human_duration
from drasim.sim.clock import parse_time

_WIDE = [_col("Containers", priority=1, description="Names of each container in the template."),
         _col("Images", priority=1, description="Images referenced by each container in the template.")]
_SELECTOR = _col("Selector", priority=1, description="Label selector for pods.")


def _template_cells(obj: dict) -> list[str]:
    containers = (((obj.get("spec") or {}).get("template") or {}).get("spec") or {}).get("containers") or []
    return [",".join(c.get("name", "") for c in containers), ",".join(c.get("image", "") for c in containers)]


def _selector(obj: dict) -> str:
    """k8s: metav1.FormatLabelSelector."""
    sel = (obj.get("spec") or {}).get("selector")
    if not isinstance(sel, dict):
        return "<none>"
    parts = [f"{k}={v}" for k, v in sorted((sel.get("matchLabels") or {}).items())]
    for e in sel.get("matchExpressions") or ():
        op = {"In": "in", "NotIn": "notin"}.get(e.get("operator"))
        if op:
            parts.append(f"{e.get('key')} {op} ({','.join(e.get('values') or ())})")
        elif e.get("operator") == "Exists":
            parts.append(e.get("key", ""))
        else:
            parts.append(f"!{e.get('key', '')}")
    return ",".join(parts) or "<none>"


def _n(obj: dict, section: str, field: str, default: int = 0) -> int:
    value = (obj.get(section) or {}).get(field)
    return value if isinstance(value, int) else default


DEPLOYMENT = ([NAME, _col("Ready"), _col("Up-to-date"), _col("Available"), AGE, *_WIDE, _SELECTOR],
              lambda o, now: [_name(o), f"{_n(o, 'status', 'readyReplicas')}/{_n(o, 'spec', 'replicas', 1)}",
                              _n(o, "status", "updatedReplicas"), _n(o, "status", "availableReplicas"),
                              _age(o, now), *_template_cells(o), _selector(o)])
REPLICA_SET = ([NAME, _col("Desired", "integer"), _col("Current", "integer"), _col("Ready", "integer"), AGE,
                *_WIDE, _SELECTOR],
               lambda o, now: [_name(o), _n(o, "spec", "replicas", 1), _n(o, "status", "replicas"),
                               _n(o, "status", "readyReplicas"), _age(o, now), *_template_cells(o), _selector(o)])
STATEFUL_SET = ([NAME, _col("Ready"), AGE, *_WIDE],
                lambda o, now: [_name(o), f"{_n(o, 'status', 'readyReplicas')}/{_n(o, 'spec', 'replicas', 1)}",
                                _age(o, now), *_template_cells(o)])
DAEMON_SET = ([NAME, _col("Desired", "integer"), _col("Current", "integer"), _col("Ready", "integer"),
               _col("Up-to-date", "integer"), _col("Available", "integer"), _col("Node Selector"), AGE,
               *_WIDE, _SELECTOR],
              lambda o, now: [_name(o), _n(o, "status", "desiredNumberScheduled"),
                              _n(o, "status", "currentNumberScheduled"), _n(o, "status", "numberReady"),
                              _n(o, "status", "updatedNumberScheduled"), _n(o, "status", "numberAvailable"),
                              ",".join(f"{k}={v}" for k, v in sorted(((((o.get("spec") or {}).get("template") or {})
                                       .get("spec") or {}).get("nodeSelector") or {}).items())) or "<none>",
                              _age(o, now), *_template_cells(o), _selector(o)])


def _job_status(job: dict) -> str:
    """k8s: printJob — the first true terminal condition, else Suspended or Running."""
    conditions = {c.get("type"): c.get("status") for c in (job.get("status") or {}).get("conditions") or ()}
    for kind in ("Failed", "Complete", "FailureTarget", "SuccessCriteriaMet"):
        if conditions.get(kind) == "True":
            return "Failed" if kind == "FailureTarget" else kind
    if conditions.get("Suspended") == "True":
        return "Suspended"
    return "Running"


def _job_row(job: dict, now: float) -> list:
    spec, status = job.get("spec") or {}, job.get("status") or {}
    completions = spec.get("completions")
    succeeded = status.get("succeeded") or 0
    if isinstance(completions, int):
        done = f"{succeeded}/{completions}"
    else:   # a work queue: no fixed count
        parallelism = spec.get("parallelism")
        done = f"{succeeded}/1 of {parallelism}" if isinstance(parallelism, int) and parallelism > 1 else f"{succeeded}/1"
    start, end = status.get("startTime"), status.get("completionTime")
    if not start:
        duration = ""
    elif end:
        duration = human_duration(parse_time(end) - parse_time(start))
    else:
        duration = _since(start, now)
    return [_name(job), _job_status(job), done, duration, _age(job, now), *_template_cells(job), _selector(job)]


JOB = ([NAME, _col("Status"), _col("Completions"), _col("Duration"), AGE, *_WIDE, _SELECTOR], _job_row)

PRINTERS = {"Deployment": DEPLOYMENT, "ReplicaSet": REPLICA_SET, "StatefulSet": STATEFUL_SET,
            "DaemonSet": DAEMON_SET, "Job": JOB}
