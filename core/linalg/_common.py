"""Shared pieces of ``ember.linalg``: :class:`LinAlgError`, the result types, the input checks and the small matrix
helpers that every family uses."""
from __future__ import annotations

import numpy as np

from .. import return_types as _rt
from ..ops._base import Tensor, check_tensor, wrap
from ..tensor import _to_numpy

__all__ = ["LinAlgError"]  # and the private helpers the family modules import


class LinAlgError(RuntimeError):
    """Raised when a linear-algebra routine fails on its input (singular or not positive-definite matrices)."""


SlogdetResult = _rt.linalg_slogdet
QRResult = _rt.linalg_qr
EighResult = _rt.linalg_eigh
SVDResult = _rt.linalg_svd
LstsqResult = _rt.linalg_lstsq
InvExResult = _rt.linalg_inv_ex
CholeskyExResult = _rt.linalg_cholesky_ex
SolveExResult = _rt.linalg_solve_ex

_FLOATING = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.complex64), np.dtype(np.complex128))
_REAL_DTYPE = {np.dtype(np.complex64): np.dtype(np.float32), np.dtype(np.complex128): np.dtype(np.float64)}


# ----------------------------------------------------------------------------------------------------- input checks
def _check_float(A: Tensor, fname: str, arg: str = "A") -> None:
    check_tensor(A, arg, fname)
    if A._data.dtype not in _FLOATING:
        raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as input. Got "
                           f"{A.dtype.scalar_name}")


def _check_matrix(A: Tensor, fname: str, arg: str = "A") -> None:
    _check_float(A, fname, arg)
    if A._data.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor {arg} must have at least 2 dimensions.")


def _check_square(A: Tensor, fname: str, arg: str = "A") -> None:
    _check_matrix(A, fname, arg)
    m, n = A._data.shape[-2:]
    if m != n:
        raise RuntimeError(f"{fname}: {arg} must be batches of square matrices, but they are {m} by {n} matrices")


def _check_same_dtype(A: Tensor, B: Tensor, fname: str) -> None:
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"{fname}: Expected A and B to have the same dtype, but found A of type "
                           f"{A.dtype.scalar_name} and B of type {B.dtype.scalar_name} instead")


def _error(fname: str, data: np.ndarray, batch_index: int, text: str) -> LinAlgError:
    """PyTorch's wording: ``fname: (Batch element i): text``, the batch part only for batched input."""
    where = f" (Batch element {batch_index}):" if data.ndim > 2 else ""
    return LinAlgError(f"{fname}:{where} {text}")


def _matrices(data: np.ndarray) -> np.ndarray:
    return data.reshape((-1,) + data.shape[-2:])


def _lu_zero_pivot(a: np.ndarray) -> int:
    """LAPACK getrf's ``info`` for one matrix: the 1-based index of the first exactly-zero pivot (0 if none)."""
    a = np.array(a, copy=True)
    n = a.shape[0]
    info = 0
    for k in range(n):
        p = k + int(np.argmax(np.abs(a[k:, k])))
        if a[p, k] == 0:
            info = info or k + 1
            continue
        if p != k:
            a[[k, p]] = a[[p, k]]
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return info


def _singular_infos(data: np.ndarray) -> np.ndarray:
    """The getrf ``info`` of every matrix of a batch (flattened), for an error message: computed on a host copy."""
    mats = _matrices(_to_numpy(data))
    infos = np.zeros(len(mats), dtype=np.int32)
    for b, a in enumerate(mats):
        try:
            np.linalg.inv(a)
        except np.linalg.LinAlgError:
            infos[b] = _lu_zero_pivot(a) or a.shape[-1]
    return infos


def _raise_singular(fname: str, data: np.ndarray, kind: str):
    infos = _singular_infos(data)
    bad = np.flatnonzero(infos)
    b = int(bad[0]) if bad.size else 0
    if kind == "inv":
        text = (f"The diagonal element {int(infos[b]) or data.shape[-1]} is zero, the inversion could not be "
                f"completed because the input matrix is singular.")
    else:
        text = "The solver failed because the input matrix is singular."
    raise _error(fname, data, b, text) from None


def _eye(n: int, like: Tensor) -> Tensor:
    return wrap(like._xp.eye(n, dtype=like._data.dtype))


def _as_dtype(t: Tensor, like: Tensor) -> Tensor:
    """``t`` cast to ``like``'s dtype (a real gradient meeting complex data becomes complex, differentiably)."""
    return t if t._data.dtype == like._data.dtype else t.to(like.dtype)


def _col(t: Tensor) -> Tensor:
    return t.unsqueeze(-1)


def _row(t: Tensor) -> Tensor:
    return t.unsqueeze(-2)


def _tri_mask(n: int, upper: bool, strict: bool, like: Tensor) -> Tensor:
    k = 1 if strict else 0
    m = np.triu(np.ones((n, n)), k) if upper else np.tril(np.ones((n, n)), -k)
    return wrap(like._xp.asarray(m, dtype=like._data.dtype))


def _herm(t: Tensor) -> Tensor:
    """The Hermitian part ``(t + t^H) / 2``."""
    return (t + t.mH) * 0.5
