"""``rms_norm``: root-mean-square normalization (``torch.nn.functional.rms_norm``), the norm of LLaMA-style models.

    y = x / sqrt(mean(x^2) + eps) * weight

over the trailing ``normalized_shape`` dimensions, as one op: the forward keeps ``rstd = 1 / sqrt(mean(x^2) + eps)``
per row, and the backward is the closed form

    gx = rstd * (gxhat - xhat * mean(gxhat * xhat)),   gxhat = gy * weight,   gw = sum(gy * xhat)

in NumPy, or with ember ops under ``create_graph`` (second-order gradients).
"""
from __future__ import annotations

import numbers

from ...autograd.graph import Node
from ...ops._base import GRAD_ENABLED, Tensor, record, sum_to, wrap
from ...type_info import finfo
from ._sums import sum_leading

__all__ = ["rms_norm"]


class RmsNormBackward0(Node):
    """Backward of :func:`rms_norm`; ``_ctx = (axes, eps, rstd)``."""

    __slots__ = ()

    def apply(self, grad):
        x, w = self.saved_tensors
        axes, eps, rstd = self._ctx
        need_x, need_w = self.next_functions[0] is not None, self.next_functions[1] is not None
        if GRAD_ENABLED[0]:  # create_graph: the same formula with ember ops, rstd recomputed from x
            rstd_t = ((x * x).mean(axes, keepdim=True) + eps).pow(-0.5)
            xhat = x * rstd_t
            gxhat = grad * w if w is not None else grad
            gx = rstd_t * (gxhat - xhat * (gxhat * xhat).mean(axes, keepdim=True)) if need_x else None
            return gx, sum_to(grad * xhat, w.shape) if need_w else None
        g = grad._data
        xhat = x._data * rstd
        gx = gw = None
        if need_w:
            gw = wrap(sum_leading(x._xp, g * xhat, x.ndim - len(axes)))
        if need_x:
            gxhat = g * w._data if w is not None else g
            gx = wrap(rstd * (gxhat - xhat * (gxhat * xhat).mean(axis=axes, keepdims=True)))
        return gx, gw


def rms_norm(input, normalized_shape, weight=None, eps=None):
    r"""Root-mean-square normalization over the trailing ``normalized_shape`` dimensions.

    .. math:: y = \frac{x}{\sqrt{\mathrm{E}[x^2] + \epsilon}} * \gamma

    Args:
        input: a floating-point tensor whose trailing shape is ``normalized_shape``.
        normalized_shape: the trailing shape to normalize over (an int or a sequence).
        weight: the elementwise scale :math:`\gamma`, of shape ``normalized_shape``, or None.
        eps: added to the mean square; None (the default) is ``finfo(input.dtype).eps``, as in PyTorch.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"rms_norm(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (int(normalized_shape),)
    shape = tuple(int(s) for s in normalized_shape)
    k = len(shape)
    if k == 0 or input.ndim < k or tuple(input.shape[input.ndim - k:]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*{', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"rms_norm\" not implemented for '{_type_name(input)}'")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(weight.shape)} and normalized_shape = {list(shape)}")
    if eps is None:
        eps = finfo(input.dtype).eps
    x = input._data
    xp = input._xp
    axes = tuple(range(input.ndim - k, input.ndim))
    sq = x * x
    rstd = sq.mean(axis=axes, keepdims=True)
    del sq
    rstd += eps
    xp.sqrt(rstd, out=rstd)
    xp.divide(1, rstd, out=rstd)
    y = x * rstd
    if weight is not None:
        y *= weight._data
    out = wrap(y)
    if GRAD_ENABLED[0] and (input._requires_grad or (weight is not None and weight._requires_grad)):
        node = RmsNormBackward0()
        node.save(input, weight)
        node._ctx = (axes, eps, rstd)
        record(node, out, input, weight)
    return out


def _type_name(t) -> str:
    from ...dtypes import scalar_type_name
    return scalar_type_name(t._data.dtype)
