"""``GradientAccumulationScheduler``: change ``accumulate_grad_batches`` as training progresses."""
from __future__ import annotations

import warnings
from typing import Dict

from .callback import Callback
from .checkpoint import _misconfigured

__all__ = ["GradientAccumulationScheduler"]


class GradientAccumulationScheduler(Callback):
    r"""Set the Trainer's ``accumulate_grad_batches`` per epoch (Lightning's callback).

    Args:
        scheduling: ``{epoch: factor}``; from (0-based) ``epoch`` on, gradients of ``factor`` batches are accumulated
            before each optimizer step. Epochs before the first key use 1.

    Example::

        # no accumulation for epochs 0-4, 8 batches for epochs 5-9, 16 from epoch 10 on
        GradientAccumulationScheduler(scheduling={5: 8, 10: 16})
    """

    def __init__(self, scheduling: Dict[int, int]) -> None:
        super().__init__()
        if not isinstance(scheduling, dict) or not scheduling:
            raise TypeError("Empty dict cannot be interpreted correct" if isinstance(scheduling, dict) else
                            f"GradientAccumulationScheduler(scheduling=...) expects a dict, got "
                            f"{type(scheduling).__name__}")
        if any(isinstance(k, bool) or not isinstance(k, int) or k < 0 for k in scheduling):
            raise _misconfigured(f"Epoch should be an int greater than or equal to 0. Got {list(scheduling.keys())}.")
        if any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in scheduling.values()):
            raise _misconfigured(f"Accumulation factor should be an int greater than 0. Got "
                                 f"{list(scheduling.values())}.")
        scheduling = dict(scheduling)
        if min(scheduling) != 0:
            scheduling[0] = 1
        self.scheduling = scheduling
        self.epochs = sorted(scheduling)

    def going_to_accumulate_grad_batches(self) -> bool:
        """Whether any epoch accumulates more than one batch."""
        return any(v > 1 for v in self.scheduling.values())

    def get_accumulate_grad_batches(self, epoch: int) -> int:
        """The factor in force at (0-based) ``epoch``."""
        for start in reversed(self.epochs):
            if epoch >= start:
                return self.scheduling[start]
        return 1

    def on_train_start(self, trainer, pl_module) -> None:
        if not pl_module.automatic_optimization:
            raise RuntimeError("Automatic gradient accumulation and the `GradientAccumulationScheduler` is not "
                               "supported for manual optimization. Please remove the callback or switch to "
                               "automatic optimization.")
        overridden = _user_defined(pl_module, "optimizer_step") or _user_defined(pl_module, "optimizer_zero_grad")
        if overridden and self.going_to_accumulate_grad_batches():
            warnings.warn("When using `Trainer(accumulate_grad_batches != 1)` and overriding "
                          "`LightningModule.optimizer_{step,zero_grad}`, the hooks will not be called on every batch "
                          "(rather, they are called on every optimization step).", UserWarning)
        if trainer.accumulate_grad_batches != 1:
            raise ValueError("You have set `accumulate_grad_batches` and are using the `GradientAccumulationScheduler` "
                             "callback. Either remove `accumulate_grad_batches` from the Trainer or remove the "
                             "callback.")
        # a run resumed mid-epoch gets no on_train_epoch_start for that epoch: set the factor here too
        trainer.accumulate_grad_batches = self.get_accumulate_grad_batches(trainer.current_epoch)

    def on_train_epoch_start(self, trainer, pl_module) -> None:
        trainer.accumulate_grad_batches = self.get_accumulate_grad_batches(trainer.current_epoch)


def _user_defined(module, name: str) -> bool:
    """True if ``name`` comes from a user class rather than ember's LightningModule (callbacks don't import the
    trainer, so the defining class is found through the MRO)."""
    for cls in type(module).__mro__:
        if name in vars(cls):
            return not cls.__module__.startswith("ember.trainer")
    return False
