"""Elementwise math: exp/log family, trig, sigmoid/tanh, rounding, clamp, where, lerp, and friends."""
from __future__ import annotations

from ..autograd.graph import Node
from ._base import GRAD_ENABLED, record, tensor_method, wrap

__all__ = ["exp", "log", "sqrt", "sign", "reciprocal"]


def _float_input(input):
    data = input._data
    if data.dtype.kind in "biu":
        from ..dtypes import get_default_dtype
        data = data.astype(get_default_dtype().np)
    return data


class ExpBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (grad * self.saved_output(),)


@tensor_method()
def exp(input):
    """Elementwise ``e ** input``."""
    out = wrap(input._xp.exp(_float_input(input)))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = ExpBackward0()
        node.save_output(out)
        record(node, out, input)
    return out


class LogBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (a,) = self.saved_tensors
        return (grad / a,)


@tensor_method()
def log(input):
    """Elementwise natural logarithm."""
    xp = input._xp
    with xp.errstate(divide="ignore", invalid="ignore"):
        out = wrap(xp.log(_float_input(input)))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = LogBackward0()
        node.save(input)
        record(node, out, input)
    return out


class SqrtBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (grad / (self.saved_output() * 2),)


@tensor_method()
def sqrt(input):
    """Elementwise square root."""
    xp = input._xp
    with xp.errstate(invalid="ignore"):
        out = wrap(xp.sqrt(_float_input(input)))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = SqrtBackward0()
        node.save_output(out)
        record(node, out, input)
    return out


class SignBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (grad * 0,)


@tensor_method()
def sign(input):
    """-1, 0 or 1 by the sign of each element (gradient zero)."""
    out = wrap(input._xp.sign(input._data))
    if GRAD_ENABLED[0] and input._requires_grad:
        record(SignBackward0(), out, input)
    return out


class ReciprocalBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        out = self.saved_output()
        return (-grad * out * out,)


@tensor_method()
def reciprocal(input):
    """Elementwise ``1 / input``."""
    xp = input._xp
    with xp.errstate(divide="ignore"):
        out = wrap(1 / _float_input(input))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = ReciprocalBackward0()
        node.save_output(out)
        record(node, out, input)
    return out
