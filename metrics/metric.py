"""``Metric``: the base class of every metric, with states that sync across processes.

A metric declares its state with :meth:`Metric.add_state` (a tensor or an empty list, plus how to reduce it across
processes), accumulates into it in ``update`` and turns it into a value in ``compute``. The base class does the
rest:

- ``update`` and ``compute`` are wrapped (once, when the subclass is created): update clears the cached result and
  counts calls; compute syncs the states across processes, caches its value and restores the local states
  afterwards so accumulation can continue.
- ``forward`` (``metric(preds, target)``) returns the value on the current batch while accumulating globally.
- States follow the module on ``to(dtype)`` and are saved by ``state_dict`` only when persistent.
"""
from __future__ import annotations

import copy
import functools
import inspect
import warnings
from contextlib import contextmanager

import numpy as np

from ..core.autograd.grad_mode import GRAD_ENABLED, no_grad
from ..core.dtypes import int64 as _int64
from ..core.ops.creation import tensor as _tensor, zeros as _zeros
from ..core.nn.modules.module import Module
from ..core.tensor import Tensor

from .utilities.data import (apply_to_collection, dim_zero_cat, dim_zero_max, dim_zero_mean,
                             dim_zero_min, dim_zero_sum, wrap)
from .utilities.distributed import distributed_available, gather_all_tensors
from .utilities.exceptions import MetricsUserError

__all__ = ["Metric"]

_REDUCTIONS = {"sum": dim_zero_sum, "mean": dim_zero_mean, "cat": dim_zero_cat, "min": dim_zero_min,
               "max": dim_zero_max}
_CONSTANTS = frozenset({"higher_is_better", "is_differentiable", "full_state_update", "plot_lower_bound",
                        "plot_upper_bound", "plot_legend_name"})


def _copy_tensor(t: Tensor) -> Tensor:
    """A detached copy with its own memory (never an alias of ``t``)."""
    return wrap(t._data.copy())


def _copy_state(value):
    if isinstance(value, Tensor):
        return _copy_tensor(value)
    return [_copy_tensor(v) if isinstance(v, Tensor) else copy.deepcopy(v) for v in value]


def _squeeze_scalar(t):
    return t.reshape(()) if t.ndim > 0 and t.numel() == 1 else t


def _squeeze_if_scalar(value):
    """torchmetrics' rule for what ``compute`` returns: every one-element tensor, also inside tuples, lists and
    dicts (e.g. a one-threshold curve), becomes 0-d."""
    if isinstance(value, Tensor):
        return _squeeze_scalar(value)
    return apply_to_collection(value, Tensor, _squeeze_scalar)


def _clone_output(value):
    return apply_to_collection(value, Tensor, lambda t: t.clone() if t._requires_grad else _copy_tensor(t))


def _wrap_update(update):
    @functools.wraps(update)
    def wrapped(self, *args, **kwargs):
        d = self.__dict__
        if d["_in_update"]:  # a subclass calling super().update(): count once
            return update(self, *args, **kwargs)
        d["_computed"] = None
        d["_update_count"] += 1
        d["_in_update"] = True
        prev = GRAD_ENABLED[0]
        GRAD_ENABLED[0] = d["_enable_grad"]
        try:
            update(self, *args, **kwargs)
        finally:
            GRAD_ENABLED[0] = prev
            d["_in_update"] = False
        if d["compute_on_cpu"]:
            self._move_list_states_to_cpu()
    wrapped._metric_wrapped = True
    return wrapped


def _wrap_compute(compute):
    @functools.wraps(compute)
    def wrapped(self, *args, **kwargs):
        d = self.__dict__
        if d["_in_compute"]:  # a subclass calling super().compute()
            return compute(self, *args, **kwargs)
        if d["_update_count"] == 0 and self._warn_on_compute_before_update:
            warnings.warn(f"The ``compute`` method of metric {type(self).__name__} was called before the ``update`` "
                          "method which may lead to errors, as metric states have not yet been updated.",
                          UserWarning, stacklevel=2)
        if d["_computed"] is not None:
            return d["_computed"]
        d["_in_compute"] = True
        try:
            if d["_to_sync"]:
                with self.sync_context(dist_sync_fn=d["dist_sync_fn"], should_sync=True,
                                       should_unsync=d["_should_unsync"]):
                    value = _clone_output(_squeeze_if_scalar(compute(self, *args, **kwargs)))
            else:  # no sync wanted (e.g. the batch value in forward): skip the context machinery
                value = _clone_output(_squeeze_if_scalar(compute(self, *args, **kwargs)))
        finally:
            d["_in_compute"] = False
        if d["compute_with_cache"]:
            d["_computed"] = value
        return value
    wrapped._metric_wrapped = True
    return wrapped


class Metric(Module):
    """Base class for all metrics.

    Subclasses implement ``__init__`` (declaring states with :meth:`add_state`), ``update`` and ``compute``::

        class MyAccuracy(Metric):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.add_state("correct", default=em.tensor(0), dist_reduce_fx="sum")
                self.add_state("total", default=em.tensor(0), dist_reduce_fx="sum")

            def update(self, preds, target):
                self.correct += em.sum(preds == target)
                self.total += target.numel()

            def compute(self):
                return self.correct.float() / self.total

    Calling the metric (``forward``) returns the value on the current batch and accumulates it into the global
    state; ``compute()`` returns the value over everything seen since the last ``reset()``. In a multi-process
    run, ``compute()`` gathers every state across processes and reduces it with its ``dist_reduce_fx`` first.

    Args:
        compute_on_cpu (bool): move list states to the CPU after each update. Default: ``False``.
        dist_sync_on_step (bool): sync the states in every ``forward`` (the batch value is then global).
            Default: ``False``.
        process_group: the process group to sync over. Default: ``None`` (the world).
        dist_sync_fn (callable): replaces the all-gather: ``fn(tensor, group=...) -> list of tensors``.
        distributed_available_fn (callable): replaces the "is a process group with more than one process
            initialised?" check.
        sync_on_compute (bool): sync the states when ``compute`` is called. Default: ``True``.
        compute_with_cache (bool): cache the result of ``compute`` until the next ``update``/``reset``.
            Default: ``True``.

    Class attributes:
        is_differentiable: whether the metric supports backpropagation through ``forward``'s value.
        higher_is_better: whether a higher value is better (``None`` if it does not apply).
        full_state_update: ``True`` (or ``None``) when ``forward`` must run ``update`` twice (once on the global
            state, once on a fresh state for the batch value); ``False`` lets it update once on the batch and merge
            that state into the global one with each state's reduction, which is faster.
    """

    is_differentiable = None
    higher_is_better = None
    full_state_update = None
    plot_lower_bound = None
    plot_upper_bound = None
    plot_legend_name = None
    _warn_on_compute_before_update = True

    __hash__ = Module.__hash__  # identity; the comparison operators below build compositional metrics

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name, wrap_fn in (("update", _wrap_update), ("compute", _wrap_compute)):
            fn = cls.__dict__.get(name)
            if fn is not None and callable(fn) and not getattr(fn, "_metric_wrapped", False):
                setattr(cls, name, wrap_fn(fn))

    def __init__(self, **kwargs):
        super().__init__()
        from ..core.device import device as _device
        from ..core.dtypes import get_default_dtype
        d = self.__dict__
        d["_device"] = _device("cpu")
        d["_dtype"] = get_default_dtype()
        options = {
            "compute_on_cpu": kwargs.pop("compute_on_cpu", False),
            "dist_sync_on_step": kwargs.pop("dist_sync_on_step", False),
            "sync_on_compute": kwargs.pop("sync_on_compute", True),
            "compute_with_cache": kwargs.pop("compute_with_cache", True),
        }
        for name, value in options.items():
            if not isinstance(value, bool):
                raise ValueError(f"Expected keyword argument `{name}` to be a `bool` but got {value!r}")
            d[name] = value
        d["process_group"] = kwargs.pop("process_group", None)
        dist_sync_fn = kwargs.pop("dist_sync_fn", None)
        if dist_sync_fn is not None and not callable(dist_sync_fn):
            raise ValueError(f"Expected keyword argument `dist_sync_fn` to be a callable function but got "
                             f"{dist_sync_fn!r}")
        d["dist_sync_fn"] = dist_sync_fn
        available_fn = kwargs.pop("distributed_available_fn", None)
        if available_fn is not None and not callable(available_fn):
            raise ValueError(f"Expected keyword argument `distributed_available_fn` to be a callable function but "
                             f"got {available_fn!r}")
        d["distributed_available_fn"] = available_fn or distributed_available
        if kwargs:
            raise ValueError(f"Unexpected keyword arguments: {', '.join(f'`{k}`' for k in kwargs)}")
        d["_update_count"] = 0
        d["_forward_cache"] = None
        d["_computed"] = None
        d["_defaults"] = {}
        d["_persistent"] = {}
        d["_reductions"] = {}
        d["_to_sync"] = d["sync_on_compute"]
        d["_should_unsync"] = True
        d["_enable_grad"] = False
        d["_cache"] = None
        d["_is_synced"] = False
        d["_in_update"] = False
        d["_in_compute"] = False

    # ------------------------------------------------------------------------------------------------- states
    def add_state(self, name: str, default, dist_reduce_fx=None, persistent: bool = False) -> None:
        """Declare a metric state, reset to ``default`` by :meth:`reset`.

        Args:
            name (str): the attribute name of the state.
            default (Tensor or list): the initial value: a tensor, or an empty list to append tensors to.
            dist_reduce_fx (str or callable or None): how the states of all processes are combined after the
                all-gather: ``"sum"``, ``"mean"``, ``"cat"``, ``"min"``, ``"max"`` (over the process dimension),
                a callable taking the stacked states, or ``None`` (the stacked tensor, or the joined list, is left
                as it is for ``compute`` to handle).
            persistent (bool): whether the state is saved in ``state_dict``. Default: ``False``.
        """
        if "_defaults" not in self.__dict__:
            raise RuntimeError(f"{type(self).__name__}.add_state was called before Metric.__init__: call "
                               "super().__init__() first in the metric's __init__")
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"Expected argument `name` of `add_state` to be a valid attribute name, got {name!r}")
        if not isinstance(default, (Tensor, list)) or (isinstance(default, list) and default):
            raise ValueError("state variable must be a tensor or any empty list (where you can append tensors), but "
                             f"got {type(default).__name__} {default!r} for state `{name}`")
        if isinstance(dist_reduce_fx, str):
            if dist_reduce_fx not in _REDUCTIONS:
                raise ValueError("`dist_reduce_fx` must be callable or one of ['mean', 'sum', 'cat', 'min', 'max', "
                                 f"None], but got {dist_reduce_fx!r}")
            dist_reduce_fx = _REDUCTIONS[dist_reduce_fx]
        elif dist_reduce_fx is not None and not callable(dist_reduce_fx):
            raise ValueError("`dist_reduce_fx` must be callable or one of ['mean', 'sum', 'cat', 'min', 'max', None], "
                             f"but got {dist_reduce_fx!r}")
        if not isinstance(persistent, bool):
            raise ValueError(f"Expected argument `persistent` of `add_state` to be a bool, got {persistent!r}")
        if name in self._parameters or name in self._buffers or name in self._modules:
            raise ValueError(f"Cannot add state `{name}`: the name is already used by a parameter, buffer or "
                             "submodule")
        if isinstance(default, Tensor):
            default = _copy_tensor(default)
        self._defaults[name] = default
        self._persistent[name] = persistent
        self._reductions[name] = dist_reduce_fx
        self.__dict__[name] = _copy_state(default) if isinstance(default, Tensor) else []

    @property
    def metric_state(self) -> dict:
        """The current states as a dict ``{name: tensor or list}``."""
        return {attr: getattr(self, attr) for attr in self._defaults}

    @property
    def update_count(self) -> int:
        """How many times ``update`` (or ``forward``) has been called since the last reset."""
        return self._update_count

    @property
    def update_called(self) -> bool:
        """Whether ``update`` (or ``forward``) has been called since the last reset."""
        return self._update_count > 0

    @property
    def device(self):
        """The device of the metric's states."""
        return self._device

    @property
    def dtype(self):
        """The default floating dtype of the metric's states."""
        return self._dtype

    def __setattr__(self, name, value):
        if name in _CONSTANTS:
            raise RuntimeError(f"Can't change const `{name}`.")
        super().__setattr__(name, value)

    # --------------------------------------------------------------------------------------- update / compute
    def update(self, *args, **kwargs) -> None:
        """Accumulate a batch into the states. Subclasses must override it."""
        raise NotImplementedError(f"Metric {type(self).__name__} must implement `update`")

    def compute(self):
        """Compute the value from the states. Subclasses must override it."""
        raise NotImplementedError(f"Metric {type(self).__name__} must implement `compute`")

    def reset(self) -> None:
        """Restore every state to a fresh copy of its default and clear the counters and caches."""
        d = self.__dict__
        d["_update_count"] = 0
        d["_forward_cache"] = None
        d["_computed"] = None
        for attr, default in d["_defaults"].items():
            d[attr] = _copy_tensor(default) if isinstance(default, Tensor) else []
        d["_cache"] = None
        d["_is_synced"] = False

    def forward(self, *args, **kwargs):
        """Update the global state with the batch and return the metric's value on this batch alone."""
        if self._is_synced:
            raise MetricsUserError("The Metric shouldn't be synced when performing ``forward``. HINT: Did you forget "
                                   "to call ``unsync`` ?.")
        if self.full_state_update or self.full_state_update is None or self.dist_sync_on_step:
            value = self._forward_full_state_update(*args, **kwargs)
        else:
            value = self._forward_reduce_state_update(*args, **kwargs)
        self.__dict__["_forward_cache"] = value
        return value

    def _forward_full_state_update(self, *args, **kwargs):
        # the safe path: update the global state, then compute the batch value on a fresh state
        d = self.__dict__
        self.update(*args, **kwargs)
        update_count = d["_update_count"]
        d["_to_sync"] = d["dist_sync_on_step"]
        d["_should_unsync"] = False
        compute_on_cpu = d["compute_on_cpu"]
        d["compute_on_cpu"] = False
        cache = self._copy_state_dict()
        d["_enable_grad"] = True
        try:
            self.reset()
            self.update(*args, **kwargs)
            batch_value = self.compute()
        finally:
            d.update(cache)
            d["_update_count"] = update_count
            d["_is_synced"] = False
            d["_should_unsync"] = True
            d["_to_sync"] = d["sync_on_compute"]
            d["_computed"] = None
            d["_enable_grad"] = False
            d["compute_on_cpu"] = compute_on_cpu
        if compute_on_cpu:
            self._move_list_states_to_cpu()
        return batch_value

    def _forward_reduce_state_update(self, *args, **kwargs):
        # the fast path: one update on a fresh state, then merge it into the global state
        d = self.__dict__
        global_state = {attr: d[attr] for attr in d["_defaults"]}
        update_count = d["_update_count"]
        self.reset()
        d["_to_sync"] = d["dist_sync_on_step"]
        d["_should_unsync"] = False
        compute_on_cpu = d["compute_on_cpu"]
        d["compute_on_cpu"] = False
        d["_enable_grad"] = True
        try:
            self.update(*args, **kwargs)
            batch_value = self.compute()
        except BaseException:
            d.update(global_state)
            d["_update_count"] = update_count
            raise
        finally:
            d["_enable_grad"] = False
            d["_is_synced"] = False
            d["_should_unsync"] = True
            d["_to_sync"] = d["sync_on_compute"]
            d["compute_on_cpu"] = compute_on_cpu
        d["_update_count"] = update_count + 1
        with no_grad():
            self._reduce_states(global_state)
        d["_computed"] = None
        if compute_on_cpu:
            self._move_list_states_to_cpu()
        return batch_value

    def _reduce_states(self, incoming_state: dict) -> None:
        """Merge ``incoming_state`` (another accumulation of the same metric) into the current states.

        Runs without autograd, so the built-in reductions work on the arrays directly.
        """
        d = self.__dict__
        for attr in d["_defaults"]:
            local_state = d[attr]
            global_state = incoming_state[attr]
            reduce_fn = d["_reductions"][attr]
            if isinstance(global_state, Tensor):
                g, loc = global_state._data, local_state._data
                xp = global_state._xp
                if reduce_fn is dim_zero_sum:
                    reduced = wrap(g + loc)
                elif reduce_fn is dim_zero_mean:
                    n = d["_update_count"]
                    kind_float = g.dtype.kind == "f" and loc.dtype.kind == "f"
                    mean = ((n - 1) * g + loc) / n
                    reduced = wrap(mean if kind_float else mean.astype(d["_dtype"].np))
                elif reduce_fn is dim_zero_max:
                    reduced = wrap(xp.maximum(g, loc))
                elif reduce_fn is dim_zero_min:
                    reduced = wrap(xp.minimum(g, loc))
                elif reduce_fn is dim_zero_cat:
                    reduced = wrap(xp.concatenate([g.reshape(-1) if g.ndim == 0 else g,
                                                   loc.reshape(-1) if loc.ndim == 0 else loc]))
                elif reduce_fn is None:
                    reduced = wrap(xp.stack([g, loc]))
                elif callable(reduce_fn):
                    reduced = reduce_fn(wrap(xp.stack([g, loc])))
                else:
                    raise TypeError(f"Unsupported reduce_fn: {reduce_fn}")
            elif reduce_fn is dim_zero_cat or reduce_fn is None:
                reduced = list(global_state) + list(local_state)
            elif callable(reduce_fn):
                reduced = reduce_fn(list(global_state) + list(local_state))
            else:
                raise TypeError(f"Unsupported reduce_fn: {reduce_fn}")
            d[attr] = reduced

    def merge_state(self, incoming_state) -> None:
        """Merge another metric's states (or a dict of states) into this one.

        Only for metrics with ``full_state_update=False`` (and ``dist_sync_on_step=False``): merging relies on
        every state's reduction being a valid way to combine two accumulations.

        Args:
            incoming_state (Metric or dict): a metric of the same class, or its ``metric_state``.
        """
        if not isinstance(incoming_state, (dict, Metric)):
            raise ValueError(f"Expected incoming state to be a dict or an instance of Metric but got "
                             f"{type(incoming_state).__name__}")
        if self.full_state_update or self.full_state_update is None or self.dist_sync_on_step:
            raise RuntimeError("``merge_state`` is not supported for metrics with ``full_state_update=True`` or "
                               "``dist_sync_on_step=True``. Please set ``full_state_update=False`` and "
                               "``dist_sync_on_step=False`` to use this method.")
        if isinstance(incoming_state, Metric):
            if not isinstance(incoming_state, type(self)):
                raise ValueError(f"Expected incoming state to be an instance of {type(self).__name__} but got "
                                 f"{type(incoming_state).__name__}")
            incoming_state = incoming_state.metric_state
        missing = [k for k in self._defaults if k not in incoming_state]
        if missing:
            raise ValueError(f"The incoming state is missing the states {missing} of {type(self).__name__}")
        self.__dict__["_update_count"] += 1
        with no_grad():
            self._reduce_states(incoming_state)
        self.__dict__["_computed"] = None

    # ----------------------------------------------------------------------------------------------------- sync
    def _copy_state_dict(self) -> dict:
        d = self.__dict__
        return {attr: _copy_state(d[attr]) for attr in d["_defaults"]}

    def _sync_dist(self, dist_sync_fn=gather_all_tensors, process_group=None) -> None:
        """All-gather every state and reduce it with its ``dist_reduce_fx``."""
        d = self.__dict__
        group = process_group if process_group is not None else d["process_group"]
        for attr, reduction_fn in d["_reductions"].items():
            value = d[attr]
            if isinstance(value, Tensor):
                gathered = list(dist_sync_fn(value, group=group))
                if reduction_fn is dim_zero_cat:
                    reduced = dim_zero_cat(gathered)
                else:
                    from ..core import stack
                    stacked = stack(gathered)
                    reduced = reduction_fn(stacked) if reduction_fn is not None else stacked
                d[attr] = reduced
                continue
            # list state: one collective per element, so every rank must make the same number of calls
            empty = _zeros(0, dtype=d["_dtype"], device=d["_device"])
            if reduction_fn is dim_zero_cat:
                local = [dim_zero_cat(value)] if value else [empty]
            else:
                local = list(value)
                counts = dist_sync_fn(_tensor([len(local)], dtype=_int64, device=d["_device"]), group=group)
                longest = max(int(c._data.reshape(-1)[0]) for c in counts)
                local += [empty] * (longest - len(local))
            per_element = [list(dist_sync_fn(t, group=group)) for t in local]  # [element][rank]
            world = len(per_element[0]) if per_element else 0
            gathered = [per_element[i][r] for r in range(world) for i in range(len(per_element))]
            gathered = [t for t in gathered if t.numel() > 0]
            if reduction_fn is dim_zero_cat:
                d[attr] = dim_zero_cat(gathered) if gathered else local[0]
            elif reduction_fn is None:
                d[attr] = gathered
            else:
                d[attr] = reduction_fn(gathered)

    def sync(self, dist_sync_fn=None, process_group=None, should_sync: bool = True,
             distributed_available=None) -> None:
        """Gather and reduce the states across processes, keeping a copy of the local states for :meth:`unsync`.

        Nothing happens unless ``should_sync`` and a process group with more than one process is available.

        Args:
            dist_sync_fn: the all-gather function (default: the metric's ``dist_sync_fn`` or
                :func:`~ember.metrics.utilities.gather_all_tensors`).
            process_group: the group to sync over (default: the metric's ``process_group``).
            should_sync (bool): whether to sync at all.
            distributed_available (callable): replaces the metric's availability check.
        """
        if self._is_synced and should_sync:
            raise MetricsUserError("The Metric has already been synced.")
        if not should_sync:
            return
        if distributed_available is None:
            distributed_available = self.distributed_available_fn
        is_distributed = distributed_available() if callable(distributed_available) else False
        if not should_sync or not is_distributed:
            return
        if dist_sync_fn is None:
            dist_sync_fn = self.dist_sync_fn or gather_all_tensors
        self.__dict__["_cache"] = self._copy_state_dict()
        self._sync_dist(dist_sync_fn, process_group=process_group)
        self.__dict__["_is_synced"] = True

    def unsync(self, should_unsync: bool = True) -> None:
        """Restore the local (pre-sync) states saved by :meth:`sync`."""
        if not should_unsync:
            return
        if not self._is_synced:
            raise MetricsUserError("The Metric has already been un-synced.")
        if self._cache is None:
            raise MetricsUserError("The internal cache should exist to unsync the Metric.")
        d = self.__dict__
        d.update(d["_cache"])
        d["_is_synced"] = False
        d["_cache"] = None

    @contextmanager
    def sync_context(self, dist_sync_fn=None, process_group=None, should_sync: bool = True,
                     should_unsync: bool = True, distributed_available=None):
        """Context manager: sync the states on entry and restore the local ones on exit."""
        self.sync(dist_sync_fn=dist_sync_fn, process_group=process_group, should_sync=should_sync,
                  distributed_available=distributed_available)
        try:
            yield
        finally:
            self.unsync(should_unsync=self._is_synced and should_unsync)

    # ------------------------------------------------------------------------------------ module integration
    def _move_list_states_to_cpu(self) -> None:
        d = self.__dict__
        for key in d["_defaults"]:
            value = d[key]
            if isinstance(value, list):
                d[key] = [v.cpu() for v in value]

    def _apply(self, fn, exclude_state=()):
        """Apply ``fn`` (a move or cast) to parameters, buffers and also to every state and default."""
        this = super()._apply(fn)
        d = self.__dict__
        with no_grad():
            for key, default in d["_defaults"].items():
                if key in exclude_state:
                    continue
                if isinstance(default, Tensor):
                    d["_defaults"][key] = fn(default)
                current = d[key]
                if isinstance(current, Tensor):
                    d[key] = fn(current)
                elif isinstance(current, list):
                    d[key] = [fn(v) for v in current]
                else:
                    raise TypeError(f"Expected metric state to be either a Tensor or a list of Tensor, but "
                                    f"encountered {current!r}")
            probe = fn(_zeros(0, dtype=d["_dtype"], device=d["_device"]))
            d["_device"] = probe.device
            if probe.is_floating_point():
                d["_dtype"] = probe.dtype
            if d["_computed"] is not None:
                d["_computed"] = apply_to_collection(d["_computed"], Tensor, fn)
            if d["_forward_cache"] is not None:
                d["_forward_cache"] = apply_to_collection(d["_forward_cache"], Tensor, fn)
        return this

    def set_dtype(self, dst_type) -> "Metric":
        """Cast every floating state (and default) to ``dst_type``."""
        from ..core.dtypes import to_dtype
        dst = to_dtype(dst_type)
        return self._apply(lambda t: t.to(dst) if t.is_floating_point() else t)

    def persistent(self, mode: bool = False) -> None:
        """Choose whether the states are saved by ``state_dict`` (``mode=True``) or not."""
        for key in self._persistent:
            self._persistent[key] = mode

    def _save_to_state_dict(self, destination, prefix, keep_vars) -> None:
        super()._save_to_state_dict(destination, prefix, keep_vars)
        d = self.__dict__
        for key in d["_defaults"]:
            if not d["_persistent"][key]:
                continue
            value = d[key]
            if isinstance(value, Tensor):
                destination[prefix + key] = value if keep_vars else _copy_tensor(value)
            else:
                destination[prefix + key] = list(value) if keep_vars else [_copy_tensor(v) for v in value]

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        d = self.__dict__
        for key in d["_defaults"]:
            name = prefix + key
            if name in state_dict:
                value = state_dict.pop(name)
                d[key] = _as_state(value, name)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def clone(self) -> "Metric":
        """A deep copy of the metric (states, options and caches)."""
        return copy.deepcopy(self)

    def _filter_kwargs(self, **kwargs) -> dict:
        """Keep only the keyword arguments that this metric's ``update`` accepts."""
        params = _update_parameters(type(self))
        if params is None:
            return kwargs
        return {k: v for k, v in kwargs.items() if k in params}

    def __iter__(self):
        raise TypeError(f"Metric {type(self).__name__} is not iterable")

    # ---------------------------------------------------------------------------------------------- operators
    def _compose(self, op, other, reverse=False):
        from .compositional import CompositionalMetric
        return CompositionalMetric(op, other, self) if reverse else CompositionalMetric(op, self, other)

    def __add__(self, other):
        return self._compose(_ops.add, other)

    def __radd__(self, other):
        return self._compose(_ops.add, other, reverse=True)

    def __sub__(self, other):
        return self._compose(_ops.sub, other)

    def __rsub__(self, other):
        return self._compose(_ops.sub, other, reverse=True)

    def __mul__(self, other):
        return self._compose(_ops.mul, other)

    def __rmul__(self, other):
        return self._compose(_ops.mul, other, reverse=True)

    def __truediv__(self, other):
        return self._compose(_ops.truediv, other)

    def __rtruediv__(self, other):
        return self._compose(_ops.truediv, other, reverse=True)

    def __floordiv__(self, other):
        return self._compose(_ops.floordiv, other)

    def __rfloordiv__(self, other):
        return self._compose(_ops.floordiv, other, reverse=True)

    def __mod__(self, other):
        return self._compose(_ops.mod, other)

    def __rmod__(self, other):
        return self._compose(_ops.mod, other, reverse=True)

    def __pow__(self, other):
        return self._compose(_ops.pow, other)

    def __rpow__(self, other):
        return self._compose(_ops.pow, other, reverse=True)

    def __matmul__(self, other):
        return self._compose(_ops.matmul, other)

    def __rmatmul__(self, other):
        return self._compose(_ops.matmul, other, reverse=True)

    def __and__(self, other):
        return self._compose(_ops.and_, other)

    def __rand__(self, other):
        return self._compose(_ops.and_, other, reverse=True)

    def __or__(self, other):
        return self._compose(_ops.or_, other)

    def __ror__(self, other):
        return self._compose(_ops.or_, other, reverse=True)

    def __xor__(self, other):
        return self._compose(_ops.xor, other)

    def __rxor__(self, other):
        return self._compose(_ops.xor, other, reverse=True)

    def __eq__(self, other):
        return self._compose(_ops.eq, other)

    def __ne__(self, other):
        return self._compose(_ops.ne, other)

    def __lt__(self, other):
        return self._compose(_ops.lt, other)

    def __le__(self, other):
        return self._compose(_ops.le, other)

    def __gt__(self, other):
        return self._compose(_ops.gt, other)

    def __ge__(self, other):
        return self._compose(_ops.ge, other)

    def __abs__(self):
        return self._compose(_ops.abs, None)

    def __neg__(self):
        return self._compose(_ops.neg, None)

    def __pos__(self):
        return self._compose(_ops.pos, None)

    def __invert__(self):
        return self._compose(_ops.invert, None)

    def __getitem__(self, idx):
        return self._compose(functools.partial(_ops.getitem, idx=idx), None)


import operator as _operator  # noqa: E402


class _ops:
    """The operators compositional metrics apply to the computed values (named, so they show in reprs)."""

    add, sub, mul, truediv, floordiv = _operator.add, _operator.sub, _operator.mul, _operator.truediv, \
        _operator.floordiv
    mod, pow, matmul, and_, or_, xor = _operator.mod, _operator.pow, _operator.matmul, _operator.and_, \
        _operator.or_, _operator.xor
    eq, ne, lt, le, gt, ge = _operator.eq, _operator.ne, _operator.lt, _operator.le, _operator.gt, _operator.ge
    abs, neg, pos, invert = _operator.abs, _operator.neg, _operator.pos, _operator.invert

    @staticmethod
    def getitem(x, idx):
        return x[idx]


_UPDATE_PARAMS: dict = {}


def _update_parameters(cls):
    """The names ``cls.update`` accepts as keywords, or ``None`` when it takes ``**kwargs``."""
    if cls in _UPDATE_PARAMS:
        return _UPDATE_PARAMS[cls]
    sig = inspect.signature(cls.update)
    params = set()
    result = params
    for p in list(sig.parameters.values())[1:]:
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            result = None
            break
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            params.add(p.name)
    _UPDATE_PARAMS[cls] = result
    return result


def _as_state(value, name):
    if isinstance(value, Tensor):
        return _copy_tensor(value)
    if isinstance(value, np.ndarray):
        return wrap(value.copy())
    if isinstance(value, (list, tuple)):
        return [_as_state(v, name) for v in value]
    raise TypeError(f"Cannot load metric state `{name}` from a {type(value).__name__}; expected a Tensor or a list "
                    "of Tensors")
