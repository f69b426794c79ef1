"""``ember.nn.init``: in-place parameter initialisers with PyTorch's names, formulas and defaults.

Every function fills its tensor in place without recording autograd history and returns it. Random values come
from an ember generator (the default one, or ``generator=``), so ``ember.manual_seed`` makes initialisation
repeatable.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..random import _gen
from ..tensor import Tensor

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_",
           "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_",
           "sparse_", "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
           "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"]


def _check(tensor, fn):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{fn}(): argument 'tensor' must be Tensor, not {type(tensor).__name__}")


def _write(tensor: Tensor, values) -> Tensor:
    """Overwrite ``tensor``'s values (cast to its dtype) without autograd, bumping its version."""
    data = tensor._data
    if type(data) is np.ndarray:
        data[...] = values
    else:
        data[...] = tensor._xp.asarray(values)
    tensor._bump_version()
    return tensor


def calculate_gain(nonlinearity, param=None) -> float:
    """The recommended gain for a nonlinearity (the factor by which it scales the standard deviation).

    ===================  ==================================
    nonlinearity         gain
    ===================  ==================================
    Linear / Identity    1
    Conv{1,2,3}D         1
    Sigmoid              1
    Tanh                 5/3
    ReLU                 sqrt(2)
    Leaky ReLU           sqrt(2 / (1 + negative_slope^2))
    SELU                 3/4
    ===================  ==================================

    Args:
        nonlinearity (str): the function's name (``'relu'``, ``'leaky_relu'``, ...).
        param: the negative slope for ``'leaky_relu'`` (default 0.01).
    """
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill ``tensor`` with values drawn from the uniform distribution U(a, b)."""
    _check(tensor, "uniform_")
    return _write(tensor, _gen(generator).uniform(a, b, tensor._data.shape))


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill ``tensor`` with values drawn from the normal distribution N(mean, std^2)."""
    _check(tensor, "normal_")
    return _write(tensor, _gen(generator).normal(mean, std, tensor._data.shape))


def _norm_cdf(x):
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None) -> Tensor:
    """Fill ``tensor`` with values from N(mean, std^2) truncated to ``[a, b]`` (out-of-range draws are redrawn)."""
    _check(tensor, "trunc_normal_")
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may "
                      "be incorrect.", stacklevel=2)
    gen = _gen(generator)
    n = tensor._data.size
    accept = _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std)
    if accept < 1e-6:  # a window far in a tail: rejection would never finish; fall back to uniform in [a, b]
        return _write(tensor, gen.uniform(a, b, tensor._data.shape))
    out = np.empty(n, dtype=np.float64)
    filled = 0
    while filled < n:
        need = n - filled
        # oversample by the acceptance rate so one or two rounds suffice
        draw = gen.normal(mean, std, int(need / accept * 1.1) + 16)
        draw = draw[(draw >= a) & (draw <= b)][:need]
        out[filled:filled + draw.size] = draw
        filled += draw.size
    return _write(tensor, out.reshape(tensor._data.shape))


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill ``tensor`` with the value ``val``."""
    _check(tensor, "constant_")
    return _write(tensor, val)


def ones_(tensor: Tensor) -> Tensor:
    """Fill ``tensor`` with ones."""
    return constant_(tensor, 1)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill ``tensor`` with zeros."""
    return constant_(tensor, 0)


def eye_(tensor: Tensor) -> Tensor:
    """Fill the 2-D ``tensor`` with the identity matrix (ones on the diagonal, zeros elsewhere)."""
    _check(tensor, "eye_")
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _write(tensor, np.eye(*tensor._data.shape))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill the 3-, 4- or 5-D ``tensor`` with the Dirac delta: a convolution with it preserves the input's channels
    (within each of ``groups`` groups)."""
    _check(tensor, "dirac_")
    dims = tensor.ndim
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor._data.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    min_dim = min(out_per_group, sizes[1])
    w = np.zeros(sizes)
    centre = tuple(s // 2 for s in sizes[2:])
    for g in range(groups):
        for d in range(min_dim):
            w[(g * out_per_group + d, d) + centre] = 1
    return _write(tensor, w)


def _calculate_fan_in_and_fan_out(tensor: Tensor):
    """``(fan_in, fan_out)`` of a weight: ``size(1) * receptive field`` and ``size(0) * receptive field``."""
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    shape = tensor._data.shape
    receptive_field_size = 1
    for s in shape[2:]:
        receptive_field_size *= s
    return shape[1] * receptive_field_size, shape[0] * receptive_field_size


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot uniform: U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot normal: N(0, std^2) with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator=None) -> Tensor:
    """He uniform: U(-bound, bound) with ``bound = gain * sqrt(3 / fan_mode)``.

    Args:
        tensor: the tensor to fill.
        a: the negative slope of the rectifier that follows (for ``'leaky_relu'``).
        mode: ``'fan_in'`` (preserves the forward variance) or ``'fan_out'`` (the backward variance).
        nonlinearity: the function that follows, ``'relu'`` or ``'leaky_relu'`` (see :func:`calculate_gain`).
        generator: the ember generator to draw from.
    """
    _check(tensor, "kaiming_uniform_")
    if 0 in tensor._data.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    bound = math.sqrt(3.0) * gain / math.sqrt(fan)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator=None) -> Tensor:
    """He normal: N(0, std^2) with ``std = gain / sqrt(fan_mode)`` (arguments as in :func:`kaiming_uniform_`)."""
    _check(tensor, "kaiming_normal_")
    if 0 in tensor._data.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    return normal_(tensor, 0.0, gain / math.sqrt(fan), generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator=None) -> Tensor:
    """Fill ``tensor`` (2-D or more, flattened past dim 0) with a (semi-)orthogonal matrix times ``gain``."""
    _check(tensor, "orthogonal_")
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor._data.shape[0]
    cols = tensor.numel() // rows
    flat = _gen(generator).normal(0.0, 1.0, (rows, cols))
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    # make the decomposition unique (and the distribution uniform) by fixing the signs of R's diagonal
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _write(tensor, (q * gain).reshape(tensor._data.shape))


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """Fill the 2-D ``tensor`` from N(0, std^2), then zero a ``sparsity`` fraction of each column."""
    _check(tensor, "sparse_")
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor._data.shape
    num_zeros = int(math.ceil(sparsity * rows))
    gen = _gen(generator)
    w = gen.normal(0.0, std, (rows, cols))
    for c in range(cols):
        w[gen.permutation(rows)[:num_zeros], c] = 0
    return _write(tensor, w)


def _deprecated(new):
    def old(*args, **kwargs):
        warnings.warn(f"nn.init.{new.__name__[:-1]} is now deprecated in favor of nn.init.{new.__name__}.",
                      FutureWarning, stacklevel=2)
        return new(*args, **kwargs)
    old.__name__ = new.__name__[:-1]
    old.__doc__ = f"Deprecated alias of :func:`{new.__name__}`."
    return old


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
