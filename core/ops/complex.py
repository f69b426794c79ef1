"""Complex-number ops: real/imag views, conj, angle, polar, complex and the real <-> complex views.

Gradients follow PyTorch's convention: for a real loss ``L`` of a complex tensor ``z`` the stored gradient is
``dL/dRe(z) + i dL/dIm(z)``. A holomorphic ``f`` therefore back-propagates ``grad * conj(f'(z))``, and a real input
that produced a complex output receives ``Re(grad * conj(d out / d x))``.

ember has no lazy conjugate or negation bit: ``conj`` always materialises the conjugate, so ``is_conj`` and
``is_neg`` are always False and ``resolve_conj``/``resolve_neg`` return their input.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..autograd.graph import Node
from ._base import GRAD_ENABLED, Tensor, apply_inplace, broadcast_error, check_tensor, record, sum_to, \
    tensor_method, wrap

__all__ = ["real", "imag", "angle", "conj", "conj_physical", "resolve_conj", "resolve_neg", "is_conj", "is_neg",
           "view_as_real", "view_as_complex", "polar", "complex"]

_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128)}
_REAL_OF = {np.dtype(np.complex64): np.dtype(np.float32), np.dtype(np.complex128): np.dtype(np.float64)}


def _share_version(out: Tensor, base: Tensor) -> Tensor:
    """Make ``out`` a view of ``base`` for the in-place checks (they share one version counter)."""
    out._version = base._ensure_version()
    return out


def _is_complex(t: Tensor) -> bool:
    return t._data.dtype.kind == "c"


# ---------------------------------------------------------------------------------------------------- real / imag
class RealBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (complex(grad, _zeros_like(grad)),)


class ImagBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (complex(_zeros_like(grad), grad),)


def _zeros_like(t: Tensor) -> Tensor:
    return wrap(t._xp.zeros_like(t._data))


def real(input):
    """The real part of ``input``: a view for complex tensors, ``input`` itself for real ones."""
    check_tensor(input, "input", "real")
    if not _is_complex(input):
        return input
    out = _share_version(wrap(input._data.real), input)
    if GRAD_ENABLED[0] and input._requires_grad:
        record(RealBackward0(), out, input)
    return out


def imag(input):
    """The imaginary part of a complex ``input``, as a view sharing its memory."""
    check_tensor(input, "input", "imag")
    if not _is_complex(input):
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    out = _share_version(wrap(input._data.imag), input)
    if GRAD_ENABLED[0] and input._requires_grad:
        record(ImagBackward0(), out, input)
    return out


def _set_real(self, value):
    if not _is_complex(self):
        apply_inplace(self, lambda old, v: _as_value(v, old), value)
        return
    apply_inplace(self, lambda old, v: complex(_as_value(v, real(old)), imag(old)), value)


def _set_imag(self, value):
    if not _is_complex(self):
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    apply_inplace(self, lambda old, v: complex(real(old), _as_value(v, imag(old))), value)


def _as_value(v, like: Tensor) -> Tensor:
    """``v`` (tensor or number) cast and broadcast to ``like``'s dtype and shape."""
    if not isinstance(v, Tensor):
        v = wrap(like._xp.asarray(v, dtype=like._data.dtype))
    if v._data.dtype != like._data.dtype:
        v = v.to(like.dtype)
    return v.expand(like._data.shape) if v._data.shape != like._data.shape else v


Tensor.real = property(real, _set_real, doc="The real part (a view for complex tensors; the tensor itself otherwise).")
Tensor.imag = property(imag, _set_imag, doc="The imaginary part of a complex tensor (a view).")


# -------------------------------------------------------------------------------------------------------- conj
class ConjBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (conj(grad),)


class ConjPhysicalBackward0(ConjBackward0):
    __slots__ = ()


def _conj_impl(input, node_cls):
    if not _is_complex(input):
        return input
    out = wrap(input._xp.conj(input._data))
    if GRAD_ENABLED[0] and input._requires_grad:
        record(node_cls(), out, input)
    return out


@tensor_method()
def conj(input):
    """The complex conjugate of ``input`` (``input`` itself for real tensors)."""
    return _conj_impl(input, ConjBackward0)


@tensor_method()
def conj_physical(input):
    """The complex conjugate, always materialised (identical to :func:`conj` in ember, which has no lazy conj)."""
    return _conj_impl(input, ConjPhysicalBackward0)


def _conj_physical_(self):
    """In-place complex conjugate."""
    if not _is_complex(self):
        return self
    return apply_inplace(self, conj_physical)


Tensor.conj_physical_ = _conj_physical_


@tensor_method()
def resolve_conj(input):
    """Materialise a lazy conjugate; ember conjugates eagerly, so this returns ``input``."""
    return input


@tensor_method()
def resolve_neg(input):
    """Materialise a lazy negation; ember negates eagerly, so this returns ``input``."""
    return input


@tensor_method()
def is_conj(input) -> bool:
    """Whether ``input`` carries a lazy conjugate bit; always False in ember."""
    return False


@tensor_method()
def is_neg(input) -> bool:
    """Whether ``input`` carries a lazy negation bit; always False in ember (``neg`` materialises its result)."""
    return False


# ------------------------------------------------------------------------------------------------------- angle
class AngleBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (z,) = self.saved_tensors
        if not _is_complex(z):
            return (grad * 0,)
        # d angle / dz in PyTorch's convention is i z / |z|^2, defined as 0 at z == 0 (where the numerator is 0
        # already, so shifting the denominator there to 1 is enough). Composed of ember ops for higher order.
        # |z|^2 is kept complex (zero imaginary part) so no real tensor meets a complex gradient.
        mag2 = z * conj(z)
        safe = mag2 + wrap((z._data == 0).astype(mag2._data.dtype))
        return (grad.to(z.dtype) * z * 1j / safe,)


@tensor_method()
def angle(input):
    """The elementwise argument (phase) in radians; 0 or pi for real tensors."""
    check_tensor(input, "input", "angle")
    data = input._data
    if data.dtype.kind in "biu":
        data = data.astype(dt.get_default_dtype().np)
    xp = input._xp
    if data.dtype.kind == "c":
        out = wrap(xp.angle(data).astype(_REAL_OF[data.dtype], copy=False))
    else:
        # PyTorch: pi for negative values, 0 otherwise (also for -0.0), NaN stays NaN
        res = xp.where(data < 0, data.dtype.type(np.pi), data.dtype.type(0))
        out = wrap(xp.where(xp.isnan(data), data, res))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = AngleBackward0()
        node.save(input)
        record(node, out, input)
    return out


# ------------------------------------------------------------------------------------------- real <-> complex views
class ViewAsRealBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (view_as_complex(grad.contiguous()),)


class ViewAsComplexBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (view_as_real(grad),)


def view_as_real(input):
    """A real view of a complex tensor with a trailing dimension of size 2 holding (real, imag)."""
    check_tensor(input, "input", "view_as_real")
    data = input._data
    if not _is_complex(input):
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if data.ndim and data.strides[-1] != data.itemsize and data.shape[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    view = data.reshape(data.shape + (1,)).view(_REAL_OF[data.dtype])
    out = _share_version(wrap(view), input)
    if GRAD_ENABLED[0] and input._requires_grad:
        record(ViewAsRealBackward0(), out, input)
    return out


def view_as_complex(input):
    """A complex view of a float32/float64 tensor whose last dimension (of size 2) holds (real, imag)."""
    check_tensor(input, "input", "view_as_complex")
    data = input._data
    if data.dtype not in _COMPLEX_OF:
        raise RuntimeError(f"view_as_complex is only supported for float and double tensors, but got a tensor of "
                           f"scalar type: {input.dtype.scalar_name}")
    if data.ndim == 0 or data.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if data.strides[-1] != data.itemsize:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    try:
        view = data.view(_COMPLEX_OF[data.dtype])[..., 0]
    except ValueError:
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension") from None
    out = _share_version(wrap(view), input)
    if GRAD_ENABLED[0] and input._requires_grad:
        record(ViewAsComplexBackward0(), out, input)
    return out


# ------------------------------------------------------------------------------------------------ complex / polar
def _check_real_pair(a, b, fn, first, second):
    check_tensor(a, first, fn)
    check_tensor(b, second, fn)
    da, db = a._data.dtype, b._data.dtype
    if da not in _COMPLEX_OF or db not in _COMPLEX_OF:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{a.dtype.scalar_name} and {b.dtype.scalar_name}")
    if da != db:
        raise RuntimeError(f"Expected object of scalar type {a.dtype.scalar_name} but got scalar type "
                           f"{b.dtype.scalar_name} for second argument")
    if type(a._data) is not type(b._data):
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{a.device} and {b.device}!")


class ComplexBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        shape_re, shape_im = self.shape_re, self.shape_im
        gr = sum_to(real(grad), shape_re) if self.next_functions[0] is not None else None
        gi = sum_to(imag(grad), shape_im) if self.next_functions[1] is not None else None
        return gr, gi


def complex(real, imag):
    """A complex tensor ``real + i * imag`` from two float tensors of the same dtype (broadcasting)."""
    _check_real_pair(real, imag, "complex", "real", "imag")
    a, b = real._data, imag._data
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise broadcast_error(a.shape, b.shape) from None
    out_data = real._xp.empty(shape, dtype=_COMPLEX_OF[a.dtype])
    out_data.real = a
    out_data.imag = b
    out = wrap(out_data)
    if GRAD_ENABLED[0] and (real._requires_grad or imag._requires_grad):
        node = ComplexBackward0()
        node.shape_re, node.shape_im = a.shape, b.shape
        record(node, out, real, imag)
    return out


class PolarBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        magnitude, phase = self.saved_tensors
        out = self.saved_output()
        shape_m, shape_p = magnitude._data.shape, phase._data.shape
        gm = gp = None
        if self.next_functions[0] is not None:
            unit = polar(_ones_like(magnitude), phase)  # e^{i phase}, differentiable in phase
            gm = sum_to(real(grad * conj(unit)), shape_m)
        if self.next_functions[1] is not None:
            gp = sum_to(real(grad * conj(out * 1j)), shape_p)
        return gm, gp


def _ones_like(t: Tensor) -> Tensor:
    return wrap(t._xp.ones_like(t._data))


def polar(abs, angle):
    """The complex tensor with magnitude ``abs`` and phase ``angle``: ``abs * (cos(angle) + i sin(angle))``."""
    _check_real_pair(abs, angle, "polar", "abs", "angle")
    xp = abs._xp
    m, p = abs._data, angle._data
    try:
        shape = np.broadcast_shapes(m.shape, p.shape)
    except ValueError:
        raise broadcast_error(m.shape, p.shape) from None
    out_data = xp.empty(shape, dtype=_COMPLEX_OF[m.dtype])
    out_data.real = m * xp.cos(p)
    out_data.imag = m * xp.sin(p)
    out = wrap(out_data)
    if GRAD_ENABLED[0] and (abs._requires_grad or angle._requires_grad):
        node = PolarBackward0()
        node.save(abs, angle)
        node.save_output(out)
        record(node, out, abs, angle)
    return out
