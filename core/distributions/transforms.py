"""Transforms: invertible maps with a computable log-Jacobian, for building distributions by change of variables
(:class:`~ember.distributions.TransformedDistribution`).

A transform maps ``x`` in its ``domain`` to ``y = t(x)`` in its ``codomain``; ``t.inv`` is the inverse map, and
``t.log_abs_det_jacobian(x, y)`` is ``log |dy/dx|`` (summed over the event dimensions of multivariate transforms).
Everything is composed from ember ops, so it is differentiable.

Available: ``Transform`` (the base), ``ComposeTransform``, ``ExpTransform``, ``AffineTransform``,
``SigmoidTransform``, ``TanhTransform``, ``SoftplusTransform`` and ``identity_transform``.
"""
from __future__ import annotations

import math
import numbers

from .. import ops
from ..type_info import finfo
from . import constraints
from .utils import _softplus, _sum_rightmost, lazy_property

__all__ = ["AffineTransform", "ComposeTransform", "ExpTransform", "SigmoidTransform", "SoftplusTransform",
           "TanhTransform", "Transform", "identity_transform"]


class Transform:
    """Base class of invertible transforms with a computable log-Jacobian.

    Subclasses implement ``_call`` (the forward map), ``_inverse`` and ``log_abs_det_jacobian``, and set
    ``domain``, ``codomain`` and ``bijective``.

    Args:
        cache_size (int): 1 caches the latest ``(x, y)`` pair, so that ``t.inv(t(x))`` returns ``x`` itself
            without computing the inverse (useful when the inverse is inexact, as for ``tanh`` near +-1); 0 turns
            caching off. Default: 0.
    """

    bijective = False

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._inv = None
        if cache_size == 1:
            self._cached_x_y = (None, None)
        super().__init__()

    @property
    def event_dim(self):
        """The number of rightmost dimensions the transform acts on jointly."""
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        """The inverse transform, with ``t.inv.inv is t``."""
        inv = self._inv
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = inv
        return inv

    @property
    def sign(self):
        """The sign of the derivative, for monotone univariate transforms."""
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        """This transform with the given ``cache_size``."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)


    def __call__(self, x):
        """``y = t(x)``."""
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = (x, y)
        return y

    def _inv_call(self, y):
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = (x, y)
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        """``log |dy/dx|`` at ``x`` (with ``y = t(x)``)."""
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__ + "()"

    def forward_shape(self, shape):
        """The output shape for an input of ``shape``."""
        return shape

    def inverse_shape(self, shape):
        """The input shape for an output of ``shape``."""
        return shape


class _InverseTransform(Transform):
    """The inverse of a transform, as returned by ``Transform.inv``."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The inverted transform's codomain."""
        return self._inv.codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The inverted transform's domain."""
        return self._inv.domain

    @property
    def bijective(self):
        """Whether the inverted transform is bijective."""
        return self._inv.bijective

    @property
    def sign(self):
        """The inverted transform's sign."""
        return self._inv.sign

    @property
    def inv(self):
        """The transform this one inverts."""
        return self._inv

    def with_cache(self, cache_size=1):
        """The inverse of the inverted transform with the given ``cache_size``."""
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv


    def __repr__(self):
        return f"{type(self).__name__}({self._inv!r})"

    def __call__(self, x):
        """The inverse map of the inverted transform."""
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        """Minus the inverted transform's log-Jacobian at ``(y, x)``."""
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        """The inverted transform's ``inverse_shape``."""
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        """The inverted transform's ``forward_shape``."""
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """Applies the transforms ``parts`` in order; its log-Jacobian is the sum of theirs.

    Args:
        parts (list of Transform): the transforms to compose.
        cache_size (int): as for :class:`Transform`; applied to every part.
    """

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts


    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The first part's domain, widened to the event dimensions the later parts need."""
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The last part's codomain, widened to the event dimensions the earlier parts produce."""
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @lazy_property
    def bijective(self):
        """Whether every part is bijective."""
        return all(p.bijective for p in self.parts)

    @lazy_property
    def sign(self):
        """The product of the parts' signs."""
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self):
        """The composition of the parts' inverses, in reverse order."""
        inv = self._inv
        if inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = inv
            inv._inv = self
        return inv

    def with_cache(self, cache_size=1):
        """The composition with every part cached."""
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        """The parts applied in order."""
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        """The sum of the parts' log-Jacobians along the way from ``x`` to ``y``."""
        if not self.parts:
            return ops.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        total = 0
        event_dim = self.domain.event_dim
        for part, xi, yi in zip(self.parts, xs[:-1], xs[1:]):
            # a part acting on fewer dimensions than the whole sums its terms over the rest of the event
            total = total + _sum_rightmost(part.log_abs_det_jacobian(xi, yi), event_dim - part.domain.event_dim)
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return total

    def forward_shape(self, shape):
        """The shape after every part."""
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        """The shape before every part."""
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        return type(self).__name__ + "(\n    " + ",\n    ".join(repr(p) for p in self.parts) + "\n)"


identity_transform = ComposeTransform([])


class ExpTransform(Transform):
    """``y = exp(x)``."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, ExpTransform)


    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        """``x``."""
        return x


def _clipped_sigmoid(x):
    # sigmoid rounds to exactly 0 or 1 at large |x|; kept inside (0, 1) the inverse and log-densities stay finite
    info = finfo(x.dtype)
    return ops.sigmoid(x).clamp(min=info.tiny, max=1.0 - info.eps)


class SigmoidTransform(Transform):
    """``y = 1 / (1 + exp(-x))``, kept strictly inside (0, 1)."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SigmoidTransform)


    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        info = finfo(y.dtype)
        y = y.clamp(min=info.tiny, max=1.0 - info.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        """``-softplus(-x) - softplus(x)``, i.e. ``log(sigmoid(x) (1 - sigmoid(x)))``."""
        return -_softplus(-x) - _softplus(x)


class SoftplusTransform(Transform):
    """``y = log(1 + exp(x))``."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SoftplusTransform)


    def _call(self, x):
        return _softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        """``-softplus(-x)``, i.e. ``log(sigmoid(x))``."""
        return -_softplus(-x)


class TanhTransform(Transform):
    """``y = tanh(x)``.

    Its inverse is unstable near +-1, so it is best used with ``cache_size=1`` when the values it inverts are its
    own outputs (a tanh-squashed policy's ``log_prob`` of its ``rsample``).
    """

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, TanhTransform)


    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return ops.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        """``log(1 - tanh(x)^2)``, written as ``2 (log 2 - x - softplus(-2x))`` to stay finite at large ``|x|``."""
        return 2.0 * (math.log(2.0) - x - _softplus(-2.0 * x))


def _is_number(value):
    return isinstance(value, numbers.Number)


class AffineTransform(Transform):
    """``y = loc + scale * x``.

    Args:
        loc (Tensor or float): the offset.
        scale (Tensor or float): the scale.
        event_dim (int): the size of the event (0 for scalars, 1 for vectors...); the log-Jacobian is summed over
            it. Default: 0.
        cache_size (int): as for :class:`Transform`.
    """

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        """The ``event_dim`` given."""
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The reals, over ``event_dim`` dimensions."""
        return constraints.real if self.event_dim == 0 else constraints.independent(constraints.real,
                                                                                    self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The reals, over ``event_dim`` dimensions."""
        return constraints.real if self.event_dim == 0 else constraints.independent(constraints.real,
                                                                                    self.event_dim)

    def with_cache(self, cache_size=1):
        """This transform with the given ``cache_size``."""
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        for mine, theirs in ((self.loc, other.loc), (self.scale, other.scale)):
            if _is_number(mine) and _is_number(theirs):
                if mine != theirs:
                    return False
            elif not bool((mine == theirs).all()):
                return False
        return True


    @property
    def sign(self):
        """The sign of ``scale``."""
        if _is_number(self.scale):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        """``log |scale|``, summed over the event and broadcast to ``x``'s batch shape."""
        shape = tuple(x.shape)
        if _is_number(self.scale):
            result = ops.full_like(x, math.log(abs(self.scale)))
        else:
            result = self.scale.abs().log()
        if self.event_dim:
            result = result.reshape(tuple(result.shape[:-self.event_dim]) + (-1,)).sum(-1)
            shape = shape[:-self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        """``shape`` broadcast with the parameters' shapes."""
        return ops.broadcast_shapes(tuple(shape), tuple(getattr(self.loc, "shape", ())),
                                    tuple(getattr(self.scale, "shape", ())))

    def inverse_shape(self, shape):
        """``shape`` broadcast with the parameters' shapes."""
        return self.forward_shape(shape)
