"""Inputs shared by the collectives worker and its tests: what rank ``r`` contributes, by a formula."""
import numpy as np

DTYPES = ("float32", "float64", "int64")
OPS = ("SUM", "PRODUCT", "MIN", "MAX", "AVG")
BASE = np.array([1, 2, 3, 4, -1, -2])


def value(rank: int, dtype: str) -> np.ndarray:
    """Rank ``r``'s tensor: small integers (exact in every dtype, products included), negatives for MIN/AVG."""
    return (BASE * (rank + 1) + rank).astype(dtype)


def chunk(rank: int, dest: int, dtype: str) -> np.ndarray:
    """What rank ``rank`` sends to rank ``dest`` in scatter-like collectives (distinct for every pair)."""
    return (np.arange(3) + 10 * rank + 100 * dest).astype(dtype)
