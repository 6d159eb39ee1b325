"""Virtual clock and the run-to-quiescence simulation loop."""
from drasim.sim.clock import Clock, format_time, parse_time

__all__ = ["Clock", "format_time", "parse_time"]
