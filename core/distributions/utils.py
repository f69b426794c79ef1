"""Helpers the distributions share: turning parameters into broadcast tensors, converting between probabilities and
logits, summing out event dimensions, lazily computed parameters, and the stable log-sigmoid family.

Everything here is composed from ember tensor ops, so whatever a distribution builds from these helpers stays
differentiable with respect to its parameters.
"""
from __future__ import annotations

import functools
import numbers
from typing import Tuple

from .. import ops
from ..autograd.grad_mode import enable_grad
from ..dtypes import get_default_dtype
from ..tensor import Size, Tensor
from ..type_info import finfo

__all__ = ["euler_constant", "broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property"]

euler_constant = 0.57721566490153286060  # the Euler-Mascheroni constant


def _is_number(value) -> bool:
    # bool is an int in Python; PyTorch accepts it as a number too
    return isinstance(value, numbers.Number) and not isinstance(value, complex)


def broadcast_all(*values) -> Tuple[Tensor, ...]:
    """Broadcast a mix of tensors and Python numbers to one shape.

    Tensors broadcast by the usual rules. Numbers become tensors with the dtype and device of the first tensor
    among ``values`` (the default dtype when all of them are numbers, giving 0-d tensors).

    Raises:
        ValueError: when a value is neither a number nor a tensor.
    """
    for v in values:
        if not (isinstance(v, Tensor) or _is_number(v)):
            raise ValueError("Input arguments must all be instances of Number or ember.Tensor, but got "
                             f"{type(v).__name__} ({v!r}); wrap it with ember.tensor(...)")
    if all(isinstance(v, Tensor) for v in values):
        return tuple(ops.broadcast_tensors(*values)) if len(values) > 1 else values
    like = next((v for v in values if isinstance(v, Tensor)), None)
    if like is None:
        options = dict(dtype=get_default_dtype())
    else:
        options = dict(dtype=like.dtype, device=like.device)
    tensors = [v if isinstance(v, Tensor) else ops.tensor(v, **options) for v in values]
    return tuple(ops.broadcast_tensors(*tensors)) if len(tensors) > 1 else tuple(tensors)


def _standard_normal(shape, dtype, device) -> Tensor:
    """Standard normal draws of ``shape`` from ember's default generator (no gradient)."""
    return ops.randn(tuple(shape), dtype=dtype, device=device)


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """Sum out the ``dim`` rightmost dimensions of ``value`` (``dim=0`` returns it unchanged)."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities from logits: ``sigmoid`` of log-odds when ``is_binary``, else ``softmax`` over the last
    dimension (whose entries are unnormalised log-probabilities)."""
    if is_binary:
        return ops.sigmoid(logits)
    return ops.softmax(logits, -1)


def clamp_probs(probs: Tensor) -> Tensor:
    """Clamp probabilities into ``[eps, 1 - eps]`` (``eps`` of the dtype), so their logits stay finite."""
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Logits from probabilities (clamped first, so 0 and 1 give large finite logits): log-odds when
    ``is_binary``, else the log-probabilities of the events along the last dimension."""
    clamped = clamp_probs(probs)
    if is_binary:
        return ops.log(clamped) - ops.log1p(-clamped)
    return ops.log(clamped)


class lazy_property:
    """A parameter computed from another on first access and then stored on the instance (``Bernoulli.logits``
    from ``probs``).

    It is a non-data descriptor: the stored instance attribute shadows it afterwards, so the computation runs once.
    The computation records a graph even under ``no_grad``, since the cached value outlives that context.
    """

    def __init__(self, wrapped):
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def _as_size(shape) -> Size:
    """``shape`` (any iterable of ints) as an ``ember.Size``."""
    return shape if isinstance(shape, Size) else Size(tuple(shape))


def _softplus(x: Tensor) -> Tensor:
    """``log(1 + exp(x))`` without overflow; its gradient is ``sigmoid(x)`` everywhere (also at 0)."""
    return ops.logaddexp(x, ops.zeros_like(x))


def _bce_with_logits(logits: Tensor, target: Tensor) -> Tensor:
    """Elementwise binary cross-entropy of ``target`` against ``sigmoid(logits)``, unreduced.

    Written as ``(1 - t) x - logsigmoid(x)`` (PyTorch's kernel), not ``max(x,0) - x t + log1p(exp(-|x|))``: the two
    round differently at saturated logits, and this form makes ``Bernoulli(probs=0).entropy()`` exactly 0 as
    PyTorch's is.
    """
    return (1 - target) * logits + _softplus(-logits)
