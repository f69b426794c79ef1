"""``ember.utils.tensorboard.SummaryWriter``: ``torch.utils.tensorboard.SummaryWriter`` for ember tensors.

tensorboardX converts what it is given with ``tensorboardX.x2num.make_np``, which knows NumPy arrays, Python
numbers and a fixed list of foreign tensor types chosen by name (torch, chainer, mxnet, jax, paddle). It offers no
supported way to register another tensor type, so ``tensorboardX.SummaryWriter().add_scalar("loss", em.tensor(0.5))``
raises ``NotImplementedError``. This writer is tensorboardX's, with every ``add_*`` method first turning ember
tensors (also inside lists, tuples and dicts, and as ``global_step``) into NumPy arrays or Python numbers, and with
``add_graph`` tracing an ember module with ember's op tracer (no torch needed), drawn as PyTorch draws a traced
module. ``TensorBoardLogger.experiment``
is one of these.

Example::

    from ember.utils.tensorboard import SummaryWriter

    writer = SummaryWriter("runs/exp1")
    writer.add_scalar("loss", em.tensor(0.5), 1)
    writer.add_histogram("weights", model.fc.weight, 1)
    writer.add_graph(model, em.randn(1, 8))
    writer.close()
"""
from __future__ import annotations

import functools
from typing import Any

from tensorboardX import SummaryWriter as _TensorboardXWriter

__all__ = ["SummaryWriter", "to_numpy"]


def to_numpy(value: Any) -> Any:
    """``value`` with every ember tensor replaced: a one-element tensor of no dimensions by its Python number, any
    other by a NumPy array (detached, on the CPU); lists, tuples and dicts are converted item by item."""
    from ..core.tensor import Tensor
    if isinstance(value, Tensor):
        value = value.detach()
        return value.item() if value.ndim == 0 else value.cpu().numpy()
    if isinstance(value, dict):
        return {k: to_numpy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        converted = [to_numpy(v) for v in value]
        return converted if isinstance(value, list) else tuple(converted)
    return value


def _accepting_tensors(name: str):
    base = getattr(_TensorboardXWriter, name)

    @functools.wraps(base)
    def method(self, *args, **kwargs):
        return base(self, *to_numpy(args), **to_numpy(kwargs))

    method.__doc__ = (f"tensorboardX's ``SummaryWriter.{name}``, also accepting ember tensors wherever it takes "
                      f"arrays or numbers.\n\n" + (base.__doc__ or ""))
    return method


class SummaryWriter(_TensorboardXWriter):
    """tensorboardX's ``SummaryWriter`` (the counterpart of ``torch.utils.tensorboard.SummaryWriter``) that accepts
    ember tensors in every ``add_*`` method and draws ember modules with ``add_graph``.

    Args:
        logdir: the directory of the event files (default ``runs/<date>_<host><comment>``).
        **kwargs: tensorboardX's other arguments (``comment``, ``purge_step``, ``max_queue``, ``flush_secs``,
            ``filename_suffix``, ``write_to_disk``).
    """

    def add_graph(self, model, input_to_model=None, verbose: bool = False, use_strict_trace: bool = True) -> None:
        """Write ``model``'s graph for TensorBoard's Graphs dashboard.

        An ember module is traced on ``input_to_model`` (a tensor or a tuple of positional arguments): each op
        becomes a node named after the op (``conv2d``) in the scope of the module that ran it, spelled as PyTorch
        spells it (``Net/Sequential[features]/Conv2d[0]/conv2d``), with the tensor shapes on every edge. Anything
        else goes to tensorboardX's own ``add_graph`` (which needs torch).
        """
        from ..core.nn import Module
        if not isinstance(model, Module):
            return super().add_graph(model, input_to_model, verbose, use_strict_trace)
        from ._tensorboard_graph import build_graph_def
        if input_to_model is None:
            input_to_model = getattr(model, "example_input_array", None)
        if input_to_model is None:
            raise ValueError(f"add_graph({type(model).__name__}): give input_to_model (a tensor or a tuple of the "
                             "forward's positional arguments) or set the module's example_input_array")
        self._get_file_writer().add_onnx_graph(build_graph_def(model, input_to_model))


for _name in dir(_TensorboardXWriter):
    if _name.startswith("add_") and _name != "add_graph" and callable(getattr(_TensorboardXWriter, _name)):
        setattr(SummaryWriter, _name, _accepting_tensors(_name))
del _name
