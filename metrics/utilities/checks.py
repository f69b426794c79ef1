"""Input checks shared by the metric families; every message says what was expected and what was received."""
from __future__ import annotations

__all__ = ["check_same_shape", "check_task", "check_average", "check_ignore_index", "check_threshold",
           "check_multidim_average", "check_bool", "is_floating", "describe_values"]

TASKS = ("binary", "multiclass", "multilabel")


def _shape(x):
    return tuple(x.shape)


def check_same_shape(preds, target) -> None:
    """Raise if ``preds`` and ``target`` differ in shape."""
    if tuple(preds.shape) != tuple(target.shape):
        raise RuntimeError(f"Predictions and targets are expected to have the same shape, but got {_shape(preds)} "
                           f"and {_shape(target)}.")


def check_task(task, allowed=TASKS) -> str:
    """Normalise and validate a ``task`` argument."""
    value = task.lower() if isinstance(task, str) else task
    if value not in allowed:
        raise ValueError(f"Invalid Classification: expected one of {list(allowed)}, but got {task!r}.")
    return value


def check_average(average, allowed) -> None:
    """Validate an ``average`` argument against ``allowed``."""
    if average not in allowed:
        raise ValueError(f"Expected argument `average` to be one of {allowed}, but got {average!r}")


def check_ignore_index(ignore_index) -> None:
    """``ignore_index`` must be ``None`` or an int."""
    if ignore_index is not None and (not isinstance(ignore_index, int) or isinstance(ignore_index, bool)):
        raise ValueError(f"Expected argument `ignore_index` to either be `None` or an integer, but got "
                         f"{ignore_index!r}")


def check_threshold(threshold) -> None:
    """``threshold`` must be a float in [0, 1]."""
    if not (isinstance(threshold, float) and 0 <= threshold <= 1):
        raise ValueError(f"Expected argument `threshold` to be a float in the [0,1] range, but got {threshold!r}.")


def check_multidim_average(multidim_average) -> None:
    """``multidim_average`` must be ``"global"`` or ``"samplewise"``."""
    allowed = ("global", "samplewise")
    if multidim_average not in allowed:
        raise ValueError(f"Expected argument `multidim_average` to be one of {allowed}, but got "
                         f"{multidim_average!r}")


def check_bool(value, name: str) -> None:
    """Raise unless ``value`` is a bool."""
    if not isinstance(value, bool):
        raise ValueError(f"Expected argument `{name}` to be a bool, but got {value!r}")


def is_floating(arr) -> bool:
    """True for a floating-point array."""
    return arr.dtype.kind == "f"


def describe_values(arr, limit: int = 10) -> str:
    """A short listing of the distinct values of ``arr`` for error messages."""
    from .compute import array_module
    values = array_module(arr).unique(arr)
    text = ", ".join(str(v) for v in values[:limit].tolist())
    if values.size > limit:
        text += ", ..."
    return f"[{text}]"
