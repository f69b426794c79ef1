"""Models and data shared by the DDP worker and its tests."""
import numpy as np

import ember as em
from ember.core import nn


def make_mlp(seed: int, width: int = 2048):
    """8 -> width -> 3 (the default width puts ~90 kB buckets through the local backend's shared memory)."""
    em.manual_seed(seed)
    return nn.Sequential(nn.Linear(8, width), nn.Tanh(), nn.Linear(width, 3))


def equivalence_data():
    rng = np.random.default_rng(0)
    return rng.standard_normal((20 * 64, 8)).astype(np.float32), rng.integers(0, 3, 20 * 64)


def join_batches(rank: int):
    """Rank ``r`` has ``3 + 2 r`` batches of 4 samples."""
    rng = np.random.default_rng(10 + rank)
    return [rng.standard_normal((4, 8)).astype(np.float32) for _ in range(3 + 2 * rank)]
