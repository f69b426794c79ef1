"""``ember.layout`` and ``ember.strided``: a tensor's memory layout, as ``torch.layout``.

Every ember tensor is dense and strided (NumPy's model), so ``strided`` is the one layout; code that checks
``t.layout == em.strided`` or passes ``layout=em.strided`` to a factory runs unchanged.
"""
from __future__ import annotations

__all__ = ["layout", "strided"]


class layout:
    """A memory layout; ``repr`` is ``ember.strided``."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"ember.{self.name}"

    def __reduce__(self):
        return (_by_name, (self.name,))  # copies and pickles are the one instance, so `is` comparisons hold


def _by_name(name: str) -> layout:
    return globals()[name]


strided = layout("strided")
