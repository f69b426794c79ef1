"""``ember.trainer``: the Trainer, LightningModule, LightningDataModule, loops, logging, loggers and checkpoints."""
import logging as _logging

from .datamodule import LightningDataModule
from .exceptions import MisconfigurationException
from .module import LightningModule
from .states import RunningStage, TrainerFn, TrainerState, TrainerStatus
from .trainer import Trainer

__all__ = ["Trainer", "LightningModule", "LightningDataModule", "MisconfigurationException", "TrainerState",
           "TrainerStatus", "TrainerFn", "RunningStage"]

# Lightning prints its run messages ("`Trainer.fit` stopped: `max_epochs=3` reached.") through a logger with a
# stderr handler; so does ember, unless the application configured logging itself.
_log = _logging.getLogger("ember.trainer")
if not _log.handlers:
    _log.addHandler(_logging.StreamHandler())
    _log.setLevel(_logging.INFO)
    _log.propagate = False
