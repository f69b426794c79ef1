"""ember: PyTorch + Lightning ergonomics on NumPy alone.

``import ember as em`` gives the tensor API (``em.tensor``, ``em.randn``, ``em.no_grad``, ...), the namespaces
``em.nn``, ``em.optim``, ``em.data``, ``em.autograd``, ``em.distributed``, ``em.fft``, ``em.linalg``,
``em.callbacks``, ``em.metrics`` and ``em.loggers``, and the training layer (``em.Trainer``,
``em.LightningModule``, ...). Everything beyond the tensor API loads on first use, so ``import ember`` stays fast.
"""
import builtins as _builtins
import importlib as _importlib
import importlib.abc as _abc
import importlib.util as _util
import sys as _sys

from .core import *  # noqa: F401,F403
from .core import __all__ as _core_all

__version__ = "0.1.0"

# name -> (module, attribute or None for the module itself)
_LAZY = {
    "nn": ("ember.core.nn", None),
    "optim": ("ember.core.optim", None),
    "data": ("ember.core.data", None),
    "distributed": ("ember.core.distributed", None),
    "fft": ("ember.core.fft", None),
    "linalg": ("ember.core.linalg", None),
    "metrics": ("ember.metrics", None),
    "callbacks": ("ember.callbacks", None),
    "loggers": ("ember.trainer.loggers", None),
    "trainer": ("ember.trainer", None),
    "utilities": ("ember.trainer.utilities", None),
    "save": ("ember.core.serialization", "save"),
    "load": ("ember.core.serialization", "load"),
    "Trainer": ("ember.trainer", "Trainer"),
    "LightningModule": ("ember.trainer", "LightningModule"),
    "LightningDataModule": ("ember.trainer", "LightningDataModule"),
    "Callback": ("ember.callbacks", "Callback"),
    "seed_everything": ("ember.core.data", "seed_everything"),
}


def __getattr__(name):
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'ember' has no attribute '{name}'")
    module = _importlib.import_module(target[0])
    value = module if target[1] is None else getattr(module, target[1])
    globals()[name] = value
    return value


# `import ember.nn` / `from ember.nn import functional` resolve to the real modules under ember.core, so both spellings
# name one module object (never two copies).
_ALIASED = {name: f"{__name__}.core.{name}" for name in
            ("nn", "optim", "data", "autograd", "distributed", "fft", "linalg", "random", "serialization")}
_ALIASED["loggers"] = f"{__name__}.trainer.loggers"
_ALIASED["utilities"] = f"{__name__}.trainer.utilities"


class _AliasLoader(_abc.Loader):
    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        return _importlib.import_module(self.target)

    def exec_module(self, module):
        pass


class _AliasFinder(_abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        parts = fullname.split(".")
        if len(parts) >= 2 and parts[0] == __name__ and parts[1] in _ALIASED:
            real = ".".join([_ALIASED[parts[1]]] + parts[2:])
            return _util.spec_from_loader(fullname, _AliasLoader(real))
        return None


if not _builtins.any(isinstance(f, _AliasFinder) for f in _sys.meta_path):  # `any` is ember's after import *
    _sys.meta_path.insert(0, _AliasFinder())


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = list(_core_all) + list(_LAZY)
