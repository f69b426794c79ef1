"""Normalization layers: ``BatchNorm1d/2d/3d``, ``InstanceNorm1d/2d/3d``, ``LayerNorm``, ``GroupNorm`` and
``LocalResponseNorm``."""
from __future__ import annotations

import numbers
import warnings

from ... import dtypes as _dt
from ...ops.creation import empty, ones, tensor, zeros
from .. import init
from ..functional._norm import batch_norm, group_norm, instance_norm, layer_norm, local_response_norm
from ..functional._rms_norm import rms_norm
from ..parameter import Parameter
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
           "LayerNorm", "RMSNorm", "GroupNorm", "LocalResponseNorm"]


class _NormBase(Module):
    """Parameters, running statistics and ``state_dict`` handling shared by batch and instance normalization."""

    _version = 2  # version 2 added num_batches_tracked; older state_dicts are completed when loaded

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None):
        super().__init__()
        name = type(self).__name__
        if not isinstance(num_features, numbers.Integral) or isinstance(num_features, bool) or num_features <= 0:
            raise ValueError(f"{name}: num_features must be a positive integer, but got num_features="
                             f"{num_features!r}")
        if momentum is not None and not isinstance(momentum, numbers.Real):
            raise TypeError(f"{name}: momentum must be a float or None, but got momentum={momentum!r}")
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(empty(num_features, device=device, dtype=dtype))
            self.bias = Parameter(empty(num_features, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=_dt.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Reset the running mean to 0, the running variance to 1 and the batch counter to 0."""
        if self.track_running_stats:
            init.zeros_(self.running_mean)
            init.ones_(self.running_var)
            init.zeros_(self.num_batches_tracked)

    def reset_parameters(self) -> None:
        """Reset the running statistics, the weight to 1 and the bias to 0."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"track_running_stats={self.track_running_stats}")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            # checkpoints written before num_batches_tracked existed: treat it as 0 rather than missing
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = self.num_batches_tracked if self.num_batches_tracked is not None else \
                    tensor(0, dtype=_dt.int64)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


class _BatchNorm(_NormBase):
    _dims = (4,)

    def _check_input_dim(self, input):
        if input.ndim not in self._dims:
            want = " or ".join(f"{d}D" for d in self._dims)
            raise ValueError(f"{self!r}: expected {want} input (got {input.ndim}D input)")
        if input.shape[1] != self.num_features:
            raise ValueError(f"{self!r}: expected input with {self.num_features} channels (dimension 1), got "
                             f"{input.shape[1]} (input of size {list(input.shape)})")

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            counter = self.num_batches_tracked
            counter._data += 1
            counter._bump_version()
            # momentum=None means a cumulative moving average: weight 1/n for the n-th batch
            factor = 1.0 / float(counter._data) if self.momentum is None else self.momentum
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return batch_norm(input, self.running_mean if keep else None, self.running_var if keep else None,
                          self.weight, self.bias, use_batch_stats, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    r"""Applies Batch Normalization over a 2-D input :math:`(N, C)` or a 3-D input :math:`(N, C, L)`.

    .. math:: y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} * \gamma + \beta

    The mean and (biased) standard deviation are computed per channel over the mini-batch; :math:`\gamma` and
    :math:`\beta` are learnable vectors of size ``C`` (initialised to 1 and 0). In training the layer keeps running
    estimates (unbiased variance) updated as ``running = (1 - momentum) * running + momentum * batch``, used in
    evaluation mode.

    Args:
        num_features (int): ``C``, the number of channels.
        eps (float): added to the variance for numerical stability. Default: 1e-5.
        momentum (float or None): the running-statistics update factor; ``None`` gives a cumulative moving average.
            Default: 0.1.
        affine (bool): learn :math:`\gamma` and :math:`\beta`. Default: ``True``.
        track_running_stats (bool): keep running statistics (buffers ``running_mean``, ``running_var``,
            ``num_batches_tracked``); if ``False`` batch statistics are used in evaluation too. Default: ``True``.
    """

    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    r"""Applies Batch Normalization over a 4-D input :math:`(N, C, H, W)`.

    Statistics are per channel over the batch and spatial dimensions; see :class:`BatchNorm1d` for the formula,
    the running statistics and the arguments.
    """

    _dims = (4,)


class BatchNorm3d(_BatchNorm):
    r"""Applies Batch Normalization over a 5-D input :math:`(N, C, D, H, W)`; see :class:`BatchNorm1d`."""

    _dims = (5,)


class _InstanceNorm(_NormBase):
    _nd = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)

    def forward(self, input):
        nd = self._nd
        if input.ndim not in (nd + 1, nd + 2):
            raise ValueError(f"{self!r}: expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input (got "
                             f"{input.ndim}D input)")
        channel_dim = input.ndim - nd - 1
        if input.shape[channel_dim] != self.num_features:
            if self.affine or self.track_running_stats:
                raise ValueError(f"{self!r}: expected input's size at dim={channel_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.shape[channel_dim]}.")
            warnings.warn(f"input's size at dim={channel_dim} does not match num_features. You can silence this "
                          f"warning by not passing in num_features, which is not used because affine=False")
        batched = input.ndim == nd + 2
        x = input if batched else input.unsqueeze(0)
        out = instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                            self.training or not self.track_running_stats,
                            self.momentum if self.momentum is not None else 0.0, self.eps)
        return out if batched else out.squeeze(0)


class InstanceNorm1d(_InstanceNorm):
    r"""Applies Instance Normalization over :math:`(N, C, L)` or :math:`(C, L)`: each channel of each sample is
    normalized over its length.

    Args:
        num_features (int): ``C``.
        eps (float): added to the variance. Default: 1e-5.
        momentum (float): running-statistics update factor. Default: 0.1.
        affine (bool): learn a per-channel scale and shift. Default: ``False``.
        track_running_stats (bool): keep running statistics and use them in evaluation mode. Default: ``False``.
    """

    _nd = 1


class InstanceNorm2d(_InstanceNorm):
    r"""Applies Instance Normalization over :math:`(N, C, H, W)` or :math:`(C, H, W)`: each channel of each sample
    is normalized over its spatial dimensions. Arguments as in :class:`InstanceNorm1d`."""

    _nd = 2


class InstanceNorm3d(_InstanceNorm):
    r"""Applies Instance Normalization over :math:`(N, C, D, H, W)` or :math:`(C, D, H, W)`."""

    _nd = 3


class LayerNorm(Module):
    r"""Applies Layer Normalization over the trailing ``normalized_shape`` dimensions of each sample.

    .. math:: y = \frac{x - \mathrm{E}[x]}{\sqrt{\mathrm{Var}[x] + \epsilon}} * \gamma + \beta

    Args:
        normalized_shape (int or tuple): the trailing shape to normalize over.
        eps (float): added to the variance. Default: 1e-5.
        elementwise_affine (bool): learn a per-element :math:`\gamma` (init 1) and :math:`\beta` (init 0) of shape
            ``normalized_shape``. Default: ``True``.
        bias (bool): learn :math:`\beta` too (only with ``elementwise_affine``). Default: ``True``.
    """

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (int(normalized_shape),)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Reset the weight to 1 and the bias to 0."""
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        k = len(self.normalized_shape)
        if input.ndim < k or tuple(input.shape[input.ndim - k:]) != self.normalized_shape:
            raise RuntimeError(f"{self!r}: expected input with shape [*, "
                               f"{', '.join(map(str, self.normalized_shape))}], but got input of size "
                               f"{list(input.shape)}")
        return layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class RMSNorm(Module):
    r"""Applies Root Mean Square Layer Normalization over the trailing ``normalized_shape`` dimensions.

    .. math:: y = \frac{x}{\sqrt{\mathrm{E}[x^2] + \epsilon}} * \gamma

    Args:
        normalized_shape (int or tuple): the trailing shape to normalize over.
        eps (float or None): added to the mean square; None (the default) is ``finfo(input.dtype).eps``.
        elementwise_affine (bool): learn a per-element :math:`\gamma` (init 1) of shape ``normalized_shape``.
            Default: ``True``.
    """

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (int(normalized_shape),)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Reset the weight to 1."""
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, input):
        return rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class GroupNorm(Module):
    r"""Applies Group Normalization: the channels of :math:`(N, C, *)` are split into ``num_groups`` groups and
    each group of each sample is normalized.

    Args:
        num_groups (int): number of groups; must divide ``num_channels``.
        num_channels (int): ``C``.
        eps (float): added to the variance. Default: 1e-5.
        affine (bool): learn a per-channel scale (init 1) and shift (init 0). Default: ``True``.
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None):
        super().__init__()
        if num_groups <= 0 or num_channels % num_groups != 0:
            raise ValueError(f"GroupNorm: num_channels must be divisible by num_groups, but got "
                             f"num_channels={num_channels} and num_groups={num_groups}")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = Parameter(empty(num_channels, device=device, dtype=dtype))
            self.bias = Parameter(empty(num_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Reset the weight to 1 and the bias to 0."""
        if self.affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def forward(self, input):
        if input.ndim < 2 or input.shape[1] != self.num_channels:
            raise RuntimeError(f"{self!r}: expected input of shape (N, {self.num_channels}, *), but got input of "
                               f"size {list(input.shape)}")
        return group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}"


class LocalResponseNorm(Module):
    r"""Applies local response normalization across channels of :math:`(N, C, *)`:

    .. math:: b_c = a_c \left(k + \frac{\alpha}{n} \sum_{c'=\max(0, c-n/2)}^{\min(N-1,c+n/2)} a_{c'}^2\right)^{-\beta}

    Args:
        size (int): the number of neighbouring channels ``n``.
        alpha (float): multiplicative factor. Default: 1e-4.
        beta (float): exponent. Default: 0.75.
        k (float): additive factor. Default: 1.
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
