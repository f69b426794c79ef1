"""Convolution layers: ``Conv1d``, ``Conv2d``, ``ConvTranspose1d`` and ``ConvTranspose2d``."""
from __future__ import annotations

import math
import numbers

from ...ops.creation import empty
from .. import init
# the layers call the public ops (conv2d, ...), so a profiler or exporter observing ops sees them; ``_who`` makes the
# errors name the layer
from ..functional._conv import _ntuple, conv1d, conv2d, conv_transpose1d, conv_transpose2d
from ..functional._padding import pad
from ..parameter import Parameter
from .module import Module

__all__ = ["Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Module):
    """Shared constructor, initialisation and ``repr`` of the convolution layers."""

    _nd = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed, output_padding,
                 groups, bias, padding_mode, device=None, dtype=None):
        super().__init__()
        name, nd = type(self).__name__, self._nd
        for arg, value in (("in_channels", in_channels), ("out_channels", out_channels), ("groups", groups)):
            if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"{name}: {arg} must be a positive integer, but got {arg}={value!r}")
        if in_channels % groups != 0:
            raise ValueError(f"{name}: in_channels must be divisible by groups, but got in_channels={in_channels} "
                             f"and groups={groups}")
        if out_channels % groups != 0:
            raise ValueError(f"{name}: out_channels must be divisible by groups, but got out_channels={out_channels} "
                             f"and groups={groups}")
        kernel_size = _ntuple(kernel_size, nd, "kernel_size", name)
        stride = _ntuple(stride, nd, "stride", name)
        dilation = _ntuple(dilation, nd, "dilation", name)
        for arg, values in (("kernel_size", kernel_size), ("stride", stride), ("dilation", dilation)):
            if any(v <= 0 for v in values):
                raise ValueError(f"{name}: {arg} must be positive, but got {arg}={values}")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"{name}: invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError(f"{name}: padding='same' is not supported for strided convolutions, but got "
                                 f"stride={stride}")
        else:
            padding = _ntuple(padding, nd, "padding", name)
            if any(p < 0 for p in padding):
                raise ValueError(f"{name}: padding must be non-negative, but got padding={padding}")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {list(_PADDING_MODES)}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's argument for the non-zero padding modes: (left, right) of the last dim first
        if padding == "valid":
            pads = [(0, 0)] * nd
        elif padding == "same":
            pads = [(d * (k - 1) // 2, d * (k - 1) - d * (k - 1) // 2) for k, d in zip(kernel_size, dilation)]
        else:
            pads = [(p, p) for p in padding]
        self._reversed_padding_repeated_twice = tuple(v for lo_hi in reversed(pads) for v in lo_hi)
        shape = (in_channels, out_channels // groups) if transposed else (out_channels, in_channels // groups)
        self.weight = Parameter(empty(shape + kernel_size, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-draw the weight with ``kaiming_uniform_(a=sqrt(5))`` and the bias from U(-1/sqrt(fan_in), ...)."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        nd = len(self.kernel_size)
        if self.padding != (0,) * nd:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * nd:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * nd:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"

    def _check_input(self, input):
        """Shape check done by the layer itself, so errors name it (used before non-zero padding modes)."""
        nd = self._nd
        if input.ndim not in (nd + 1, nd + 2):
            raise RuntimeError(f"{self!r}: expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input, but got "
                               f"input of size: {list(input.shape)}")
        c = input.shape[-nd - 1]
        if c != self.in_channels:
            raise RuntimeError(f"{self!r}: expected input with {self.in_channels} channels, got {c} (input of size "
                               f"{list(input.shape)})")

    def _conv_forward(self, input, weight, bias):
        op = conv1d if self._nd == 1 else conv2d  # the module-level names: an observer's wrapper when observing
        if self.padding_mode != "zeros":
            self._check_input(input)
            padded = pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return op(padded, weight, bias, self.stride, 0, self.dilation, self.groups, _who=self)
        return op(input, weight, bias, self.stride, self.padding, self.dilation, self.groups, _who=self)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_ConvNd):
    r"""Applies a 1-D convolution over an input signal composed of several input planes.

    Args:
        in_channels (int): number of channels in the input.
        out_channels (int): number of channels produced by the convolution.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple): stride of the convolution. Default: 1.
        padding (int, tuple or str): padding added to both sides: an int, ``'valid'`` or ``'same'``. Default: 0.
        dilation (int or tuple): spacing between kernel elements. Default: 1.
        groups (int): number of blocked connections from input channels to output channels. Default: 1.
        bias (bool): add a learnable bias. Default: ``True``.
        padding_mode (str): ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``. Default: ``'zeros'``.

    Shape:
        input :math:`(N, C_{in}, L_{in})` or :math:`(C_{in}, L_{in})`, output :math:`(N, C_{out}, L_{out})` with
        :math:`L_{out} = \lfloor (L_{in} + 2p - d (k - 1) - 1) / s + 1 \rfloor`.

    Attributes:
        weight: :math:`(C_{out}, C_{in}/\text{groups}, k)`, from :math:`U(-\sqrt{r}, \sqrt{r})` with
            :math:`r = \text{groups} / (C_{in} k)`.
        bias: :math:`(C_{out})`, from the same distribution.
    """

    _nd = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, False, (0,), groups,
                         bias, padding_mode, device, dtype)


class Conv2d(_ConvNd):
    r"""Applies a 2-D convolution over an input image composed of several input planes.

    Args:
        in_channels (int): number of channels in the input image.
        out_channels (int): number of channels produced by the convolution.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple): stride of the convolution. Default: 1.
        padding (int, tuple or str): padding added to all four sides: an int, ``(padH, padW)``, ``'valid'`` or
            ``'same'`` (output as large as the input; stride must be 1). Default: 0.
        dilation (int or tuple): spacing between kernel elements. Default: 1.
        groups (int): number of blocked connections from input channels to output channels. Default: 1.
        bias (bool): add a learnable bias. Default: ``True``.
        padding_mode (str): ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``. Default: ``'zeros'``.

    Shape:
        input :math:`(N, C_{in}, H_{in}, W_{in})` or :math:`(C_{in}, H_{in}, W_{in})`, output
        :math:`(N, C_{out}, H_{out}, W_{out})` with
        :math:`H_{out} = \lfloor (H_{in} + 2p - d (k - 1) - 1) / s + 1 \rfloor` (likewise for W).

    Attributes:
        weight: :math:`(C_{out}, C_{in}/\text{groups}, kH, kW)`, from :math:`U(-\sqrt{r}, \sqrt{r})` with
            :math:`r = \text{groups} / (C_{in} \cdot kH \cdot kW)`.
        bias: :math:`(C_{out})`, from the same distribution.
    """

    _nd = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, False, (0, 0), groups,
                         bias, padding_mode, device, dtype)


class _ConvTransposeNd(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, output_padding, groups, bias,
                 dilation, padding_mode, device=None, dtype=None):
        name = type(self).__name__
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {name}')
        if isinstance(padding, str):
            raise ValueError(f"{name}: padding must be an int or a tuple of ints, but got padding={padding!r}")
        output_padding = _ntuple(output_padding, self._nd, "output_padding", name)
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, True, output_padding,
                         groups, bias, padding_mode, device, dtype)

    def _output_padding(self, input, output_size):
        """The ``output_padding`` giving ``output_size`` (PyTorch's rule), or the layer's own if it is None."""
        if output_size is None:
            return self.output_padding
        nd = self._nd
        non_spatial = 2 if input.ndim == nd + 2 else 1
        output_size = tuple(output_size)
        if len(output_size) == non_spatial + nd:
            output_size = output_size[non_spatial:]
        if len(output_size) != nd:
            raise ValueError(f"ConvTranspose{nd}D: for {input.ndim}D input, output_size must have {nd} or "
                             f"{non_spatial + nd} elements (got {len(output_size)})")
        mins, maxs = [], []
        for d in range(nd):
            size = ((input.shape[d + non_spatial] - 1) * self.stride[d] - 2 * self.padding[d] +
                    self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            mins.append(size)
            maxs.append(size + self.stride[d] - 1)
        for size, lo, hi in zip(output_size, mins, maxs):
            if size < lo or size > hi:
                raise ValueError(f"requested an output size of {list(output_size)}, but valid sizes range from "
                                 f"{mins} to {maxs} (for an input of {list(input.shape[non_spatial:])})")
        return tuple(s - lo for s, lo in zip(output_size, mins))

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        op = conv_transpose1d if self._nd == 1 else conv_transpose2d
        return op(input, self.weight, self.bias, self.stride, self.padding, output_padding, self.groups,
                  self.dilation, _who=self)


class ConvTranspose1d(_ConvTransposeNd):
    r"""Applies a 1-D transposed convolution (the gradient of ``Conv1d`` w.r.t. its input).

    Args:
        in_channels, out_channels, kernel_size, stride, groups, bias, dilation: as in :class:`Conv1d`.
        padding (int or tuple): ``dilation * (kernel_size - 1) - padding`` zeros are added to both sides of the
            input. Default: 0.
        output_padding (int or tuple): extra size added to one side of the output. Default: 0.
        padding_mode (str): only ``'zeros'``.

    Attributes:
        weight: :math:`(C_{in}, C_{out}/\text{groups}, k)`.
        bias: :math:`(C_{out})`.
    """

    _nd = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, output_padding, groups, bias,
                         dilation, padding_mode, device, dtype)


class ConvTranspose2d(_ConvTransposeNd):
    r"""Applies a 2-D transposed convolution ("deconvolution"), the gradient of ``Conv2d`` w.r.t. its input.

    Args:
        in_channels (int): number of channels in the input image.
        out_channels (int): number of channels produced.
        kernel_size (int or tuple): size of the convolving kernel.
        stride (int or tuple): stride of the convolution. Default: 1.
        padding (int or tuple): ``dilation * (kernel_size - 1) - padding`` zeros are added to both sides of the
            input. Default: 0.
        output_padding (int or tuple): extra size added to one side of each output dimension (smaller than stride
            or dilation). Default: 0.
        groups (int): number of blocked connections. Default: 1.
        bias (bool): add a learnable bias. Default: ``True``.
        dilation (int or tuple): spacing between kernel elements. Default: 1.
        padding_mode (str): only ``'zeros'``.

    Shape:
        :math:`H_{out} = (H_{in} - 1) s - 2p + d (k - 1) + \text{output\_padding} + 1`. ``forward(input,
        output_size)`` may instead ask for a size; the matching ``output_padding`` is derived from it.

    Attributes:
        weight: :math:`(C_{in}, C_{out}/\text{groups}, kH, kW)`.
        bias: :math:`(C_{out})`.
    """

    _nd = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, output_padding, groups, bias,
                         dilation, padding_mode, device, dtype)
