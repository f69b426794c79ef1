"""``ember.utils``: ``torch.utils``'s namespaces.

* ``ember.utils.data``: the same module as ``ember.data`` (``Dataset``, ``DataLoader``, ``TensorDataset``, ...);
* ``ember.utils.checkpoint``: activation checkpointing (recompute a forward in backward to save memory);
* ``ember.utils.benchmark``: ``Timer`` and ``Measurement`` for timing snippets;
* ``ember.utils.tensorboard``: ``SummaryWriter``;
* ``ember.utils.backcompat``: the legacy warning flags.

Each loads on first use, so ``import ember.utils`` imports none of them (and not tensorboardX).
"""
from ..core._lazy import lazy_attributes as _lazy_attributes

_SUBMODULES = ("data", "checkpoint", "benchmark", "tensorboard", "backcompat")

# ember.utils.data resolves to ember.core.data (the import alias in ember/__init__.py)
__getattr__, __dir__ = _lazy_attributes(globals(), {name: f".{name}" for name in _SUBMODULES})

__all__ = list(_SUBMODULES)
