"""``LightningDataModule``: everything about data in one reusable class."""
from __future__ import annotations

from typing import Any, Dict, Optional

from .hooks import DataHooks
from .hparams import HyperparametersMixin

__all__ = ["LightningDataModule"]


class LightningDataModule(DataHooks, HyperparametersMixin):
    """Groups ``prepare_data``, ``setup(stage)``, the four ``*_dataloader`` methods and ``teardown``.

    Example::

        class MNISTData(em.LightningDataModule):
            def setup(self, stage):
                self.train, self.val = random_split(full, [55000, 5000])
            def train_dataloader(self):
                return DataLoader(self.train, batch_size=64, shuffle=True)
    """

    name: Optional[str] = None

    def __init__(self) -> None:
        super().__init__()
        self.trainer = None

    def setup(self, stage: str) -> None:
        """Create datasets (called on every process, with the stage: fit, validate, test or predict)."""

    def teardown(self, stage: str) -> None:
        """Clean up after fit, validate, test or predict."""

    def state_dict(self) -> Dict[str, Any]:
        """State to save in checkpoints."""
        return {}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restore the state from :meth:`state_dict`."""

    @classmethod
    def from_datasets(cls, train_dataset=None, val_dataset=None, test_dataset=None, predict_dataset=None,
                      batch_size: int = 1, num_workers: int = 0, **datamodule_kwargs: Any) -> "LightningDataModule":
        """A datamodule whose loaders wrap the given datasets (each may be a dataset or a list/dict of them).

        ``batch_size`` and ``num_workers`` go to every loader and, when the class's ``__init__`` takes them (or
        ``**kwargs``), to the datamodule itself, as in Lightning.
        """
        import inspect

        from ..core.data import DataLoader, IterableDataset

        def loader(ds, shuffle):
            shuffle = shuffle and not isinstance(ds, IterableDataset)  # an iterable dataset cannot be shuffled
            return DataLoader(ds, batch_size=batch_size, shuffle=shuffle, num_workers=num_workers)

        def loaders(ds, shuffle):
            if isinstance(ds, dict):
                return {k: loader(v, shuffle) for k, v in ds.items()}
            if isinstance(ds, (list, tuple)):
                return [loader(v, shuffle) for v in ds]
            return loader(ds, shuffle)

        params = inspect.signature(cls.__init__).parameters
        takes_any = any(p.kind == p.VAR_KEYWORD for p in params.values())
        special = {k: v for k, v in {"batch_size": batch_size, "num_workers": num_workers}.items()
                   if takes_any or k in params}
        dm = cls(**datamodule_kwargs, **special)
        if train_dataset is not None:
            dm.train_dataloader = lambda: loaders(train_dataset, True)
        if val_dataset is not None:
            dm.val_dataloader = lambda: loaders(val_dataset, False)
        if test_dataset is not None:
            dm.test_dataloader = lambda: loaders(test_dataset, False)
        if predict_dataset is not None:
            dm.predict_dataloader = lambda: loaders(predict_dataset, False)
        return dm

    @classmethod
    def load_from_checkpoint(cls, checkpoint_path, map_location=None, hparams_file=None, **kwargs: Any):
        """Rebuild the datamodule from a checkpoint's saved hyperparameters (``kwargs`` override them)."""
        from .checkpoint_io import load_datamodule_from_checkpoint
        return load_datamodule_from_checkpoint(cls, checkpoint_path, overrides=kwargs, map_location=map_location)
