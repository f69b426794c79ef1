"""Strategies: everything about processes and devices (one process today; DDP arrives with the distributed issue)."""
from .strategy import SingleDeviceStrategy, Strategy

__all__ = ["Strategy", "SingleDeviceStrategy"]
