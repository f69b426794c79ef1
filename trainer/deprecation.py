"""One-time notices for the Lightning 1.x data-flow hooks that ember still supports.

ember keeps both flows (DESIGN), but code written against the 1.x hooks does not run on Lightning 2.x. Each notice
appears once per process and names the 2.x replacement, so the code carries over.
"""
from __future__ import annotations

import warnings

from .call import is_overridden

__all__ = ["EmberDeprecationWarning", "notice_once", "check_1x_flow"]


class EmberDeprecationWarning(DeprecationWarning):
    """A feature ember supports but Lightning 2.x removed (shown by default, unlike a plain DeprecationWarning)."""


# plain DeprecationWarnings are hidden outside __main__; these must reach the user once
warnings.filterwarnings("default", category=EmberDeprecationWarning)

_SHOWN: set = set()

_EPOCH_END = ("`{hook}(outputs)` is a Lightning 1.x hook that Lightning 2.x removed. ember still calls it; for "
              "Lightning 2.x, override `on_{stage}_epoch_end()` instead and collect the step outputs you need in "
              "`{step}` (e.g. append them to a list attribute).")
_STEP_END = ("`{hook}` is a Lightning 1.x hook that Lightning 2.x removed. ember still calls it; for Lightning 2.x, "
             "do that work at the end of `{step}`.")
_MESSAGES = {
    "training_epoch_end": _EPOCH_END.format(hook="training_epoch_end", stage="train", step="training_step"),
    "validation_epoch_end": _EPOCH_END.format(hook="validation_epoch_end", stage="validation",
                                              step="validation_step"),
    "test_epoch_end": _EPOCH_END.format(hook="test_epoch_end", stage="test", step="test_step"),
    "training_step_end": _STEP_END.format(hook="training_step_end", step="training_step"),
    "validation_step_end": _STEP_END.format(hook="validation_step_end", step="validation_step"),
    "test_step_end": _STEP_END.format(hook="test_step_end", step="test_step"),
    "optimizer_idx": ("`training_step(batch, batch_idx, optimizer_idx)` is Lightning 1.x automatic optimization with "
                      "several optimizers, which Lightning 2.x removed. ember still runs it; for Lightning 2.x, set "
                      "`self.automatic_optimization = False` and step the optimizers yourself in `training_step` "
                      "(`opt1, opt2 = self.optimizers()`)."),
    "automatic_optimization": ("`Trainer(automatic_optimization=...)` is a Lightning 1.x flag that Lightning 2.x "
                               "removed. ember still applies it; for Lightning 2.x, set "
                               "`self.automatic_optimization = False` in your LightningModule's `__init__`."),
}


def notice_once(key: str) -> None:
    """Show the notice ``key`` the first time it applies in this process."""
    if key in _SHOWN:
        return
    _SHOWN.add(key)
    warnings.warn(_MESSAGES[key], EmberDeprecationWarning, stacklevel=3)


def check_1x_flow(model, automatic_optimization_flag) -> None:
    """Notice each 1.x hook ``model`` overrides and the 1.x ``Trainer(automatic_optimization=...)``, once each."""
    from .module import LightningModule, _step_takes_optimizer_idx
    for hook in ("training_epoch_end", "validation_epoch_end", "test_epoch_end", "training_step_end",
                 "validation_step_end", "test_step_end"):
        if is_overridden(hook, model, LightningModule):
            notice_once(hook)
    if _step_takes_optimizer_idx(model):
        notice_once("optimizer_idx")
    if automatic_optimization_flag is not None:
        notice_once("automatic_optimization")
