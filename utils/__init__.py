"""``ember.utils``: helpers outside the tensor engine, as ``torch.utils`` (``ember.utils.tensorboard``, ...).

Sub-modules are imported on first access, so ``import ember`` stays fast.
"""
import importlib as _importlib

__all__ = ["tensorboard"]


def __getattr__(name):
    if name in __all__:
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
