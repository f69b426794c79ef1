"""``ExponentialFamily``: distributions whose density is ``exp(<t(x), theta> - F(theta) + k(x))``.

Knowing the natural parameters ``theta`` and the log normalizer ``F`` is enough for the entropy and for the KL
divergence between two members of the same family: both are Bregman divergences of ``F``, whose gradient autograd
supplies (Nielsen & Nock, "Entropies and cross-entropies of exponential families"). Subclasses with a closed form
override them; these generic forms are the fallback.
"""
from __future__ import annotations

from ..autograd import grad as _autograd_grad
from ..autograd.grad_mode import enable_grad
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base class of exponential-family distributions, ``p(x; theta) = exp(<t(x), theta> - F(theta) + k(x))``.

    Subclasses provide ``_natural_params`` (theta), ``_log_normalizer(*theta)`` (F) and ``_mean_carrier_measure``
    (the expectation of k), from which :meth:`entropy` follows.
    """

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """The entropy as ``F(theta) - <theta, grad F(theta)> - E[k(x)]``, batched over ``batch_shape``."""
        with enable_grad():  # the gradient of F is part of the value, so it is needed even under no_grad
            result = -self._mean_carrier_measure
            nparams = [p.detach().requires_grad_() for p in self._natural_params]
            lg_normal = self._log_normalizer(*nparams)
            gradients = _autograd_grad(lg_normal.sum(), nparams, create_graph=True)
            result = result + lg_normal
            for p, g in zip(nparams, gradients):
                result = result - (p * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
