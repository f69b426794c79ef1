"""Lightning's warnings about dataloaders: too few workers, an ``IterableDataset`` with ``__len__``, a loader with
no batches. They point at likely mistakes without stopping the run."""
from __future__ import annotations

import os
import warnings

from ..exceptions import PossibleUserWarning

__all__ = ["check_dataloader", "suggested_max_num_workers"]


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def suggested_max_num_workers(local_world_size: int) -> int:
    """Workers per loader that keep every CPU busy next to ``local_world_size`` training processes (Lightning's
    heuristic: one CPU per process stays for the training itself)."""
    return max(1, _cpus() // max(local_world_size, 1) - 1)


def check_dataloader(loader, name: str, num_devices: int) -> None:
    """Warn as Lightning does about ``loader`` (called ``name``, e.g. ``"train_dataloader"``)."""
    from ..core.data import DataLoader, IterableDataset
    if not isinstance(loader, DataLoader):
        return
    upper = suggested_max_num_workers(num_devices)
    workers = loader.num_workers
    if workers <= 2 < upper or workers < 2 <= upper:
        warnings.warn(f"The '{name}' does not have many workers which may be a bottleneck. Consider increasing the "
                      f"value of the `num_workers` argument` to `num_workers={upper}` in the `DataLoader` to improve "
                      "performance.", PossibleUserWarning)
    iterable = isinstance(loader.dataset, IterableDataset)
    try:
        length = len(loader)
    except (TypeError, NotImplementedError):
        return
    if length == 0:
        warnings.warn(f"Total length of `{type(loader).__name__}` across ranks is zero. Please make sure this was your "
                      "intention.", UserWarning)
    if iterable:
        warnings.warn("Your `IterableDataset` has `__len__` defined. In combination with multi-process data loading "
                      "(when num_workers > 1), `__len__` could be inaccurate if each worker is not configured "
                      "independently to avoid having duplicate data.", UserWarning)
