"""Errors raised by the metrics package."""


class MetricsUserError(RuntimeError):
    """A metric was used in a way its state machine does not allow (e.g. ``forward`` while synced, syncing twice)."""
