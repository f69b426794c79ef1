"""Exceptions shared by the training layer and the callbacks (a neutral module both may import)."""

__all__ = ["MisconfigurationException", "PossibleUserWarning"]


class MisconfigurationException(Exception):
    """A Trainer flag, a hook or a returned value is configured in a way that cannot work; the message says how to
    fix it."""


class PossibleUserWarning(UserWarning):
    """A warning about something that is often, but not always, a mistake (Lightning's category, so it can be
    filtered on its own)."""
