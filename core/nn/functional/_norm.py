"""Normalization: ``batch_norm``, ``instance_norm``, ``layer_norm``, ``group_norm`` and ``local_response_norm``.

The first four share one fused op, ``normalize_affine``: statistics over some axes, then the optional elementwise
affine, with the classic closed-form backward

    gx = invstd * (gxhat - mean(gxhat) - xhat * mean(gxhat * xhat)),   gxhat = gy * weight

run in NumPy. Under ``create_graph`` the same formula is evaluated with ember ops (recomputing the statistics from
the saved input, so the graph sees their dependence on it), which gives second-order gradients.

They differ only in which axes the statistics cover (batch-norm: all but the channel; instance-norm: the spatial
axes; layer-norm: the trailing ``normalized_shape``; group-norm: each group of channels) and in running statistics.
"""
from __future__ import annotations

import math
import numbers

from ...autograd.graph import Node
from ...ops._base import GRAD_ENABLED, Tensor, record, sum_to, wrap
from ._sums import sum_leading, sum_trailing

__all__ = ["batch_norm", "instance_norm", "layer_norm", "group_norm", "local_response_norm"]


# --------------------------------------------------------------------------------------------- the fused op
def _trailing(axes, ndim):
    """How many trailing axes ``axes`` are (layer norm), or 0 when they are not exactly the last ones."""
    axes = sorted(a % ndim for a in axes)
    return len(axes) if axes and axes == list(range(ndim - len(axes), ndim)) else 0


def _mean(xp, a, axes):
    """``a.mean(axes, keepdims=True)``; over trailing axes as a BLAS product (``_sums``)."""
    trail = _trailing(axes, a.ndim)
    if trail:
        out = sum_trailing(xp, a, trail)
        out *= 1.0 / (a.size // max(1, out.size)) if a.size else 1.0
        return out
    return a.mean(axis=axes, keepdims=True)


def _sum_to_array(a, shape):
    """Sum array ``a`` down to the broadcastable ``shape``."""
    lead = a.ndim - len(shape)
    if shape == a.shape[lead:] and lead:  # layer norm's weight and bias: the leading axes only
        return sum_leading(_xp_of(a), a, lead)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape) if s == 1 and a.shape[i + lead] != 1)
    out = a.sum(axis=axes, keepdims=True) if axes else a
    return out.reshape(shape)


class NativeNormBackward0(Node):
    """Backward of :func:`normalize_affine`; ``_ctx = (axes, eps, xhat, invstd)``: the normalised input and the
    inverse standard deviation kept from the forward, so nothing is recomputed."""

    __slots__ = ()

    def apply(self, grad):
        x, w, b = self.saved_tensors
        axes, eps, xhat, invstd = self._ctx
        nf = self.next_functions
        need_x, need_w, need_b = nf[0] is not None, nf[1] is not None, nf[2] is not None
        if GRAD_ENABLED[0]:
            return _composed_backward(grad, x, w, b, axes, eps, need_x, need_w, need_b)
        gx, gw, gb = _backward_arrays(grad._data, xhat, invstd, None if w is None else w._data,
                                      None if b is None else b._data.shape, axes, need_x, need_w, need_b)
        return (None if gx is None else wrap(gx), None if gw is None else wrap(gw),
                None if gb is None else wrap(gb))


def _backward_arrays(g, xhat, invstd, w, b_shape, axes, need_x, need_w, need_b):
    """``gx = invstd * w * (g - mean(g) - xhat * mean(g * xhat))`` plus the affine gradients, in few passes.

    When the weight has the statistics' shape (batch norm) its gradient ``sum(g * xhat)`` and the bias gradient
    ``sum(g)`` are the two reductions the input gradient needs, so each is computed once.
    """
    stats_shaped = w is None or w.shape == invstd.shape
    cnt = g.size // invstd.size
    gx = gw = gb = None
    sg = sgx = prod = None
    if need_x and stats_shaped:
        sg = g.sum(axis=axes, keepdims=True)
        prod = g * xhat
        sgx = prod.sum(axis=axes, keepdims=True)
    if need_b:
        gb = sg if sg is not None and b_shape == sg.shape else _sum_to_array(g, b_shape)
    if need_w:
        if sgx is not None and w.shape == sgx.shape:
            gw = sgx
        else:
            gw = _sum_to_array(g * xhat if prod is None else prod, w.shape)
    if not need_x:
        return gx, gw, gb
    if stats_shaped:
        scale = invstd if w is None else invstd * w
        gx = g - sg * (1.0 / cnt)
        tmp = prod if prod is not None else xhat.copy()
        xp = _xp_of(g)
        xp.multiply(xhat, sgx * (1.0 / cnt), out=tmp)
        gx -= tmp
        gx *= scale
        return gx, gw, gb
    xp = _xp_of(g)
    gxhat = g * w
    proj = _mean(xp, gxhat * xhat, axes)
    gx = gxhat - _mean(xp, gxhat, axes)
    gx -= xhat * proj
    gx *= invstd
    return gx, gw, gb


def _xp_of(a):
    from ...device import array_module
    return array_module(a)


def _composed_backward(grad, x, w, b, axes, eps, need_x, need_w, need_b):
    """The same gradients written with ember ops, for ``create_graph``."""
    mean = x.mean(axes, keepdim=True)
    centred = x - mean
    invstd = ((centred * centred).mean(axes, keepdim=True) + eps).pow(-0.5)
    xhat = centred * invstd
    gx = gw = gb = None
    if need_b:
        gb = sum_to(grad, b.shape)
    if need_w:
        gw = sum_to(grad * xhat, w.shape)
    if need_x:
        gxhat = grad * w if w is not None else grad
        gx = invstd * (gxhat - gxhat.mean(axes, keepdim=True) - xhat * (gxhat * xhat).mean(axes, keepdim=True))
    return gx, gw, gb


def normalize_affine(x: Tensor, axes, weight, bias, eps):
    """``(x - mean) / sqrt(var + eps) * weight + bias`` with biased statistics over ``axes``.

    ``weight``/``bias`` (or None) must broadcast against ``x``. Returns ``(output, mean, var)``; the statistics are
    arrays with kept dims, for running-statistics updates.
    """
    xp = x._xp
    data = x._data
    # passes: mean; centre; variance; normalise in place (kept for backward); affine into the output
    mean = _mean(xp, data, axes)
    xhat = data - mean
    sq = xhat * xhat
    var = _mean(xp, sq, axes)
    del sq
    invstd = 1.0 / xp.sqrt(var + eps)
    xhat *= invstd
    if weight is not None:
        y = xhat * weight._data
        if bias is not None:
            y += bias._data
    elif bias is not None:
        y = xhat + bias._data
    else:
        y = xhat.copy()
    out = wrap(y)
    if GRAD_ENABLED[0] and (x._requires_grad or (weight is not None and weight._requires_grad) or
                            (bias is not None and bias._requires_grad)):
        node = NativeNormBackward0()
        node.save(x, weight, bias)
        node._ctx = (axes, eps, xhat, invstd)
        record(node, out, x, weight, bias)
    return out, mean, var


def _affine_inference(x, mean, var, weight, bias, eps, shape):
    """``(x - mean) / sqrt(var + eps) * weight + bias`` with fixed statistics, as two differentiable passes."""
    scale = (var + eps).pow(-0.5)
    if weight is not None:
        scale = scale * weight
    shift = -mean * scale
    if bias is not None:
        shift = shift + bias
    return x * scale.reshape(shape) + shift.reshape(shape)


def _update_running(running, value, momentum):
    """``running = (1 - momentum) * running + momentum * value``, in place (no autograd)."""
    data = running._data
    data *= 1 - momentum
    data += momentum * value.reshape(data.shape).astype(data.dtype, copy=False)
    running._bump_version()


def _check_float(input, fn):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"{fn}(): expected a floating-point input, but got {input.dtype}")


def _check_param(t, name, shape, fn):
    if t is None:
        return
    if not isinstance(t, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' must be Tensor or None, not {type(t).__name__}")
    if tuple(t.shape) != tuple(shape):
        raise RuntimeError(f"{fn}(): expected {name} of shape {list(shape)}, but got {list(t.shape)}")


# ---------------------------------------------------------------------------------------------- batch norm
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05):
    r"""Batch normalization over the batch and spatial dimensions of an input :math:`(N, C, *)`.

    .. math:: y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} * \gamma + \beta

    In training the batch statistics are used (biased variance) and, when given, ``running_mean``/``running_var``
    are updated in place: ``running = (1 - momentum) * running + momentum * batch_stat`` (unbiased variance).
    Otherwise the running statistics are used.
    """
    _check_float(input, "batch_norm")
    if input.ndim < 2:
        raise ValueError(f"batch_norm(): expected at least 2D input (got {input.ndim}D input)")
    c = input.shape[1]
    shape = (1, c) + (1,) * (input.ndim - 2)
    for t, name in ((running_mean, "running_mean"), (running_var, "running_var"), (weight, "weight"),
                    (bias, "bias")):
        _check_param(t, name, (c,), "batch_norm")
    if not training:
        if running_mean is None or running_var is None:
            raise RuntimeError("batch_norm(): running_mean and running_var must be defined in evaluation mode")
        return _affine_inference(input, running_mean, running_var, weight, bias, eps, shape)
    count = input.numel() // c
    if count <= 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {list(input.shape)}")
    axes = (0,) + tuple(range(2, input.ndim))
    out, mean, var = normalize_affine(input, axes, None if weight is None else weight.reshape(shape),
                                      None if bias is None else bias.reshape(shape), eps)
    if running_mean is not None:
        _update_running(running_mean, mean, momentum)
    if running_var is not None:
        _update_running(running_var, var * (count / (count - 1)), momentum)
    return out


# ------------------------------------------------------------------------------------------- instance norm
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-05):
    r"""Instance normalization: normalize each channel of each sample over its spatial dimensions.

    ``input`` is :math:`(N, C, *)`. With ``use_input_stats`` the per-instance statistics are used and the running
    statistics (if given) are updated with their average over the batch; otherwise the running statistics are used.
    """
    _check_float(input, "instance_norm")
    if input.ndim < 3:
        raise ValueError(f"instance_norm(): expected at least 3D input (N, C, *), got {input.ndim}D input")
    c = input.shape[1]
    shape = (1, c) + (1,) * (input.ndim - 2)
    for t, name in ((running_mean, "running_mean"), (running_var, "running_var"), (weight, "weight"),
                    (bias, "bias")):
        _check_param(t, name, (c,), "instance_norm")
    if not use_input_stats:
        if running_mean is None or running_var is None:
            raise RuntimeError("instance_norm(): expected running_mean and running_var to be defined when "
                               "use_input_stats is False")
        return _affine_inference(input, running_mean, running_var, weight, bias, eps, shape)
    count = math.prod(input.shape[2:])
    if count <= 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {list(input.shape)}")
    axes = tuple(range(2, input.ndim))
    out, mean, var = normalize_affine(input, axes, None if weight is None else weight.reshape(shape),
                                      None if bias is None else bias.reshape(shape), eps)
    if running_mean is not None:
        _update_running(running_mean, mean.mean(axis=0), momentum)
    if running_var is not None:
        _update_running(running_var, (var * (count / (count - 1))).mean(axis=0), momentum)
    return out


# ---------------------------------------------------------------------------------------------- layer norm
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    r"""Layer normalization over the trailing ``normalized_shape`` dimensions.

    .. math:: y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} * \gamma + \beta

    ``weight`` and ``bias`` (if given) have shape ``normalized_shape`` and are applied elementwise.
    """
    _check_float(input, "layer_norm")
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (int(normalized_shape),)
    normalized_shape = tuple(normalized_shape)
    k = len(normalized_shape)
    if k == 0 or input.ndim < k or tuple(input.shape[input.ndim - k:]) != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, normalized_shape))}], but got input of size{list(input.shape)}")
    _check_param(weight, "weight", normalized_shape, "layer_norm")
    _check_param(bias, "bias", normalized_shape, "layer_norm")
    axes = tuple(range(input.ndim - k, input.ndim))
    return normalize_affine(input, axes, weight, bias, eps)[0]


# ---------------------------------------------------------------------------------------------- group norm
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    r"""Group normalization: split the channels of :math:`(N, C, *)` into ``num_groups`` groups and normalize each
    group of each sample; ``weight``/``bias`` of shape :math:`(C)` are applied per channel."""
    _check_float(input, "group_norm")
    if input.ndim < 2:
        raise RuntimeError(f"group_norm(): expected at least 2D input (N, C, *), got {input.ndim}D input")
    n, c = input.shape[:2]
    if not isinstance(num_groups, numbers.Integral) or num_groups <= 0 or c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    _check_param(weight, "weight", (c,), "group_norm")
    _check_param(bias, "bias", (c,), "group_norm")
    spatial = tuple(input.shape[2:])
    grouped = input.reshape((n, num_groups, c // num_groups) + spatial)
    shape = (1, num_groups, c // num_groups) + (1,) * len(spatial)
    axes = tuple(range(2, grouped.ndim))
    out = normalize_affine(grouped, axes, None if weight is None else weight.reshape(shape),
                           None if bias is None else bias.reshape(shape), eps)[0]
    return out.reshape(input.shape)


# ------------------------------------------------------------------------------------ local response norm
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    r"""Local response normalization across channels of :math:`(N, C, *)`:

    .. math:: b_c = a_c \left(k + \frac{\alpha}{n} \sum_{c'=\max(0, c-n/2)}^{\min(N-1,c+n/2)} a_{c'}^2\right)^{-\beta}
    """
    from ._padding import pad
    from ._pooling import avg_pool2d
    _check_float(input, "local_response_norm")
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.ndim} dimensions)")
    if input.numel() == 0:
        return input
    n, c = input.shape[:2]
    sq = (input * input).reshape(n, 1, c, -1)
    sq = pad(sq, (0, 0, size // 2, (size - 1) // 2))
    div = avg_pool2d(sq, (size, 1), stride=1).reshape(input.shape)
    return input / (div * alpha + k).pow(beta)
