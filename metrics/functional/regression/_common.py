"""Input handling shared by the regression metrics."""
from __future__ import annotations

from ....core.tensor import Tensor

from ...utilities.checks import check_same_shape


def as_float_tensor(x, name: str) -> Tensor:
    """``x`` as a floating tensor (integers and bools are converted to the default float dtype)."""
    if not isinstance(x, Tensor):
        from ....core import as_tensor
        try:
            x = as_tensor(x)
        except Exception:
            raise TypeError(f"Expected `{name}` to be an ember Tensor, but got {type(x).__name__}") from None
    if not x.is_floating_point():
        x = x.float()
    return x


def prepare(preds, target):
    """Both inputs as floating tensors of the same shape."""
    preds = as_float_tensor(preds, "preds")
    target = as_float_tensor(target, "target")
    check_same_shape(preds, target)
    return preds, target


def check_num_outputs(num_outputs) -> None:
    if not isinstance(num_outputs, int) or isinstance(num_outputs, bool) or num_outputs < 1:
        raise ValueError(f"Expected num_outputs to be a positive integer but got {num_outputs!r}")


def check_data_shape_to_num_outputs(preds, target, num_outputs: int) -> None:
    """1-d inputs for one output; ``(N, num_outputs)`` for several."""
    if preds.ndim > 2 or target.ndim > 2:
        raise ValueError(f"Expected both predictions and target to be either 1- or 2-dimensional tensors, but got "
                         f"{target.ndim} and {preds.ndim}.")
    if num_outputs == 1 and not (preds.ndim == 1 or preds.shape[1] == 1):
        raise ValueError(f"Expected argument `num_outputs` to match the second dimension of input, but got "
                         f"{num_outputs} and {preds.shape[1]}.")
    if num_outputs > 1 and (preds.ndim == 1 or num_outputs != preds.shape[1]):
        got = 1 if preds.ndim == 1 else preds.shape[1]
        raise ValueError(f"Expected argument `num_outputs` to match the second dimension of input, but got "
                         f"{num_outputs} and {got}.")
