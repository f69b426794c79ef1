"""Exceptions raised by the training layer (defined in the neutral ``ember.exceptions``, shared with callbacks)."""
from ..exceptions import MisconfigurationException

__all__ = ["MisconfigurationException"]
