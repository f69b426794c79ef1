"""Exceptions raised by the training layer."""

__all__ = ["MisconfigurationException"]


class MisconfigurationException(Exception):
    """A Trainer flag, a hook or a returned value is configured in a way that cannot work; the message says how to
    fix it."""
