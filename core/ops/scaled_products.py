"""The scaled sums ``beta * input + alpha * product``: ``addmv``, ``addr``, ``baddbmm`` and ``addbmm`` (``addmm`` is
in :mod:`products`, next to ``mm``), with their in-place methods.

As in PyTorch, ``beta=0`` never reads ``input`` (NaN and inf there are ignored and it gets no gradient), and each op
keeps PyTorch's own dtype rule: ``addr`` promotes, the other three insist on one dtype.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as dt, threads
from ..autograd.graph import Node
from ._base import GRAD_ENABLED, Tensor, apply_inplace, normalize_dim, record, sum_to, tensor_method, wrap
from .arithmetic import _conj
from .products import _CPP_NAMES, _blas_friendly, _check_tensors, _like_input, matmul, outer

__all__ = ["addmv", "addr", "baddbmm", "addbmm"]


# PyTorch's rule for all four: with ``beta == 0`` the input is not read, so NaN or inf in it cannot reach the result
# (its shape must still broadcast to the product's); its gradient is then zero.

def _cpp_name(dtype) -> str:
    return _CPP_NAMES.get(dtype.name, dtype.name)


def _scalar_arg(value, out_dtype, name, fn):
    """``beta``/``alpha`` converted to the result dtype as PyTorch converts them. ``addr`` refuses a float for an
    integer or bool result and a bool for any other result; the other ops truncate floats towards zero for integer
    results."""
    if isinstance(value, Tensor):
        value = value.item()
    cat = out_dtype.np.kind
    if isinstance(value, complex) and cat != "c":
        if value.imag != 0:
            raise RuntimeError(f"value cannot be converted to type {_cpp_name(out_dtype.np)} without overflow")
        value = value.real
    if fn == "addr":
        if isinstance(value, bool) and cat != "b":
            raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
        if cat in "biu" and not isinstance(value, (bool, int, np.integer)):
            raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point number.")
        return bool(value) if cat == "b" else value
    if cat in "iu":
        return int(value)
    return value


def _cj(s):
    """The complex conjugate of a Python scalar (the factor of a complex gradient)."""
    return s.conjugate() if isinstance(s, complex) else s


def _times(t, s):
    return t if s == 1 else t * s


def _affine(xp, inp, prod, beta, alpha, shape):
    """``beta * inp + alpha * prod`` as a fresh array of ``shape`` in ``inp``'s dtype; ``prod`` None stands for
    zeros (``alpha == 0`` in the ops that, like BLAS, then skip the product), and ``beta == 0`` leaves ``inp``
    unread. For bool arrays the sum is ``beta and inp or alpha and prod``."""
    res = xp.zeros(shape, dtype=inp.dtype)
    if inp.dtype.kind == "b":
        if beta:
            res |= inp
        if alpha and prod is not None:
            res |= prod
        return res
    if prod is not None:
        res += prod * alpha if alpha != 1 else prod
    if beta != 0:
        res += inp * beta if beta != 1 else inp
    return res


def _size(t: Tensor, d: int) -> int:
    """``t.size(d)`` with PyTorch's errors (the shape checks of the ops below read sizes before checking ranks)."""
    if t._data.ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    return t._data.shape[normalize_dim(d, t._data.ndim)]


def _expand_check(input: Tensor, target) -> None:
    """Raise ``expand``'s error unless ``input`` broadcasts to ``target`` (without recording a node)."""
    if input._data.shape != tuple(target):
        wrap(input._data).expand(tuple(target))


def _bool_kernel(fn, input):
    """PyTorch's error for bool tensors, which its BLAS-backed kernel ``fn`` does not take."""
    if input._data.dtype.kind == "b":
        raise NotImplementedError(f"\"{fn}\" not implemented for 'Bool'")


def _recorded(node_cls, out, input, a, b, beta, alpha):
    """``out``, with its backward node when a gradient is needed: the products' operands saved, and ``beta``,
    ``alpha`` and ``input``'s shape (which the gradient of ``input`` is summed to)."""
    if GRAD_ENABLED[0] and (input._requires_grad or a._requires_grad or b._requires_grad):
        node = node_cls()
        node.save(a, b)
        node.beta, node.alpha, node.in_shape = beta, alpha, input._data.shape
        record(node, out, input, a, b)
    return out


class AddmvBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        mat, vec = self.saved_tensors
        beta, alpha, in_shape = self.beta, self.alpha, self.in_shape
        nf = self.next_functions
        gi = sum_to(_times(grad, _cj(beta)), in_shape) if nf[0] is not None else None
        gm = _times(outer(grad, _conj(vec)), _cj(alpha)) if nf[1] is not None else None
        gv = _times(matmul(_conj(mat).mT, grad), _cj(alpha)) if nf[2] is not None else None
        return gi, gm, gv


@tensor_method()
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``: a matrix-vector product added to ``input`` (a vector, or a scalar
    that broadcasts). All three tensors must have the same dtype. With ``beta=0`` ``input`` is ignored, NaN and inf
    included; with ``alpha=0`` so is the product."""
    _check_tensors("addmv", ("input", input), ("mat", mat), ("vec", vec))
    if mat.ndim != 2 or vec.ndim != 1 or input.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}")
    m, n = mat._data.shape
    if n != vec._data.shape[0] or (input._data.size != 1 and _size(input, 0) != m):
        raise RuntimeError(f"size mismatch, got input ({_size(input, 0)}), mat ({m}x{n}), vec ({vec._data.shape[0]})")
    dtypes = [t._data.dtype for t in (input, mat, vec)]
    if not dtypes[0] == dtypes[1] == dtypes[2]:
        names = [dt.scalar_type_name(d) for d in dtypes]
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {names[0]}, {names[1]}, and "
                           f"{names[2]}")
    _bool_kernel("addmv_impl_cpu", input)
    beta = _scalar_arg(beta, input.dtype, "beta", "addmv")
    alpha = _scalar_arg(alpha, input.dtype, "alpha", "addmv")
    xp = input._xp
    prod = None if alpha == 0 else xp.matmul(mat._data, vec._data)  # BLAS gemv does not read mat, vec then
    out = wrap(_affine(xp, input._data, prod, beta, alpha, (m,)))
    return _recorded(AddmvBackward0, out, input, mat, vec, beta, alpha)


class AddrBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        vec1, vec2, inp = self.saved_tensors
        beta, alpha = self.beta, self.alpha
        nf = self.next_functions
        gi = _like_input(sum_to(_times(grad, _cj(beta)), inp._data.shape), inp) if nf[0] is not None else None
        # the operands were promoted to the result dtype: so are they here, and each gradient goes back to its own
        v1, v2 = (v if v._data.dtype == grad._data.dtype else v.to(grad.dtype) for v in (vec1, vec2))
        g1 = _like_input(_times(matmul(grad, _conj(v2)), _cj(alpha)), vec1) if nf[1] is not None else None
        g2 = _like_input(_times(matmul(grad.mT, _conj(v1)), _cj(alpha)), vec2) if nf[2] is not None else None
        return gi, g1, g2


@tensor_method()
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)``: an outer product added to ``input`` (broadcast to
    ``(len(vec1), len(vec2))``). Operands are promoted; for bool tensors the sum is a logical or. With ``beta=0``
    ``input`` is ignored, NaN and inf included."""
    _check_tensors("addr", ("input", input), ("vec1", vec1), ("vec2", vec2))
    for name, t in (("vec1", vec1), ("vec2", vec2)):
        if t.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {t.ndim}-D")
    shape = (vec1._data.shape[0], vec2._data.shape[0])
    _expand_check(input, shape)
    rt = dt.result_type(input, vec1, vec2)
    beta = _scalar_arg(beta, rt, "beta", "addr")
    alpha = _scalar_arg(alpha, rt, "alpha", "addr")
    xp = input._xp
    a, b = (t._data.astype(rt.np, copy=False) for t in (vec1, vec2))
    prod = a[:, None] & b[None, :] if rt.np.kind == "b" else a[:, None] * b[None, :]
    out = wrap(_affine(xp, input._data.astype(rt.np, copy=False), prod, beta, alpha, shape))
    if GRAD_ENABLED[0] and (input._requires_grad or vec1._requires_grad or vec2._requires_grad):
        node = AddrBackward0()
        node.save(vec1, vec2, input)
        node.beta, node.alpha = beta, alpha
        record(node, out, input, vec1, vec2)
    return out


class BaddbmmBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        b1, b2 = self.saved_tensors
        beta, alpha, in_shape = self.beta, self.alpha, self.in_shape
        nf = self.next_functions
        gi = sum_to(_times(grad, _cj(beta)), in_shape) if nf[0] is not None else None
        g1 = _times(matmul(grad, _conj(b2).mT), _cj(alpha)) if nf[1] is not None else None
        g2 = _times(matmul(_conj(b1).mT, grad), _cj(alpha)) if nf[2] is not None else None
        return gi, g1, g2


def _batch_checks(batch1, batch2):
    for name, t in (("batch1", batch1), ("batch2", batch2)):
        if t.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")


@tensor_method()
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * bmm(batch1, batch2)``: batched matrix products ``(b, n, m) @ (b, m, p)`` added to
    ``input`` (broadcast to ``(b, n, p)``). All three tensors must have the same dtype. With ``beta=0`` ``input``
    is ignored, NaN and inf included."""
    _check_tensors("baddbmm", ("input", input), ("batch1", batch1), ("batch2", batch2))
    shape = (_size(batch1, 0), _size(batch1, 1), _size(batch2, 2))
    _expand_check(input, shape)
    _batch_checks(batch1, batch2)
    b, _, m = batch1._data.shape
    if batch2._data.shape[:2] != (b, m):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {m}] but got: "
                           f"[{batch2._data.shape[0]}, {batch2._data.shape[1]}].")
    d_in, d1, d2 = (t._data.dtype for t in (input, batch1, batch2))
    if d_in != d1:
        raise RuntimeError(f"Input dtypes must be the same, got: input {_cpp_name(d_in)}, batch1: {_cpp_name(d1)}, "
                           f"batch2: {_cpp_name(d2)}")
    if d1 != d2:
        raise RuntimeError(f"expected scalar type {dt.scalar_type_name(d1)} but found {dt.scalar_type_name(d2)}")
    _bool_kernel("baddbmm", input)
    beta = _scalar_arg(beta, input.dtype, "beta", "baddbmm")
    alpha = _scalar_arg(alpha, input.dtype, "alpha", "baddbmm")
    xp = input._xp
    prod = threads.matmul(xp, _blas_friendly(batch1._data), _blas_friendly(batch2._data))
    out = wrap(_affine(xp, input._data, prod, beta, alpha, shape))
    return _recorded(BaddbmmBackward0, out, input, batch1, batch2, beta, alpha)


class AddbmmBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        b1, b2 = self.saved_tensors
        beta, alpha, in_shape = self.beta, self.alpha, self.in_shape
        nf = self.next_functions
        gi = sum_to(_times(grad, _cj(beta)), in_shape) if nf[0] is not None else None
        # every batch received the same upstream gradient: broadcast it over the batch dim
        g1 = _times(matmul(grad.unsqueeze(0), _conj(b2).mT), _cj(alpha)) if nf[1] is not None else None
        g2 = _times(matmul(_conj(b1).mT, grad.unsqueeze(0)), _cj(alpha)) if nf[2] is not None else None
        return gi, g1, g2


@tensor_method()
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_i(batch1[i] @ batch2[i])``: the batched products reduced over the batch and added
    to ``input`` (broadcast to ``(n, p)``). All three tensors must have the same dtype. With ``beta=0`` ``input`` is
    ignored, NaN and inf included; with ``alpha=0`` so is the product."""
    _check_tensors("addbmm", ("input", input), ("batch1", batch1), ("batch2", batch2))
    shape = (_size(batch1, 1), _size(batch2, 2))
    _expand_check(input, shape)
    _batch_checks(batch1, batch2)
    b, n, m = batch1._data.shape
    if batch2._data.shape[0] != b:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {b} and "
                           f"{batch2._data.shape[0]}")
    if batch2._data.shape[1] != m:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({n}x{m} and {batch2._data.shape[1]}x"
                           f"{batch2._data.shape[2]})")
    d_in, d1, d2 = (t._data.dtype for t in (input, batch1, batch2))
    if d_in != d2:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {dt.scalar_type_name(d_in)} and "
                           f"{dt.scalar_type_name(d2)}")
    if d1 != d2:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {dt.scalar_type_name(d1)} and "
                           f"{dt.scalar_type_name(d2)}")
    _bool_kernel("addmm_impl_cpu_", input)
    beta = _scalar_arg(beta, input.dtype, "beta", "addbmm")
    alpha = _scalar_arg(alpha, input.dtype, "alpha", "addbmm")
    xp = input._xp
    prod = None
    if alpha != 0:  # one GEMM over the batch: (n, b*m) @ (b*m, p) sums the b products as it goes
        left = xp.moveaxis(batch1._data, 0, 1).reshape(n, b * m)
        prod = threads.matmul(xp, left, batch2._data.reshape(b * m, shape[1]))
    out = wrap(_affine(xp, input._data, prod, beta, alpha, shape))
    return _recorded(AddbmmBackward0, out, input, batch1, batch2, beta, alpha)


def _make_inplace(fn, op, out_shape):
    def method(self, *args, beta=1, alpha=1):
        shape = out_shape(*args)
        if shape is not None and tuple(shape) != self._data.shape:
            if fn == "addr":
                v1, v2 = args
                raise RuntimeError(f"size mismatch, input: {list(self._data.shape)}, v1: {list(v1._data.shape)}, "
                                   f"v2: {list(v2._data.shape)}")
            raise RuntimeError(f"Bad in-place call: input tensor size {list(self._data.shape)} and output tensor "
                               f"size {list(shape)} should match")
        return apply_inplace(self, lambda old, *a: op(old, *a, beta=beta, alpha=alpha), *args)
    method.__name__ = fn + "_"
    method.__doc__ = f"In-place version of :meth:`{fn}`."
    return method


def _shape_or_none(*dims):
    """The result shape an in-place product must match, or None when the operands are malformed."""
    try:
        return tuple(_size(t, d) for t, d in dims)
    except (IndexError, AttributeError):
        return None  # the op itself raises PyTorch's error


Tensor.addmv_ = _make_inplace("addmv", addmv, lambda mat, vec: _shape_or_none((mat, 0)))
Tensor.addr_ = _make_inplace("addr", addr, lambda v1, v2: _shape_or_none((v1, 0), (v2, 0)))
Tensor.baddbmm_ = _make_inplace("baddbmm", baddbmm, lambda b1, b2: _shape_or_none((b1, 0), (b1, 1), (b2, 2)))
Tensor.addbmm_ = _make_inplace("addbmm", addbmm, lambda b1, b2: _shape_or_none((b1, 1), (b2, 2)))
