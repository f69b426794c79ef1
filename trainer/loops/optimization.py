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
from ..call import call_hook, call_module_hook, module_overrides
from ..exceptions import MisconfigurationException
from .loop import Loop
from .signature import step_args

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


class _OptimizationLoop(Loop):
    """What both optimization flows share: the calls around ``optimizer.step`` and the raw step outputs."""

    _fields = ("optimizer_steps",)

    def __init__(self, trainer):
        super().__init__(trainer)
        self.optimizer_steps = 0
        self.raw_outputs = []  # what training_step(_end) returned this batch, for 1.x ``training_epoch_end``

    def training_step(self, batch, batch_idx: int, optimizer_idx: Optional[int] = None):
        """``training_step`` with the arguments its signature takes (then the 1.x ``training_step_end``)."""
        trainer = self.trainer
        output = call_module_hook(trainer, "training_step",
                                  *step_args(trainer.lightning_module.training_step, batch, batch_idx, None,
                                             optimizer_idx))
        if module_overrides(trainer, "training_step_end"):
            output = call_module_hook(trainer, "training_step_end", output)
        self.raw_outputs.append(output)
        return output

    def before_optimizer_step(self, optimizer) -> None:
        """After the closure, before the update: ``on_before_optimizer_step`` (callbacks, then the module)."""
        call_hook(self.trainer, "on_before_optimizer_step", optimizer)

    def after_optimizer_step(self) -> None:
        """After an ``optimizer.step`` made through a ``LightningOptimizer``."""


class AutomaticOptimization(_OptimizationLoop):
    """Runs one batch in automatic optimization, for one optimizer (or each, Lightning 1.x style)."""

    _fields = ("optimizer_steps", "zero_grad_calls")

    def __init__(self, trainer):
        super().__init__(trainer)
        self.zero_grad_calls = 0

    def before_optimizer_step(self, optimizer) -> None:
        """``on_before_optimizer_step``, then ``configure_gradient_clipping`` with the Trainer's clipping flags."""
        trainer = self.trainer
        call_hook(trainer, "on_before_optimizer_step", optimizer)
        # the default configure_gradient_clipping (and clip_gradients) does nothing without
        # Trainer(gradient_clip_val): then it is skipped, unless overridden or timed by a profiler
        if trainer.gradient_clip_val or trainer.profiler.records or \
                module_overrides(trainer, "configure_gradient_clipping", "clip_gradients"):
            call_module_hook(trainer, "configure_gradient_clipping", optimizer, trainer.gradient_clip_val,
                             trainer.gradient_clip_algorithm)

    def run(self, batch, batch_idx: int, should_step: bool, window_start: bool,
            multi: bool = False) -> Dict[str, Any]:
        """Optimize on ``batch``; ``multi`` is the 1.x ``training_step(batch, batch_idx, optimizer_idx)`` form."""
        trainer = self.trainer
        module = trainer.lightning_module
        optimizers = trainer.optimizers
        self.raw_outputs = []
        if not multi and len(optimizers) > 1:
            raise MisconfigurationException(
                "Training with multiple optimizers is only supported with manual optimization. Set "
                "`self.automatic_optimization = False`, then access your optimizers in `training_step` with "
                "`opt1, opt2, ... = self.optimizers()` (or declare `training_step(self, batch, batch_idx, "
                "optimizer_idx)` for the Lightning 1.x behaviour)")
        epoch = trainer.fit_loop.current_epoch
        if not optimizers:
            closure = _Closure(self, None, batch, batch_idx, None, False, epoch)
            closure()
            return closure.result_dict
        result: Dict[str, Any] = {}
        toggle = multi and len(optimizers) > 1
        for opt_idx, optimizer in enumerate(optimizers):
            if toggle:
                module.toggle_optimizer(optimizer)
            lightning_opt = trainer.strategy._lightning_optimizers[opt_idx]
            closure = _Closure(self, lightning_opt, batch, batch_idx, opt_idx if multi else None, window_start, epoch)
            if should_step:
                call_module_hook(trainer, "optimizer_step", epoch, batch_idx, lightning_opt, closure)
                if closure.called:
                    self.optimizer_steps += 1
                else:
                    warnings.warn("`optimizer_step` did not call the optimizer closure: `training_step` did not run "
                                  "for this batch. Call `optimizer.step(closure=optimizer_closure)`.")
            else:
                closure()
            if toggle:
                module.untoggle_optimizer(optimizer)
            result = closure.result_dict
        return result


class _Closure:
    """training_step + zero_grad + backward, callable (repeatedly, for LBFGS) by ``optimizer.step``."""

    def __init__(self, loop: AutomaticOptimization, optimizer, batch, batch_idx: int, optimizer_idx,
                 window_start: bool, epoch: int):
        self.loop = loop
        self.optimizer = optimizer  # the LightningOptimizer, as the zero-grad hooks receive it
        self.batch = batch
        self.batch_idx = batch_idx
        self.optimizer_idx = optimizer_idx
        self.window_start = window_start
        self.epoch = epoch
        self.called = False
        self.result_dict: Dict[str, Any] = {}

    def __call__(self):
        self.called = True
        loop = self.loop
        trainer = loop.trainer
        module = trainer.lightning_module
        output = loop.training_step(self.batch, self.batch_idx, self.optimizer_idx)
        loss = _extract_loss(output, "training_step")
        if loss is None:
            warnings.warn("`training_step` returned `None`. If this was on purpose, ignore this warning...")
            self.result_dict = step_output_to_dict(output, None)
            return None
        self.result_dict = step_output_to_dict(output, loss)
        if self.window_start and self.optimizer is not None:
            call_hook(trainer, "on_before_zero_grad", self.optimizer)
            call_module_hook(trainer, "optimizer_zero_grad", self.epoch, self.batch_idx, self.optimizer)
            loop.zero_grad_calls += 1
        k = trainer.accumulate_grad_batches
        trainer.strategy.backward(module, loss / k if k > 1 else loss)
        return loss


class ManualOptimization(_OptimizationLoop):
    """Runs one batch in manual optimization: ``training_step`` steps the optimizers itself."""

    def after_optimizer_step(self) -> None:
        """Every ``optimizer.step`` counts towards ``global_step`` in manual optimization."""
        self.optimizer_steps += 1

    def run(self, batch, batch_idx: int, multi: bool = False) -> Dict[str, Any]:
        """Call ``training_step``; return what ``on_train_batch_end`` receives."""
        self.raw_outputs = []
        output = self.training_step(batch, batch_idx, 0 if multi else None)
        if isinstance(output, Tensor):
            return {"loss": output.detach()}
        if isinstance(output, dict):
            out = dict(output)
            if isinstance(out.get("loss"), Tensor):
                out["loss"] = out["loss"].detach()
            return out
        return {}
