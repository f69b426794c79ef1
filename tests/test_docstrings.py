"""Every public name of ember's API has a docstring (functions, classes and their public methods)."""
import importlib
import inspect

import pytest

NAMESPACES = ["ember", "ember.nn", "ember.nn.functional", "ember.nn.init", "ember.nn.utils", "ember.optim",
              "ember.optim.lr_scheduler", "ember.data", "ember.autograd", "ember.fft", "ember.linalg",
              "ember.metrics", "ember.metrics.functional", "ember.callbacks", "ember.loggers", "ember.trainer",
              "ember.cuda", "ember.cuda.amp", "ember.multiprocessing", "ember.backends.cuda", "ember.backends.cudnn",
              "ember.backends.mps", "ember.nn.attention", "ember.utils.benchmark", "ember.utils.checkpoint",
              "ember.utils.backcompat",
              "ember.profiler", "ember.profilers", "ember.amp", "ember.accelerator", "ember.testing",
              "ember.special", "ember.distributions", "ember.autograd.functional", "ember.func",
              "ember.nn.utils.stateless", "ember.nn.utils.parametrize", "ember.nn.utils.parametrizations"]


def _public(module):
    names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    for name in names:
        try:
            obj = getattr(module, name)
        except AttributeError:
            continue
        if inspect.ismodule(obj) or not (inspect.isclass(obj) or callable(obj)):
            continue
        yield name, obj


def _own(obj) -> bool:
    mod = getattr(obj, "__module__", "") or ""
    return mod.startswith("ember")


def _missing():
    missing = set()
    for ns in NAMESPACES:
        module = importlib.import_module(ns)
        for name, obj in _public(module):
            if not _own(obj):
                continue
            if not (obj.__doc__ or "").strip():
                missing.add(f"{ns}.{name}")
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith("_") or not (inspect.isfunction(member) or isinstance(member, property)):
                        continue
                    if not (getattr(member, "__doc__", None) or "").strip() and not _documented_in_base(obj, attr):
                        missing.add(f"{obj.__module__}.{obj.__qualname__}.{attr}")
    return sorted(missing)


def _documented_in_base(cls, attr) -> bool:
    for base in cls.__mro__[1:]:
        member = vars(base).get(attr)
        if member is not None and (getattr(member, "__doc__", None) or "").strip():
            return True
    return False


def test_every_public_name_has_a_docstring():
    missing = _missing()
    assert missing == [], f"{len(missing)} public names without a docstring:\n" + "\n".join(missing)
