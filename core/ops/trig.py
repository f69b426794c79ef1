"""Trigonometric and hyperbolic functions, elementwise: ``sin``/``cos``/``tan``, their inverses (with NumPy's
``arc*`` aliases), ``atan2``, ``hypot``, ``sinh``/``cosh``/``tanh`` and their inverses.

Every op is a function (``ember.sin``) and a Tensor method (``t.sin()``), each forward beside its backward node.
Angles are in radians; integer input computes in the default float dtype. Backward rules are written with ember ops,
so ``create_graph=True`` differentiates them again.
"""
from __future__ import annotations

from ..autograd.graph import Node
from ._base import GRAD_ENABLED, broadcast_error, record, sum_to, tensor_method, wrap
from .clamp_where import where
from ._elementwise import _SAVE_INPUT, _SAVE_OUTPUT, _binary_floating, _conj, _shapes, _unary

__all__ = ["sin", "cos", "tan", "asin", "acos", "atan", "arcsin", "arccos", "arctan", "atan2", "arctan2", "hypot",
           "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh", "deg2rad", "rad2deg",
           "sinc"]


# ----------------------------------------------------------------------------------------------- trigonometric
class SinBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * _conj(x.cos()),)


class CosBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * -_conj(x.sin()),)


class TanBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        out = self.saved_output()
        return (grad * _conj(out * out + 1),)


class AsinBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * _conj((1 - x * x).rsqrt()),)


class AcosBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * -_conj((1 - x * x).rsqrt()),)


class AtanBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad / _conj(x * x + 1),)


class Atan2Backward0(Node):
    __slots__ = ()

    def apply(self, grad):
        y, x = self.saved_tensors
        shape_y, shape_x = self.shape_y, self.shape_x
        denom = y * y + x * x
        gy = sum_to(grad * x / denom, shape_y) if self.next_functions[0] is not None else None
        gx = sum_to(grad * -y / denom, shape_x) if self.next_functions[1] is not None else None
        return gy, gx


sin = _unary("sin", lambda xp, a: xp.sin(a), SinBackward0, _SAVE_INPUT, "Elementwise sine (radians).")
cos = _unary("cos", lambda xp, a: xp.cos(a), CosBackward0, _SAVE_INPUT, "Elementwise cosine (radians).")
tan = _unary("tan", lambda xp, a: xp.tan(a), TanBackward0, _SAVE_OUTPUT, "Elementwise tangent (radians).")
asin = arcsin = _unary("asin", lambda xp, a: xp.arcsin(a), AsinBackward0, _SAVE_INPUT,
                       "Elementwise arcsine (nan outside [-1, 1] for real input).", quiet=True, aliases=("arcsin",))
acos = arccos = _unary("acos", lambda xp, a: xp.arccos(a), AcosBackward0, _SAVE_INPUT,
                       "Elementwise arccosine (nan outside [-1, 1] for real input).", quiet=True, aliases=("arccos",))
atan = arctan = _unary("atan", lambda xp, a: xp.arctan(a), AtanBackward0, _SAVE_INPUT,
                       "Elementwise arctangent.", aliases=("arctan",))


@tensor_method("atan2", "arctan2")
def atan2(input, other):
    """Elementwise arctangent of ``input / other`` using the signs of both to pick the quadrant."""
    a, b, it, ot = _binary_floating(input, other, "atan2")
    try:
        out = wrap(input._xp.arctan2(a, b))
    except ValueError:
        raise broadcast_error(a.shape, b.shape) from None
    if GRAD_ENABLED[0] and (input._requires_grad or other._requires_grad):
        node = Atan2Backward0()
        node.save(input, other)
        node.shape_y, node.shape_x = _shapes(input, other)
        record(node, out, input, other)
    return out


arctan2 = atan2


# ----------------------------------------------------------------------------------------------------------- hypot
class HypotBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        a, b = self.saved_tensors
        shape_a, shape_b = self.shape_a, self.shape_b
        out = self.saved_output()
        ga = sum_to(grad * a / out, shape_a) if self.next_functions[0] is not None else None
        gb = sum_to(grad * b / out, shape_b) if self.next_functions[1] is not None else None
        return ga, gb


@tensor_method()
def hypot(input, other):
    """Elementwise ``sqrt(input**2 + other**2)`` without intermediate overflow."""
    a, b, it, ot = _binary_floating(input, other, "hypot")
    try:
        out = wrap(input._xp.hypot(a, b))
    except ValueError:
        raise broadcast_error(a.shape, b.shape) from None
    if GRAD_ENABLED[0] and (input._requires_grad or other._requires_grad):
        node = HypotBackward0()
        node.save(input, other)
        node.save_output(out)
        node.shape_a, node.shape_b = _shapes(input, other)
        record(node, out, input, other)
    return out


# -------------------------------------------------------------------------------------------------- hyperbolic
class SinhBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * _conj(x.cosh()),)


class CoshBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * _conj(x.sinh()),)


class TanhBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        out = self.saved_output()
        return (grad * _conj(1 - out * out),)


class AsinhBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * _conj((x * x + 1).rsqrt()),)


class AcoshBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        if x.is_complex():
            # sqrt(x-1) * sqrt(x+1) != sqrt(x*x - 1) off the real axis: keep the branch of acosh's derivative
            return (grad * _conj((x - 1).rsqrt() * (x + 1).rsqrt()),)
        return (grad * (x * x - 1).rsqrt(),)


class AtanhBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad / _conj(1 - x * x),)


sinh = _unary("sinh", lambda xp, a: xp.sinh(a), SinhBackward0, _SAVE_INPUT, "Elementwise hyperbolic sine.",
              quiet=True)
cosh = _unary("cosh", lambda xp, a: xp.cosh(a), CoshBackward0, _SAVE_INPUT, "Elementwise hyperbolic cosine.",
              quiet=True)
tanh = _unary("tanh", lambda xp, a: xp.tanh(a), TanhBackward0, _SAVE_OUTPUT, "Elementwise hyperbolic tangent.")
asinh = arcsinh = _unary("asinh", lambda xp, a: xp.arcsinh(a), AsinhBackward0, _SAVE_INPUT,
                         "Elementwise inverse hyperbolic sine.", aliases=("arcsinh",))
acosh = arccosh = _unary("acosh", lambda xp, a: xp.arccosh(a), AcoshBackward0, _SAVE_INPUT,
                         "Elementwise inverse hyperbolic cosine (nan below 1 for real input).", quiet=True,
                         aliases=("arccosh",))
atanh = arctanh = _unary("atanh", lambda xp, a: xp.arctanh(a), AtanhBackward0, _SAVE_INPUT,
                         "Elementwise inverse hyperbolic tangent (±inf at ±1, nan beyond).", quiet=True,
                         aliases=("arctanh",))


_PI = 3.141592653589793


@tensor_method()
def deg2rad(input):
    """Degrees to radians, ``input * pi / 180`` (integers give the default float dtype)."""
    return input * (_PI / 180.0)


@tensor_method()
def rad2deg(input):
    """Radians to degrees, ``input * 180 / pi`` (integers give the default float dtype)."""
    return input * (180.0 / _PI)


@tensor_method()
def sinc(input):
    """The normalized sinc ``sin(pi x) / (pi x)``, 1 at 0 (where its gradient is 0, as PyTorch's)."""
    px = input * _PI
    zero = px == 0
    safe = where(zero, 1, px)
    return where(zero, 1, sin(safe) / safe)
