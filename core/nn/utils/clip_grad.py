"""Gradient clipping: ``clip_grad_norm_`` and ``clip_grad_value_``.

Both work on the gradients' arrays in place (no autograd), one pass per gradient: the squared norm of each gradient
is a BLAS dot product, so clipping a large model costs about one read of its gradients.
"""
from __future__ import annotations

import math

import numpy as np

from ...device import array_module
from ...ops._bounds import clamped
from ...tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p._grad for p in parameters if p._grad is not None]


def _as_list(tensors):
    if isinstance(tensors, Tensor):
        return [tensors]
    return [t for t in tensors if t is not None]


def _norm_of(a, norm_type):
    xp = array_module(a)
    a = a.reshape(-1)
    if norm_type == 2.0:
        if a.dtype.kind == "c":
            return math.sqrt(float(xp.vdot(a, a).real))
        a64 = a if a.dtype == np.float64 else a.astype(np.float64)
        return math.sqrt(float(xp.dot(a64, a64)))
    if norm_type == math.inf:
        return float(abs(a).max()) if a.size else 0.0
    if norm_type == -math.inf:
        return float(abs(a).min()) if a.size else math.inf
    if norm_type == 0:
        return float(xp.count_nonzero(a))
    return float((abs(a.astype(np.float64)) ** norm_type).sum() ** (1.0 / norm_type))


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of ``tensors`` (as if they were concatenated into one vector), as a 0-d tensor."""
    norm_type = float(norm_type)
    tensors = _as_list(tensors)
    if not tensors:
        from ...ops.creation import tensor
        return tensor(0.0)
    norms = [_norm_of(t._data if type(t._data) is np.ndarray else t._data.get(), norm_type) for t in tensors]
    if norm_type == math.inf:
        total = max(norms)
    elif norm_type == -math.inf:
        total = min(norms)
    elif norm_type == 0:
        total = float(sum(norms))
    else:
        total = float(sum(n ** norm_type for n in norms) ** (1.0 / norm_type)) if norm_type != 2.0 else \
            math.sqrt(sum(n * n for n in norms))
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                           "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                           "anyway, set `error_if_nonfinite=False`")
    dtype = tensors[0]._data.dtype
    return Tensor._make(np.asarray(total, dtype=dtype if dtype.kind == "f" else np.float32))


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None) -> None:
    """Scale the gradients of ``parameters`` by ``min(1, max_norm / (total_norm + 1e-6))`` in place."""
    grads = _grads(parameters)
    if not grads:
        return
    coef = float(max_norm) / (float(total_norm) + 1e-6)
    if coef < 1.0 or not math.isfinite(coef):
        for g in grads:
            g._data *= coef
            g._bump_version()


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Clip the gradient norm of an iterable of parameters, in place.

    The norm is computed over all gradients together, as if they were concatenated into a single vector. Gradients
    are scaled by ``max_norm / (total_norm + 1e-6)`` when that is below 1.

    Args:
        parameters (Iterable[Tensor] or Tensor): tensors whose ``.grad`` is clipped.
        max_norm (float): max norm of the gradients.
        norm_type (float): type of the p-norm; ``float('inf')`` for the max norm. Default: 2.
        error_if_nonfinite (bool): raise if the total norm is ``nan`` or ``inf``. Default: ``False``.
        foreach: accepted for compatibility and ignored.

    Returns:
        Total norm of the gradients (viewed as a single vector), a 0-d tensor.
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        parameters = list(parameters)
    grads = _grads(parameters)
    total = get_total_norm(grads, norm_type, error_if_nonfinite)
    if grads:
        clip_grads_with_norm_(parameters, max_norm, total.item())
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of :func:`clip_grad_norm_`."""
    import warnings
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None) -> None:
    """Clamp every gradient of ``parameters`` to ``[-clip_value, clip_value]``, in place."""
    clip_value = float(clip_value)
    for g in _grads(parameters):
        clamped(g._data, -clip_value, clip_value, out=g._data)
        g._bump_version()
