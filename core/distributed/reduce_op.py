"""``ReduceOp``: how ``all_reduce``, ``reduce`` and ``reduce_scatter`` combine the tensors of the ranks."""
from __future__ import annotations

import enum

__all__ = ["ReduceOp"]


class ReduceOp(enum.Enum):
    """The reduction of a collective, as ``torch.distributed.ReduceOp``.

    * ``SUM``, ``PRODUCT``, ``MIN``, ``MAX``: element-wise over the ranks.
    * ``AVG``: the sum divided by the number of ranks. Integer tensors divide with truncation toward zero (as
      integer division does in C).

    Every rank gets a bitwise-identical result with the ``"local"`` backend (ranks combine in rank order).
    """

    SUM = "sum"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    AVG = "avg"

    def __repr__(self) -> str:
        return f"<ReduceOp.{self.name}>"

    @classmethod
    def coerce(cls, op, argname: str = "op") -> "ReduceOp":
        """A ``ReduceOp`` from a member or its name (``"sum"``, ``"mean"`` meaning ``AVG``, ...)."""
        if isinstance(op, ReduceOp):
            return op
        if isinstance(op, str):
            key = op.lower()
            aliases = {"mean": "avg", "prod": "product", "average": "avg"}
            key = aliases.get(key, key)
            for member in cls:
                if member.value == key:
                    return member
        allowed = ", ".join(f"ReduceOp.{m.name}" for m in cls)
        raise ValueError(f"{argname}={op!r} is not a reduction; use one of {allowed} (or their names as strings)")
