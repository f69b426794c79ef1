"""``TensorBoardLogger``: scalars, hyperparameters (HParams dashboard) and the model graph, via tensorboardX (through
:class:`ember.utils.tensorboard.SummaryWriter`, which accepts ember tensors).

The run directory is ``save_dir/name/version_N`` (plus ``sub_dir``), created when something is first written. The
model graph is traced by the ONNX exporter's op tracer (no torch): see
:func:`ember.utils._tensorboard_graph.build_graph_def`.
"""
from __future__ import annotations

import itertools
import os
import warnings
from argparse import Namespace
from typing import Any, Dict, Optional, Union

import numpy as np

from ...core import _filesystem as fs
from .csv_logs import VersionedLogger, add_prefix, convert_params, flatten_dict, save_hparams_to_yaml
from ...utils._tensorboard_graph import build_graph_def
from .logger import rank_zero_experiment

__all__ = ["TensorBoardLogger", "build_graph_def"]


_WRITER_COUNTER = itertools.count()


class TensorBoardLogger(VersionedLogger):
    r"""Log to TensorBoard event files with tensorboardX (Lightning's ``TensorBoardLogger``; the default logger).

    Files go to ``save_dir/name/version_N/``: ``events.out.tfevents.*`` and ``hparams.yaml``; ModelCheckpoint puts
    its ``checkpoints/`` there too. Metrics are scalars whose x-axis is the step (the number of optimizer-stepping
    batches), with an ``epoch`` scalar beside them.

    Args:
        save_dir: the root directory: a local path, or an fsspec URL (``memory://``, ``s3://``...; needs fsspec;
            the event files are written to a local staging directory and copied there on every ``save()``).
        name: the experiment name (a sub-directory of ``save_dir``); empty for none.
        version: an int gives ``version_<int>``, a string is used as the directory name; ``None`` takes the next
            free ``version_N``.
        log_graph: write the model's graph (traced from ``example_input_array``) at the start of fit.
        default_hp_metric: log ``hp_metric = -1`` with the hyperparameters so that the HParams dashboard has a
            metric (log ``"hp_metric"`` yourself to fill it in).
        prefix: a string put in front of every metric key (joined with ``-``).
        sub_dir: a sub-directory of the run directory for the event files.
        \**kwargs: passed to ``tensorboardX.SummaryWriter`` (e.g. ``flush_secs``, ``max_queue``).

    Example::

        logger = TensorBoardLogger("tb_logs", name="my_model")
        trainer = em.Trainer(logger=logger)
        logger.experiment.add_histogram("weights", model.layer.weight, 0)   # the SummaryWriter, takes ember tensors
    """

    NAME_HPARAMS_FILE = "hparams.yaml"
    LOGGER_JOIN_CHAR = "-"

    def __init__(self, save_dir: Union[str, os.PathLike], name: Optional[str] = "lightning_logs",
                 version: Optional[Union[int, str]] = None, log_graph: bool = False, default_hp_metric: bool = True,
                 prefix: str = "", sub_dir: Optional[Union[str, os.PathLike]] = None, **kwargs: Any) -> None:
        super().__init__()
        self._save_dir = os.fspath(save_dir)
        self._name = name or ""
        self._version = version
        self._log_graph = bool(log_graph)
        self._default_hp_metric = default_hp_metric
        self._prefix = prefix
        self._sub_dir = None if sub_dir is None else os.fspath(sub_dir)
        self._kwargs = kwargs
        self._experiment = None
        self._staging: Optional[str] = None  # local directory of the event files when save_dir is an fsspec URL
        self.hparams: Dict[str, Any] = {}

    # ------------------------------------------------------------------------------------------ directories

    @property
    def sub_dir(self) -> Optional[str]:
        """The optional sub-directory of the run directory."""
        return self._sub_dir

    @property
    def log_dir(self) -> str:
        """``save_dir/name/version_N[/sub_dir]``: where the event files go."""
        version = self.version if isinstance(self.version, str) else f"version_{self.version}"
        log_dir = os.path.join(self.root_dir, version)
        if self._sub_dir:
            log_dir = os.path.join(log_dir, self._sub_dir)
        return os.path.expanduser(os.path.expandvars(log_dir))

    @property
    @rank_zero_experiment
    def experiment(self):
        """The :class:`ember.utils.tensorboard.SummaryWriter` of this run (created on first use), for images,
        histograms, text...; it is tensorboardX's writer, accepting ember tensors."""
        if self._experiment is None:
            from ...utils.tensorboard import SummaryWriter
            fs.makedirs(self.log_dir)
            kwargs = dict(self._kwargs)
            # tensorboardX names event files by the second and host only: a second writer in the same second (a
            # fit followed by a test) would overwrite the first one's file
            kwargs.setdefault("filename_suffix", f".{os.getpid()}.{next(_WRITER_COUNTER)}")
            logdir = self.log_dir
            if fs.is_remote(logdir):  # tensorboardX writes local files: stage them, upload them on save()
                import tempfile
                self._staging = logdir = tempfile.mkdtemp(prefix="ember-tensorboard-")
            self._experiment = SummaryWriter(logdir=logdir, **kwargs)
        return self._experiment

    def _upload(self) -> None:
        """Copy the staged event files of a URL ``save_dir`` to the run directory (whole files, so a reader always
        sees complete ones)."""
        if self._staging is None:
            return
        for name in os.listdir(self._staging):
            data = fs.read_bytes(os.path.join(self._staging, name))
            fs.write_file(os.path.join(self.log_dir, name), lambda fh, data=data: fh.write(data))

    # ---------------------------------------------------------------------------------------------- logging
    def log_metrics(self, metrics: Dict[str, Any], step: Optional[int] = None) -> None:
        """Write each metric as a scalar at ``step`` (a dict value becomes a group written by ``add_scalars``)."""
        metrics = add_prefix(metrics, self._prefix, self.LOGGER_JOIN_CHAR)
        writer = self.experiment
        for key, value in metrics.items():
            if hasattr(value, "item") and not isinstance(value, dict):
                value = value.item()
            if isinstance(value, dict):
                writer.add_scalars(key, value, step)
                continue
            try:
                writer.add_scalar(key, value, step)
            except Exception as exc:
                raise ValueError(f"\n you tried to log {value!r} (key {key!r}) which is currently not supported. Try a "
                                 "dict or a scalar/tensor.") from exc

    def log_hyperparams(self, params: Union[Dict[str, Any], Namespace, None] = None,
                        metrics: Optional[Union[Dict[str, float], float]] = None, step: Optional[int] = None) -> None:
        """Record hyperparameters for the HParams dashboard and ``hparams.yaml``.

        Args:
            params: the hyperparameters (nested dicts are flattened with ``/``).
            metrics: the metrics to show beside them; ``None`` logs ``hp_metric = -1`` when ``default_hp_metric``
                is set, and a number ``x`` means ``{"hp_metric": x}``.
            step: the step of the metric values.
        """
        params = convert_params(params)
        self.hparams.update(params)
        flat = _sanitize_params(flatten_dict(params))
        if metrics is None:
            if self._default_hp_metric:
                metrics = {"hp_metric": -1}
        elif not isinstance(metrics, dict):
            metrics = {"hp_metric": metrics}
        if metrics:
            self.log_metrics(metrics, step)
            from tensorboardX.summary import hparams
            experiment, start, end = hparams(flat, metrics)
            writer = self.experiment._get_file_writer()
            writer.add_summary(experiment, step)
            writer.add_summary(start, step)
            writer.add_summary(end, step)

    def log_graph(self, model, input_array=None) -> None:
        """Write ``model``'s graph, traced on ``input_array`` (default ``model.example_input_array``), for
        TensorBoard's Graphs dashboard. Does nothing unless the logger was created with ``log_graph=True``."""
        if not self._log_graph:
            return
        input_array = getattr(model, "example_input_array", None) if input_array is None else input_array
        from ...core.tensor import Tensor
        if input_array is None:
            warnings.warn("Could not log computational graph to TensorBoard: The `model.example_input_array` attribute"
                          " is not set or `input_array` was not given.", UserWarning)
            return
        if not isinstance(input_array, (Tensor, tuple, list)):
            warnings.warn(f"Could not log computational graph to TensorBoard: The `input_array` or "
                          f"`model.example_input_array` has type {type(input_array)} which can't be traced by "
                          "TensorBoard. Make the input array a tuple representing the positional arguments to the "
                          "model's `forward()` implementation.", UserWarning)
            return
        self.experiment.add_graph(model, tuple(input_array) if isinstance(input_array, list) else input_array)

    def save(self) -> None:
        """Flush the event files and write ``hparams.yaml`` (once, when the run directory exists)."""
        if self._experiment is not None:
            self._experiment.flush()
            self._upload()
        hparams_file = os.path.join(self.log_dir, self.NAME_HPARAMS_FILE)
        if fs.isdir(self.log_dir) and not fs.isfile(hparams_file):
            save_hparams_to_yaml(hparams_file, self.hparams)

    def finalize(self, status: str) -> None:
        """Flush and close the writer (a later log call opens a new event file in the same directory)."""
        if status == "success":
            self.save()  # hparams.yaml, even with no hyperparameters, once the run directory exists
        if self._experiment is None:
            return
        self._experiment.flush()
        self._experiment.close()
        self._upload()  # the staging directory stays: a later log call (fit, then test) reopens the writer there

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_experiment"] = None  # a SummaryWriter holds threads and open files
        return state


def _sanitize_params(params: Dict[str, Any]) -> Dict[str, Any]:
    """Values TensorBoard's HParams plugin can show: numbers, bools, strings; anything else (``None`` included) as
    its ``str``, as Lightning does."""
    out = {}
    for key, value in params.items():
        if isinstance(value, np.generic):
            value = value.item()
        elif hasattr(value, "item") and hasattr(value, "numel") and value.numel() == 1:
            value = value.item()
        elif not isinstance(value, (bool, int, float, str)):
            value = str(value)  # as Lightning: None shows as "None", a list as its text
        out[key] = value
    return out
