"""Upsampling layers: ``Upsample``, ``UpsamplingNearest2d``, ``UpsamplingBilinear2d``, ``PixelShuffle`` and
``PixelUnshuffle``."""
from __future__ import annotations

from ..functional._vision import interpolate, pixel_shuffle, pixel_unshuffle
from .module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle"]


class Upsample(Module):
    r"""Upsamples multi-channel 1-D, 2-D or 3-D data (inputs :math:`(N, C, L)`, :math:`(N, C, H, W)`,
    :math:`(N, C, D, H, W)`).

    Args:
        size (int or tuple): the output spatial size.
        scale_factor (float or tuple): multiplier for the spatial size (give ``size`` or this).
        mode (str): ``'nearest'`` (default), ``'linear'``, ``'bilinear'``, ``'bicubic'`` or ``'trilinear'``.
        align_corners (bool): for the interpolating modes, align the corner pixels of input and output.
        recompute_scale_factor (bool): interpolate with ``in / out`` sizes rather than ``scale_factor``.
    """

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor is not None else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                           recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        info = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    r"""2-D nearest-neighbour upsampling of :math:`(N, C, H, W)`; give ``size`` or ``scale_factor``."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    r"""2-D bilinear upsampling of :math:`(N, C, H, W)` with ``align_corners=True``; give ``size`` or
    ``scale_factor``."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class PixelShuffle(Module):
    r"""Rearranges :math:`(*, C \times r^2, H, W)` into :math:`(*, C, H \times r, W \times r)`, ``r`` being
    ``upscale_factor`` (the upsampling of sub-pixel convolution)."""

    def __init__(self, upscale_factor: int):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    r"""Reverses :class:`PixelShuffle`: :math:`(*, C, H \times r, W \times r)` into :math:`(*, C \times r^2, H, W)`,
    ``r`` being ``downscale_factor``."""

    def __init__(self, downscale_factor: int):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"
