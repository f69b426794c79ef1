"""Convolutions: ``conv1d``, ``conv2d``, ``conv_transpose1d``, ``conv_transpose2d``, ``unfold`` and ``fold``.

The array kernels (im2col + GEMM in cache-sized blocks, channels-last for wide layers, col2im or a full convolution
for the input gradient, chosen per layer) live in :mod:`._conv_kernels`. Three differentiable ops share them, and
each one's backward is written with the other two, so gradients of any order exist:

* ``conv(x, w)``: the convolution (``ConvolutionBackward0``);
* ``conv_t(a, w)``: its adjoint in ``x``, i.e. the transposed convolution;
* ``conv_w(x, a)``: its adjoint in ``w``, i.e. the weight gradient (``ConvolutionBackwardBackward0``).

Without ``create_graph`` the backward node calls the array kernels directly.
"""
from __future__ import annotations

import numbers

from ...autograd.graph import Node
from ...device import array_module as _xp_of  # the one array-module lookup (core/device.py)
from ...ops._base import GRAD_ENABLED, Tensor, record, wrap
from ._conv_kernels import (ConvGeometry, _as_strided, _out_len, channels_last, conv_backward_arrays,
                            conv_forward_array, padded_nhwc)

__all__ = ["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "unfold", "fold"]

# ------------------------------------------------------------------------------------------------- argument helpers
def _ntuple(value, n: int, name: str, fn: str) -> tuple:
    """``value`` as a tuple of ``n`` ints (an int is repeated), with a clear error for anything else."""
    if isinstance(value, Tensor):
        value = value.tolist()
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return (int(value),) * n
    if isinstance(value, (tuple, list)):
        if len(value) == 1 and n > 1:
            value = tuple(value) * n
        if len(value) == n and all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value):
            return tuple(int(v) for v in value)
    raise TypeError(f"{fn}(): argument '{name}' must be an int or a tuple of {n} ints, but got {value!r}")


def _single(value, name="value", fn="conv1d"):
    return _ntuple(value, 1, name, fn)


def _pair(value, name="value", fn="conv2d"):
    return _ntuple(value, 2, name, fn)


def _check_positive(values, name, fn):
    if any(v <= 0 for v in values):
        word = "stride" if name == "stride" else name
        raise ValueError(f"{fn}(): {word} must be positive, but got {name}={values}")


def _check_float_pair(input, weight, bias, fn):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if not isinstance(weight, Tensor):
        raise TypeError(f"{fn}(): argument 'weight' (position 2) must be Tensor, not {type(weight).__name__}")
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"{fn}(): expected a floating-point input, but got {input.dtype}")
    if input._data.dtype != weight._data.dtype:
        raise RuntimeError(f"Input type ({input.type()}) and weight type ({weight.type()}) should be the same")
    if bias is not None:
        if not isinstance(bias, Tensor):
            raise TypeError(f"{fn}(): argument 'bias' (position 3) must be Tensor, not {type(bias).__name__}")
        if bias._data.dtype != input._data.dtype:
            raise RuntimeError(f"Input type ({input.type()}) and bias type ({bias.type()}) should be the same")



# ------------------------------------------------------------------------------------------ differentiable ops
def _bias_view(bias):
    return bias._data.reshape(1, -1, 1, 1)


class ConvolutionBackward0(Node):
    """Backward of a (possibly transposed) convolution; ``_ctx = (geometry, transposed)``."""

    __slots__ = ()

    def apply(self, grad):
        a, w, xh = self.saved_tensors
        g, transposed = self._ctx
        nf = self.next_functions
        need_a, need_w, need_b = nf[0] is not None, nf[1] is not None, len(nf) > 2 and nf[2] is not None
        ga = gw = gb = None
        if not transposed:
            # y = conv(x, w): gx = conv_t(gy, w), gw = conv_w(x, gy)
            if GRAD_ENABLED[0]:
                ga = conv_t_op(grad, w, None, g) if need_a else None
                gw = conv_w_op(a, grad, g, w._data.shape) if need_w else None
            elif need_a or need_w:
                gx_arr, gw_arr = conv_backward_arrays(grad._data, w._data, a._data, g, need_a, need_w,
                                                      xh=None if xh is None else xh._data)
                ga = wrap(gx_arr) if need_a else None
                gw = wrap(gw_arr) if need_w else None
        else:
            # z = conv_t(a, w): ga = conv(gz, w), gw = conv_w(gz, a)
            if GRAD_ENABLED[0]:
                ga = conv_op(grad, w, None, g) if need_a else None
                gw = conv_w_op(grad, a, g, w._data.shape) if need_w else None
            else:
                ga = wrap(conv_forward_array(grad._data, w._data, g)) if need_a else None
                if need_w:
                    gw = wrap(conv_backward_arrays(a._data, None, grad._data, g, False, True, w._data.shape)[1])
        if need_b:
            gb = grad.sum((0, 2, 3))
        return ga, gw, gb


class ConvolutionBackwardBackward0(Node):
    """Backward of the weight-gradient op ``v = conv_w(x, a)``: ``gx = conv_t(a, gv)``, ``ga = conv(x, gv)``."""

    __slots__ = ()

    def apply(self, grad):
        x, a = self.saved_tensors
        g = self._ctx
        nf = self.next_functions
        gx = ga = None
        if nf[0] is not None:
            gx = conv_t_op(a, grad, None, g)
        if nf[1] is not None:
            ga = conv_op(x, grad, None, g)
        return gx, ga


def conv_op(x: Tensor, w: Tensor, bias, g: ConvGeometry) -> Tensor:
    """The differentiable 2-D convolution on validated 4-D tensors."""
    f, cg, kh, kw = w._data.shape
    xh = padded_nhwc(x._data, g) if channels_last(cg, kw) else None
    y = conv_forward_array(x._data, w._data, g, xh, None if bias is None else bias._data)
    out = wrap(y)
    if GRAD_ENABLED[0] and (x._requires_grad or w._requires_grad or (bias is not None and bias._requires_grad)):
        node = ConvolutionBackward0()
        # the padded channels-last copy of x is kept (and freed with the other saved tensors) so the weight
        # gradient does not redo the transpose
        node.save(x, w, wrap(xh) if xh is not None and w._requires_grad else None)
        node._ctx = (g, False)
        record(node, out, x, w, bias)
    return out


def conv_t_op(a: Tensor, w: Tensor, bias, g: ConvGeometry) -> Tensor:
    """The differentiable transposed convolution: the adjoint of ``conv_op`` in its input (size ``g.in_size``)."""
    z = conv_backward_arrays(a._data, w._data, None, g, True, False)[0]
    if bias is not None:
        z += _bias_view(bias)
    out = wrap(z)
    if GRAD_ENABLED[0] and (a._requires_grad or w._requires_grad or (bias is not None and bias._requires_grad)):
        node = ConvolutionBackward0()
        node.save(a, w, None)
        node._ctx = (g, True)
        record(node, out, a, w, bias)
    return out


def conv_w_op(x: Tensor, a: Tensor, g: ConvGeometry, w_shape) -> Tensor:
    """The differentiable weight gradient ``conv_w(x, a)``: the adjoint of ``conv_op`` in its weight."""
    out = wrap(conv_backward_arrays(a._data, None, x._data, g, False, True, w_shape)[1])
    if GRAD_ENABLED[0] and (x._requires_grad or a._requires_grad):
        node = ConvolutionBackwardBackward0()
        node.save(x, a)
        node._ctx = g
        record(node, out, x, a)
    return out


# ---------------------------------------------------------------------------------------------- public functions
def _resolve_padding(padding, nd, kernel, dilation, stride, fn):
    """Per-side padding ``((lo, hi), ...)`` for an int, a tuple, ``'valid'`` or ``'same'``."""
    if isinstance(padding, str):
        if padding == "valid":
            return tuple((0, 0) for _ in range(nd))
        if padding == "same":
            if any(s != 1 for s in stride):
                raise ValueError(f"{fn}(): padding='same' is not supported for strided convolutions")
            out = []
            for k, d in zip(kernel, dilation):
                total = d * (k - 1)
                out.append((total // 2, total - total // 2))  # the odd extra goes to the end, as in PyTorch
            return tuple(out)
        raise ValueError(f"{fn}(): invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
    pads = _ntuple(padding, nd, "padding", fn)
    if any(p < 0 for p in pads):
        raise ValueError(f"{fn}(): negative padding is not supported, but got padding={pads}")
    return tuple((p, p) for p in pads)


def _prefix(who, fn):
    """The start of an error message: the layer's repr when a module called, else the function's name (built only
    when raising: a module's repr costs more than the checks)."""
    return f"{who!r}: " if who is not None else f"{fn}(): "


def _fmt(sizes):
    return " x ".join(str(s) for s in sizes)


def _conv_nd(input, weight, bias, stride, padding, dilation, groups, nd, fn, who=None):
    """Validate arguments of ``conv1d``/``conv2d`` and run the 2-D kernel (1-D runs with a height of 1)."""
    _check_float_pair(input, weight, bias, fn)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{_prefix(who, fn)}expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input, but "
                           f"got input of size: {list(input.shape)}")
    if weight.ndim != nd + 2:
        raise RuntimeError(f"{fn}(): expected the weight to be {nd + 2}-D (out_channels, in_channels/groups, "
                           f"*kernel_size), but got weight of size {list(weight.shape)}")
    stride = _ntuple(stride, nd, "stride", fn)
    dilation = _ntuple(dilation, nd, "dilation", fn)
    _check_positive(stride, "stride", fn)
    _check_positive(dilation, "dilation", fn)
    if not isinstance(groups, numbers.Integral) or groups <= 0:
        raise ValueError(f"{fn}(): non-positive groups is not supported, but got groups={groups!r}")
    f, cg = weight.shape[:2]
    kernel = tuple(weight.shape[2:])
    pads = _resolve_padding(padding, nd, kernel, dilation, stride, fn)
    unbatched = input.ndim == nd + 1
    x = input.unsqueeze(0) if unbatched else input
    c = x.shape[1]
    if c != cg * groups:
        if who is not None:
            raise RuntimeError(f"{_prefix(who, fn)}expected input with {cg * groups} channels, got {c} (input of size "
                               f"{list(input.shape)})")
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
                           f"{list(x.shape)} to have {cg * groups} channels, but got {c} channels instead")
    if f % groups:
        raise RuntimeError(f"{fn}(): out_channels ({f}) must be divisible by groups ({groups})")
    if bias is not None and tuple(bias.shape) != (f,):
        raise RuntimeError(f"{fn}(): expected bias of shape [{f}], but got bias of size {list(bias.shape)}")
    spatial = tuple(x.shape[2:])
    padded = tuple(s + lo + hi for s, (lo, hi) in zip(spatial, pads))
    eff = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    if any(p < e for p, e in zip(padded, eff)):
        dilated = f" (spanning {eff} with dilation={dilation})" if any(d != 1 for d in dilation) else ""
        pad_desc = padding if isinstance(padding, str) else tuple(lo for lo, _ in pads)
        raise RuntimeError(f"{_prefix(who, fn)}kernel_size={kernel}{dilated} is larger than the padded input: "
                           f"calculated padded input size per channel: ({_fmt(padded)}) from input size "
                           f"({_fmt(spatial)}) and padding={pad_desc}. Kernel size can't be greater than actual input "
                           f"size")
    if nd == 1:
        x = x.unsqueeze(2)
        weight = weight.unsqueeze(2)
        spatial, kernel, stride, dilation, pads = (1,) + spatial, (1,) + kernel, (1,) + stride, \
            (1,) + dilation, ((0, 0),) + pads
    out_size = tuple(_out_len(s, lo, hi, k, st, d) for s, (lo, hi), k, st, d in
                     zip(spatial, pads, kernel, stride, dilation))
    g = ConvGeometry(stride, dilation, (pads[0][0], pads[0][1], pads[1][0], pads[1][1]), int(groups), kernel,
                     spatial, out_size)
    out = conv_op(x, weight, bias, g)
    if nd == 1:
        out = out.squeeze(2)
    return out.squeeze(0) if unbatched else out


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *, _who=None):
    r"""Apply a 2-D convolution over an input image made of several input planes.

    Args:
        input: input tensor of shape :math:`(N, C_{in}, H, W)` or :math:`(C_{in}, H, W)`.
        weight: filters of shape :math:`(C_{out}, C_{in}/\text{groups}, kH, kW)`.
        bias: optional bias of shape :math:`(C_{out})`.
        stride: the stride of the sliding window, an int or ``(sH, sW)``.
        padding: implicit zero padding on both sides: an int, ``(padH, padW)``, ``'valid'`` (none) or ``'same'``
            (output as large as the input; needs stride 1).
        dilation: the spacing between kernel elements.
        groups: split the input into groups; ``C_in`` and ``C_out`` must both be divisible by it.

    Returns:
        The output of shape :math:`(N, C_{out}, H_{out}, W_{out})`.
    """
    return _conv_nd(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d", who=_who)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *, _who=None):
    r"""Apply a 1-D convolution over an input signal made of several input planes.

    Args:
        input: input tensor of shape :math:`(N, C_{in}, L)` or :math:`(C_{in}, L)`.
        weight: filters of shape :math:`(C_{out}, C_{in}/\text{groups}, kW)`.
        bias: optional bias of shape :math:`(C_{out})`.
        stride, padding, dilation, groups: as in :func:`conv2d`, with single ints.
    """
    return _conv_nd(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d", who=_who)


def _conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation, nd, fn, who=None):
    _check_float_pair(input, weight, bias, fn)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{_prefix(who, fn)}expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input, but "
                           f"got input of size: {list(input.shape)}")
    if weight.ndim != nd + 2:
        raise RuntimeError(f"{fn}(): expected the weight to be {nd + 2}-D (in_channels, out_channels/groups, "
                           f"*kernel_size), but got weight of size {list(weight.shape)}")
    stride = _ntuple(stride, nd, "stride", fn)
    dilation = _ntuple(dilation, nd, "dilation", fn)
    pads = _ntuple(padding, nd, "padding", fn)
    opad = _ntuple(output_padding, nd, "output_padding", fn)
    _check_positive(stride, "stride", fn)
    _check_positive(dilation, "dilation", fn)
    if any(p < 0 for p in pads):
        raise ValueError(f"{fn}(): negative padding is not supported, but got padding={pads}")
    for op, s, d in zip(opad, stride, dilation):
        if op < 0 or (op >= s and op >= d):
            raise ValueError(f"{fn}(): output padding must be smaller than either stride or dilation, but got "
                             f"output_padding={opad}, stride={stride}, dilation={dilation}")
    if not isinstance(groups, numbers.Integral) or groups <= 0:
        raise ValueError(f"{fn}(): non-positive groups is not supported, but got groups={groups!r}")
    unbatched = input.ndim == nd + 1
    x = input.unsqueeze(0) if unbatched else input
    cin, cout_g = weight.shape[:2]
    kernel = tuple(weight.shape[2:])
    if x.shape[1] != cin:
        if who is not None:
            raise RuntimeError(f"{_prefix(who, fn)}expected input with {cin} channels, got {x.shape[1]} (input of size "
                               f"{list(input.shape)})")
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected input{list(x.shape)} "
                           f"to have {cin} channels, but got {x.shape[1]} channels instead")
    if cin % groups:
        raise RuntimeError(f"{fn}(): in_channels ({cin}) must be divisible by groups ({groups})")
    if bias is not None and tuple(bias.shape) != (cout_g * groups,):
        raise RuntimeError(f"{fn}(): expected bias of shape [{cout_g * groups}], but got bias of size "
                           f"{list(bias.shape)}")
    spatial = tuple(x.shape[2:])
    out_spatial = tuple((s - 1) * st - 2 * p + d * (k - 1) + op + 1
                        for s, st, p, d, k, op in zip(spatial, stride, pads, dilation, kernel, opad))
    if any(o <= 0 for o in out_spatial):
        raise RuntimeError(f"{_prefix(who, fn)}the output size ({_fmt(out_spatial)}) is too small for input size "
                           f"({_fmt(spatial)}), kernel_size={kernel}, stride={stride}, padding={pads}")
    if nd == 1:
        x = x.unsqueeze(2)
        weight = weight.unsqueeze(2)
        spatial, out_spatial, kernel = (1,) + spatial, (1,) + out_spatial, (1,) + kernel
        stride, dilation, pads = (1,) + stride, (1,) + dilation, (0,) + pads
    g = ConvGeometry(stride, dilation, (pads[0], pads[0], pads[1], pads[1]), int(groups), kernel, out_spatial,
                     spatial)
    out = conv_t_op(x, weight, bias, g)
    if nd == 1:
        out = out.squeeze(2)
    return out.squeeze(0) if unbatched else out


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1, *,
                     _who=None):
    r"""Apply a 2-D transposed convolution ("deconvolution"), the gradient of :func:`conv2d` w.r.t. its input.

    Args:
        input: input tensor of shape :math:`(N, C_{in}, H, W)` or :math:`(C_{in}, H, W)`.
        weight: filters of shape :math:`(C_{in}, C_{out}/\text{groups}, kH, kW)`.
        bias: optional bias of shape :math:`(C_{out})`.
        stride: the stride of the matching convolution.
        padding: ``dilation * (kernel_size - 1) - padding`` zeros are added to both sides of the input.
        output_padding: extra size added to one side of the output (must be smaller than stride or dilation).
        groups: split the input into groups.
        dilation: the spacing between kernel elements.

    The output size is :math:`(H - 1) \cdot s - 2p + d (k - 1) + \text{output\_padding} + 1`.
    """
    return _conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                              "conv_transpose2d", who=_who)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1, *,
                     _who=None):
    r"""Apply a 1-D transposed convolution; arguments as in :func:`conv_transpose2d` with single ints.

    ``input`` is :math:`(N, C_{in}, L)` or :math:`(C_{in}, L)`; ``weight`` is
    :math:`(C_{in}, C_{out}/\text{groups}, kW)`.
    """
    return _conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
                              "conv_transpose1d", who=_who)


# ------------------------------------------------------------------------------------------------- unfold / fold
def _unfold_array(x, kernel, dilation, padding, stride, out_size):
    xp = _xp_of(x)
    n, c, h, w = x.shape
    (kh, kw), (d1, d2), (p1, p2), (s1, s2), (oh, ow) = kernel, dilation, padding, stride, out_size
    if p1 or p2:
        xpad = xp.zeros((n, c, h + 2 * p1, w + 2 * p2), dtype=x.dtype)
        xpad[:, :, p1:p1 + h, p2:p2 + w] = x
    else:
        xpad = x
    sn, sc, sh_, sw_ = xpad.strides
    win = _as_strided(xp, xpad, (n, c, kh, kw, oh, ow), (sn, sc, d1 * sh_, d2 * sw_, s1 * sh_, s2 * sw_))
    return win.reshape(n, c * kh * kw, oh * ow)


def _fold_array(cols, out_hw, kernel, dilation, padding, stride, grid):
    xp = _xp_of(cols)
    n = cols.shape[0]
    (kh, kw), (d1, d2), (p1, p2), (s1, s2), (oh, ow), (h, w) = kernel, dilation, padding, stride, grid, out_hw
    c = cols.shape[1] // (kh * kw)
    cols = cols.reshape(n, c, kh, kw, oh, ow)
    img = xp.zeros((n, c, h + 2 * p1, w + 2 * p2), dtype=cols.dtype)
    for i in range(kh):
        for j in range(kw):
            img[:, :, i * d1:i * d1 + (oh - 1) * s1 + 1:s1, j * d2:j * d2 + (ow - 1) * s2 + 1:s2] += cols[:, :, i, j]
    return img[:, :, p1:p1 + h, p2:p2 + w] if (p1 or p2) else img


class Im2ColBackward0(Node):
    """Backward of ``unfold``: fold the gradient back (col2im)."""

    __slots__ = ()

    def apply(self, grad):
        return (_fold_op(grad, *self._ctx),)


class Col2ImBackward0(Node):
    """Backward of ``fold``: unfold the gradient (im2col)."""

    __slots__ = ()

    def apply(self, grad):
        out_hw, kernel, dilation, padding, stride, grid = self._ctx
        return (_unfold_op(grad, kernel, dilation, padding, stride, grid, out_hw),)


def _unfold_op(x, kernel, dilation, padding, stride, grid, in_hw):
    out = wrap(_unfold_array(x._data, kernel, dilation, padding, stride, grid))
    if GRAD_ENABLED[0] and x._requires_grad:
        node = Im2ColBackward0()
        node._ctx = (in_hw, kernel, dilation, padding, stride, grid)
        record(node, out, x)
    return out


def _fold_op(cols, out_hw, kernel, dilation, padding, stride, grid):
    out = wrap(_fold_array(cols._data, out_hw, kernel, dilation, padding, stride, grid))
    if GRAD_ENABLED[0] and cols._requires_grad:
        node = Col2ImBackward0()
        node._ctx = (out_hw, kernel, dilation, padding, stride, grid)
        record(node, out, cols)
    return out


def _sliding_args(kernel_size, dilation, padding, stride, fn):
    kernel = _pair(kernel_size, "kernel_size", fn)
    dilation = _pair(dilation, "dilation", fn)
    padding = _pair(padding, "padding", fn)
    stride = _pair(stride, "stride", fn)
    _check_positive(kernel, "kernel_size", fn)
    _check_positive(dilation, "dilation", fn)
    _check_positive(stride, "stride", fn)
    if any(p < 0 for p in padding):
        raise ValueError(f"{fn}(): padding should be non-negative, but got padding={padding}")
    return kernel, dilation, padding, stride


def _grid(hw, kernel, dilation, padding, stride, fn):
    grid = tuple(_out_len(s, p, p, k, st, d) for s, k, d, p, st in zip(hw, kernel, dilation, padding, stride))
    if any(g <= 0 for g in grid):
        raise RuntimeError(f"{fn}(): given input with spatial size ({_fmt(hw)}), kernel_size={kernel}, "
                           f"dilation={dilation}, padding={padding}, calculated shape of the array of sliding blocks "
                           f"as ({_fmt(grid)}), but its components must be at least one.")
    return grid


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    r"""Extract sliding local blocks from a batched input tensor (im2col).

    Turns ``input`` of shape :math:`(N, C, H, W)` (or :math:`(C, H, W)`) into
    :math:`(N, C \times \prod(\text{kernel\_size}), L)`, where ``L`` is the number of blocks. Column ``l`` holds the
    values of block ``l``, channel-major then kernel row then kernel column.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"unfold(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input.ndim not in (3, 4):
        raise RuntimeError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.ndim}D)")
    kernel, dilation, padding, stride = _sliding_args(kernel_size, dilation, padding, stride, "unfold")
    x = input.unsqueeze(0) if input.ndim == 3 else input
    hw = tuple(x.shape[2:])
    grid = _grid(hw, kernel, dilation, padding, stride, "unfold")
    out = _unfold_op(x, kernel, dilation, padding, stride, grid, hw)
    return out.squeeze(0) if input.ndim == 3 else out


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    r"""Combine an array of sliding local blocks into a large containing tensor (col2im); overlaps are summed.

    ``input`` has shape :math:`(N, C \times \prod(\text{kernel\_size}), L)` (or without ``N``); the output has shape
    :math:`(N, C, \text{output\_size}[0], \text{output\_size}[1])`. ``fold`` is the adjoint of :func:`unfold`.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"fold(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported (got "
                           f"{input.ndim}D)")
    out_hw = _pair(output_size, "output_size", "fold")
    kernel, dilation, padding, stride = _sliding_args(kernel_size, dilation, padding, stride, "fold")
    cols = input.unsqueeze(0) if input.ndim == 2 else input
    kk = kernel[0] * kernel[1]
    if cols.shape[1] % kk:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={cols.shape[1]} and kernel_size={kernel}")
    grid = _grid(out_hw, kernel, dilation, padding, stride, "fold")
    if cols.shape[2] != grid[0] * grid[1]:
        raise RuntimeError(f"Given output_size={out_hw}, kernel_size={kernel}, dilation={dilation}, "
                           f"padding={padding}, stride={stride}, expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {grid[0]} * {grid[1]} = {grid[0] * grid[1]}, but got "
                           f"input.size(2)={cols.shape[2]}.")
    out = _fold_op(cols, out_hw, kernel, dilation, padding, stride, grid)
    return out.squeeze(0) if input.ndim == 2 else out

