"""Checkpoints: what a ``.ckpt`` holds, how ``ckpt_path`` resolves, and how a run resumes exactly.

A checkpoint holds the module's ``state_dict``, optimizer and scheduler states, callback states (by ``state_key``),
the loops' progress counters with the train dataloader's position, the random-number-generator states and the
hyperparameters. Resume restores all of it, so a run stopped mid-epoch continues at the next batch with the same data
order and the same random numbers. Files use ember's safe container (zip of ``.npy`` + JSON, never pickle) and are
written atomically.
"""
from __future__ import annotations

import glob
import os
import random
import warnings
from typing import Any, Dict, Optional

import numpy as np

from .call import call_hook, call_callback_hooks, call_module_hook
from .exceptions import MisconfigurationException
from .saving import CHECKPOINT_HYPER_PARAMS_KEY, CHECKPOINT_HYPER_PARAMS_NAME
from .states import TrainerFn

__all__ = ["CheckpointConnector", "capture_rng_states", "restore_rng_states", "snapshot_rng_states"]


def snapshot_rng_states() -> tuple:
    """The raw RNG states, cheap enough to take at every batch (:func:`capture_rng_states` converts them)."""
    from ..core import random as em_random
    return em_random.default_generator.snapshot(), np.random.get_state(), random.getstate()


def capture_rng_states(snapshot: Optional[tuple] = None) -> Dict[str, Any]:
    """The states of ember's default generator, NumPy's global RNG and Python's ``random`` (now, or as of an
    earlier :func:`snapshot_rng_states`)."""
    from ..core import random as em_random
    ember_state, np_state, py_state = snapshot if snapshot is not None else snapshot_rng_states()
    return {
        "ember": em_random.state_tensor(ember_state),
        "numpy": {"name": np_state[0], "keys": np_state[1].astype(np.int64).tolist(), "pos": int(np_state[2]),
                  "has_gauss": int(np_state[3]), "cached_gaussian": float(np_state[4])},
        "python": {"version": py_state[0], "state": list(py_state[1]), "gauss": py_state[2]},
    }


def restore_rng_states(states: Dict[str, Any]) -> None:
    """Restore what :func:`capture_rng_states` captured."""
    from ..core import random as em_random
    if "ember" in states:
        em_random.set_rng_state(states["ember"])
    if "numpy" in states:
        s = states["numpy"]
        np.random.set_state((s["name"], np.asarray(s["keys"], dtype=np.uint32), s["pos"], s["has_gauss"],
                             s["cached_gaussian"]))
    if "python" in states:
        s = states["python"]
        random.setstate((s["version"], tuple(s["state"]), s["gauss"]))


class CheckpointConnector:
    """Dumps and restores the Trainer's state."""

    def __init__(self, trainer):
        self.trainer = trainer
        self._loaded: Optional[Dict[str, Any]] = None

    # --------------------------------------------------------------------------------------------- ckpt_path
    def resolve_ckpt_path(self, ckpt_path, fn: TrainerFn) -> Optional[str]:
        """Lightning's rules: a path, ``"last"`` (a warning, not an error, if none exists) or ``"best"``.

        A fit restarted by ``ember-run --max-restarts`` (``TORCHELASTIC_RESTART_COUNT`` > 0) without a ``ckpt_path``
        resumes from the newest ``last.ckpt``, as if ``ckpt_path="last"`` had been given.
        """
        if ckpt_path is None and fn == TrainerFn.FITTING and os.environ.get("TORCHELASTIC_RESTART_COUNT", "0") \
                not in ("", "0") and self.trainer.checkpoint_callbacks:
            ckpt_path = "last"
        if ckpt_path is None:
            return None
        trainer = self.trainer
        if ckpt_path == "best":
            if trainer.fast_dev_run:
                raise ValueError(f'You cannot execute `.{fn.value}(ckpt_path="best")` with `fast_dev_run=True`. '
                                 f"Please pass an exact checkpoint path to `.{fn.value}(ckpt_path=...)`")
            cb = trainer.checkpoint_callback
            if cb is None:
                raise ValueError(f'`.{fn.value}(ckpt_path="best")` is set but `ModelCheckpoint` is not configured.')
            if len(trainer.checkpoint_callbacks) > 1:
                warnings.warn(f'`.{fn.value}(ckpt_path="best")` is called with several ModelCheckpoint callbacks: '
                              "using the first one")
            if not getattr(cb, "best_model_path", ""):
                raise ValueError(f'`.{fn.value}(ckpt_path="best")` is set but `ModelCheckpoint` is not configured to '
                                 "save the best model (no best checkpoint has been saved yet).")
            return cb.best_model_path
        if ckpt_path == "last":
            import fnmatch

            from ..core import _filesystem as fs
            candidates = []
            for cb in trainer.checkpoint_callbacks:
                if getattr(cb, "last_model_path", ""):
                    candidates.append(cb.last_model_path)
                dirpath = getattr(cb, "_resolve_dirpath", lambda: getattr(cb, "dirpath", None))()
                if dirpath and fs.is_remote(dirpath):
                    if fs.isdir(dirpath):
                        candidates.extend(os.path.join(dirpath, name) for name in fs.listdir(dirpath)
                                          if fnmatch.fnmatch(name, "last*.ckpt"))
                elif dirpath:
                    candidates.extend(glob.glob(os.path.join(fs.local_path(dirpath), "last*.ckpt")))
            candidates = [c for c in candidates if fs.isfile(c)]
            if not candidates:
                warnings.warn(f'.{fn.value}(ckpt_path="last") is set, but there is no last checkpoint available. No '
                              "checkpoint will be loaded.")
                return None
            return max(candidates, key=fs.getmtime)
        from ..core import _filesystem as fs
        path = fs.local_path(ckpt_path)  # an fsspec URL (memory://, s3://...) is checked through fsspec
        if fs.isdir(path):
            raise IsADirectoryError(f"ckpt_path {path!r} is a directory: give the path of a .ckpt file")
        if not fs.exists(path):
            raise FileNotFoundError(f"Checkpoint file not found: {path!r}")
        return path

    # --------------------------------------------------------------------------------------------------- save
    def dump_checkpoint(self, weights_only: bool = False) -> Dict[str, Any]:
        """The checkpoint dict of the current state (callbacks and the module may add keys)."""
        from .. import __version__
        trainer = self.trainer
        module = trainer.lightning_module
        checkpoint: Dict[str, Any] = {
            "epoch": trainer.current_epoch,
            "global_step": trainer.global_step,
            "ember_version": __version__,
            "state_dict": module.state_dict(),
            "loops": {"fit_loop": trainer.fit_loop.state_dict(),
                      "validate_loop": trainer.validate_loop.state_dict(),
                      "test_loop": trainer.test_loop.state_dict()},
        }
        if not weights_only:
            states = ((cb.state_key, cb.state_dict()) for cb in trainer.callbacks)  # once per callback and save
            checkpoint["callbacks"] = {key: state for key, state in states if state}
            checkpoint["optimizer_states"] = [opt.state_dict() for opt in trainer.optimizers]
            checkpoint["lr_schedulers"] = [cfg.scheduler.state_dict() for cfg in trainer.lr_scheduler_configs]
            # written in the middle of a batch (Ctrl-C, an exception): the batch runs again on resume, so it must
            # draw the same random numbers (dropout masks...) as it would have: save the states of its start
            checkpoint["rng_states"] = capture_rng_states(trainer.fit_loop.epoch_loop.interrupted_batch_rng_states())
            checkpoint["results"] = trainer._logger_connector.train_results_state()
        if getattr(module, "_hparams", None):
            checkpoint[CHECKPOINT_HYPER_PARAMS_NAME] = getattr(module, "_hparams_name", "kwargs")
            checkpoint[CHECKPOINT_HYPER_PARAMS_KEY] = dict(module._hparams)
        dm = trainer.datamodule
        if dm is not None:
            if getattr(dm, "_hparams", None):
                checkpoint["datamodule_" + CHECKPOINT_HYPER_PARAMS_NAME] = getattr(dm, "_hparams_name", "kwargs")
                checkpoint["datamodule_" + CHECKPOINT_HYPER_PARAMS_KEY] = dict(dm._hparams)
            dm_state = dm.state_dict()
            if dm_state:
                checkpoint[type(dm).__qualname__] = dm_state
        if weights_only:
            call_module_hook(trainer, "on_save_checkpoint", checkpoint)
        else:
            call_hook(trainer, "on_save_checkpoint", checkpoint)
        return checkpoint

    def save(self, checkpoint: Dict[str, Any], filepath) -> None:
        """Write ``checkpoint`` to ``filepath`` atomically (the previous file survives any failure)."""
        from .checkpoint_io import save_checkpoint
        save_checkpoint(checkpoint, filepath)

    # ------------------------------------------------------------------------------------------------ restore
    def _load(self, path: str) -> Dict[str, Any]:
        from .checkpoint_io import load_checkpoint
        self._loaded = load_checkpoint(path)
        return self._loaded

    def restore_module_and_callbacks(self, path: str) -> None:
        """Datamodule state, ``on_load_checkpoint``, the weights, then the callbacks' state."""
        trainer = self.trainer
        if trainer.is_global_zero:  # fit, validate, test and predict alike, as Lightning's resume_start
            print(f"Restoring states from the checkpoint path at {path}")
        checkpoint = self._load(path)
        module = trainer.lightning_module
        dm = trainer.datamodule
        if dm is not None and type(dm).__qualname__ in checkpoint:
            dm.load_state_dict(checkpoint[type(dm).__qualname__])
        call_module_hook(trainer, "on_load_checkpoint", checkpoint)
        if "state_dict" not in checkpoint:
            raise KeyError(f"The checkpoint {path!r} has no 'state_dict': it is not an ember Trainer checkpoint")
        module.load_state_dict(checkpoint["state_dict"], strict=module.strict_loading)
        if trainer.state.fn == TrainerFn.FITTING:
            call_callback_hooks(trainer, "on_load_checkpoint", checkpoint)
            states = checkpoint.get("callbacks", {})
            for cb in trainer.callbacks:
                state = states.get(cb.state_key)
                if state:
                    cb.load_state_dict(state)

    def restore_training_state(self) -> None:
        """Optimizers, schedulers, loops and random states (fit only), after ``configure_optimizers``."""
        trainer = self.trainer
        checkpoint = self._loaded
        if checkpoint is None:
            return
        if "optimizer_states" not in checkpoint:
            raise KeyError("Trying to restore optimizer state but checkpoint contains only the model. This is "
                           "probably due to `ModelCheckpoint.save_weights_only` being set to `True`.")
        saved_opts = checkpoint["optimizer_states"]
        if len(saved_opts) != len(trainer.optimizers):
            raise MisconfigurationException(f"The checkpoint has {len(saved_opts)} optimizer states but "
                                            f"`configure_optimizers` returned {len(trainer.optimizers)} optimizers")
        for opt, state in zip(trainer.optimizers, saved_opts):
            opt.load_state_dict(state)
        for cfg, state in zip(trainer.lr_scheduler_configs, checkpoint.get("lr_schedulers", [])):
            cfg.scheduler.load_state_dict(state)
        loops = checkpoint.get("loops", {})
        if "fit_loop" in loops:
            trainer.fit_loop.load_state_dict(loops["fit_loop"])
        max_epochs = trainer.max_epochs
        if max_epochs not in (None, -1) and trainer.current_epoch > max_epochs:
            raise MisconfigurationException(
                f"You restored a checkpoint with current_epoch={trainer.current_epoch}, but you have set "
                f"Trainer(max_epochs={max_epochs}).")
        epoch = loops.get("fit_loop", {}).get("epoch_progress", {}).get("current", {})
        saved_at_epoch_end = epoch.get("processed", 0) > epoch.get("completed", 0)
        if "results" in checkpoint and not saved_at_epoch_end:  # at epoch end the sums were about to be reset
            trainer._logger_connector.load_train_results_state(checkpoint["results"])
        if "rng_states" in checkpoint:
            restore_rng_states(checkpoint["rng_states"])

    def release(self) -> None:
        self._loaded = None
