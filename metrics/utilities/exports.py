"""One rule for the metric packages' ``__all__``: each file lists its own public names, and a package that
re-exports its files (``from .accuracy import *``) derives its ``__all__`` from theirs instead of repeating them."""
import sys
from typing import List

__all__ = ["submodule_exports"]


def submodule_exports(package: str) -> List[str]:
    """The ``__all__`` names of ``package``'s imported public submodules, file by file in alphabetical order."""
    names: List[str] = []
    for module_name in sorted(sys.modules):
        parent, _, leaf = module_name.rpartition(".")
        if parent == package and not leaf.startswith("_"):
            names += [n for n in getattr(sys.modules[module_name], "__all__", ()) if n not in names]
    return names
