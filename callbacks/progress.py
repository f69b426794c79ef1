"""Progress bars: the ``ProgressBar`` base and the tqdm-based ``TQDMProgressBar``.

On a terminal the bars behave as Lightning's ``TQDMProgressBar``: the epoch bar updates in place every
``refresh_rate`` batches with the ``prog_bar`` metrics in its postfix, the validation bar runs transiently on the
line below it, and finished epoch bars stay on screen. When the stream is not a terminal (CI logs, a redirected
file) there are no carriage-return updates at all: each bar prints one clean line when it finishes.
"""
from __future__ import annotations

import math
import sys
import time
from typing import Any, Callable, Dict, Optional, Union

from .callback import Callback

__all__ = ["ProgressBar", "TQDMProgressBar"]

# Postfix numbers are padded to this many characters, as Lightning's bar does, so the bar's width does not jump
# when a value goes from 0.5 to 0.123.
_PAD = 5


class ProgressBar(Callback):
    """Base class of progress bars: knows the trainer, the batch totals and which metrics to show (Lightning's
    ``ProgressBar``). Subclass it for a custom bar and read :attr:`total_train_batches` & co. in the hooks."""

    def __init__(self):
        self._enabled = True
        self._trainer = None
        self._current_eval_dataloader_idx: Optional[int] = None

    @property
    def trainer(self):
        """The trainer this bar is attached to (set in ``setup``); a ``TypeError`` before that, as in Lightning."""
        if self._trainer is None:
            raise TypeError(f"The `{type(self).__name__}._trainer` reference has not been set yet.")
        return self._trainer

    def setup(self, trainer, pl_module, stage: str) -> None:
        """Remember the trainer; only the global-zero process shows a bar."""
        self._trainer = trainer
        if not trainer.is_global_zero:
            self.disable()

    @property
    def sanity_check_description(self) -> str:
        """The sanity-check bar's description."""
        return "Sanity Checking"

    @property
    def train_description(self) -> str:
        """The training bar's description before the first epoch starts."""
        return "Training"

    @property
    def validation_description(self) -> str:
        """The validation bar's description."""
        return "Validation"

    @property
    def test_description(self) -> str:
        """The test bar's description."""
        return "Testing"

    @property
    def predict_description(self) -> str:
        """The predict bar's description."""
        return "Predicting"

    @property
    def total_train_batches(self) -> Union[int, float]:
        """The training batches of this epoch (``inf`` for an unsized loader); with ``max_epochs=-1`` and
        ``max_steps`` it is capped at the steps left."""
        trainer = self.trainer
        if trainer.max_epochs == -1 and trainer.max_steps is not None and trainer.max_steps > 0:
            return min(trainer.num_training_batches, trainer.max_steps - trainer.global_step)
        return trainer.num_training_batches

    @property
    def total_val_batches(self) -> Union[int, float]:
        """The validation batches of this epoch over all val dataloaders; 0 when this epoch does not validate."""
        trainer = self.trainer
        if not trainer.fit_loop.epoch_loop.should_check_val_epoch():
            return 0
        return sum(trainer.num_val_batches)

    def _current(self, batches) -> Union[int, float]:
        if self._current_eval_dataloader_idx is None:
            raise TypeError(f"{type(self).__name__}: no evaluation dataloader is running")
        return batches[self._current_eval_dataloader_idx]

    @property
    def total_val_batches_current_dataloader(self) -> Union[int, float]:
        """The batches of the val (or sanity-check) dataloader being run."""
        trainer = self.trainer
        return self._current(trainer.num_sanity_val_batches if trainer.sanity_checking else trainer.num_val_batches)

    @property
    def total_test_batches_current_dataloader(self) -> Union[int, float]:
        """The batches of the test dataloader being run."""
        return self._current(self.trainer.num_test_batches)

    @property
    def total_predict_batches_current_dataloader(self) -> Union[int, float]:
        """The batches of the predict dataloader being run."""
        return self._current(self.trainer.num_predict_batches)

    def has_dataloader_changed(self, dataloader_idx: int) -> bool:
        """Record ``dataloader_idx`` as the current evaluation dataloader; True if it differs from the last one."""
        old, self._current_eval_dataloader_idx = self._current_eval_dataloader_idx, dataloader_idx
        return old != dataloader_idx

    def reset_dataloader_idx_tracker(self) -> None:
        """Forget the current evaluation dataloader (at the end of an evaluation run)."""
        self._current_eval_dataloader_idx = None

    def print(self, *args: Any, **kwargs: Any) -> None:
        """Print without breaking the bar."""
        print(*args, **kwargs)

    def enable(self) -> None:
        """Show the bar again."""
        self._enabled = True

    def disable(self) -> None:
        """Hide the bar (e.g. on processes other than rank zero)."""
        self._enabled = False

    @property
    def is_enabled(self) -> bool:
        """Whether the bar is shown."""
        return self._enabled

    def get_metrics(self, trainer, pl_module) -> Dict[str, Any]:
        """What the bar shows: ``v_num`` (the logger's version) and the values logged with ``prog_bar=True``."""
        items: Dict[str, Any] = {}
        if trainer.loggers:
            version = trainer.loggers[0].version
            if version is not None and version != "":
                items["v_num"] = version[-4:] if isinstance(version, str) else version
        for k, v in trainer.progress_bar_metrics.items():
            items[k] = v.item() if hasattr(v, "item") else v
        return items


def _total(value) -> Optional[int]:
    return None if value is None or value == math.inf else int(value)


def _fmt(value, pad: bool) -> str:
    """A postfix value: floats with 3 significant digits; on a live bar padded with zeros to a steady width
    (``0.500``), so that the bar does not jump."""
    if isinstance(value, bool) or not isinstance(value, float):
        return str(value)
    text = f"{value:.3g}"
    if not pad or "e" in text or "n" in text:  # 1e-05, nan, inf
        return text
    if "." not in text and len(text) < _PAD:
        text += "."
    return text + "0" * (_PAD - len(text))


def _postfix_text(metrics: Optional[Dict[str, Any]], pad: bool = True) -> str:
    return ", ".join(f"{k}={_fmt(v, pad)}" for k, v in (metrics or {}).items())


class _StaticBar:
    """A bar for a stream that is not a terminal: counts silently and prints one ``tqdm``-style line at the end."""

    def __init__(self, desc: str, total: Optional[int], stream) -> None:
        self.desc = desc
        self.total = total
        self.n = 0
        self.stream = stream
        self.postfix: Union[Dict[str, Any], Callable[[], Dict[str, Any]], None] = None
        self.start = time.monotonic()

    def reset(self, total: Optional[int]) -> None:
        self.total, self.n, self.start = total, 0, time.monotonic()

    # the parts of tqdm's interface a callback may use on ``TQDMProgressBar.train_progress_bar`` & co.
    def set_description(self, desc: str, refresh: bool = True) -> None:
        self.desc = desc

    def set_postfix(self, ordered_dict=None, refresh: bool = True, **kwargs) -> None:
        self.postfix = {**(ordered_dict or {}), **kwargs}

    def update(self, n: int = 1) -> None:
        self.n += n

    def update_to(self, n: int, metrics=None, refresh_rate: int = 1) -> None:
        # (refresh_rate is there for step_to: a line printed at the end has nothing to refresh)
        self.n = n
        if metrics is not None:
            self.postfix = metrics  # kept unevaluated: building it every batch would cost more than the bar

    step_to = update_to  # a batch is done: this bar draws nothing before it ends, so every batch just counts

    def close(self, metrics=None, print_line: bool = True) -> None:
        if not print_line:
            return
        from tqdm import tqdm
        postfix = metrics if metrics is not None else self.postfix
        if callable(postfix):
            postfix = postfix()
        line = tqdm.format_meter(self.n, self.total, time.monotonic() - self.start, prefix=self.desc,
                                 postfix=_postfix_text(postfix, pad=False) or None, ncols=None)
        print(line, file=self.stream, flush=True)


class _TerminalBar:
    """A live tqdm bar on a terminal."""

    def __init__(self, desc: str, total: Optional[int], stream, position: int, leave: bool) -> None:
        from tqdm.auto import tqdm
        self.bar = tqdm(desc=desc, total=total, leave=leave, position=position, dynamic_ncols=True, file=stream,
                        smoothing=0, bar_format=TQDMProgressBar.BAR_FORMAT)

    @property
    def n(self) -> int:
        return self.bar.n

    def reset(self, total: Optional[int]) -> None:
        self.bar.reset(total=total)

    def set_description(self, desc: str) -> None:
        self.bar.set_description(desc, refresh=False)

    def update_to(self, n: int, metrics=None) -> None:
        self.bar.n = n
        if metrics is not None:
            self.bar.set_postfix_str(_postfix_text(metrics() if callable(metrics) else metrics), refresh=False)
        self.bar.refresh()

    def step_to(self, n: int, metrics, refresh_rate: int) -> None:
        """A batch is done: draw every ``refresh_rate`` batches, and at the last one."""
        total = self.bar.total
        if n % refresh_rate == 0 or (total is not None and n >= total):
            self.update_to(n, metrics)

    def close(self, metrics=None, print_line: bool = True) -> None:
        if metrics is not None:
            self.update_to(self.bar.n, metrics)
        self.bar.close()


_ROLES = {"main": "train", "sanity": "val", "val": "val", "test": "test", "predict": "predict"}


class TQDMProgressBar(ProgressBar):
    """A tqdm progress bar per stage, showing the epoch, batch progress, it/s, ``v_num`` and ``prog_bar`` metrics.

    On a terminal it behaves as Lightning's ``TQDMProgressBar``: the training bar and its metrics update every
    ``refresh_rate`` batches, the validation bar appears below it while validation runs and then disappears, and
    the test and predict bars stay. Elsewhere (a file, a CI log) each bar prints one line when it ends.

    Args:
        refresh_rate: update the bar every this many batches (0 disables the bar).
        process_position: the terminal line of the bars (for several trainers at once): bars use lines
            ``2 * process_position`` and the one below it, as in Lightning.
        leave: keep every finished epoch bar on screen, one line per epoch. ember's default is True, so that a
            terminal shows the same per-epoch history as a log file; False reuses one bar for all epochs
            (Lightning's default).
    """

    BAR_FORMAT = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}{postfix}]"

    def __init__(self, refresh_rate: int = 1, process_position: int = 0, leave: bool = True):
        super().__init__()
        if not isinstance(refresh_rate, int) or isinstance(refresh_rate, bool) or refresh_rate < 0:
            raise ValueError(f"TQDMProgressBar(refresh_rate={refresh_rate!r}): expected an int >= 0")
        self.refresh_rate = refresh_rate
        self.process_position = process_position
        self.leave = leave
        self._bars: Dict[str, Any] = {}
        self._latest: Dict[str, Any] = {}  # role ("train", "val", ...) -> its latest bar, kept after it closes
        self._train_metrics: Optional[Callable[[], Dict[str, Any]]] = None  # the training bar's postfix, lazily
        self._file = None

    @property
    def is_enabled(self) -> bool:
        """Whether the bar is shown (``refresh_rate=0`` hides it)."""
        return self._enabled and self.refresh_rate > 0

    # ------------------------------------------------------------------------------------------ the bars
    def _bar(self, role: str):
        bar = self._latest.get(role)
        if bar is None:
            raise TypeError(f"The `{type(self).__name__}._{role}_progress_bar` reference has not been set yet.")
        return bar.bar if isinstance(bar, _TerminalBar) else bar

    @property
    def train_progress_bar(self):
        """The training bar: a ``tqdm`` on a terminal, else a line-printing bar with tqdm's ``n``, ``total``,
        ``desc``, ``set_description``, ``set_postfix`` and ``update``. A ``TypeError`` before training starts, as
        in Lightning; after the bar closes it is still the last one."""
        return self._bar("train")

    @property
    def val_progress_bar(self):
        """The validation bar (also the sanity check's), like :attr:`train_progress_bar`."""
        return self._bar("val")

    @property
    def test_progress_bar(self):
        """The test bar, like :attr:`train_progress_bar`."""
        return self._bar("test")

    @property
    def predict_progress_bar(self):
        """The predict bar, like :attr:`train_progress_bar`."""
        return self._bar("predict")

    # ---------------------------------------------------------------------------------------------- bar life
    def _stream(self):
        return self._file or sys.stdout

    def _interactive(self) -> bool:
        return bool(getattr(self._stream(), "isatty", lambda: False)())

    def _open(self, key: str, desc: str, total, leave: bool, line: int = 0):
        self._close(key, print_line=False)
        if self._interactive():
            bar = _TerminalBar(desc, _total(total), self._stream(), 2 * self.process_position + line, leave)
        else:
            bar = _StaticBar(desc, _total(total), self._stream())
        self._bars[key] = bar
        self._latest[_ROLES[key]] = bar
        return bar

    def _update(self, key: str, n: int, metrics=None) -> None:
        bar = self._bars.get(key)
        if bar is not None:
            bar.step_to(n, metrics, self.refresh_rate)

    def _close(self, key: str, metrics: Optional[Dict[str, Any]] = None, print_line: bool = True) -> None:
        bar = self._bars.pop(key, None)
        if bar is not None:
            bar.close(metrics, print_line=print_line)

    # ----------------------------------------------------------------------------------------------- hooks
    def on_sanity_check_start(self, trainer, pl_module) -> None:
        if self.is_enabled and trainer.is_global_zero:
            self._open("sanity", self.sanity_check_description, None, leave=False)

    def on_sanity_check_end(self, trainer, pl_module) -> None:
        self._close("sanity", print_line=False)  # the sanity check never leaves a line of its own

    def on_train_start(self, trainer, pl_module) -> None:
        if self.is_enabled and trainer.is_global_zero and not self.leave and self._interactive():
            # Lightning's default: one bar for the whole fit, reset at every epoch and left on screen at the end
            self._open("main", self.train_description, self.total_train_batches, leave=True)

    def on_train_epoch_start(self, trainer, pl_module) -> None:
        # made once, not every batch: the metrics are only built when a bar shows them
        self._train_metrics = lambda: self.get_metrics(trainer, pl_module)
        if not (self.is_enabled and trainer.is_global_zero):
            return
        desc, total = f"Epoch {trainer.current_epoch}", _total(self.total_train_batches)
        bar = self._bars.get("main")
        if isinstance(bar, _TerminalBar) and not self.leave:
            bar.reset(total)
            bar.set_description(desc)
        else:
            self._open("main", desc, total, leave=True)

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx: int) -> None:
        bar = self._bars.get("main")
        if bar is not None:  # _update written out: this runs every batch
            bar.step_to(batch_idx + 1, self._train_metrics or (lambda: self.get_metrics(trainer, pl_module)),
                        self.refresh_rate)

    def on_train_epoch_end(self, trainer, pl_module) -> None:
        bar = self._bars.get("main")
        if bar is None:
            return
        if isinstance(bar, _TerminalBar) and not self.leave:
            bar.update_to(bar.n, self.get_metrics(trainer, pl_module))
        else:
            self._close("main", self.get_metrics(trainer, pl_module))

    def on_train_end(self, trainer, pl_module) -> None:
        self._close("main")

    def _eval_start(self, trainer, key: str, desc: str, total, leave: bool, line: int = 0) -> None:
        if self.is_enabled and trainer.is_global_zero and not trainer.sanity_checking:
            self._open(key, desc, total, leave=leave, line=line)

    def on_validation_start(self, trainer, pl_module) -> None:
        if trainer.sanity_checking:
            bar = self._bars.get("sanity")
            if bar is not None:  # the val loaders are only known now
                bar.reset(_total(sum(trainer.num_sanity_val_batches)))
            return
        in_fit = "main" in self._bars  # during fit: below the epoch bar, and gone when done
        self._eval_start(trainer, "val", self.validation_description, sum(trainer.num_val_batches), leave=not in_fit,
                         line=1 if in_fit else 0)

    def on_validation_batch_start(self, trainer, pl_module, batch, batch_idx: int, dataloader_idx: int = 0) -> None:
        self.has_dataloader_changed(dataloader_idx)

    def on_validation_batch_end(self, trainer, pl_module, outputs, batch, batch_idx: int,
                                dataloader_idx: int = 0) -> None:
        key = "sanity" if trainer.sanity_checking else "val"
        bar = self._bars.get(key)
        if bar is not None:
            self._update(key, bar.n + 1)

    def on_validation_end(self, trainer, pl_module) -> None:
        self.reset_dataloader_idx_tracker()
        if trainer.sanity_checking or "val" not in self._bars:
            return
        main = self._bars.get("main")
        if isinstance(main, _TerminalBar):  # the epoch bar shows the new val metrics at once
            main.update_to(main.n, self.get_metrics(trainer, pl_module))
        self._close("val", self.get_metrics(trainer, pl_module))

    def on_test_start(self, trainer, pl_module) -> None:
        self._eval_start(trainer, "test", self.test_description, sum(trainer.num_test_batches), leave=True)

    def on_test_batch_start(self, trainer, pl_module, batch, batch_idx: int, dataloader_idx: int = 0) -> None:
        self.has_dataloader_changed(dataloader_idx)

    def on_test_batch_end(self, trainer, pl_module, outputs, batch, batch_idx: int, dataloader_idx: int = 0) -> None:
        bar = self._bars.get("test")
        if bar is not None:
            self._update("test", bar.n + 1)

    def on_test_end(self, trainer, pl_module) -> None:
        self.reset_dataloader_idx_tracker()
        self._close("test")

    def on_predict_start(self, trainer, pl_module) -> None:
        self._eval_start(trainer, "predict", self.predict_description, sum(trainer.num_predict_batches), leave=True)

    def on_predict_batch_start(self, trainer, pl_module, batch, batch_idx: int, dataloader_idx: int = 0) -> None:
        self.has_dataloader_changed(dataloader_idx)

    def on_predict_batch_end(self, trainer, pl_module, outputs, batch, batch_idx: int,
                             dataloader_idx: int = 0) -> None:
        bar = self._bars.get("predict")
        if bar is not None:
            self._update("predict", bar.n + 1)

    def on_predict_end(self, trainer, pl_module) -> None:
        self.reset_dataloader_idx_tracker()
        self._close("predict")

    saves_on_exception = False  # it only closes its bars (so training need not snapshot RNG states for it)

    def on_exception(self, trainer, pl_module, exception) -> None:
        for key in list(self._bars):
            self._close(key)

    def teardown(self, trainer, pl_module, stage: str) -> None:
        for key in list(self._bars):
            self._close(key)
