"""Sampling from distributions given as tensors: ``multinomial``, ``normal``, ``bernoulli`` and ``poisson``.

Random numbers come from ``ember.random`` generators (so a seeded run repeats), drawn on the host and moved to the
probabilities' device; the arithmetic runs in the tensor's array module.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtypes as dt
from ..random import _gen
from ._base import Tensor, check_tensor, tensor_method, wrap

__all__ = ["multinomial", "normal", "bernoulli", "poisson"]


@tensor_method()
def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Sample ``num_samples`` category indices from each row of ``input`` (non-negative weights, not necessarily
    normalised); a 1-D input gives a 1-D result, a 2-D input one row of samples per row.

    Without replacement a category is drawn at most once per row: each row keeps the ``num_samples`` largest
    ``weight / E`` with ``E ~ Exponential(1)`` (the exponential race, which samples without replacement in
    proportion to the weights, as PyTorch's CPU kernel does). With replacement each sample inverts the row's
    cumulative distribution at a uniform draw.
    """
    check_tensor(input, "input", "multinomial")
    data = input._data
    if data.ndim not in (1, 2):
        raise RuntimeError(f"prob_dist must be 1 or 2 dim, got a {data.ndim}-D tensor")
    if data.dtype.kind != "f":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {input.dtype.scalar_name}")
    if not isinstance(num_samples, numbers.Integral) or isinstance(num_samples, bool) or num_samples <= 0:
        raise RuntimeError(f"cannot sample n_sample <= 0 samples, got num_samples={num_samples!r}")
    n_cat = data.shape[-1]
    if n_cat > 2 ** 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    if not replacement and num_samples > n_cat:
        raise RuntimeError(f"cannot sample n_sample > prob_dist.size(-1) samples without replacement (n_sample="
                           f"{num_samples}, prob_dist.size(-1)={n_cat})")
    xp = input._xp
    rows = data.reshape(-1, n_cat).astype("float64")
    if not bool(xp.isfinite(rows).all()) or bool((rows < 0).any()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    totals = rows.sum(axis=1)
    if bool((totals <= 0).any()):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    g = _gen(generator)
    if replacement:
        cdf = rows.cumsum(axis=1) / totals[:, None]
        u = xp.asarray(g.random((rows.shape[0], num_samples)))
        idx = (u[:, :, None] >= cdf[:, None, :]).sum(axis=2)  # first category whose cdf exceeds u
        idx = xp.minimum(idx, n_cat - 1)
    else:  # zero-weight categories come last (only when more samples than positive weights are asked for)
        keys = rows / xp.asarray(g.exponential(1.0, rows.shape))
        idx = xp.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
    return wrap(idx.astype("int64").reshape(data.shape[:-1] + (num_samples,)))


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    """Samples of normal distributions: ``mean`` and ``std`` are tensors (broadcast together, one draw per
    element) or numbers (then ``size`` gives the shape). The samples carry no gradient (PyTorch's gradient for
    ``mean`` and ``std`` is zero)."""
    tensors = [t for t in (mean, std) if isinstance(t, Tensor)]
    if isinstance(std, Tensor):
        if bool((std._data < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    if not tensors:
        if size is None:
            raise TypeError(f"normal() received an invalid combination of arguments - got ({type(mean).__name__}, "
                            f"{type(std).__name__}): pass a tensor as 'mean' or 'std', or a 'size'")
        from .creation import empty
        out = empty(size, dtype=dtype, device=device).normal_(mean, std, generator=generator)
        return out.requires_grad_(requires_grad) if requires_grad else out
    like = dt.result_type(*tensors)
    if not like.is_floating_point:
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{like.scalar_name}'")
    xp = tensors[0]._xp
    m, sd = (t._data if isinstance(t, Tensor) else t for t in (mean, std))
    shape = np.broadcast_shapes(*(t.shape for t in tensors))
    z = xp.asarray(_gen(generator).standard_normal(shape)).astype(like.np)
    return wrap((m + sd * z).astype(like.np, copy=False))


@tensor_method()
def bernoulli(input, p=None, *, generator=None):
    """0/1 samples shaped and typed like ``input``: each 1 with the probability in ``input``, or with ``p`` when
    given."""
    check_tensor(input, "input", "bernoulli")
    data = input._data
    if data.dtype.kind != "f":
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for '{input.dtype.scalar_name}'")
    if p is None:
        if bool(((data < 0) | (data > 1)).any()):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
        p = data
    u = input._xp.asarray(_gen(generator).random(data.shape))
    return wrap((u < p).astype(data.dtype))


def poisson(input, generator=None):
    """Samples of Poisson distributions whose rates are ``input``, in its dtype."""
    check_tensor(input, "input", "poisson")
    data = input._data
    if bool((data < 0).any()):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return wrap(input._xp.asarray(_gen(generator).poisson(data)).astype(data.dtype))
