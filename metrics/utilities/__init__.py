"""Helpers shared by the metrics: state reductions, input checks, safe arithmetic and the distributed seam."""
from .data import dim_zero_cat, dim_zero_max, dim_zero_mean, dim_zero_min, dim_zero_sum  # noqa: F401
from .distributed import distributed_available, gather_all_tensors  # noqa: F401
from .exceptions import MetricsUserError  # noqa: F401

__all__ = ["dim_zero_cat", "dim_zero_max", "dim_zero_mean", "dim_zero_min", "dim_zero_sum", "distributed_available",
           "gather_all_tensors", "MetricsUserError"]
