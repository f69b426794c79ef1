"""Which hooks may call ``self.log``, and the ``on_step``/``on_epoch`` defaults in each (Lightning's table)."""
from __future__ import annotations

from typing import Optional, Tuple

from ..exceptions import MisconfigurationException

__all__ = ["check_logging", "defaults_for"]

# (allowed on_step values, allowed on_epoch values, default on_step, default on_epoch)
_STEP = ((False, True), (False, True), True, False)
_EVAL_STEP = ((False, True), (False, True), False, True)
_EPOCH = ((False,), (True,), False, True)

_RULES = {}
for _fx in ("training_step", "training_step_end", "on_train_batch_start", "on_train_batch_end",
            "on_before_backward", "backward", "on_after_backward", "on_before_optimizer_step", "optimizer_step",
            "on_before_zero_grad", "optimizer_zero_grad", "clip_gradients", "configure_gradient_clipping",
            "manual_backward"):
    _RULES[_fx] = _STEP
for _fx in ("validation_step", "validation_step_end", "test_step", "test_step_end", "on_validation_batch_start",
            "on_validation_batch_end", "on_test_batch_start", "on_test_batch_end"):
    _RULES[_fx] = _EVAL_STEP
for _fx in ("on_train_start", "on_train_epoch_start", "on_train_epoch_end", "training_epoch_end",
            "on_validation_start", "on_validation_epoch_start", "on_validation_epoch_end", "validation_epoch_end",
            "on_test_start", "on_test_epoch_start", "on_test_epoch_end", "test_epoch_end"):
    _RULES[_fx] = _EPOCH


def defaults_for(fx: Optional[str]) -> Tuple[bool, bool]:
    """The default ``(on_step, on_epoch)`` of hook ``fx``."""
    rule = _RULES[fx]
    return rule[2], rule[3]


def check_logging(fx: Optional[str], on_step: bool, on_epoch: bool) -> None:
    """Raise if ``fx`` may not log, or may not log with these flags."""
    if fx is None:
        raise MisconfigurationException("You can't `self.log()` outside of a hook run by the Trainer: there is no "
                                        "active hook to attach the value to")
    rule = _RULES.get(fx)
    if rule is None:
        raise MisconfigurationException(f"You can't `self.log()` inside `{fx}`: logging is allowed in the step "
                                        "methods and the train/validation/test batch and epoch hooks")
    if on_step not in rule[0]:
        raise MisconfigurationException(f"You can't `self.log({fx}, on_step={on_step})`: `{fx}` only supports "
                                        f"`on_step` in {list(rule[0])}")
    if on_epoch not in rule[1]:
        raise MisconfigurationException(f"You can't `self.log({fx}, on_epoch={on_epoch})`: `{fx}` only supports "
                                        f"`on_epoch` in {list(rule[1])}")
