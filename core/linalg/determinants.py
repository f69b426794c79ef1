"""Determinants: ``det`` and ``slogdet``."""
from __future__ import annotations

from ..autograd.graph import Node
from ..ops._base import GRAD_ENABLED, Tensor, record, record_multi, wrap
from ._common import LinAlgError, SlogdetResult, _as_dtype, _check_square, _col
from .solvers import inv
from .least_squares import pinv

__all__ = ["det", "slogdet"]


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
        if bool((d._data != 0).all()):
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
