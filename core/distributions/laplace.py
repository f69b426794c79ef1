"""``Laplace``: the double-exponential distribution with location ``loc`` and scale ``scale``."""
from __future__ import annotations

from .. import ops
from ..tensor import Size
from ..type_info import finfo
from . import constraints
from .distribution import Distribution
from .utils import _as_size, _is_number, broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    """A Laplace distribution parameterized by ``loc`` and ``scale``: density ``exp(-|x - loc| / scale) / (2
    scale)``.

    Example::

        >>> m = Laplace(ember.tensor([0.0]), ember.tensor([1.0]))
        >>> m.sample().shape  # one draw per batch element, seeded by ember.manual_seed
        ember.Size([1])

    Args:
        loc (float or Tensor): mean of the distribution.
        scale (float or Tensor): scale of the distribution; must be positive.
        validate_args (bool, optional): whether to validate the parameters and ``log_prob`` values.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        batch_shape = Size() if _is_number(loc) and _is_number(scale) else self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new Laplace with ``loc`` and ``scale`` expanded to ``batch_shape``."""
        new = self._get_checked_instance(Laplace, _instance)
        batch_shape = _as_size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Laplace, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """``loc``."""
        return self.loc

    @property
    def mode(self):
        """``loc``."""
        return self.loc

    @property
    def variance(self):
        """``2 scale^2``."""
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        """``sqrt(2) scale``."""
        return 2 ** 0.5 * self.scale

    def rsample(self, sample_shape=Size()):
        """Inverse-CDF sampling from ``u ~ U(eps - 1, 1)``: differentiable in ``loc`` and ``scale``."""
        shape = self._extended_shape(sample_shape)
        # the open lower end keeps |u| < 1, so log1p(-|u|) stays finite
        u = ops.empty(tuple(shape), dtype=self.loc.dtype, device=self.loc.device)
        u.uniform_(finfo(self.loc.dtype).eps - 1, 1)
        return self.loc - self.scale * u.sign() * ops.log1p(-u.abs())

    def log_prob(self, value):
        """``-log(2 scale) - |value - loc| / scale``."""
        if self._validate_args:
            self._validate_sample(value)
        return -ops.log(2 * self.scale) - ops.abs(value - self.loc) / self.scale

    def cdf(self, value):
        """``1/2 - sign(value - loc) expm1(-|value - loc| / scale) / 2``."""
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        return 0.5 - 0.5 * diff.sign() * ops.expm1(-diff.abs() / self.scale)

    def icdf(self, value):
        """``loc - scale sign(value - 1/2) log1p(-2 |value - 1/2|)``."""
        term = value - 0.5
        return self.loc - self.scale * term.sign() * ops.log1p(-2 * term.abs())

    def entropy(self):
        """``1 + log(2 scale)``."""
        return 1 + ops.log(2 * self.scale)
