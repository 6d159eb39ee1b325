"""drasim.scheduler/plugins"""
