"""``Distribution``: the base class of probability distributions, with PyTorch's shape semantics and validation.

Shapes: a distribution holds a batch of independent distributions (``batch_shape``), each over events of
``event_shape``. ``sample(sample_shape)`` returns ``sample_shape + batch_shape + event_shape``; ``log_prob(value)``
scores the rightmost ``batch_shape + event_shape`` of ``value`` (broadcasting) and returns one number per event.

Validation (on by default, as in PyTorch, and off under ``python -O``): parameters are checked against
``arg_constraints`` when the distribution is built, and values against ``support`` in ``log_prob``/``cdf``; a
failure raises ``ValueError`` naming the parameter, the constraint and the offending values.
"""
from __future__ import annotations

import warnings

from ..autograd.grad_mode import no_grad
from ..tensor import Size, Tensor
from . import constraints
from .utils import _as_size, lazy_property

__all__ = ["Distribution"]


class Distribution:
    """Abstract base class for probability distributions.

    Args:
        batch_shape (ember.Size): the shape over which parameters are batched.
        event_shape (ember.Size): the shape of a single sample (without batching).
        validate_args (bool, optional): whether to validate parameters and ``log_prob`` values. Default: the
            class default, which :meth:`set_default_validate_args` sets (True unless Python runs with ``-O``).
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument validation on or off for every distribution built afterwards without ``validate_args``.

        Validation mirrors Python's ``assert``: on by default, off under ``python -O``. It costs a check per
        construction and per ``log_prob``, so a working model may turn it off.

        Args:
            value (bool): whether to validate.
        """
        if value not in [True, False]:
            raise ValueError(f"set_default_validate_args expects True or False, got {value!r}")
        Distribution._validate_args = value

    def __init__(self, batch_shape=Size(), event_shape=Size(), validate_args=None) -> None:
        self._batch_shape = _as_size(batch_shape)
        self._event_shape = _as_size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set "
                              "`arg_constraints = {}` or initialize the distribution with `validate_args=False` "
                              "to turn off validation.", stacklevel=2)
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue  # its valid region depends on other parameters: nothing to check alone
                if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                    continue  # derived from the parameter that was given (logits from probs): checking it
                    # would compute it eagerly and check a value the user never passed
                value = getattr(self, param)
                if not bool(constraint.check(value).all()):
                    raise ValueError(f"Expected parameter {param} ({type(value).__name__} of shape "
                                     f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                                     f"{constraint!r}, but found invalid values:\n{value}")
        super().__init__()

    def expand(self, batch_shape, _instance=None):
        """A new distribution with the batch dimensions expanded to ``batch_shape`` (the parameters are expanded
        views, so no memory is copied and no argument is checked again).

        Args:
            batch_shape (ember.Size): the desired expanded size.
            _instance: the new instance, for subclasses that override ``expand``.
        """
        raise NotImplementedError

    @property
    def batch_shape(self) -> Size:
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        """The shape of a single sample (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self):
        """A dict from parameter names to the :class:`~constraints.Constraint` each must satisfy."""
        raise NotImplementedError

    @property
    def support(self):
        """The :class:`~constraints.Constraint` of the values this distribution takes."""
        raise NotImplementedError

    @property
    def mean(self) -> Tensor:
        """The mean of the distribution."""
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        """The mode of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        """The variance of the distribution."""
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        """The standard deviation of the distribution."""
        return self.variance.sqrt()

    def sample(self, sample_shape=Size()) -> Tensor:
        """A sample of shape ``sample_shape + batch_shape + event_shape``, without gradient."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=Size()) -> Tensor:
        """A reparameterized sample of shape ``sample_shape + batch_shape + event_shape``: differentiable with
        respect to the parameters."""
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        """``n`` samples (deprecated: use ``sample((n,))``)."""
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.", FutureWarning, stacklevel=2)
        return self.sample(Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        """The log of the probability density (or mass) function at ``value``."""
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        """The inverse cumulative distribution function at ``value``."""
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """All values of a discrete distribution, along dimension 0: shape ``(cardinality,) + batch_shape +
        event_shape``, or with the batch dimensions left as singletons when ``expand=False``."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy, one per batch entry (shape ``batch_shape``)."""
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        """``exp(entropy)``, one per batch entry."""
        return self.entropy().exp()

    def _extended_shape(self, sample_shape=Size()) -> Size:
        """``sample_shape + batch_shape + event_shape``: the shape of a sample."""
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value) -> None:
        """Check ``value`` before scoring it: a tensor, whose rightmost dimensions match ``event_shape`` and
        broadcast with ``batch_shape``, inside the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = value.dim() - len(self._event_shape)
        if tuple(value.shape[event_dim_start:]) != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: {value.shape} vs "
                             f"{self._event_shape}.")
        actual_shape = value.shape
        expected_shape = self._extended_shape()
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {actual_shape} vs "
                                 f"{expected_shape}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample validation. Please "
                          "initialize the distribution with `validate_args=False` to turn off validation.",
                          stacklevel=2)
            return
        if not bool(support.check(value).all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                             f"within the support ({support!r}) of the distribution {self!r}, but found invalid "
                             f"values:\n{value}")

    def _get_checked_instance(self, cls, _instance=None):
        """The instance ``expand`` fills: ``_instance`` or a bare object of this type."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                                      "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        # a one-element parameter prints its value, a larger one its shape
        parts = []
        for name in self.arg_constraints:
            if name in self.__dict__:  # only the parameters given or already computed, never a lazy one
                v = self.__dict__[name]
                parts.append(f"{name}: {v if v.numel() == 1 else v.size()}")
        return f"{type(self).__name__}({', '.join(parts)})"
