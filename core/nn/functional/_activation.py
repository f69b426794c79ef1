"""Activation functions of ``ember.nn.functional``: ReLU family, smooth rectifiers, shrinkage, softmax family.

Functions that PyTorch also exposes at the top level (``relu``, ``sigmoid``, ``tanh``) reuse the core ops. The
others are fused: one NumPy pass forward, and a backward node whose rule is written with ember ops, so second-order
gradients (``create_graph=True``) come for free. Piecewise-linear activations save a constant slope mask: their
second derivative is zero almost everywhere, which is exactly what differentiating ``grad * mask`` gives.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ... import threads
from ...autograd.graph import Node
from ...device import array_module as _xp_of
from ...ops import math as _m
from ...ops._base import GRAD_ENABLED, Tensor, apply_inplace, record, wrap
from ...ops._bounds import clamped
from ...ops._select import select
from ...ops.softmax import _axis, _log_softmax, _softmax, _softmax_dim
from ...ops.special import _ERF32_P, _ERF32_Q
from ...random import _gen

__all__ = ["threshold", "threshold_", "relu", "relu_", "relu6", "hardtanh", "hardtanh_", "leaky_relu",
           "leaky_relu_", "prelu", "rrelu", "rrelu_", "elu", "elu_", "selu", "selu_", "celu", "celu_", "gelu", "silu",
           "mish", "sigmoid", "tanh", "tanhshrink", "softsign", "softplus", "hardswish", "hardsigmoid", "logsigmoid",
           "hardshrink", "softshrink", "glu", "softmax", "log_softmax", "softmin", "gumbel_softmax"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _check(input, fn):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input._data.dtype.kind not in "fc":
        raise RuntimeError(f"\"{fn}\" not implemented for '{input.dtype.scalar_name}'")


# ------------------------------------------------------------------------------------------ piecewise linear
class _SlopeBackward(Node):
    """Backward of a piecewise-linear activation: ``grad * slope`` with the slope array saved at forward."""

    __slots__ = ()

    def apply(self, grad):
        return (grad * wrap(self._ctx),)


class ThresholdBackward0(_SlopeBackward):
    __slots__ = ()


class HardtanhBackward0(_SlopeBackward):
    __slots__ = ()


class LeakyReluBackward0(Node):
    """``grad if x > 0 else grad * negative_slope`` (PyTorch's ``leaky_relu_backward``) from the saved input."""

    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        slope = self._ctx
        if GRAD_ENABLED[0]:
            return (_m.where(wrap(x._data > 0), grad, grad * slope),)
        g = grad._data
        if 0 < slope <= 1:  # the factor is max(x > 0, slope): 1 or the slope exactly, in three fast passes
            factor = grad._xp.greater(x._data, 0, out=grad._xp.empty(x._data.shape, dtype=g.dtype))
            return (wrap(g * clamped(factor, lo=slope, out=factor)),)
        return (wrap(select(x._data > 0, g, g * slope)),)


class HardshrinkBackward0(_SlopeBackward):
    __slots__ = ()


class SoftshrinkBackward0(_SlopeBackward):
    __slots__ = ()


class HardsigmoidBackward0(_SlopeBackward):
    __slots__ = ()


class RreluWithNoiseBackward0(_SlopeBackward):
    __slots__ = ()


def _piecewise(input, out_data, slope, node_cls):
    out = wrap(out_data)
    if GRAD_ENABLED[0] and input._requires_grad:
        node = node_cls()
        node._ctx = slope
        record(node, out, input)
    return out


def threshold(input, threshold, value, inplace=False):
    """``y = x if x > threshold else value``."""
    _check(input, "threshold")
    if inplace:
        return apply_inplace(input, _threshold, threshold, value)
    return _threshold(input, threshold, value)


def _threshold(input, thr, value):
    x = input._data
    xp = input._xp
    mask = x > thr
    out = xp.where(mask, x, xp.asarray(value, dtype=x.dtype))
    return _piecewise(input, out, mask.astype(x.dtype), ThresholdBackward0)


def threshold_(input, threshold, value):
    """In-place :func:`threshold`."""
    return apply_inplace(input, _threshold, threshold, value)


def relu(input, inplace=False):
    """``max(0, x)`` elementwise."""
    if not isinstance(input, Tensor):
        raise TypeError(f"relu(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if inplace:
        return apply_inplace(input, _m.relu)
    return _m.relu(input)


def relu_(input):
    """In-place :func:`relu`."""
    return apply_inplace(input, _m.relu)


def _hardtanh(input, min_val, max_val):
    x = input._data
    out = clamped(x, min_val, max_val)
    slope = ((x > min_val) & (x < max_val)).astype(x.dtype)
    return _piecewise(input, out, slope, HardtanhBackward0)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Clamp ``x`` to ``[min_val, max_val]`` (gradient 1 inside, 0 outside)."""
    _check(input, "hardtanh")
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return apply_inplace(input, _hardtanh, min_val, max_val)
    return _hardtanh(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place :func:`hardtanh`."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    """``min(max(0, x), 6)``."""
    return hardtanh(input, 0.0, 6.0, inplace)


def _leaky_relu(input, negative_slope):
    x = input._data
    scaled = input._xp.asarray(x * negative_slope)  # (an array even for 0-d input: written in place below)
    if 0 < negative_slope <= 1:  # then x > 0 exactly where x >= x * slope: two fast passes, the same bits
        out = input._xp.maximum(x, scaled, out=scaled)
    else:
        out = select(x > 0, x, scaled)
    out = wrap(out.astype(x.dtype, copy=False))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = LeakyReluBackward0()
        node.save(input)
        node._ctx = negative_slope
        record(node, out, input)
    return out


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``x if x > 0 else negative_slope * x``."""
    _check(input, "leaky_relu")
    if inplace:
        return apply_inplace(input, _leaky_relu, negative_slope)
    return _leaky_relu(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    """In-place :func:`leaky_relu`."""
    return leaky_relu(input, negative_slope, inplace=True)


def prelu(input, weight):
    """``x if x > 0 else weight * x`` with a learnable slope per channel (dim 1) or one shared slope."""
    _check(input, "prelu")
    if not isinstance(weight, Tensor):
        raise TypeError(f"prelu(): argument 'weight' (position 2) must be Tensor, not {type(weight).__name__}")
    n = weight.numel()
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    if n != 1:
        channels = input.shape[1] if input.ndim >= 2 else (input.shape[0] if input.ndim == 1 else 1)
        if input.ndim == 0 or channels != n:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = {n} "
                               f"and channel size = {channels}.")
        shape = [1] * input.ndim
        shape[1 if input.ndim >= 2 else 0] = n
        w = weight.reshape(shape)
    else:
        w = weight.reshape(())
    x = input._data
    pos = (x > 0).astype(x.dtype)
    # x * pos + (x * neg) * w: exact first and second derivatives in both x and w
    return input * wrap(pos) + (input * wrap(1 - pos)) * w


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False, generator=None):
    """Randomized leaky ReLU: in training the negative slope is drawn from U(lower, upper) per element; in
    evaluation it is ``(lower + upper) / 2``."""
    _check(input, "rrelu")
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)

    def fn(t):
        x = t._data
        a = t._xp.asarray(_gen(generator).uniform(lower, upper, x.shape).astype(x.dtype))
        slope = t._xp.where(x >= 0, t._xp.asarray(1, x.dtype), a)
        return _piecewise(t, x * slope, slope, RreluWithNoiseBackward0)
    return apply_inplace(input, fn) if inplace else fn(input)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place :func:`rrelu`."""
    return rrelu(input, lower, upper, training, inplace=True)


def hardshrink(input, lambd=0.5):
    """``x if |x| > lambd else 0`` (NaN stays NaN, as PyTorch's ``0 if -lambd <= x <= lambd else x``)."""
    _check(input, "hardshrink")
    x = input._data
    mask = (x > lambd) | (x < -lambd)
    out = input._xp.where((x >= -lambd) & (x <= lambd), 0, x).astype(x.dtype)
    return _piecewise(input, out, mask.astype(x.dtype), HardshrinkBackward0)


def softshrink(input, lambd=0.5):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 in between."""
    _check(input, "softshrink")
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    x = input._data
    xp = input._xp
    # the middle is x * 0, as in PyTorch: NaN stays NaN and -0.3 gives -0.0
    out = xp.where(x > lambd, x - lambd, xp.where(x < -lambd, x + lambd, x * 0)).astype(x.dtype)
    return _piecewise(input, out, ((x > lambd) | (x < -lambd)).astype(x.dtype), SoftshrinkBackward0)


def hardsigmoid(input, inplace=False):
    """``relu6(x + 3) / 6``."""
    _check(input, "hardsigmoid")

    def fn(t):
        x = t._data
        out = t._xp.clip(x / 6 + 0.5, 0, 1).astype(x.dtype)
        slope = (((x > -3) & (x < 3)) / 6).astype(x.dtype)
        return _piecewise(t, out, slope, HardsigmoidBackward0)
    return apply_inplace(input, fn) if inplace else fn(input)


# ------------------------------------------------------------------------------------------ smooth rectifiers
class EluBackward0(Node):
    """ELU family backward, as PyTorch's ``elu_backward``: ``grad * scale`` where x > 0 (and at NaN); elsewhere
    ``grad * input_scale * alpha * scale * exp(x * input_scale)`` from the saved input. After the in-place op
    (whose input is overwritten) it is ``grad * input_scale * (out + alpha * scale)`` from the saved output, as in
    PyTorch, which then refuses a negative alpha. Composed from ember ops, so create_graph differentiates it again.

    (From the output, ``out + alpha * scale`` cancels: in float32 it lost ~1e-3 of the slope at x = -10 and 3 % at
    x = -15, and +inf gave NaN.)"""

    __slots__ = ()

    def apply(self, grad):
        alpha, scale, input_scale, is_result = self._ctx
        if is_result:
            if alpha < 0:
                raise RuntimeError("In-place elu backward calculation is triggered with a negative slope which is "
                                   "not supported. This is caused by calling in-place forward function with a "
                                   "negative slope, please call out-of-place version instead.")
            out = self.saved_output()
            nonpositive, slope = out <= 0, grad * input_scale * (out + alpha * scale)
        else:
            (x,) = self.saved_tensors
            nonpositive, slope = x <= 0, grad * input_scale * (alpha * scale) * (x * input_scale).exp()
        return (_m.where(nonpositive, slope, grad * scale),)


def _elu_like(input, alpha, scale, input_scale, is_result=False):
    """The ELU family's forward; ``is_result`` for the in-place ops (their backward reads the output)."""
    x = input._data
    xp = input._xp
    pos = x > 0
    neg = xp.expm1(clamped(x, hi=0) * input_scale) * (alpha * scale)
    out = wrap(select(pos, x * scale, neg).astype(x.dtype, copy=False))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = EluBackward0()
        node._ctx = (alpha, scale, input_scale, is_result)
        if is_result:
            node.save_output(out)
        else:
            node.save(input)
        record(node, out, input)
    return out


def elu(input, alpha=1.0, inplace=False):
    """``x if x > 0 else alpha * (exp(x) - 1)``."""
    _check(input, "elu")
    if inplace:
        return apply_inplace(input, _elu_like, alpha, 1.0, 1.0, True)
    return _elu_like(input, alpha, 1.0, 1.0)


def elu_(input, alpha=1.0):
    """In-place :func:`elu`."""
    return elu(input, alpha, inplace=True)


def selu(input, inplace=False):
    """``scale * elu(x, alpha)`` with the self-normalising constants (alpha ~ 1.6733, scale ~ 1.0507)."""
    _check(input, "selu")
    if inplace:
        return apply_inplace(input, _elu_like, _SELU_ALPHA, _SELU_SCALE, 1.0, True)
    return _elu_like(input, _SELU_ALPHA, _SELU_SCALE, 1.0)


def selu_(input):
    """In-place :func:`selu`."""
    return selu(input, inplace=True)


def celu(input, alpha=1.0, inplace=False):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    _check(input, "celu")
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: celu alpha must not be 0")
    if inplace:
        return apply_inplace(input, _elu_like, alpha, 1.0, 1.0 / alpha, True)
    return _elu_like(input, alpha, 1.0, 1.0 / alpha)


def celu_(input, alpha=1.0):
    """In-place :func:`celu`."""
    return celu(input, alpha, inplace=True)


_SQRT_2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_GELU_C = 0.044715


class GeluBackward0(Node):
    """Backward of :func:`gelu`; the exact form saved ``Phi(x)`` at forward, so its slope costs one exp."""

    __slots__ = ()

    def apply(self, grad):
        x, phi = self.saved_tensors
        approximate = self.approximate
        if not GRAD_ENABLED[0]:
            if phi is not None:
                return (wrap(_gelu_backward_exact(grad._data, x._data, phi._data)),)
            return (wrap(grad._data * _gelu_slope(x._data, approximate)),)
        # composed rule (for create_graph)
        if approximate == "tanh":
            inner = (x + x * x * x * _GELU_C) * _SQRT_2_OVER_PI
            t = _m.tanh(inner)
            d_inner = (x * x * (3 * _GELU_C) + 1) * _SQRT_2_OVER_PI
            slope = (t + 1) * 0.5 + x * 0.5 * (1 - t * t) * d_inner
        else:
            cdf = (_m.erf(x * (1 / _SQRT_2)) + 1) * 0.5
            pdf = _m.exp(x * x * -0.5) * _INV_SQRT_2PI
            slope = cdf + x * pdf
        return (grad * slope,)


def _erf_array(a):
    return _m.erf(wrap(a))._data


def _gelu_slope(x, approximate):
    if approximate == "tanh":
        inner = _SQRT_2_OVER_PI * (x + _GELU_C * x * x * x)
        t = _xp_of(x).tanh(inner)
        return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _SQRT_2_OVER_PI * (1 + 3 * _GELU_C * x * x)
    cdf = 0.5 * (1 + _erf_array(x / _SQRT_2))
    return cdf + x * _xp_of(x).exp(-0.5 * x * x) * _INV_SQRT_2PI


# Exact GELU kernels. Elements are processed in blocks that stay in cache, each pass writing into a reused
# buffer, and the blocks are spread over ember's threads (the result does not depend on the split: every element
# is computed by the same sequence of operations). float32 takes the erf rational approximation of
# ops/special.py (a few ulps); other dtypes take ember's erf.
# 64k elements (256 KiB per array, the optimizer's block too): the forward makes ~30 NumPy calls per block, and with
# two threads each call start and end is a hand-over of the GIL between them, which on a virtual machine can cost a
# thread wake-up. With 32k-element blocks the 2-thread forward on 1M elements took 8.5-9.3 ms, no faster than 1
# thread; with 64k blocks it takes 6.0-6.5 ms, and 1 thread is the same with either.
_GELU_BLOCK = 65536


def _gelu_forward_exact(x):
    """``(x * Phi(x), Phi(x))`` for an exact-erf GELU."""
    xp = _xp_of(x)
    if x.dtype != np.float32:
        phi = _erf_array(x / _SQRT_2)
        phi += 1
        phi *= 0.5
        phi = phi.astype(x.dtype, copy=False)
        return x * phi, phi
    x = xp.ascontiguousarray(x)
    out, phi = xp.empty_like(x), xp.empty_like(x)
    threads.elementwise(_gelu32_part, out, phi, x, grain=threads.ELEMENTWISE_GRAIN // 2)
    return out, phi


# the float32 constants of the kernel, made once: a block makes ~30 NumPy calls, and converting a Python float on
# each of them is a measurable share of the Python time between calls (time that holds the GIL, which the other
# threads' parts wait for)
_F32_INV_SQRT_2, _F32_CLIP, _F32_HALF = np.float32(1 / _SQRT_2), np.float32(4.0), np.float32(0.5)
# the numerator's coefficients halved: every step of the rational function is then exactly half of the unhalved one
# (scaling by a power of two rounds nowhere), so it yields erf / 2 bit for bit and Phi needs one pass less
_F32_P_HALF = tuple(np.float32(c) * _F32_HALF for c in _ERF32_P)
_F32_Q = tuple(np.float32(c) for c in _ERF32_Q)


def _gelu32_part(out, phi, x):
    out, phi, x = out.reshape(-1), phi.reshape(-1), x.reshape(-1)
    xp = _xp_of(x)
    multiply = xp.multiply
    n = x.size
    u, z, den = (xp.empty(min(n, _GELU_BLOCK), dtype=np.float32) for _ in range(3))
    for lo in range(0, n, _GELU_BLOCK):
        hi = min(n, lo + _GELU_BLOCK)
        m = hi - lo
        ub, zb, db, pb = u[:m], z[:m], den[:m], phi[lo:hi]
        multiply(x[lo:hi], _F32_INV_SQRT_2, out=ub)
        xp.clip(ub, -_F32_CLIP, _F32_CLIP, out=ub)
        multiply(ub, ub, out=zb)
        _horner_into(xp, zb, _F32_P_HALF, pb)
        pb *= ub
        _horner_into(xp, zb, _F32_Q, db)
        pb /= db  # erf(x / sqrt 2) / 2
        pb += _F32_HALF
        multiply(x[lo:hi], pb, out=out[lo:hi])


def _horner_into(xp, z, coeffs, out):
    """``out = ((c0 z + c1) z + ...) + c_last`` in the dtype of the coefficients (float32 scalars), in place."""
    xp.multiply(z, coeffs[0], out=out)
    for c in coeffs[1:-1]:
        out += c
        out *= z
    out += coeffs[-1]


def _gelu_backward_exact(g, x, phi):
    """``g * (Phi(x) + x phi(x))`` with the forward's ``Phi(x)``."""
    xp = _xp_of(x)
    if not (g.shape == x.shape and g.dtype == x.dtype == phi.dtype):
        return g * (phi + x * xp.exp(-0.5 * x * x) * _INV_SQRT_2PI)
    out = xp.empty_like(x)
    g, x, phi = xp.ascontiguousarray(g), xp.ascontiguousarray(x), xp.ascontiguousarray(phi)
    threads.elementwise(_gelu_backward_part, out, g, x, phi, grain=threads.ELEMENTWISE_GRAIN // 2)
    return out


def _gelu_backward_part(out, g, x, phi):
    out, g, x, phi = out.reshape(-1), g.reshape(-1), x.reshape(-1), phi.reshape(-1)
    xp = _xp_of(x)
    n = x.size
    t = xp.empty(min(n, _GELU_BLOCK), dtype=x.dtype)
    c = x.dtype.type(_INV_SQRT_2PI)
    half = x.dtype.type(-0.5)
    for lo in range(0, n, _GELU_BLOCK):
        hi = min(n, lo + _GELU_BLOCK)
        tb, xb = t[:hi - lo], x[lo:hi]
        xp.multiply(xb, xb, out=tb)
        tb *= half
        xp.exp(tb, out=tb)
        tb *= xb
        tb *= c
        tb += phi[lo:hi]
        xp.multiply(g[lo:hi], tb, out=out[lo:hi])


def gelu(input, approximate="none"):
    """Gaussian Error Linear Unit: ``x * Phi(x)``; ``approximate='tanh'`` uses
    ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``."""
    _check(input, "gelu")
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh, got {approximate!r}")
    x = input._data
    phi = None
    if approximate == "tanh":
        out = 0.5 * x * (1 + input._xp.tanh(_SQRT_2_OVER_PI * (x + _GELU_C * x * x * x)))
    else:
        out, phi = _gelu_forward_exact(x)
    out = wrap(out.astype(x.dtype, copy=False))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = GeluBackward0()
        node.save(input, None if phi is None else wrap(phi))
        node.approximate = approximate
        record(node, out, input)
    return out


def sigmoid(input):
    """``1 / (1 + exp(-x))``."""
    return _m.sigmoid(input)


def tanh(input):
    """Hyperbolic tangent."""
    return _m.tanh(input)


def silu(input, inplace=False):
    """``x * sigmoid(x)`` (also called swish)."""
    _check(input, "silu")

    def fn(t):
        return t * _m.sigmoid(t)
    return apply_inplace(input, fn) if inplace else fn(input)


def mish(input, inplace=False):
    """``x * tanh(softplus(x))``."""
    _check(input, "mish")

    def fn(t):
        return t * _m.tanh(softplus(t))
    return apply_inplace(input, fn) if inplace else fn(input)


def hardswish(input, inplace=False):
    """``x * relu6(x + 3) / 6``."""
    _check(input, "hardswish")

    def fn(t):
        x = t._data
        gate = t._xp.asarray(x + 3)
        gate = clamped(gate, 0, 6, out=gate)  # PyTorch's x * min(max(x + 3, 0), 6) / 6, as it rounds
        gate *= x
        gate /= 6
        res = wrap(gate.astype(x.dtype, copy=False))
        if GRAD_ENABLED[0] and t._requires_grad:
            node = HardswishBackward0()
            node.save(t)
            record(node, res, t)
        return res
    return apply_inplace(input, fn) if inplace else fn(input)


class HardswishBackward0(Node):
    """PyTorch's ``hardswish_backward``: 0 where ``x <= -3``, ``grad * (x / 3 + 0.5)`` where ``x < 3``, else
    ``grad`` (so a NaN input passes the gradient on)."""

    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        xd = x._data
        low, middle = xd <= -3, xd < 3
        if GRAD_ENABLED[0]:
            return (_m.where(wrap(low), 0.0, _m.where(wrap(middle), grad * (x / 3 + 0.5), grad)),)
        g = grad._data
        slope = xd / 3
        slope += 0.5
        slope *= g
        return (wrap(select(low, 0, select(middle, slope.astype(g.dtype, copy=False), g))),)


def tanhshrink(input):
    """``x - tanh(x)``."""
    _check(input, "tanhshrink")
    return input - _m.tanh(input)


def softsign(input):
    """``x / (1 + |x|)``."""
    _check(input, "softsign")
    return input / (input.abs() + 1)


class SoftplusBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        beta, thr = self._ctx
        xd = x._data
        linear = (xd * beta) > thr
        if not GRAD_ENABLED[0]:
            with np.errstate(over="ignore"):
                s = 1.0 / (1.0 + x._xp.exp(-x._xp.where(linear, 0, xd * beta)))
            slope = x._xp.where(linear, 1, s).astype(xd.dtype)
            return (wrap(grad._data * slope),)
        lin = wrap(linear.astype(xd.dtype))
        return (grad * (lin + (1 - lin) * _m.sigmoid(x * beta)),)


def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta x)) / beta``, reverting to ``x`` where ``beta x > threshold`` for numerical stability."""
    _check(input, "softplus")
    x = input._data
    xp = input._xp
    bx = x * beta
    # log(1 + exp(bx)) = max(bx, 0) + log1p(exp(-|bx|)): NumPy's logaddexp(0, bx) is a scalar loop ~10x slower
    tail = xp.asarray(xp.abs(bx))
    xp.negative(tail, out=tail)
    xp.exp(tail, out=tail)
    xp.log1p(tail, out=tail)
    tail += clamped(bx, lo=0)
    tail /= beta
    out = wrap(select(bx > threshold, x, tail.astype(x.dtype, copy=False)))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = SoftplusBackward0()
        node.save(input)
        node._ctx = (beta, threshold)
        record(node, out, input)
    return out


class LogSigmoidBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        # d/dx log(sigmoid(x)) = sigmoid(-x)
        if not GRAD_ENABLED[0]:
            xd = x._data
            xp = x._xp
            e = xp.exp(-xp.abs(xd))
            s = xp.where(xd >= 0, e / (1 + e), 1 / (1 + e)).astype(xd.dtype)
            return (wrap(grad._data * s),)
        return (grad * _m.sigmoid(-x),)


def logsigmoid(input):
    """``log(1 / (1 + exp(-x)))``, computed stably as ``min(x, 0) - log1p(exp(-|x|))``."""
    _check(input, "log_sigmoid")
    x = input._data
    xp = input._xp
    out = wrap((xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x)))).astype(x.dtype))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = LogSigmoidBackward0()
        node.save(input)
        record(node, out, input)
    return out


def glu(input, dim=-1):
    """Gated linear unit: split ``input`` in halves ``a, b`` along ``dim`` and return ``a * sigmoid(b)``."""
    _check(input, "glu")
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim + input.ndim if dim < 0 else dim
    n = input.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    a, b = input.chunk(2, d)
    return a * _m.sigmoid(b)


# ---------------------------------------------------------------------------------------------- softmax family
# the kernels live in core/ops/softmax.py (em.softmax is the same computation); these are the functional forms


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Apply softmax along ``dim``: ``exp(x_i) / sum_j exp(x_j)``, so that the slices along ``dim`` are
    non-negative and sum to 1 (computed with the maximum subtracted first, so ``exp`` cannot overflow).

    Args:
        input (Tensor): input.
        dim (int): the dimension along which softmax is computed. Leaving it out is deprecated: it then picks 0
            for 0-, 1- and 3-D inputs and 1 otherwise, with a warning.
        dtype (ember.dtype, optional): cast the input to this dtype before the operation (useful to avoid
            overflow in low precision). Default: None.
    """
    return _softmax(input, dim, _stacklevel + 1, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Apply softmax followed by a logarithm along ``dim``: ``x_i - log(sum_j exp(x_j))``, in one numerically
    stable pass (more accurate than ``log(softmax(x))``).

    Args:
        input (Tensor): input.
        dim (int): the dimension along which log_softmax is computed (leaving it out is deprecated, as for
            :func:`softmax`).
        dtype (ember.dtype, optional): cast the input to this dtype before the operation. Default: None.
    """
    return _log_softmax(input, dim, _stacklevel + 1, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-x)`` along ``dim``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"softmin(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if dim is None:
        dim = _softmax_dim("softmin", input.ndim, _stacklevel + 1)
    if dtype is not None:
        input = input.to(dtype)
    return softmax(-input, dim)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1, generator=None):
    """Sample from the Gumbel-softmax distribution: ``softmax((logits + g) / tau)`` with Gumbel noise ``g``.

    With ``hard=True`` the result is one-hot in the forward pass but differentiates like the soft sample
    (straight-through estimator).
    """
    if not isinstance(logits, Tensor):
        raise TypeError(f"gumbel_softmax(): argument 'logits' must be Tensor, not {type(logits).__name__}")
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    x, xp = logits._data, logits._xp
    gumbels = -xp.log(xp.asarray(_gen(generator).exponential(1.0, x.shape))).astype(x.dtype)
    y_soft = softmax((logits + wrap(gumbels)) / tau, dim)
    if not hard:
        return y_soft
    axis = _axis(dim, logits.ndim, "gumbel_softmax")
    y = y_soft._data
    y_hard = xp.zeros_like(y)  # one-hot at the first maximum along dim
    xp.put_along_axis(y_hard, xp.expand_dims(y.argmax(axis=axis), axis), 1, axis=axis)
    return wrap(y_hard) - y_soft.detach() + y_soft
