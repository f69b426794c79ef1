"""Constraints: the regions where a distribution's parameters and samples are valid, as ``torch.distributions``
names them.

A constraint's :meth:`~Constraint.check` maps a tensor to a boolean tensor, one entry per event (the rightmost
``event_dim`` dimensions count as one event). Distributions use them to validate their parameters
(``arg_constraints``) and the values scored by ``log_prob`` (``support``).

Available: ``boolean``, ``dependent``, ``dependent_property``, ``greater_than(lower_bound)``,
``greater_than_eq(lower_bound)``, ``half_open_interval(lower_bound, upper_bound)``,
``independent(constraint, reinterpreted_batch_ndims)``, ``integer_interval(lower_bound, upper_bound)``,
``interval(lower_bound, upper_bound)``, ``less_than(upper_bound)``, ``lower_cholesky``, ``lower_triangular``,
``nonnegative``, ``nonnegative_integer``, ``one_hot``, ``positive``, ``positive_definite``, ``positive_integer``,
``positive_semidefinite``, ``real``, ``real_vector``, ``simplex``, ``square``, ``symmetric``, ``unit_interval``.

The reprs are PyTorch's (the class name without its leading underscore), since they appear in validation errors.
"""
from __future__ import annotations

from .. import linalg, ops
from ..dtypes import bool_

__all__ = ["Constraint", "boolean", "dependent", "dependent_property", "greater_than", "greater_than_eq",
           "half_open_interval", "independent", "integer_interval", "interval", "is_dependent", "less_than",
           "lower_cholesky", "lower_triangular", "nonnegative", "nonnegative_integer", "one_hot", "positive",
           "positive_definite", "positive_integer", "positive_semidefinite", "real", "real_vector", "simplex",
           "square", "symmetric", "unit_interval"]


class Constraint:
    """Base class of constraints: a region over which a variable is valid.

    Attributes:
        is_discrete (bool): whether the constrained space is discrete. Default: False.
        event_dim (int): how many rightmost dimensions form one event; :meth:`check` reduces them away.
    """

    is_discrete = False
    event_dim = 0

    def check(self, value):
        """A boolean tensor of ``sample_shape + batch_shape``: whether each event of ``value`` satisfies the
        constraint."""
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__[1:] + "()"


def _bounds_repr(constraint, **bounds) -> str:
    # a 0-d tensor bound prints as its number (``LessThan(upper_bound=0.0)``), as PyTorch's f-strings print it
    return f"{type(constraint).__name__[1:]}({', '.join(f'{k}={v}' for k, v in bounds.items())})"


class _Dependent(Constraint):
    """Placeholder for a variable whose valid region depends on other variables, so it cannot be checked alone.

    Args:
        is_discrete (bool, optional): the static ``is_discrete``, if known; reading it otherwise raises.
        event_dim (int, optional): the static ``event_dim``, if known; reading it otherwise raises.
    """

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim
        super().__init__()

    @property
    def is_discrete(self):
        """Whether the space is discrete, when it was given; raises ``NotImplementedError`` otherwise."""
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        """The event dimension, when it was given; raises ``NotImplementedError`` otherwise."""
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        """A dependent constraint with these static attributes: ``constraints.dependent(event_dim=1)``."""
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, x):
        """Always raises: a dependent constraint cannot be checked on its own."""
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint) -> bool:
    """Whether ``constraint`` is a dependent constraint (one that validation must skip)."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A ``property`` on instances and a dependent constraint on the class.

    ``Uniform.support`` is the interval between the instance's ``low`` and ``high``, while the class attribute is a
    dependent constraint that can still report ``is_discrete`` and ``event_dim``::

        @constraints.dependent_property(is_discrete=False, event_dim=0)
        def support(self):
            return constraints.interval(self.low, self.high)
    """

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn):
        """Decorate ``fn`` keeping the static attributes given to ``dependent_property(...)``."""
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _IndependentConstraint(Constraint):
    """Treat ``reinterpreted_batch_ndims`` more rightmost dimensions as part of the event: an event is valid only
    if all its entries are."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        if not isinstance(base_constraint, Constraint):
            raise TypeError(f"base_constraint must be a Constraint, got {type(base_constraint).__name__}")
        if not isinstance(reinterpreted_batch_ndims, int) or reinterpreted_batch_ndims < 0:
            raise ValueError(f"reinterpreted_batch_ndims must be an int >= 0, got {reinterpreted_batch_ndims!r}")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__()

    @property
    def is_discrete(self):
        """The base constraint's ``is_discrete``."""
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        """The base constraint's ``event_dim`` plus the reinterpreted dimensions."""
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        """The base check, reduced with ``all`` over the reinterpreted dimensions."""
        result = self.base_constraint.check(value)
        if result.dim() < self.reinterpreted_batch_ndims:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        result = result.reshape(tuple(result.shape[:result.dim() - self.reinterpreted_batch_ndims]) + (-1,))
        return result.all(-1)

    def __repr__(self):
        return f"{type(self).__name__[1:]}({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class _Boolean(Constraint):
    """The two values ``{0, 1}``."""

    is_discrete = True

    def check(self, value):
        """Whether each entry is 0 or 1."""
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    """One-hot vectors along the last dimension."""

    is_discrete = True
    event_dim = 1

    def check(self, value):
        """Whether each last-dimension vector has 0/1 entries summing to 1."""
        is_boolean = (value == 0) | (value == 1)
        return is_boolean.all(-1) & (value.sum(-1) == 1)


class _IntegerInterval(Constraint):
    """Integers in ``[lower_bound, upper_bound]``."""

    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        """Whether each entry is a whole number within the bounds."""
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return _bounds_repr(self, lower_bound=self.lower_bound, upper_bound=self.upper_bound)


class _IntegerGreaterThan(Constraint):
    """Integers in ``[lower_bound, inf)``."""

    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        """Whether each entry is a whole number at least ``lower_bound``."""
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self):
        return _bounds_repr(self, lower_bound=self.lower_bound)


class _Real(Constraint):
    """The extended real line ``[-inf, inf]``: anything but NaN."""

    def check(self, value):
        """False exactly at NaNs."""
        return value == value


class _GreaterThan(Constraint):
    """The half line ``(lower_bound, inf]``."""

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        """Whether each entry exceeds ``lower_bound``."""
        return self.lower_bound < value

    def __repr__(self):
        return _bounds_repr(self, lower_bound=self.lower_bound)


class _GreaterThanEq(Constraint):
    """The half line ``[lower_bound, inf)``."""

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        """Whether each entry is at least ``lower_bound``."""
        return self.lower_bound <= value

    def __repr__(self):
        return _bounds_repr(self, lower_bound=self.lower_bound)


class _LessThan(Constraint):
    """The half line ``[-inf, upper_bound)``."""

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        """Whether each entry is below ``upper_bound``."""
        return value < self.upper_bound

    def __repr__(self):
        return _bounds_repr(self, upper_bound=self.upper_bound)


class _Interval(Constraint):
    """The closed interval ``[lower_bound, upper_bound]``."""

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        """Whether each entry lies within the bounds (inclusive)."""
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return _bounds_repr(self, lower_bound=self.lower_bound, upper_bound=self.upper_bound)


class _HalfOpenInterval(Constraint):
    """The interval ``[lower_bound, upper_bound)``."""

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        """Whether each entry lies in ``[lower_bound, upper_bound)``."""
        return (self.lower_bound <= value) & (value < self.upper_bound)

    def __repr__(self):
        return _bounds_repr(self, lower_bound=self.lower_bound, upper_bound=self.upper_bound)


class _Simplex(Constraint):
    """The probability simplex along the last dimension: entries ``>= 0`` summing to 1 (within 1e-6)."""

    event_dim = 1

    def check(self, value):
        """Whether each last-dimension vector is non-negative and sums to 1."""
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


def _tril_check(value):
    # compares entrywise and reduces the matrix dimensions, so a batch of matrices gives a batch of booleans
    return (value.tril() == value).reshape(tuple(value.shape[:-2]) + (-1,)).all(-1)


class _LowerTriangular(Constraint):
    """Lower-triangular square matrices."""

    event_dim = 2

    def check(self, value):
        """Whether each matrix equals its lower triangle."""
        return _tril_check(value)


class _LowerCholesky(Constraint):
    """Lower-triangular square matrices with a positive diagonal (Cholesky factors)."""

    event_dim = 2

    def check(self, value):
        """Whether each matrix is lower-triangular with a positive diagonal."""
        positive_diagonal = (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)
        return _tril_check(value) & positive_diagonal


class _Square(Constraint):
    """Square matrices."""

    event_dim = 2

    def check(self, value):
        """True for every matrix of a square batch, False for every one otherwise."""
        return ops.full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1], dtype=bool_,
                        device=value.device)


class _Symmetric(_Square):
    """Symmetric square matrices (within ``atol=1e-6``)."""

    def check(self, value):
        """Whether each matrix is square and equals its transpose."""
        square = super().check(value)
        if not bool(square.all()):
            return square
        return ops.isclose(value, value.mT, atol=1e-6).all(-2).all(-1)


class _PositiveSemidefinite(_Symmetric):
    """Symmetric positive-semidefinite matrices."""

    def check(self, value):
        """Whether each matrix is symmetric with non-negative eigenvalues."""
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        return (linalg.eigvalsh(value) >= 0).all(-1)


class _PositiveDefinite(_Symmetric):
    """Symmetric positive-definite matrices."""

    def check(self, value):
        """Whether each matrix is symmetric and has a Cholesky factor."""
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        return linalg.cholesky_ex(value).info == 0


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
