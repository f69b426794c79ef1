"""``Exponential``: waiting times of a Poisson process with rate ``rate``."""
from __future__ import annotations

from .. import ops
from ..tensor import Size
from . import constraints
from .exp_family import ExponentialFamily
from .utils import _as_size, _is_number, broadcast_all

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """An exponential distribution parameterized by ``rate``: density ``rate * exp(-rate * x)`` on ``x >= 0``.

    Example::

        >>> m = Exponential(ember.tensor([1.0]))
        >>> m.sample().shape  # one draw per batch element, seeded by ember.manual_seed
        ember.Size([1])

    Args:
        rate (float or Tensor): rate (the inverse of the scale); must be positive.
        validate_args (bool, optional): whether to validate the parameter and ``log_prob`` values.
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = Size() if _is_number(rate) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new Exponential with ``rate`` expanded to ``batch_shape``."""
        new = self._get_checked_instance(Exponential, _instance)
        batch_shape = _as_size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Exponential, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """``1 / rate``."""
        return self.rate.reciprocal()

    @property
    def mode(self):
        """0."""
        return ops.zeros_like(self.rate)

    @property
    def stddev(self):
        """``1 / rate``."""
        return self.rate.reciprocal()

    @property
    def variance(self):
        """``1 / rate^2``."""
        return self.rate.pow(-2)

    def rsample(self, sample_shape=Size()):
        """``E / rate`` with ``E ~ Exponential(1)``: differentiable in ``rate``."""
        shape = self._extended_shape(sample_shape)
        unit = ops.empty(tuple(shape), dtype=self.rate.dtype, device=self.rate.device).exponential_()
        return unit / self.rate

    def log_prob(self, value):
        """``log(rate) - rate * value``."""
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        """``1 - exp(-rate * value)``."""
        if self._validate_args:
            self._validate_sample(value)
        return 1 - ops.exp(-self.rate * value)

    def icdf(self, value):
        """``-log1p(-value) / rate``."""
        return -ops.log1p(-value) / self.rate

    def entropy(self):
        """``1 - log(rate)``."""
        return 1.0 - ops.log(self.rate)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -ops.log(-x)
