"""`drasim bench`: replay kube-scheduler's scheduler_perf DRA benchmark configs on drasim.

load_config reads a performance-config.yaml; run_config runs the selected workloads on fresh
control planes and returns DataItems-like records (README of the shared scheduler_perf copy).
"""
from drasim.bench.collector import ThroughputCollector, summarize
from drasim.bench.config import Config, ConfigError, Params, TestCase, Workload, labels_match, load_config
from drasim.bench.gotemplate import GoTemplateError, Template, parse
from drasim.bench.runner import Selection, run_config, run_workload

__all__ = [
    "Config", "ConfigError", "GoTemplateError", "Params", "Selection", "Template", "TestCase",
    "ThroughputCollector", "Workload", "labels_match", "load_config", "parse", "run_config",
    "run_workload", "summarize",
]
