"""``ember.utils``: ``torch.utils``'s namespaces.

* ``ember.utils.data``: the same module as ``ember.data`` (``Dataset``, ``DataLoader``, ``TensorDataset``, ...);
* ``ember.utils.checkpoint``: activation checkpointing (recompute a forward in backward to save memory);
* ``ember.utils.benchmark``: ``Timer`` and ``Measurement`` for timing snippets;
* ``ember.utils.tensorboard``: ``SummaryWriter``;
* ``ember.utils.backcompat``: the legacy warning flags.

Each loads on first use, so ``import ember.utils`` imports none of them (and not tensorboardX).
"""
import importlib as _importlib

_SUBMODULES = ("data", "checkpoint", "benchmark", "tensorboard", "backcompat")


def __getattr__(name):
    if name in _SUBMODULES:
        module = _importlib.import_module(f"{__name__}.{name}")  # ember.utils.data resolves to ember.core.data
        globals()[name] = module
        return module
    raise AttributeError(f"module 'ember.utils' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_SUBMODULES))


__all__ = list(_SUBMODULES)
