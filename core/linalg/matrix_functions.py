"""Matrix functions and products: ``matrix_power``, ``matrix_exp``, ``matrix_rank``, ``multi_dot``, ``vecdot``,
``matmul``, ``diagonal`` and ``cross``."""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as dt
from ..autograd.graph import Node
from ..ops._base import GRAD_ENABLED, Tensor, broadcast_error, check_tensor, normalize_dim, record, sum_to, wrap
from ._common import _as_dtype, _check_matrix, _check_square
from .solvers import inv
from .least_squares import _nonzero

__all__ = ["matrix_power", "matrix_exp", "matrix_rank", "multi_dot", "vecdot", "matmul", "diagonal", "cross"]


# ----------------------------------------------------------------------------------------------- matrix functions
def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential ``sum_k A^k / k!`` of a square matrix or a batch of them, differentiable.

    Scaling and squaring: ``exp(A) = exp(A / 2**s) ** (2**s)`` with ``||A / 2**s||_1 <= 1``, where a degree-18
    Taylor polynomial is exact to far below float64 rounding (the remainder is below ``e / 19!``). It is written
    with ember ops, so autograd differentiates it (to any order).
    """
    _check_square(A, "linalg.matrix_exp")
    norm = float(A.detach().abs().sum(-2).amax()) if A.numel() else 0.0
    s = max(0, math.ceil(math.log2(norm))) if norm > 1 else 0
    X = A / (2 ** s)
    eye = wrap(A._xp.eye(A._data.shape[-1], dtype=A._data.dtype))
    term, result = X, eye + X
    for k in range(2, 19):
        term = (term @ X) / k
        result = result + term
    for _ in range(s):
        result = result @ result
    return result


def matrix_power(A: Tensor, n: int) -> Tensor:
    """``A`` raised to the integer power ``n`` (``n < 0`` uses the inverse; ``n = 0`` gives the identity)."""
    _check_square(A, "linalg.matrix_power")
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(f"linalg.matrix_power(): argument 'n' must be int, not {type(n).__name__}")
    if n == 0:
        size = A._data.shape[-1]
        eye = A._xp.broadcast_to(A._xp.eye(size, dtype=A._data.dtype), A._data.shape).copy()
        out = wrap(eye)
        if GRAD_ENABLED[0] and A._requires_grad:
            out = out + A * 0  # keeps the (zero) gradient path PyTorch has
        return out
    base = inv(A) if n < 0 else A
    n = abs(int(n))
    result = None
    while n:  # binary exponentiation: O(log n) matmuls
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    return result


def matrix_rank(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False, tol=None) -> Tensor:
    """The numerical rank: the number of singular values above ``max(atol, rtol * sigma_max)`` (int64)."""
    _check_matrix(A, "linalg.matrix_rank")
    xp = A._xp
    data = A._data
    m, n = data.shape[-2:]
    if tol is not None:
        atol, rtol = tol, 0.0
    s = xp.abs(xp.linalg.eigvalsh(data)) if hermitian else xp.linalg.svd(data, compute_uv=False)
    real_dtype = s.dtype
    if rtol is None:
        rtol = 0.0 if (atol is not None and _nonzero(atol)) else np.finfo(real_dtype).eps * max(m, n)
    atol = 0.0 if atol is None else atol
    atol = atol._data if isinstance(atol, Tensor) else atol
    rtol = rtol._data if isinstance(rtol, Tensor) else rtol
    smax = s.max(-1, keepdims=True) if s.shape[-1] else xp.zeros(s.shape[:-1] + (1,), dtype=real_dtype)
    tol_v = xp.maximum(xp.asarray(atol)[..., None], xp.asarray(rtol)[..., None] * smax)
    return wrap((s > tol_v).sum(-1).astype(np.int64))


def multi_dot(tensors) -> Tensor:
    """The product of a chain of matrices, multiplied in the order that needs the fewest operations.

    The first tensor may be 1-D (a row vector) and the last 1-D (a column vector); all others must be 2-D.
    """
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    for i, t in enumerate(tensors):
        nd = t._data.ndim
        if (i in (0, len(tensors) - 1) and nd not in (1, 2)) or (0 < i < len(tensors) - 1 and nd != 2):
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {nd}D")
    first_vec, last_vec = tensors[0]._data.ndim == 1, tensors[-1]._data.ndim == 1
    mats = list(tensors)
    if first_vec:
        mats[0] = mats[0].unsqueeze(0)
    if last_vec:
        mats[-1] = mats[-1].unsqueeze(1)
    dims = [mats[0]._data.shape[0]] + [t._data.shape[1] for t in mats]
    order = _chain_order(dims)
    out = _chain_multiply(mats, order, 0, len(mats) - 1)
    if first_vec:
        out = out.squeeze(0)
    if last_vec:
        out = out.squeeze(-1)
    return out


def _chain_order(dims):
    """Classic matrix-chain dynamic programme: split[i][j] is where to split the product of matrices i..j."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain_multiply(mats, split, i, j):
    if i == j:
        return mats[i]
    k = split[i][j]
    return _chain_multiply(mats, split, i, k) @ _chain_multiply(mats, split, k + 1, j)


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """The dot product of vectors along ``dim``, conjugating ``x``: ``sum(x.conj() * y, dim)`` (broadcasting)."""
    return (x.conj() * y).sum(dim)


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """Alias of :func:`ember.matmul`."""
    return input @ other


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Alias of :func:`ember.diagonal` with defaults ``dim1=-2, dim2=-1`` (the diagonals of a batch of matrices)."""
    from ..ops.diagonals import diagonal as _diagonal
    return _diagonal(A, offset=offset, dim1=dim1, dim2=dim2)


# -------------------------------------------------------------------------------------------------------------- cross
class LinalgCrossBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        a, b = self.saved_tensors
        dim = self.dim
        ga = gb = None
        # a x b is bilinear: <g, da x b> = <conj(b) x g, da> and <g, a x db> = <g x conj(a), db>
        if self.next_functions[0] is not None:
            ga = _grad_for(sum_to(cross(_as_dtype(b.conj(), grad), grad, dim=dim), a._data.shape), a)
        if self.next_functions[1] is not None:
            gb = _grad_for(sum_to(cross(grad, _as_dtype(a.conj(), grad), dim=dim), b._data.shape), b)
        return ga, gb


def _grad_for(g: Tensor, t: Tensor) -> Tensor:
    """A gradient in its input's dtype: the real part when a real input met complex data."""
    if g._data.dtype == t._data.dtype:
        return g
    if g._data.dtype.kind == "c" and t._data.dtype.kind != "c":
        g = g.real
    return g.to(t.dtype)


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (batch dimensions broadcast)."""
    fname = "linalg.cross"
    check_tensor(input, "input", fname)
    check_tensor(other, "other", fname)
    a, b = input._data, other._data
    if a.ndim != b.ndim:
        raise RuntimeError(f"{fname}: inputs must have the same number of dimensions.")
    d = normalize_dim(dim, a.ndim)
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise RuntimeError(f"{fname}: inputs dimension {dim} must have length 3. Got {a.shape[d]} and {b.shape[d]}")
    rt = dt.result_type(input, other).np
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise broadcast_error(a.shape, b.shape) from None
    xp = input._xp
    a2 = xp.broadcast_to(a.astype(rt, copy=False), shape)
    b2 = xp.broadcast_to(b.astype(rt, copy=False), shape)
    out = wrap(xp.cross(a2, b2, axis=d))
    if GRAD_ENABLED[0] and (input._requires_grad or other._requires_grad):
        node = LinalgCrossBackward0()
        node.save(input, other)
        node.dim = d
        record(node, out, input, other)
    return out
