"""The ``Callback`` base class: every hook the Trainer calls, each taking ``(trainer, pl_module, ...)``."""
from __future__ import annotations

from typing import Any, Dict

__all__ = ["Callback"]


class Callback:
    """Base class for callbacks: override the hooks you need.

    Callbacks run before the LightningModule's hook of the same name. Their ``state_dict()`` is saved in checkpoints
    under :attr:`state_key`, so a callback with state can be resumed exactly.
    """

    @property
    def state_key(self) -> str:
        """The key of this callback's state in a checkpoint (the class name unless overridden)."""
        return self.__class__.__qualname__

    def _generate_state_key(self, **kwargs: Any) -> str:
        """A state key that includes constructor arguments, so several instances can coexist in one checkpoint."""
        return f"{self.__class__.__qualname__}{repr(kwargs)}"

    def setup(self, trainer, pl_module, stage: str) -> None:
        """Called when fit, validate, test or predict begins."""

    def teardown(self, trainer, pl_module, stage: str) -> None:
        """Called when fit, validate, test or predict ends."""

    def on_fit_start(self, trainer, pl_module) -> None:
        """Called when fit begins."""

    def on_fit_end(self, trainer, pl_module) -> None:
        """Called when fit ends."""

    def on_sanity_check_start(self, trainer, pl_module) -> None:
        """Called when the validation sanity check starts."""

    def on_sanity_check_end(self, trainer, pl_module) -> None:
        """Called when the validation sanity check ends."""

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx: int) -> None:
        """Called when the train batch begins."""

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx: int) -> None:
        """Called when the train batch ends; ``outputs`` is what ``training_step`` returned (as a dict)."""

    def on_train_epoch_start(self, trainer, pl_module) -> None:
        """Called when the train epoch begins."""

    def on_train_epoch_end(self, trainer, pl_module) -> None:
        """Called when the train epoch ends (after the epoch's validation)."""

    def on_validation_epoch_start(self, trainer, pl_module) -> None:
        """Called when the val epoch begins."""

    def on_validation_epoch_end(self, trainer, pl_module) -> None:
        """Called when the val epoch ends."""

    def on_test_epoch_start(self, trainer, pl_module) -> None:
        """Called when the test epoch begins."""

    def on_test_epoch_end(self, trainer, pl_module) -> None:
        """Called when the test epoch ends."""

    def on_predict_epoch_start(self, trainer, pl_module) -> None:
        """Called when the predict epoch begins."""

    def on_predict_epoch_end(self, trainer, pl_module) -> None:
        """Called when the predict epoch ends."""

    def on_validation_batch_start(self, trainer, pl_module, batch, batch_idx: int, dataloader_idx: int = 0) -> None:
        """Called when the validation batch begins."""

    def on_validation_batch_end(self, trainer, pl_module, outputs, batch, batch_idx: int,
                                dataloader_idx: int = 0) -> None:
        """Called when the validation batch ends."""

    def on_test_batch_start(self, trainer, pl_module, batch, batch_idx: int, dataloader_idx: int = 0) -> None:
        """Called when the test batch begins."""

    def on_test_batch_end(self, trainer, pl_module, outputs, batch, batch_idx: int, dataloader_idx: int = 0) -> None:
        """Called when the test batch ends."""

    def on_predict_batch_start(self, trainer, pl_module, batch, batch_idx: int, dataloader_idx: int = 0) -> None:
        """Called when the predict batch begins."""

    def on_predict_batch_end(self, trainer, pl_module, outputs, batch, batch_idx: int,
                             dataloader_idx: int = 0) -> None:
        """Called when the predict batch ends."""

    def on_train_start(self, trainer, pl_module) -> None:
        """Called when training begins (after the sanity check)."""

    def on_train_end(self, trainer, pl_module) -> None:
        """Called when training ends."""

    def on_validation_start(self, trainer, pl_module) -> None:
        """Called when the validation loop begins."""

    def on_validation_end(self, trainer, pl_module) -> None:
        """Called when the validation loop ends."""

    def on_test_start(self, trainer, pl_module) -> None:
        """Called when the test loop begins."""

    def on_test_end(self, trainer, pl_module) -> None:
        """Called when the test loop ends."""

    def on_predict_start(self, trainer, pl_module) -> None:
        """Called when the predict loop begins."""

    def on_predict_end(self, trainer, pl_module) -> None:
        """Called when the predict loop ends."""

    def on_exception(self, trainer, pl_module, exception: BaseException) -> None:
        """Called when any trainer execution is interrupted by an exception (including Ctrl-C)."""

    def state_dict(self) -> Dict[str, Any]:
        """The callback's state to save in a checkpoint."""
        return {}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restore the state returned by :meth:`state_dict`."""

    def on_save_checkpoint(self, trainer, pl_module, checkpoint: Dict[str, Any]) -> None:
        """Called when saving a checkpoint; may add keys to ``checkpoint``."""

    def on_load_checkpoint(self, trainer, pl_module, checkpoint: Dict[str, Any]) -> None:
        """Called when loading a checkpoint, with the whole checkpoint dict."""

    def on_before_backward(self, trainer, pl_module, loss) -> None:
        """Called before ``loss.backward()``."""

    def on_after_backward(self, trainer, pl_module) -> None:
        """Called after ``loss.backward()`` and before optimizers are stepped."""

    def on_before_optimizer_step(self, trainer, pl_module, optimizer) -> None:
        """Called before ``optimizer.step()`` (after gradients are ready, before clipping)."""

    def on_before_zero_grad(self, trainer, pl_module, optimizer) -> None:
        """Called before ``optimizer.zero_grad()``."""
