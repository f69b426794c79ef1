"""``OneHotCategorical``: a ``Categorical`` whose samples are one-hot vectors instead of indices."""
from __future__ import annotations

from .. import ops
from ..tensor import Size
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .utils import _as_size

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


def _one_hot(indices, num_classes, like):
    """``indices.shape + (num_classes,)`` one-hot vectors in ``like``'s dtype (no gradient: indices are discrete)."""
    classes = ops.arange(num_classes, device=indices.device)
    return (indices.unsqueeze(-1) == classes).to(like.dtype)


class OneHotCategorical(Distribution):
    """A one-hot categorical distribution, parameterized by ``probs`` or ``logits`` (exactly one).

    Samples are one-hot vectors of size ``K`` (the parameter's last dimension), in the parameter's dtype, so
    ``event_shape`` is ``(K,)``. The parameters behave as in :class:`Categorical`.

    Example::

        >>> m = OneHotCategorical(ember.tensor([0.25, 0.25, 0.25, 0.25]))
        >>> m.sample().shape  # one draw per batch element, seeded by ember.manual_seed
        ember.Size([4])

    Args:
        probs (Tensor): event probabilities, at least 1-D.
        logits (Tensor): event log-probabilities (unnormalized), at least 1-D.
        validate_args (bool, optional): whether to validate ``log_prob`` values.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        # the inner Categorical validates the parameter with the default setting, as PyTorch's does
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new OneHotCategorical with its parameter expanded to ``batch_shape + (K,)``."""
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = _as_size(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        super(OneHotCategorical, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        """Normalized event probabilities."""
        return self._categorical.probs

    @property
    def logits(self):
        """Normalized event log-probabilities."""
        return self._categorical.logits

    @property
    def mean(self):
        """``probs``."""
        return self._categorical.probs

    @property
    def mode(self):
        """The one-hot vector of the most probable category."""
        probs = self._categorical.probs
        return _one_hot(probs.argmax(dim=-1), probs.shape[-1], probs)

    @property
    def variance(self):
        """``probs * (1 - probs)``."""
        return self._categorical.probs * (1 - self._categorical.probs)

    @property
    def param_shape(self):
        """The shape of the parameter that was given, ``batch_shape + (K,)``."""
        return self._categorical.param_shape

    def sample(self, sample_shape=Size()):
        """One-hot vectors of shape ``sample_shape + batch_shape + (K,)``, in the parameter's dtype."""
        indices = self._categorical.sample(_as_size(sample_shape))
        return _one_hot(indices, self._categorical._num_events, self._categorical.probs)

    def log_prob(self, value):
        """The log-probability of the category where ``value`` is 1."""
        if self._validate_args:
            self._validate_sample(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self):
        """The entropy of the underlying categorical distribution."""
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        """The ``K`` one-hot vectors along a new leading dimension, then the batch dimensions (size 1 unless
        ``expand``)."""
        n = self.event_shape[0]
        values = ops.eye(n, dtype=self._param.dtype, device=self._param.device)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + tuple(self.batch_shape) + (n,))
        return values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """A :class:`OneHotCategorical` with a straight-through gradient estimator: ``rsample`` returns the one-hot
    sample in the forward pass and passes the gradient on to ``probs`` in the backward pass (Bengio et al.,
    2013)."""

    has_rsample = True

    def rsample(self, sample_shape=Size()):
        """``sample + (probs - probs.detach())``: the sample's value with the gradient of ``probs``."""
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
