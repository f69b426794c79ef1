"""``em.softmax`` / ``em.log_softmax`` and their Tensor methods, forwarding to ``nn.functional`` (imported on first
call so ``import ember`` does not load the nn package)."""
from __future__ import annotations

from ._base import tensor_method

__all__ = ["softmax", "log_softmax"]


@tensor_method()
def softmax(input, dim, dtype=None):
    """Softmax over ``dim`` (see ``nn.functional.softmax``)."""
    from ..nn.functional._activation import softmax as _softmax
    return _softmax(input, dim, dtype=dtype)


@tensor_method()
def log_softmax(input, dim, dtype=None):
    """Log-softmax over ``dim`` (see ``nn.functional.log_softmax``)."""
    from ..nn.functional._activation import log_softmax as _log_softmax
    return _log_softmax(input, dim, dtype=dtype)
