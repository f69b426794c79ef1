"""``LogNormal``: ``exp(X)`` for a Normal ``X``."""
from __future__ import annotations

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """The log-normal distribution: ``Y = exp(X)`` with ``X ~ Normal(loc, scale)``.

    Example::

        >>> m = LogNormal(ember.tensor([0.0]), ember.tensor([1.0]))
        >>> m.sample().shape  # one draw per batch element, seeded by ember.manual_seed
        ember.Size([1])

    Args:
        loc (float or Tensor): the mean of ``log(Y)``.
        scale (float or Tensor): the standard deviation of ``log(Y)``; positive.
        validate_args (bool, optional): whether to validate the parameters and ``log_prob`` values.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new LogNormal with its parameters expanded to ``batch_shape``."""
        new = self._get_checked_instance(LogNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        """The mean of ``log(Y)``."""
        return self.base_dist.loc

    @property
    def scale(self):
        """The standard deviation of ``log(Y)``."""
        return self.base_dist.scale

    @property
    def mean(self):
        """``exp(loc + scale^2 / 2)``."""
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        """``exp(loc - scale^2)``."""
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        """``(exp(scale^2) - 1) exp(2 loc + scale^2)``."""
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def entropy(self):
        """The base Normal's entropy plus ``loc``."""
        return self.base_dist.entropy() + self.loc
