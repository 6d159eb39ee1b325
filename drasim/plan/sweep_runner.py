"""Running a sweep's scenarios: in local worker processes, or on a Ray cluster.

Each scenario is `sweep.run_scenario(spec, scenario)`, a pure function, so the two executors
differ only in how they hand it out: `concurrent.futures.ProcessPoolExecutor` locally, a Ray
remote function with `--ray ADDRESS|auto` (Ray schedules the tasks; drasim writes no
distributed scheduler). With a results folder every finished scenario is written as
`<id>.json` when it finishes and skipped on the next run (resumable). A scenario that fails is
recorded with its error; the sweep goes on.
"""
from __future__ import annotations

import json
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Callable

from drasim.errors import DrasimError
from drasim.plan.sweep import Spec, run_scenario, scenario_id


def run_one(spec: Spec, scenario: dict) -> dict:
    """A scenario's record: its result, or its error (input errors as their message; anything
    else with the exception type, since it is a drasim bug worth reporting)."""
    try:
        return {"id": scenario_id(scenario), "scenario": scenario, "result": run_scenario(spec, scenario)}
    except DrasimError as e:
        return {"id": scenario_id(scenario), "scenario": scenario, "error": str(e)}
    except Exception as e:   # noqa: BLE001 - one broken scenario must not end the sweep
        return {"id": scenario_id(scenario), "scenario": scenario,
                "error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc(limit=5)}


def _load_done(results: Path | None) -> dict[str, dict]:
    if results is None or not results.is_dir():
        return {}
    done = {}
    for f in sorted(results.glob("*.json")):
        try:
            record = json.loads(f.read_text())
        except (OSError, ValueError):
            continue   # a torn file from an interrupted run: the scenario runs again
        if isinstance(record, dict) and record.get("id") == f.stem and "result" in record:
            done[f.stem] = record
    return done


def _save(results: Path | None, record: dict) -> None:
    if results is None:
        return
    tmp = results / f".{record['id']}.json.tmp"
    tmp.write_text(json.dumps(record, sort_keys=True))
    tmp.replace(results / f"{record['id']}.json")   # atomic: a crash never leaves half a result


def run_sweep(spec: Spec, *, workers: int = 1, ray_address: str | None = None, results: Path | None = None,
              progress: Callable[[int, int], None] | None = None) -> list[dict]:
    scenarios = spec.scenarios()
    if results is not None:
        results.mkdir(parents=True, exist_ok=True)
    done = _load_done(results)
    todo = [s for s in scenarios if scenario_id(s) not in done]
    records = {sid: r for sid, r in done.items()}
    finished = len(scenarios) - len(todo)
    if progress:
        progress(finished, len(scenarios))

    def record(r: dict) -> None:
        nonlocal finished
        records[r["id"]] = r
        if "result" in r:
            _save(results, r)
        finished += 1
        if progress:
            progress(finished, len(scenarios))

    if ray_address is not None:
        _run_on_ray(spec, todo, ray_address, record)
    elif workers <= 1:
        for s in todo:
            record(run_one(spec, s))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for future in as_completed([pool.submit(run_one, spec, s) for s in todo]):
                record(future.result())
    return [records[scenario_id(s)] for s in scenarios]


def _run_on_ray(spec: Spec, todo: list[dict], address: str, record: Callable[[dict], None]) -> None:
    try:
        import ray
    except ImportError:
        from drasim.errors import InputError
        raise InputError("--ray needs Ray: pip install 'drasim[sweep]' (or pip install ray)") from None
    started = not ray.is_initialized()
    if started:
        ray.init(address=None if address == "local" else address, include_dashboard=False,
                 log_to_driver=False, ignore_reinit_error=True)
    try:
        remote = ray.remote(run_one)
        pending = [remote.remote(spec, s) for s in todo]
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            record(ray.get(ready[0]))
    finally:
        if started:
            ray.shutdown()
