"""Helpers for the training layer: ``CombinedLoader``, mapping over batches, moving them, and inferring their
batch size. Also importable as ``ember.utilities`` (Lightning's ``lightning.pytorch.utilities``)."""
from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Callable, Optional

from ...core.tensor import Tensor
from .combined_loader import CombinedLoader

__all__ = ["CombinedLoader", "apply_to_collection", "move_data_to_device", "extract_batch_size", "rank_zero_warn", "rank_zero_info"]


def apply_to_collection(data: Any, dtype, function: Callable, *args: Any, **kwargs: Any) -> Any:
    """Apply ``function`` to every element of type ``dtype`` in a nested collection, keeping its structure."""
    if isinstance(data, dtype):
        return function(data, *args, **kwargs)
    if isinstance(data, Mapping):
        return type(data)({k: apply_to_collection(v, dtype, function, *args, **kwargs) for k, v in data.items()}) \
            if type(data) is not dict else {k: apply_to_collection(v, dtype, function, *args, **kwargs)
                                            for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return type(data)(*(apply_to_collection(v, dtype, function, *args, **kwargs) for v in data))
    if isinstance(data, (list, tuple)):
        return type(data)(apply_to_collection(v, dtype, function, *args, **kwargs) for v in data)
    return data


def move_data_to_device(batch: Any, device) -> Any:
    """Move every tensor of ``batch`` to ``device`` (tensors already there are returned as they are)."""
    from ...core.device import device as device_cls
    target = device if isinstance(device, device_cls) else device_cls(device)

    def move(t):
        return t if t.device == target else t.to(target)
    return apply_to_collection(batch, Tensor, move)


def _tensors_in(batch: Any):
    if isinstance(batch, Tensor):
        yield batch
    elif isinstance(batch, Mapping):
        for v in batch.values():
            yield from _tensors_in(v)
    elif isinstance(batch, Sequence) and not isinstance(batch, str):
        for v in batch:
            yield from _tensors_in(v)


def extract_batch_size(batch: Any) -> int:
    """The batch size of ``batch``: the first dimension of its first tensor.

    Warns (the caller makes it once per run) when tensors disagree, and raises when no tensor is found.
    """
    sizes = []
    for t in _tensors_in(batch):
        sizes.append(1 if t.ndim == 0 else t.shape[0])
    if not sizes:
        raise RuntimeError("We could not infer the batch_size from the batch. Either simplify its structure or "
                           "provide the batch_size as `self.log(..., batch_size=batch_size)`.")
    if len(set(sizes)) > 1:
        warnings.warn(f"Trying to infer the `batch_size` from an ambiguous collection. The batch size we found is "
                      f"{sizes[0]}. To avoid any miscalculations, use `self.log(..., batch_size=batch_size)`.",
                      UserWarning)
    return sizes[0]


def rank_zero_warn(message: str, category=UserWarning, stacklevel: int = 3, rank: int = 0) -> None:
    """Warn on the global-zero process only."""
    if rank == 0:
        warnings.warn(message, category, stacklevel=stacklevel)


def rank_zero_info(message: str, rank: int = 0, stream: Optional[Any] = None) -> None:
    """Print an informational message on the global-zero process only."""
    if rank == 0:
        print(message, file=stream)
