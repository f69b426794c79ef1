"""``MultivariateNormal``: the Gaussian over vectors, given by its mean and one of its covariance matrix,
precision matrix or lower Cholesky factor.

Everything is computed from the Cholesky factor ``L`` of the covariance (``scale_tril``): sampling is
``loc + L eps``, the log-density needs ``log det L`` (the log of L's diagonal) and the Mahalanobis distance
``|L^-1 (x - loc)|^2`` (one triangular solve), so no matrix is ever inverted.
"""
from __future__ import annotations

import math

from .. import linalg, ops
from ..tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import _as_size, _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    """Matrix-vector products over broadcast batch dimensions: ``bmat (..., n, n) @ bvec (..., n)``."""
    return ops.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """``|L^-1 x|^2`` for a batch of lower-triangular ``bL`` (``(..., n, n)``) and vectors ``bx`` (``(..., n)``)
    whose batch dimensions broadcast; returns the broadcast batch shape."""
    n = bx.shape[-1]
    batch = tuple(ops.broadcast_shapes(tuple(bL.shape[:-2]), tuple(bx.shape[:-1])))
    L = bL.expand(batch + (n, n))
    x = bx.expand(batch + (n,)).unsqueeze(-1)
    return linalg.solve_triangular(L, x, upper=False).squeeze(-1).pow(2).sum(-1)


def _precision_to_scale_tril(P):
    """The lower Cholesky factor of ``P^-1`` without inverting ``P``.

    Reversing the rows and columns of ``P`` and factoring it gives an upper-triangular factor ``U`` of ``P``
    (``P = U U^T``); then ``P^-1 = U^-T U^-1``, so ``L = U^-T`` is lower-triangular and one triangular solve
    against the identity gives it.
    """
    Lf = linalg.cholesky(ops.flip(P, (-2, -1)))
    L_inv = ops.flip(Lf, (-2, -1)).transpose(-2, -1)
    eye = ops.eye(P.shape[-1], dtype=P.dtype, device=P.device)
    return linalg.solve_triangular(L_inv, eye, upper=False)


class MultivariateNormal(Distribution):
    """A multivariate normal (Gaussian) distribution, parameterized by a mean vector and a covariance matrix.

    The covariance is given by exactly one of: a positive-definite ``covariance_matrix``, a positive-definite
    ``precision_matrix`` (its inverse), or a lower-triangular ``scale_tril`` with a positive diagonal (its
    Cholesky factor). ``scale_tril`` is the cheapest: the others are factored first.

    Example::

        >>> m = MultivariateNormal(ember.zeros(2), ember.eye(2))
        >>> m.sample().shape  # one draw per batch element, seeded by ember.manual_seed
        ember.Size([2])

    Args:
        loc (Tensor): mean of the distribution, shape ``(*, n)``.
        covariance_matrix (Tensor): positive-definite covariance matrix, shape ``(*, n, n)``.
        precision_matrix (Tensor): positive-definite precision matrix, shape ``(*, n, n)``.
        scale_tril (Tensor): lower-triangular factor of the covariance with a positive diagonal,
            shape ``(*, n, n)``.
        validate_args (bool, optional): whether to validate the parameters and ``log_prob`` values.

    The batch shape is the broadcast of ``loc``'s and the matrix's leading dimensions.
    """

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        for name, matrix in (("scale_tril", scale_tril), ("covariance_matrix", covariance_matrix),
                             ("precision_matrix", precision_matrix)):
            if matrix is not None:
                break
        if matrix.dim() < 2:
            prefix = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError(f"{prefix} must be at least two-dimensional, with optional leading batch dimensions")
        batch_shape = tuple(ops.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1])))
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        event_shape = self.loc.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        # the factor keeps the matrix's own batch shape: broadcasting it to loc's would repeat the work per row
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        """A new MultivariateNormal with its parameters expanded to ``batch_shape``."""
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = _as_size(batch_shape)
        loc_shape = tuple(batch_shape) + tuple(self.event_shape)
        cov_shape = loc_shape + tuple(self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) + tuple(self._event_shape)

    @lazy_property
    def scale_tril(self):
        """The lower Cholesky factor ``L`` of the covariance (``covariance_matrix = L L^T``)."""
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        """The covariance matrix ``L L^T``."""
        L = self._unbroadcasted_scale_tril
        return ops.matmul(L, L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        """The precision matrix, the inverse of the covariance (from its Cholesky factor)."""
        return ops.cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._matrix_shape())

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
        """The diagonal of the covariance: the squared row norms of ``L``."""
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(tuple(self._batch_shape) +
                                                                    tuple(self._event_shape))

    def rsample(self, sample_shape=Size()):
        """``loc + L eps`` with ``eps ~ N(0, I)``: differentiable in ``loc`` and the covariance parameter."""
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        """``-(n log(2 pi) + |L^-1 (value - loc)|^2) / 2 - log det L``."""
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        """``n (1 + log(2 pi)) / 2 + log det L``, one per batch entry."""
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        if len(self._batch_shape) == 0:
            return H
        return H.expand(tuple(self._batch_shape))
