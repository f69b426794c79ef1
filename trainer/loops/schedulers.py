"""Stepping the learning-rate schedulers of ``configure_optimizers`` at Lightning's points.

Non-plateau schedulers step right after the optimizer (every ``frequency`` steps or epochs). ``ReduceLROnPlateau``
steps after the metrics it monitors are logged: after each stepping batch (and its validation) for
``interval="step"``, after the epoch-end hooks for ``interval="epoch"``. The Trainer never steps schedulers in
manual optimization.
"""
from __future__ import annotations

import warnings

from ..call import call_module_hook
from ..exceptions import MisconfigurationException

__all__ = ["update_lr_schedulers"]


def update_lr_schedulers(trainer, interval: str, count: int, plateau: bool = False) -> None:
    """Step the schedulers of ``interval`` ("step"/"epoch") whose ``frequency`` divides ``count`` (1-based batch
    index or epoch number); ``plateau`` selects the ReduceLROnPlateau schedulers or the others."""
    if not trainer.lr_scheduler_configs or not trainer.lightning_module.automatic_optimization:
        return
    for config in trainer.lr_scheduler_configs:
        if config.interval != interval or config.reduce_on_plateau != plateau or count % config.frequency != 0:
            continue
        metric = None
        if config.reduce_on_plateau:
            metric = trainer.callback_metrics.get(config.monitor)
            if metric is None:
                if config.strict:
                    raise MisconfigurationException(
                        f"ReduceLROnPlateau conditioned on metric {config.monitor} which is not available. Available "
                        f"metrics are: {sorted(trainer.callback_metrics)}. Condition can be set using `monitor` key in "
                        "lr scheduler dict")
                warnings.warn(f"ReduceLROnPlateau conditioned on metric {config.monitor} which is not available but "
                              "strict is set to `False`. Skipping learning rate update.", RuntimeWarning)
                continue
            metric = metric.item() if hasattr(metric, "item") else float(metric)
        call_module_hook(trainer, "lr_scheduler_step", config.scheduler, metric)
