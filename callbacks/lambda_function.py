"""``LambdaCallback``: a callback made of functions, one per hook."""
from __future__ import annotations

from typing import Callable

from .callback import Callback

__all__ = ["LambdaCallback"]

_HOOKS = ("setup", "teardown", "on_fit_start", "on_fit_end", "on_sanity_check_start", "on_sanity_check_end",
          "on_train_batch_start", "on_train_batch_end", "on_train_epoch_start", "on_train_epoch_end",
          "on_validation_epoch_start", "on_validation_epoch_end", "on_test_epoch_start", "on_test_epoch_end",
          "on_predict_epoch_start", "on_predict_epoch_end", "on_validation_batch_start", "on_validation_batch_end",
          "on_test_batch_start", "on_test_batch_end", "on_predict_batch_start", "on_predict_batch_end",
          "on_train_start", "on_train_end", "on_validation_start", "on_validation_end", "on_test_start",
          "on_test_end", "on_predict_start", "on_predict_end", "on_exception", "on_save_checkpoint",
          "on_load_checkpoint", "on_before_backward", "on_after_backward", "on_before_optimizer_step",
          "on_before_zero_grad")


class LambdaCallback(Callback):
    r"""Create a simple callback on the fly from functions (Lightning's ``LambdaCallback``).

    Each keyword names a hook and gives the function to call with that hook's arguments
    (``trainer, pl_module, ...``). Only the given hooks are run.

    Example::

        >>> LambdaCallback(on_train_epoch_end=lambda trainer, pl_module: print(trainer.current_epoch))
    """

    def __init__(self, **hooks: Callable) -> None:
        super().__init__()
        unknown = sorted(set(hooks) - set(_HOOKS))
        if unknown:
            raise TypeError(f"LambdaCallback got unknown hook names {unknown}; the hooks are {list(_HOOKS)}")
        for name, fn in hooks.items():
            if not callable(fn):
                raise TypeError(f"LambdaCallback({name}=...) must be callable, got {type(fn).__name__}")
        self._hooks = dict(hooks)
        # The Trainer calls a callback's hook only if its class overrides it, so each instance gets its own subclass
        # with exactly the given hooks (same name, so the state key stays "LambdaCallback").
        base = type(self)
        methods = {name: _forward(name) for name in hooks}
        cls = type(base.__name__, (base,), methods)
        cls.__qualname__ = base.__qualname__
        cls.__module__ = base.__module__
        self.__class__ = cls


def _forward(name: str):
    def hook(self, *args, **kwargs):
        return self._hooks[name](*args, **kwargs)
    hook.__name__ = name
    return hook
