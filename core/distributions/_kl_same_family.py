"""Closed-form KL divergences between two distributions of the same family, registered with ``register_kl``.

Each is written with ember ops, so it is differentiable with respect to the parameters of both distributions. Where
``p`` puts mass outside ``q``'s support the divergence is ``inf``. A pair of exponential families without a closed
form here falls back to the Bregman divergence of their log normalizer.
"""
from __future__ import annotations

import math

from .. import linalg, ops
from ..autograd import grad as _autograd_grad
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import _softplus, _sum_rightmost


def _batch_trace_XXT(bmat):
    """``trace(X X^T)`` (the sum of squares) of each matrix of a batch."""
    n, m = bmat.shape[-1], bmat.shape[-2]
    return bmat.reshape(-1, m * n).pow(2).sum(-1).reshape(tuple(bmat.shape[:-2]))


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    # softplus(-logit) = -log(prob), softplus(logit) = -log(1 - prob), stable at saturated logits; the masks give
    # the limits where p or q is exactly 0 or 1 (clamped logits would make them large but finite)
    t1 = p.probs * (_softplus(-q.logits) - _softplus(-p.logits))
    t1 = ops.where(p.probs == 0, 0.0, ops.where(q.probs == 0, math.inf, t1))
    t2 = (1 - p.probs) * (_softplus(q.logits) - _softplus(p.logits))
    t2 = ops.where(p.probs == 1, 0.0, ops.where(q.probs == 1, math.inf, t2))
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    p_zero, q_zero = p.probs == 0, q.probs == 0
    # zero-probability entries may have -inf logits; replacing them before the arithmetic avoids 0 * inf and
    # inf - inf (NaNs and NumPy warnings), and the masks below give those entries their limits anyway
    p_logits = ops.where(p_zero, 0.0, p.logits)
    q_logits = ops.where(q_zero, 0.0, q.logits)
    t = p.probs * (p_logits - q_logits)
    t = ops.where(p_zero, 0.0, ops.where(q_zero, math.inf, t))
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    # the Bregman divergence of the log normalizer F: F(theta_q) - F(theta_p) - <theta_q - theta_p, grad F(theta_p)>
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot be "
                                  "computed using Bregman divergences")
    p_nparams = [t.detach().requires_grad_() for t in p._natural_params]
    q_nparams = q._natural_params
    lg_normal = p._log_normalizer(*p_nparams)
    gradients = _autograd_grad(lg_normal.sum(), p_nparams, create_graph=True)
    result = q._log_normalizer(*q_nparams) - lg_normal
    for pnp, qnp, g in zip(p_nparams, q_nparams, gradients):
        result = result - _sum_rightmost((qnp - pnp) * g, len(q.event_shape))
    return result


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * ops.exp(-loc_abs_diff / p.scale)
    return t1 + t2 + t3 - 1


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    # log det ratio + trace(Sq^-1 Sp) + Mahalanobis distance of the means, all through the Cholesky factors
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes cannot be "
                         f"computed (p: {p.event_shape}, q: {q.event_shape})")
    half_term1 = (q._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                  - p._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    batch = tuple(ops.broadcast_shapes(tuple(q._unbroadcasted_scale_tril.shape[:-2]),
                                       tuple(p._unbroadcasted_scale_tril.shape[:-2])))
    n = p.event_shape[0]
    q_scale_tril = q._unbroadcasted_scale_tril.expand(batch + (n, n))
    p_scale_tril = p._unbroadcasted_scale_tril.expand(batch + (n, n))
    term2 = _batch_trace_XXT(linalg.solve_triangular(q_scale_tril, p_scale_tril, upper=False))
    term3 = _batch_mahalanobis(q._unbroadcasted_scale_tril, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return ops.where((q.low > p.low) | (q.high < p.high), math.inf, result)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError(f"KL between Independent distributions needs the same reinterpreted_batch_ndims, "
                                  f"got {p.reinterpreted_batch_ndims} and {q.reinterpreted_batch_ndims}")
    result = kl_divergence(p.base_dist, q.base_dist)
    return _sum_rightmost(result, p.reinterpreted_batch_ndims)


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    t1 = q.concentration * ops.log(p.rate / q.rate)
    t2 = ops.lgamma(q.concentration) - ops.lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * ops.digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = ops.lgamma(q.concentration1) + ops.lgamma(q.concentration0) + ops.lgamma(sum_p)
    t2 = ops.lgamma(p.concentration1) + ops.lgamma(p.concentration0) + ops.lgamma(sum_q)
    t3 = (p.concentration1 - q.concentration1) * ops.digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * ops.digamma(p.concentration0)
    t5 = (sum_q - sum_p) * ops.digamma(sum_p)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    sum_p = p.concentration.sum(-1)
    sum_q = q.concentration.sum(-1)
    t1 = ops.lgamma(sum_p) - ops.lgamma(sum_q)
    t2 = (ops.lgamma(p.concentration) - ops.lgamma(q.concentration)).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = ops.digamma(p.concentration) - ops.digamma(sum_p).unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    # xlogy keeps a zero rate of p at its limit (0 log 0 = 0), where PyTorch's p log p - p log q gives NaN
    return ops.xlogy(p.rate, p.rate) - ops.xlogy(p.rate, q.rate) - (p.rate - q.rate)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    # an invertible map leaves the KL divergence unchanged, so equal transforms reduce it to the bases'
    if p.transforms != q.transforms:
        raise NotImplementedError("KL between TransformedDistributions needs equal transforms, got "
                                  f"{p.transforms} and {q.transforms}")
    if p.event_shape != q.event_shape:
        raise NotImplementedError("KL between TransformedDistributions needs equal event shapes, got "
                                  f"{p.event_shape} and {q.event_shape}")
    return kl_divergence(p.base_dist, q.base_dist)
