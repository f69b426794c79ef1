"""``kl_divergence(p, q)`` and ``register_kl``: closed-form KL divergences, dispatched on the pair of types.

A registered function applies to its pair of types and to their subclasses. When several registrations match,
the most specific one wins: the pair that is a subclass of every other match, compared on ``p``'s type first (and,
as a check, on ``q``'s type first; if the two orders disagree the choice is ambiguous and a ``RuntimeWarning``
says which pair to register to settle it). Lookups are memoized per pair of types until the next registration.

The closed forms live in ``_kl_same_family`` and ``_kl_cross_family``, which register themselves when the package
loads.
"""
from __future__ import annotations

import warnings

from .distribution import Distribution

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY = {}  # (type_p, type_q) -> function: the registrations, the source of truth
_KL_MEMOIZE = {}  # (type(p), type(q)) -> function or NotImplemented: resolved lookups


def register_kl(type_p, type_q):
    """Decorator registering a function computing ``KL(p || q)`` for ``p`` of ``type_p`` and ``q`` of ``type_q``
    (and their subclasses) with :func:`kl_divergence`::

        @register_kl(Normal, Normal)
        def kl_normal_normal(p, q):
            ...

    Lookup returns the most specific registered pair (ordered by subclass). When two registrations tie, e.g.
    ``(BaseP, DerivedQ)`` and ``(DerivedP, BaseQ)``, a ``RuntimeWarning`` is raised; register the most specific
    pair to break the tie: ``register_kl(DerivedP, DerivedQ)(kl_version1)``.

    Args:
        type_p (type): a subclass of :class:`Distribution`.
        type_q (type): a subclass of :class:`Distribution`.
    """
    for name, t in (("type_p", type_p), ("type_q", type_q)):
        if not (isinstance(t, type) and issubclass(t, Distribution)):
            raise TypeError(f"Expected {name} to be a Distribution subclass but got {t}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()  # a new registration can change which pair is the most specific
        return fun

    return decorator


def _more_specific(a, b) -> bool:
    """Whether the type tuple ``a`` comes strictly before ``b`` in the lexicographic subclass order."""
    for x, y in zip(a, b):
        if not issubclass(x, y):
            return False
        if x is not y:
            return True
    return False  # equal


def _most_specific(matches):
    best = matches[0]
    for m in matches[1:]:
        if _more_specific(m, best):
            best = m
    return best


def _dispatch_kl(type_p, type_q):
    """The registered function of the most specific pair matching ``(type_p, type_q)``, or NotImplemented."""
    matches = [(sp, sq) for sp, sq in _KL_REGISTRY if issubclass(type_p, sp) and issubclass(type_q, sq)]
    if not matches:
        return NotImplemented
    left_p, left_q = _most_specific(matches)
    right_q, right_p = _most_specific([(sq, sp) for sp, sq in matches])
    left_fun = _KL_REGISTRY[left_p, left_q]
    right_fun = _KL_REGISTRY[right_p, right_q]
    if left_fun is not right_fun:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left_p.__name__}, {right_q.__name__})", RuntimeWarning, stacklevel=3)
    return left_fun


def kl_divergence(p, q):
    """The Kullback-Leibler divergence ``KL(p || q) = integral of p(x) log(p(x) / q(x)) dx``.

    Args:
        p (Distribution): a distribution.
        q (Distribution): a distribution.

    Returns:
        Tensor: a batch of KL divergences, of shape ``batch_shape``.

    Raises:
        NotImplementedError: when no function is registered (see :func:`register_kl`) for the types of ``p`` and
            ``q``.
    """
    key = (type(p), type(q))
    fun = _KL_MEMOIZE.get(key)
    if fun is None:
        fun = _KL_MEMOIZE[key] = _dispatch_kl(*key)
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type "
                                  f"{q.__class__.__name__}")
    return fun(p, q)
