"""``ember.linalg``: linear algebra with PyTorch's ``torch.linalg`` API, batched and differentiable.

Every function accepts batches of matrices (``(*, m, n)``) and float32/float64/complex64/complex128 input. The
forwards are single NumPy LAPACK calls; the backward rules are written with ember ops (matmul, solve, ...), so most
of them differentiate again under ``create_graph=True``.

Gradient conventions follow PyTorch: for complex input the gradient of a real loss is ``dL/dRe + i dL/dIm``; the
gradients of ``cholesky`` and ``eigh`` are returned Hermitian (they only read one triangle of the input); the
gradients of ``svd`` and ``eigh`` are defined for distinct singular values / eigenvalues and for losses that do not
depend on the arbitrary phase (sign) of the singular vectors / eigenvectors.

A singular (or not positive-definite) input raises :class:`LinAlgError`, a ``RuntimeError``, with PyTorch's message,
which names the batch element when the input is batched.
"""
from __future__ import annotations

import numpy as np

from . import dtypes as dt
from . import return_types as _rt
from .autograd.graph import Node
from .ops._base import GRAD_ENABLED, Tensor, broadcast_error, check_tensor, normalize_dim, record, record_multi, \
    sum_to, wrap

__all__ = ["LinAlgError", "inv", "inv_ex", "solve", "solve_ex", "solve_triangular", "det", "slogdet", "cholesky",
           "cholesky_ex", "qr", "eigh", "eigvalsh", "svd", "svdvals", "pinv", "lstsq", "matrix_power",
           "matrix_rank", "norm", "vector_norm", "matrix_norm", "cross", "multi_dot", "vecdot", "matmul",
           "diagonal"]


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
    """The getrf ``info`` of every matrix of a batch (flattened)."""
    mats = _matrices(data)
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
        idx = np.arange(n)
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


# ------------------------------------------------------------------------------------------------- det / slogdet
def _adjugate_h(a, xp):
    """``adj(A)^H`` of each matrix, via the SVD so that it is defined for singular matrices too."""
    u, s, vh = xp.linalg.svd(a)
    n = s.shape[-1]
    # adj(S)_ii = prod_{j != i} s_j, computed without dividing by a possibly zero s_i
    prods = xp.stack([xp.prod(xp.concatenate([s[..., :i], s[..., i + 1:]], axis=-1), axis=-1) for i in range(n)], -1)
    u_h = xp.swapaxes(u, -1, -2).conj()
    v = xp.swapaxes(vh, -1, -2).conj()
    adj = (xp.linalg.det(vh) * xp.linalg.det(u))[..., None, None] * ((v * prods[..., None, :]) @ u_h)
    return xp.swapaxes(adj, -1, -2).conj()


class LinalgDetBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        A, = self.saved_tensors
        d = self.saved_output()
        g = _as_dtype(grad, d)
        coeff = _col(_col(g * d.conj()))
        if np.all(d._data != 0):
            try:
                return (coeff * inv(A).mH,)
            except LinAlgError:
                pass
        # singular matrices: d det / dA = adj(A)^T, still well defined
        return (_col(_col(g)) * wrap(_adjugate_h(A._data, A._xp)),)


def det(A: Tensor) -> Tensor:
    """The determinant of a square matrix (or of each matrix of a batch)."""
    _check_square(A, "linalg.det")
    out = wrap(A._xp.asarray(A._xp.linalg.det(A._data)))
    if GRAD_ENABLED[0] and A._requires_grad:
        node = LinalgDetBackward0()
        node.save(A)
        node.save_output(out)
        record(node, out, A)
    return out


class LinalgSlogdetBackward0(Node):
    __slots__ = ()
    n_outputs = 2

    def apply(self, g_sign, g_logabs):
        A, = self.saved_tensors
        sign = wrap(self.sign)
        cplx = A._data.dtype.kind == "c"
        coeff = None
        if g_logabs is not None:
            coeff = g_logabs
        if g_sign is not None and cplx:
            # sign = exp(i * Im(log det)): its gradient enters through the phase
            phase = (g_sign.conj() * sign * 1j).real
            coeff = phase * 1j if coeff is None else _as_dtype(coeff, A) + phase * 1j
        if coeff is None:
            return (None,)
        coeff = _as_dtype(coeff, A)
        return (_col(_col(coeff)) * _inv_or_pinv(A).mH,)


def _inv_or_pinv(A: Tensor) -> Tensor:
    try:
        return inv(A)
    except LinAlgError:
        return pinv(A)


def slogdet(A: Tensor):
    """``(sign, logabsdet)`` with ``det(A) = sign * exp(logabsdet)``, stable where ``det`` over/underflows.

    ``sign`` is -1, 0 or 1 for real input and a unit-modulus complex number for complex input; ``logabsdet`` is
    real. Only ``logabsdet`` (and, for complex input, ``sign``) carries gradients.
    """
    _check_square(A, "linalg.slogdet")
    sign, logabs = A._xp.linalg.slogdet(A._data)
    sign_t = wrap(A._xp.asarray(sign, dtype=A._data.dtype))
    log_t = wrap(A._xp.asarray(logabs))
    if GRAD_ENABLED[0] and A._requires_grad:
        node = LinalgSlogdetBackward0()
        node.save(A)
        node.sign = sign_t._data
        if A._data.dtype.kind == "c":
            record_multi(node, (sign_t, log_t), A)
        else:
            record_multi(node, (log_t,), A)
            # the real sign is piecewise constant: it gets no gradient, only log|det| is connected
            log_t._output_nr = 1
    return SlogdetResult(sign_t, log_t)


# --------------------------------------------------------------------------------------------------------- cholesky
def _cholesky_info(a: np.ndarray) -> int:
    """LAPACK potrf's ``info``: the order of the first leading minor that is not positive-definite."""
    lo, hi = 1, a.shape[-1]
    while lo < hi:  # positive-definiteness of leading minors is nested, so bisect on the order
        mid = (lo + hi) // 2
        try:
            np.linalg.cholesky(a[:mid, :mid])
            lo = mid + 1
        except np.linalg.LinAlgError:
            hi = mid
    return lo


def _cholesky_data(A: Tensor, fname: str, check: bool):
    data = A._data
    xp = A._xp
    try:
        return xp.linalg.cholesky(data), None
    except np.linalg.LinAlgError:
        mats = _matrices(data)
        infos = np.zeros(len(mats), dtype=np.int32)
        out = xp.full(data.shape, np.nan, dtype=data.dtype)
        flat = out.reshape((-1,) + data.shape[-2:])
        for b, a in enumerate(mats):
            try:
                flat[b] = xp.linalg.cholesky(a)
            except np.linalg.LinAlgError:
                infos[b] = _cholesky_info(a)
                if check:
                    raise _error(fname, data, b, f"The factorization could not be completed because the input is "
                                                 f"not positive-definite (the leading minor of order {infos[b]} is "
                                                 f"not positive-definite).") from None
        return out, infos


class LinalgCholeskyExBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        out = self.saved_output()
        upper = self.upper
        L = out.mH if upper else out
        gL = _as_dtype(grad.mH if upper else grad, L)
        n = L._data.shape[-1]
        # A = L L^H  =>  L^{-1} dA L^{-H} = X + X^H with X = L^{-1} dL lower triangular; the adjoint gives
        # gA = L^{-H} Phi(L^H gL) L^{-1}, Phi = strictly-lower part plus half the diagonal, then made Hermitian.
        phi = (L.mH @ gL) * _phi_mask(n, L)
        gA = solve_triangular(L.mH, phi, upper=True)
        gA = solve_triangular(L, gA, upper=False, left=False)
        return (_herm(gA),)


def _phi_mask(n, like):
    m = np.tril(np.ones((n, n)), -1) + 0.5 * np.eye(n)
    return wrap(like._xp.asarray(m, dtype=like._data.dtype))


def _cholesky(A, upper, fname, check):
    _check_square(A, fname)
    data, infos = _cholesky_data(A, fname, check)
    if upper:
        data = A._xp.swapaxes(data, -1, -2).conj()
    out = wrap(A._xp.ascontiguousarray(data))
    if GRAD_ENABLED[0] and A._requires_grad:
        node = LinalgCholeskyExBackward0()
        node.save_output(out)
        node.upper = upper
        record(node, out, A)
    return out, infos


def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """The Cholesky factor ``L`` (lower triangular, ``A = L L^H``) of a Hermitian positive-definite matrix.

    Only the lower triangle of ``A`` is read. ``upper=True`` returns ``U = L^H`` instead. Raises
    :class:`LinAlgError` naming the first leading minor that is not positive-definite.
    """
    out, _ = _cholesky(A, upper, "linalg.cholesky", True)
    return out


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False):
    """:func:`cholesky` returning ``(L, info)``: ``info`` is the order of the failing leading minor (0 = success)."""
    out, infos = _cholesky(A, upper, "linalg.cholesky_ex", check_errors)
    batch = A._data.shape[:-2]
    info = np.zeros(batch, dtype=np.int32) if infos is None else infos.reshape(batch)
    return CholeskyExResult(out, wrap(A._xp.asarray(info)))


# --------------------------------------------------------------------------------------------------------------- qr
def _copyltu(M: Tensor) -> Tensor:
    """The Hermitian matrix built from the strictly lower triangle of ``M`` and the real part of its diagonal."""
    n = M._data.shape[-1]
    low = M * _tri_mask(n, False, True, M)
    diag = M * _eye(n, M)
    return low + low.mH + (diag + diag.conj()) * 0.5


def _qr_backward_tall(gQ, gR, Q, R):
    """gA for A = QR with m >= n (reduced): ``(gQ + Q copyltu(M)) R^{-H}``, ``M = R gR^H - gQ^H Q``."""
    M = None
    if gR is not None:
        M = R @ gR.mH
    if gQ is not None:
        M = -(gQ.mH @ Q) if M is None else M - gQ.mH @ Q
    b = Q @ _copyltu(M)
    if gQ is not None:
        b = b + gQ
    # b R^{-H}: solve X R^H = b with R^H lower triangular
    return solve_triangular(R.mH, b, upper=False, left=False)


class LinalgQrBackward0(Node):
    __slots__ = ()
    n_outputs = 2

    def apply(self, gQ, gR):
        A, = self.saved_tensors
        Q, R = wrap(self.q), wrap(self.r)
        m, n = A._data.shape[-2:]
        gQ = None if gQ is None else _as_dtype(gQ, Q)
        gR = None if gR is None else _as_dtype(gR, R)
        if gQ is None and gR is None:
            return (None,)
        if m >= n:
            return (_qr_backward_tall(gQ, gR, Q, R),)
        # wide A = Q [R1 R2] with X = A[:, :m] = Q R1 and Y = A[:, m:] = Q R2
        Y = A[..., m:]
        R1 = R[..., :m]
        gR1 = gR[..., :m] if gR is not None else None
        gY = None
        if gR is not None:
            gR2 = gR[..., m:]
            gY = Q @ gR2
            gQ = Y @ gR2.mH if gQ is None else gQ + Y @ gR2.mH
        gX = _qr_backward_tall(gQ, gR1, Q, R1)
        if gY is None:
            gY = wrap(A._xp.zeros(A._data.shape[:-1] + (n - m,), dtype=A._data.dtype))
        from .ops.shape import cat
        return (cat([gX, gY], -1),)


def qr(A: Tensor, mode: str = "reduced"):
    """The QR decomposition ``A = Q R`` (``Q`` with orthonormal columns, ``R`` upper triangular).

    Args:
        A: ``(*, m, n)`` input.
        mode: ``"reduced"`` (``Q`` is m x k, ``R`` k x n, k = min(m, n)), ``"complete"`` (``Q`` m x m) or ``"r"``
            (only ``R``; ``Q`` is empty).

    Returns the named tuple ``(Q, R)``. Differentiable for ``"reduced"`` and, when ``m <= n``, ``"complete"``.
    """
    fname = "linalg.qr"
    _check_matrix(A, fname)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or "
                           f"'complete'")
    xp = A._xp
    data = A._data
    m, n = data.shape[-2:]
    if mode == "r":
        r = xp.linalg.qr(data, mode="r")
        q = xp.empty((0,), dtype=data.dtype)
    else:
        q, r = xp.linalg.qr(data, mode=mode)
    Q, R = wrap(q), wrap(r)
    if GRAD_ENABLED[0] and A._requires_grad:
        if mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                               "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
                               "linalg.qr.")
        if mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
        node = LinalgQrBackward0()
        node.save(A)
        node.q, node.r = q, r
        record_multi(node, (Q, R), A)
    return QRResult(Q, R)


# ------------------------------------------------------------------------------------------------------------- eigh
def _check_uplo(UPLO):
    if not isinstance(UPLO, str) or UPLO.upper() not in ("L", "U") or len(UPLO) != 1:
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO.upper()


def _pair_inverse(values: Tensor) -> Tensor:
    """``F[i, j] = 1 / (values[j] - values[i])`` off the diagonal and 0 on it (differentiable in ``values``)."""
    n = values._data.shape[-1]
    E = _row(values) - _col(values)
    eye = _eye(n, E)
    return (E + eye).reciprocal() * (1 - eye)


class LinalgEighBackward0(Node):
    __slots__ = ()
    n_outputs = 2

    def apply(self, gL, gV):
        L, V = wrap(self.w), wrap(self.v)
        if gL is None and gV is None:
            return (None,)
        # gA = V (diag(gL) + F o skew(V^H gV)) V^H, with F[i, j] = 1 / (L[j] - L[i]); taking the skew-Hermitian part
        # of V^H gV makes gA Hermitian, matching an input of which only one triangle is read
        inner = None
        if gV is not None:
            gV = _as_dtype(gV, V)
            VhgV = V.mH @ gV
            inner = _pair_inverse(L).to(V.dtype) * ((VhgV - VhgV.mH) * 0.5)
        if gL is not None:
            d = _as_dtype(_col(gL), V) * _eye(V._data.shape[-1], V)
            inner = d if inner is None else inner + d
        return (V @ inner @ V.mH,)


def eigh(A: Tensor, UPLO: str = "L"):
    """Eigenvalues (ascending, real) and orthonormal eigenvectors of a Hermitian (symmetric) matrix.

    Only the lower (``UPLO="L"``) or upper triangle of ``A`` is read. Returns the named tuple
    ``(eigenvalues, eigenvectors)`` with ``A = V diag(L) V^H``. Gradients require distinct eigenvalues and a loss
    that does not depend on the eigenvectors' arbitrary phases.
    """
    _check_square(A, "linalg.eigh")
    uplo = _check_uplo(UPLO)
    try:
        w, v = A._xp.linalg.eigh(A._data, UPLO=uplo)
    except np.linalg.LinAlgError:
        raise _error("linalg.eigh", A._data, 0, "The algorithm failed to converge because the input matrix is "
                                                "ill-conditioned or has too many repeated eigenvalues (error code: "
                                                "1).") from None
    L, V = wrap(w), wrap(v)
    if GRAD_ENABLED[0] and A._requires_grad:
        node = LinalgEighBackward0()
        node.w, node.v = w, v
        record_multi(node, (L, V), A)
    return EighResult(L, V)


class LinalgEigvalshBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        v = self.v
        V = wrap(v)
        return (V @ (_as_dtype(_col(grad), V) * V.mH),)


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    """The eigenvalues of a Hermitian (symmetric) matrix, in ascending order (real)."""
    _check_square(A, "linalg.eigvalsh")
    uplo = _check_uplo(UPLO)
    xp = A._xp
    if GRAD_ENABLED[0] and A._requires_grad:
        w, v = xp.linalg.eigh(A._data, UPLO=uplo)
        out = wrap(w)
        node = LinalgEigvalshBackward0()
        node.v = v
        record(node, out, A)
        return out
    return wrap(xp.linalg.eigvalsh(A._data, UPLO=uplo))


# -------------------------------------------------------------------------------------------------------------- svd
def _svd_backward(gU, gS, gVh, U, S, Vh):
    """Gradient of the reduced SVD ``A = U diag(S) Vh`` (distinct, nonzero singular values where U/V are used)."""
    m, k = U._data.shape[-2:]
    n = Vh._data.shape[-1]
    if gU is None and gVh is None:
        return (U * _as_dtype(_row(gS), U)) @ Vh
    V = Vh.mH
    Sc = _as_dtype(S, U)
    inner = None
    if gS is not None:
        inner = _as_dtype(_col(gS), U) * _eye(k, U)
    F = _pair_inverse(S * S).to(U.dtype)
    cplx = U._data.dtype.kind == "c"
    diag_phase = None
    if gU is not None:
        J = U.mH @ gU
        term = (F * (J - J.mH)) * _row(Sc)
        inner = term if inner is None else inner + term
        if cplx:
            diag_phase = (U.conj() * gU).sum(-2).imag
    if gVh is not None:
        gV = gVh.mH
        K = V.mH @ gV
        term = _col(Sc) * (F * (K - K.mH))
        inner = term if inner is None else inner + term
        if cplx:
            dk = (V.conj() * gV).sum(-2).imag
            diag_phase = -dk if diag_phase is None else diag_phase - dk
    if diag_phase is not None:
        # the phases of u_i and v_i are tied: only Im(u_i^H gu_i) - Im(v_i^H gv_i) is meaningful
        inner = inner + _as_dtype(_col(diag_phase / (S * 2)), U) * 1j * _eye(k, U)
    gA = U @ inner @ Vh
    inv_s = _row(_as_dtype(S.reciprocal(), U))
    if gU is not None and m > k:
        proj = gU - U @ (U.mH @ gU)
        gA = gA + (proj * inv_s) @ Vh
    if gVh is not None and n > k:
        proj = gV - V @ (V.mH @ gV)
        gA = gA + (U * inv_s) @ proj.mH
    return gA


class LinalgSvdBackward0(Node):
    __slots__ = ()
    n_outputs = 3

    def apply(self, gU, gS, gVh):
        u, s, vh, full = self.u, self.s, self.vh, self.full
        U, S, Vh = wrap(u), wrap(s), wrap(vh)
        k = s.shape[-1]
        if full:
            # the extra columns of a full U / rows of Vh are an arbitrary basis: their gradients are ignored
            U, Vh = U[..., :k], Vh[..., :k, :]
            gU = gU[..., :k] if gU is not None else None
            gVh = gVh[..., :k, :] if gVh is not None else None
        if gU is None and gS is None and gVh is None:
            return (None,)
        gU = None if gU is None else _as_dtype(gU, U)
        gVh = None if gVh is None else _as_dtype(gVh, Vh)
        if gS is None:
            gS = S * 0
        return (_svd_backward(gU, gS, gVh, U, S, Vh),)


def svd(A: Tensor, full_matrices: bool = True, *, driver=None):
    """The singular value decomposition ``A = U diag(S) Vh``.

    Returns the named tuple ``(U, S, Vh)``; ``S`` is real and descending. With ``full_matrices`` (the default) ``U``
    is m x m and ``Vh`` n x n, otherwise m x k and k x n (k = min(m, n)). Gradients need distinct singular values
    and a loss that does not depend on the singular vectors' arbitrary phases.
    """
    _check_matrix(A, "linalg.svd")
    try:
        u, s, vh = A._xp.linalg.svd(A._data, full_matrices=full_matrices)
    except np.linalg.LinAlgError:
        raise _error("linalg.svd", A._data, 0, "The algorithm failed to converge because the input matrix is "
                                               "ill-conditioned or has too many repeated singular values (error "
                                               "code: 1).") from None
    U, S, Vh = wrap(u), wrap(s), wrap(vh)
    if GRAD_ENABLED[0] and A._requires_grad:
        node = LinalgSvdBackward0()
        node.u, node.s, node.vh, node.full = u, s, vh, full_matrices and A._data.shape[-1] != A._data.shape[-2]
        record_multi(node, (U, S, Vh), A)
    return SVDResult(U, S, Vh)


class LinalgSvdvalsBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        u, vh = self.u, self.vh
        U, Vh = wrap(u), wrap(vh)
        return ((U * _as_dtype(_row(grad), U)) @ Vh,)


def svdvals(A: Tensor, *, driver=None) -> Tensor:
    """The singular values of ``A`` (real, descending)."""
    _check_matrix(A, "linalg.svdvals")
    xp = A._xp
    if GRAD_ENABLED[0] and A._requires_grad:
        u, s, vh = xp.linalg.svd(A._data, full_matrices=False)
        out = wrap(s)
        node = LinalgSvdvalsBackward0()
        node.u, node.vh = u, vh
        record(node, out, A)
        return out
    return wrap(xp.linalg.svd(A._data, compute_uv=False))


# ------------------------------------------------------------------------------------------------------------- pinv
def _pinv_grad(g: Tensor, P: Tensor, A: Tensor) -> Tensor:
    """Adjoint of the pseudo-inverse ``P = pinv(A)`` (constant rank): gradient w.r.t. ``A`` given ``g`` w.r.t. ``P``."""
    Ph, gh = P.mH, g.mH
    gA = -(Ph @ g @ Ph)
    gA = gA + (gh - A @ (P @ gh)) @ (P @ Ph)          # (I - A P) g^H P P^H
    gA = gA + (Ph @ P) @ (gh - (gh @ P) @ A)          # P^H P g^H (I - P A)
    return gA


class LinalgPinvBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        A, = self.saved_tensors
        P = self.saved_output()
        return (_pinv_grad(_as_dtype(grad, P), P, A),)


def _pinv_data(A: Tensor, atol, rtol, hermitian):
    xp = A._xp
    data = A._data
    m, n = data.shape[-2:]
    real_dtype = np.empty(0, dtype=data.dtype).real.dtype
    if rtol is None:
        rtol = 0.0 if (atol is not None and _nonzero(atol)) else np.finfo(real_dtype).eps * max(m, n)
    atol = 0.0 if atol is None else atol
    atol = atol._data if isinstance(atol, Tensor) else atol
    rtol = rtol._data if isinstance(rtol, Tensor) else rtol
    if hermitian:
        w, v = xp.linalg.eigh(data)
        absw = xp.abs(w)
        tol = xp.maximum(xp.asarray(atol)[..., None], xp.asarray(rtol)[..., None] * absw.max(-1, keepdims=True))
        keep = absw > tol
        winv = xp.where(keep, 1 / xp.where(keep, w, 1), 0).astype(w.dtype)
        return (v * winv[..., None, :]) @ xp.swapaxes(v, -1, -2).conj()
    u, s, vh = xp.linalg.svd(data, full_matrices=False)
    smax = s[..., :1] if s.shape[-1] else s
    tol = xp.maximum(xp.asarray(atol)[..., None], xp.asarray(rtol)[..., None] * smax)
    keep = s > tol
    sinv = xp.where(keep, 1 / xp.where(keep, s, 1), 0).astype(s.dtype)
    return (xp.swapaxes(vh, -1, -2).conj() * sinv[..., None, :]) @ xp.swapaxes(u, -1, -2).conj()


def _nonzero(v):
    return bool(np.any(np.asarray(v._data if isinstance(v, Tensor) else v) > 0))


def pinv(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False, rcond=None) -> Tensor:
    """The Moore-Penrose pseudo-inverse of ``A`` (each matrix of a batch).

    Singular values ``<= max(atol, rtol * sigma_max)`` are treated as zero. ``rtol`` defaults to
    ``eps * max(m, n)`` (or 0 when only ``atol`` is given); ``rcond`` is the deprecated name of ``rtol``. With
    ``hermitian=True`` the input is assumed Hermitian and an eigendecomposition is used.
    """
    _check_matrix(A, "linalg.pinv")
    if rcond is not None:
        if rtol is not None:
            raise RuntimeError("linalg.pinv: cannot specify both rcond and rtol")
        rtol = rcond
    out = wrap(_pinv_data(A, atol, rtol, hermitian))
    if GRAD_ENABLED[0] and A._requires_grad:
        node = LinalgPinvBackward0()
        node.save(A)
        node.save_output(out)
        record(node, out, A)
    return out


# ------------------------------------------------------------------------------------------------------------ lstsq
_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


class LinalgLstsqBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        A, B = self.saved_tensors
        vector = self.vector
        P = pinv(A)
        g = _as_dtype(grad, A)
        ga = gb = None
        if vector:
            g2, B2 = _col(g), _col(B)
        else:
            g2, B2 = g, B
        if self.next_functions[1] is not None:
            gb = P.mH @ g2
            gb = sum_to(gb[..., 0] if vector else gb, B._data.shape)
        if self.next_functions[0] is not None:
            ga = sum_to(_pinv_grad(g2 @ B2.mH, P, A), A._data.shape)
        return ga, gb


def _to_batch_of(batch, own):
    """The index that takes an array of broadcast batch shape ``batch`` down to the batch shape ``own`` (first
    element along the broadcast dimensions)."""
    lead = len(batch) - len(own)
    return tuple([0] * lead + [slice(0, 1) if o == 1 and b != 1 else slice(None) for o, b in zip(own, batch[lead:])])


def lstsq(A: Tensor, B: Tensor, rcond=None, *, driver=None):
    """The least-squares solution of ``A X = B``: minimises ``||A X - B||_F`` (minimum norm if rank-deficient).

    Returns the named tuple ``(solution, residuals, rank, singular_values)``:

    * ``residuals``: squared residual norms per column of ``B`` when ``m > n`` and every ``A`` has full rank,
      otherwise empty;
    * ``rank``: the effective rank (drivers ``gelsy`` (CPU default), ``gelsd``, ``gelss``), else empty;
    * ``singular_values``: those of ``A`` (drivers ``gelsd``, ``gelss``), else empty.

    ``rcond`` sets the rank cut-off relative to the largest singular value (default ``eps * max(m, n)``).
    Only ``solution`` is differentiable.
    """
    fname = "torch.linalg.lstsq"
    _check_matrix(A, "linalg.lstsq")
    _check_float(B, "linalg.lstsq", "B")
    _check_same_dtype(A, B, "linalg.lstsq")
    if driver is None:
        driver = "gelsy"
    if driver not in _DRIVERS:
        raise RuntimeError(f"{fname}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    a, b = A._data, B._data
    xp = A._xp
    m, n = a.shape[-2:]
    vector = _is_vector_rhs(a.shape, b.shape)
    bb = b[..., None] if vector else b
    if bb.shape[-2] != m:
        raise RuntimeError(f"{fname}: input.size(-2) should match other.size(-2)")
    try:
        batch = np.broadcast_shapes(a.shape[:-2], bb.shape[:-2])
    except ValueError:
        raise broadcast_error(a.shape[:-2], bb.shape[:-2]) from None
    k = bb.shape[-1]
    a_b = xp.broadcast_to(a, batch + (m, n)).reshape((-1, m, n))
    b_b = xp.broadcast_to(bb, batch + (m, k)).reshape((-1, m, k))
    real_dtype = np.empty(0, dtype=a.dtype).real.dtype
    rc = np.finfo(real_dtype).eps * max(m, n) if rcond is None else rcond
    sols = xp.empty((len(a_b), n, k), dtype=a.dtype)
    ranks = np.empty(len(a_b), dtype=np.int64)
    svals = xp.empty((len(a_b), min(m, n)), dtype=real_dtype)
    res = xp.zeros((len(a_b), k), dtype=real_dtype)
    for i in range(len(a_b)):
        x, r, rk, sv = xp.linalg.lstsq(a_b[i], b_b[i], rcond=rc)
        sols[i], ranks[i], svals[i] = x, rk, sv
        if r.size:  # NumPy reports residuals exactly when PyTorch does: m > n and full rank
            res[i] = r
    sol = sols.reshape(batch + (n, k))
    if vector:
        sol = sol[..., 0]
    empty = xp.empty((0,), dtype=real_dtype)
    residuals = empty
    if m > n and bool(np.all(ranks == n)):
        residuals = res.reshape(batch + (k,))
        if vector:
            residuals = residuals[..., 0]
    # rank and singular values depend on A alone: they have A's batch shape, not the one broadcast with B's
    a_batch = _to_batch_of(batch, a.shape[:-2])
    rank = ranks.reshape(batch)[a_batch] if driver != "gels" else xp.empty((0,), dtype=np.int64)
    singular_values = (svals.reshape(batch + (min(m, n),))[a_batch] if driver in ("gelsd", "gelss") else empty)
    out = wrap(xp.asarray(sol))
    if GRAD_ENABLED[0] and (A._requires_grad or B._requires_grad):
        node = LinalgLstsqBackward0()
        node.save(A, B)
        node.vector = vector
        record(node, out, A, B)
    return LstsqResult(out, wrap(xp.asarray(residuals)), wrap(xp.asarray(rank)),
                       wrap(xp.asarray(singular_values)))


# ----------------------------------------------------------------------------------------------- matrix functions
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
    from .ops.diagonals import diagonal as _diagonal
    return _diagonal(A, offset=offset, dim1=dim1, dim2=dim2)


# -------------------------------------------------------------------------------------------------------------- norms
class LinalgVectorNormBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        x, = self.saved_tensors
        norm = self.saved_output()
        ord, dims, keepdim = self.ord, self.dims, self.keepdim
        if not keepdim and dims:
            for d in dims:
                grad = grad.unsqueeze(d)
                norm = norm.unsqueeze(d)
        return (_vector_norm_grad(x, norm, grad, ord, dims),)


def _vector_norm_grad(x, norm, grad, ord, dims):
    cplx = x._data.dtype.kind == "c"
    absx = x.abs()
    if ord == 0:
        return x * 0
    if ord in (np.inf, -np.inf):
        # the gradient is split evenly between the entries that attain the max (min) modulus
        hit = (absx._data == norm._data)
        count = hit.sum(axis=dims, keepdims=True)
        w = wrap((hit / np.maximum(count, 1)).astype(absx._data.dtype))
        return _scale(x, absx, grad * w, cplx)
    if ord == 2:
        safe = norm + wrap((norm._data == 0).astype(norm._data.dtype))
        return x * _as_dtype(grad / safe, x)
    if ord == 1:
        return _scale(x, absx, grad, cplx)
    # general p: |x|^(p-1) sgn(x) / norm^(p-1)
    zero_x = wrap((absx._data == 0).astype(absx._data.dtype))
    safe_norm = norm + wrap((norm._data == 0).astype(norm._data.dtype))
    factor = (absx + zero_x) ** (ord - 2) * (1 - zero_x) / safe_norm ** (ord - 1)
    return x * _as_dtype(grad * factor, x)


def _scale(x, absx, coeff, cplx):
    """``coeff * sgn(x)``, with sgn(0) = 0 (``x / |x|`` for complex)."""
    if not cplx:
        return coeff * x.sign()
    zero = wrap((absx._data == 0).astype(absx._data.dtype))
    return x * _as_dtype(coeff / (absx + zero), x)


def _norm_dtype(x: Tensor, dtype, fname):
    if dtype is not None:
        d = dt.to_dtype(dtype)
        if x._data.dtype.kind == "c" and d.category != dt.COMPLEX:
            raise RuntimeError(f"{fname}: dtype should be complex for complex inputs, but got {d}")
        return x.to(d) if x._data.dtype != d.np else x
    if x._data.dtype not in _FLOATING:
        raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as input. Got {x.dtype.scalar_name}")
    return x


def vector_norm(x: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """The vector ``ord``-norm over ``dim`` (all elements by default) of a real or complex tensor.

    ``ord``: any real number (``sum(|x|^ord)^(1/ord)``), ``inf`` (max ``|x|``), ``-inf`` (min ``|x|``) or 0 (the
    number of nonzero entries). The result is real.
    """
    fname = "linalg.vector_norm"
    check_tensor(x, "x", fname)
    if isinstance(ord, str) or ord is None:
        raise RuntimeError(f"{fname}: ord must be a number, got {ord!r}")
    x = _norm_dtype(x, dtype, fname)
    data = x._data
    xp = x._xp
    nd = data.ndim
    if dim is None:
        dims = tuple(range(nd))
    elif isinstance(dim, (int, np.integer)):
        dims = (normalize_dim(dim, nd),)
    else:
        dims = tuple(normalize_dim(d, nd) for d in dim)
    if data.size == 0 and ord < 0:
        raise RuntimeError(f"{fname} cannot compute the {ord} norm on an empty tensor because the operation does "
                           f"not have an identity")
    real_dtype = _REAL_DTYPE.get(data.dtype, data.dtype)
    axes = dims if dims else None
    if ord == 2:
        if len(dims) == nd and not keepdim and data.size:
            flat = data.reshape(-1)  # a full reduction is one BLAS dot product
            val = xp.sqrt(xp.vdot(flat, flat).real)
        elif data.dtype.kind == "c":
            val = xp.sqrt(xp.sum((data * data.conj()).real, axis=axes, keepdims=keepdim))
        else:
            val = xp.sqrt(xp.sum(data * data, axis=axes, keepdims=keepdim))
    else:
        a = xp.abs(data)
        if ord == 1:
            val = xp.sum(a, axis=axes, keepdims=keepdim)
        elif ord == np.inf:
            val = xp.max(a, axis=axes, keepdims=keepdim) if a.size else xp.zeros(())
        elif ord == -np.inf:
            val = xp.min(a, axis=axes, keepdims=keepdim)
        elif ord == 0:
            val = xp.sum(a != 0, axis=axes, keepdims=keepdim)
        else:
            val = xp.sum(a ** ord, axis=axes, keepdims=keepdim) ** (1.0 / ord)
    out = wrap(xp.asarray(val, dtype=real_dtype))
    if GRAD_ENABLED[0] and x._requires_grad:
        node = LinalgVectorNormBackward0()
        node.save(x)
        node.save_output(out)
        node.ord, node.dims, node.keepdim = ord, dims, keepdim
        record(node, out, x)
    return out


def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None) -> Tensor:
    """A matrix norm over the two dims ``dim`` (the last two by default).

    ``ord``: ``"fro"`` (Frobenius), ``"nuc"`` (nuclear: sum of singular values), ``2``/``-2`` (largest/smallest
    singular value), ``1``/``-1`` (max/min column sum of ``|A|``), ``inf``/``-inf`` (max/min row sum).
    """
    fname = "linalg.matrix_norm"
    check_tensor(A, "A", fname)
    if A._data.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor A must have at least 2 dimensions.")
    A = _norm_dtype(A, dtype, fname)
    nd = A._data.ndim
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise RuntimeError(f"{fname}: dim must be a 2-tuple. Got {dim}")
    d0, d1 = normalize_dim(dim[0], nd), normalize_dim(dim[1], nd)
    if d0 == d1:
        raise RuntimeError(f"{fname}: dims must be different. Got ({dim[0]}, {dim[1]})")
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in ("nuc", 2, -2):
        # move the matrix dims last, then reduce the singular values
        B = A.movedim((d0, d1), (-2, -1)) if (d0, d1) != (nd - 2, nd - 1) else A
        s = svdvals(B)
        if ord == "nuc":
            val = s.sum(-1)
        elif ord == 2:
            val = s[..., 0]
        else:
            val = s[..., -1]
        if keepdim:
            for d in sorted((d0, d1)):
                val = val.unsqueeze(d)
        return val
    if ord in (1, -1, np.inf, -np.inf):
        sum_dim, red_dim = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = A.abs().sum(sum_dim, keepdim=True)
        val = sums.amax(red_dim, keepdim=True) if ord > 0 else sums.amin(red_dim, keepdim=True)
        if not keepdim:
            val = val.reshape(tuple(n for i, n in enumerate(val.shape) if i not in (d0, d1)))
        return val
    raise RuntimeError(f"{fname}: Order {ord} not supported.")


def norm(A: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """A vector or matrix norm, chosen as PyTorch does.

    * ``dim`` an int, or ``ord`` None with ``dim`` None (the input is flattened): :func:`vector_norm`;
    * ``dim`` a 2-tuple, or ``ord`` a string: :func:`matrix_norm`;
    * ``dim`` None with ``ord`` given: the input must be 1-D (vector norm) or 2-D (matrix norm).
    """
    check_tensor(A, "A", "linalg.norm")
    if dim is not None:
        if isinstance(dim, (int, np.integer)):
            dim = (dim,)
        dim = tuple(dim)
        if len(dim) == 1:
            return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
        if len(dim) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}")
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype)
    nd = A._data.ndim
    if nd == 1 and not isinstance(ord, str):
        return vector_norm(A, ord, None, keepdim, dtype=dtype)
    if nd == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
    raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {nd}D.")


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



# PyTorch's linalg functions take ``out=`` (all but lstsq and diagonal); one helper gives them its rules.
from .ops._out import add_out_argument  # noqa: E402

add_out_argument(globals(), [n for n in __all__ if n not in ("LinAlgError", "lstsq", "diagonal")])
