"""Calling hooks in Lightning's order: callbacks first, then the LightningModule.

While a hook runs, ``pl_module._current_fx_name`` names it, so ``self.log`` knows which hook is logging (and can
refuse hooks where Lightning forbids logging).
"""
from __future__ import annotations

from typing import Any

__all__ = ["call_hook", "call_callback_hooks", "call_module_hook", "call_datamodule_hook", "is_overridden",
           "module_overrides"]


def is_overridden(name: str, instance: Any, parent: type) -> bool:
    """True if ``instance`` defines ``name`` differently from ``parent``: in its class, or assigned on the instance
    itself (``model.on_train_batch_end = fn``). An attribute set to None counts as not defined (Lightning: setting
    ``model.validation_step = None`` disables validation)."""
    if instance is None:
        return False
    attr = getattr(instance, name, None)
    if attr is None:
        return False
    base = getattr(parent, name, None)
    if base is None:
        return True
    func = getattr(attr, "__func__", attr)
    return getattr(func, "__code__", func) is not getattr(base, "__code__", base)


# the hook name is set around every hook call: bypass nn.Module.__setattr__'s parameter/buffer bookkeeping
_set_fx = lambda module, name: object.__setattr__(module, "_current_fx_name", name)  # noqa: E731


def _overriding_callbacks(trainer, hook_name: str):
    # Cached per hook: only callbacks that override the hook are called, which keeps per-batch dispatch cheap.
    cache = trainer._callback_hook_cache
    hooks = cache.get(hook_name)
    if hooks is None:
        from ..callbacks.callback import Callback
        hooks = [(cb, getattr(cb, hook_name)) for cb in trainer.callbacks
                 if is_overridden(hook_name, cb, Callback) or not hasattr(Callback, hook_name)]
        cache[hook_name] = hooks
    return hooks


def call_callback_hooks(trainer, hook_name: str, *args: Any, monitoring_callbacks=None, **kwargs: Any) -> None:
    """Call ``hook_name`` on every callback that implements it.

    ``monitoring_callbacks`` True/False restricts the call to the callbacks that monitor metrics (checkpointing,
    early stopping) or to the others, for Lightning's split ``on_train_epoch_end`` ordering.
    """
    hooks = _overriding_callbacks(trainer, hook_name)
    if not hooks:
        return
    profiler = _recording_profiler(trainer)
    pl_module = trainer.lightning_module
    prev = None
    if pl_module is not None:
        prev = pl_module._current_fx_name
        _set_fx(pl_module, hook_name)
    try:
        for cb, fn in hooks:
            if monitoring_callbacks is not None and getattr(cb, "_monitors_metrics", False) != monitoring_callbacks:
                continue
            if profiler is None:
                fn(trainer, pl_module, *args, **kwargs)
            else:
                with profiler.profile(f"[Callback]{cb.state_key}.{hook_name}"):
                    fn(trainer, pl_module, *args, **kwargs)
    finally:
        if pl_module is not None:
            _set_fx(pl_module, prev)


# Module hooks whose default does nothing: when the user did not override one, it is not called at all (these run
# several times per batch, so skipping them is most of the Trainer's per-batch saving).
_NOOP_HOOKS = frozenset({
    "on_train_batch_start", "on_train_batch_end", "on_before_zero_grad", "on_before_backward", "on_after_backward",
    "on_before_optimizer_step", "on_validation_batch_start", "on_validation_batch_end", "on_test_batch_start",
    "on_test_batch_end", "on_predict_batch_start", "on_predict_batch_end"})


def call_module_hook(trainer, hook_name: str, *args: Any, pl_module=None, **kwargs: Any) -> Any:
    """Call the LightningModule's ``hook_name`` and return its result."""
    if hook_name in _NOOP_HOOKS and pl_module is None and not trainer._module_overrides(hook_name):
        return None
    pl_module = pl_module or trainer.lightning_module
    fn = getattr(pl_module, hook_name, None)
    if fn is None:
        return None
    prev = pl_module._current_fx_name
    _set_fx(pl_module, hook_name)
    profiler = _recording_profiler(trainer)
    try:
        if profiler is None:
            return fn(*args, **kwargs)
        with profiler.profile(_module_action(trainer, pl_module, hook_name)):
            return fn(*args, **kwargs)
    finally:
        _set_fx(pl_module, prev)


def call_hook(trainer, hook_name: str, *args: Any, **kwargs: Any) -> Any:
    """Call ``hook_name`` on the callbacks, then on the LightningModule (Lightning's order); return the module's
    result."""
    call_callback_hooks(trainer, hook_name, *args, **kwargs)
    return call_module_hook(trainer, hook_name, *args, **kwargs)


def module_overrides(trainer, hook_name: str) -> bool:
    """Whether the running LightningModule overrides ``hook_name`` (cached for the run: asked every batch)."""
    return trainer._module_overrides(hook_name)


def call_datamodule_hook(trainer, hook_name: str, *args: Any, **kwargs: Any) -> Any:
    """Call ``hook_name`` on the attached LightningDataModule, if there is one."""
    dm = trainer.datamodule
    if dm is None:
        return None
    fn = getattr(dm, hook_name, None)
    if not callable(fn):
        return None
    profiler = _recording_profiler(trainer)
    if profiler is None:
        return fn(*args, **kwargs)
    with profiler.profile(f"[LightningDataModule]{type(dm).__name__}.{hook_name}"):
        return fn(*args, **kwargs)


# -- profiling: Lightning's action names. The step methods and backward run through the strategy in Lightning, so
# they are named after it ("[Strategy]SingleDeviceStrategy.training_step").
_STRATEGY_HOOKS = frozenset({"training_step", "validation_step", "test_step", "predict_step", "backward"})


def _recording_profiler(trainer):
    """The trainer's profiler, or None when it records nothing (PassThroughProfiler): then hooks run unwrapped."""
    profiler = getattr(trainer, "profiler", None)
    return profiler if profiler is not None and profiler.records else None


def _module_action(trainer, pl_module, hook_name: str) -> str:
    if hook_name in _STRATEGY_HOOKS:
        return f"[Strategy]{type(trainer.strategy).__name__}.{hook_name}"
    return f"[LightningModule]{type(pl_module).__name__}.{hook_name}"
