"""``Gamma``: the distribution of waiting times for ``concentration`` events of a Poisson process of rate
``rate``."""
from __future__ import annotations

from .. import ops
from ..tensor import Size, Tensor
from ..type_info import finfo
from . import constraints
from ._gamma_sampling import standard_gamma
from ._incomplete_gamma import gammainc
from .exp_family import ExponentialFamily
from .utils import _as_size, _is_number, broadcast_all

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """A Gamma distribution parameterized by shape ``concentration`` and ``rate``: density
    ``rate^a x^(a-1) e^(-rate x) / Gamma(a)`` on ``x > 0``.

    Example::

        >>> m = Gamma(ember.tensor([1.0]), ember.tensor([1.0]))
        >>> m.sample().shape  # one draw per batch element, seeded by ember.manual_seed
        ember.Size([1])

    Args:
        concentration (float or Tensor): shape parameter of the distribution (often called alpha); positive.
        rate (float or Tensor): rate parameter (1 / scale, often called beta); positive.
        validate_args (bool, optional): whether to validate the parameters and ``log_prob`` values.
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        scalar = _is_number(concentration) and _is_number(rate)
        batch_shape = Size() if scalar else self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new Gamma with ``concentration`` and ``rate`` expanded to ``batch_shape``."""
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = _as_size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Gamma, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """``concentration / rate``."""
        return self.concentration / self.rate

    @property
    def mode(self):
        """``(concentration - 1) / rate``, or 0 when ``concentration < 1``."""
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        """``concentration / rate^2``."""
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=Size()):
        """Gamma draws of shape ``sample_shape + batch_shape``, differentiable in both parameters (the gradient in
        ``concentration`` is the implicit reparameterization gradient)."""
        shape = tuple(self._extended_shape(sample_shape))
        value = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        # a quotient that underflowed to 0 moves to the smallest positive number, keeping its gradient, so that
        # log_prob of a sample stays finite (PyTorch clamps the same way)
        floor = finfo(value.dtype).tiny
        return value + (value.detach().clamp(min=floor) - value.detach())

    def log_prob(self, value):
        """``a log(rate) + (a - 1) log(value) - rate value - lgamma(a)``; ``value`` may be a number."""
        if not isinstance(value, Tensor):
            value = ops.tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (ops.xlogy(self.concentration, self.rate) + ops.xlogy(self.concentration - 1, value)
                - self.rate * value - ops.lgamma(self.concentration))

    def cdf(self, value):
        """``P(concentration, rate * value)``, the regularized lower incomplete gamma function."""
        if self._validate_args:
            self._validate_sample(value)
        return gammainc(self.concentration, self.rate * value)

    def entropy(self):
        """``a - log(rate) + lgamma(a) + (1 - a) digamma(a)``."""
        a = self.concentration
        return a - ops.log(self.rate) + ops.lgamma(a) + (1.0 - a) * ops.digamma(a)

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return ops.lgamma(x + 1) + (x + 1) * ops.log(-y.reciprocal())
