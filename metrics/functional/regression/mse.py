"""Mean squared error (and its root with ``squared=False``)."""
from __future__ import annotations

from ._common import check_num_outputs, prepare

__all__ = ["mean_squared_error"]


def _mean_squared_error_update(preds, target, num_outputs: int = 1):
    """The sum of squared errors (per output) and the number of observations."""
    preds, target = prepare(preds, target)
    if num_outputs == 1:
        preds, target = preds.reshape(-1), target.reshape(-1)
    diff = preds - target
    return (diff * diff).sum(0), target.shape[0]


def _mean_squared_error_compute(sum_squared_error, num_obs, squared: bool = True):
    mse = sum_squared_error / num_obs
    return mse if squared else mse.sqrt()


def mean_squared_error(preds, target, squared: bool = True, num_outputs: int = 1):
    """Mean squared error ``mean((preds - target)^2)``; the root mean squared error with ``squared=False``.

    Args:
        preds (Tensor): predictions.
        target (Tensor): ground truth, same shape.
        squared (bool): ``False`` returns the RMSE.
        num_outputs (int): with more than one, ``preds`` is ``(N, num_outputs)`` and one error per output is
            returned.

    Example::

        >>> mean_squared_error(em.tensor([0., 1, 2, 3]), em.tensor([0., 1, 2, 2]))
        tensor(0.2500)
    """
    if not isinstance(squared, bool):
        raise ValueError(f"Expected argument `squared` to be a boolean but got {squared!r}")
    check_num_outputs(num_outputs)
    sse, n = _mean_squared_error_update(preds, target, num_outputs)
    return _mean_squared_error_compute(sse, n, squared)
