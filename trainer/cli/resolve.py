"""Turning a ``class_path`` into a class: dotted imports, short names for ember's own classes, and the config's
directory on the import path (so ``model.MyModel`` finds the ``model.py`` beside ``config.yaml``)."""
from __future__ import annotations

import importlib
import inspect
import os
import sys
import traceback
from typing import Dict, List, Optional

from .errors import ConfigError, suggest

__all__ = ["ClassResolver", "SHORT_NAME_GROUPS", "canonical_path", "group_names"]

# Short names: group -> the package whose ``__all__`` lists them (its public classes are the group's short names, so
# a class added to a package's ``__all__`` is a short name at once). Loaded only when a short name is looked up.
SHORT_NAME_GROUPS: Dict[str, str] = {
    "callbacks": "ember.callbacks",
    "loggers": "ember.trainer.loggers",
    "optimizers": "ember.core.optim",
    "lr_schedulers": "ember.core.optim.lr_scheduler",
    "trainer": "ember.trainer",
    "nn": "ember.core.nn",
    "metrics": "ember.metrics",
}

# Where PyTorch, Lightning and torchmetrics keep what ember has under another module: a config written for
# LightningCLI (``class_path: lightning.pytorch.callbacks.EarlyStopping``) runs unchanged.
_FOREIGN_PREFIXES = (
    ("lightning.pytorch.callbacks", "callbacks"), ("pytorch_lightning.callbacks", "callbacks"),
    ("lightning.pytorch.loggers", "loggers"), ("pytorch_lightning.loggers", "loggers"),
    ("torch.optim.lr_scheduler", "lr_schedulers"), ("torch.optim", "optimizers"),
    ("torch.nn", "nn"), ("torchmetrics", "metrics"),
    ("lightning.pytorch", "trainer"), ("pytorch_lightning", "trainer"), ("lightning", "trainer"),
)

# Public homes of ember's classes, used when a resolved config is printed.
_PUBLIC_MODULES = ("ember.callbacks", "ember.loggers", "ember.optim.lr_scheduler", "ember.optim", "ember.nn",
                   "ember.metrics", "ember")


def group_names(group: str) -> List[str]:
    """The short names of ``group``: the classes its package lists in ``__all__``."""
    module = importlib.import_module(SHORT_NAME_GROUPS[group])
    return [n for n in getattr(module, "__all__", dir(module)) if inspect.isclass(getattr(module, n, None))]


def canonical_path(cls) -> str:
    """The dotted path printed for ``cls``: its public ember path (``ember.callbacks.EarlyStopping``) when it has
    one, else ``module.QualName``."""
    module = cls.__module__
    if module.startswith("ember."):
        for public in _PUBLIC_MODULES:
            mod = sys.modules.get(public) or _try_import(public)
            if mod is not None and getattr(mod, cls.__name__, None) is cls:
                return f"{public}.{cls.__name__}"
    return f"{module}.{cls.__qualname__}"


def _try_import(name: str):
    try:
        return importlib.import_module(name)
    except Exception:
        return None


def _where_raised(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    frames = [f for f in frames if "importlib" not in f.filename and "/trainer/cli/" not in f.filename]
    if not frames:
        return ""
    f = frames[-1]
    return f" ({os.path.basename(f.filename)}:{f.lineno})"


class ClassResolver:
    """Resolves ``class_path`` strings, with ``search_dirs`` (the configs' directories, then the working
    directory) importable."""

    def __init__(self, search_dirs: Optional[List[str]] = None) -> None:
        self.search_dirs: List[str] = []
        for d in (search_dirs or []) + [os.getcwd()]:
            d = os.path.abspath(d)
            if d not in self.search_dirs:
                self.search_dirs.append(d)
        self._added: List[str] = []
        self.used_dirs: List[str] = []  # the search directories user classes were actually imported from

    def add_dirs(self, dirs: List[str]) -> None:
        """Search ``dirs`` first (a saved config's ``import_paths``)."""
        for d in reversed([os.path.abspath(d) for d in dirs]):
            if d in self.search_dirs:
                self.search_dirs.remove(d)
            self.search_dirs.insert(0, d)
        if self._added:  # already on sys.path: put the new order there too
            self.deactivate()
            self.activate()

    # ------------------------------------------------------------------------------------------- import path
    def activate(self) -> None:
        """Put the search directories at the front of ``sys.path``."""
        for d in reversed(self.search_dirs):
            if d not in sys.path:
                sys.path.insert(0, d)
                self._added.append(d)

    def deactivate(self) -> None:
        """Undo :meth:`activate`."""
        for d in self._added:
            try:
                sys.path.remove(d)
            except ValueError:
                pass
        self._added = []

    def _source_dir(self, top: str) -> Optional[str]:
        for d in self.search_dirs:
            if os.path.isfile(os.path.join(d, top + ".py")) or os.path.isfile(os.path.join(d, top, "__init__.py")):
                return d
        return None

    def _refresh(self, top: str) -> None:
        """If ``top`` was imported earlier from another directory (two examples each with a ``model.py``), forget
        it so that the one beside this config is imported."""
        loaded = sys.modules.get(top)
        if loaded is None:
            return
        source_dir = self._source_dir(top)
        if source_dir is None:
            return
        path = getattr(loaded, "__file__", None) or ""
        if os.path.abspath(path).startswith(source_dir + os.sep):
            return
        for name in [m for m in sys.modules if m == top or m.startswith(top + ".")]:
            del sys.modules[name]

    # ----------------------------------------------------------------------------------------------- lookup
    def resolve(self, class_path: str, base: Optional[type] = None, group: Optional[str] = None,
                where: Optional[str] = None, key: str = "class_path") -> type:
        """The class named by ``class_path``; raises :class:`ConfigError` naming the module or attribute that
        failed.

        Args:
            class_path: a dotted path (``model.MyModel``, ``ember.callbacks.EarlyStopping``) or, for ember's own
                classes, a short name (``EarlyStopping``, ``Adam``, ``StepLR``).
            base: the class it must subclass (LightningModule for ``model``, Callback for callbacks, ...).
            group: the short-name group tried first (``"callbacks"``, ``"optimizers"``, ...).
            where: ``file:line`` for error messages.
            key: the config key, for error messages.
        """
        if not isinstance(class_path, str) or not class_path.strip():
            raise ConfigError(f"'{key}' must be a class name or dotted import path, got {class_path!r}",
                              where=where)
        class_path = class_path.strip()
        cls = self._foreign(class_path, group)
        if cls is None and "." not in class_path:
            cls = self._short(class_path, base, group, where, key)
        if cls is None:
            cls = self._import(class_path, where, key)
        if not inspect.isclass(cls):
            raise ConfigError(f"'{class_path}' ({key}) is a {type(cls).__name__}, not a class", where=where)
        if base is not None and not issubclass(cls, base):
            raise ConfigError(f"'{class_path}' ({key}) is not a subclass of {base.__name__}", where=where)
        return cls

    def _foreign(self, class_path: str, group: Optional[str]):
        for prefix, grp in _FOREIGN_PREFIXES:
            if class_path.startswith(prefix + "."):
                name = class_path.rsplit(".", 1)[1]
                for g in ([grp] + ([group] if group else [])):
                    if name in group_names(g):
                        return getattr(importlib.import_module(SHORT_NAME_GROUPS[g]), name)
        return None

    def _short(self, name: str, base, group, where, key):
        groups = ([group] if group else []) + [g for g in SHORT_NAME_GROUPS if g != group]
        known: List[str] = []
        for g in groups:
            names = group_names(g)
            if name in names:
                cls = getattr(importlib.import_module(SHORT_NAME_GROUPS[g]), name)
                if base is None or (inspect.isclass(cls) and issubclass(cls, base)):
                    return cls
            known += names
        if base is not None:  # already-imported subclasses may be named by class name, as in LightningCLI
            stack, seen = [base], set()
            while stack:
                klass = stack.pop()
                for sub in klass.__subclasses__():
                    if sub not in seen:
                        seen.add(sub)
                        stack.append(sub)
                        if sub.__name__ == name:
                            return sub
                        known.append(sub.__name__)
        if group:
            known = group_names(group) + known
        close = suggest(name, known)
        hint = f"; did you mean '{close}'?" if close else ""
        what = f"one of ember's {group.replace('_', ' ')}" if group else "one of ember's classes"
        raise ConfigError(f"cannot resolve '{name}' ({key}): it is not a dotted import path (module.Class) and not "
                          f"{what}{hint}", where=where)

    def _import(self, class_path: str, where, key):
        parts = class_path.split(".")
        self.activate()
        self._refresh(parts[0])
        source_dir = self._source_dir(parts[0])
        if source_dir is not None and source_dir not in self.used_dirs:
            self.used_dirs.append(source_dir)
        module = None
        for cut in range(len(parts) - 1, 0, -1):
            module_name = ".".join(parts[:cut])
            try:
                module = importlib.import_module(module_name)
            except ModuleNotFoundError as exc:
                missing = exc.name or ""
                if module_name == missing or module_name.startswith(missing + "."):
                    continue  # maybe a class nested in a shorter module path
                raise ConfigError(f"cannot import '{class_path}' ({key}): importing module '{module_name}' failed: "
                                  f"{type(exc).__name__}: {exc}{_where_raised(exc)}", where=where) from exc
            except Exception as exc:
                raise ConfigError(f"cannot import '{class_path}' ({key}): importing module '{module_name}' failed: "
                                  f"{type(exc).__name__}: {exc}{_where_raised(exc)}", where=where) from exc
            obj = module
            for i, attr in enumerate(parts[cut:]):
                if not hasattr(obj, attr):
                    owner = ".".join(parts[:cut + i])
                    names = [n for n in dir(obj) if not n.startswith("_")]
                    close = suggest(attr, names)
                    hint = f"; did you mean '{close}'?" if close else ""
                    kind = "module" if inspect.ismodule(obj) else "class"
                    raise ConfigError(f"cannot import '{class_path}' ({key}): {kind} '{owner}' has no attribute "
                                      f"'{attr}'{hint}", where=where)
                obj = getattr(obj, attr)
            return obj
        raise ConfigError(f"cannot import '{class_path}' ({key}): no module named '{parts[0]}'", where=where)
