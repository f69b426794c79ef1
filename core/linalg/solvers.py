"""Inverses and linear solves: ``inv``, ``inv_ex``, ``solve``, ``solve_ex``, ``solve_triangular``."""
from __future__ import annotations

import numpy as np

from ..autograd.graph import Node
from ..ops._base import GRAD_ENABLED, Tensor, broadcast_error, record, sum_to, wrap
from ._common import (InvExResult, LinAlgError, SolveExResult, _as_dtype, _check_float, _check_matrix,
                      _check_same_dtype, _check_square, _col, _matrices, _raise_singular, _row, _singular_infos,
                      _tri_mask)

__all__ = ["inv", "inv_ex", "solve", "solve_ex", "solve_triangular"]


# -------------------------------------------------------------------------------------------------------------- inv
class LinalgInvExBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        inv_a = self.saved_output()
        inv_h = inv_a.mH
        return (-(inv_h @ _as_dtype(grad, inv_a) @ inv_h),)


def _inv_data(A: Tensor, fname: str, check: bool):
    data = A._data
    xp = A._xp
    try:
        return xp.linalg.inv(data), None
    except np.linalg.LinAlgError:
        if check:
            _raise_singular(fname, data, "inv")
        infos = _singular_infos(data)
        out = xp.full(data.shape, np.nan, dtype=data.dtype)
        flat = out.reshape((-1,) + data.shape[-2:])
        for b, a in enumerate(_matrices(data)):
            if not infos[b]:
                flat[b] = xp.linalg.inv(a)
        return out, infos


def _record_inv(A: Tensor, out: Tensor) -> Tensor:
    if GRAD_ENABLED[0] and A._requires_grad:
        node = LinalgInvExBackward0()
        node.save_output(out)
        record(node, out, A)
    return out


def inv(A: Tensor) -> Tensor:
    """The inverse of a square matrix (or of each matrix of a batch).

    Raises :class:`LinAlgError` if a matrix is singular, naming the batch element and the zero pivot.
    """
    _check_square(A, "linalg.inv")
    data, _ = _inv_data(A, "linalg.inv", True)
    return _record_inv(A, wrap(data))


def inv_ex(A: Tensor, *, check_errors: bool = False):
    """:func:`inv` that reports singular matrices in ``info`` (int32, 0 = success) instead of raising.

    Returns the named tuple ``(inverse, info)``; the inverse of a singular matrix is filled with NaN.
    """
    _check_square(A, "linalg.inv_ex")
    data, infos = _inv_data(A, "linalg.inv_ex", check_errors)
    batch = A._data.shape[:-2]
    info = np.zeros(batch, dtype=np.int32) if infos is None else infos.reshape(batch)
    return InvExResult(_record_inv(A, wrap(data)), wrap(A._xp.asarray(info)))


# ------------------------------------------------------------------------------------------------------------ solve
def _is_vector_rhs(A_shape, B_shape) -> bool:
    """PyTorch's rule: B is a (batch of) vector(s) if it is 1-D or has A's batch shape plus one dim."""
    return len(B_shape) == 1 or (len(B_shape) == len(A_shape) - 1 and tuple(B_shape) == tuple(A_shape[:-1]))


class LinalgSolveExBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        A, = self.saved_tensors
        X = self.saved_output()
        left, vector, shape_b = self.left, self.vector, self.shape_b
        # X = A^{-1} B: gB = A^{-H} g and gA = -gB X^H (mirrored for X A = B)
        gB = solve(A.mH, _as_dtype(grad, X), left=left)
        ga = gb = None
        if self.next_functions[1] is not None:
            gb = sum_to(gB, shape_b)
        if self.next_functions[0] is not None:
            if vector:
                ga = -(_col(gB) @ _row(X.conj()))
            elif left:
                ga = -(gB @ X.mH)
            else:
                ga = -(X.mH @ gB)
            ga = sum_to(ga, A._data.shape)
        return ga, gb


def _solve_data(A: Tensor, B: Tensor, left: bool, fname: str):
    a, b = A._data, B._data
    xp = A._xp
    vector = left and _is_vector_rhs(a.shape, b.shape)
    try:
        if vector:
            bb = b[..., None]
        else:
            bb = b
        if not left:
            # X A = B  <=>  A^T X^T = B^T
            a_eff, b_eff = xp.swapaxes(a, -1, -2), xp.swapaxes(bb, -1, -2)
        else:
            a_eff, b_eff = a, bb
        if a_eff.shape[-1] != b_eff.shape[-2]:
            raise RuntimeError(f"{fname}: Incompatible shapes of A and B for the equation "
                               f"{'AX = B' if left else 'XA = B'} ({a.shape[-2]}x{a.shape[-1]} and "
                               f"{b.shape[-2] if b.ndim > 1 else b.shape[-1]}x{b.shape[-1] if b.ndim > 1 else 1})")
        try:
            batch = np.broadcast_shapes(a_eff.shape[:-2], b_eff.shape[:-2])
        except ValueError:
            raise broadcast_error(a_eff.shape[:-2], b_eff.shape[:-2]) from None
        a_eff = xp.broadcast_to(a_eff, batch + a_eff.shape[-2:])
        b_eff = xp.broadcast_to(b_eff, batch + b_eff.shape[-2:])
        x = xp.linalg.solve(a_eff, b_eff)
    except np.linalg.LinAlgError:
        _raise_singular(fname, a, "solve")
    if not left:
        x = xp.swapaxes(x, -1, -2)
    if vector:
        x = x[..., 0]
    return x, vector


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """The solution ``X`` of ``A X = B`` (or ``X A = B`` with ``left=False``) for square invertible ``A``.

    Batch dimensions broadcast. ``B`` is treated as a (batch of) vector(s) when it is 1-D or has the shape
    ``A.shape[:-1]``, as in PyTorch. Raises :class:`LinAlgError` for a singular ``A``.
    """
    _check_square(A, "linalg.solve")
    _check_float(B, "linalg.solve", "B")
    _check_same_dtype(A, B, "linalg.solve")
    x, vector = _solve_data(A, B, left, "linalg.solve")
    out = wrap(x)
    if GRAD_ENABLED[0] and (A._requires_grad or B._requires_grad):
        node = LinalgSolveExBackward0()
        node.save(A)
        node.save_output(out)
        node.left, node.vector, node.shape_b = left, vector, B._data.shape
        record(node, out, A, B)
    return out


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False):
    """:func:`solve` returning ``(result, info)``; ``info`` is nonzero for singular matrices (result then NaN)."""
    batch = A._data.shape[:-2]
    try:
        res = solve(A, B, left=left)
        info = np.zeros(batch, dtype=np.int32)
    except LinAlgError:
        if check_errors:
            raise
        info = _singular_infos(A._data).reshape(batch)
        shape = _solve_shape(A._data.shape, B._data.shape, left)
        res = wrap(A._xp.full(shape, np.nan, dtype=A._data.dtype))
    return SolveExResult(res, wrap(A._xp.asarray(info)))


def _solve_shape(a_shape, b_shape, left):
    if left and _is_vector_rhs(a_shape, b_shape):
        return np.broadcast_shapes(a_shape[:-2], b_shape[:-1]) + (a_shape[-1],)
    return np.broadcast_shapes(a_shape[:-2], b_shape[:-2]) + tuple(b_shape[-2:])


# --------------------------------------------------------------------------------------------- solve_triangular
class LinalgSolveTriangularBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        A, = self.saved_tensors
        X = self.saved_output()
        upper, left, unitriangular, shape_b = self.upper, self.left, self.unitriangular, self.shape_b
        g = _as_dtype(grad, X)
        # the solve only reads one triangle of A; the adjoint system uses the conjugate transpose
        gB = solve_triangular(A.mH, g, upper=not upper, left=left, unitriangular=unitriangular)
        ga = gb = None
        if self.next_functions[1] is not None:
            gb = sum_to(gB, shape_b)
        if self.next_functions[0] is not None:
            ga = -(gB @ X.mH) if left else -(X.mH @ gB)
            ga = sum_to(ga * _tri_mask(A._data.shape[-1], upper, unitriangular, ga), A._data.shape)
        return ga, gb


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False) -> Tensor:
    """The solution of ``A X = B`` (``X A = B`` if not ``left``) for triangular ``A``.

    Only the upper (``upper=True``) or lower triangle of ``A`` is read; with ``unitriangular`` its diagonal is taken
    to be all ones. Batch dimensions broadcast.
    """
    fname = "linalg.solve_triangular"
    _check_square(A, fname)
    _check_matrix(B, fname, "B")
    _check_same_dtype(A, B, fname)
    xp = A._xp
    n = A._data.shape[-1]
    tri = xp.triu(A._data) if upper else xp.tril(A._data)
    if unitriangular:
        tri = tri.copy()
        idx = xp.arange(n)
        tri[..., idx, idx] = 1
    x, _ = _solve_data(wrap(tri), B, left, fname)
    out = wrap(x)
    if GRAD_ENABLED[0] and (A._requires_grad or B._requires_grad):
        node = LinalgSolveTriangularBackward0()
        node.save(A)
        node.save_output(out)
        node.upper, node.left, node.unitriangular, node.shape_b = upper, left, unitriangular, B._data.shape
        record(node, out, A, B)
    return out
