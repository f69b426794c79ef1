"""``ember.distributions``: parameterizable probability distributions and sampling, with the API of
``torch.distributions``.

Distributions are built from ember tensor ops, so ``rsample`` (the reparameterization trick), ``log_prob``,
``entropy`` and :func:`kl_divergence` are differentiable with respect to the parameters: the pathwise estimator of
a VAE is ``loss = -p.log_prob(x)`` with ``z = q.rsample()``, and the score-function (REINFORCE) estimator of a
policy gradient is ``loss = -m.log_prob(action) * reward`` with ``action = m.sample()``. Sampling draws from
ember's default generator, so ``ember.manual_seed`` makes it repeat.

Validation is on by default (``Distribution.set_default_validate_args(False)`` turns it off): parameters outside
their constraint and ``log_prob`` values outside the support raise ``ValueError``.
"""
from . import _kl_cross_family, _kl_same_family  # noqa: F401  (they register the closed-form KL divergences)
from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .transforms import (AffineTransform, ComposeTransform, ExpTransform, SigmoidTransform, SoftplusTransform,
                         TanhTransform, Transform, identity_transform)
from .uniform import Uniform

__all__ = ["AffineTransform", "Bernoulli", "Beta", "Categorical", "ComposeTransform", "Dirichlet", "Distribution",
           "ExpTransform", "Exponential", "ExponentialFamily", "Gamma", "Independent", "Laplace", "LogNormal",
           "MultivariateNormal", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough", "Poisson",
           "SigmoidTransform", "SoftplusTransform", "TanhTransform", "Transform", "TransformedDistribution",
           "Uniform", "constraints", "identity_transform", "kl_divergence", "register_kl", "transforms"]
