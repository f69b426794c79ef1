"""In-place ops (``add_``, ``mul_``, ``zero_``, ``copy_``, the random fills ``normal_``, ``uniform_``,
``exponential_``, ``geometric_``, ``cauchy_``, ``log_normal_``, ...) and the augmented operators (``+=``).

When autograd is not involved (grad mode off, or nothing requires grad) the update is written straight into the
tensor's array with a NumPy ``out=`` ufunc: no temporary, so optimizers and initialisers are cheap. Otherwise the
out-of-place op runs and :func:`apply_inplace` rebases the graph. Either way the version counter is bumped, so a
node that saved the old value raises PyTorch's error on backward.
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as dt
from ..autograd.graph import Node
from ..random import _gen
from ._base import (GRAD_ENABLED, Tensor, apply_inplace, binary_arrays, broadcast_error, check_writable, record, sum_to,
                    wrap)
from . import arithmetic as _ar

__all__ = []


def _check_leaf(self):
    if not self._data.flags.writeable:
        check_writable(self)
    if GRAD_ENABLED[0] and self._requires_grad and self.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def _untracked(self, other) -> bool:
    return not GRAD_ENABLED[0] or not (self._requires_grad or (isinstance(other, Tensor) and other._requires_grad))


def _ufunc_inplace(self, other, ufunc, name):
    """``self = ufunc(self, other)`` written into self's array; PyTorch's error if the result dtype can't fit."""
    a, b = binary_arrays(self, other)
    res_dtype = a.dtype
    if res_dtype != self._data.dtype and not np.can_cast(res_dtype, self._data.dtype, casting="same_kind"):
        raise RuntimeError(f"result type {dt.from_numpy_dtype(res_dtype).scalar_name} can't be cast to the desired "
                           f"output type {self.dtype.scalar_name}")
    try:
        ufunc(self._data, b, out=self._data, casting="unsafe")
    except ValueError:
        check_writable(self)
        shape_b = getattr(b, "shape", ())
        raise RuntimeError(f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                           f"{list(np.broadcast_shapes(self._data.shape, shape_b))}") from None
    self._bump_version()
    return self


def _make_binary_inplace(name, op, ufunc):
    def method(self, other, **kwargs):
        if not kwargs and _untracked(self, other):
            return _ufunc_inplace(self, other, ufunc, name)
        return apply_inplace(self, op, other, **kwargs)
    method.__name__ = name
    method.__doc__ = f"In-place version of :meth:`{name[:-1]}`."
    return method


def _scaled(other, alpha):
    # ``alpha * other`` for the untracked fast path (an SGD-style update ``p.sub_(grad, alpha=lr)``)
    return other._data * alpha if isinstance(other, Tensor) else other * alpha


def _add_(self, other, *, alpha=1):
    if _untracked(self, other):
        return _ufunc_inplace(self, other if alpha == 1 else wrap(_scaled(other, alpha)), np.add, "add_")
    return apply_inplace(self, _ar.add, other, alpha=alpha)


def _sub_(self, other, *, alpha=1):
    if _untracked(self, other):
        return _ufunc_inplace(self, other if alpha == 1 else wrap(_scaled(other, alpha)), np.subtract, "sub_")
    return apply_inplace(self, _ar.sub, other, alpha=alpha)


def _div_(self, other, *, rounding_mode=None):
    if rounding_mode is None and self._data.dtype.kind in "fc" and _untracked(self, other):
        return _ufunc_inplace(self, other, np.true_divide, "div_")
    return apply_inplace(self, _ar.div, other, rounding_mode=rounding_mode)


_add_.__doc__ = "In-place version of :meth:`add`: ``self += alpha * other``."
_sub_.__doc__ = "In-place version of :meth:`sub`: ``self -= alpha * other``."
_div_.__doc__ = "In-place version of :meth:`div`."
Tensor.add_ = _add_
Tensor.sub_ = Tensor.subtract_ = _sub_
Tensor.mul_ = Tensor.multiply_ = _make_binary_inplace("mul_", _ar.mul, np.multiply)
Tensor.div_ = Tensor.divide_ = Tensor.true_divide_ = _div_
Tensor.pow_ = _make_binary_inplace("pow_", _ar.pow, np.power)


def _method_inplace(name):
    """``x.name_(*args)`` = apply_inplace of the out-of-place method ``x.name(*args)`` (looked up at call time, so
    ops defined later by other modules work)."""
    def method(self, *args, **kwargs):
        return apply_inplace(self, getattr(Tensor, name), *args, **kwargs)
    method.__name__ = name + "_"
    method.__doc__ = f"In-place version of :meth:`{name}`."
    return method


def _restriding_inplace(name):
    """``x.name_(*args)`` for the view ops that change only shape and strides (``transpose_``, ``squeeze_``, ...): as
    in PyTorch the tensor itself becomes that view of its data (no element moves), keeping its graph; a leaf that
    requires grad refuses, as for any in-place op."""
    def method(self, *args, **kwargs):
        if GRAD_ENABLED[0] and self._requires_grad and self.grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        view = getattr(Tensor, name)(self, *args, **kwargs)
        self._data = view._data
        if view.grad_fn is not None:
            self.grad_fn, self._output_nr = view.grad_fn, view._output_nr
        if self._base is not None:  # a view stays a view of its root, through the new shape
            self._base = view._base
        return self
    method.__name__ = name + "_"
    method.__doc__ = f"In-place version of :meth:`{name}` (changes this tensor's shape and strides)."
    return method


for _name in ("t", "transpose", "swapaxes", "swapdims", "squeeze", "unsqueeze"):
    setattr(Tensor, _name + "_", _restriding_inplace(_name))


for _name in ("remainder", "floor_divide", "fmod", "neg", "negative", "abs", "absolute", "exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "square", "sin", "cos", "tan",
              "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "floor", "ceil", "round", "trunc", "frac",
              "sign", "reciprocal", "clamp", "clip", "clamp_min", "clamp_max", "relu", "lerp", "atan2", "erf",
              "masked_scatter", "index_fill", "index_add", "index_copy", "scatter", "scatter_add",
              "tril", "triu", "logit", "nan_to_num", "hypot", "maximum", "minimum", "addmm", "addcmul", "addcdiv", "logical_not", "logical_and", "logical_or", "logical_xor",
              "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "eq", "ne", "lt", "le", "gt", "ge",
              "copysign", "deg2rad", "rad2deg", "sinc", "gcd", "lcm", "acosh", "asinh", "atanh", "arccos",
              "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "cumsum", "cumprod", "exp2", "erfc",
              "erfinv", "sgn", "fix", "xlogy", "greater", "greater_equal", "less", "less_equal", "not_equal",
              "bitwise_left_shift", "bitwise_right_shift", "nextafter", "renorm"):
    setattr(Tensor, _name + "_", _method_inplace(_name))


# ------------------------------------------------------------------------------------------------ fill, zero, copy
class FillBackward0(Node):
    """The new value does not depend on the old one: its gradient is zero."""
    __slots__ = ()

    def apply(self, grad):
        value_shape = self.value_shape
        gv = None
        if len(self.next_functions) > 1 and self.next_functions[1] is not None:
            gv = grad.sum().reshape(value_shape)
        return grad * 0, gv


class CopyBackwards(Node):
    __slots__ = ()

    def apply(self, grad):
        src_shape, src_dtype = self.src_shape, self.src_dtype
        gs = None
        if self.next_functions[1] is not None:
            g = grad.real if (src_dtype.category != dt.COMPLEX and grad.is_complex()) else grad
            gs = sum_to(g.to(src_dtype), src_shape)
        return grad * 0, gs


def _overwrite(self, new_data, node, value=None):
    """Write ``new_data`` into self; with autograd, the new value's node is ``node`` (edges: old self, value)."""
    def compute(old, val):
        return record(node, wrap(self._xp.array(new_data, dtype=self._data.dtype)), old, val)
    if GRAD_ENABLED[0] and (self._requires_grad or (value is not None and value._requires_grad)):
        return apply_inplace(self, compute, value)
    _check_leaf(self)
    self._data[...] = new_data
    self._bump_version()
    return self


def fill_(self, value):
    """Fill with ``value`` (a number or a 0-dim tensor, which then receives the gradient)."""
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.dim()} "
                               "dimensions.")
        node = FillBackward0()
        node.value_shape = value._data.shape
        data = self._xp.broadcast_to(value._data.astype(self._data.dtype), self._data.shape)
        return _overwrite(self, data, node, value)
    if not GRAD_ENABLED[0] or not self._requires_grad:
        if not self._data.flags.writeable:
            check_writable(self)
        self._data.fill(value)
        self._bump_version()
        return self
    node = FillBackward0()
    node.value_shape = ()
    return _overwrite(self, self._xp.full(self._data.shape, value, self._data.dtype), node)


def zero_(self):
    """Fill with zeros."""
    return fill_(self, 0)


def copy_(self, src, non_blocking=False):
    """Copy ``src`` (broadcast, cast to self's dtype) into self; differentiable w.r.t. ``src``."""
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' must be Tensor, not {type(src).__name__}")
    try:
        data = self._xp.broadcast_to(src._data, self._data.shape)
    except ValueError:
        raise broadcast_error(self._data.shape, src._data.shape) from None
    if self._data.dtype.kind not in "c" and src._data.dtype.kind == "c":
        data = data.real
    node = CopyBackwards()
    node.src_shape, node.src_dtype = src._data.shape, src.dtype
    return _overwrite(self, data.astype(self._data.dtype, copy=False), node, src)


Tensor.fill_ = fill_
Tensor.zero_ = zero_
Tensor.copy_ = copy_


# --------------------------------------------------------------------------------------------------------- random
class _DrawBackward(Node):
    """A random fill replaces the values: the old value gets a zero gradient. Each distribution's node has its
    name in PyTorch (``<NormalBackward0>``)."""
    __slots__ = ()

    def apply(self, grad):
        return grad * 0, None


class NormalBackward0(_DrawBackward):
    __slots__ = ()


class UniformBackward0(_DrawBackward):
    __slots__ = ()


class ExponentialBackward0(_DrawBackward):
    __slots__ = ()


class GeometricBackward0(_DrawBackward):
    __slots__ = ()


class CauchyBackward0(_DrawBackward):
    __slots__ = ()


class LogNormalBackward0(_DrawBackward):
    __slots__ = ()


# PyTorch's C++ dtype names, as its "continuous distribution" errors print them
_CPP_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>"}


def _random_fill(self, draw, name, node_cls, complex_ok=False, kinds="f"):
    _check_leaf(self)
    kind = self._data.dtype.kind
    if kind not in kinds and not (complex_ok and kind == "c"):
        raise RuntimeError(f"{name} expects a floating point tensor, got {self.dtype}")
    # the draw comes from the ember generator on the host and moves to the tensor's device
    if kind == "c":  # fill the real and imaginary parts as one real tensor of twice the size (PyTorch's view_as_real)
        data = self._xp.asarray(draw(self._data.shape + (2,)).view(self._data.dtype)[..., 0])
    else:
        data = self._xp.asarray(draw(self._data.shape))
    return _overwrite(self, data, node_cls())


def _continuous_only(self, distribution, scalar_names=False):
    """PyTorch's error for a continuous distribution drawn into an integer, bool or complex tensor."""
    if self._data.dtype.kind != "f":
        name = self.dtype.scalar_name if scalar_names else _CPP_NAMES.get(self.dtype.name, self.dtype.name)
        raise RuntimeError(f"{distribution} distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {name}")


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with samples from N(mean, std**2)."""
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    g = _gen(generator)
    if self._data.dtype.kind == "c":  # each part gets std/sqrt(2), so the complex samples have variance std**2
        std = std / math.sqrt(2.0)
    return _random_fill(self, lambda s: g.normal(mean, std, s), "normal_", NormalBackward0, complex_ok=True)


def uniform_(self, a=0.0, b=1.0, *, generator=None):
    """Fill with samples from U(a, b)."""
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}")
    g = _gen(generator)
    return _random_fill(self, lambda s: g.uniform(a, b, s), "uniform_", UniformBackward0)


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 0/1 samples that are 1 with probability ``p``."""
    g = _gen(generator)
    _check_leaf(self)
    self._data[...] = self._xp.asarray(g.random(self._data.shape)) < (p._data if isinstance(p, Tensor) else p)
    self._bump_version()
    return self


def exponential_(self, lambd=1.0, *, generator=None):
    """Fill with samples from the exponential distribution with rate ``lambd`` (density ``lambd * exp(-lambd x)``
    on ``x >= 0``); ``lambd=inf`` gives zeros."""
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    _continuous_only(self, "Exponential", scalar_names=True)
    g = _gen(generator)
    return _random_fill(self, lambda s: g.exponential(1.0 / lambd, s), "exponential_", ExponentialBackward0)


def geometric_(self, p, *, generator=None):
    """Fill with samples from the geometric distribution with success probability ``p``: the number of Bernoulli
    trials up to and including the first success (1, 2, ...). Integer tensors are filled too."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    if self._data.dtype.kind == "b":
        raise NotImplementedError("\"geometric_cpu\" not implemented for 'Bool'")
    g = _gen(generator)
    # the counts are whole numbers: they fit integer tensors as they are
    return _random_fill(self, lambda s: g.geometric(p, s), "geometric_", GeometricBackward0, kinds="fiu")


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fill with samples from the Cauchy distribution ``1 / (pi sigma (1 + ((x - median) / sigma) ** 2))``."""
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    _continuous_only(self, "Cauchy")
    g = _gen(generator)
    return _random_fill(self, lambda s: median + sigma * g.standard_cauchy(s), "cauchy_", CauchyBackward0)


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fill with samples of ``exp(X)`` for ``X`` drawn from N(mean, std**2): ``mean`` and ``std`` are those of the
    underlying normal distribution."""
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    if self._data.dtype.kind != "f":
        raise NotImplementedError(f"\"log_normal_cpu\" not implemented for '{self.dtype.scalar_name}'")
    g = _gen(generator)
    return _random_fill(self, lambda s: g.lognormal(mean, std, s), "log_normal_", LogNormalBackward0)


def random_(self, from_=0, to=None, *, generator=None):
    """Fill with integers drawn uniformly from ``[from, to)``."""
    g = _gen(generator)
    if to is None:
        from_, to = 0, from_ if from_ else 2 ** 24
    _check_leaf(self)
    self._data[...] = self._xp.asarray(g.integers(from_, to, self._data.shape))
    self._bump_version()
    return self


Tensor.normal_ = normal_
Tensor.uniform_ = uniform_
Tensor.bernoulli_ = bernoulli_
Tensor.exponential_ = exponential_
Tensor.geometric_ = geometric_
Tensor.cauchy_ = cauchy_
Tensor.log_normal_ = log_normal_
Tensor.random_ = random_


# ------------------------------------------------------------------------------------------- augmented operators
Tensor.__iadd__ = lambda self, other: _add_(self, other)
Tensor.__isub__ = lambda self, other: _sub_(self, other)
Tensor.__imul__ = lambda self, other: Tensor.mul_(self, other)
Tensor.__itruediv__ = lambda self, other: _div_(self, other)
Tensor.__ifloordiv__ = lambda self, other: apply_inplace(self, _ar.floor_divide, other)
Tensor.__imod__ = lambda self, other: apply_inplace(self, _ar.remainder, other)
Tensor.__ipow__ = lambda self, other: Tensor.pow_(self, other)
Tensor.__iand__ = lambda self, other: apply_inplace(self, Tensor.bitwise_and, other)
Tensor.__ior__ = lambda self, other: apply_inplace(self, Tensor.bitwise_or, other)
Tensor.__ixor__ = lambda self, other: apply_inplace(self, Tensor.bitwise_xor, other)
Tensor.__ilshift__ = lambda self, other: apply_inplace(self, Tensor.bitwise_left_shift, other)
Tensor.__irshift__ = lambda self, other: apply_inplace(self, Tensor.bitwise_right_shift, other)
