"""The LightningModule's default hooks, grouped as in Lightning: model, data and checkpoint hooks."""
from __future__ import annotations

from typing import Any, Dict, Optional

from .exceptions import MisconfigurationException

__all__ = ["ModelHooks", "DataHooks", "CheckpointHooks"]


class ModelHooks:
    """Hooks around fitting, epochs, batches and the optimization step. All default to doing nothing."""

    def on_fit_start(self) -> None:
        """Called at the very beginning of fit."""

    def on_fit_end(self) -> None:
        """Called at the very end of fit."""

    def on_train_start(self) -> None:
        """Called at the beginning of training after the sanity check."""

    def on_train_end(self) -> None:
        """Called at the end of training before logger experiment is closed."""

    def on_validation_start(self) -> None:
        """Called at the beginning of validation."""

    def on_validation_end(self) -> None:
        """Called at the end of validation."""

    def on_test_start(self) -> None:
        """Called at the beginning of testing."""

    def on_test_end(self) -> None:
        """Called at the end of testing."""

    def on_predict_start(self) -> None:
        """Called at the beginning of predicting."""

    def on_predict_end(self) -> None:
        """Called at the end of predicting."""

    def on_train_batch_start(self, batch: Any, batch_idx: int) -> Optional[int]:
        """Called before a training batch; returning -1 ends the epoch early."""

    def on_train_batch_end(self, outputs, batch: Any, batch_idx: int) -> None:
        """Called after a training batch with what ``training_step`` returned."""

    def on_validation_batch_start(self, batch: Any, batch_idx: int, dataloader_idx: int = 0) -> None:
        """Called before a validation batch."""

    def on_validation_batch_end(self, outputs, batch: Any, batch_idx: int, dataloader_idx: int = 0) -> None:
        """Called after a validation batch."""

    def on_test_batch_start(self, batch: Any, batch_idx: int, dataloader_idx: int = 0) -> None:
        """Called before a test batch."""

    def on_test_batch_end(self, outputs, batch: Any, batch_idx: int, dataloader_idx: int = 0) -> None:
        """Called after a test batch."""

    def on_predict_batch_start(self, batch: Any, batch_idx: int, dataloader_idx: int = 0) -> None:
        """Called before a predict batch."""

    def on_predict_batch_end(self, outputs, batch: Any, batch_idx: int, dataloader_idx: int = 0) -> None:
        """Called after a predict batch."""

    def on_validation_model_zero_grad(self) -> None:
        """Called when validation starts inside fit: zero the gradients so they do not leak into validation."""
        self.zero_grad()

    def on_validation_model_eval(self) -> None:
        """Called when validation starts: switch to eval mode."""
        self.trainer.lightning_module.eval()

    def on_validation_model_train(self) -> None:
        """Called when validation ends: switch back to train mode."""
        self.trainer.lightning_module.train()

    def on_test_model_eval(self) -> None:
        """Called when testing starts: switch to eval mode."""
        self.trainer.lightning_module.eval()

    def on_test_model_train(self) -> None:
        """Called when testing ends: switch back to train mode."""
        self.trainer.lightning_module.train()

    def on_predict_model_eval(self) -> None:
        """Called when predicting starts: switch to eval mode."""
        self.trainer.lightning_module.eval()

    def on_train_epoch_start(self) -> None:
        """Called at the start of a training epoch."""

    def on_train_epoch_end(self) -> None:
        """Called at the end of a training epoch, after its validation."""

    def on_validation_epoch_start(self) -> None:
        """Called at the start of a validation epoch."""

    def on_validation_epoch_end(self) -> None:
        """Called at the end of a validation epoch."""

    def on_test_epoch_start(self) -> None:
        """Called at the start of a test epoch."""

    def on_test_epoch_end(self) -> None:
        """Called at the end of a test epoch."""

    def on_predict_epoch_start(self) -> None:
        """Called at the start of predicting."""

    def on_predict_epoch_end(self) -> None:
        """Called at the end of predicting."""

    def on_before_zero_grad(self, optimizer) -> None:
        """Called after ``training_step`` and before ``optimizer.zero_grad()``."""

    def on_before_backward(self, loss) -> None:
        """Called before ``loss.backward()``."""

    def on_after_backward(self) -> None:
        """Called after ``loss.backward()`` and before the optimizer step: inspect gradients here."""

    def on_before_optimizer_step(self, optimizer) -> None:
        """Called before ``optimizer.step()``, before gradient clipping."""

    def configure_model(self) -> None:
        """Create layers lazily here (called once per fit/validate/test/predict, before ``configure_optimizers``)."""

    def configure_sharded_model(self) -> None:
        """Deprecated alias of :meth:`configure_model`."""

    def setup(self, stage: str) -> None:
        """Called at the beginning of fit, validate, test or predict (``stage`` names which)."""

    def teardown(self, stage: str) -> None:
        """Called at the end of fit, validate, test or predict."""

    def on_exception(self, exception: BaseException) -> None:
        """Called when a run is interrupted by an exception (including Ctrl-C)."""


class DataHooks:
    """Hooks that provide data and move batches."""

    prepare_data_per_node = True
    allow_zero_length_dataloader_with_multiple_devices = False

    def prepare_data(self) -> None:
        """Download or prepare data once per node (not per process); do not set state here."""

    def _missing_loader(self, name: str):
        raise MisconfigurationException(
            f"`{name}` must be implemented to be used with the ember Trainer, or a dataloader must be passed to the "
            f"Trainer method")

    def train_dataloader(self):
        """The training DataLoader."""
        self._missing_loader("train_dataloader")

    def val_dataloader(self):
        """The validation DataLoader(s)."""
        self._missing_loader("val_dataloader")

    def test_dataloader(self):
        """The test DataLoader(s)."""
        self._missing_loader("test_dataloader")

    def predict_dataloader(self):
        """The predict DataLoader(s)."""
        self._missing_loader("predict_dataloader")

    def transfer_batch_to_device(self, batch: Any, device, dataloader_idx: int) -> Any:
        """Move the batch's tensors to ``device`` (recursing through lists, tuples and dicts)."""
        from .utilities import move_data_to_device
        return move_data_to_device(batch, device)

    def on_before_batch_transfer(self, batch: Any, dataloader_idx: int) -> Any:
        """Alter the batch before it is moved to the device."""
        return batch

    def on_after_batch_transfer(self, batch: Any, dataloader_idx: int) -> Any:
        """Alter the batch after it is moved to the device."""
        return batch


class CheckpointHooks:
    """Hooks to add to or read from checkpoints."""

    def on_load_checkpoint(self, checkpoint: Dict[str, Any]) -> None:
        """Called when loading a checkpoint (before the state dict is restored); may edit ``checkpoint``."""

    def on_save_checkpoint(self, checkpoint: Dict[str, Any]) -> None:
        """Called when saving a checkpoint; may add keys to ``checkpoint``."""
