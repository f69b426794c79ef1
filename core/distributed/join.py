"""Placeholder replaced below."""
class Join: pass
class Joinable: pass
class JoinHook: pass
