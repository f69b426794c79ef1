"""The linear-algebra functions that top-level ops call: ``em.inverse``, ``em.det``, ``Tensor.cholesky``,
``em.norm(p='nuc')`` and the other ``torch.*`` forms of ``torch.linalg`` functions.

``ops`` sits below ``linalg`` (linalg's functions are built from ops), so no op imports linalg. Instead
``ember.core.linalg`` registers its functions in :data:`LINALG` when it loads, and the first lookup before that
loads it, so ``import ember`` does not pay linalg's import cost.
"""
from .._lazy import LazyTable

__all__ = ["LINALG"]

LINALG = LazyTable("..linalg", __package__)
