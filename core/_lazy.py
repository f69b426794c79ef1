"""Lazy loading, in one place: package namespaces (PEP 562) whose submodules and classes load on first access, and
tables of functions that a higher module fills when it loads, so that importing a package imports only what it
uses."""
import importlib
from typing import Callable, Dict, List, Mapping, Optional, Tuple, Union

__all__ = ["lazy_attributes", "LazyTable"]

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


class LazyTable:
    """Functions that the module ``provider`` registers when it loads, looked up as attributes (``table.inv``).

    A lower layer calls up into a higher one through it without importing it: the higher module fills the table
    (:meth:`register`) as it is imported, and a lookup before that imports ``provider`` first. So ``ops`` can call
    ``linalg`` (which is built from ops) without an upward import, and ``import ember`` does not pay for ``linalg``.

    Args:
        provider: the module that fills the table; a name starting with ``.`` is relative to ``package``.
        package: the anchor for a relative ``provider`` (the caller's ``__package__``).
    """

    def __init__(self, provider: str, package: Optional[str] = None):
        self._provider, self._package = provider, package
        self._sources: Dict[str, Dict[str, object]] = {}  # name -> the namespace that defines it

    def register(self, namespace: Dict[str, object], names: List[str]) -> None:
        """Publish ``names`` of ``namespace`` (the provider's ``globals()``). A lookup reads the namespace each time,
        so the function called is whatever the module binds under that name now (core/observe.py's wrapper while
        an observer watches the ops, so nested calls stay visible)."""
        missing = [name for name in names if name not in namespace]
        if missing:
            raise KeyError(f"cannot register {missing}: not defined in {namespace.get('__name__')}")
        self._sources.update((name, namespace) for name in names)

    def __getattr__(self, name: str):
        if name.startswith("_"):  # private attributes are real ones; reaching here means they are not set yet
            raise AttributeError(name)
        source = self._sources.get(name)
        if source is None:
            importlib.import_module(self._provider, self._package)  # registers on import
            source = self._sources.get(name)
            if source is None:
                raise AttributeError(f"{self._provider} registered no function '{name}'")
        return source[name]
