"""Loss functions of ``ember.nn.functional``.

``cross_entropy`` (class indices, no label smoothing) and ``nll_loss`` are fused: one NumPy pass forward and a
hand-written NumPy backward (``softmax - onehot``, scaled). When a graph of the derivative is being recorded
(``create_graph=True``) their backward switches to the same formula written with ember ops, so double backward
works. The other losses are composed from ember ops and differentiate to any order.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ...autograd.graph import Node
from ...device import array_module as _xp_of
from ...ops import math as _m
from ...ops._base import GRAD_ENABLED, Tensor, broadcast_error, record, sum_to, wrap
from ...ops._select import select
from ._activation import log_softmax, logsigmoid, relu, softmax, softplus
from ._linear import _one_hot_array, _take_rows, pairwise_distance

__all__ = ["l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "cross_entropy", "nll_loss", "kl_div", "poisson_nll_loss",
           "gaussian_nll_loss", "cosine_embedding_loss", "margin_ranking_loss", "triplet_margin_loss",
           "triplet_margin_with_distance_loss", "hinge_embedding_loss", "multilabel_soft_margin_loss",
           "soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss"]


# ------------------------------------------------------------------------------------------------------ helpers
def _legacy_reduction(size_average, reduce, emit_warning=True) -> str:
    """Map the deprecated ``size_average``/``reduce`` arguments to a ``reduction`` string, as PyTorch does."""
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                      stacklevel=3)
    return ret


def _get_reduction(reduction, size_average, reduce):
    if size_average is not None or reduce is not None:
        return _legacy_reduction(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _check_tensors(fn, **tensors):
    for name, t in tensors.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(t).__name__}")


def _warn_size(fn, input, target):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", stacklevel=3)


def _float_target(target, input):
    """Targets of regression losses: cast integer targets to the input's dtype (as a constant)."""
    if target._data.dtype != input._data.dtype and target._data.dtype.kind not in "fc":
        return wrap(target._data.astype(input._data.dtype))
    return target


# ---------------------------------------------------------------------------------------------- regression
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error ``|input - target|``, reduced by ``reduction`` (``'mean'``, ``'sum'`` or ``'none'``)."""
    _check_tensors("l1_loss", input=input, target=target)
    reduction = _get_reduction(reduction, size_average, reduce)
    _warn_size("l1_loss", input, target)
    loss = (input - _float_target(target, input)).abs()
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


class MseLossBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        input, target = self.saved_tensors
        reduction, in_shape, t_shape = self._ctx
        nf = self.next_functions
        n = max(input._data.size, target._data.size)
        scale = 2.0 / n if reduction == "mean" else 2.0
        if not GRAD_ENABLED[0]:
            g = grad._data
            diff = (input._data - target._data) * (g * scale if reduction != "none" else scale)
            if reduction == "none":
                diff = diff * g
            gi = wrap(_sum_to_array(diff, in_shape)) if nf[0] is not None else None
            gt = wrap(_sum_to_array(-diff, t_shape)) if len(nf) > 1 and nf[1] is not None else None
            return (gi, gt)
        from ...ops._base import sum_to
        d = (input - target) * scale * grad
        gi = sum_to(d, in_shape) if nf[0] is not None else None
        gt = sum_to(-d, t_shape) if len(nf) > 1 and nf[1] is not None else None
        return (gi, gt)


def _sum_to_array(a, shape):
    shape = tuple(shape)
    if a.shape == shape:
        return a
    lead = a.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape) if s == 1 and a.shape[i + lead] != 1)
    return a.sum(axis=axes).reshape(shape) if axes else a.reshape(shape)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error ``(input - target)^2``, reduced by ``reduction``."""
    _check_tensors("mse_loss", input=input, target=target)
    reduction = _get_reduction(reduction, size_average, reduce)
    _warn_size("mse_loss", input, target)
    target = _float_target(target, input)
    if weight is not None:
        return _reduce((input - target) ** 2 * weight, reduction)
    a, b = input._data, target._data
    if a.dtype != b.dtype:
        d = input - target
        return _reduce(d * d, reduction)
    try:
        diff = a - b
    except ValueError:
        raise broadcast_error(a.shape, b.shape) from None
    sq = diff * diff
    out = wrap(sq if reduction == "none" else (sq.mean() if reduction == "mean" else sq.sum()).astype(a.dtype))
    if GRAD_ENABLED[0] and (input._requires_grad or target._requires_grad):
        node = MseLossBackward0()
        node.save(input, target)
        node._ctx = (reduction, a.shape, b.shape)
        record(node, out, input, target)
    return out


class SmoothL1LossBackward0(Node):
    """PyTorch's smooth-L1 (``huber=False``) and Huber backward from the saved difference ``x = input - target``:
    ``-g`` where ``x <= -beta``, ``g`` where ``x >= beta``, else ``x * g / beta`` (Huber: ``-g*delta``, ``g*delta``
    and ``x * g``); a NaN difference gives NaN, an infinite one the gradient of the linear branch."""

    __slots__ = ()

    def apply(self, grad):
        diff, beta, huber = self._ctx
        if GRAD_ENABLED[0]:  # create_graph: the difference as a function of the inputs, for the second order
            a, b = self.saved_tensors
            x = a - b
            edge = grad * beta if huber else grad
            inner = x * grad if huber else x * grad / beta
            gx = _m.where(wrap(diff <= -beta), -edge, _m.where(wrap(diff >= beta), edge, inner))
        else:
            g = grad._data
            edge = g * beta if huber else g
            inner = diff * g
            if not huber:
                inner /= beta
            gx = wrap(select(diff <= -beta, -edge, select(diff >= beta, edge, inner)).astype(diff.dtype, copy=False))
        nf = self.next_functions
        return (sum_to(gx, self.shape_a) if nf[0] is not None else None,
                sum_to(-gx, self.shape_b) if nf[1] is not None else None)


def _smooth_l1(input, target, beta, huber):
    """Elementwise smooth-L1 (``0.5 z^2 / beta`` below ``beta``, else ``z - 0.5 beta``) or Huber (``0.5 z^2`` below
    ``delta``, else ``delta (z - 0.5 delta)``) loss of ``z = |input - target|``, rounded as PyTorch's kernels round
    it, with PyTorch's backward (:class:`SmoothL1LossBackward0`)."""
    a, b = input._data, target._data
    try:
        diff = a - b
    except ValueError:
        raise broadcast_error(a.shape, b.shape) from None
    z = input._xp.abs(diff)
    quad = 0.5 * z
    quad *= z
    if huber:
        lin = z - 0.5 * beta
        lin *= beta
    else:
        quad /= beta
        lin = z - 0.5 * beta
    out = wrap(select(z < beta, quad, lin).astype(diff.dtype, copy=False))
    if GRAD_ENABLED[0] and (input._requires_grad or target._requires_grad):
        node = SmoothL1LossBackward0()
        node.save(input, target)
        node._ctx = (diff, beta, huber)
        node.shape_a, node.shape_b = a.shape, b.shape
        record(node, out, input, target)
    return out


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """``0.5 x^2 / beta`` if ``|x| < beta`` else ``|x| - 0.5 beta``, with ``x = input - target``."""
    _check_tensors("smooth_l1_loss", input=input, target=target)
    reduction = _get_reduction(reduction, size_average, reduce)
    _warn_size("smooth_l1_loss", input, target)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    target = _float_target(target, input)
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    return _reduce(_smooth_l1(input, target, beta, huber=False), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """``0.5 x^2`` if ``|x| < delta`` else ``delta (|x| - 0.5 delta)``, with ``x = input - target``."""
    _check_tensors("huber_loss", input=input, target=target)
    reduction = _get_reduction(reduction, None, None)
    _warn_size("huber_loss", input, target)
    if delta <= 0:
        raise RuntimeError(f"huber_loss does not support non-positive values for delta, got {delta}.")
    loss = _smooth_l1(input, _float_target(target, input), delta, huber=True)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


# ------------------------------------------------------------------------------------------ binary classification
_BCE_EPS = 1e-12


class BinaryCrossEntropyBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        input, target, weight = self.saved_tensors
        reduction = self._ctx
        nf = self.next_functions
        n = input._data.size
        g = grad if reduction == "none" else (grad / n if reduction == "mean" else grad)
        x, t = input, target
        gi = gt = None
        if not GRAD_ENABLED[0]:
            xd, td, gd, xp = x._data, t._data, g._data, x._xp
            if nf[0] is not None:
                gi = gd * (xd - td) / xp.maximum((1 - xd) * xd, _BCE_EPS)
                if weight is not None:
                    gi = gi * weight._data
                gi = wrap(gi.astype(xd.dtype, copy=False))
            if len(nf) > 1 and nf[1] is not None:
                floor = math.exp(-100.0)  # the logs are clamped at -100, as in the forward
                gt = gd * (xp.log(xp.maximum(1 - xd, floor)) - xp.log(xp.maximum(xd, floor)))
                if weight is not None:
                    gt = gt * weight._data
                gt = wrap(gt.astype(xd.dtype, copy=False))
            return (gi, gt)
        if nf[0] is not None:
            gi = g * (x - t) / ((1 - x) * x).clamp_min(_BCE_EPS)
            if weight is not None:
                gi = gi * weight
        if len(nf) > 1 and nf[1] is not None:
            gt = g * ((1 - x).log().clamp_min(-100) - x.log().clamp_min(-100))
            if weight is not None:
                gt = gt * weight
        return (gi, gt)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """``-(t log(x) + (1 - t) log(1 - x))`` for probabilities ``x`` in [0, 1] (the logs are clamped at -100).

    Args:
        input (Tensor): probabilities, any shape.
        target (Tensor): same shape as ``input``, values in [0, 1].
        weight (Tensor, optional): rescaling weight broadcast to the input.
        reduction (str): ``'mean'`` (default), ``'sum'`` or ``'none'``.
    """
    _check_tensors("binary_cross_entropy", input=input, target=target)
    reduction = _get_reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) "
                         "is deprecated. Please ensure they have the same size.")
    target = _float_target(target, input)
    x, t, xp = input._data, target._data, input._xp
    if x.size and (xp.nanmin(x) < 0 or xp.nanmax(x) > 1):
        raise RuntimeError("all elements of input should be between 0 and 1")
    if weight is not None:
        weight = wrap(xp.broadcast_to(weight._data, x.shape)) if not weight._requires_grad else weight.expand(x.shape)
    with np.errstate(divide="ignore"):
        loss = -(t * xp.maximum(xp.log(x), -100) + (1 - t) * xp.maximum(xp.log1p(-x), -100))
    if weight is not None:
        loss = loss * weight._data
    loss = loss.astype(x.dtype, copy=False)
    out = wrap(loss if reduction == "none" else (loss.mean() if reduction == "mean" else loss.sum()).astype(x.dtype))
    if GRAD_ENABLED[0] and (input._requires_grad or target._requires_grad):
        node = BinaryCrossEntropyBackward0()
        node.save(input, target, weight)
        node._ctx = reduction
        record(node, out, input, target)
    return out


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """Sigmoid + binary cross-entropy in one numerically stable expression.

    ``loss = (1 - t) x + (1 + (p - 1) t) * softplus(-x)`` where ``p`` is ``pos_weight`` (1 by default), i.e.
    ``-[p t log sigmoid(x) + (1 - t) log(1 - sigmoid(x))]``.

    Args:
        input (Tensor): logits, any shape.
        target (Tensor): same shape, values in [0, 1].
        weight (Tensor, optional): rescaling weight broadcast to the input.
        pos_weight (Tensor, optional): weight of positive examples, broadcast along the last (class) dimension.
    """
    _check_tensors("binary_cross_entropy_with_logits", input=input, target=target)
    reduction = _get_reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    target = _float_target(target, input)
    sp = softplus(-input)  # log(1 + exp(-x)), stable
    if pos_weight is not None:
        log_weight = (pos_weight - 1) * target + 1
        loss = (1 - target) * input + log_weight * sp
    else:
        loss = (1 - target) * input + sp
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


# ------------------------------------------------------------------------------------------- classification
def _check_class_target(input, target, fn):
    in_shape, t_shape = input._data.shape, target._data.shape
    if len(in_shape) >= 2 and t_shape == in_shape[:1] + in_shape[2:] and target._data.dtype.kind in "iu":
        return  # the common, valid case
    if input.ndim == 0:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if target._data.dtype.kind not in "iu":
        raise RuntimeError(f"expected scalar type Long but found {target.dtype.scalar_name} (the target of {fn} "
                           "must hold class indices)")
    if input.ndim == 1:
        if target.ndim != 0:
            raise RuntimeError(f"{fn}: for an input of shape {list(input.shape)} (one sample, no batch dimension) the "
                               f"target must be a 0-d class index, got shape {list(target.shape)}")
        return
    if input.shape[0] != (target.shape[0] if target.ndim else -1):
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0] if target.ndim else 0}).")
    expected = (input.shape[0],) + tuple(input.shape[2:])
    if tuple(target.shape) != expected:
        raise RuntimeError(f"Expected target size {list(expected)}, got {list(target.shape)}")


def _class_weight(weight, n_classes, fn):
    if weight is None:
        return None
    if not isinstance(weight, Tensor):
        raise TypeError(f"{fn}(): argument 'weight' must be Tensor, not {type(weight).__name__}")
    if weight.ndim != 1 or weight.shape[0] != n_classes:
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes or no classes but "
                           f"got weight tensor of shape: {list(weight.shape)}")
    return weight


def _target_info(target_arr, n_classes, ignore_index, weight_arr, dtype):
    """Per-sample (safe class index, effective weight) with ignored samples weighted 0; checks the class range.

    The weight is None when every sample counts with weight 1 (the common case, which then skips the weighting).
    """
    t = target_arr if target_arr.dtype == np.intp else target_arr.astype(np.intp)
    if t.size:
        lo, hi = t.min(), t.max()
        all_valid = not (lo <= ignore_index <= hi)
    else:
        lo = hi = 0
        all_valid = True
    if all_valid:
        safe = t
    else:
        valid = t != ignore_index
        safe = _xp_of(t).where(valid, t, 0)
        lo, hi = (safe.min(), safe.max()) if safe.size else (0, 0)
    if lo < 0 or hi >= n_classes:
        bad = int(hi if hi >= n_classes else lo)
        raise IndexError(f"Target {bad} is out of bounds (the input has {n_classes} classes).")
    if weight_arr is None:
        w = None if all_valid else valid.astype(dtype)
    else:
        w = weight_arr[safe]
        if not all_valid:
            w = w * valid
    return safe, w


def _pick(x, safe):
    """``x[n, safe[n], ...]``: the entries of the target classes along dim 1."""
    xp = _xp_of(x)
    if x.ndim == 2:
        return x[xp.arange(x.shape[0]), safe]
    return xp.take_along_axis(x, safe[:, None], axis=1)[:, 0]


def _scatter_onehot(shape, safe, values, dtype):
    """An array of ``shape`` (N, C, ...) that is ``values`` at the target class positions and 0 elsewhere."""
    xp = _xp_of(safe)
    out = xp.zeros(shape, dtype=dtype)
    xp.put_along_axis(out, xp.expand_dims(safe, 1), xp.expand_dims(values, 1), axis=1)
    return out


class NllLossBackward0(Node):
    """The gradient of NLL w.r.t. its input is ``-coef`` at the target class of each sample: constant in the
    input and linear in the incoming gradient, so the composed form (for create_graph) is one multiplication."""

    __slots__ = ()

    def apply(self, grad):
        shape, safe, coef, reduction, dtype = self._ctx
        if reduction == "none":
            values = -coef if coef is not None else -_xp_of(safe).ones(safe.shape, dtype=dtype)
            pattern = _scatter_onehot(shape, safe, values, dtype)
            gexp = grad.unsqueeze(1)
        else:
            pattern = _scatter_onehot(shape, safe, -coef, dtype)
            gexp = grad
        if not GRAD_ENABLED[0]:
            return (wrap(pattern * gexp._data),)
        return (wrap(pattern) * gexp,)


def _as_batched(input, target):
    """Give a batch dimension to a single ``(C,)`` sample; returns the inputs and whether to drop it again."""
    if input.ndim == 1:
        return input.unsqueeze(0), target.reshape(1), True
    return input, target, False


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log likelihood: ``-w[t] * input[n, t]`` for log-probabilities ``input`` and class indices ``t``.

    Args:
        input (Tensor): ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)`` log-probabilities.
        target (Tensor): ``(N,)``, ``()`` or ``(N, d1, ...)`` class indices in ``[0, C)``.
        weight (Tensor, optional): ``(C,)`` rescaling weight per class.
        ignore_index (int): a target value that contributes nothing (and is not counted by the mean).
        reduction (str): ``'mean'`` divides by the total weight of the non-ignored targets.
    """
    _check_tensors("nll_loss", input=input, target=target)
    reduction = _get_reduction(reduction, size_average, reduce)
    _check_class_target(input, target, "nll_loss")
    input, target, squeeze = _as_batched(input, target)
    x = input._data
    c = x.shape[1]
    weight = _class_weight(weight, c, "nll_loss")
    safe, w = _target_info(target._data, c, ignore_index, None if weight is None else weight._data, x.dtype)
    picked = _pick(x, safe)
    loss = -picked if w is None else -picked * w
    if reduction == "none":
        out_arr = loss.astype(x.dtype, copy=False)
        coef = w
        if squeeze:
            out_arr = out_arr.reshape(())
    else:
        xp = input._xp
        total = loss.sum()
        if reduction == "mean":
            denom = safe.size if w is None else w.sum()
            with np.errstate(invalid="ignore", divide="ignore"):
                out_arr = xp.asarray(total / denom, dtype=x.dtype)
            coef = (xp.ones(safe.shape, dtype=x.dtype) if w is None else w) / xp.asarray(denom, dtype=x.dtype) \
                if denom else xp.zeros(safe.shape, dtype=x.dtype)
        else:
            out_arr = xp.asarray(total, dtype=x.dtype)
            coef = xp.ones(safe.shape, dtype=x.dtype) if w is None else w
    out = wrap(out_arr)
    if GRAD_ENABLED[0] and input._requires_grad:
        node = NllLossBackward0()
        node._ctx = (x.shape, safe, coef, reduction, x.dtype)
        if squeeze and reduction == "none":
            node._ctx = (x.shape, safe, coef, reduction, x.dtype)
            inner = wrap(out_arr.reshape(1))
            record(node, inner, input)
            return inner.reshape(())
        record(node, out, input)
    return out


class CrossEntropyLossBackward0(Node):
    """Fused cross-entropy backward: ``(softmax(x) - onehot(t)) * coef`` with ``coef = grad * w[t] / denom``."""

    __slots__ = ()

    def apply(self, grad):
        e, s, safe, w, denom, reduction = self._ctx
        if GRAD_ENABLED[0]:
            return (self._composed(grad),)
        g = grad._data
        if reduction == "none":
            coef = g if w is None else g * w
        else:
            scale = g / denom if reduction == "mean" else g
            coef = scale if w is None else w * scale
        xp = _xp_of(e)
        coef = xp.asarray(coef, dtype=e.dtype)
        out = e * (coef / s)[:, None]
        if out.ndim == 2:
            out[xp.arange(out.shape[0]), safe] -= coef
        else:
            idx = safe[:, None]
            sub = coef[:, None] if coef.ndim else coef
            xp.put_along_axis(out, idx, xp.take_along_axis(out, idx, axis=1) - sub, axis=1)
        return (wrap(out),)

    def _composed(self, grad):
        """The same gradient with ember ops, so create_graph records it (double backward)."""
        (x,) = self.saved_tensors
        e, s, safe, w, denom, reduction = self._ctx
        dtype = e.dtype
        xp = _xp_of(e)
        p = softmax(x, 1)
        onehot = wrap(_scatter_onehot(e.shape, safe, xp.ones(safe.shape, dtype=dtype), dtype))
        if reduction == "none":
            coef = grad if w is None else grad * wrap(w)
        else:
            scale = grad / float(denom) if reduction == "mean" else grad
            coef = scale * wrap(xp.ones(safe.shape, dtype=dtype) if w is None else w)
        return (p - onehot) * coef.unsqueeze(1)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """Cross-entropy between the logits ``input`` and ``target`` (``log_softmax`` followed by NLL, fused).

    Args:
        input (Tensor): logits ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)``.
        target (Tensor): class indices ``(N,)``/``()``/``(N, d1, ...)`` in ``[0, C)``, or class probabilities with
            the input's shape.
        weight (Tensor, optional): ``(C,)`` rescaling weight per class.
        ignore_index (int): a target index that contributes nothing (class-index targets only).
        reduction (str): ``'mean'`` (weighted mean over non-ignored targets), ``'sum'`` or ``'none'``.
        label_smoothing (float): in [0, 1]; mixes the target with the uniform distribution.
    """
    if type(input) is not Tensor or type(target) is not Tensor:
        _check_tensors("cross_entropy", input=input, target=target)
    if size_average is not None or reduce is not None or reduction not in ("mean", "sum", "none"):
        reduction = _get_reduction(reduction, size_average, reduce)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if input._data.dtype.kind not in "fc":
        raise RuntimeError(f"\"log_softmax_lastdim_kernel_impl\" not implemented for '{input.dtype.scalar_name}'")
    if target._data.dtype.kind in "fc":
        if tuple(target.shape) != tuple(input.shape):
            raise RuntimeError(f"expected scalar type Long but found {target.dtype.scalar_name}: class-index targets "
                               f"must be integers, and probability targets must have the input's shape "
                               f"{list(input.shape)} (got {list(target.shape)})")
        return _cross_entropy_probs(input, target, weight, reduction, label_smoothing)
    _check_class_target(input, target, "cross_entropy")
    in_shape = input._data.shape
    c = in_shape[0] if len(in_shape) == 1 else in_shape[1]
    if weight is not None:
        weight = _class_weight(weight, c, "cross_entropy")
    if label_smoothing > 0.0 or (weight is not None and weight._requires_grad):
        return _cross_entropy_smoothed(input, target, weight, ignore_index, reduction, label_smoothing)
    batched, tgt, squeeze = _as_batched(input, target)
    x = batched._data
    safe, w = _target_info(tgt._data, c, ignore_index, None if weight is None else weight._data, x.dtype)
    # one pass: shift by the max, exponentiate in place, log of the sum
    xp = batched._xp
    z = x - x.max(axis=1, keepdims=True)
    zt = _pick(z, safe)
    e = xp.exp(z, out=z)
    s = e.sum(axis=1)
    nll = xp.log(s) - zt
    if w is not None:
        nll *= w
    denom = None
    if reduction == "none":
        out_arr = nll.astype(x.dtype, copy=False)
    elif reduction == "sum":
        out_arr = xp.asarray(nll.sum(), dtype=x.dtype)
    else:
        denom = nll.size if w is None else w.sum()
        with np.errstate(invalid="ignore", divide="ignore"):
            out_arr = xp.asarray(nll.sum() / denom, dtype=x.dtype)
    out = wrap(out_arr)
    if GRAD_ENABLED[0] and input._requires_grad:
        node = CrossEntropyLossBackward0()
        node.save(batched)
        node._ctx = (e, s, safe, w, denom, reduction)
        record(node, out, batched)
        if squeeze and reduction == "none":
            return out.reshape(())
        return out
    if squeeze and reduction == "none":
        out = wrap(out_arr.reshape(()))
    return out


def _broadcast_class_weight(weight, ndim):
    shape = [1] * ndim
    shape[1] = -1
    return weight.reshape(shape)


def _cross_entropy_smoothed(input, target, weight, ignore_index, reduction, label_smoothing):
    """Class-index targets with label smoothing (composed from log_softmax and nll_loss)."""
    batched, tgt, squeeze = _as_batched(input, target)
    c = batched.shape[1]
    logp = log_softmax(batched, 1)
    nll = nll_loss(logp, tgt, weight, ignore_index=ignore_index, reduction=reduction)
    t = tgt._data
    ignore = t == ignore_index
    if weight is not None:
        smooth = -(logp * _broadcast_class_weight(weight, batched.ndim)).sum(1)
    else:
        smooth = -logp.sum(1)
    if ignore.any():
        smooth = smooth * wrap((~ignore).astype(batched._data.dtype))
    if reduction == "mean":
        if weight is not None:
            kept = t[~ignore].astype(np.intp)
            denom = _take_rows(weight, kept).sum() if kept.size else weight.sum() * 0
            ret = smooth.sum() / denom
        else:
            ret = smooth.sum() / float((~ignore).sum())
    elif reduction == "sum":
        ret = smooth.sum()
    else:
        ret = smooth
    out = nll * (1 - label_smoothing) + ret * (label_smoothing / c)
    if squeeze and reduction == "none":
        out = out.reshape(())
    return out


def _cross_entropy_probs(input, target, weight, reduction, label_smoothing):
    """Probability targets: ``-sum_c w_c t_c log_softmax(x)_c``; the mean divides by the number of samples."""
    batched = input.unsqueeze(0) if input.ndim == 1 else input
    tgt = target.unsqueeze(0) if input.ndim == 1 else target
    c = batched.shape[1]
    weight = _class_weight(weight, c, "cross_entropy")
    logp = log_softmax(batched, 1)
    if label_smoothing > 0:
        tgt = tgt * (1 - label_smoothing) + label_smoothing / c
    prod = logp * tgt
    if weight is not None:
        prod = prod * _broadcast_class_weight(weight, batched.ndim)
    if reduction == "mean":
        n = batched.numel() // c if c else 0
        return -prod.sum() / n if n else -prod.sum() * float("nan")
    if reduction == "sum":
        return -prod.sum()
    out = -prod.sum(1)
    return out.reshape(()) if input.ndim == 1 else out


# ---------------------------------------------------------------------------------------------- distributions
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Kullback-Leibler divergence ``target * (log(target) - input)`` with ``input`` given as log-probabilities.

    Args:
        input (Tensor): log-probabilities.
        target (Tensor): probabilities, or log-probabilities if ``log_target``.
        reduction (str): ``'batchmean'`` (the KL divergence proper: sum / batch size), ``'sum'``, ``'mean'``
            (divides by the number of elements, with a warning) or ``'none'``.
        log_target (bool): whether ``target`` is in log space.
    """
    _check_tensors("kl_div", input=input, target=target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    target = _float_target(target, input)
    if log_target:
        loss = _m.exp(target) * (target - input)
    else:
        # xlogy(t, t) is 0 where t == 0
        loss = _m.xlogy(target, target) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.ndim != 0 else loss.sum()
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """Negative log likelihood of a Poisson target.

    ``exp(input) - target * input`` if ``log_input`` else ``input - target * log(input + eps)``; ``full`` adds the
    Stirling term ``t log t - t + 0.5 log(2 pi t)`` for ``t > 1``.
    """
    _check_tensors("poisson_nll_loss", input=input, target=target)
    reduction = _get_reduction(reduction, size_average, reduce)
    target = _float_target(target, input)
    if log_input:
        loss = _m.exp(input) - target * input
    else:
        loss = input - target * _m.log(input + eps)
    if full:
        small = target <= 1
        t = target.masked_fill(small, 1)  # keeps log() finite where the term is masked out anyway
        stirling = t * _m.log(t) - t + _m.log(t * (2 * math.pi)) * 0.5
        loss = loss + stirling.masked_fill(small, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Gaussian negative log likelihood ``0.5 (log(max(var, eps)) + (input - target)^2 / max(var, eps))``
    (plus ``0.5 log(2 pi)`` if ``full``).

    ``var`` has the input's shape, or that shape with the last dim of size 1 (homoscedastic), or without it; the
    clamp at ``eps`` does not block its gradient.
    """
    _check_tensors("gaussian_nll_loss", input=input, target=target)
    if isinstance(var, (int, float)):
        var = wrap(input._xp.full(input._data.shape, var, dtype=input._data.dtype))
    _check_tensors("gaussian_nll_loss", var=var)
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1:
            pass
        else:
            raise ValueError(f"var is of incorrect size: got {list(var.shape)} for input of shape "
                             f"{list(input.shape)}")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if (var._data < 0).any():
        raise ValueError("var has negative entry/entries")
    # clamp for stability without stopping the gradient (PyTorch clamps a clone under no_grad)
    shift = var._xp.maximum(var._data, eps) - var._data
    var = var + wrap(shift.astype(var._data.dtype))
    target = _float_target(target, input)
    loss = (_m.log(var) + (input - target) ** 2 / var) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


# --------------------------------------------------------------------------------------------- margin losses
def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    """``1 - cos(x1, x2)`` for ``target == 1``, ``max(0, cos(x1, x2) - margin)`` for ``target == -1``."""
    _check_tensors("cosine_embedding_loss", input1=input1, input2=input2, target=target)
    reduction = _get_reduction(reduction, size_average, reduce)
    if input1.ndim != input2.ndim or tuple(input1.shape) != tuple(input2.shape):
        raise RuntimeError(f"cosine_embedding_loss: input1 and input2 must have the same shape, got "
                           f"{list(input1.shape)} and {list(input2.shape)}")
    if input1.ndim not in (1, 2):
        raise RuntimeError(f"cosine_embedding_loss: expected 1D or 2D input, got {input1.ndim}D")
    dim = input1.ndim - 1
    eps = 1e-12
    prod = (input1 * input2).sum(dim)
    mag1 = (input1 * input1).sum(dim) + eps
    mag2 = (input2 * input2).sum(dim) + eps
    cos = prod / (mag1 * mag2).sqrt()
    t = target._data
    pos = wrap((t == 1).astype(input1._data.dtype))
    neg = wrap((t == -1).astype(input1._data.dtype))
    loss = pos * (1 - cos) + neg * relu(cos - margin)
    return _reduce(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``."""
    _check_tensors("margin_ranking_loss", input1=input1, input2=input2, target=target)
    reduction = _get_reduction(reduction, size_average, reduce)
    if not (input1.ndim == input2.ndim == target.ndim):
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    loss = relu(-target * (input1 - input2) + margin)
    return _reduce(loss, reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """``x`` where ``target == 1``, ``max(0, margin - x)`` where ``target == -1``."""
    _check_tensors("hinge_embedding_loss", input=input, target=target)
    reduction = _get_reduction(reduction, size_average, reduce)
    t = target._xp.broadcast_to(target._data, np.broadcast_shapes(target._data.shape, input._data.shape))
    dtype = input._data.dtype
    not_pos = wrap((t != 1).astype(dtype))
    not_neg = wrap((t != -1).astype(dtype))
    loss = not_pos * relu(margin - input) + not_neg * input
    return _reduce(loss, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-target * input))`` (two-class logistic loss with targets in {-1, 1})."""
    _check_tensors("soft_margin_loss", input=input, target=target)
    reduction = _get_reduction(reduction, size_average, reduce)
    loss = softplus(-_float_target(target, input) * input)
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Multi-label one-versus-all logistic loss, averaged over the ``C`` classes of each sample."""
    _check_tensors("multilabel_soft_margin_loss", input=input, target=target)
    reduction = _get_reduction(reduction, size_average, reduce)
    target = _float_target(target, input)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    c = input.shape[class_dim]
    loss = loss.sum(class_dim) / c
    return _reduce(loss, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with ``d`` the p-norm pairwise distance.

    ``swap=True`` uses ``min(d(a, n), d(p, n))`` as the negative distance (the distance swap of Balntas et al.).
    """
    _check_tensors("triplet_margin_loss", anchor=anchor, positive=positive, negative=negative)
    reduction = _get_reduction(reduction, size_average, reduce)
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim == n_dim):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs")
    if margin <= 0:
        raise ValueError(f"triplet_margin_loss: expected margin to be greater than 0, got {margin} instead")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _m.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce(relu(d_pos - d_neg + margin), reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    """:func:`triplet_margin_loss` with a custom ``distance_function(x, y)`` (pairwise L2 by default)."""
    _check_tensors("triplet_margin_with_distance_loss", anchor=anchor, positive=positive, negative=negative)
    reduction = _get_reduction(reduction, None, None)
    if margin <= 0:
        raise ValueError(f"triplet_margin_with_distance_loss: expected margin to be greater than 0, got {margin} "
                         "instead")
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = _m.minimum(d_neg, dist(positive, negative))
    return _reduce(relu(d_pos - d_neg + margin), reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """Multi-class hinge loss: ``sum_{i != y} max(0, margin - x[y] + x[i])^p / C`` per sample."""
    _check_tensors("multi_margin_loss", input=input, target=target)
    reduction = _get_reduction(reduction, size_average, reduce)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    x = input if input.ndim == 2 else input.reshape(1, -1)
    n, c = x.shape
    t = target._data.reshape(-1).astype(np.intp)
    if t.size != n:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    if t.size and (t.min() < 0 or t.max() >= c):
        raise IndexError(f"target out of range: targets must be in [0, {c}), got {int(t.min())}..{int(t.max())}")
    dtype = x._data.dtype
    onehot = _one_hot_array(x._xp, t, c, dtype)
    xy = (x * wrap(onehot)).sum(1, keepdim=True)
    z = relu(x - xy + margin)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * _take_rows(weight, t).unsqueeze(1)
    loss = (z * wrap(1 - onehot)).sum(1) / c
    if input.ndim != 2:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-label hinge loss: for each sample, ``sum_{j in targets, i not in targets} max(0, 1 - (x[j] - x[i])) / C``.

    ``target`` holds class indices padded with -1 after the last one (the first -1 ends the list).
    """
    _check_tensors("multilabel_margin_loss", input=input, target=target)
    reduction = _get_reduction(reduction, size_average, reduce)
    x = input if input.ndim == 2 else input.reshape(1, -1)
    n, c = x.shape
    xp = x._xp
    t = target._data.reshape(n, c).astype(np.intp)
    listed = xp.cumsum(t < 0, axis=1) == 0  # the entries before the first negative one
    samples, slots = xp.nonzero(listed)
    is_target = xp.zeros((n, c), dtype=bool)
    is_target[samples, t[samples, slots]] = True
    pair = (is_target[:, :, None] & ~is_target[:, None, :]).astype(x._data.dtype)  # 1 for target j, non-target i
    diff = relu(1 - (x.unsqueeze(2) - x.unsqueeze(1)))  # (n, j, i): 1 - (x_j - x_i)
    loss = (diff * wrap(pair)).sum((1, 2)) / c
    if input.ndim != 2:
        loss = loss.reshape(())
    return _reduce(loss, reduction)
