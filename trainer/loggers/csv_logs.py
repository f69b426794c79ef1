"""``CSVLogger``: metrics to ``metrics.csv`` and hyperparameters to ``hparams.yaml``, in ``save_dir/name/version_N``.

Both files are always replaced atomically (a temporary file in the same directory, fsynced, then ``os.replace``), so
a crash or a full disk never leaves a half-written file: readers see the previous complete version or the new one.

The helpers at the bottom (versioned run directories, hyperparameter flattening, atomic YAML) are shared with
:mod:`ember.trainer.loggers.tensorboard`.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import os
import warnings
from argparse import Namespace
from collections.abc import Mapping
from enum import Enum
from typing import Any, Dict, List, Optional, Union

from ...core import _filesystem as fs
from .logger import Logger, rank_zero_experiment

__all__ = ["CSVLogger", "ExperimentWriter", "save_hparams_to_yaml"]


class ExperimentWriter:
    """The object behind ``CSVLogger.experiment``: buffers metric rows and writes them to ``metrics.csv``.

    Args:
        log_dir: the run directory (created if needed). An existing ``metrics.csv`` in it is removed, with a
            warning, because its rows belong to another run.
    """

    NAME_METRICS_FILE = "metrics.csv"
    NAME_HPARAMS_FILE = "hparams.yaml"

    def __init__(self, log_dir: str) -> None:
        self.hparams: Dict[str, Any] = {}
        self.metrics: List[Dict[str, Any]] = []
        self.metrics_keys: List[str] = []
        self.log_dir = log_dir
        self.metrics_file_path = os.path.join(log_dir, self.NAME_METRICS_FILE)
        self._check_log_dir_exists()
        fs.makedirs(log_dir)

    def _check_log_dir_exists(self) -> None:
        if fs.isdir(self.log_dir) and fs.listdir(self.log_dir):
            warnings.warn(f"Experiment logs directory {self.log_dir} exists and is not empty. Previous log files in "
                          "this directory will be deleted when the new ones are saved!", UserWarning)
            if fs.isfile(self.metrics_file_path):
                fs.remove(self.metrics_file_path)

    def log_hparams(self, params: Dict[str, Any]) -> None:
        """Record hyperparameters and write all of them to ``hparams.yaml`` right away (as Lightning 2.x)."""
        self.hparams.update(params)
        save_hparams_to_yaml(os.path.join(self.log_dir, self.NAME_HPARAMS_FILE), self.hparams)

    def log_metrics(self, metrics_dict: Dict[str, Any], step: Optional[int] = None) -> None:
        """Buffer one row: the metrics plus ``step`` (the row number when ``step`` is None)."""
        if step is None:
            step = len(self.metrics)
        row = {k: (v.item() if hasattr(v, "item") else v) for k, v in metrics_dict.items()}
        row["step"] = step
        self.metrics.append(row)

    def save(self) -> None:
        """Write ``hparams.yaml`` and the buffered rows; a new column rewrites the file under the new header."""
        if self.hparams:
            save_hparams_to_yaml(os.path.join(self.log_dir, self.NAME_HPARAMS_FILE), self.hparams)
        if not self.metrics:
            return
        new_keys = set().union(*self.metrics) - set(self.metrics_keys)
        if new_keys:
            self.metrics_keys = sorted(set(self.metrics_keys) | new_keys)
        file_exists = fs.isfile(self.metrics_file_path)

        def write(tmp):
            if file_exists and not new_keys:
                # same header: the old content verbatim, then the new rows
                tmp.write(fs.read_bytes(self.metrics_file_path))
                text = io.TextIOWrapper(tmp, encoding="utf-8", newline="")
                csv.DictWriter(text, fieldnames=self.metrics_keys).writerows(self.metrics)
            else:
                old_rows = []
                if file_exists:
                    old_text = fs.read_bytes(self.metrics_file_path).decode("utf-8")
                    old_rows = list(csv.DictReader(io.StringIO(old_text, newline="")))
                text = io.TextIOWrapper(tmp, encoding="utf-8", newline="")
                writer = csv.DictWriter(text, fieldnames=self.metrics_keys)
                writer.writeheader()
                writer.writerows(old_rows)
                writer.writerows(self.metrics)
            text.flush()
            text.detach()

        _atomic_write(self.metrics_file_path, write)
        self.metrics = []


class VersionedLogger(Logger):
    """A logger writing under ``save_dir/name/version_N`` (the next free N unless a version is given); subclasses
    set ``_save_dir``, ``_name`` and ``_version``."""

    @property
    def name(self) -> str:
        """The experiment name."""
        return self._name

    @property
    def version(self) -> Union[int, str]:
        """The run version (the next free ``version_N`` number unless one was given)."""
        if self._version is None:
            self._version = next_version(self.root_dir)
        return self._version

    @property
    def save_dir(self) -> str:
        """The root directory given as ``save_dir``."""
        return self._save_dir

    @property
    def root_dir(self) -> str:
        """``save_dir/name``: where the versions live (``name`` is read through the property, so a subclass may
        override it)."""
        name = self.name
        return os.path.join(self._save_dir, name) if name else self._save_dir


class CSVLogger(VersionedLogger):
    r"""Log to the local file system as CSV and YAML (Lightning's ``CSVLogger``).

    Metrics go to ``save_dir/name/version_N/metrics.csv``: one row per ``log_metrics`` call with a ``step`` column
    and one column per metric (the sorted union of all keys seen; a key that appears later rewrites the file with
    the wider header, keeping the earlier rows). Hyperparameters go to ``hparams.yaml`` beside it.

    Args:
        save_dir: the root directory: a local path, or an fsspec URL (``memory://``, ``s3://``...; needs fsspec).
        name: the experiment name (a sub-directory of ``save_dir``); empty for none.
        version: the run version: an int gives ``version_<int>``, a string is used as is; ``None`` takes the next
            free ``version_N``.
        prefix: a string put in front of every metric key (joined with ``-``).
        flush_logs_every_n_steps: how often (in logged steps) buffered rows are written to disk.

    Example::

        trainer = em.Trainer(logger=CSVLogger("logs", name="mnist"))
    """

    LOGGER_JOIN_CHAR = "-"

    def __init__(self, save_dir: Union[str, os.PathLike], name: Optional[str] = "lightning_logs",
                 version: Optional[Union[int, str]] = None, prefix: str = "",
                 flush_logs_every_n_steps: int = 100) -> None:
        super().__init__()
        if isinstance(flush_logs_every_n_steps, bool) or not isinstance(flush_logs_every_n_steps, int) or \
                flush_logs_every_n_steps < 1:
            raise ValueError(f"CSVLogger(flush_logs_every_n_steps={flush_logs_every_n_steps!r}): expected an int "
                             ">= 1")
        self._save_dir = os.fspath(save_dir)
        self._name = name or ""
        self._version = version
        self._prefix = prefix
        self._flush_logs_every_n_steps = flush_logs_every_n_steps
        self._experiment: Optional[ExperimentWriter] = None


    @property
    def log_dir(self) -> str:
        """``save_dir/name/version_N``: this run's directory."""
        version = self.version if isinstance(self.version, str) else f"version_{self.version}"
        return os.path.join(self.root_dir, version)

    @property
    @rank_zero_experiment
    def experiment(self) -> ExperimentWriter:
        """The :class:`ExperimentWriter` (created with the run directory on first use)."""
        if self._experiment is None:
            self._experiment = ExperimentWriter(log_dir=self.log_dir)
        return self._experiment

    def log_hyperparams(self, params: Union[Dict[str, Any], Namespace, None] = None, *args: Any,
                        **kwargs: Any) -> None:
        """Record hyperparameters (a dict, a ``Namespace`` or an OmegaConf ``DictConfig``) and write
        ``hparams.yaml``."""
        self.experiment.log_hparams(convert_params(params))

    def log_metrics(self, metrics: Dict[str, float], step: Optional[int] = None) -> None:
        """Buffer one row of metrics at ``step``; rows reach the disk every ``flush_logs_every_n_steps`` steps."""
        metrics = add_prefix(metrics, self._prefix, self.LOGGER_JOIN_CHAR)
        if step is None:  # Lightning counts the rows still buffered
            step = len(self.experiment.metrics)
        self.experiment.log_metrics(metrics, step)
        if (step + 1) % self._flush_logs_every_n_steps == 0:
            self.save()

    def save(self) -> None:
        """Write the buffered rows and the hyperparameters (atomically)."""
        if self._experiment is not None:
            self._experiment.save()

    def finalize(self, status: str) -> None:
        """Write everything still buffered."""
        if self._experiment is None:
            return  # nothing was logged: do not create a directory now
        self.save()


# ------------------------------------------------------------------------------------------- shared helpers
def next_version(root_dir: str) -> int:
    """One more than the largest ``version_<int>`` directory in ``root_dir`` (0 if there is none)."""
    try:
        names = fs.listdir(root_dir) if fs.isdir(root_dir) else []
    except (FileNotFoundError, NotADirectoryError):
        return 0
    versions = []
    for name in names:
        if name.startswith("version_") and fs.isdir(os.path.join(root_dir, name)):
            suffix = name[len("version_"):]
            if suffix.isdigit():
                versions.append(int(suffix))
    return max(versions) + 1 if versions else 0


def add_prefix(metrics: Dict[str, Any], prefix: str, separator: str) -> Dict[str, Any]:
    """``{prefix}{separator}{key}`` for every key (unchanged without a prefix)."""
    if not prefix:
        return metrics
    return {f"{prefix}{separator}{k}": v for k, v in metrics.items()}


def convert_params(params) -> Dict[str, Any]:
    """Hyperparameters as a plain dict: a mapping (an OmegaConf ``DictConfig`` is resolved into plain dicts and
    lists), a ``Namespace`` or ``None``."""
    from ..hparams import plain_config
    if params is None:
        return {}
    if isinstance(params, Namespace) or isinstance(params, Mapping):
        return plain_config(params)
    raise TypeError(f"log_hyperparams expects a dict, an argparse.Namespace or an OmegaConf DictConfig, got "
                    f"{type(params).__name__}")


def flatten_dict(params: Dict[str, Any], delimiter: str = "/", parent_key: str = "") -> Dict[str, Any]:
    """``{"a": {"b": 1}}`` -> ``{"a/b": 1}`` (namespaces and dataclass instances count as dicts; as in Lightning, an
    empty nested dict leaves no key)."""
    out: Dict[str, Any] = {}
    for key, value in params.items():
        name = f"{parent_key}{delimiter}{key}" if parent_key else str(key)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            value = dataclasses.asdict(value)
        elif isinstance(value, Namespace):
            value = vars(value)
        if isinstance(value, Mapping):
            out.update(flatten_dict(value, delimiter, name))
        else:
            out[name] = value
    return out


def _yaml_safe(value):
    """A YAML-safe form of ``value`` (plain types), or raise TypeError."""
    import numpy as np
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Enum):
        return value.name
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_yaml_safe(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _yaml_safe(v) for k, v in value.items()}
    if isinstance(value, Namespace):
        return _yaml_safe(vars(value))
    raise TypeError(type(value).__name__)


def save_hparams_to_yaml(path: str, hparams: Union[Dict[str, Any], Namespace]) -> None:
    """Write ``hparams`` to ``path`` as YAML, atomically. Values YAML cannot represent safely are skipped with a
    warning naming them (nothing is ever pickled or written as a Python object tag)."""
    import yaml
    allowed = {}
    for key, value in convert_params(hparams).items():
        try:
            allowed[key] = _yaml_safe(value)
        except TypeError:
            warnings.warn(f"Skipping '{key}' parameter because it is not possible to safely dump to YAML.",
                          UserWarning)
    text = yaml.safe_dump(allowed, sort_keys=False)
    _atomic_write(path, lambda fh: fh.write(text.encode("utf-8")))


def _atomic_write(path: str, write) -> None:
    """Create ``path``'s directory, then write it: locally with ember's one atomic write (temp file, fsync, rename),
    through fsspec for a URL."""
    fs.write_file(path, write)
