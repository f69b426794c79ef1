"""``Independent``: reinterpret some batch dimensions of a distribution as event dimensions."""
from __future__ import annotations

from ..tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import _as_size, _sum_rightmost

__all__ = ["Independent"]


class Independent(Distribution):
    """Reinterprets the ``reinterpreted_batch_ndims`` rightmost batch dimensions of ``base_distribution`` as event
    dimensions, so ``log_prob`` sums over them.

    A grid of independent pixel probabilities, for instance, becomes one distribution over whole images, whose
    ``log_prob`` is one number per image::

        >>> pixels = Bernoulli(ember.full((28, 28), 0.5))
        >>> image = Independent(pixels, 2)
        >>> pixels.log_prob(ember.zeros(28, 28)).shape, image.log_prob(ember.zeros(28, 28)).shape
        (ember.Size([28, 28]), ember.Size([]))

    Args:
        base_distribution (Distribution): a base distribution.
        reinterpreted_batch_ndims (int): the number of batch dimensions to reinterpret as event dimensions.
        validate_args (bool, optional): whether to validate.
    """

    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        if reinterpreted_batch_ndims > len(base_distribution.batch_shape):
            raise ValueError("Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), actual "
                             f"{reinterpreted_batch_ndims} vs {len(base_distribution.batch_shape)}")
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        event_dim = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        batch_shape = shape[:len(shape) - event_dim]
        event_shape = shape[len(shape) - event_dim:]
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new Independent whose base distribution is expanded to ``batch_shape`` plus the reinterpreted
        dimensions."""
        new = self._get_checked_instance(Independent, _instance)
        batch_shape = _as_size(batch_shape)
        reinterpreted = tuple(self.event_shape[:self.reinterpreted_batch_ndims])
        new.base_dist = self.base_dist.expand(tuple(batch_shape) + reinterpreted)
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        super(Independent, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def has_rsample(self):
        """Whether the base distribution has ``rsample``."""
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self):
        """The base distribution's, when no dimension is reinterpreted (the support would be a product)."""
        if self.reinterpreted_batch_ndims > 0:
            return False
        return self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self):
        """The base support, with the reinterpreted dimensions folded into each event."""
        result = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            result = constraints.independent(result, self.reinterpreted_batch_ndims)
        return result

    @property
    def mean(self):
        """The base distribution's mean."""
        return self.base_dist.mean

    @property
    def mode(self):
        """The base distribution's mode."""
        return self.base_dist.mode

    @property
    def variance(self):
        """The base distribution's variance."""
        return self.base_dist.variance

    def sample(self, sample_shape=Size()):
        """A sample of the base distribution."""
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=Size()):
        """A reparameterized sample of the base distribution."""
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        """The base ``log_prob`` summed over the reinterpreted dimensions."""
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        """The base entropy summed over the reinterpreted dimensions."""
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand=True):
        """The base distribution's support, when no dimension is reinterpreted."""
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_dist}, {self.reinterpreted_batch_ndims})"
