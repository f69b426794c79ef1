"""``Uniform``: the continuous uniform distribution on the half-open interval ``[low, high)``."""
from __future__ import annotations

import math

from .. import ops
from ..tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import _as_size, _is_number, broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Uniformly distributed samples from the half-open interval ``[low, high)``.

    Example::

        >>> m = Uniform(ember.tensor([0.0]), ember.tensor([5.0]))
        >>> m.sample().shape  # one draw per batch element, seeded by ember.manual_seed
        ember.Size([1])

    Args:
        low (float or Tensor): lower range (inclusive).
        high (float or Tensor): upper range (exclusive); must exceed ``low``.
        validate_args (bool, optional): whether to validate the parameters and ``log_prob`` values.
    """

    has_rsample = True

    @property
    def arg_constraints(self):
        """``low < high``, checked both ways so the error names the parameter given as out of range."""
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        batch_shape = Size() if _is_number(low) and _is_number(high) else self.low.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new Uniform with ``low`` and ``high`` expanded to ``batch_shape``."""
        new = self._get_checked_instance(Uniform, _instance)
        batch_shape = _as_size(batch_shape)
        new.low = self.low.expand(batch_shape)
        new.high = self.high.expand(batch_shape)
        super(Uniform, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """``(high + low) / 2``."""
        return (self.high + self.low) / 2

    @property
    def mode(self):
        """NaN: every point of the interval is equally likely."""
        return math.nan * self.high

    @property
    def stddev(self):
        """``(high - low) / sqrt(12)``."""
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        """``(high - low)^2 / 12``."""
        return (self.high - self.low).pow(2) / 12

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """The interval ``[low, high]``."""
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape=Size()):
        """``low + u * (high - low)`` with ``u ~ U[0, 1)``: differentiable in ``low`` and ``high``."""
        shape = self._extended_shape(sample_shape)
        rand = ops.rand(tuple(shape), dtype=self.low.dtype, device=self.low.device)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value):
        """``-log(high - low)`` inside ``[low, high)``, ``-inf`` outside."""
        if self._validate_args:
            self._validate_sample(value)
        lb = (self.low <= value).to(self.low.dtype)
        ub = (self.high > value).to(self.low.dtype)
        return ops.log(lb * ub) - ops.log(self.high - self.low)

    def cdf(self, value):
        """``(value - low) / (high - low)``, clamped to ``[0, 1]``."""
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value):
        """``low + value * (high - low)``."""
        return value * (self.high - self.low) + self.low

    def entropy(self):
        """``log(high - low)``."""
        return ops.log(self.high - self.low)
