"""Decompositions: ``cholesky``, ``cholesky_ex``, ``qr``, ``eigh``, ``eigvalsh``, ``svd``, ``svdvals``."""
from __future__ import annotations

import numpy as np

from ..autograd.graph import Node
from ..ops._base import GRAD_ENABLED, Tensor, record, record_multi, wrap
from ..tensor import _to_numpy
from ._common import (CholeskyExResult, EighResult, QRResult, SVDResult, _as_dtype, _check_matrix, _check_square,
                      _col, _error, _eye, _herm, _matrices, _row, _tri_mask)
from .solvers import solve_triangular

__all__ = ["cholesky", "cholesky_ex", "qr", "eigh", "eigvalsh", "svd", "svdvals"]


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
                infos[b] = _cholesky_info(_to_numpy(a))  # the error path runs on a host copy
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
        from ..ops.shape import cat
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
