"""``Running``: a metric over a sliding window of the last ``window`` updates of another metric."""
from __future__ import annotations

from ..metric import Metric, _copy_state

__all__ = ["Running"]


class Running(Metric):
    """Compute ``base_metric`` over the last ``window`` updates only.

    Each update's state is kept in one of ``window`` slots; ``compute`` merges the slots with the base metric's
    reductions and computes the base metric on the result. The base metric must have ``full_state_update=False``
    (its states must be mergeable).

    Args:
        base_metric (Metric): the metric to run.
        window (int): the number of updates to keep. Default: 5.
    """

    full_state_update = False

    def __init__(self, base_metric: Metric, window: int = 5):
        super().__init__()
        if not isinstance(base_metric, Metric):
            raise ValueError(f"Expected argument `metric` to be an instance of `ember.metrics.Metric` but got "
                             f"{base_metric!r}")
        if not (isinstance(window, int) and not isinstance(window, bool) and window > 0):
            raise ValueError(f"Expected argument `window` to be a positive integer but got {window!r}")
        if base_metric.full_state_update is not False:
            raise ValueError(f"Expected attribute `full_state_update` set to `False` but got "
                             f"{base_metric.full_state_update}")
        self.base_metric = base_metric
        self.window = window
        self._num_vals_seen = 0
        for key in base_metric._defaults:
            for i in range(window):
                self.add_state(f"{key}_{i}", default=base_metric._defaults[key],
                               dist_reduce_fx=base_metric._reductions[key])

    def _store_base_state(self) -> None:
        slot = self._num_vals_seen % self.window
        base = self.base_metric
        for key in base._defaults:
            self.__dict__[f"{key}_{slot}"] = _copy_state(base.__dict__[key])
        base.reset()
        self._num_vals_seen += 1

    def update(self, *args, **kwargs) -> None:
        """Update the base metric with the batch and store its state in the next slot."""
        self.base_metric.update(*args, **kwargs)
        self._store_base_state()

    def forward(self, *args, **kwargs):
        """The base metric's value on the batch; the batch's state goes into the next slot."""
        self.__dict__["_update_count"] += 1
        value = self.base_metric(*args, **kwargs)
        self._store_base_state()
        self.__dict__["_computed"] = None
        self.__dict__["_forward_cache"] = value
        return value

    def compute(self):
        """The base metric computed over the states of the last ``window`` updates."""
        base = self.base_metric
        base.reset()
        for i in range(self.window):
            base._reduce_states({key: self.__dict__[f"{key}_{i}"] for key in base._defaults})
        base.__dict__["_update_count"] = min(self._num_vals_seen, self.window)
        value = base.compute()
        base.reset()
        return value

    def _sync_dist(self, dist_sync_fn=None, process_group=None) -> None:
        # the base metric syncs its (window-merged) states in its own compute
        pass

    def reset(self) -> None:
        """Clear the window and the base metric."""
        super().reset()
        self.base_metric.reset()
        self._num_vals_seen = 0
