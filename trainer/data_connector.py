"""Where dataloaders come from and how many batches each loop runs.

Dataloaders passed to ``fit``/``validate``/... win over a datamodule's, which win over the LightningModule's
``*_dataloader`` hooks. ``limit_*_batches`` (int count or float fraction) and ``overfit_batches`` cap the batch
counts.
"""
from __future__ import annotations

import math
import numbers
import warnings
from typing import Any, List

from .call import call_module_hook, is_overridden
from .exceptions import MisconfigurationException
from .states import RunningStage

__all__ = ["DataConnector", "as_loader_list", "num_batches"]


def as_loader_list(loaders) -> List[Any]:
    """A single loader, a list/tuple of loaders or a dict of them, as a list."""
    if loaders is None:
        return []
    if isinstance(loaders, dict):
        return list(loaders.values())
    if isinstance(loaders, (list, tuple)):
        return list(loaders)
    return [loaders]


def _length(loader) -> float:
    try:
        return len(loader)
    except (TypeError, NotImplementedError):  # no __len__, or one that says the length is unknown: a stream
        return math.inf


def num_batches(loader, limit) -> float:
    """How many batches of ``loader`` a loop runs under ``limit`` (an int count or a float fraction)."""
    n = _length(loader)
    if isinstance(limit, bool):
        raise MisconfigurationException(f"limit_*_batches must be an int or a float, got {limit!r}")
    if isinstance(limit, numbers.Integral):
        return min(n, int(limit))
    if n == math.inf:
        if limit == 1.0:
            return math.inf
        raise MisconfigurationException("When using an `IterableDataset`, `Trainer(limit_train_batches)` must be "
                                        "`1.0` or an int. An int specifies `num_training_batches` to use.")
    batches = int(n * limit)
    if limit > 0 and batches == 0 and n > 0:
        raise MisconfigurationException(
            f"You requested to check {limit} of the dataloader but {limit} * {n} < 1. Please increase the "
            "`limit_*_batches` argument. Try at least {:.2f}".format(1 / n))
    return batches


def _datamodule_provides(dm, prefix: str) -> bool:
    """True if the datamodule defines ``<prefix>_dataloader`` (as a method or, via from_datasets, an attribute)."""
    if dm is None:
        return False
    from .datamodule import LightningDataModule
    return f"{prefix}_dataloader" in vars(dm) or is_overridden(f"{prefix}_dataloader", dm, LightningDataModule)


class DataConnector:
    """Resolves the dataloaders of each stage from the Trainer call, the datamodule or the module."""

    def __init__(self, trainer):
        self.trainer = trainer
        self._sources = {}
        self._has = {}

    def attach(self, model, datamodule=None, train=None, val=None, test=None, predict=None) -> None:
        """Remember where each stage's loaders come from for this run."""
        self._sources = {"train": train, "val": val, "test": test, "predict": predict}
        self._has = {}
        self.trainer.datamodule = datamodule
        if datamodule is not None:
            datamodule.trainer = self.trainer

    def _source_has(self, prefix: str) -> bool:
        if self._sources.get(prefix) is not None:
            return True
        trainer = self.trainer
        if _datamodule_provides(trainer.datamodule, prefix):
            return True
        from .module import LightningModule
        return is_overridden(f"{prefix}_dataloader", trainer.lightning_module, LightningModule)

    def has_loaders(self, prefix: str) -> bool:
        """True if the stage has any dataloader source (cached for the run: it is asked every batch)."""
        has = self._has.get(prefix)
        if has is None:
            has = self._has[prefix] = self._source_has(prefix)
        return has

    def request(self, prefix: str) -> List[Any]:
        """Build the list of loaders of a stage (``train``, ``val``, ``test``, ``predict``)."""
        passed = self._sources.get(prefix)
        if passed is not None:
            loaders = as_loader_list(passed)
        else:
            trainer = self.trainer
            dm = trainer.datamodule
            if _datamodule_provides(dm, prefix):
                loaders = as_loader_list(getattr(dm, f"{prefix}_dataloader")())
            else:
                loaders = as_loader_list(call_module_hook(trainer, f"{prefix}_dataloader"))
        loaders = [self.trainer.strategy.process_dataloader(dl, shuffle=(prefix == "train")) for dl in loaders]
        if prefix == "train" and self.trainer.overfit_batches > 0:
            loaders = [self._without_shuffle(dl) for dl in loaders]
        return loaders

    @staticmethod
    def _without_shuffle(loader):
        from ..core.data import DataLoader, RandomSampler
        if isinstance(loader, DataLoader) and isinstance(loader.sampler, RandomSampler):
            warnings.warn("You requested to overfit but enabled train dataloader shuffling. We are turning off the "
                          "train dataloader shuffling for you.")
            return DataLoader(loader.dataset, batch_size=loader.batch_size, shuffle=False,
                              num_workers=loader.num_workers, collate_fn=loader.collate_fn,
                              drop_last=loader.drop_last)
        return loader

    def limit_for(self, stage: RunningStage):
        """The ``limit_*_batches`` flag that applies to ``stage``."""
        t = self.trainer
        if stage == RunningStage.TRAINING:
            return t.limit_train_batches
        if stage == RunningStage.SANITY_CHECKING:
            return t.num_sanity_val_steps if t.num_sanity_val_steps != -1 else t.limit_val_batches
        if stage == RunningStage.VALIDATING:
            return t.limit_val_batches
        if stage == RunningStage.TESTING:
            return t.limit_test_batches
        return t.limit_predict_batches

    def batch_counts(self, loaders: List[Any], stage: RunningStage) -> List[float]:
        """Batches to run per loader under the stage's limit (the sanity check caps each loader)."""
        limit = self.limit_for(stage)
        counts = []
        for dl in loaders:
            if stage == RunningStage.SANITY_CHECKING:
                counts.append(min(num_batches(dl, self.trainer.limit_val_batches), limit))
            else:
                counts.append(num_batches(dl, limit))
        return counts


def validate_limit(name: str, value) -> Any:
    """Check a ``limit_*_batches``/``overfit_batches`` flag: an int >= 0 or a float in [0, 1] (a whole float
    above 1, such as 5.0, is a number of batches, as in Lightning)."""
    if value is None:
        return 1.0
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise MisconfigurationException(f"`{name}` must be an int or a float, got {value!r}")
    if isinstance(value, float) and value > 1.0 and value % 1.0 == 0:
        return int(value)
    if isinstance(value, float) and not 0.0 <= value <= 1.0:
        raise MisconfigurationException(f"You have passed invalid value {value} for {name}, it has to be in "
                                        "[0.0, 1.0] or an int.")
    if isinstance(value, numbers.Integral) and value < 0:
        raise MisconfigurationException(f"`{name}` must be >= 0, got {value}")
    return value

