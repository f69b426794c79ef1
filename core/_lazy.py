"""Lazy package namespaces (PEP 562): the one helper behind every ``__getattr__`` that loads a submodule or a class
on first access, so that importing a package imports only what it uses."""
import importlib
from typing import Callable, Dict, List, Mapping, Optional, Tuple, Union

__all__ = ["lazy_attributes"]

Target = Union[str, Tuple[str, Optional[str]]]


def lazy_attributes(namespace: Dict[str, object], targets: Mapping[str, Target],
                    public_name: Optional[str] = None) -> Tuple[Callable[[str], object], Callable[[], List[str]]]:
    """The ``(__getattr__, __dir__)`` pair of a package whose ``targets`` load on first access.

    Args:
        namespace: the package's ``globals()``; a loaded value is stored there, so the next access is a plain
            global lookup and ``__getattr__`` is not called again.
        targets: public name -> ``"module"`` (the name is that module) or ``("module", "attr")`` (an attribute of
            it, ``None`` for the module itself). A module name starting with ``.`` is relative to the package.
        public_name: the package's name in error messages (``ember.loggers`` for ``ember.trainer.loggers``).

    Example::

        __getattr__, __dir__ = lazy_attributes(globals(), {"nn": ".nn", "Trainer": (".trainer", "Trainer")})
    """
    package = namespace["__name__"]
    shown = public_name or package
    table = {name: (t, None) if isinstance(t, str) else tuple(t) for name, t in targets.items()}

    def __getattr__(name: str):
        target = table.get(name)
        if target is None:
            raise AttributeError(f"module '{shown}' has no attribute '{name}'")
        module_name, attr = target
        module = importlib.import_module(module_name, package)
        value = module if attr is None else getattr(module, attr)
        namespace[name] = value
        return value

    def __dir__() -> List[str]:
        return sorted(set(namespace) | set(table))

    return __getattr__, __dir__
