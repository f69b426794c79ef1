"""``ember.loggers``: experiment loggers (TensorBoard by default, CSV)."""
from .logger import DummyLogger, Logger, rank_zero_experiment

__all__ = ["Logger", "DummyLogger", "rank_zero_experiment", "TensorBoardLogger", "CSVLogger"]


def __getattr__(name):
    if name == "TensorBoardLogger":
        from .tensorboard import TensorBoardLogger
        return TensorBoardLogger
    if name == "CSVLogger":
        from .csv_logs import CSVLogger
        return CSVLogger
    raise AttributeError(f"module 'ember.loggers' has no attribute '{name}'")
