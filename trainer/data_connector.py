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

__all__ = ["DataConnector", "num_batches"]


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

    def _raw(self, prefix: str) -> Any:
        """What the stage's source returns: the Trainer argument, else the datamodule's or module's hook."""
        passed = self._sources.get(prefix)
        if passed is not None:
            return passed
        trainer = self.trainer
        dm = trainer.datamodule
        if _datamodule_provides(dm, prefix):
            return getattr(dm, f"{prefix}_dataloader")()
        return call_module_hook(trainer, f"{prefix}_dataloader")

    def _prepare(self, loader, prefix: str):
        from .data_checks import check_dataloader
        trainer = self.trainer
        loader = trainer.strategy.process_dataloader(loader, shuffle=(prefix == "train"))
        if prefix in ("train", "val") and trainer.overfit_batches > 0:
            loader = self._without_shuffle(loader, prefix)
        check_dataloader(loader, f"{prefix}_dataloader", trainer.num_devices)
        return loader

    def request_train(self) -> Any:
        """The train loader: one loader, or a :class:`CombinedLoader` when several are given (a list, a dict or a
        nested collection of loaders, combined in ``"max_size_cycle"`` mode as in Lightning)."""
        from .utilities.combined_loader import CombinedLoader
        raw = self._raw("train")
        if isinstance(raw, CombinedLoader):
            if raw.mode not in ("max_size_cycle", "min_size"):
                raise ValueError(f'`FitLoop` only supports the `CombinedLoader(mode="max_size_cycle" | "min_size")` '
                                 f"modes, got mode={raw.mode!r}.")
            combined = raw
        elif isinstance(raw, (list, tuple, dict)):
            combined = CombinedLoader(raw, "max_size_cycle")
        elif raw is None:
            return None
        else:
            return self._prepare(raw, "train")
        flat = combined.flattened
        prepared = [self._prepare(dl, "train") for dl in flat]
        if any(p is not dl for p, dl in zip(prepared, flat)):
            limits, combined = combined.limits, CombinedLoader(combined._rebuild(prepared), combined.mode)
            combined.limits = limits
        return combined

    def request(self, prefix: str) -> List[Any]:
        """The loaders of an evaluation or predict stage (``val``, ``test``, ``predict``) as a flat list: a
        collection of loaders, or a ``CombinedLoader(mode="sequential")``, runs its loaders one after the other."""
        from .utilities.combined_loader import CombinedLoader
        raw = self._raw(prefix)
        if isinstance(raw, CombinedLoader):
            if raw.mode != "sequential":
                fn = {"val": "validate", "test": "test", "predict": "predict"}[prefix]
                raise ValueError(f'`trainer.{fn}()` only supports the `CombinedLoader(mode="sequential")` mode, got '
                                 f"mode={raw.mode!r}.")
            loaders = raw.flattened
        elif raw is None:
            loaders = []
        else:
            loaders = CombinedLoader(raw).flattened if isinstance(raw, (list, tuple, dict)) else [raw]
        return [self._prepare(dl, prefix) for dl in loaders]

    @staticmethod
    def _without_shuffle(loader, prefix: str):
        from ..core.data import DataLoader, RandomSampler
        if isinstance(loader, DataLoader) and isinstance(loader.sampler, RandomSampler):
            warnings.warn(f"You requested to overfit but enabled {prefix} dataloader shuffling. We are turning off "
                          f"the {prefix} dataloader shuffling for you.")
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

