"""``Poisson``: counts of events that occur independently at ``rate`` per unit interval."""
from __future__ import annotations

from .. import ops
from ..autograd.grad_mode import no_grad
from ..tensor import Size
from . import constraints
from .exp_family import ExponentialFamily
from .utils import _as_size, _is_number, broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """A Poisson distribution parameterized by ``rate``: ``P(k) = rate^k e^(-rate) / k!`` for ``k = 0, 1, ...``.

    Samples are non-negative integers, stored in the rate's floating dtype.

    Example::

        >>> m = Poisson(ember.tensor([4.]))
        >>> m.sample().shape  # one draw per batch element, seeded by ember.manual_seed
        ember.Size([1])

    Args:
        rate (Number, Tensor): the rate parameter; non-negative.
        validate_args (bool, optional): whether to validate the parameter and ``log_prob`` values.
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = Size() if _is_number(rate) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new Poisson with ``rate`` expanded to ``batch_shape``."""
        new = self._get_checked_instance(Poisson, _instance)
        batch_shape = _as_size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Poisson, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """``rate``."""
        return self.rate

    @property
    def mode(self):
        """``floor(rate)``."""
        return self.rate.floor()

    @property
    def variance(self):
        """``rate``."""
        return self.rate

    def sample(self, sample_shape=Size()):
        """Counts of shape ``sample_shape + batch_shape``, in the rate's dtype."""
        shape = tuple(self._extended_shape(sample_shape))
        with no_grad():
            return ops.poisson(self.rate.expand(shape).contiguous())

    def log_prob(self, value):
        """``value log(rate) - rate - lgamma(value + 1)`` (``0 log 0 = 0``, so a zero rate has mass 1 at 0)."""
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return ops.xlogy(value, rate) - rate - ops.lgamma(value + 1)

    @property
    def _natural_params(self):
        return (ops.log(self.rate),)

    def _log_normalizer(self, x):
        return ops.exp(x)
