"""Checks of the module and the Trainer flags before a run starts (Lightning's configuration validator): errors for
what cannot work, warnings for what is probably a mistake."""
from __future__ import annotations

import warnings

from ..exceptions import PossibleUserWarning
from .call import is_overridden
from .exceptions import MisconfigurationException
from .states import TrainerFn

__all__ = ["verify_loop_configurations"]


def verify_loop_configurations(trainer, model) -> None:
    """Raise if ``model`` cannot run ``trainer.state.fn`` as configured; warn about a half-configured val loop."""
    from .module import LightningModule
    fn = trainer.state.fn
    if fn == TrainerFn.FITTING:
        if not is_overridden("training_step", model, LightningModule):
            raise MisconfigurationException(
                "No `training_step()` method defined. Lightning `Trainer` expects as minimum a `training_step()`, "
                "`train_dataloader()` and `configure_optimizers()` to be defined.")
        if model.automatic_optimization and not is_overridden("configure_optimizers", model, LightningModule):
            raise MisconfigurationException(
                "No `configure_optimizers()` method defined. Lightning `Trainer` expects as minimum a "
                "`training_step()`, `train_dataloader()` and `configure_optimizers()` to be defined.")
        _warn_about_validation_setup(trainer.data_connector.has_loaders("val"),
                                     is_overridden("validation_step", model, LightningModule))
        if not trainer.data_connector.has_loaders("train"):
            raise MisconfigurationException(
                "No `train_dataloader()` method defined and no dataloader was passed: pass `train_dataloaders` to "
                "`trainer.fit()`, use a datamodule, or define `train_dataloader()`")
        if not model.automatic_optimization:
            if trainer.gradient_clip_val:
                raise MisconfigurationException(
                    "Automatic gradient clipping is not supported for manual optimization. Remove "
                    f"`Trainer(gradient_clip_val={trainer.gradient_clip_val})` or switch to automatic optimization "
                    "(call `self.clip_gradients(...)` in `training_step` instead).")
            if trainer.accumulate_grad_batches != 1:
                raise MisconfigurationException(
                    "Automatic gradient accumulation is not supported for manual optimization. Remove "
                    f"`Trainer(accumulate_grad_batches={trainer.accumulate_grad_batches})` or switch to automatic "
                    "optimization.")
    elif fn == TrainerFn.VALIDATING and not is_overridden("validation_step", model, LightningModule):
        raise MisconfigurationException("No `validation_step()` method defined to run `Trainer.validate`.")
    elif fn == TrainerFn.TESTING and not is_overridden("test_step", model, LightningModule):
        raise MisconfigurationException("No `test_step()` method defined to run `Trainer.test`.")


def _warn_about_validation_setup(has_val_loader: bool, has_val_step: bool) -> None:
    if has_val_loader and not has_val_step:
        warnings.warn("You passed in a `val_dataloader` but have no `validation_step`. Skipping val loop.")
    if has_val_step and not has_val_loader:
        warnings.warn("You defined a `validation_step` but have no `val_dataloader`. Skipping val loop.",
                      PossibleUserWarning)
