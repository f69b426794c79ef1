"""Progress bars: the ``ProgressBar`` base and the tqdm-based ``TQDMProgressBar``.

On a terminal the bars update in place. When stdout is not a terminal (CI, a redirected file) each bar prints one
clean line when it finishes instead of carriage-return updates.
"""
from __future__ import annotations

import math
import sys
import time
from typing import Any, Dict, Optional

from .callback import Callback

__all__ = ["ProgressBar", "TQDMProgressBar"]


class ProgressBar(Callback):
    """Base class of progress bars: knows the batch totals and which metrics to show."""

    def __init__(self):
        self._enabled = True

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


class TQDMProgressBar(ProgressBar):
    """A tqdm progress bar per stage, showing the epoch, batch progress, it/s, ``v_num`` and ``prog_bar`` metrics.

    Args:
        refresh_rate: update the bar every this many batches (0 disables the bar).
        process_position: the terminal line of the bar (for several trainers at once).
        leave: keep finished epoch bars on screen.
    """

    def __init__(self, refresh_rate: int = 1, process_position: int = 0, leave: bool = False):
        super().__init__()
        if not isinstance(refresh_rate, int) or refresh_rate < 0:
            raise ValueError(f"TQDMProgressBar(refresh_rate={refresh_rate!r}): expected an int >= 0")
        self.refresh_rate = refresh_rate
        self.process_position = process_position
        self.leave = leave
        self._bars: Dict[str, Any] = {}
        self._file = None

    @property
    def is_enabled(self) -> bool:
        """Whether the bar is shown (``refresh_rate=0`` hides it)."""
        return self._enabled and self.refresh_rate > 0

    # ---------------------------------------------------------------------------------------------- bar life
    def _interactive(self) -> bool:
        stream = self._file or sys.stdout
        return bool(getattr(stream, "isatty", lambda: False)())

    def _open(self, key: str, desc: str, total, leave: bool):
        from tqdm.auto import tqdm
        self._close(key)
        interactive = self._interactive()
        bar = tqdm(desc=desc, total=_total(total), leave=leave, position=self.process_position if key == "main" else
                   self.process_position + 1, dynamic_ncols=True, file=self._file or sys.stdout,
                   disable=not interactive, smoothing=0, bar_format=None)
        bar._ember_static = not interactive
        bar._ember_start = time.monotonic()
        bar._ember_desc = desc  # a disabled tqdm keeps no desc
        self._bars[key] = bar
        return bar

    def _update(self, key: str, n: int, metrics=None) -> None:
        bar = self._bars.get(key)
        if bar is None:
            return
        if bar._ember_static:
            bar.n = n
            if metrics is not None:
                bar._ember_postfix = metrics
            return
        if n % self.refresh_rate == 0 or (bar.total is not None and n >= bar.total):
            bar.n = n
            # building the postfix costs more than drawing: only do it when tqdm will redraw
            if metrics is not None and time.monotonic() - bar.last_print_t >= bar.mininterval:
                bar.set_postfix(metrics(), refresh=False)
            bar.refresh()

    def _close(self, key: str, metrics: Optional[Dict[str, Any]] = None) -> None:
        bar = self._bars.pop(key, None)
        if bar is None:
            return
        if bar._ember_static:
            from tqdm import tqdm
            postfix = metrics if metrics is not None else getattr(bar, "_ember_postfix", None)
            if callable(postfix):
                postfix = postfix()
            text = ", ".join(f"{k}={_fmt(v)}" for k, v in (postfix or {}).items())
            line = tqdm.format_meter(bar.n, bar.total, time.monotonic() - bar._ember_start, prefix=bar._ember_desc,
                                     postfix=text or None, ncols=None)
            print(line, file=self._file or sys.stdout, flush=True)
        else:
            if metrics is not None:
                bar.set_postfix(metrics, refresh=False)
            bar.refresh()
        bar.close()

    # ----------------------------------------------------------------------------------------------- hooks
    def on_sanity_check_start(self, trainer, pl_module) -> None:
        if self.is_enabled and trainer.is_global_zero:
            self._open("sanity", "Sanity Checking", None, leave=False)

    def on_sanity_check_end(self, trainer, pl_module) -> None:
        bar = self._bars.get("sanity")
        if bar is not None:
            bar._ember_static = False  # the sanity check never prints a line of its own
            bar.close()
            self._bars.pop("sanity", None)

    def on_train_epoch_start(self, trainer, pl_module) -> None:
        if not (self.is_enabled and trainer.is_global_zero):
            return
        total = trainer.num_training_batches
        bar = self._open("main", f"Epoch {trainer.current_epoch}", total, leave=self.leave)
        bar.n = 0

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx: int) -> None:
        self._update("main", batch_idx + 1, lambda: self.get_metrics(trainer, pl_module))

    def on_train_epoch_end(self, trainer, pl_module) -> None:
        if "main" in self._bars:
            self._close("main", self.get_metrics(trainer, pl_module))

    def on_train_end(self, trainer, pl_module) -> None:
        self._close("main")

    def _eval_start(self, trainer, key: str, desc: str, total) -> None:
        if self.is_enabled and trainer.is_global_zero and not trainer.sanity_checking:
            self._open(key, desc, total, leave=False)

    def on_validation_start(self, trainer, pl_module) -> None:
        if trainer.sanity_checking:
            bar = self._bars.get("sanity")
            if bar is not None:  # the val loaders are only known now
                bar.total = _total(sum(trainer.num_sanity_val_batches))
        else:
            self._eval_start(trainer, "val", "Validation", sum(trainer.num_val_batches))

    def on_validation_batch_end(self, trainer, pl_module, outputs, batch, batch_idx: int,
                                dataloader_idx: int = 0) -> None:
        key = "sanity" if trainer.sanity_checking else "val"
        bar = self._bars.get(key)
        if bar is not None:
            self._update(key, bar.n + 1)

    def on_validation_end(self, trainer, pl_module) -> None:
        if not trainer.sanity_checking and "val" in self._bars:
            self._close("val", self.get_metrics(trainer, pl_module))

    def on_test_start(self, trainer, pl_module) -> None:
        self._eval_start(trainer, "test", "Testing", sum(trainer.num_test_batches))

    def on_test_batch_end(self, trainer, pl_module, outputs, batch, batch_idx: int, dataloader_idx: int = 0) -> None:
        bar = self._bars.get("test")
        if bar is not None:
            self._update("test", bar.n + 1)

    def on_test_end(self, trainer, pl_module) -> None:
        self._close("test")

    def on_predict_start(self, trainer, pl_module) -> None:
        self._eval_start(trainer, "predict", "Predicting", sum(trainer.num_predict_batches))

    def on_predict_batch_end(self, trainer, pl_module, outputs, batch, batch_idx: int,
                             dataloader_idx: int = 0) -> None:
        bar = self._bars.get("predict")
        if bar is not None:
            self._update("predict", bar.n + 1)

    def on_predict_end(self, trainer, pl_module) -> None:
        self._close("predict")

    def on_exception(self, trainer, pl_module, exception) -> None:
        for key in list(self._bars):
            self._close(key)

    def teardown(self, trainer, pl_module, stage: str) -> None:
        for key in list(self._bars):
            self._close(key)


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)
