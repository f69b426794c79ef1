"""Parsing and checking the Trainer's process and validation flags: ``devices``, ``strategy``,
``val_check_interval`` and integer flags."""
from __future__ import annotations

import numbers
import os
import warnings

from ..core.backends import cudnn
from ..core.flags import use_deterministic_algorithms
from .exceptions import MisconfigurationException
from .strategies import SingleDeviceStrategy, Strategy
from .strategies.ddp import launched_world_size, select_ddp_strategy

__all__ = ["ACCELERATORS", "apply_barebones", "check_fast_dev_run", "check_int", "parse_devices", "select_strategy",
           "check_val_check_interval", "val_check_time_interval", "set_determinism_flags"]

ACCELERATORS = ("cpu", "auto")


def check_int(name: str, value, minimum: int, allow_none: bool = False):
    """``value`` as an int >= ``minimum``, or a MisconfigurationException naming the Trainer flag."""
    if value is None and allow_none:
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise MisconfigurationException(f"`Trainer({name}={value!r})` is invalid: expected an int >= {minimum}")
    return int(value)


def parse_devices(devices) -> int:
    """The number of processes ``Trainer(devices=...)`` asks for, checked against the machine's cores."""
    if devices == "auto" or devices is None:
        return 1
    if isinstance(devices, (list, tuple)):
        count = len(devices)
    elif isinstance(devices, str):
        if devices == "-1":
            count = os.cpu_count() or 1
        elif devices.isdigit():
            count = int(devices)
        else:
            raise MisconfigurationException(f"`Trainer(devices={devices!r})` is invalid: use an int, a list of "
                                            "device ids, -1 or 'auto'")
    else:
        count = check_int("devices", devices, -1)
        if count == -1:
            count = os.cpu_count() or 1
    if count < 1:
        raise MisconfigurationException(f"`Trainer(devices={devices!r})` is invalid: at least one device is "
                                        "needed")
    available = os.cpu_count() or 1
    if count > available:
        raise MisconfigurationException(f"`Trainer(devices={devices!r})` asks for {count} CPU processes but this "
                                        f"machine has {available} cores; use devices <= {available}")
    return count


def select_strategy(strategy, precision, *, explicit_precision: bool, devices: int, num_nodes: int) -> Strategy:
    """The strategy for ``Trainer(strategy=..., devices=..., num_nodes=...)``: one process, or DDP."""
    if isinstance(strategy, Strategy):
        if explicit_precision:  # an explicit Trainer(precision=...) applies to a given strategy too
            strategy.precision = Strategy(precision).precision
        return strategy
    if strategy in ("auto", "single_device") and devices == 1 and num_nodes == 1 and \
            not _launched_distributed():
        return SingleDeviceStrategy(precision=precision)
    chosen = select_ddp_strategy(strategy, devices=devices, num_nodes=num_nodes, precision=precision)
    if chosen is not None:
        return chosen
    if strategy in ("auto", "ddp", "ddp_spawn", "ddp_notebook") or devices > 1 or num_nodes > 1:
        raise MisconfigurationException(
            f"`Trainer(strategy={strategy!r}, devices={devices}, num_nodes={num_nodes})` needs "
            "multi-process data-parallel training, which is not available in this build of ember; use "
            "devices=1")
    raise MisconfigurationException(f"`Trainer(strategy={strategy!r})` is unknown. Use 'auto', 'ddp', "
                                    "'ddp_spawn' or 'single_device'")




def check_val_check_interval(value):
    """``val_check_interval``: an int number of batches, a float fraction of an epoch in (0, 1], or a time: a
    ``"DD:HH:MM:SS"`` string, a ``datetime.timedelta`` or a dict of ``timedelta`` arguments (Lightning 2.6)."""
    if value is None:
        return 1.0
    if val_check_time_interval(value) is not None:
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise MisconfigurationException(f"`val_check_interval` must be an int (batches), a float in (0, 1], or a "
                                        f"time ('DD:HH:MM:SS', a timedelta or a dict of timedelta arguments), got "
                                        f"{value!r}")
    if isinstance(value, float) and not 0.0 < value <= 1.0:
        raise MisconfigurationException(f"`val_check_interval` should be within (0, 1] as a fraction of an epoch "
                                        f"(or an int number of batches), got {value}")
    if isinstance(value, numbers.Integral) and value < 1:
        raise MisconfigurationException(f"`val_check_interval` must be a positive int, got {value}")
    return value


def val_check_time_interval(value):
    """The seconds of a time-based ``val_check_interval``, or None when it counts batches."""
    from datetime import timedelta
    if not isinstance(value, (str, timedelta, dict)):
        return None
    from ..callbacks.timer import parse_duration
    seconds = parse_duration(value, "Trainer(val_check_interval").total_seconds()
    if seconds < 0:
        raise MisconfigurationException(f"`Trainer(val_check_interval={value!r})` is a negative duration; give a "
                                        "time of at least 0 seconds")
    return seconds


def _launched_distributed() -> bool:
    """True when this process was started by mpiexec/srun/ember-run with a world size above one."""
    return launched_world_size() > 1


def check_fast_dev_run(value):
    """``fast_dev_run``: False/0 (off), True, or a number of batches; 1 is kept as True (Lightning)."""
    if isinstance(value, bool):
        return value
    if not isinstance(value, numbers.Integral) or value < 0:
        raise MisconfigurationException(f"fast_dev_run={value!r} is not a valid configuration. It should be >= 0.")
    return True if value == 1 else int(value)


# flag -> (value that barebones mode forces, what the flag would enable)
_BAREBONES = {
    "enable_checkpointing": (False, "Checkpointing"), "logger": (False, "Logging"),
    "enable_progress_bar": (False, "Progress bar"), "log_every_n_steps": (0, "Logging"),
    "enable_model_summary": (False, "Model summary"), "num_sanity_val_steps": (0, "Sanity checking"),
    "profiler": (None, "Profiling"), "detect_anomaly": (False, "Anomaly detection"),
}


def apply_barebones(flags: dict) -> dict:
    """``Trainer(barebones=True)``: everything that may slow the raw loop down is off. A flag that asks for one of
    those features is an error (Lightning's ValueError), never silently ignored. Returns the flags to use."""
    out = dict(flags)
    for name, (off, feature) in _BAREBONES.items():
        value = flags.get(name)
        if value is not None and value is not False and value != 0:
            raise ValueError(f"`Trainer(barebones=True, {name}={value!r})` was passed. {feature} can't be enabled "
                             "in barebones mode.")
        out[name] = off
    return out


def set_determinism_flags(deterministic, benchmark) -> None:
    """Apply ``Trainer(deterministic=..., benchmark=...)`` to the process, as Lightning does when a Trainer is made:
    ``True``/``False`` go to ``use_deterministic_algorithms``, ``"warn"`` to it with ``warn_only=True``, ``None``
    leaves it alone; a deterministic run defaults ``backends.cudnn.benchmark`` to False and warns when both are
    asked for."""
    if deterministic:
        if benchmark is None:
            benchmark = False
        elif benchmark:
            warnings.warn("You passed `deterministic=True` and `benchmark=True`. Note that PyTorch ignores "
                          "torch.backends.cudnn.deterministic=True when torch.backends.cudnn.benchmark=True.")
    if benchmark is not None:
        cudnn.benchmark = benchmark
    if deterministic == "warn":
        use_deterministic_algorithms(True, warn_only=True)
    elif isinstance(deterministic, bool):
        use_deterministic_algorithms(deterministic)
