"""kube-scheduler: queue, cache, framework, plugins, and the per-signature node index."""
from drasim.scheduler.framework import Code, CycleState, NodeInfo, Status, fit_error_message
from drasim.scheduler.scheduler import Scheduler

__all__ = ["Code", "CycleState", "NodeInfo", "Scheduler", "Status", "fit_error_message"]
