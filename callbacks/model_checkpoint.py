"""``ModelCheckpoint``: save the model periodically, keep the best ``k`` by a monitored metric, and ``last.ckpt``."""
from __future__ import annotations

import logging
import math
import os
import re
import time
import warnings
from datetime import timedelta
from typing import Any, Dict, Optional, Union

import numpy as np

from ..trainer.states import TrainerFn
from ..core import _filesystem as fs
from .checkpoint import Checkpoint, _misconfigured

__all__ = ["ModelCheckpoint"]

log = logging.getLogger("ember.trainer.callbacks")


def _as_number(value) -> Union[int, float]:
    """A logged value (0-dim tensor, NumPy scalar or number) as a Python int or float."""
    if hasattr(value, "item"):
        value = value.item()
    return value


def _score(value) -> float:
    return float(_as_number(value))


def _score_tensor(value, mode: str):
    """A detached 0-dim tensor of ``value``; NaN becomes the worst value for ``mode`` so it is never "best"."""
    from ..core.tensor import Tensor
    if isinstance(value, Tensor):
        arr = np.array(value.detach()._data, copy=True)
    else:
        arr = np.asarray(value, dtype=np.float32)
    if arr.dtype.kind not in "fc":
        arr = arr.astype(np.float32)
    if np.isnan(arr).any():
        arr = np.full_like(arr, math.inf if mode == "min" else -math.inf)
    return Tensor._make(arr.reshape(()))


class ModelCheckpoint(Checkpoint):
    r"""Save the model periodically by monitoring a quantity (Lightning's ``ModelCheckpoint``).

    Every metric logged with ``self.log`` or ``self.log_dict`` is a candidate for ``monitor``. Files are written
    atomically by ``trainer.save_checkpoint`` (on rank zero only).

    Args:
        dirpath: directory to save the checkpoints to (a local path, or an fsspec URL such as ``memory://ckpts`` or
            ``s3://bucket/ckpts``, which needs fsspec). By default ``<save_dir>/<name>/version_N/checkpoints`` of the
            first logger (the run's ``trainer.log_dir``), or ``<default_root_dir>/checkpoints`` without a logger.
        filename: checkpoint filename template without the extension, e.g. ``'{epoch}-{val_loss:.2f}'`` gives
            ``epoch=2-val_loss=0.12.ckpt``. Keys may contain dots or slashes; a missing key formats as 0. The
            default is ``'{epoch}-{step}'``.
        monitor: the logged quantity to monitor. ``None`` keeps only the latest checkpoint.
        verbose: log a line for each decision.
        save_last: also save ``last.ckpt`` whenever a checkpoint is saved (``True``), or make it a symbolic link to
            the latest checkpoint (``"link"``, local directories only). As in Lightning 2.6, an epoch end writes it
            only when a checkpoint was saved at that step; if nothing was saved during the whole run, it is written
            once when training ends.
        save_top_k: keep the ``k`` best models by ``monitor``; ``-1`` keeps all, ``0`` saves none (except
            ``last.ckpt``). A value other than -1, 0 or 1 needs a ``monitor``.
        save_on_exception: when training raises, save a checkpoint under the normal file name and update
            ``last.ckpt`` (not under ``fast_dev_run``, not twice for the same step).
        save_weights_only: save only the model weights (no optimizer, loop or callback state).
        mode: ``"min"`` or ``"max"``: whether a lower or a higher ``monitor`` is better.
        auto_insert_metric_name: turn ``{epoch}`` into ``epoch={epoch}`` in ``filename``.
        every_n_train_steps: save every this many optimizer steps (0 or None disables the trigger).
        train_time_interval: save when this much time has passed since the last save (a ``timedelta``).
        every_n_epochs: save every this many epochs (at the end of the epoch or of its validation).
        save_on_train_epoch_end: save at the end of the training epoch (True) or of validation (False); ``None``
            decides: after validation when validation runs several times per epoch, every few epochs or not at all.
        enable_version_counter: add ``-v1``, ``-v2``... when a file of the same name already exists.

    ``every_n_train_steps``, ``every_n_epochs`` and ``train_time_interval`` are mutually exclusive; when none is
    given the callback saves every epoch.

    Example::

        checkpoint = ModelCheckpoint(monitor="val_loss", filename="{epoch}-{val_loss:.2f}", save_top_k=2,
                                     save_last=True)
        trainer = em.Trainer(callbacks=[checkpoint])
        trainer.fit(model)
        checkpoint.best_model_path  # '.../epoch=4-val_loss=0.21.ckpt'
    """

    CHECKPOINT_JOIN_CHAR = "-"
    CHECKPOINT_EQUALS_CHAR = "="
    CHECKPOINT_NAME_LAST = "last"
    FILE_EXTENSION = ".ckpt"
    STARTING_VERSION = 1

    def __init__(self, dirpath: Optional[Union[str, os.PathLike]] = None, filename: Optional[str] = None,
                 monitor: Optional[str] = None, verbose: bool = False, save_last: Optional[Union[bool, str]] = None,
                 save_top_k: int = 1, save_on_exception: bool = False, save_weights_only: bool = False,
                 mode: str = "min", auto_insert_metric_name: bool = True,
                 every_n_train_steps: Optional[int] = None, train_time_interval: Optional[timedelta] = None,
                 every_n_epochs: Optional[int] = None, save_on_train_epoch_end: Optional[bool] = None,
                 enable_version_counter: bool = True):
        super().__init__()
        self.monitor = monitor
        self.verbose = verbose
        if save_last not in (None, True, False, "link"):
            raise ValueError(f"ModelCheckpoint(save_last={save_last!r}) is invalid: use True, False, None or 'link'")
        self.save_last = save_last
        if isinstance(save_top_k, bool) or not isinstance(save_top_k, int):
            raise TypeError(f"ModelCheckpoint(save_top_k={save_top_k!r}) must be an int (-1 keeps all, 0 none)")
        self.save_top_k = save_top_k
        self.save_on_exception = save_on_exception
        self.save_weights_only = save_weights_only
        self.auto_insert_metric_name = auto_insert_metric_name
        self._save_on_train_epoch_end = save_on_train_epoch_end
        self._enable_version_counter = enable_version_counter
        self._last_global_step_saved = 0  # nothing to save before the first optimizer step
        self._last_time_checked: Optional[float] = None
        self._last_checkpoint_saved = ""
        self._validation_ran = False
        self._trainer = None
        self.current_score = None
        self.best_k_models: Dict[str, Any] = {}
        self._written: set = set()  # files this callback wrote in this process: the ones it may always delete
        self.kth_best_model_path = ""
        self.best_model_score = None
        self.best_model_path = ""
        self.last_model_path = ""
        if dirpath and not fs.is_remote(dirpath):  # a file:// URL is a local path too
            dirpath = os.path.realpath(os.path.expanduser(fs.local_path(dirpath)))
        self.dirpath = os.fspath(dirpath) if dirpath else None
        self.filename = filename
        self._init_mode(mode)
        self._init_triggers(every_n_train_steps, every_n_epochs, train_time_interval)
        self._validate_configuration()

    # ------------------------------------------------------------------------------------------ configuration
    def _init_mode(self, mode: str) -> None:
        if mode not in ("min", "max"):
            raise _misconfigured(f"`mode` can be min, max but got {mode}")
        self.mode = mode
        self.kth_value = _score_tensor(math.inf if mode == "min" else -math.inf, mode)

    def _init_triggers(self, every_n_train_steps, every_n_epochs, train_time_interval) -> None:
        if train_time_interval is not None and not isinstance(train_time_interval, timedelta):
            raise TypeError(f"ModelCheckpoint(train_time_interval={train_time_interval!r}) must be a "
                            "datetime.timedelta")
        if every_n_train_steps is None and every_n_epochs is None and train_time_interval is None:
            every_n_epochs, every_n_train_steps = 1, 0
        else:
            every_n_epochs = every_n_epochs or 0
            every_n_train_steps = every_n_train_steps or 0
        self._train_time_interval = train_time_interval
        self._every_n_epochs = every_n_epochs
        self._every_n_train_steps = every_n_train_steps

    def _validate_configuration(self) -> None:
        if self.save_top_k < -1:
            raise _misconfigured(f"Invalid value for save_top_k={self.save_top_k}. Must be >= -1")
        for name, value in (("every_n_train_steps", self._every_n_train_steps),
                            ("every_n_epochs", self._every_n_epochs)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise _misconfigured(f"Invalid value for {name}={value!r}. Must be >= 0")
        triggers = (self._every_n_train_steps >= 1, self._every_n_epochs >= 1, self._train_time_interval is not None)
        if sum(triggers) > 1:
            raise _misconfigured(
                f"Combination of parameters every_n_train_steps={self._every_n_train_steps}, every_n_epochs="
                f"{self._every_n_epochs} and train_time_interval={self._train_time_interval} should be mutually "
                "exclusive.")
        if self.monitor is None and self.save_top_k not in (-1, 0, 1):
            raise _misconfigured(f"ModelCheckpoint(save_top_k={self.save_top_k}, monitor=None) is not a valid "
                                 "configuration. No quantity for top_k to track.")

    @property
    def state_key(self) -> str:
        """Built from the arguments, so several ModelCheckpoints can keep their state in one checkpoint."""
        return self._generate_state_key(monitor=self.monitor, mode=self.mode,
                                        every_n_train_steps=self._every_n_train_steps,
                                        every_n_epochs=self._every_n_epochs,
                                        train_time_interval=self._train_time_interval)

    @property
    def every_n_epochs(self) -> int:
        """Save every this many epochs (0: the epoch trigger is off)."""
        return self._every_n_epochs

    @property
    def every_n_train_steps(self) -> int:
        """Save every this many optimizer steps (0: the step trigger is off)."""
        return self._every_n_train_steps

    @property
    def train_time_interval(self) -> Optional[timedelta]:
        """Save when this much time has passed since the last save (None: off)."""
        return self._train_time_interval

    # ---------------------------------------------------------------------------------------------- hooks
    def setup(self, trainer, pl_module, stage: str) -> None:
        self._trainer = trainer
        dirpath = trainer.strategy.broadcast(self._resolve_dirpath(trainer))
        if not fs.is_remote(dirpath):
            dirpath = os.path.realpath(os.path.expanduser(fs.local_path(dirpath)))
        if fs.isfile(dirpath):
            raise NotADirectoryError(f"ModelCheckpoint: the checkpoint directory {dirpath!r} is an existing file; "
                                     "give `dirpath` a directory")
        self.dirpath = dirpath
        if self.save_last == "link" and fs.is_remote(dirpath):
            raise ValueError(f"`ModelCheckpoint(save_last='link')` is only supported for local file paths, got "
                             f"`dirpath={dirpath}`.")
        if trainer.is_global_zero and not fs.is_remote(dirpath) and os.path.isdir(dirpath):  # killed saves' temp files
            from ..core.serialization import remove_stale_temp_files
            remove_stale_temp_files(dirpath)
        if trainer.is_global_zero and stage == TrainerFn.FITTING and self.save_top_k != 0 and fs.isdir(dirpath) and \
                any(name.endswith(self.FILE_EXTENSION) for name in fs.listdir(dirpath)):
            warnings.warn(f"Checkpoint directory {dirpath} exists and is not empty.", UserWarning)

    def on_train_start(self, trainer, pl_module) -> None:
        self._last_time_checked = time.monotonic()

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx: int) -> None:
        """Save every ``every_n_train_steps`` optimizer steps or every ``train_time_interval``."""
        if self._should_skip_saving_checkpoint(trainer):
            return
        skip_batch = self._every_n_train_steps < 1 or trainer.global_step % self._every_n_train_steps != 0
        skip_time = True
        now = time.monotonic()
        if self._train_time_interval is not None:
            previous = self._last_time_checked
            skip_time = previous is None or (now - previous) < self._train_time_interval.total_seconds()
            # clocks differ between ranks: rank zero decides
            skip_time = trainer.strategy.broadcast(skip_time)
        if skip_batch and skip_time:
            return
        if not skip_time:
            self._last_time_checked = now
        candidates = self._monitor_candidates(trainer)
        self._save_topk_checkpoint(trainer, candidates, at_epoch_end=False)
        self._save_last_checkpoint(trainer, candidates)

    def on_train_epoch_end(self, trainer, pl_module) -> None:
        """Save at the end of the training epoch (when validation does not decide)."""
        if not self._should_skip_saving_checkpoint(trainer) and self._should_save_on_train_epoch_end(trainer):
            candidates = self._monitor_candidates(trainer)
            if self._every_n_epochs >= 1 and (trainer.current_epoch + 1) % self._every_n_epochs == 0:
                self._save_topk_checkpoint(trainer, candidates, at_epoch_end=True)
            self._save_last_after_topk(trainer, candidates)

    def on_validation_end(self, trainer, pl_module) -> None:
        """Save after validation (when validation runs several times per epoch or every few epochs)."""
        if trainer.sanity_checking:
            return
        self._validation_ran = True
        if not self._should_skip_saving_checkpoint(trainer) and not self._should_save_on_train_epoch_end(trainer):
            candidates = self._monitor_candidates(trainer)
            if self._every_n_epochs >= 1 and (trainer.current_epoch + 1) % self._every_n_epochs == 0:
                self._save_topk_checkpoint(trainer, candidates, at_epoch_end=True)
            self._save_last_after_topk(trainer, candidates)

    def on_exception(self, trainer, pl_module, exception: BaseException) -> None:
        """With ``save_on_exception=True``, save a checkpoint under the normal file name and update ``last.ckpt``.

        As in Lightning 2.5.3+: never under ``fast_dev_run`` or during the sanity check, and not when this global
        step was already saved (the latest file already holds this state).
        """
        if not self._should_save_on_exception(trainer) or trainer.lightning_module is None or self.dirpath is None:
            return
        candidates = self._monitor_candidates(trainer)
        filepath = self.format_checkpoint_name(candidates)
        self._save_checkpoint(trainer, filepath)
        self._save_last_checkpoint(trainer, candidates)
        self._info(f"An {type(exception).__name__} was raised with message: {exception}, saved checkpoint to "
                   f"{filepath}", trainer)

    def on_train_end(self, trainer, pl_module) -> None:
        """``save_last`` with no checkpoint saved during the whole run (e.g. no validation with
        ``save_on_train_epoch_end=False``, or ``save_top_k=0``): write ``last.ckpt`` once now (Lightning 2.6)."""
        if self.save_last and not self._last_checkpoint_saved and not trainer.fast_dev_run:
            self._save_last_checkpoint(trainer, self._monitor_candidates(trainer))

    # ------------------------------------------------------------------------------------------------ state
    def state_dict(self) -> Dict[str, Any]:
        """``monitor``, the best and k-th best models and scores, ``dirpath`` and ``last_model_path``."""
        return {
            "monitor": self.monitor,
            "best_model_score": self.best_model_score,
            "best_model_path": self.best_model_path,
            "current_score": self.current_score,
            "dirpath": self.dirpath,
            "best_k_models": dict(self.best_k_models),
            "kth_best_model_path": self.kth_best_model_path,
            "kth_value": self.kth_value,
            "last_model_path": self.last_model_path,
        }

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restore the tracking state; if the directory changed, only ``best_model_path`` is restored."""
        dirpath_from_ckpt = state_dict.get("dirpath", self.dirpath)
        if self.dirpath == dirpath_from_ckpt:
            self.best_model_score = state_dict["best_model_score"]
            self.kth_best_model_path = state_dict.get("kth_best_model_path", self.kth_best_model_path)
            self.kth_value = state_dict.get("kth_value", self.kth_value)
            self.best_k_models = dict(state_dict.get("best_k_models", self.best_k_models))
            self.last_model_path = state_dict.get("last_model_path", self.last_model_path)
            self.current_score = state_dict.get("current_score", self.current_score)
        else:
            warnings.warn(f"The dirpath has changed from {dirpath_from_ckpt!r} to {self.dirpath!r}, therefore "
                          "`best_model_score`, `kth_best_model_path`, `kth_value`, `last_model_path` and "
                          "`best_k_models` won't be reloaded. Only `best_model_path` will be reloaded.")
        self.best_model_path = state_dict["best_model_path"]

    # ------------------------------------------------------------------------------------------- decisions
    def _should_skip_saving_checkpoint(self, trainer) -> bool:
        return (bool(trainer.fast_dev_run) or trainer.state.fn != TrainerFn.FITTING or trainer.sanity_checking
                or self._last_global_step_saved == trainer.global_step)

    @property
    def saves_on_exception(self) -> bool:
        """Whether an exception makes this callback write a checkpoint (``save_on_exception``)."""
        return self.save_on_exception

    def _should_save_on_exception(self, trainer) -> bool:
        return (self.save_on_exception and not trainer.fast_dev_run and not trainer.sanity_checking
                and self._last_global_step_saved != trainer.global_step)

    def _save_last_after_topk(self, trainer, candidates: Dict[str, Any]) -> None:
        """At an epoch end, ``last.ckpt`` follows a checkpoint saved at this very step (Lightning 2.6: it is the copy
        of, or the link to, the latest checkpoint, never a file of its own); a link is refreshed whenever one exists."""
        if self._last_global_step_saved == trainer.global_step or (self.save_last == "link"
                                                                   and self._last_checkpoint_saved):
            self._save_last_checkpoint(trainer, candidates)

    def _should_save_on_train_epoch_end(self, trainer) -> bool:
        if self._save_on_train_epoch_end is not None:
            return self._save_on_train_epoch_end
        if trainer.check_val_every_n_epoch != 1:
            return False
        counts = trainer.num_val_batches
        total = sum(counts) if isinstance(counts, (list, tuple)) else counts
        if total == 0 or getattr(trainer, "limit_val_batches", 1) == 0:
            return True  # no validation: the end of the training epoch is the only place to save
        return trainer.val_check_interval == 1.0

    def _monitor_candidates(self, trainer) -> Dict[str, Any]:
        """The logged metrics plus ``epoch`` and ``step`` (as ints) for filenames and monitoring."""
        candidates = dict(trainer.callback_metrics)
        epoch = candidates.get("epoch")
        candidates["epoch"] = int(_as_number(epoch)) if epoch is not None else trainer.current_epoch
        step = candidates.get("step")
        candidates["step"] = int(_as_number(step)) if step is not None else trainer.global_step
        return candidates

    def check_monitor_top_k(self, trainer, current=None) -> bool:
        """Whether ``current`` enters the top ``k`` (all ranks agree)."""
        if current is None:
            return False
        if self.save_top_k == -1:
            return True
        if len(self.best_k_models) < self.save_top_k:
            return True
        kth = _score(self.best_k_models[self.kth_best_model_path])
        value = _score(current)
        better = value < kth if self.mode == "min" else value > kth
        return trainer.strategy.reduce_boolean_decision(bool(better))

    def _save_topk_checkpoint(self, trainer, candidates: Dict[str, Any], at_epoch_end: bool) -> None:
        if self.save_top_k == 0:
            return
        if self.monitor is None:
            self._save_none_monitor_checkpoint(trainer, candidates)
            return
        if self.monitor not in candidates:
            message = (f"`ModelCheckpoint(monitor={self.monitor!r})` could not find the monitored key in the returned "
                       f"metrics: {list(candidates)}. HINT: Did you call `log({self.monitor!r}, value)` in the "
                       "`LightningModule`?")
            # mid-epoch, before the first validation, a validation metric cannot exist yet: only warn then
            if self._validation_ran or at_epoch_end:
                raise _misconfigured(message)
            warnings.warn(message, RuntimeWarning)
            return
        current = candidates[self.monitor]
        if self.check_monitor_top_k(trainer, current):
            self._update_best_and_save(current, trainer, candidates)
        elif self.verbose:
            self._info(f"Epoch {candidates['epoch']:d}, global step {candidates['step']:d}: {self.monitor!r} was not "
                       f"in top {self.save_top_k}", trainer)

    def _save_none_monitor_checkpoint(self, trainer, candidates: Dict[str, Any]) -> None:
        filepath = self._get_metric_interpolated_filepath_name(candidates, trainer, self.best_model_path)
        previous, self.best_model_path = self.best_model_path, filepath  # part of the state being saved
        try:
            self._save_checkpoint(trainer, filepath)
        except BaseException:
            self.best_model_path = previous
            raise
        if self.save_top_k == 1 and previous and self._should_remove_checkpoint(trainer, previous, filepath):
            self._remove_checkpoint(trainer, previous)

    def _update_best_and_save(self, current, trainer, candidates: Dict[str, Any]) -> None:
        k = len(self.best_k_models) + 1 if self.save_top_k == -1 else self.save_top_k
        snapshot = (dict(self.best_k_models), self.kth_best_model_path, self.kth_value, self.best_model_path,
                    self.best_model_score, self.current_score)
        del_filepath = None
        if len(self.best_k_models) == k and k > 0:
            del_filepath = self.kth_best_model_path
            self.best_k_models.pop(del_filepath)
        current = _score_tensor(current, self.mode)
        filepath = self._get_metric_interpolated_filepath_name(candidates, trainer, del_filepath)
        self.current_score = current
        self.best_k_models[filepath] = current
        if len(self.best_k_models) == k:
            worst = max if self.mode == "min" else min
            self.kth_best_model_path = worst(self.best_k_models, key=lambda p: _score(self.best_k_models[p]))
            self.kth_value = self.best_k_models[self.kth_best_model_path]
        best = min if self.mode == "min" else max
        self.best_model_path = best(self.best_k_models, key=lambda p: _score(self.best_k_models[p]))
        self.best_model_score = self.best_k_models[self.best_model_path]
        if self.verbose:
            self._info(f"Epoch {candidates['epoch']:d}, global step {candidates['step']:d}: {self.monitor!r} reached "
                       f"{_score(current):0.5f} (best {_score(self.best_model_score):0.5f}), saving model to "
                       f"{filepath!r} as top {k}", trainer)
        try:
            self._save_checkpoint(trainer, filepath)
        except BaseException:
            # a failed save must not leave the tracking state pointing at a file that does not exist
            (self.best_k_models, self.kth_best_model_path, self.kth_value, self.best_model_path,
             self.best_model_score, self.current_score) = snapshot
            raise
        if del_filepath and self._should_remove_checkpoint(trainer, del_filepath, filepath):
            self._remove_checkpoint(trainer, del_filepath)

    def _save_last_checkpoint(self, trainer, candidates: Dict[str, Any]) -> None:
        if not self.save_last:
            return
        filepath = self.format_checkpoint_name(candidates, self.CHECKPOINT_NAME_LAST)
        if self._enable_version_counter:
            version = self.STARTING_VERSION
            while self.file_exists(filepath, trainer) and filepath != self.last_model_path:
                filepath = self.format_checkpoint_name(candidates, self.CHECKPOINT_NAME_LAST, ver=version)
                version += 1
        previous, self.last_model_path = self.last_model_path, filepath
        try:
            if self.save_last == "link" and self._last_checkpoint_saved and self.save_top_k != 0:
                self._link_checkpoint(trainer, self._last_checkpoint_saved, filepath)
            else:
                self._save_checkpoint(trainer, filepath)
        except BaseException:
            self.last_model_path = previous
            raise
        if previous and self._should_remove_checkpoint(trainer, previous, filepath):
            self._remove_checkpoint(trainer, previous)

    def _save_checkpoint(self, trainer, filepath: str) -> None:
        trainer.save_checkpoint(filepath, self.save_weights_only)
        self._written.add(os.path.abspath(filepath))
        self._last_global_step_saved = trainer.global_step
        self._last_checkpoint_saved = filepath
        if trainer.is_global_zero:
            for logger in trainer.loggers:
                hook = getattr(logger, "after_save_checkpoint", None)
                if callable(hook):
                    hook(self)

    @staticmethod
    def _link_checkpoint(trainer, filepath: str, linkpath: str) -> None:
        # a link onto itself (save_top_k=-1 names the latest file "last") would be a symlink loop
        if trainer.is_global_zero and os.path.abspath(filepath) != os.path.abspath(linkpath):
            if os.path.islink(linkpath) or os.path.isfile(linkpath):
                os.remove(linkpath)
            elif os.path.isdir(linkpath):
                raise IsADirectoryError(f"Cannot link the last checkpoint to {linkpath!r}: it is a directory")
            try:  # relative, so the directory can be moved
                os.symlink(os.path.relpath(filepath, os.path.dirname(linkpath)), linkpath)
            except OSError:  # no symlinks here (e.g. Windows without the privilege): a copy will do
                import shutil
                shutil.copy(filepath, linkpath)
        trainer.strategy.barrier()

    def _should_remove_checkpoint(self, trainer, previous: str, current: str) -> bool:
        """Only files inside ``dirpath`` are deleted, and never the checkpoint this run resumed from."""
        if previous == current:
            return False
        previous = os.path.abspath(previous)
        if trainer.ckpt_path is not None and os.path.abspath(trainer.ckpt_path) == previous:
            return False
        dirpath = os.path.abspath(self.dirpath)
        if os.path.commonpath([dirpath, previous]) != dirpath or previous == dirpath:
            return False
        # a path restored from a checkpoint is only a claim: delete it only if this callback wrote it in this run or
        # it has this callback's own file-name pattern (a crafted state must never delete an unrelated file)
        return previous in self._written or self._own_file_pattern().fullmatch(os.path.relpath(previous, dirpath)) \
            is not None

    def _own_file_pattern(self):
        """The names this callback gives its files: its ``filename`` template (any value in each ``{...}``) or
        ``last``, an optional ``-vN`` version and the ``.ckpt`` extension."""
        template = self.filename or "{epoch}" + self.CHECKPOINT_JOIN_CHAR + "{step}"
        parts = re.split(r"(\{[^{}]*\})", template)
        body = "".join("[^/]*" if part.startswith("{") else re.escape(part) for part in parts)
        last = re.escape(self.CHECKPOINT_NAME_LAST)
        return re.compile(f"(?:{body}|{last})(?:{re.escape(self.CHECKPOINT_JOIN_CHAR)}v\\d+)?"
                          f"{re.escape(self.FILE_EXTENSION)}")

    @staticmethod
    def _remove_checkpoint(trainer, filepath: str) -> None:
        if not trainer.is_global_zero:
            return
        if fs.is_remote(filepath):
            if fs.isfile(filepath):
                fs.remove(filepath)
        elif os.path.isfile(filepath) or os.path.islink(filepath):
            os.remove(filepath)

    def _info(self, message: str, trainer) -> None:
        if trainer.is_global_zero:
            log.info(message)

    # ------------------------------------------------------------------------------------------- file names
    @classmethod
    def _format_checkpoint_name(cls, filename: Optional[str], metrics: Dict[str, Any],
                                auto_insert_metric_name: bool = True, prefix: str = "") -> str:
        if not filename:
            filename = "{epoch}" + cls.CHECKPOINT_JOIN_CHAR + "{step}"
        values = {}
        # keys from the template, longest first so that "epoch" does not clobber "epoch_test"
        groups = sorted(re.findall(r"(\{.*?)[:\}]", filename), key=len, reverse=True)
        for group in groups:
            name = group[1:]
            if auto_insert_metric_name:
                filename = filename.replace(group, name + cls.CHECKPOINT_EQUALS_CHAR + "{" + name)
            # index into one dict so that names with dots or slashes work as format fields
            filename = filename.replace(group, f"{{0[{name}]")
            values[name] = _as_number(metrics[name]) if name in metrics else 0
        try:
            filename = filename.format(values)
        except (ValueError, KeyError, IndexError) as exc:
            raise ValueError(f"ModelCheckpoint: cannot format the filename template {filename!r} with the logged "
                             f"values {values}: {exc}") from None
        if prefix:
            filename = cls.CHECKPOINT_JOIN_CHAR.join([prefix, filename])
        return filename

    def format_checkpoint_name(self, metrics: Dict[str, Any], filename: Optional[str] = None,
                               ver: Optional[int] = None, prefix: str = "") -> str:
        """The checkpoint path for ``metrics``: the template filled in, plus ``-v{ver}`` and the extension.

        Example::

            >>> ModelCheckpoint(dirpath="ckpts", filename="{epoch}-{val_loss:.2f}").format_checkpoint_name(
            ...     {"epoch": 2, "val_loss": 0.1234})
            '.../ckpts/epoch=2-val_loss=0.12.ckpt'
        """
        filename = self._format_checkpoint_name(filename or self.filename, metrics, self.auto_insert_metric_name,
                                                prefix)
        if ver is not None:
            filename = self.CHECKPOINT_JOIN_CHAR.join((filename, f"v{ver}"))
        name = f"{filename}{self.FILE_EXTENSION}"
        return os.path.join(self.dirpath, name) if self.dirpath else name

    def _get_metric_interpolated_filepath_name(self, candidates, trainer, del_filepath: Optional[str] = None) -> str:
        filepath = self.format_checkpoint_name(candidates)
        if self._enable_version_counter:
            version = self.STARTING_VERSION
            while self.file_exists(filepath, trainer) and filepath != del_filepath:
                filepath = self.format_checkpoint_name(candidates, ver=version)
                version += 1
        return filepath

    def _resolve_dirpath(self, trainer=None) -> Optional[str]:
        """The directory checkpoints go to: ``dirpath``, else the first logger's run directory + ``checkpoints``,
        else ``<default_root_dir>/checkpoints``."""
        if self.dirpath is not None:
            return self.dirpath
        trainer = trainer if trainer is not None else self._trainer
        if trainer is None:
            return None
        if trainer.loggers:
            logger = trainer.loggers[0]
            save_dir = logger.save_dir if logger.save_dir is not None else trainer.default_root_dir
            version = logger.version
            version = version if isinstance(version, str) else f"version_{version}"
            return os.path.join(save_dir, str(logger.name), version, "checkpoints")
        return os.path.join(trainer.default_root_dir, "checkpoints")

    def file_exists(self, filepath: str, trainer) -> bool:
        """Whether ``filepath`` exists (rank zero's answer, so all ranks pick the same name)."""
        return trainer.strategy.broadcast(fs.exists(filepath))

    def to_yaml(self, filepath: Optional[str] = None) -> None:
        """Write ``{path: score}`` of the best ``k`` models to a YAML file (``best_k_models.yaml`` by default)."""
        import yaml
        best = {k: _score(v) for k, v in self.best_k_models.items()}
        filepath = filepath or os.path.join(self.dirpath, "best_k_models.yaml")
        text = yaml.safe_dump(best)
        fs.write_file(filepath, lambda fh: fh.write(text.encode("utf-8")))  # atomic locally, fsspec for a URL

    def __repr__(self) -> str:
        return (f"ModelCheckpoint(dirpath={self.dirpath!r}, filename={self.filename!r}, monitor={self.monitor!r}, "
                f"mode={self.mode!r}, save_top_k={self.save_top_k}, save_last={self.save_last!r})")
