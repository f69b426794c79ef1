"""``ember.loggers``: experiment loggers (TensorBoard by default, CSV)."""
from ...core._lazy import lazy_attributes as _lazy_attributes
from .logger import DummyLogger, Logger, rank_zero_experiment

__all__ = ["Logger", "DummyLogger", "rank_zero_experiment", "TensorBoardLogger", "CSVLogger"]


__getattr__, __dir__ = _lazy_attributes(globals(), {"TensorBoardLogger": (".tensorboard", "TensorBoardLogger"),
                                                   "CSVLogger": (".csv_logs", "CSVLogger")},
                                       public_name="ember.loggers")
