"""drasim.server"""
