"""``Categorical``: one of ``K`` categories, drawn with probabilities ``probs`` (or log-weights ``logits``)."""
from __future__ import annotations

import math

from .. import ops
from ..dtypes import int64
from ..tensor import Size
from ..type_info import finfo
from . import constraints
from .distribution import Distribution
from .utils import _as_size, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """A categorical distribution over ``{0, ..., K - 1}``, parameterized by ``probs`` or ``logits`` (exactly one).

    The last dimension of the parameter indexes the categories; the leading ones are the batch. ``probs`` need
    only be non-negative (they are normalized to sum to 1); ``logits`` are unnormalized log-probabilities
    (normalized with logsumexp). Samples are int64 category indices.

    Example::

        >>> m = Categorical(ember.tensor([0.25, 0.25, 0.25, 0.25]))
        >>> m.sample().shape  # one draw per batch element, seeded by ember.manual_seed
        ember.Size([])

    Args:
        probs (Tensor): event probabilities, at least 1-D.
        logits (Tensor): event log-probabilities (unnormalized), at least 1-D.
        validate_args (bool, optional): whether to validate the parameter and ``log_prob`` values.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.dim() > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new Categorical with its parameter expanded to ``batch_shape + (K,)``."""
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = _as_size(batch_shape)
        param_shape = tuple(batch_shape) + (self._num_events,)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(param_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(param_shape)
            new._param = new.logits
        new._num_events = self._num_events
        super(Categorical, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        """The integers ``0 .. K - 1``."""
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        """Normalized log-probabilities (``log`` of clamped ``probs`` when those were given)."""
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        """Normalized probabilities (``softmax(logits)`` when logits were given)."""
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        """The shape of the parameter that was given, ``batch_shape + (K,)``."""
        return self._param.size()

    @property
    def mean(self):
        """NaN: category labels have no mean."""
        return ops.full(tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype, device=self.probs.device)

    @property
    def mode(self):
        """The most probable category."""
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        """NaN: category labels have no variance."""
        return ops.full(tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype, device=self.probs.device)

    def sample(self, sample_shape=Size()):
        """int64 category indices of shape ``sample_shape + batch_shape``."""
        sample_shape = _as_size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        # one multinomial call draws every sample of every batch row at once
        samples_2d = ops.multinomial(probs_2d.detach(), sample_shape.numel(), True).T
        return samples_2d.reshape(tuple(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        """The normalized logit of category ``value`` (broadcast against the batch)."""
        if self._validate_args:
            self._validate_sample(value)
        value = value.to(int64).unsqueeze(-1)
        value, log_pmf = ops.broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self):
        """``-sum p log p``; a zero-probability category adds 0 (its ``-inf`` logit is clamped first, since
        ``0 * -inf`` is NaN)."""
        min_real = finfo(self.logits.dtype).min
        logits = ops.clamp(self.logits, min=min_real)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        """``0 .. K - 1`` along a new leading dimension, then the batch dimensions (size 1 unless ``expand``)."""
        values = ops.arange(self._num_events, dtype=int64, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
