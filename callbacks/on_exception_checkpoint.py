"""``OnExceptionCheckpoint``: save a checkpoint when training is interrupted by an exception (or Ctrl-C)."""
from __future__ import annotations

import os
from typing import Union

from .checkpoint import Checkpoint

__all__ = ["OnExceptionCheckpoint"]


class OnExceptionCheckpoint(Checkpoint):
    r"""Save ``dirpath/filename.ckpt`` when fit, validate, test or predict raises (Lightning's callback).

    The file is the full training state, so ``trainer.fit(model, ckpt_path="last")`` (or its path) resumes the
    interrupted run; after a run that ends normally the file is removed, because it would be stale.

    Args:
        dirpath: the directory to save the checkpoint to.
        filename: the file name without extension.

    Example::

        trainer = em.Trainer(callbacks=[OnExceptionCheckpoint(dirpath="ckpts")])
    """

    FILE_EXTENSION = ".ckpt"

    def __init__(self, dirpath: Union[str, os.PathLike], filename: str = "on_exception") -> None:
        super().__init__()
        if not filename:
            raise ValueError("The filename cannot be empty")
        self.dirpath = os.fspath(dirpath)
        self.filename = filename

    @property
    def ckpt_path(self) -> str:
        """``dirpath/filename.ckpt``."""
        return os.path.join(self.dirpath, self.filename + self.FILE_EXTENSION)

    @property
    def last_model_path(self) -> str:
        """The exception checkpoint if it exists (so ``ckpt_path="last"`` finds it), else ``""``."""
        return self.ckpt_path if os.path.isfile(self.ckpt_path) else ""

    def on_exception(self, trainer, pl_module, exception: BaseException) -> None:
        if trainer.lightning_module is None:
            return
        trainer.save_checkpoint(self.ckpt_path)  # overwrites an older one

    def teardown(self, trainer, pl_module, stage: str) -> None:
        # teardown also runs while an interrupted run shuts down: keep the file that was just written then
        if trainer.state.status == "interrupted":
            return
        if trainer.is_global_zero and os.path.isfile(self.ckpt_path):
            os.remove(self.ckpt_path)
