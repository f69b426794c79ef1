"""Turning the Trainer's ``logger`` flag into a list of loggers."""
from __future__ import annotations

from typing import Any, List

from ..exceptions import MisconfigurationException
from .logger import Logger

__all__ = ["configure_loggers"]


def default_logger(save_dir: str) -> Logger:
    """TensorBoardLogger when tensorboardX is installed (it is a dependency), else CSVLogger."""
    import importlib.util
    if importlib.util.find_spec("tensorboardX") is None:  # checked without importing it (that costs ~0.1 s)
        from .csv_logs import CSVLogger
        return CSVLogger(save_dir=save_dir)
    from .tensorboard import TensorBoardLogger
    return TensorBoardLogger(save_dir=save_dir)


def configure_loggers(trainer, logger) -> List[Any]:
    """``True``/None: the default logger; False: none; a Logger or a list of them: those."""
    if logger is None or logger is True:
        return [default_logger(trainer.default_root_dir)]
    if logger is False:
        return []
    loggers = list(logger) if isinstance(logger, (list, tuple)) else [logger]
    for lg in loggers:
        if not isinstance(lg, Logger) and not callable(getattr(lg, "log_metrics", None)):
            raise MisconfigurationException(f"`Trainer(logger=...)` got {type(lg).__name__}: give True, False, a "
                                            "Logger, or a list of Loggers")
    return loggers
