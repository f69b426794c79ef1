"""``ember.utils.backcompat``: the legacy warning flags of ``torch.utils.backcompat``.

``broadcast_warning.enabled`` and ``keepdim_warning.enabled`` are switches PyTorch 0.x used to warn about changed
broadcasting and ``keepdim`` defaults. Modern PyTorch keeps them as settable flags that change nothing; so does
ember.
"""

__all__ = ["broadcast_warning", "keepdim_warning"]


class Warning:  # noqa: A001  (PyTorch's name for these flag objects)
    """A settable ``enabled`` flag (False by default)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._enabled = False

    @property
    def enabled(self) -> bool:
        """Whether the legacy warning is switched on."""
        return self._enabled

    @enabled.setter
    def enabled(self, value: bool) -> None:
        self._enabled = bool(value)

    def __repr__(self) -> str:
        return f"<backcompat.Warning {self.name} enabled={self._enabled}>"


broadcast_warning = Warning("broadcast_warning")
keepdim_warning = Warning("keepdim_warning")
