"""``CompositionalMetric``: the metric built by arithmetic between metrics (``m1 + m2``, ``2 * m``, ``-m``, ...)."""
from __future__ import annotations

from ..core.tensor import Tensor

from .metric import Metric

__all__ = ["CompositionalMetric"]


class CompositionalMetric(Metric):
    """Apply ``operator`` to the values of two metrics (or a metric and a constant).

    Updating, resetting and syncing are delegated to the operand metrics, so a composition shares their states:
    ``(acc + prec).compute()`` computes both (each synced across processes) and adds the results.

    Args:
        operator (callable): the function of one or two values to apply.
        metric_a (Metric or Tensor or number): the first operand.
        metric_b (Metric or Tensor or number or None): the second operand; ``None`` for a unary operator.
    """

    # the operands warn for themselves, and may be updated directly (so nothing is cached here either)
    _warn_on_compute_before_update = False

    def __init__(self, operator, metric_a, metric_b):
        super().__init__(compute_with_cache=False)
        self.op = operator
        for name, operand in (("metric_a", metric_a), ("metric_b", metric_b)):
            if isinstance(operand, Tensor):
                self.register_buffer(name, operand, persistent=False)
            else:
                setattr(self, name, operand)

    def _sync_dist(self, dist_sync_fn=None, process_group=None) -> None:
        # nothing to sync here: the operand metrics sync their own states in their compute
        pass

    def update(self, *args, **kwargs) -> None:
        """Update both operand metrics (each receives the keyword arguments its ``update`` accepts)."""
        for operand in (self.metric_a, self.metric_b):
            if isinstance(operand, Metric):
                operand.update(*args, **operand._filter_kwargs(**kwargs))

    def compute(self):
        """Apply the operator to the operands' computed values."""
        val_a = self.metric_a.compute() if isinstance(self.metric_a, Metric) else self.metric_a
        val_b = self.metric_b.compute() if isinstance(self.metric_b, Metric) else self.metric_b
        if val_b is None:
            return self.op(val_a)
        return self.op(val_a, val_b)

    def forward(self, *args, **kwargs):
        """Run ``forward`` on the operand metrics and apply the operator to their batch values."""
        val_a = self.metric_a(*args, **self.metric_a._filter_kwargs(**kwargs)) if isinstance(self.metric_a, Metric) \
            else self.metric_a
        val_b = self.metric_b(*args, **self.metric_b._filter_kwargs(**kwargs)) if isinstance(self.metric_b, Metric) \
            else self.metric_b
        if val_a is None:
            value = None
        elif val_b is None:
            value = None if isinstance(self.metric_b, Metric) else self.op(val_a)
        else:
            value = self.op(val_a, val_b)
        self.__dict__["_forward_cache"] = value
        return value

    def reset(self) -> None:
        """Reset both operand metrics."""
        super().reset()
        for operand in (self.metric_a, self.metric_b):
            if isinstance(operand, Metric):
                operand.reset()

    def persistent(self, mode: bool = False) -> None:
        """Set persistence on both operand metrics."""
        for operand in (self.metric_a, self.metric_b):
            if isinstance(operand, Metric):
                operand.persistent(mode=mode)

    def __repr__(self) -> str:
        name = getattr(self.op, "__name__", None) or getattr(getattr(self.op, "func", None), "__name__", repr(self.op))
        return f"{type(self).__name__}(\n  {name}(\n    {self.metric_a!r},\n    {self.metric_b!r}\n  )\n)"
