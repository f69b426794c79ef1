"""``ember.multiprocessing``: Python's :mod:`multiprocessing` plus PyTorch's :func:`spawn`, as
``torch.multiprocessing``.

Everything of :mod:`multiprocessing` is here (``Process``, ``Queue``, ``Pool``, ``get_context``,
``set_start_method``, ...). Tensors pass through its queues and pipes by pickling, and arrive with their values,
dtype, shape and ``requires_grad``. :func:`spawn` starts ``nprocs`` processes running ``fn(i, *args)`` and re-raises
the first failure in the parent, naming the process index, as in the DDP tutorials::

    import ember.multiprocessing as mp
    mp.spawn(demo_basic, args=(world_size,), nprocs=world_size, join=True)
"""
import multiprocessing as _mp
from multiprocessing import *  # noqa: F401,F403  (torch.multiprocessing re-exports the standard module)

from .spawn import (ProcessContext, ProcessException, ProcessExitedException, ProcessRaisedException, spawn,
                    start_processes)

_SHARING_STRATEGIES = ("file_descriptor", "file_system")
_sharing = ["file_descriptor"]


def set_sharing_strategy(new_strategy: str) -> None:
    """Choose how tensors are shared between processes (``"file_descriptor"`` or ``"file_system"``).

    ember pickles tensors through queues either way; the choice is kept for code that sets or reads it.
    """
    if new_strategy not in _SHARING_STRATEGIES:
        raise ValueError(f"set_sharing_strategy({new_strategy!r}): expected one of {list(_SHARING_STRATEGIES)}")
    _sharing[0] = new_strategy


def get_sharing_strategy() -> str:
    """The current sharing strategy."""
    return _sharing[0]


def get_all_sharing_strategies() -> set:
    """The sharing strategies this platform supports."""
    return set(_SHARING_STRATEGIES)


__all__ = list(_mp.__all__) + ["spawn", "start_processes", "ProcessContext", "ProcessException",
                               "ProcessRaisedException", "ProcessExitedException", "set_sharing_strategy",
                               "get_sharing_strategy", "get_all_sharing_strategies"]
