"""``Dirichlet``: random probability vectors, with concentration ``alpha`` (a distribution over the simplex)."""
from __future__ import annotations

from .. import ops
from ..tensor import Size
from . import constraints
from ._gamma_sampling import sample_dirichlet
from .exp_family import ExponentialFamily
from .utils import _as_size

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """A Dirichlet distribution parameterized by ``concentration``: density
    ``Gamma(sum a) / prod Gamma(a_i) * prod x_i^(a_i - 1)`` on the probability simplex.

    Example::

        >>> m = Dirichlet(ember.tensor([0.5, 0.5]))
        >>> m.sample().shape  # one draw per batch element, seeded by ember.manual_seed
        ember.Size([2])

    Args:
        concentration (Tensor): concentration parameters (often called alpha), positive, shape
            ``batch_shape + (K,)``.
        validate_args (bool, optional): whether to validate the parameter and ``log_prob`` values.
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new Dirichlet with ``concentration`` expanded to ``batch_shape + (K,)``."""
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = _as_size(batch_shape)
        new.concentration = self.concentration.expand(tuple(batch_shape) + tuple(self.event_shape))
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=Size()):
        """Normalized Gamma(alpha_i, 1) draws: points of the simplex, differentiable in ``concentration``."""
        shape = tuple(self._extended_shape(sample_shape))
        return sample_dirichlet(self.concentration.expand(shape))

    def log_prob(self, value):
        """``sum (a_i - 1) log x_i + lgamma(sum a_i) - sum lgamma(a_i)``."""
        if self._validate_args:
            self._validate_sample(value)
        a = self.concentration
        return ops.xlogy(a - 1.0, value).sum(-1) + ops.lgamma(a.sum(-1)) - ops.lgamma(a).sum(-1)

    @property
    def mean(self):
        """``a / sum(a)``."""
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        """``(a - 1) / sum(a - 1)`` over the ``a_i > 1``; when every ``a_i < 1``, the vertex of the largest."""
        am1 = (self.concentration - 1).clamp(min=0.0)
        all_below_one = (self.concentration < 1).all(dim=-1, keepdim=True)
        # there the interior formula is 0 / 0; PyTorch takes the argmax of that NaN vector, the first coordinate
        mode = am1 / ops.where(all_below_one, 1.0, am1.sum(-1, keepdim=True))
        vertex = (ops.arange(mode.shape[-1], device=mode.device) == 0).to(mode.dtype)
        return ops.where(all_below_one, vertex, mode)

    @property
    def variance(self):
        """``a_i (a0 - a_i) / (a0^2 (a0 + 1))`` with ``a0 = sum(a)``."""
        a0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (a0 - self.concentration) / (a0.pow(2) * (a0 + 1))

    def entropy(self):
        """``sum lgamma(a_i) - lgamma(a0) - (K - a0) digamma(a0) - sum (a_i - 1) digamma(a_i)``."""
        a = self.concentration
        k = a.shape[-1]
        a0 = a.sum(-1)
        return (ops.lgamma(a).sum(-1) - ops.lgamma(a0) - (k - a0) * ops.digamma(a0)
                - ((a - 1.0) * ops.digamma(a)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return ops.lgamma(x).sum(-1) - ops.lgamma(x.sum(-1))
