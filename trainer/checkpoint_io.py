"""Reading and writing ``.ckpt`` files, and rebuilding modules from them (``load_from_checkpoint``).

The container is ember's safe format (``em.save``): a zip of ``.npy`` arrays plus JSON, never pickle, written to a
temporary file, fsynced and renamed, so a failed save leaves the previous checkpoint intact.
"""
from __future__ import annotations

import errno
import os
from typing import Any, Dict, Optional

from .saving import CHECKPOINT_HYPER_PARAMS_KEY, CHECKPOINT_HYPER_PARAMS_NAME

__all__ = ["save_checkpoint", "load_checkpoint", "load_module_from_checkpoint", "CheckpointError"]


class CheckpointError(RuntimeError):
    """A checkpoint could not be written or read; the message names the file and the cause."""


def save_checkpoint(checkpoint: Dict[str, Any], filepath) -> None:
    """Write ``checkpoint`` to ``filepath`` atomically, creating the parent directory."""
    from ..core import _filesystem as fs
    from ..core.serialization import save
    if fs.is_remote(filepath):  # an fsspec URL: the whole file is built in memory, then stored in one call
        fs.write_file(filepath, lambda fh: save(checkpoint, fh))
        return
    path = fs.local_path(filepath)
    if os.path.isdir(path):
        raise IsADirectoryError(f"Cannot save the checkpoint to {path!r}: it is a directory; give a file path such "
                                "as 'checkpoints/last.ckpt'")
    parent = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(parent, exist_ok=True)
    except OSError as exc:
        raise CheckpointError(f"Cannot create the checkpoint directory {parent!r}: {exc.strerror}") from exc
    if not os.access(parent, os.W_OK):
        raise PermissionError(f"Cannot save the checkpoint to {path!r}: the directory {parent!r} is not writable")
    try:
        save(checkpoint, path)
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise CheckpointError(f"Cannot save the checkpoint to {path!r}: no space left on the device. The "
                                  "previous checkpoint (if any) was left intact.") from exc
        raise CheckpointError(f"Cannot save the checkpoint to {path!r}: {exc}. The previous checkpoint (if any) was "
                              "left intact.") from exc


def load_checkpoint(filepath, map_location=None) -> Dict[str, Any]:
    """Read a checkpoint; refuses pickles, foreign files and truncated files with a clear error."""
    import io

    from ..core import _filesystem as fs
    from ..core.serialization import load
    path = fs.local_path(filepath)
    if not fs.exists(path):
        raise FileNotFoundError(f"Checkpoint file not found: {path!r}")
    source = io.BytesIO(fs.read_bytes(path)) if fs.is_remote(path) else path
    checkpoint = load(source, map_location=map_location)
    if not isinstance(checkpoint, dict) or "state_dict" not in checkpoint:
        raise CheckpointError(f"{path!r} is an ember file but not a checkpoint (it has no 'state_dict'); it was "
                              "probably written with em.save rather than Trainer.save_checkpoint")
    return checkpoint


def _init_kwargs(cls, checkpoint: Dict[str, Any], prefix: str) -> Dict[str, Any]:
    """The ``__init__`` keyword arguments of the saved hyperparameters: as they are, or, when they were one config
    object (``save_hyperparameters(cfg)``), under that argument's name (Lightning's ``hparams_name``)."""
    import inspect
    hparams = dict(checkpoint.get(prefix + CHECKPOINT_HYPER_PARAMS_KEY, {}))
    name = checkpoint.get(prefix + CHECKPOINT_HYPER_PARAMS_NAME)
    if name and name != "kwargs" and name in inspect.signature(cls.__init__).parameters:
        return {name: hparams}
    return hparams


def load_module_from_checkpoint(cls, checkpoint_path, strict: Optional[bool] = None, overrides=None,
                                map_location=None):
    """Instantiate ``cls`` from the checkpoint's hyperparameters (``overrides`` win), then load the weights."""
    checkpoint = load_checkpoint(checkpoint_path, map_location=map_location)
    hparams = _init_kwargs(cls, checkpoint, "")
    hparams.update(overrides or {})
    try:
        obj = cls(**hparams)
    except TypeError as exc:
        raise TypeError(f"{cls.__qualname__}.load_from_checkpoint could not rebuild the module from the saved "
                        f"hyperparameters {sorted(hparams)}: {exc}. Call `self.save_hyperparameters()` in __init__, "
                        "or pass the missing arguments as keyword arguments") from exc
    if hasattr(obj, "on_load_checkpoint"):
        obj.on_load_checkpoint(checkpoint)
    if hasattr(obj, "load_state_dict") and "state_dict" in checkpoint and hasattr(obj, "parameters"):
        strict = obj.strict_loading if strict is None and hasattr(obj, "strict_loading") else \
            (True if strict is None else strict)
        obj.load_state_dict(checkpoint["state_dict"], strict=strict)
    return obj


def load_datamodule_from_checkpoint(cls, checkpoint_path, overrides=None, map_location=None):
    """Instantiate a LightningDataModule from the checkpoint's datamodule hyperparameters and state."""
    checkpoint = load_checkpoint(checkpoint_path, map_location=map_location)
    hparams = _init_kwargs(cls, checkpoint, "datamodule_")
    hparams.update(overrides or {})
    obj = cls(**hparams)
    state = checkpoint.get(cls.__qualname__)
    if state:
        obj.load_state_dict(state)
    return obj
