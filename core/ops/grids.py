"""Grids of coordinates: ``meshgrid`` and ``cartesian_prod``, built from broadcast views of 1-D inputs."""
from __future__ import annotations

import warnings

from ._base import Tensor, check_tensor

__all__ = ["meshgrid", "cartesian_prod"]

_warned_meshgrid = [False]


def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-D tensors: output ``i`` varies along dim ``i`` and is constant along the others.

    ``indexing="ij"`` (matrix indexing; the default, with a warning when not given) or ``"xy"`` (Cartesian: the
    first two dims swapped). The outputs are broadcast views of the inputs.
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        if not _warned_meshgrid[0]:
            _warned_meshgrid[0] = True
            warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
                          "argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        check_tensor(t, "tensors", "meshgrid")
        if t._data.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    flat = [t.reshape(-1) for t in tensors]
    swap = indexing == "xy" and len(flat) >= 2
    if swap:
        flat[0], flat[1] = flat[1], flat[0]
    shape = tuple(t._data.shape[0] for t in flat)
    grids = []
    for i, t in enumerate(flat):
        view = [1] * len(flat)
        view[i] = -1
        grids.append(t.reshape(view).expand(shape))
    if swap:
        # Cartesian indexing: the grid of the first input varies along dim 1 and the second's along dim 0
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors) -> Tensor:
    """The Cartesian product of 1-D tensors: an ``(N, k)`` tensor of all combinations (a 1-D input is returned as
    is), in the order of ``itertools.product``."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for t in tensors:
        check_tensor(t, "tensors", "cartesian_prod")
        if t._data.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._data.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    from .shape import stack
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)
