"""Linear layers: ``Identity``, ``Linear`` and ``Bilinear``."""
from __future__ import annotations

import math

from ...ops.creation import empty
from .. import init
from ..functional._linear import bilinear, linear
from ..parameter import Parameter
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear"]


class Identity(Module):
    """A placeholder that returns its input unchanged (its constructor ignores any argument)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """Applies an affine map ``y = x A^T + b``.

    Args:
        in_features (int): size of each input sample (the last dimension).
        out_features (int): size of each output sample.
        bias (bool): if ``False``, the layer learns no additive bias. Default: ``True``.

    Shape:
        input ``(*, in_features)``, output ``(*, out_features)``.

    Attributes:
        weight: ``(out_features, in_features)``, initialised from U(-sqrt(k), sqrt(k)) with ``k = 1/in_features``.
        bias: ``(out_features)``, initialised from the same distribution.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None):
        super().__init__()
        _check_features("Linear", in_features=in_features, out_features=out_features)
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-draw the weight with ``kaiming_uniform_(a=sqrt(5))`` and the bias from U(-1/sqrt(fan_in), ...)."""
        # kaiming_uniform_ with a=sqrt(5) is U(-1/sqrt(fan_in), 1/sqrt(fan_in)), PyTorch's historical default
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        try:
            return linear(input, self.weight, self.bias)
        except RuntimeError:
            shape = getattr(input, "shape", None)
            if shape is not None and (len(shape) == 0 or shape[-1] != self.in_features):
                got = shape[-1] if len(shape) else "no"
                raise RuntimeError(f"Linear(in_features={self.in_features}): input has {got} features, expected "
                                   f"{self.in_features} (input shape {list(shape)}, weight shape "
                                   f"{list(self.weight.shape)})") from None
            raise

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Bilinear(Module):
    """Applies a bilinear map ``y = x1^T A x2 + b``.

    Args:
        in1_features (int): size of each first input sample.
        in2_features (int): size of each second input sample.
        out_features (int): size of each output sample.
        bias (bool): learn an additive bias. Default: ``True``.

    Attributes:
        weight: ``(out_features, in1_features, in2_features)`` from U(-sqrt(k), sqrt(k)), ``k = 1/in1_features``.
        bias: ``(out_features)`` from the same distribution.
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__()
        _check_features("Bilinear", in1_features=in1_features, in2_features=in2_features, out_features=out_features)
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in1_features, in2_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-draw weight and bias from U(-1/sqrt(in1_features), 1/sqrt(in1_features))."""
        bound = 1 / math.sqrt(self.weight.shape[1]) if self.weight.shape[1] > 0 else 0
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


def _check_features(layer, **sizes):
    for name, value in sizes.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{layer}: {name} must be an int, got {type(value).__name__} ({value!r})")
        if value < 0:
            raise ValueError(f"{layer}: {name} must be non-negative, got {value}")
