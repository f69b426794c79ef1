"""Calling hooks in Lightning's order: callbacks first, then the LightningModule.

While a hook runs, ``pl_module._current_fx_name`` names it, so ``self.log`` knows which hook is logging (and can
refuse hooks where Lightning forbids logging).

Dispatch runs several times per batch, so what never changes during a run is worked out once per run (per hook):
which callback *classes* implement the hook and whether the module's class overrides it. What can change at any
time, a hook assigned on an instance (``model.on_train_batch_end = fn``, the same on a callback), is checked on
every call with one dict look-up per object, so such a hook is called from the next call on, as in Lightning.
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


def _instance_dict(obj) -> dict:
    d = getattr(obj, "__dict__", None)
    return d if d is not None else {}


def _implementing(callbacks, hook_name: str, by_class: bool):
    """The ``(callback, bound hook)`` pairs of the callbacks that define ``hook_name`` differently from ``Callback``
    (or at all, for a name ``Callback`` lacks): by their class only, or with instance attributes too."""
    from ..callbacks.callback import Callback
    return [(cb, getattr(cb, hook_name)) for cb in callbacks
            if is_overridden(hook_name, type(cb) if by_class else cb, Callback)]


class HookTable(dict):
    """The Trainer's dispatch table for one run: hook name -> ``(pairs, overridden)``, where ``pairs`` are the
    ``(callback, bound hook)`` pairs of the callbacks whose class implements the hook (in callback order) and
    ``overridden`` tells whether the module's class overrides it. Filled on first use; the Trainer makes a new one
    for each run and whenever its callbacks change.

    Hooks assigned on an instance are not in it: ``dicts`` (the callbacks') and ``module_dict`` are the instance
    dicts where they show up, checked on every call.
    """

    def __init__(self, callbacks, module) -> None:
        super().__init__()
        self.callbacks = list(callbacks)
        self.dicts = [_instance_dict(cb) for cb in self.callbacks]
        self.module = module
        self.module_dict = _instance_dict(module)

    def __missing__(self, hook_name: str):
        from .module import LightningModule
        entry = self[hook_name] = (_implementing(self.callbacks, hook_name, by_class=True),
                                   is_overridden(hook_name, type(self.module), LightningModule))
        return entry

    def callback_hooks(self, hook_name: str):
        """The pairs to call now: the cached ones, unless some callback has the hook assigned on its instance
        (possibly mid-run): then every callback is looked up again."""
        for d in self.dicts:
            if hook_name in d:
                return _implementing(self.callbacks, hook_name, by_class=False)
        return self[hook_name][0]


def call_callback_hooks(trainer, hook_name: str, *args: Any, monitoring_callbacks=None, **kwargs: Any) -> None:
    """Call ``hook_name`` on every callback that implements it.

    ``monitoring_callbacks`` True/False restricts the call to the callbacks that monitor metrics (checkpointing,
    early stopping) or to the others, for Lightning's split ``on_train_epoch_end`` ordering.
    """
    hooks = trainer._hook_table.callback_hooks(hook_name)
    if hooks:
        _run_callback_hooks(trainer, hook_name, hooks, args, kwargs, monitoring_callbacks)


def _run_callback_hooks(trainer, hook_name: str, hooks, args, kwargs, monitoring_callbacks=None) -> None:
    profiler = trainer.profiler  # _recording_profiler written out: this runs every batch
    if not profiler.records:
        profiler = None
    pl_module = trainer.lightning_module
    prev = None
    if pl_module is not None:
        fx = pl_module.__dict__  # set directly: nn.Module.__setattr__'s bookkeeping is not needed for a string
        prev = fx.get("_current_fx_name")
        fx["_current_fx_name"] = hook_name
    try:
        for cb, fn in hooks:
            if monitoring_callbacks is not None and getattr(cb, "_monitors_metrics", False) != monitoring_callbacks:
                continue
            if profiler is None:
                fn(trainer, pl_module, *args, **kwargs) if kwargs else fn(trainer, pl_module, *args)
            else:
                with profiler.profile(f"[Callback]{cb.state_key}.{hook_name}"):
                    fn(trainer, pl_module, *args, **kwargs)
    finally:
        if pl_module is not None:
            fx["_current_fx_name"] = prev


# Module hooks whose default does nothing: when the user did not override one, it is not called at all (these run
# several times per batch, so skipping them is most of the Trainer's per-batch saving).
_NOOP_HOOKS = frozenset({
    "on_train_batch_start", "on_train_batch_end", "on_before_zero_grad", "on_before_backward", "on_after_backward",
    "on_before_optimizer_step", "on_validation_batch_start", "on_validation_batch_end", "on_test_batch_start",
    "on_test_batch_end", "on_predict_batch_start", "on_predict_batch_end"})


def call_module_hook(trainer, hook_name: str, *args: Any, pl_module=None, **kwargs: Any) -> Any:
    """Call the LightningModule's ``hook_name`` and return its result."""
    if pl_module is None:
        if hook_name in _NOOP_HOOKS and not module_overrides(trainer, hook_name):
            return None
        pl_module = trainer.lightning_module
    fn = getattr(pl_module, hook_name, None)
    if fn is None:
        return None
    fx = pl_module.__dict__
    prev = fx.get("_current_fx_name")
    fx["_current_fx_name"] = hook_name
    profiler = trainer.profiler  # _recording_profiler written out: this runs several times a batch
    try:
        if not profiler.records:
            return fn(*args, **kwargs) if kwargs else fn(*args)
        with profiler.profile(_module_action(trainer, pl_module, hook_name)):
            return fn(*args, **kwargs)
    finally:
        fx["_current_fx_name"] = prev


def call_hook(trainer, hook_name: str, *args: Any, **kwargs: Any) -> Any:
    """Call ``hook_name`` on the callbacks, then on the LightningModule (Lightning's order); return the module's
    result."""
    # one table look-up answers both questions when nothing is assigned on an instance: most hooks of a batch have
    # nothing to call, so this path is kept short
    table = trainer._hook_table
    hooks, overridden = table[hook_name]
    for d in table.dicts:
        if hook_name in d:
            hooks = table.callback_hooks(hook_name)
            break
    if hooks:
        _run_callback_hooks(trainer, hook_name, hooks, args, kwargs)
    if overridden or hook_name not in _NOOP_HOOKS or hook_name in table.module_dict:
        return call_module_hook(trainer, hook_name, *args, **kwargs)
    return None


def module_overrides(trainer, *hook_names: str) -> bool:
    """Whether the running LightningModule overrides any of ``hook_names``: in its class (worked out once per run),
    or assigned on the instance (looked up on every call: that may happen mid-run)."""
    table = trainer._hook_table
    for name in hook_names:
        if name in table.module_dict:
            from .module import LightningModule
            if is_overridden(name, table.module, LightningModule):
                return True
        elif table[name][1]:
            return True
    return False


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
