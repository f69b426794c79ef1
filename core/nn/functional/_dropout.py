"""Dropout of ``ember.nn.functional``: elementwise, channel-wise (1d/2d/3d) and alpha (SELU) dropout."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ...ops._base import apply_inplace, wrap
from ...random import _gen
from ._args import _tensor_arg

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep_mask(xp, shape, p, dtype, generator):
    """A float mask in the array module ``xp``: ``1 / (1 - p)`` where kept (probability ``1 - p``), 0 where
    dropped. The uniform draw comes from the ember generator on the host and moves to ``xp``'s device."""
    if p == 1.0:
        return xp.zeros(shape, dtype=dtype)
    draw = _gen(generator).random(shape, dtype=np.float32 if dtype != np.float64 else np.float64)
    mask = xp.asarray(draw >= p).astype(dtype)
    mask *= 1.0 / (1.0 - p)
    return mask


def _apply_mask(input, mask, inplace):
    m = wrap(mask)
    if inplace:
        return apply_inplace(input, lambda t: t * m)
    return input * m


def dropout(input, p=0.5, training=True, inplace=False, generator=None):
    """During training, zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``; identity
    otherwise.

    Args:
        input (Tensor): input.
        p (float): probability of an element being zeroed. Default: 0.5.
        training (bool): apply dropout only if True. Default: True.
        inplace (bool): do the operation in place.
    """
    _tensor_arg(input, "input", "dropout", 1)
    _check_p(p)
    if not training or p == 0.0:
        return input
    return _apply_mask(input, _keep_mask(input._xp, input._data.shape, p, input._data.dtype, generator), inplace)


def _feature_dropout(input, p, training, inplace, batched_dims, name, generator):
    _tensor_arg(input, "input", name, 1)
    _check_p(p)
    if not training or p == 0.0:
        return input
    shape = input._data.shape
    n_keep = input.ndim - batched_dims  # leading (batch, channel) dims that get their own mask entry
    mask_shape = shape[:n_keep] + (1,) * (input.ndim - n_keep)
    return _apply_mask(input, _keep_mask(input._xp, mask_shape, p, input._data.dtype, generator), inplace)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero entire channels of an ``(N, C, L)`` or ``(C, L)`` input with probability ``p``."""
    _tensor_arg(input, "input", "dropout1d", 1)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _feature_dropout(input, p, training, inplace, 1, "dropout1d", None)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero entire channels of an ``(N, C, H, W)`` or ``(C, H, W)`` input with probability ``p``."""
    _tensor_arg(input, "input", "dropout2d", 1)
    if input.ndim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated and will result "
                      "in an error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
                      "inputs).", stacklevel=2)
    if input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior "
                      "will change in a future release to interpret the input as one without a batch dimension, i.e. "
                      "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using "
                      "dropout1d instead.", stacklevel=2)
        return _feature_dropout(input, p, training, inplace, 1, "dropout2d", None)
    return _feature_dropout(input, p, training, inplace, 2, "dropout2d", None)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero entire channels of an ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input with probability ``p``."""
    _tensor_arg(input, "input", "dropout3d", 1)
    if input.ndim not in (4, 5):
        warnings.warn(f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is deprecated and will result "
                      "in an error in a future release.", stacklevel=2)
    return _feature_dropout(input, p, training, inplace, 3, "dropout3d", None)


_ALPHA_PRIME = 1.7580993408473766  # scale * alpha of SELU: the value a dropped SELU unit saturates to (negated)


def _alpha_dropout(input, p, training, inplace, feature, name):
    _tensor_arg(input, "input", name, 1)
    _check_p(p)
    if not training or p == 0.0:
        return input
    x = input._data
    if p == 1.0:
        return input * 0.0
    shape = x.shape
    if feature:
        shape = shape[:2] + (1,) * (x.ndim - 2)
    keep = input._xp.asarray(_gen(None).random(shape) >= p).astype(x.dtype)
    # keep the SELU fixed point: mean 0 and variance 1 are preserved
    a = 1.0 / math.sqrt((_ALPHA_PRIME ** 2 * p + 1) * (1 - p))
    b = (keep - 1) * (_ALPHA_PRIME * a) + _ALPHA_PRIME * a * p
    mul, add = wrap((keep * a).astype(x.dtype)), wrap(b.astype(x.dtype))
    if inplace:
        return apply_inplace(input, lambda t: t * mul + add)
    return input * mul + add


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: dropped units are set to SELU's negative saturation and an affine map keeps
    zero mean and unit variance."""
    return _alpha_dropout(input, p, training, inplace, False, "alpha_dropout")


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Channel-wise :func:`alpha_dropout`."""
    return _alpha_dropout(input, p, training, inplace, True, "feature_alpha_dropout")
