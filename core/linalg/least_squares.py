"""The pseudo-inverse and least squares: ``pinv``, ``lstsq``."""
from __future__ import annotations

import numpy as np

from ..autograd.graph import Node
from ..ops._base import GRAD_ENABLED, Tensor, broadcast_error, record, sum_to, wrap
from ._common import LstsqResult, _as_dtype, _check_float, _check_matrix, _check_same_dtype, _col
from .solvers import _is_vector_rhs

__all__ = ["pinv", "lstsq"]


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
    if isinstance(v, Tensor):
        return bool((v._data > 0).any())
    return bool(np.any(np.asarray(v) > 0))


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
