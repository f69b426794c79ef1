"""``ModuleMode``: remember every submodule's ``training`` flag and put exactly those flags back.

Evaluation switches the whole model to eval mode; afterwards Lightning restores each submodule's own flag rather
than calling ``model.train()``, so a submodule the user froze in eval mode (a pretrained backbone) stays frozen.
"""
from __future__ import annotations

from typing import Dict

__all__ = ["ModuleMode"]


class ModuleMode:
    """Captures ``module.training`` for a module and all its submodules; :meth:`restore` puts them back."""

    def __init__(self) -> None:
        self.mode: Dict[str, bool] = {}

    def capture(self, module) -> None:
        """Record the ``training`` flag of ``module`` and of every named submodule."""
        self.mode = {name: m.training for name, m in module.named_modules()}

    def restore(self, module) -> None:
        """Set every recorded submodule back to its recorded flag (submodules added since keep theirs)."""
        for name, m in module.named_modules():
            if name in self.mode:
                m.training = self.mode[name]
