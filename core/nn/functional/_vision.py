"""Vision functions: ``interpolate``/``upsample``, ``pixel_shuffle``/``pixel_unshuffle``, ``grid_sample`` and
``affine_grid``.

Resizing with ``nearest``, ``nearest-exact``, ``(bi/tri)linear`` and ``bicubic`` is separable: it applies, along each
spatial axis, a small ``(out, in)`` matrix holding PyTorch's interpolation weights (1 tap for nearest, 2 for linear,
4 for cubic). The gradient is the transposed matrix along the same axis, whose gradient is the matrix again, so
resizing has gradients of every order. The matrices are dense, which is cheap up to a few hundred pixels per axis.
``area`` mode is adaptive average pooling.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ...autograd.graph import Node
from ...ops._base import GRAD_ENABLED, Tensor, record, wrap
from ...device import array_module as _xp  # the one array-module lookup (core/device.py)

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle", "pixel_unshuffle",
           "grid_sample", "affine_grid"]

_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area")
_LINEAR_NDIM = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


# ------------------------------------------------------------------------------------ per-axis weight matrices
def _nearest_matrix(n_in, n_out, scale, exact):
    """PyTorch's nearest rule: ``src = min(floor(dst * scale), in - 1)`` in float32 (``+0.5`` for nearest-exact)."""
    dst = np.arange(n_out)
    if not exact and n_out == n_in:
        src = dst
    elif not exact and n_out == 2 * n_in:
        src = dst >> 1
    else:
        s = np.float32(scale if scale is not None else n_in / n_out)
        pos = (dst.astype(np.float32) + np.float32(0.5 if exact else 0.0)) * s
        src = np.minimum(np.floor(pos).astype(np.int64), n_in - 1)
    m = np.zeros((n_out, n_in))
    m[dst, src] = 1.0
    return m


def _source_coords(n_in, n_out, scale, align_corners, cubic):
    dst = np.arange(n_out, dtype=np.float64)
    if align_corners:
        return dst * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)
    s = scale if scale is not None else n_in / n_out
    src = s * (dst + 0.5) - 0.5
    return src if cubic else np.maximum(src, 0.0)


def _linear_matrix(n_in, n_out, scale, align_corners):
    src = _source_coords(n_in, n_out, scale, align_corners, False)
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    i1 = np.minimum(i0 + 1, n_in - 1)
    lam = src - i0
    m = np.zeros((n_out, n_in))
    rows = np.arange(n_out)
    np.add.at(m, (rows, i0), 1.0 - lam)
    np.add.at(m, (rows, i1), lam)
    return m


def _cubic_matrix(n_in, n_out, scale, align_corners):
    a = -0.75  # PyTorch's (and OpenCV's) bicubic coefficient
    src = _source_coords(n_in, n_out, scale, align_corners, True)
    base = np.floor(src)
    t = src - base

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    weights = (far(t + 1), near(t), near(1 - t), far(2 - t))
    m = np.zeros((n_out, n_in))
    rows = np.arange(n_out)
    for k, wk in enumerate(weights):
        idx = np.clip(base.astype(np.int64) - 1 + k, 0, n_in - 1)  # border taps are clamped, as in PyTorch
        np.add.at(m, (rows, idx), wk)
    return m


# -------------------------------------------------------------------------------------- the separable resize op
class UpsampleBackward0(Node):
    """Backward of resizing along one axis by matrix ``m``: the transposed matrix along the same axis."""

    __slots__ = ()

    def apply(self, grad):
        m, axis = self._ctx
        return (_resample_axis(grad, m.T, axis),)


def _resample_array(a, m, axis):
    xp = _xp(a)
    if axis == a.ndim - 1:
        return a @ m.T
    if axis == a.ndim - 2:
        return m @ a
    return xp.ascontiguousarray(xp.moveaxis(xp.tensordot(m, a, axes=([1], [axis])), 0, axis))


def _resample_axis(x, m, axis):
    """Differentiable ``y = m @ x`` along ``axis`` (``m`` is an ``(out, in)`` array in x's dtype)."""
    out = wrap(_resample_array(x._data, m, axis))
    if GRAD_ENABLED[0] and x._requires_grad:
        node = UpsampleBackward0()
        node._ctx = (m, axis)
        record(node, out, x)
    return out


# ------------------------------------------------------------------------------------------------ interpolate
def _output_and_scales(input, nd, size, scale_factor, recompute_scale_factor):
    spatial = tuple(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is None and scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (tuple, list)):
            if len(size) != nd:
                raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {list(spatial)} and output size of {list(size)}. Please "
                                 f"provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, "
                                 f"...,oK) format.")
            out = tuple(int(s) for s in size)
        else:
            out = (int(size),) * nd
        if any(o <= 0 for o in out):
            raise ValueError(f"interpolate(): output size must be positive, but got size={size}")
        return out, (None,) * nd
    if isinstance(scale_factor, (tuple, list)):
        if len(scale_factor) != nd:
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {list(spatial)} and scale_factor of shape "
                             f"{list(scale_factor)}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                             f"scale_factor in (s1, s2, ...,sK) format.")
        factors = tuple(float(f) for f in scale_factor)
    else:
        factors = (float(scale_factor),) * nd
    if any(not math.isfinite(f) or f <= 0 for f in factors):
        raise ValueError(f"interpolate(): scale_factor must be positive and finite, but got {scale_factor}")
    out = tuple(int(math.floor(s * f)) for s, f in zip(spatial, factors))
    if any(o <= 0 for o in out):
        raise ValueError(f"interpolate(): input size {list(spatial)} times scale_factor {scale_factor} gives an empty "
                         f"output {list(out)}")
    scales = (None,) * nd if recompute_scale_factor else tuple(1.0 / f for f in factors)
    return out, scales


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    r"""Down/up-sample ``input`` (:math:`(N, C, L)`, :math:`(N, C, H, W)` or :math:`(N, C, D, H, W)`).

    Args:
        size: the output spatial size (an int or a tuple).
        scale_factor: multiplier for the spatial size (a float or a tuple); give ``size`` or this, not both.
        mode: ``'nearest'`` (default), ``'nearest-exact'``, ``'linear'`` (3-D input), ``'bilinear'`` and
            ``'bicubic'`` (4-D), ``'trilinear'`` (5-D) or ``'area'``.
        align_corners: for the interpolating modes, if True the corner pixels of input and output are aligned
            (their centres coincide); if False (default) coordinates are mapped by pixel area, so the result does
            not depend on the input size for a given ``scale_factor``.
        recompute_scale_factor: if True, the interpolation uses ``in / out`` sizes instead of the given
            ``scale_factor``.
        antialias: not supported (must be False).
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"interpolate(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if mode not in _MODES:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                                  f"nearest-exact (got {mode})")
    if input.ndim not in (3, 4, 5):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                                  f"nearest-exact (got {mode})")
    if antialias:
        raise NotImplementedError("interpolate(): antialias=True is not supported")
    if mode in ("nearest", "nearest-exact", "area"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                             "bicubic | trilinear")
    elif input.ndim - 2 != _LINEAR_NDIM[mode]:
        need = _LINEAR_NDIM[mode] + 2
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {need}D input")
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"interpolate(): expected a floating-point input, but got {input.dtype}")
    nd = input.ndim - 2
    out, scales = _output_and_scales(input, nd, size, scale_factor, recompute_scale_factor)
    if mode == "area":
        from ._pooling import _adaptive_avg
        if nd == 3:
            raise NotImplementedError("interpolate(): 'area' mode supports 3-D and 4-D input")
        return _adaptive_avg(input, out, nd, "interpolate")
    align = bool(align_corners)
    dtype = input._data.dtype
    y = input
    for k in range(nd):
        n_in, n_out, scale = input.shape[2 + k], out[k], scales[k]
        if mode in ("nearest", "nearest-exact"):
            m = _nearest_matrix(n_in, n_out, scale, mode == "nearest-exact")
        elif mode == "bicubic":
            m = _cubic_matrix(n_in, n_out, scale, align)
        else:
            m = _linear_matrix(n_in, n_out, scale, align)
        if n_in == n_out and np.array_equal(m, np.eye(n_in)):
            continue
        y = _resample_axis(y, input._xp.asarray(m, dtype=dtype), 2 + k)
    return y if y is not input else input * 1


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Upsample ``input``; deprecated alias of :func:`interpolate`."""
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Nearest-neighbour upsampling; equivalent to ``interpolate(..., mode='nearest')``."""
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Bilinear upsampling with ``align_corners=True``; equivalent to ``interpolate(..., mode='bilinear',
    align_corners=True)``."""
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ---------------------------------------------------------------------------------------------- pixel shuffle
def _factor(value, name, fn):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{fn}(): {name} must be a positive integer, but got {value!r}")
    return int(value)


def pixel_shuffle(input, upscale_factor):
    r"""Rearrange :math:`(*, C \times r^2, H, W)` into :math:`(*, C, H \times r, W \times r)` (sub-pixel
    convolution's upsampling step), ``r = upscale_factor``."""
    r = _factor(upscale_factor, "upscale_factor", "pixel_shuffle")
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    k = len(lead)
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    x = x.permute(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor):
    r"""Reverse :func:`pixel_shuffle`: :math:`(*, C, H \times r, W \times r)` into :math:`(*, C \times r^2, H, W)`,
    ``r = downscale_factor``."""
    r = _factor(downscale_factor, "downscale_factor", "pixel_unshuffle")
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    *lead, c, h, w = input.shape
    if h % r or w % r:
        raise RuntimeError(f"pixel_unshuffle expects height and width to be divisible by downscale_factor, but "
                           f"input.size(-2)={h} and input.size(-1)={w} are not both divisible by {r}")
    k = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    x = x.permute(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)


# ------------------------------------------------------------------------------------------------ grid sample
def _unnormalize(coord, size, align_corners):
    """Map [-1, 1] to pixel coordinates; returns (pixel coordinate, d pixel / d coord)."""
    if align_corners:
        return (coord + 1) * ((size - 1) / 2), (size - 1) / 2
    return ((coord + 1) * size - 1) / 2, size / 2


def _clip(xp, x, size):
    """Clamp to [0, size-1] and the derivative of that clamp."""
    grad = ((x > 0) & (x < size - 1)).astype(x.dtype)
    return xp.clip(x, 0, size - 1), grad


def _reflect(xp, x, twice_low, twice_high):
    """Reflect ``x`` into [low, high] (PyTorch's ``reflect_coordinates``) and the derivative (+1 or -1)."""
    if twice_low == twice_high:
        return xp.zeros_like(x), xp.zeros_like(x)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    shifted = x - low
    sign = xp.where(shifted < 0, -1.0, 1.0).astype(x.dtype)
    shifted = xp.abs(shifted)
    extra = xp.fmod(shifted, span)
    flips = xp.floor(shifted / span)
    even = (flips % 2) == 0
    out = xp.where(even, extra + low, span - extra + low)
    return out, sign * xp.where(even, 1.0, -1.0).astype(x.dtype)


def _source_index(xp, coord, size, padding_mode, align_corners):
    """Grid coordinate -> pixel coordinate with padding applied, and its derivative."""
    x, mult = _unnormalize(coord, size, align_corners)
    grad = xp.full(x.shape, mult, dtype=x.dtype)
    if padding_mode == "border":
        x, g = _clip(xp, x, size)
        grad = grad * g
    elif padding_mode == "reflection":
        if align_corners:
            x, g = _reflect(xp, x, 0, 2 * (size - 1))
        else:
            x, g = _reflect(xp, x, -1, 2 * size - 1)
        grad = grad * g
        x, g = _clip(xp, x, size)
        grad = grad * g
    return x, grad


def _corner(xp, flat, iy, ix, h, w):
    """Values of ``flat`` (N, C, H*W) at integer pixel (iy, ix) (N, P); zero outside. Returns (values, idx, ok)."""
    ok = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
    idx = xp.where(ok, iy * w + ix, 0).astype(np.int64)
    vals = xp.take_along_axis(flat, idx[:, None, :], axis=2)
    return vals * ok[:, None, :], idx, ok


def _grid_sample_arrays(x, grid, mode, padding_mode, align_corners, gy=None):
    """Forward (``gy`` None) or backward of grid sampling on arrays."""
    xp = _xp(x)
    n, c, h, w = x.shape
    ho, wo = grid.shape[1:3]
    flat = x.reshape(n, c, h * w)
    gx_coord = grid[..., 0].reshape(n, -1)
    gy_coord = grid[..., 1].reshape(n, -1)
    ix, dix = _source_index(xp, gx_coord, w, padding_mode, align_corners)
    iy, diy = _source_index(xp, gy_coord, h, padding_mode, align_corners)
    if mode == "nearest":
        cx, cy = xp.rint(ix).astype(np.int64), xp.rint(iy).astype(np.int64)
        vals, idx, ok = _corner(xp, flat, cy, cx, h, w)
        if gy is None:
            return vals.reshape(n, c, ho, wo)
        g = gy.reshape(n, c, -1)
        gin = _scatter_add(xp, [(idx, ok, g)], n, c, h * w, x.dtype)
        return gin.reshape(n, c, h, w), xp.zeros_like(grid)
    x0, y0 = xp.floor(ix), xp.floor(iy)
    x0i, y0i = x0.astype(np.int64), y0.astype(np.int64)
    tx, ty = ix - x0, iy - y0
    corners = []
    for dy, dx, wgt in ((0, 0, (1 - tx) * (1 - ty)), (0, 1, tx * (1 - ty)), (1, 0, (1 - tx) * ty),
                        (1, 1, tx * ty)):
        vals, idx, ok = _corner(xp, flat, y0i + dy, x0i + dx, h, w)
        corners.append((vals, idx, ok, wgt, dy, dx))
    if gy is None:
        out = sum(v * wgt[:, None, :] for v, _, _, wgt, _, _ in corners)
        return out.reshape(n, c, ho, wo)
    g = gy.reshape(n, c, -1)
    gin = _scatter_add(xp, [(idx, ok, g * wgt[:, None, :]) for _, idx, ok, wgt, _, _ in corners], n, c, h * w,
                       x.dtype)
    # d out / d ix and d iy: the bilinear weights' derivatives times the corner values, summed over channels
    gix = xp.zeros_like(tx)
    giy = xp.zeros_like(ty)
    for vals, _, _, _, dy, dx in corners:
        gv = (g * vals).sum(axis=1)
        gix += gv * ((1 - ty) if dy == 0 else ty) * (1 if dx == 1 else -1)
        giy += gv * ((1 - tx) if dx == 0 else tx) * (1 if dy == 1 else -1)
    ggrid = xp.stack([gix * dix, giy * diy], axis=-1).reshape(grid.shape)
    return gin.reshape(n, c, h, w), ggrid


def _scatter_add(xp, parts, n, c, plane, dtype):
    """Sum values into (N, C, plane) at per-sample plane indices; ``parts`` is a list of (idx, ok, values)."""
    base = (xp.arange(n * c) * plane).reshape(n, c, 1)
    index = xp.concatenate([(base + idx[:, None, :]).reshape(-1) for idx, _, _ in parts])
    weights = xp.concatenate([(v * ok[:, None, :]).reshape(-1) for _, ok, v in parts])
    return xp.bincount(index, weights=weights, minlength=n * c * plane).astype(dtype, copy=False).reshape(
        n, c, plane)


class GridSampler2DBackward0(Node):
    """Backward of :func:`grid_sample` (first order only, as in PyTorch)."""

    __slots__ = ()

    def apply(self, grad):
        x, grid = self.saved_tensors
        mode, padding_mode, align_corners = self._ctx
        gin, ggrid = _grid_sample_arrays(x._data, grid._data, mode, padding_mode, align_corners, grad._data)
        nf = self.next_functions
        gin = wrap(gin) if nf[0] is not None else None
        ggrid = wrap(ggrid) if nf[1] is not None else None
        if GRAD_ENABLED[0] and (grad._requires_grad or x._requires_grad or grid._requires_grad):
            for t in (gin, ggrid):
                if t is not None:
                    record(GridSampler2DBackwardBackward0(), t, grad, x, grid)
        return gin, ggrid


class GridSampler2DBackwardBackward0(Node):
    """Stands for the derivative of grid_sample's backward, which (as in PyTorch) is not implemented."""

    __slots__ = ()

    def apply(self, grad):
        raise RuntimeError("the derivative for 'grid_sampler_2d_backward' is not implemented.")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    r"""Sample ``input`` :math:`(N, C, H_{in}, W_{in})` at the locations in ``grid`` :math:`(N, H_{out}, W_{out}, 2)`.

    ``grid[n, h, w] = (x, y)`` in normalized coordinates: ``(-1, -1)`` is the top-left and ``(1, 1)`` the
    bottom-right of the input (the corner pixels' centres if ``align_corners``, else their outer edges).

    Args:
        mode: ``'bilinear'`` (default) or ``'nearest'``.
        padding_mode: values outside the input: ``'zeros'``, ``'border'`` (clamp to the edge) or ``'reflection'``.
        align_corners: see above; default False.

    Returns the output :math:`(N, C, H_{out}, W_{out})`. Gradients flow to ``input`` and (for bilinear) to ``grid``.
    """
    if not isinstance(input, Tensor) or not isinstance(grid, Tensor):
        raise TypeError("grid_sample(): input and grid must be Tensors")
    if mode not in ("bilinear", "nearest"):
        raise NotImplementedError(f"grid_sample(): mode must be 'bilinear' or 'nearest', but got '{mode}' "
                                  f"(bicubic is not supported)")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if input.ndim != 4:
        raise NotImplementedError(f"grid_sample(): expected 4D input (N, C, H, W), but got input of size "
                                  f"{list(input.shape)} (volumetric sampling is not supported)")
    if grid.ndim != 4 or grid.shape[-1] != 2 or grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.shape[0]} in first dimension and 2 in "
                           f"last dimension, with 4 dimensions, but got grid with sizes {list(grid.shape)}")
    if input._data.dtype.kind != "f" or grid._data.dtype != input._data.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have the same floating dtype, but input has "
                           f"{input.dtype} and grid has {grid.dtype}")
    align = bool(align_corners)
    out = wrap(_grid_sample_arrays(input._data, grid._data, mode, padding_mode, align))
    if GRAD_ENABLED[0] and (input._requires_grad or grid._requires_grad):
        node = GridSampler2DBackward0()
        node.save(input, grid)
        node._ctx = (mode, padding_mode, align)
        record(node, out, input, grid)
    return out


def _base_coords(xp, n, align_corners, dtype):
    if n <= 1:
        return xp.zeros(max(n, 1), dtype=dtype)
    c = xp.linspace(-1.0, 1.0, n, dtype=dtype)
    return c if align_corners else c * ((n - 1) / n)


def affine_grid(theta, size, align_corners=None):
    r"""Generate the sampling grid of an affine transform for :func:`grid_sample`.

    ``theta`` is a batch of affine matrices :math:`(N, 2, 3)` (or :math:`(N, 3, 4)` for volumes) and ``size`` the
    target output size :math:`(N, C, H, W)` (or :math:`(N, C, D, H, W)`). Returns the grid
    :math:`(N, H, W, 2)` (or :math:`(N, D, H, W, 3)`) of source coordinates ``theta @ (x, y, 1)``.
    """
    if not isinstance(theta, Tensor):
        raise TypeError(f"affine_grid(): argument 'theta' must be Tensor, not {type(theta).__name__}")
    size = tuple(int(s) for s in size)
    if theta._data.dtype.kind != "f":
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        expect = (size[0], 2, 3)
    elif len(size) == 5:
        expect = (size[0], 3, 4)
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {list(size)}.")
    if tuple(theta.shape) != expect:
        kind = "2D affine matrices of shape Nx2x3" if len(size) == 4 else "3D affine matrices of shape Nx3x4"
        raise ValueError(f"Expected a batch of {kind} for size {list(size)}. Got {list(theta.shape)}.")
    if min(size[2:]) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {list(size)}")
    xp, dtype = theta._xp, theta._data.dtype
    spatial = size[2:]
    axes = [_base_coords(xp, s, bool(align_corners), dtype) for s in spatial]
    # base[..., k] = coordinate along x (last axis), y, (z), then 1
    mesh = xp.meshgrid(*axes, indexing="ij")
    coords = [m for m in reversed(mesh)] + [xp.ones(spatial, dtype=dtype)]
    base = xp.stack(coords, axis=-1).reshape(1, -1, len(spatial) + 1)
    grid = wrap(base) @ theta.transpose(1, 2)
    return grid.reshape(size[0], *spatial, len(spatial))
