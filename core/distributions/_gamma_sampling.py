"""Gamma and Dirichlet draws that are differentiable in their concentrations: the ``rsample`` of ``Gamma``,
``Beta`` and ``Dirichlet``.

A gamma draw comes from a rejection sampler, so it is no smooth function of ``alpha`` and fixed noise. Its gradient
is the implicit one (Figurnov et al., 2018, "Implicit Reparameterization Gradients"): the draw keeps its quantile
``P(alpha, x)`` as ``alpha`` moves, which ``_incomplete_gamma.dlog_draw_dalpha`` differentiates.

Draws are made in log space from NumPy's float64 sampler on ember's default generator: for ``alpha < 1`` as
``log G(alpha + 1) + log(U) / alpha`` (``G(alpha) = G(alpha + 1) U^(1/alpha)``, Marsaglia & Tsang), so that tiny
concentrations, whose draws underflow even float64, still give a Dirichlet point on the simplex (near a vertex)
and a finite gradient. Like PyTorch's, results are clamped to the dtype's smallest positive number.
"""
from __future__ import annotations

import numpy as np

from .. import ops
from ..autograd.function import Function, once_differentiable
from ..dtypes import float64
from ..random import _gen
from ..tensor import _to_numpy
from ..type_info import finfo
from ._incomplete_gamma import dlog_draw_dalpha

__all__ = ["standard_gamma", "sample_dirichlet"]


def _log_gamma_draws(alpha):
    """``log`` of Gamma(alpha, 1) draws, one per entry of ``alpha`` (a tensor), as a float64 tensor."""
    xp = alpha._xp
    a = _to_numpy(alpha._data).astype(np.float64)  # NumPy's generator draws on the host
    g = _gen(None)
    small = a < 1
    draws = np.log(g.standard_gamma(np.where(small, a + 1, a)))
    if small.any():
        u = g.random(a.shape)
        draws = np.where(small, draws + np.log(u) / np.where(small, a, 1.0), draws)
    return ops.tensor(xp.asarray(draws), dtype=float64, device=alpha.device)


def _clamped(x64, like):
    """``x64`` in ``like``'s dtype, at least its smallest positive normal number."""
    return x64.to(like.dtype).clamp(min=finfo(like.dtype).tiny)


class StandardGamma(Function):
    """Gamma(alpha, 1) draws with the implicit reparameterization gradient."""

    @staticmethod
    def forward(ctx, alpha):
        """One draw per entry of ``alpha``, in its dtype."""
        log_x = _log_gamma_draws(alpha)
        ctx.save_for_backward(alpha)
        ctx.log_x = log_x
        return _clamped(log_x.exp(), alpha)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        """``grad * dx/dalpha`` with ``dx/dalpha = x dlog(x)/dalpha``."""
        (alpha,) = ctx.saved_tensors
        log_x = ctx.log_x
        dx_da = log_x.exp() * dlog_draw_dalpha(alpha.detach().to(float64), log_x)
        return grad * dx_da.to(alpha.dtype)


class SampleDirichlet(Function):
    """Dirichlet draws ``x = G / sum(G)`` from gamma draws ``G``, normalized in log space, with the gradient of
    the gamma draws carried through the normalization."""

    @staticmethod
    def forward(ctx, concentration):
        """One point of the simplex per row of ``concentration`` (the last dimension)."""
        log_g = _log_gamma_draws(concentration)
        x64 = (log_g - log_g.logsumexp(-1, keepdim=True)).exp()
        x = _clamped(x64, concentration)
        ctx.save_for_backward(concentration)
        ctx.log_g, ctx.x64 = log_g, x64
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        """With ``d_j = dlog(G_j)/dalpha_j``: ``dx_i/dalpha_j = (delta_ij - x_i) x_j d_j``."""
        (concentration,) = ctx.saved_tensors
        x = ctx.x64
        d = dlog_draw_dalpha(concentration.detach().to(float64), ctx.log_g)
        g = grad.to(float64)
        out = d * x * (g - (g * x).sum(-1, keepdim=True))
        return out.to(concentration.dtype)


def standard_gamma(alpha):
    """Gamma(``alpha``, 1) draws shaped like ``alpha``, differentiable in ``alpha``."""
    return StandardGamma.apply(alpha)


def sample_dirichlet(concentration):
    """Dirichlet(``concentration``) draws shaped like it (the simplex along the last dimension), differentiable in
    ``concentration``."""
    return SampleDirichlet.apply(concentration)
