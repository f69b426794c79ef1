"""``parameters_to_vector`` and ``vector_to_parameters``: flatten parameters into one vector and back."""
from __future__ import annotations

from ...tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _typename(obj):
    return obj.type() if isinstance(obj, Tensor) else type(obj).__name__


def parameters_to_vector(parameters) -> Tensor:
    """Flatten ``parameters`` into one 1-D tensor (differentiable: gradients flow back to each parameter).

    Args:
        parameters (Iterable[Tensor]): the parameters of a model.
    """
    if isinstance(parameters, Tensor):
        raise TypeError(f"expected an iterable of Tensors, but got: {_typename(parameters)}")
    from ...ops.shape import cat
    flat = [p.reshape(-1) for p in parameters]
    if not flat:
        from ...ops.creation import zeros
        return zeros(0)
    return cat(flat)


def vector_to_parameters(vec, parameters) -> None:
    """Copy consecutive slices of the 1-D ``vec`` into ``parameters`` (in place, without autograd).

    Args:
        vec (Tensor): a single vector, e.g. from :func:`parameters_to_vector`.
        parameters (Iterable[Tensor]): the parameters to overwrite.
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    params = list(parameters)
    total = sum(p.numel() for p in params)
    if vec.ndim != 1 or vec.numel() != total:
        raise ValueError(f"vector_to_parameters: vec must be 1-D with {total} elements (the parameters' total), got "
                         f"shape {list(vec.shape)}")
    data = vec._data
    pointer = 0
    for p in params:
        n = p.numel()
        p._data[...] = data[pointer:pointer + n].reshape(p._data.shape)
        p._bump_version()
        pointer += n
