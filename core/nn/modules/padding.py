"""Padding layers: constant/zero, reflection, replication and circular padding in 1, 2 and 3 dimensions."""
from __future__ import annotations

import numbers

from ..functional._padding import pad
from .module import Module

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d"]


def _padding_tuple(padding, nd, name):
    """An int pads every side; otherwise a tuple of ``2 * nd`` ints (last dimension first)."""
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        return (int(padding),) * (2 * nd)
    if isinstance(padding, (tuple, list)) and len(padding) == 2 * nd and \
            all(isinstance(p, numbers.Integral) and not isinstance(p, bool) for p in padding):
        return tuple(int(p) for p in padding)
    raise ValueError(f"{name}: padding must be an int or a tuple of {2 * nd} ints, but got {padding!r}")


class _PadNd(Module):
    _nd = 1
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _padding_tuple(padding, self._nd, type(self).__name__)

    def forward(self, input):
        nd = self._nd
        if input.ndim not in (nd + 1, nd + 2):
            raise RuntimeError(f"{self!r}: expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input, but got "
                               f"input of size: {list(input.shape)}")
        return pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value: float):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        if input.ndim < self._nd:
            raise RuntimeError(f"{self!r}: expected an input with at least {self._nd} dimensions, but got input of "
                               f"size: {list(input.shape)}")
        return pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    r"""Pads the last dimension of :math:`(N, C, W)` or :math:`(C, W)` with a constant ``value``.

    ``padding`` is an int (both sides) or ``(left, right)``; negative amounts crop.
    """

    _nd = 1


class ConstantPad2d(_ConstantPadNd):
    r"""Pads the last two dimensions of :math:`(N, C, H, W)` or :math:`(C, H, W)` with a constant ``value``.

    ``padding`` is an int (all sides) or ``(left, right, top, bottom)``; negative amounts crop.
    """

    _nd = 2


class ConstantPad3d(_ConstantPadNd):
    r"""Pads the last three dimensions of :math:`(N, C, D, H, W)` or :math:`(C, D, H, W)` with a constant ``value``.

    ``padding`` is an int or ``(left, right, top, bottom, front, back)``.
    """

    _nd = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    r"""Pads the last dimension with zeros; ``padding`` is an int or ``(left, right)``."""

    _nd = 1


class ZeroPad2d(_ZeroPadNd):
    r"""Pads the last two dimensions of :math:`(N, C, H, W)` or :math:`(C, H, W)` with zeros.

    ``padding`` is an int (all sides) or ``(left, right, top, bottom)``; negative amounts crop.
    """

    _nd = 2


class ZeroPad3d(_ZeroPadNd):
    r"""Pads the last three dimensions with zeros; ``padding`` is an int or a 6-tuple."""

    _nd = 3


class ReflectionPad1d(_PadNd):
    r"""Pads the last dimension with the reflection of the input (the edge is not repeated): ``[1, 2, 3]`` padded by
    2 is ``[3, 2, 1, 2, 3, 2, 1]``. ``padding`` is an int or ``(left, right)``, each smaller than the input size."""

    _nd = 1
    _mode = "reflect"


class ReflectionPad2d(_PadNd):
    r"""Pads the last two dimensions with the reflection of the input; ``padding`` is an int or
    ``(left, right, top, bottom)``, each smaller than the padded dimension."""

    _nd = 2
    _mode = "reflect"


class ReflectionPad3d(_PadNd):
    r"""Pads the last three dimensions with the reflection of the input; ``padding`` is an int or a 6-tuple."""

    _nd = 3
    _mode = "reflect"


class ReplicationPad1d(_PadNd):
    r"""Pads the last dimension by repeating the edge value; ``padding`` is an int or ``(left, right)``."""

    _nd = 1
    _mode = "replicate"


class ReplicationPad2d(_PadNd):
    r"""Pads the last two dimensions by repeating the edge values; ``padding`` is an int or
    ``(left, right, top, bottom)``."""

    _nd = 2
    _mode = "replicate"


class ReplicationPad3d(_PadNd):
    r"""Pads the last three dimensions by repeating the edge values; ``padding`` is an int or a 6-tuple."""

    _nd = 3
    _mode = "replicate"


class CircularPad1d(_PadNd):
    r"""Pads the last dimension by wrapping around (periodic boundary); ``padding`` is an int or
    ``(left, right)``, each at most the input size."""

    _nd = 1
    _mode = "circular"


class CircularPad2d(_PadNd):
    r"""Pads the last two dimensions by wrapping around (periodic boundary); ``padding`` is an int or
    ``(left, right, top, bottom)``."""

    _nd = 2
    _mode = "circular"


class CircularPad3d(_PadNd):
    r"""Pads the last three dimensions by wrapping around; ``padding`` is an int or a 6-tuple."""

    _nd = 3
    _mode = "circular"
