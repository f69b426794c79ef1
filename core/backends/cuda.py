"""``ember.backends.cuda``: the attention-kernel switches of ``torch.backends.cuda``.

The ``*_sdp`` functions read and set which implementations ``F.scaled_dot_product_attention`` may use, the same
state as :func:`ember.nn.attention.sdpa_kernel`: ``flash`` is ember's fused kernel, ``math`` the composition of
ember ops; ``mem_efficient`` and ``cudnn`` are GPU kernels ember does not have.
"""
from __future__ import annotations

import contextlib
import warnings

from ..nn.attention import SDPBackend, _is_enabled, _set_enabled

__all__ = ["is_built", "sdp_kernel", "flash_sdp_enabled", "enable_flash_sdp", "math_sdp_enabled", "enable_math_sdp",
           "mem_efficient_sdp_enabled", "enable_mem_efficient_sdp", "cudnn_sdp_enabled", "enable_cudnn_sdp",
           "matmul"]


def is_built() -> bool:
    """True if ember can use CUDA (CuPy is installed)."""
    import importlib.util
    return importlib.util.find_spec("cupy") is not None


class _MatmulFlags:
    """``torch.backends.cuda.matmul``: precision flags that have no effect without a GPU."""

    def __init__(self) -> None:
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True


matmul = _MatmulFlags()


def flash_sdp_enabled() -> bool:
    """Whether the fused attention kernel may be used."""
    return _is_enabled(SDPBackend.FLASH_ATTENTION)


def enable_flash_sdp(enabled: bool) -> None:
    """Allow or forbid the fused attention kernel."""
    _set_enabled(SDPBackend.FLASH_ATTENTION, enabled)


def math_sdp_enabled() -> bool:
    """Whether the math (composed) attention implementation may be used."""
    return _is_enabled(SDPBackend.MATH)


def enable_math_sdp(enabled: bool) -> None:
    """Allow or forbid the math attention implementation."""
    _set_enabled(SDPBackend.MATH, enabled)


def mem_efficient_sdp_enabled() -> bool:
    """Whether the (GPU-only) memory-efficient kernel may be used."""
    return _is_enabled(SDPBackend.EFFICIENT_ATTENTION)


def enable_mem_efficient_sdp(enabled: bool) -> None:
    """Allow or forbid the (GPU-only) memory-efficient kernel."""
    _set_enabled(SDPBackend.EFFICIENT_ATTENTION, enabled)


def cudnn_sdp_enabled() -> bool:
    """Whether the (GPU-only) cuDNN kernel may be used."""
    return _is_enabled(SDPBackend.CUDNN_ATTENTION)


def enable_cudnn_sdp(enabled: bool) -> None:
    """Allow or forbid the (GPU-only) cuDNN kernel."""
    _set_enabled(SDPBackend.CUDNN_ATTENTION, enabled)


@contextlib.contextmanager
def sdp_kernel(enable_flash: bool = True, enable_math: bool = True, enable_mem_efficient: bool = True,
               enable_cudnn: bool = True):
    """Deprecated (as in PyTorch): within the block, allow only the enabled attention implementations. Use
    :func:`ember.nn.attention.sdpa_kernel`."""
    warnings.warn("`ember.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will be "
                  "removed. Please see `ember.nn.attention.sdpa_kernel()` for the new context manager, with updated "
                  "signature.", FutureWarning, stacklevel=3)
    from ..nn.attention import sdpa_kernel
    chosen = [b for b, on in ((SDPBackend.FLASH_ATTENTION, enable_flash), (SDPBackend.MATH, enable_math),
                              (SDPBackend.EFFICIENT_ATTENTION, enable_mem_efficient),
                              (SDPBackend.CUDNN_ATTENTION, enable_cudnn)) if on]
    with sdpa_kernel(chosen):
        yield
