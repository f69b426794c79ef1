"""ember: PyTorch + Lightning ergonomics on NumPy alone.

``import ember as em`` gives the tensor API (``em.tensor``, ``em.randn``, ``em.no_grad``, ...), the namespaces
``em.nn``, ``em.optim``, ``em.data``, ``em.autograd``, ``em.distributed``, ``em.fft``, ``em.linalg``,
``em.callbacks``, ``em.metrics`` and ``em.loggers``, PyTorch's ``em.utils``, ``em.cuda``, ``em.multiprocessing``
and ``em.backends``, and the training layer (``em.Trainer``, ``em.LightningModule``, ...). Everything beyond
the tensor API loads on first use, so ``import ember`` stays fast.
"""
import builtins as _builtins
import importlib as _importlib
import importlib.abc as _abc
import importlib.util as _util
import sys as _sys

from .core import *  # noqa: F401,F403
from .core import __all__ as _core_all
from .core._lazy import lazy_attributes as _lazy_attributes

from .core.version import __version__

# name -> (module, attribute or None for the module itself)
_LAZY = {
    "nn": ("ember.core.nn", None),
    "optim": ("ember.core.optim", None),
    "data": ("ember.core.data", None),
    "distributed": ("ember.core.distributed", None),
    "fft": ("ember.core.fft", None),
    "linalg": ("ember.core.linalg", None),
    "cuda": ("ember.core.cuda", None),
    "multiprocessing": ("ember.core.multiprocessing", None),
    "backends": ("ember.core.backends", None),
    "utils": ("ember.utils", None),
    "profiler": ("ember.core.profiler", None),
    "profilers": ("ember.trainer.profilers", None),
    "onnx": ("ember.core.onnx", None),
    "amp": ("ember.core.amp", None),
    "autocast": ("ember.core.amp.autocast_mode", "autocast"),
    "is_autocast_enabled": ("ember.core.amp.autocast_mode", "is_autocast_enabled"),
    "accelerator": ("ember.core.accelerator", None),
    "version": ("ember.core.version", None),
    "testing": ("ember.core.testing", None),
    "special": ("ember.core.special", None),
    "distributions": ("ember.core.distributions", None),
    "func": ("ember.core.func", None),
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
    "seed_everything": ("ember.core.seed", "seed_everything"),
}
# torch's top-level names for nn.functional ops whose leading arguments are the functional form's (``torch.conv2d``,
# ``torch.cosine_similarity``...), loaded with nn on first use. Not aliased: the ones whose torch-level signature
# differs (``torch.embedding(weight, input)``, ``torch.batch_norm``'s order, losses taking an int ``reduction``).
_FUNCTIONAL_ALIASES = (
    "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "max_pool1d", "max_pool2d", "max_pool1d_with_indices",
    "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d", "dropout", "alpha_dropout", "feature_alpha_dropout",
    "layer_norm", "group_norm", "relu_", "selu", "selu_", "celu", "celu_", "threshold", "threshold_", "hardshrink",
    "prelu", "rrelu", "rrelu_", "pixel_shuffle", "pixel_unshuffle", "cosine_similarity", "pairwise_distance",
    "pdist", "bilinear", "rms_norm")
_LAZY.update({name: ("ember.core.nn.functional", name) for name in _FUNCTIONAL_ALIASES})


__getattr__, __dir__ = _lazy_attributes(globals(), _LAZY)


# `import ember.nn` / `from ember.nn import functional` resolve to the real modules under ember.core, so both spellings
# name one module object (never two copies).
_ALIASED = {name: f"{__name__}.core.{name}" for name in
            ("nn", "optim", "data", "autograd", "distributed", "fft", "linalg", "random", "serialization", "cuda",
             "multiprocessing", "backends", "return_types", "profiler",
             "onnx", "amp", "accelerator", "version", "testing", "special",
             "distributions", "func")}
_ALIASED["loggers"] = f"{__name__}.trainer.loggers"
_ALIASED["profilers"] = f"{__name__}.trainer.profilers"
_ALIASED["utils.data"] = f"{__name__}.core.data"  # torch.utils.data is ember.data
_ALIASED["utilities"] = f"{__name__}.trainer.utilities"


class _AliasLoader(_abc.Loader):
    """Loads ``ember.<alias>...`` as the real module, keeping that module's own spec (its name and file)."""

    def __init__(self, target, real_spec):
        self.target = target
        self.real_spec = real_spec

    def create_module(self, spec):
        return _importlib.import_module(self.target)

    def exec_module(self, module):
        module.__spec__ = self.real_spec  # the import system stamped the alias spec on the shared module

    def get_code(self, fullname):
        # runpy (`python -m ember.distributed.run`) runs the real module's code under the alias name
        return self.real_spec.loader.get_code(self.target)

    def is_package(self, fullname):
        return self.real_spec.submodule_search_locations is not None


class _AliasFinder(_abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        parts = fullname.split(".")
        if len(parts) < 2 or parts[0] != __name__:
            return None
        head = ".".join(parts[1:3])  # a two-part alias ("utils.data") wins over a one-part one
        depth = 2 if head in _ALIASED and len(parts) >= 3 else 1
        prefix = ".".join(parts[1:1 + depth])
        if prefix not in _ALIASED:
            return None
        real = ".".join([_ALIASED[prefix]] + parts[1 + depth:])
        real_spec = _util.find_spec(real)
        if real_spec is None:
            return None
        return _util.spec_from_loader(fullname, _AliasLoader(real, real_spec), origin=real_spec.origin,
                                      is_package=real_spec.submodule_search_locations is not None)


if not _builtins.any(isinstance(f, _AliasFinder) for f in _sys.meta_path):  # `any` is ember's after import *
    _sys.meta_path.insert(0, _AliasFinder())


__all__ = list(_core_all) + list(_LAZY)
