"""Pooling: max, average, adaptive, power-average (Lp) and max-unpooling, in 1-D and 2-D.

Windows are never materialised. A pooling window of ``kh x kw`` taps is a sum (or max) of ``kh*kw`` strided slices
of the (padded) input, each slice holding one tap of every window: for the common 2x2/stride-2 max-pool that is
four slices combined with ``np.maximum``, about twenty times faster than reshaping into windows and reducing.

Max-pooling's forward also records, per window, the index in window order of the tap holding the maximum (the
first one on ties, PyTorch's rule; a ``uint8`` when the window has at most 256 taps). The backward routes each
output's gradient through those indices: one compare and one multiply per tap, written straight into place when
windows do not overlap (``+=`` otherwise). The backward of average pooling is its adjoint, the same strided slices
accumulated with ``+=``. Every op's backward is itself differentiable (average pooling and its adjoint call each
other; max pooling's backward becomes ``scatter_add``/``gather`` with the plane indices under ``create_graph``), so
second-order gradients work. Large batches are split over images across ember's threads.

1-D pooling runs through the 2-D kernels with a height of one.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ... import threads
from ...autograd.graph import Node
from ...ops._base import GRAD_ENABLED, Tensor, record, wrap
from ...device import array_module as _xp_of  # the one array-module lookup (core/device.py)
from ._conv import _ntuple

__all__ = ["max_pool1d", "max_pool2d", "max_pool1d_with_indices", "max_pool2d_with_indices", "avg_pool1d",
           "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool1d",
           "adaptive_max_pool2d", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "lp_pool1d", "lp_pool2d", "max_unpool1d", "max_unpool2d"]


# ---------------------------------------------------------------------------------------------------- geometry
def pool_out_len(size, k, pad, stride, dilation, ceil_mode):
    """PyTorch's pooling output length, including the ``ceil_mode`` rule that the last window must start inside the
    input or its left padding."""
    span = size + 2 * pad - dilation * (k - 1) - 1
    out = (span + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


class PoolGeometry:
    """Window geometry of one 2-D pooling call (all pairs are ``(height, width)``)."""

    __slots__ = ("kernel", "stride", "pad", "dilation", "in_size", "out_size")

    def __init__(self, kernel, stride, pad, dilation, in_size, out_size):
        self.kernel, self.stride, self.pad, self.dilation = kernel, stride, pad, dilation
        self.in_size, self.out_size = in_size, out_size

    @property
    def span(self):
        """The extent of input (padding included) touched by the windows."""
        return tuple((o - 1) * s + d * (k - 1) + 1 for o, s, d, k in
                     zip(self.out_size, self.stride, self.dilation, self.kernel))

    def taps(self):
        """``(i, j, (row_slice, col_slice))`` for every kernel tap, in window (row-major) order."""
        (kh, kw), (s1, s2), (d1, d2), (oh, ow) = self.kernel, self.stride, self.dilation, self.out_size
        for i in range(kh):
            rs = slice(i * d1, i * d1 + (oh - 1) * s1 + 1, s1)
            for j in range(kw):
                yield i, j, (rs, slice(j * d2, j * d2 + (ow - 1) * s2 + 1, s2))


def _framed(xp, x, g: PoolGeometry, fill):
    """``x`` placed in a frame of ``fill`` covering every window (the padding, plus the overhang of ``ceil_mode``);
    ``x`` itself when no frame is needed."""
    (h, w), (p1, p2), (sh, sw) = g.in_size, g.pad, g.span
    if p1 == 0 and p2 == 0 and sh <= h and sw <= w:
        return x
    out = xp.full(x.shape[:-2] + (sh, sw), fill, dtype=x.dtype)
    hh, ww = min(h, sh - p1), min(w, sw - p2)
    out[..., p1:p1 + hh, p2:p2 + ww] = x[..., :hh, :ww]
    return out


def _unframe(xp, framed, g: PoolGeometry):
    """The inverse of :func:`_framed` for gradients: crop the frame (the input's extra rows get zero)."""
    (h, w), (p1, p2), (sh, sw) = g.in_size, g.pad, g.span
    if p1 == 0 and p2 == 0 and sh == h and sw == w:
        return framed
    out = xp.zeros(framed.shape[:-2] + (h, w), dtype=framed.dtype)
    hh, ww = min(h, sh - p1), min(w, sw - p2)
    out[..., :hh, :ww] = framed[..., p1:p1 + hh, p2:p2 + ww]
    return out


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


# ------------------------------------------------------------------------------------------------- validation
def _pool_args(input, kernel_size, stride, padding, dilation, ceil_mode, nd, fn, max_pool):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input.ndim not in (nd + 1, nd + 2) or any(s == 0 for s in input.shape[-nd - 1:]):
        raise RuntimeError(f"{fn}(): expected a {nd + 1}D (unbatched) or {nd + 2}D (batched, possibly of size 0) "
                           f"input with non-zero channel and spatial sizes, but got input of size: "
                           f"{list(input.shape)}")
    kernel = _ntuple(kernel_size, nd, "kernel_size", fn)
    stride = kernel if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0) else \
        _ntuple(stride, nd, "stride", fn)
    pad = _ntuple(padding, nd, "padding", fn)
    dil = _ntuple(dilation, nd, "dilation", fn)
    if any(k <= 0 for k in kernel):
        raise ValueError(f"{fn}(): kernel_size must be greater than zero, but got kernel_size={kernel}")
    if any(s <= 0 for s in stride):
        raise ValueError(f"{fn}(): stride must be greater than zero, but got stride={stride}")
    if any(d <= 0 for d in dil):
        raise ValueError(f"{fn}(): dilation must be greater than zero, but got dilation={dil}")
    for p, k, d in zip(pad, kernel, dil):
        if p < 0 or (max_pool and p > (d * (k - 1) + 1) // 2) or (not max_pool and p > k // 2):
            what = "effective kernel size" if max_pool else "kernel size"
            raise ValueError(f"{fn}(): pad should be at most half of {what}, but got padding={pad}, "
                             f"kernel_size={kernel}" + (f" and dilation={dil}" if max_pool else ""))
    x = input if input.ndim == nd + 2 else input.unsqueeze(0)
    spatial = tuple(x.shape[2:])
    out = tuple(pool_out_len(s, k, p, st, d, ceil_mode) for s, k, p, st, d in zip(spatial, kernel, pad, stride, dil))
    if any(o <= 0 for o in out):
        raise RuntimeError(f"{fn}(): given input size ({'x'.join(map(str, x.shape[1:]))}), kernel_size={kernel}, "
                           f"stride={stride}, padding={pad}, dilation={dil}: calculated output size "
                           f"({'x'.join(map(str, (x.shape[1],) + out))}) is too small")
    if nd == 1:
        x = x.unsqueeze(2)
        g = PoolGeometry((1,) + kernel, (1,) + stride, (0,) + pad, (1,) + dil, (1,) + spatial, (1,) + out)
    else:
        g = PoolGeometry(kernel, stride, pad, dil, spatial, out)
    return x, g


def _finish(out, input, nd):
    """Undo the batch/height dims added for the 2-D kernels."""
    if nd == 1:
        out = out.squeeze(2)
    return out if input.ndim == nd + 2 else out.squeeze(0)


# ---------------------------------------------------------------------------------------------------- max pool
def _over_images(n, per_image, fn):
    """``fn(a, b)`` over parts of the batch ``range(n)``, on ember's threads when large (each part writes only its
    own images of preallocated outputs)."""
    threads.parallel_for(n, fn, grain=max(1, threads.ELEMENTWISE_GRAIN // max(1, per_image)))


def _tap_dtype(g):
    return np.uint8 if g.kernel[0] * g.kernel[1] <= 256 else np.int32


def _max_forward(x, g, with_taps):
    """The max over every window and, with ``with_taps``, the index in window order of the tap that holds it
    (``uint8`` for windows of up to 256 taps): PyTorch's indices, kept for the backward instead of re-comparing
    the input against the output there."""
    xp = _xp_of(x)
    n, c = x.shape[:2]
    out = xp.empty((n, c) + tuple(g.out_size), dtype=x.dtype)
    which = xp.empty(out.shape, dtype=_tap_dtype(g)) if with_taps else None

    def part(a, b):
        _max_forward_part(x[a:b], g, out[a:b], None if which is None else which[a:b])
    _over_images(n, x[:1].size, part)
    return out, which


def _max_forward_part(x, g, out, which):
    xp = _xp_of(x)
    xf = _framed(xp, x, g, _lowest(x.dtype))
    taps = list(g.taps())
    scratch = slabs = None
    if which is not None:
        scratch = xp.empty(which.shape, dtype=which.dtype)
        if all(e <= s for e, s in zip(_window_extent(g), g.stride)):
            # disjoint windows: copy each tap once into a contiguous slab (no bigger than the input), so the compare
            # and the maximum that follow run on contiguous data instead of reading the strided tap twice
            slabs = xp.empty((len(taps),) + out.shape, dtype=out.dtype)
            for t, (_, _, (rs, cs)) in enumerate(taps):
                slabs[t] = xf[..., rs, cs]
    for t, (_, _, (rs, cs)) in enumerate(taps):
        tap = xf[..., rs, cs] if slabs is None else slabs[t]
        if t == 0:
            out[...] = tap
            if which is not None:
                which.fill(0)
            continue
        if which is not None:
            # strictly greater: the first maximal tap of a window keeps the index (PyTorch's tie rule). ``t`` is
            # above every index so far, so ``max(which, hit * t)`` sets it where hit (copyto with ``where=`` is
            # ten times slower)
            xp.multiply(xp.greater(tap, out), which.dtype.type(t), out=scratch)
            xp.maximum(which, scratch, out=which)
        xp.maximum(out, tap, out=out)
    if which is not None and x.dtype.kind == "f" and not xp.isfinite(out.sum()):
        # NaN is the maximum (np.maximum propagates it); as in PyTorch the index is that of the last NaN tap, which
        # is above every index recorded before the first NaN. (A sum of one pass over the output finds a NaN; an
        # infinity or an overflow also lands here, where it changes nothing.)
        for t, (_, _, (rs, cs)) in enumerate(taps):
            xp.multiply(xp.isnan(xf[..., rs, cs]), which.dtype.type(t), out=scratch)
            xp.maximum(which, scratch, out=which)


def _plane_indices(which, g):
    """Flat indices into each input plane (PyTorch's ``return_indices`` values) from window-order tap indices."""
    xp = _xp_of(which)
    kw, (s1, s2), (d1, d2), (p1, p2), (oh, ow), w = g.kernel[1], g.stride, g.dilation, g.pad, g.out_size, g.in_size[1]
    which = which.astype(np.int64)
    rows = xp.arange(oh).reshape(oh, 1) * s1 - p1 + (which // kw) * d1
    cols = xp.arange(ow) * s2 - p2 + (which % kw) * d2
    return rows * w + cols


def _max_backward_array(gy, which, g):
    """Route each output's gradient to the tap ``which`` names (``+=`` handles overlapping windows)."""
    xp = _xp_of(gy)
    n, c = gy.shape[:2]
    gx = xp.empty((n, c) + tuple(g.in_size), dtype=gy.dtype)

    def part(a, b):
        _max_backward_part(gy[a:b], which[a:b], g, gx[a:b])
    _over_images(n, gx[:1].size, part)
    return gx


def _max_backward_part(gy, which, g, dst):
    """Write the input gradient of the images of ``gy`` into ``dst``."""
    xp = _xp_of(gy)
    (h, w), (p1, p2), span = g.in_size, g.pad, g.span
    framed = max(span[0], p1 + h), max(span[1], p2 + w)
    # windows that do not overlap own disjoint input elements: the product can be written straight into place;
    # when they also tile the whole input, no element is left to zero first
    disjoint = all(sp <= s for sp, s in zip(_window_extent(g), g.stride))
    tiled = disjoint and tuple(_window_extent(g)) == tuple(g.stride) and framed == tuple(span)
    if framed == (h, w) and not (p1 or p2):  # no frame: the taps are slices of the output itself
        gxf = dst
        if not tiled:
            gxf[...] = 0
    else:
        gxf = xp.zeros(gy.shape[:-2] + framed, dtype=gy.dtype)
    for t, (_, _, (rs, cs)) in enumerate(g.taps()):
        hit = which == t
        if disjoint:
            xp.multiply(gy, hit, out=gxf[..., rs, cs])
        else:
            gxf[..., rs, cs] += gy * hit
    if gxf is not dst:
        dst[...] = gxf[..., p1:p1 + h, p2:p2 + w]


def _window_extent(g: PoolGeometry):
    return tuple(d * (k - 1) + 1 for k, d in zip(g.kernel, g.dilation))


class MaxPool2DWithIndicesBackward0(Node):
    """Backward of max pooling from the window-order tap indices of the forward (``node.taps``, ``node.geometry``).
    Under ``create_graph`` the gradient is a differentiable ``scatter_add``."""

    __slots__ = ()

    def apply(self, grad):
        self.saved_tensors  # the input, saved as PyTorch does: an in-place change to it is an error here
        g = self.geometry
        if GRAD_ENABLED[0]:
            return (_scatter_planes(grad, _plane_indices(self.taps, g), g.in_size),)
        return (wrap(_max_backward_array(grad._data, self.taps, g)),)


def _scatter_planes(grad, idx, hw):
    """Differentiable: sum ``grad`` into zero planes of size ``hw`` at the flat plane indices ``idx``."""
    n, c = grad.shape[:2]
    per_plane = grad.numel() // max(n * c, 1)  # explicit sizes: -1 is ambiguous for an empty batch
    zeros = wrap(grad._xp.zeros((n, c, hw[0] * hw[1]), dtype=grad._data.dtype))
    return zeros.scatter_add(2, wrap(idx.reshape(n, c, per_plane)), grad.reshape(n, c, per_plane)).reshape(
        n, c, *hw)


def _gather_planes(x, idx):
    """Differentiable: ``x[n, c].flatten()[idx[n, c]]`` for every plane."""
    n, c, h, w = x.shape
    return x.reshape(n, c, h * w).gather(2, wrap(idx.reshape(n, c, idx.size // max(n * c, 1)))).reshape(idx.shape)


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, nd, fn):
    x, g = _pool_args(input, kernel_size, stride, padding, dilation, ceil_mode, nd, fn, True)
    need_grad = GRAD_ENABLED[0] and x._requires_grad
    y, which = _max_forward(x._data, g, need_grad or return_indices)
    out = wrap(y)
    if need_grad:
        node = MaxPool2DWithIndicesBackward0()
        node.save(x)
        node.taps, node.geometry = which, g
        record(node, out, x)
    out = _finish(out, input, nd)
    if not return_indices:
        return out
    return out, _finish(wrap(_plane_indices(which, g)), input, nd)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    r"""Apply 2-D max pooling over an input of shape :math:`(N, C, H, W)` or :math:`(C, H, W)`.

    Args:
        kernel_size: the size of the window, an int or ``(kH, kW)``.
        stride: the stride of the window; defaults to ``kernel_size``.
        padding: implicit negative-infinity padding on both sides (at most half the effective kernel size).
        dilation: the spacing between window elements.
        ceil_mode: use ``ceil`` instead of ``floor`` for the output size (windows may overhang the input end).
        return_indices: also return the flat index in each input plane of every maximum (for ``max_unpool2d``).

    The gradient of each output goes to the first maximal element of its window.
    """
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2, "max_pool2d")


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    r"""Apply 1-D max pooling over an input of shape :math:`(N, C, L)` or :math:`(C, L)`.

    Arguments as in :func:`max_pool2d`, with single ints.
    """
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 1, "max_pool1d")


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    """:func:`max_pool2d` returning ``(output, indices)``."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    """:func:`max_pool1d` returning ``(output, indices)``."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


# ---------------------------------------------------------------------------------------------------- avg pool
def _axis_counts(size, k, pad, stride, out, include_pad):
    """Per-output number of elements a window covers along one axis (PyTorch's divisor rule)."""
    start = np.arange(out) * stride - pad
    end = np.minimum(start + k, size + pad)
    if include_pad:
        return end - start
    return np.minimum(end, size) - np.maximum(start, 0)


def _avg_divisor(g: PoolGeometry, count_include_pad, divisor_override):
    if divisor_override is not None:
        return float(divisor_override)
    ch = _axis_counts(g.in_size[0], g.kernel[0], g.pad[0], g.stride[0], g.out_size[0], count_include_pad)
    cw = _axis_counts(g.in_size[1], g.kernel[1], g.pad[1], g.stride[1], g.out_size[1], count_include_pad)
    div = np.outer(ch, cw).astype(np.float64)
    if np.all(div == div.flat[0]):
        return float(div.flat[0])
    return div


class AvgPool2DBackward0(Node):
    """Backward of average pooling: the adjoint op, itself differentiable (its backward is average pooling)."""

    __slots__ = ()

    def apply(self, grad):
        return (_avg_pool_adjoint(grad, *self._ctx),)


class AvgPool2DBackwardBackward0(Node):
    """Backward of the adjoint of average pooling: average pooling again."""

    __slots__ = ()

    def apply(self, grad):
        return (_avg_pool_op(grad, *self._ctx),)


def _divisor_array(xp, div, dtype):
    return div if isinstance(div, float) else xp.asarray(div, dtype=dtype)


def _avg_pool_op(x, g, div):
    xp = x._xp
    xf = _framed(xp, x._data, g, 0)
    acc = None
    for _, _, (rs, cs) in g.taps():
        tap = xf[..., rs, cs]
        if acc is None:
            acc = tap.copy()
        else:
            acc += tap
    acc /= _divisor_array(xp, div, acc.dtype)
    out = wrap(acc)
    if GRAD_ENABLED[0] and x._requires_grad:
        node = AvgPool2DBackward0()
        node._ctx = (g, div)
        record(node, out, x)
    return out


def _avg_pool_adjoint(grad, g, div):
    xp = grad._xp
    scaled = grad._data / _divisor_array(xp, div, grad._data.dtype)
    (sh, sw) = g.span
    (p1, p2), (h, w) = g.pad, g.in_size
    gxf = xp.zeros(grad._data.shape[:-2] + (max(sh, p1 + h), max(sw, p2 + w)), dtype=grad._data.dtype)
    for _, _, (rs, cs) in g.taps():
        gxf[..., rs, cs] += scaled
    out = wrap(xp.ascontiguousarray(gxf[..., p1:p1 + h, p2:p2 + w]))
    if GRAD_ENABLED[0] and grad._requires_grad:
        node = AvgPool2DBackwardBackward0()
        node._ctx = (g, div)
        record(node, out, grad)
    return out


def _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, nd, fn):
    x, g = _pool_args(input, kernel_size, stride, padding, 1, ceil_mode, nd, fn, False)
    if divisor_override is not None and (not isinstance(divisor_override, numbers.Number) or divisor_override == 0):
        raise ValueError(f"{fn}(): divisor_override must be a non-zero number, but got {divisor_override!r}")
    if x._data.dtype.kind not in "f":
        raise RuntimeError(f"{fn}(): expected a floating-point input, but got {input.dtype}")
    div = _avg_divisor(g, count_include_pad, divisor_override)
    return _finish(_avg_pool_op(x, g, div), input, nd)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    r"""Apply 2-D average pooling over an input of shape :math:`(N, C, H, W)` or :math:`(C, H, W)`.

    Args:
        kernel_size: the size of the window.
        stride: the stride of the window; defaults to ``kernel_size``.
        padding: implicit zero padding on both sides (at most half the kernel size).
        ceil_mode: use ``ceil`` instead of ``floor`` for the output size.
        count_include_pad: include the zero padding in the averaging divisor.
        divisor_override: if given, divide every window sum by this number instead.
    """
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 2,
                     "avg_pool2d")


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    r"""Apply 1-D average pooling over an input of shape :math:`(N, C, L)` or :math:`(C, L)`.

    Arguments as in :func:`avg_pool2d`, with single ints.
    """
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1, "avg_pool1d")


# ---------------------------------------------------------------------------------------------------- Lp pool
def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, nd, fn):
    if not isinstance(norm_type, numbers.Number) or norm_type == 0:
        raise ValueError(f"{fn}(): norm_type must be a non-zero number, but got {norm_type!r}")
    kernel = _ntuple(kernel_size, nd, "kernel_size", fn)
    pooled = _avg_pool(input.pow(norm_type), kernel, stride, 0, ceil_mode, True, None, nd, fn)
    return (pooled * math.prod(kernel)).pow(1.0 / norm_type)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    r"""Apply 2-D power-average pooling: :math:`f(X) = \sqrt[p]{\sum_{x \in X} x^p}` over each window.

    ``norm_type`` is ``p`` (``p = 1`` is sum pooling); the other arguments are as in :func:`avg_pool2d`. If the sum of
    powers in a window is zero the gradient there is not defined.
    """
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2, "lp_pool2d")


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    r"""Apply 1-D power-average pooling; see :func:`lp_pool2d`."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1, "lp_pool1d")


# ---------------------------------------------------------------------------------------------------- adaptive
def _adaptive_sizes(output_size, spatial, nd, fn):
    if isinstance(output_size, numbers.Integral) and not isinstance(output_size, bool):
        output_size = (output_size,) * nd
    if not isinstance(output_size, (tuple, list)) or len(output_size) != nd:
        raise TypeError(f"{fn}(): output_size must be an int or a tuple of {nd} ints (or None), but got "
                        f"{output_size!r}")
    out = tuple(s if o is None else int(o) for o, s in zip(output_size, spatial))
    if any(o <= 0 for o in out):
        raise ValueError(f"{fn}(): elements of output_size must be greater than zero, but got {tuple(output_size)}")
    return out


def _adaptive_input(input, output_size, nd, fn):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input.ndim not in (nd + 1, nd + 2) or any(s == 0 for s in input.shape[-nd:]):
        raise RuntimeError(f"{fn}(): expected {nd + 1}D or {nd + 2}D input with non-zero spatial sizes, but got "
                           f"input of size: {list(input.shape)}")
    out = _adaptive_sizes(output_size, tuple(input.shape[-nd:]), nd, fn)
    return out


def _adaptive_bounds(size, out):
    """PyTorch's adaptive windows: ``[floor(i*size/out), ceil((i+1)*size/out))``."""
    i = np.arange(out)
    return (i * size) // out, -((-(i + 1) * size) // out)


def _averaging_matrix(size, out, dtype):
    start, end = _adaptive_bounds(size, out)
    cols = np.arange(size)
    inside = (cols >= start[:, None]) & (cols < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


def _adaptive_avg(input, output_size, nd, fn):
    out = _adaptive_input(input, output_size, nd, fn)
    spatial = tuple(input.shape[-nd:])
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"{fn}(): expected a floating-point input, but got {input.dtype}")
    dims = tuple(range(-nd, 0))
    if all(o == 1 for o in out):
        return input.mean(dims, keepdim=True)
    if all(s % o == 0 for s, o in zip(spatial, out)):
        kernel = tuple(s // o for s, o in zip(spatial, out))
        return _avg_pool(input, kernel, kernel, 0, False, True, None, nd, fn)
    # uneven windows: a separable linear map, one small averaging matrix per axis
    xp, dtype = input._xp, input._data.dtype
    y = input
    if nd == 2:
        y = wrap(xp.asarray(_averaging_matrix(spatial[0], out[0], dtype))) @ y
    y = y @ wrap(xp.asarray(_averaging_matrix(spatial[-1], out[-1], dtype).T))
    return y


def adaptive_avg_pool2d(input, output_size):
    r"""Apply 2-D adaptive average pooling: the output has size ``output_size`` for any input size.

    Output cell ``(i, j)`` averages rows ``floor(i*H/oH) .. ceil((i+1)*H/oH)-1`` and the matching columns.
    ``output_size`` is an int or ``(oH, oW)``; ``None`` keeps that input size.
    """
    return _adaptive_avg(input, output_size, 2, "adaptive_avg_pool2d")


def adaptive_avg_pool1d(input, output_size):
    r"""Apply 1-D adaptive average pooling over an input of shape :math:`(N, C, L)` or :math:`(C, L)`."""
    return _adaptive_avg(input, output_size, 1, "adaptive_avg_pool1d")


def _adaptive_max_indices(x, out):
    """Flat plane indices of the first (row-major) maximum of every adaptive window of ``x`` (N, C, H, W)."""
    xp = _xp_of(x)
    n, c, h, w = x.shape
    oh, ow = out
    hs, he = _adaptive_bounds(h, oh)
    ws, we = _adaptive_bounds(w, ow)
    colmax = xp.empty((n, c, h, ow), dtype=x.dtype)
    colarg = xp.empty((n, c, h, ow), dtype=np.int64)
    for j in range(ow):  # reduce columns first, then rows: separable windows keep row-major tie order
        part = x[..., ws[j]:we[j]]
        a = part.argmax(-1)
        colarg[..., j] = a + ws[j]
        colmax[..., j] = xp.take_along_axis(part, a[..., None], -1)[..., 0]
    idx = xp.empty((n, c, oh, ow), dtype=np.int64)
    for i in range(oh):
        r = colmax[:, :, hs[i]:he[i]].argmax(2)
        col = xp.take_along_axis(colarg[:, :, hs[i]:he[i]], r[:, :, None], 2)[:, :, 0]
        idx[:, :, i] = (r + hs[i]) * w + col
    return idx


def _adaptive_max(input, output_size, return_indices, nd, fn):
    out = _adaptive_input(input, output_size, nd, fn)
    x = input if input.ndim == nd + 2 else input.unsqueeze(0)
    if nd == 1:
        x = x.unsqueeze(2)
        out = (1,) + out
    idx = _adaptive_max_indices(x._data, out)
    y = _gather_planes(x, idx)
    y = _finish(y, input, nd)
    if not return_indices:
        return y
    return y, _finish(wrap(idx), input, nd)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    r"""Apply 2-D adaptive max pooling (windows as in :func:`adaptive_avg_pool2d`).

    With ``return_indices`` also returns the flat index in each input plane of every maximum.
    """
    return _adaptive_max(input, output_size, return_indices, 2, "adaptive_max_pool2d")


def adaptive_max_pool1d(input, output_size, return_indices=False):
    r"""Apply 1-D adaptive max pooling over an input of shape :math:`(N, C, L)` or :math:`(C, L)`."""
    return _adaptive_max(input, output_size, return_indices, 1, "adaptive_max_pool1d")


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    """:func:`adaptive_max_pool2d` returning ``(output, indices)``."""
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    """:func:`adaptive_max_pool1d` returning ``(output, indices)``."""
    return adaptive_max_pool1d(input, output_size, True)


# ---------------------------------------------------------------------------------------------------- unpool
def _max_unpool(input, indices, kernel_size, stride, padding, output_size, nd, fn):
    if not isinstance(input, Tensor) or not isinstance(indices, Tensor):
        raise TypeError(f"{fn}(): input and indices must be Tensors")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"{fn}(): expected indices of the input's shape {list(input.shape)}, but got "
                           f"{list(indices.shape)}")
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{fn}(): expected a {nd + 1}D or {nd + 2}D input, but got input of size: "
                           f"{list(input.shape)}")
    kernel = _ntuple(kernel_size, nd, "kernel_size", fn)
    stride = kernel if stride is None else _ntuple(stride, nd, "stride", fn)
    pad = _ntuple(padding, nd, "padding", fn)
    spatial = tuple(input.shape[-nd:])
    default = tuple((s - 1) * st - 2 * p + k for s, st, p, k in zip(spatial, stride, pad, kernel))
    if output_size is None:
        size = default
    else:
        size = tuple(output_size)[-nd:]
        if len(size) != nd:
            raise ValueError(f"{fn}(): output_size must have {nd} elements, but got {tuple(output_size)}")
        for s, d, st in zip(size, default, stride):
            if not (d - st < s < d + st):
                raise ValueError(f"{fn}(): invalid output_size {tuple(output_size)} (it must be between "
                                 f"{tuple(a - b + 1 for a, b in zip(default, stride))} and "
                                 f"{tuple(a + b - 1 for a, b in zip(default, stride))})")
    plane = math.prod(size)
    idx = indices._data.astype(np.int64, copy=False)
    if idx.size and (idx.min() < 0 or idx.max() >= plane):
        raise RuntimeError(f"{fn}(): found an invalid max index {int(idx.max() if idx.max() >= plane else idx.min())}"
                           f" (output volumes are of size {'x'.join(map(str, size))})")
    x = input if input.ndim == nd + 2 else input.unsqueeze(0)
    idx = idx if input.ndim == nd + 2 else idx[None]
    hw = (1,) + size if nd == 1 else size
    y = _scatter_planes(x, idx, hw).reshape(tuple(x.shape[:2]) + size)
    return y if input.ndim == nd + 2 else y.squeeze(0)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    r"""Partial inverse of :func:`max_pool2d`: put each value at its ``indices`` position, zeros elsewhere.

    The default output size is :math:`(H - 1) \cdot s - 2p + k`; ``output_size`` can pick another one in range.
    """
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2, "max_unpool2d")


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    r"""Partial inverse of :func:`max_pool1d`; see :func:`max_unpool2d`."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1, "max_unpool1d")
