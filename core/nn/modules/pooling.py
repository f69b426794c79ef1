"""Pooling layers: max, average, adaptive, power-average and max-unpooling, in 1-D and 2-D."""
from __future__ import annotations

from ..functional import _pooling as P
from ..functional._conv import _ntuple
from .module import Module

__all__ = ["MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
           "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "LPPool1d", "LPPool2d", "MaxUnpool1d", "MaxUnpool2d"]


def _check_dims(layer, input, nd):
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{layer!r}: expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input, but got input "
                           f"of size: {list(input.shape)}")


class _MaxPoolNd(Module):
    _nd = 2

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode
        _validate_window(type(self).__name__, self._nd, kernel_size, self.stride, padding, dilation, True)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


def _validate_window(name, nd, kernel_size, stride, padding, dilation, max_pool):
    """Constructor-time checks of a pooling window, naming the offending argument."""
    kernel = _ntuple(kernel_size, nd, "kernel_size", name)
    stride = _ntuple(stride, nd, "stride", name)
    pad = _ntuple(padding, nd, "padding", name)
    dil = _ntuple(dilation, nd, "dilation", name)
    for arg, values in (("kernel_size", kernel), ("stride", stride), ("dilation", dil)):
        if any(v <= 0 for v in values):
            raise ValueError(f"{name}: {arg} must be greater than zero, but got {arg}={values}")
    for p, k, d in zip(pad, kernel, dil):
        limit = (d * (k - 1) + 1) // 2 if max_pool else k // 2
        if p < 0 or p > limit:
            what = "effective kernel size" if max_pool else "kernel size"
            raise ValueError(f"{name}: padding should be at most half of {what}, but got padding={padding} with "
                             f"kernel_size={kernel_size}" + (f" and dilation={dilation}" if max_pool else ""))


class MaxPool1d(_MaxPoolNd):
    r"""Applies 1-D max pooling over an input signal :math:`(N, C, L)` or :math:`(C, L)`.

    Args:
        kernel_size: the size of the window to take a max over.
        stride: the stride of the window. Default: ``kernel_size``.
        padding: implicit negative-infinity padding on both sides (at most half the effective kernel size).
        dilation: the stride between elements within a window.
        return_indices: also return the argmax indices (useful for :class:`MaxUnpool1d`).
        ceil_mode: use ``ceil`` instead of ``floor`` to compute the output length.
    """

    _nd = 1

    def forward(self, input):
        _check_dims(self, input, 1)
        return P.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool2d(_MaxPoolNd):
    r"""Applies 2-D max pooling over an input :math:`(N, C, H, W)` or :math:`(C, H, W)`.

    Args:
        kernel_size: the size of the window to take a max over (an int or ``(kH, kW)``).
        stride: the stride of the window. Default: ``kernel_size``.
        padding: implicit negative-infinity padding on both sides (at most half the effective kernel size).
        dilation: the stride between elements within a window.
        return_indices: also return the argmax indices (useful for :class:`MaxUnpool2d`).
        ceil_mode: use ``ceil`` instead of ``floor`` to compute the output shape.

    Ties send the gradient to the first maximal element of the window, as PyTorch does.
    """

    _nd = 2

    def forward(self, input):
        _check_dims(self, input, 2)
        return P.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool1d(Module):
    r"""Applies 1-D average pooling over an input :math:`(N, C, L)` or :math:`(C, L)`.

    Args:
        kernel_size: the size of the window.
        stride: the stride of the window. Default: ``kernel_size``.
        padding: implicit zero padding on both sides (at most half the kernel size).
        ceil_mode: use ``ceil`` instead of ``floor`` to compute the output length.
        count_include_pad: include the zero padding in the averaging divisor.
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1, "kernel_size", "AvgPool1d")
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1, "stride", "AvgPool1d")
        self.padding = _ntuple(padding, 1, "padding", "AvgPool1d")
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        _validate_window("AvgPool1d", 1, self.kernel_size, self.stride, self.padding, 1, False)

    def forward(self, input):
        _check_dims(self, input, 1)
        return P.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(Module):
    r"""Applies 2-D average pooling over an input :math:`(N, C, H, W)` or :math:`(C, H, W)`.

    Args:
        kernel_size: the size of the window.
        stride: the stride of the window. Default: ``kernel_size``.
        padding: implicit zero padding on both sides (at most half the kernel size).
        ceil_mode: use ``ceil`` instead of ``floor`` to compute the output shape.
        count_include_pad: include the zero padding in the averaging divisor.
        divisor_override: if given, it is used as the divisor instead of the window size.
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override
        _validate_window("AvgPool2d", 2, kernel_size, self.stride, padding, 1, False)

    def forward(self, input):
        _check_dims(self, input, 2)
        return P.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AdaptivePool(Module):
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePool):
    r"""Applies 1-D adaptive average pooling: the output has length ``output_size`` for any input length."""

    def __init__(self, output_size):
        super().__init__(output_size)

    def forward(self, input):
        return P.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptivePool):
    r"""Applies 2-D adaptive average pooling: the output is ``output_size`` (an int, or ``(oH, oW)`` where
    ``None`` keeps the input size) for any input size."""

    def __init__(self, output_size):
        super().__init__(output_size)

    def forward(self, input):
        return P.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveMaxPool1d(_AdaptivePool):
    r"""Applies 1-D adaptive max pooling; ``return_indices`` also returns the argmax indices."""

    def forward(self, input):
        return P.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptivePool):
    r"""Applies 2-D adaptive max pooling: the output is ``output_size`` for any input size.

    Args:
        output_size: an int or ``(oH, oW)`` (``None`` keeps that input size).
        return_indices: also return the flat index in each input plane of every maximum.
    """

    def forward(self, input):
        return P.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class _LPPoolNd(Module):
    _nd = 2

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode
        _validate_window(type(self).__name__, self._nd, kernel_size, kernel_size if stride is None else stride, 0,
                         1, False)

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    r"""Applies 1-D power-average pooling :math:`f(X) = \sqrt[p]{\sum_{x \in X} x^p}` over windows of an input
    :math:`(N, C, L)`. ``norm_type`` is ``p``."""

    _nd = 1

    def forward(self, input):
        return P.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPoolNd):
    r"""Applies 2-D power-average pooling :math:`f(X) = \sqrt[p]{\sum_{x \in X} x^p}` over windows of an input
    :math:`(N, C, H, W)`.

    Args:
        norm_type: the power ``p`` (``p = 1`` is sum pooling; large ``p`` approaches max pooling).
        kernel_size: the size of the window.
        stride: the stride of the window. Default: ``kernel_size``.
        ceil_mode: use ``ceil`` instead of ``floor`` to compute the output shape.
    """

    _nd = 2

    def forward(self, input):
        return P.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class _MaxUnpoolNd(Module):
    _nd = 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, self._nd, "kernel_size", type(self).__name__)
        self.stride = _ntuple(stride if stride is not None else kernel_size, self._nd, "stride", type(self).__name__)
        self.padding = _ntuple(padding, self._nd, "padding", type(self).__name__)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    r"""Partial inverse of :class:`MaxPool1d`: ``forward(input, indices, output_size=None)`` puts each value back at
    its argmax position, zeros elsewhere."""

    _nd = 1

    def forward(self, input, indices, output_size=None):
        return P.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    r"""Partial inverse of :class:`MaxPool2d`: ``forward(input, indices, output_size=None)`` puts each value back at
    its argmax position, zeros elsewhere."""

    _nd = 2

    def forward(self, input, indices, output_size=None):
        return P.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)
