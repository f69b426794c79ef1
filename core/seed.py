"""``seed_everything``: one call that seeds Python's ``random``, NumPy's global generator and ember's generators
(``random.py``, next door).

It follows Lightning's ``seed_everything``: the seed goes into ``PL_GLOBAL_SEED`` so that processes spawned later
(DDP workers) pick it up, and ``workers=True`` sets ``PL_SEED_WORKERS=1``, which makes DataLoader workers seed
themselves with :func:`pl_worker_init_function` (distinct, reproducible streams per worker and per rank).
"""
from __future__ import annotations

import logging
import os
import random
import warnings

import numpy as np

from .random import initial_seed, manual_seed

__all__ = ["seed_everything", "reset_seed", "pl_worker_init_function"]

log = logging.getLogger(__name__)

max_seed_value = 4294967295  # NumPy's legacy seeding takes a uint32
min_seed_value = 0


def _rank_from_env() -> int:
    # the launchers' conventions, as Lightning reads them
    for key in ("RANK", "LOCAL_RANK", "SLURM_PROCID", "JSM_NAMESPACE_RANK"):
        value = os.environ.get(key)
        if value is not None:
            try:
                return int(value)
            except ValueError:
                pass
    return 0


def seed_everything(seed=None, workers: bool = False, verbose: bool = True) -> int:
    """Seed the generators of Python's ``random``, NumPy (global) and ember, and return the seed.

    Also sets the environment variables ``PL_GLOBAL_SEED`` (read by spawned processes) and ``PL_SEED_WORKERS``.

    Args:
        seed: the seed, an integer in ``[0, 2**32 - 1]``. ``None`` reads ``PL_GLOBAL_SEED`` and falls back to 0 with
            a warning. A seed that is out of range or not an integer warns and is replaced by 0.
        workers: seed each DataLoader worker with a stream derived from the seed, the worker id and the process
            rank (Lightning's ``pl_worker_init_function``), unless the loader has its own ``worker_init_fn``.
        verbose: log the seed that was set.

    Returns:
        int: the seed that was set.
    """
    if seed is None:
        env_seed = os.environ.get("PL_GLOBAL_SEED")
        if env_seed is None:
            seed = 0
            if verbose:
                warnings.warn(f"No seed found, seed set to {seed}", UserWarning, stacklevel=2)
        else:
            try:
                seed = int(env_seed)
            except ValueError:
                warnings.warn(f"Invalid seed found: {env_seed!r}, seed set to 0", UserWarning, stacklevel=2)
                seed = 0
    elif not isinstance(seed, int) or isinstance(seed, bool):
        try:
            seed = int(seed)
        except (TypeError, ValueError):
            warnings.warn(f"Invalid seed found: {seed!r}, seed set to 0", UserWarning, stacklevel=2)
            seed = 0
    if not (min_seed_value <= seed <= max_seed_value):
        warnings.warn(f"{seed} is not in bounds, numpy accepts from {min_seed_value} to {max_seed_value}; seed set "
                      "to 0", UserWarning, stacklevel=2)
        seed = 0
    if verbose:
        log.info(f"Seed set to {seed}")

    os.environ["PL_GLOBAL_SEED"] = str(seed)
    random.seed(seed)
    np.random.seed(seed)
    manual_seed(seed)
    os.environ["PL_SEED_WORKERS"] = f"{int(workers)}"
    return seed


def reset_seed() -> None:
    """Seed again with the seed of the last :func:`seed_everything` (from ``PL_GLOBAL_SEED``); no-op if unset."""
    seed = os.environ.get("PL_GLOBAL_SEED")
    if seed is None:
        return
    workers = os.environ.get("PL_SEED_WORKERS", "0")
    seed_everything(int(seed), workers=bool(int(workers)), verbose=False)


def _mix_seeds(base_seed: int, worker_id: int, global_rank: int, count: int) -> list:
    """``count`` well-spread 64-bit seeds from (base seed, worker id, rank): a 64-bit hash finaliser to mix the bits,
    then a linear congruential generator to step (Lightning's scheme)."""
    mask = (1 << 64) - 1
    x = ((base_seed << 32) | (worker_id << 16) | global_rank) & mask
    x ^= x >> 33
    x = (x * 0xFF51AFD7ED558CCD) & mask
    x ^= x >> 33
    x = (x * 0xC4CEB9FE1A85EC53) & mask
    x ^= x >> 33
    seeds = []
    for _ in range(count):
        x = (x * 6364136223846793005 + 1) & mask
        seeds.append(x)
    return seeds


def pl_worker_init_function(worker_id: int, rank=None) -> None:
    """The worker seeding used after ``seed_everything(..., workers=True)``.

    It reseeds ember, ``random`` and NumPy in a DataLoader worker from the worker's base seed, its id and the
    process rank, so that workers of different ranks never share a random stream.
    """
    global_rank = rank if rank is not None else _rank_from_env()
    base_seed = initial_seed() - worker_id  # the loader seeded ember with base_seed + worker_id
    seeds = _mix_seeds(base_seed, worker_id, global_rank, count=4)
    manual_seed(seeds[0])
    random.seed((seeds[1] << 32) | seeds[2])
    np.random.seed(np.random.SeedSequence([base_seed, worker_id, global_rank]).generate_state(4))
