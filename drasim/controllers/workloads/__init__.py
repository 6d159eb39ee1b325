"""Workload controllers of kube-controller-manager: StatefulSet, DaemonSet and Job."""
from drasim.controllers.workloads.daemonset import DaemonSetController
from drasim.controllers.workloads.job import JobController
from drasim.controllers.workloads.statefulset import StatefulSetController

__all__ = ["DaemonSetController", "JobController", "StatefulSetController"]
