"""``Checkpoint``: the base class the Trainer recognizes as a checkpointing callback."""
from __future__ import annotations

from .callback import Callback

__all__ = ["Checkpoint"]


class Checkpoint(Callback):
    """Base class for checkpointing callbacks (:class:`ModelCheckpoint`, :class:`OnExceptionCheckpoint`).

    Subclass it when you write your own checkpointing callback: the Trainer finds checkpoint callbacks by this base
    (``trainer.checkpoint_callbacks``), runs them after all other callbacks, and runs their ``on_train_epoch_end``
    after the LightningModule's so that they can monitor values logged there.
    """

    _monitors_metrics = True


def _misconfigured(message: str) -> Exception:
    """A ``MisconfigurationException`` with ``message`` (from the module callbacks and the trainer share)."""
    from ..exceptions import MisconfigurationException
    return MisconfigurationException(message)
