"""``SaveConfigCallback``: writes the resolved config into the run's log directory, so a run can be repeated."""
from __future__ import annotations

import os
from typing import Any, Dict, Iterable, Optional

from ...callbacks.callback import Callback
from .errors import ConfigError

__all__ = ["SaveConfigCallback"]


class SaveConfigCallback(Callback):
    """Saves the fully resolved config as ``config.yaml`` in ``trainer.log_dir`` when the run starts (rank 0).

    Args:
        config: the resolved config (every default filled in).
        config_filename: the file name inside the log directory.
        overwrite: replace an existing file; without it an existing file is an error, so the config of an earlier
            run is never lost.
        input_files: the config files the run was started from; never overwritten, even with ``overwrite``.
        import_dirs: the directories the config's own classes (``model.MyModel``) were imported from. They are
            saved as ``import_paths``, relative to the saved file, so that ``trainer fit <log dir>/config.yaml``
            finds the same modules from any working directory.
    """

    def __init__(self, config: Dict[str, Any], config_filename: str = "config.yaml", overwrite: bool = False,
                 input_files: Iterable[str] = (), import_dirs: Iterable[str] = ()) -> None:
        self.config = config
        self.import_dirs = list(import_dirs)
        self.config_filename = config_filename
        self.overwrite = overwrite
        self.input_files = [os.path.abspath(f) for f in input_files]
        self.saved_path: Optional[str] = None
        self.keep_existing = False  # set by the CLI when a resumed run continues in its own log directory
        self._done = False

    def setup(self, trainer, pl_module, stage: str) -> None:
        """Write the config (once per CLI run)."""
        if self._done:
            return
        log_dir = trainer.log_dir
        path = os.path.join(log_dir, self.config_filename)
        if trainer.is_global_zero and not (self.keep_existing and os.path.isfile(path)):
            self._check(path)
            self.save_config(path)
        self.saved_path = path
        self._done = True

    def _check(self, path: str) -> None:
        shown = os.path.relpath(path) if not os.path.relpath(path).startswith("..") else path
        if os.path.abspath(path) in self.input_files:
            raise ConfigError(f"the resolved config would be saved to {shown}, which is the config this run was "
                              "started from; set trainer.default_root_dir or enable a logger so that the run has "
                              "its own log directory")
        if os.path.exists(path) and not self.overwrite:
            raise ConfigError(f"{shown} already exists (the config of an earlier run in the same log directory); "
                              "pass --overwrite to replace it, or give the run another log directory "
                              "(trainer.default_root_dir or the logger's version)")

    def save_config(self, path: str) -> None:
        """Write ``self.config`` to ``path`` atomically (override to also send it to a logger)."""
        from ... import __version__
        from .config_files import dump_config
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        from ...core.serialization import atomic_write
        config = self.config
        if self.import_dirs:
            here = os.path.dirname(os.path.abspath(path))
            config = {"import_paths": [_relative_or_absolute(d, here) for d in self.import_dirs], **config}
        text = dump_config(config, header=f"ember=={__version__}").encode("utf-8")
        atomic_write(path, lambda fh: fh.write(text))


def _relative_or_absolute(directory: str, start: str) -> str:
    """``directory`` relative to ``start`` when they share more than the filesystem root (a project moved or
    copied as a whole keeps working), else absolute."""
    directory = os.path.abspath(directory)
    common = os.path.commonpath([directory, os.path.abspath(start)])
    if os.path.dirname(common) == common:  # only "/" (or a drive) in common
        return directory
    return os.path.relpath(directory, start)
