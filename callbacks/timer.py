"""``Timer``: track the time spent in training, validation and testing, and stop training after a duration."""
from __future__ import annotations

import logging
import re
import time
from datetime import timedelta
from typing import Any, Dict, Optional, Union

from .callback import Callback
from .checkpoint import _misconfigured

__all__ = ["Timer", "parse_duration"]

log = logging.getLogger("ember.trainer.callbacks")

def parse_duration(value, flag: str) -> Optional[timedelta]:
    """A ``"DD:HH:MM:SS"`` string, a ``timedelta`` or a dict of ``timedelta`` arguments as a ``timedelta``;
    ``flag`` (e.g. ``"Timer(duration"``) names the argument in errors."""
    if isinstance(value, str):
        match = re.fullmatch(r"(\d+):(\d\d):(\d\d):(\d\d)", value.strip())
        if not match:
            raise _misconfigured(f"`{flag}={value!r})` is not a valid duration. Expected a string in the format "
                                 "DD:HH:MM:SS.")
        return timedelta(days=int(match.group(1)), hours=int(match.group(2)), minutes=int(match.group(3)),
                         seconds=int(match.group(4)))
    if isinstance(value, dict):
        try:
            return timedelta(**value)
        except TypeError as exc:
            raise _misconfigured(f"`{flag}={value!r})`: the dict must hold timedelta arguments (days, hours, minutes, "
                                 f"seconds, ...): {exc}") from None
    if value is not None and not isinstance(value, timedelta):
        raise TypeError(f"{flag}={value!r}): expected a 'DD:HH:MM:SS' string, a timedelta or a dict")
    return value


_STAGES = ("train", "sanity_check", "validate", "test", "predict")
_INTERVALS = ("step", "epoch")


def _stage(stage) -> str:
    value = getattr(stage, "value", stage)
    if value not in _STAGES:
        raise ValueError(f"Timer: unknown stage {stage!r}; expected one of {list(_STAGES)}")
    return value


class Timer(Callback):
    r"""Measure the time of the training, validation and test loops, and stop training after ``duration``.

    The Trainer adds one for ``Trainer(max_time=...)``. The elapsed training time is saved in checkpoints, so a
    resumed run continues counting from where it stopped.

    Args:
        duration: the time limit: a ``"DD:HH:MM:SS"`` string, a ``datetime.timedelta`` or a dict of
            ``timedelta`` arguments (``{"hours": 1}``). ``None`` only measures.
        interval: check the limit after every training ``"step"`` or at every ``"epoch"`` end.
        verbose: log a message when the limit is reached.

    Example::

        timer = Timer(duration="00:12:00:00")   # 12 hours
        trainer = em.Trainer(callbacks=[timer])
        trainer.fit(model)
        timer.time_elapsed("train"), timer.time_elapsed("validate")
    """

    def __init__(self, duration: Optional[Union[str, timedelta, Dict[str, int]]] = None, interval: str = "step",
                 verbose: bool = True) -> None:
        super().__init__()
        duration = parse_duration(duration, "Timer(duration")
        interval = getattr(interval, "value", interval)
        if interval not in _INTERVALS:
            raise _misconfigured(f"Unsupported parameter value `Timer(interval={interval})`. Possible values are: "
                                 f"{', '.join(_INTERVALS)}.")
        self._duration = duration.total_seconds() if duration is not None else None
        self._interval = interval
        self._verbose = verbose
        self._start_time: Dict[str, Optional[float]] = {s: None for s in _STAGES}
        self._end_time: Dict[str, Optional[float]] = {s: None for s in _STAGES}
        self._offset = 0.0

    def start_time(self, stage="train") -> Optional[float]:
        """When ``stage`` started (``time.monotonic()``), or None."""
        return self._start_time[_stage(stage)]

    def end_time(self, stage="train") -> Optional[float]:
        """When ``stage`` ended (``time.monotonic()``), or None."""
        return self._end_time[_stage(stage)]

    def time_elapsed(self, stage="train") -> float:
        """Seconds spent in ``stage`` (for training, including the time before a resume)."""
        stage = _stage(stage)
        start, end = self._start_time[stage], self._end_time[stage]
        offset = self._offset if stage == "train" else 0.0
        if start is None:
            return offset
        if end is None:
            return time.monotonic() - start + offset
        return end - start + offset

    def time_remaining(self, stage="train") -> Optional[float]:
        """Seconds left of ``duration`` (None without a duration)."""
        if self._duration is None:
            return None
        return self._duration - self.time_elapsed(stage)

    # ---------------------------------------------------------------------------------------------- hooks
    def on_train_start(self, trainer, pl_module) -> None:
        self._start_time["train"] = time.monotonic()
        self._end_time["train"] = None

    def on_train_end(self, trainer, pl_module) -> None:
        self._end_time["train"] = time.monotonic()

    def on_validation_start(self, trainer, pl_module) -> None:
        key = "sanity_check" if trainer.sanity_checking else "validate"
        self._start_time[key] = time.monotonic()
        self._end_time[key] = None

    def on_validation_end(self, trainer, pl_module) -> None:
        self._end_time["sanity_check" if trainer.sanity_checking else "validate"] = time.monotonic()

    def on_test_start(self, trainer, pl_module) -> None:
        self._start_time["test"] = time.monotonic()
        self._end_time["test"] = None

    def on_test_end(self, trainer, pl_module) -> None:
        self._end_time["test"] = time.monotonic()

    def on_fit_start(self, trainer, pl_module) -> None:
        # a restored state may already be out of time, whatever the interval
        if self._duration is not None:
            self._check_time_remaining(trainer)

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx: int) -> None:
        if self._interval != "step" or self._duration is None:
            return
        self._check_time_remaining(trainer)

    def on_train_epoch_end(self, trainer, pl_module) -> None:
        if self._interval != "epoch" or self._duration is None:
            return
        self._check_time_remaining(trainer)

    def _check_time_remaining(self, trainer) -> None:
        should_stop = self.time_elapsed() >= self._duration
        should_stop = trainer.strategy.broadcast(should_stop)  # clocks differ between ranks: rank zero decides
        trainer.should_stop = trainer.should_stop or should_stop
        if should_stop and self._verbose and trainer.is_global_zero:
            elapsed = timedelta(seconds=int(self.time_elapsed("train")))
            log.info(f"Time limit reached. Elapsed time is {elapsed}. Signaling Trainer to stop.")

    # ------------------------------------------------------------------------------------------------ state
    def state_dict(self) -> Dict[str, Any]:
        """The elapsed time of every stage."""
        return {"time_elapsed": {stage: self.time_elapsed(stage) for stage in _STAGES}}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        self._offset = float(state_dict.get("time_elapsed", {}).get("train", 0.0))
