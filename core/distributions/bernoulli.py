"""``Bernoulli``: a coin that lands 1 with probability ``probs`` (or log-odds ``logits``)."""
from __future__ import annotations

import math

from .. import ops
from ..autograd.grad_mode import no_grad
from ..tensor import Size
from . import constraints
from .exp_family import ExponentialFamily
from .utils import (_as_size, _bce_with_logits, _is_number, _softplus, broadcast_all, lazy_property,
                    logits_to_probs, probs_to_logits)

__all__ = ["Bernoulli"]


class Bernoulli(ExponentialFamily):
    """A Bernoulli distribution parameterized by ``probs`` or by ``logits`` (exactly one of them).

    Samples are 0 or 1 (in the parameter's floating dtype): 1 with probability ``p``, 0 with ``1 - p``.

    Example::

        >>> m = Bernoulli(ember.tensor([0.3]))
        >>> m.sample().shape  # one draw per batch element, seeded by ember.manual_seed
        ember.Size([1])

    Args:
        probs (Number, Tensor): the probability of sampling 1.
        logits (Number, Tensor): the log-odds of sampling 1.
        validate_args (bool, optional): whether to validate the parameter and ``log_prob`` values.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = _is_number(probs)
            (self.probs,) = broadcast_all(probs)
        else:
            is_scalar = _is_number(logits)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = Size() if is_scalar else self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """A new Bernoulli with its parameter expanded to ``batch_shape``."""
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = _as_size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(Bernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """``probs``."""
        return self.probs

    @property
    def mode(self):
        """1 where ``probs > 0.5``, 0 where ``probs < 0.5``, NaN at exactly 0.5 (no unique mode)."""
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return ops.where(self.probs == 0.5, math.nan, mode)

    @property
    def variance(self):
        """``probs * (1 - probs)``."""
        return self.probs * (1 - self.probs)

    @lazy_property
    def logits(self):
        """The log-odds ``log(p / (1 - p))``, from clamped ``probs`` when those were given."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """The probability of 1, ``sigmoid(logits)`` when logits were given."""
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        """The shape of the parameter that was given."""
        return self._param.size()

    def sample(self, sample_shape=Size()):
        """0/1 draws of shape ``sample_shape + batch_shape``, in the parameter's dtype."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return ops.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        """``value log p + (1 - value) log(1 - p)``, computed from the logits without overflow."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -_bce_with_logits(logits, value)

    def entropy(self):
        """``-p log p - (1 - p) log(1 - p)``."""
        return _bce_with_logits(self.logits, self.probs)

    def enumerate_support(self, expand=True):
        """``[0, 1]`` along a new leading dimension, then the batch dimensions (size 1 unless ``expand``)."""
        values = ops.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self):
        return (ops.logit(self.probs),)

    def _log_normalizer(self, x):
        return _softplus(x)
