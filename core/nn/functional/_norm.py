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

from ... import threads
from ...device import array_module as _xp_of  # the one array-module lookup (core/device.py)
from ...autograd.graph import Node
from ...ops._base import GRAD_ENABLED, Tensor, record, sum_to, wrap
from ._sums import as_shape, sum_leading, sum_trailing

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
    lay = None
    if g.shape == xhat.shape and xhat.flags.c_contiguous:
        g = _xp_of(g).ascontiguousarray(g)  # e.g. the broadcast gradient of a sum()
        lay = _layout(g, axes, w, b_shape)
    if lay is not None:
        return _fast_backward(lay, g, xhat, invstd, w, b_shape, need_x, need_w, need_b)
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


# Fast paths for the two common layouts of contiguous float inputs, viewed as 3-D ``(lead, mid, k)``:
# * "channel" (batch norm: statistics over every axis but 1): ``(N, C, spatial)``, statistics per ``mid``;
# * "rows" (layer norm: statistics over trailing axes): ``(rows, 1, k)``, statistics per ``lead``.
# Sums are BLAS matrix-vector products, sums of products are einsum (no temporary the size of the input), and the
# elementwise passes write into preallocated outputs in parts of the leading axis, spread over ember's threads.
class _Layout:
    __slots__ = ("kind", "shape", "stats_shape")

    def __init__(self, kind, shape, stats_shape):
        self.kind, self.shape, self.stats_shape = kind, shape, stats_shape


def _layout(a, axes, w, b_shape):
    """The fast layout of ``a`` for statistics over ``axes`` with affine ``w``/bias of ``b_shape``, or None."""
    if a.dtype.kind != "f" or a.dtype.itemsize < 4 or not a.flags.c_contiguous or a.size == 0 or a.ndim < 2:
        return None
    nd = a.ndim
    ax = sorted(i % nd for i in axes)
    stats_shape = tuple(1 if i in ax else n for i, n in enumerate(a.shape))
    if ax == [0] + list(range(2, nd)):
        n, c = a.shape[:2]
        lay = _Layout("channel", (n, c, a.size // (n * c)), stats_shape)
        affine_shape = stats_shape
    elif ax == list(range(nd - len(ax), nd)):
        k = a.size // max(1, math.prod(a.shape[:nd - len(ax)]))
        lay = _Layout("rows", (a.size // k, 1, k), stats_shape)
        affine_shape = a.shape[nd - len(ax):]
    else:
        return None
    for shape in (None if w is None else w.shape, b_shape):
        if shape is not None and tuple(shape) != tuple(affine_shape):
            return None
    return lay


def _sum_k(xp, a3):
    """Sums over the last axis of a 3-D array: ``(lead, mid)``."""
    return a3 @ xp.ones(a3.shape[2], dtype=a3.dtype)


def _stat(lay, xp, per_lead_mid):
    """Collapse ``(lead, mid)`` sums to the statistics of the layout, as ``(lead or 1, mid, 1)``."""
    if lay.kind == "channel":
        return per_lead_mid.sum(axis=0).reshape(1, -1, 1)
    return per_lead_mid.reshape(-1, 1, 1)


def _dot(lay, xp, a3, b3):
    """Per-statistic sums of ``a3 * b3``, as ``(lead or 1, mid, 1)``, without a temporary."""
    if lay.kind == "channel":
        return _over_batch_sum(lay, lambda lo, hi: xp.einsum("nck,nck->c", a3[lo:hi], b3[lo:hi])).reshape(1, -1, 1)
    return xp.einsum("rck,rck->r", a3, b3).reshape(-1, 1, 1)


def _sums(lay, xp, a3):
    """Per-statistic sums of ``a3``, as ``(lead or 1, mid, 1)``."""
    if lay.kind == "channel":
        return _over_batch_sum(lay, lambda lo, hi: _sum_k(xp, a3[lo:hi]).sum(axis=0)).reshape(1, -1, 1)
    return _stat(lay, xp, _sum_k(xp, a3))


def _over_batch_sum(lay, fn):
    """``fn(0, N)`` for batch-norm's per-channel sums, as partial sums over parts of the batch on ember's threads
    when large (added in part order: the result differs from one thread's only by float rounding)."""
    per = max(1, lay.shape[1] * lay.shape[2])
    parts = threads.map_parts(lay.shape[0], fn, grain=max(1, threads.ELEMENTWISE_GRAIN // per))
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return total


def _part(stat, lo, hi):
    return stat if stat.shape[0] == 1 else stat[lo:hi]


def _affine_view(lay, p):
    """A weight or bias array as it broadcasts against the 3-D view."""
    if p is None:
        return None
    return p.reshape(1, -1, 1) if lay.kind == "channel" else p.reshape(1, 1, -1)


def _over_lead(lay, fn):
    per = max(1, lay.shape[1] * lay.shape[2])
    threads.parallel_for(lay.shape[0], fn, grain=max(1, threads.ELEMENTWISE_GRAIN // per))


def _affine_into(xp, xh, w, b, out):
    """``out = xh * w + b`` (either may be None) in at most two passes, writing only into ``out``."""
    if w is not None:
        xp.multiply(xh, w, out=out)
        if b is not None:
            out += b
    elif b is not None:
        xp.add(xh, b, out=out)
    else:
        out[...] = xh


def _rows_forward(lay, data, w, b, eps):
    """Layer norm's forward as one parallel region: each part of the rows takes its statistics, centres, scales
    and applies the affine map while its rows are in cache (every step is per row, so the split changes nothing)."""
    xp = _xp_of(data)
    rows, k = lay.shape[0], lay.shape[2]
    x2 = data.reshape(rows, k)
    mean, var, invstd = (xp.empty((rows, 1), dtype=data.dtype) for _ in range(3))
    xhat, y = xp.empty_like(x2), xp.empty_like(x2)
    ones = xp.ones(k, dtype=data.dtype)
    w1 = None if w is None else w.reshape(k)
    b1 = None if b is None else b.reshape(k)

    def part(lo, hi):
        mu, vr, inv, xh, yp = mean[lo:hi], var[lo:hi], invstd[lo:hi], xhat[lo:hi], y[lo:hi]
        xp.matmul(x2[lo:hi], ones, out=mu[:, 0])
        mu *= 1.0 / k
        xp.subtract(x2[lo:hi], mu, out=xh)
        xp.einsum("rk,rk->r", xh, xh, out=vr[:, 0])
        vr *= 1.0 / k
        xp.add(vr, eps, out=inv)
        xp.sqrt(inv, out=inv)
        xp.divide(1.0, inv, out=inv)
        xh *= inv
        _affine_into(xp, xh, w1, b1, yp)
    threads.parallel_for(rows, part, grain=max(1, threads.ELEMENTWISE_GRAIN // k))
    shape, st = data.shape, lay.stats_shape
    return y.reshape(shape), xhat.reshape(shape), mean.reshape(st), var.reshape(st), invstd.reshape(st)


def _fast_forward(lay, data, w, b, eps):
    if lay.kind == "rows" and type(data).__module__ == "numpy":
        return _rows_forward(lay, data, w, b, eps)
    xp = _xp_of(data)
    x3 = data.reshape(lay.shape)
    cnt = data.size // (lay.shape[1] if lay.kind == "channel" else lay.shape[0])
    mean = _sums(lay, xp, x3)
    mean *= 1.0 / cnt
    xhat = xp.empty_like(x3)

    def centre(lo, hi):
        xp.subtract(x3[lo:hi], _part(mean, lo, hi), out=xhat[lo:hi])
    _over_lead(lay, centre)
    var = _dot(lay, xp, xhat, xhat)
    var *= 1.0 / cnt
    invstd = 1.0 / xp.sqrt(var + eps)
    w3, b3 = _affine_view(lay, w), _affine_view(lay, b)
    y = xp.empty_like(x3)

    def affine(lo, hi):
        xh, yp = xhat[lo:hi], y[lo:hi]
        xh *= _part(invstd, lo, hi)
        _affine_into(xp, xh, w3, b3, yp)
    _over_lead(lay, affine)
    shape = data.shape
    st = lay.stats_shape
    return y.reshape(shape), xhat.reshape(shape), mean.reshape(st), var.reshape(st), invstd.reshape(st)


def _fast_backward(lay, g, xhat, invstd, w, b_shape, need_x, need_w, need_b):
    xp = _xp_of(g)
    g3, xh3 = g.reshape(lay.shape), xhat.reshape(lay.shape)
    inv3 = invstd.reshape(1, -1, 1) if lay.kind == "channel" else invstd.reshape(-1, 1, 1)
    cnt = g.size // (lay.shape[1] if lay.kind == "channel" else lay.shape[0])
    gx = gw = gb = None
    if lay.kind == "channel":  # the affine sums are the statistics the input gradient needs
        sg = _sums(lay, xp, g3)
        sgx = _dot(lay, xp, g3, xh3)
        if need_b:
            gb = as_shape(sg, b_shape)
        if need_w:
            gw = as_shape(sgx, w.shape)
        if not need_x:
            return gx, gw, gb
        scale = inv3 if w is None else inv3 * w.reshape(1, -1, 1)
        shift, slope = sg * (-1.0 / cnt), sgx * (-1.0 / cnt)
        result = xp.empty(g.shape, dtype=g.dtype)  # a base array: a leaf can take it as .grad without a copy
        out = result.reshape(lay.shape)

        def grad_x(lo, hi):
            gp = out[lo:hi]
            xp.multiply(xh3[lo:hi], slope, out=gp)
            gp += g3[lo:hi]
            gp += shift
            gp *= scale
        _over_lead(lay, grad_x)
        return result, gw, gb
    # rows (layer norm): the affine parameters act along k, the statistics along the rows
    k = lay.shape[2]
    if need_b:
        gb = as_shape(xp.ones(lay.shape[0], dtype=g.dtype) @ g3.reshape(-1, k), b_shape)
    if need_w:
        gw = as_shape(xp.einsum("rck,rck->k", g3, xh3), w.shape)
    if not need_x:
        return gx, gw, gb
    g2, xh2 = g3.reshape(-1, k), xh3.reshape(-1, k)
    result = xp.empty(g.shape, dtype=g.dtype)
    out = result.reshape(-1, k)
    inv2 = invstd.reshape(-1, 1)
    ones = xp.ones(k, dtype=g.dtype)

    def grad_x(lo, hi):
        gp, xh = out[lo:hi], xh2[lo:hi]
        if w is None:
            gp[...] = g2[lo:hi]
        else:
            xp.multiply(g2[lo:hi], w.reshape(k), out=gp)  # gxhat
        m1 = (gp @ ones)[:, None]  # k * mean(gxhat) per row
        m2 = xp.einsum("rk,rk->r", gp, xh)[:, None]  # k * mean(gxhat * xhat) per row
        gp -= m1 * (1.0 / k)
        tmp = xp.multiply(xh, m2 * (1.0 / k))
        gp -= tmp
        gp *= inv2[lo:hi]
    threads.parallel_for(out.shape[0], grad_x, grain=max(1, threads.ELEMENTWISE_GRAIN // k))
    return result, gw, gb


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
    lay = _layout(data, axes, None if weight is None else weight._data, None if bias is None else bias._data.shape)
    if lay is not None:
        y, xhat, mean, var, invstd = _fast_forward(lay, data, None if weight is None else weight._data,
                                                   None if bias is None else bias._data, eps)
        return _finish_forward(x, weight, bias, axes, eps, y, xhat, mean, var, invstd)
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
    return _finish_forward(x, weight, bias, axes, eps, y, xhat, mean, var, invstd)


def _finish_forward(x, weight, bias, axes, eps, y, xhat, mean, var, invstd):
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
