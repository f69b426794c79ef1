"""``Beta``: random probabilities in ``[0, 1]``, the two-category ``Dirichlet``."""
from __future__ import annotations

from .. import ops
from ..dtypes import get_default_dtype
from ..tensor import Size
from . import constraints
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .utils import _as_size, _is_number, broadcast_all

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """A Beta distribution parameterized by ``concentration1`` (alpha) and ``concentration0`` (beta): density
    ``x^(alpha-1) (1-x)^(beta-1) / B(alpha, beta)`` on ``[0, 1]``.

    It is the ``Dirichlet`` over ``(x, 1 - x)`` with concentration ``(alpha, beta)``, which does its work.

    Example::

        >>> m = Beta(ember.tensor([0.5]), ember.tensor([0.5]))
        >>> m.sample().shape  # one draw per batch element, seeded by ember.manual_seed
        ember.Size([1])

    Args:
        concentration1 (float or Tensor): 1st concentration parameter of the distribution (often called alpha).
        concentration0 (float or Tensor): 2nd concentration parameter of the distribution (often called beta).
        validate_args (bool, optional): whether to validate the parameters and ``log_prob`` values.
    """

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if _is_number(concentration1) and _is_number(concentration0):
            both = ops.tensor([float(concentration1), float(concentration0)], dtype=get_default_dtype())
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            both = ops.stack([concentration1, concentration0], -1)
        # the Dirichlet validates the pair, so an invalid Beta is reported as an invalid Dirichlet, as in PyTorch
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new Beta with its parameters expanded to ``batch_shape``."""
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = _as_size(batch_shape)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        super(Beta, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """``alpha / (alpha + beta)``."""
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        """``(alpha - 1) / (alpha + beta - 2)``, or the likelier end when both are below 1."""
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        """``alpha beta / ((alpha + beta)^2 (alpha + beta + 1))``."""
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=Size()):
        """Beta draws of shape ``sample_shape + batch_shape``, differentiable in both concentrations."""
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        """The Dirichlet log-density of ``(value, 1 - value)``."""
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = ops.stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self):
        """The entropy of the underlying Dirichlet."""
        return self._dirichlet.entropy()

    @property
    def concentration1(self):
        """``alpha``, the first concentration."""
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        """``beta``, the second concentration."""
        return self._dirichlet.concentration[..., 1]

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return ops.lgamma(x) + ops.lgamma(y) - ops.lgamma(x + y)
