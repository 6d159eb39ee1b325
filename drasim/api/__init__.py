"""drasim.api"""
