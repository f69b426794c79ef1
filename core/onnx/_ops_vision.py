"""Resampling: ``interpolate``/``Upsample`` (nearest, nearest-exact, linear, bilinear, bicubic) to ONNX's Resize."""
from __future__ import annotations

import numpy as np

from ._common import result_np_dtype
from ._registry import op

__all__ = []

# PyTorch's mode -> (ONNX mode, coordinate transformation without / with align_corners, nearest rounding)
_MODES = {
    "nearest": ("nearest", "asymmetric", None, "floor"),
    "nearest-exact": ("nearest", "half_pixel", None, "round_prefer_ceil"),
    "linear": ("linear", "pytorch_half_pixel", "align_corners", None),
    "bilinear": ("linear", "pytorch_half_pixel", "align_corners", None),
    "bicubic": ("cubic", "pytorch_half_pixel", "align_corners", None),
}


@op("interpolate", "upsample")
def _interpolate(g, call):
    inp = call.arg("input")
    mode = call.arg("mode", "nearest")
    if mode not in _MODES or call.arg("antialias"):
        return NotImplemented
    onnx_mode, coords, aligned, rounding = _MODES[mode]
    if call.arg("align_corners"):
        coords = aligned
    x = g.value(inp, result_np_dtype(call))
    scale = call.arg("scale_factor")
    if scale is not None and not call.arg("recompute_scale_factor"):
        # PyTorch maps coordinates with the given factor (not the rounded output/input ratio): ONNX's scales do too
        factors = list(scale) if isinstance(scale, (tuple, list)) else [scale] * (inp.ndim - 2)
        resize_inputs = [x, None, g.const([1.0, 1.0] + [float(f) for f in factors], np.float32)]
    else:  # an output size: batch and channels from the input at run time, the spatial sizes as traced
        sizes = g.op("Concat", [g.shape_of(x, start=0, end=2), g.ints(call.result.shape[2:])], axis=0)
        resize_inputs = [x, None, None, sizes]
    attrs = dict(mode=onnx_mode, coordinate_transformation_mode=coords)
    if rounding is not None:
        attrs["nearest_mode"] = rounding
    if onnx_mode == "cubic":
        attrs["cubic_coeff_a"] = -0.75
    return g.op("Resize", resize_inputs, **attrs)
