"""Automatic and manual optimization of one training batch.

Automatic optimization follows Lightning's closure: ``optimizer.step(closure)`` runs the closure, which does
``training_step`` -> ``on_before_zero_grad`` -> ``optimizer_zero_grad`` (first batch of an accumulation window only)
-> ``on_before_backward`` -> ``backward`` -> ``on_after_backward``; after the closure come
``on_before_optimizer_step`` and gradient clipping, then the real update. Batches inside an accumulation window call
the closure directly and do not step.
"""
from __future__ import annotations

import warnings
from typing import Any, Dict, Optional

from ...core.tensor import Tensor
from ..call import call_callback_hooks, call_module_hook
from ..exceptions import MisconfigurationException

__all__ = ["AutomaticOptimization", "ManualOptimization", "step_output_to_dict"]


def _extract_loss(output, fx: str) -> Optional[Tensor]:
    if output is None:
        return None
    if isinstance(output, Tensor):
        loss = output
    elif isinstance(output, dict):
        if "loss" not in output:
            raise MisconfigurationException(f"In automatic optimization, `{fx}` must return a Tensor, a dict, or "
                                            "None (where the step will be skipped). A dict must have a 'loss' key; "
                                            f"got keys {sorted(output)}")
        loss = output["loss"]
    else:
        raise MisconfigurationException(f"In automatic optimization, `{fx}` must return a Tensor, a dict with a "
                                        f"'loss' key, or None; got {type(output).__name__}")
    if not isinstance(loss, Tensor) or loss.numel() != 1:
        shape = list(loss.shape) if isinstance(loss, Tensor) else type(loss).__name__
        raise MisconfigurationException(f"`{fx}` returned a non-scalar loss of shape {shape}: the loss must be a "
                                        "tensor with a single element (reduce it, e.g. with `.mean()`)")
    return loss


def step_output_to_dict(output, loss: Optional[Tensor]) -> Dict[str, Any]:
    """What ``on_train_batch_end`` receives: ``{"loss": loss, ...extras}`` with the loss detached."""
    if isinstance(output, dict):
        out = dict(output)
        if loss is not None:
            out["loss"] = loss.detach()
        return out
    return {"loss": loss.detach()} if loss is not None else {}


class AutomaticOptimization:
    """Runs one batch in automatic optimization, for one optimizer (or each, Lightning 1.x style)."""

    def __init__(self, trainer):
        self.trainer = trainer
        self.optimizer_steps = 0  # global_step in automatic mode
        self.zero_grad_calls = 0

    def run(self, batch, batch_idx: int, should_step: bool, window_start: bool) -> Dict[str, Any]:
        trainer = self.trainer
        module = trainer.lightning_module
        optimizers = trainer.optimizers
        multi = trainer._training_step_takes_optimizer_idx
        if not multi and len(optimizers) > 1:
            raise MisconfigurationException(
                "Training with multiple optimizers is only supported with manual optimization. Set "
                "`self.automatic_optimization = False`, then access your optimizers in `training_step` with "
                "`opt1, opt2, ... = self.optimizers()` (or declare `training_step(self, batch, batch_idx, "
                "optimizer_idx)` for the Lightning 1.x behaviour)")
        if not optimizers:
            return self._run_without_optimizer(batch, batch_idx)
        result: Dict[str, Any] = {}
        for opt_idx, optimizer in enumerate(optimizers):
            args = (batch, batch_idx, opt_idx) if multi else (batch, batch_idx)
            if multi and len(optimizers) > 1:
                module.toggle_optimizer(optimizer)
            closure = _Closure(self, optimizer, args, batch_idx, window_start)
            if should_step:
                lightning_opt = trainer.strategy._lightning_optimizers[opt_idx]
                call_module_hook(trainer, "optimizer_step", trainer.current_epoch, batch_idx, lightning_opt, closure)
                if closure.called:
                    self.optimizer_steps += 1
                else:
                    warnings.warn("`optimizer_step` did not call the optimizer closure: `training_step` did not run "
                                  "for this batch. Call `optimizer.step(closure=optimizer_closure)`.")
            else:
                closure()
            if multi and len(optimizers) > 1:
                module.untoggle_optimizer(optimizer)
            result = closure.result_dict
        return result

    def _run_without_optimizer(self, batch, batch_idx):
        closure = _Closure(self, None, (batch, batch_idx), batch_idx, False)
        closure()
        return closure.result_dict

    def state_dict(self) -> Dict[str, Any]:
        return {"optimizer_steps": self.optimizer_steps, "zero_grad_calls": self.zero_grad_calls}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        self.optimizer_steps = state.get("optimizer_steps", 0)
        self.zero_grad_calls = state.get("zero_grad_calls", 0)


class _Closure:
    """training_step + zero_grad + backward, callable (repeatedly, for LBFGS) by ``optimizer.step``."""

    def __init__(self, loop: AutomaticOptimization, optimizer, args, batch_idx: int, window_start: bool):
        self.loop = loop
        self.optimizer = optimizer
        self.args = args
        self.batch_idx = batch_idx
        self.window_start = window_start
        self.called = False
        self.result_dict: Dict[str, Any] = {}

    def __call__(self):
        self.called = True
        trainer = self.loop.trainer
        module = trainer.lightning_module
        output = call_module_hook(trainer, "training_step", *self.args)
        if trainer._module_overrides("training_step_end"):
            output = call_module_hook(trainer, "training_step_end", output)
        loss = _extract_loss(output, "training_step")
        trainer._collect_training_output(output)
        if loss is None:
            warnings.warn("`training_step` returned `None`. If this was on purpose, ignore this warning...")
            self.result_dict = step_output_to_dict(output, None)
            return None
        self.result_dict = step_output_to_dict(output, loss)
        if self.window_start and self.optimizer is not None:
            lightning_opt = trainer.strategy._lightning_optimizers[trainer.optimizers.index(self.optimizer)]
            call_callback_hooks(trainer, "on_before_zero_grad", lightning_opt)
            call_module_hook(trainer, "on_before_zero_grad", lightning_opt)
            call_module_hook(trainer, "optimizer_zero_grad", trainer.current_epoch, self.batch_idx, lightning_opt)
            self.loop.zero_grad_calls += 1
        k = trainer.accumulate_grad_batches
        trainer.strategy.backward(module, loss / k if k > 1 else loss)
        return loss


class ManualOptimization:
    """Runs one batch in manual optimization: ``training_step`` steps the optimizers itself."""

    def __init__(self, trainer):
        self.trainer = trainer
        self.optimizer_steps = 0  # global_step in manual mode counts every optimizer step

    def run(self, batch, batch_idx: int) -> Dict[str, Any]:
        trainer = self.trainer
        args = (batch, batch_idx, 0) if trainer._training_step_takes_optimizer_idx else (batch, batch_idx)
        output = call_module_hook(trainer, "training_step", *args)
        if trainer._module_overrides("training_step_end"):
            output = call_module_hook(trainer, "training_step_end", output)
        trainer._collect_training_output(output)
        if isinstance(output, Tensor):
            return {"loss": output.detach()}
        if isinstance(output, dict):
            out = dict(output)
            if isinstance(out.get("loss"), Tensor):
                out["loss"] = out["loss"].detach()
            return out
        return {}

    def state_dict(self) -> Dict[str, Any]:
        return {"optimizer_steps": self.optimizer_steps}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        self.optimizer_steps = state.get("optimizer_steps", 0)

