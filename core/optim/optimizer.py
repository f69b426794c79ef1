"""``Optimizer``: the base class of every optimizer, shaped after ``torch.optim.Optimizer``.

It owns what all optimizers share: parameter groups with per-group options, the per-parameter ``state``,
``zero_grad``, step hooks, and ``state_dict``/``load_state_dict`` in PyTorch's exact layout (state keyed by the
parameter's index across all groups, groups whose ``params`` are index lists).

Subclasses implement ``step`` with in-place array arithmetic on ``param._data``: an update never builds an autograd
graph, never allocates a new parameter, and reuses scratch buffers (see :meth:`Optimizer._scratch`) so a step over
a large model costs about what the same update written by hand in NumPy costs.
"""
from __future__ import annotations

import functools
import threading
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain

import numpy as np

from .. import dtypes as _dt
from ..autograd.grad_mode import GRAD_ENABLED
from ..autograd.graph import RemovableHandle
from ..device import array_module
from ..tensor import Tensor

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]


class _RequiredParameter:
    """Marks a default that every parameter group must set itself."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

# Element-wise updates run on blocks of this many bytes per array so their passes stay in the L2 cache.
_BLOCK_BYTES = 256 * 1024

_global_step_pre_hooks: "OrderedDict[int, object]" = OrderedDict()
_global_step_post_hooks: "OrderedDict[int, object]" = OrderedDict()


def register_optimizer_step_pre_hook(hook) -> RemovableHandle:
    """Register ``hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs)`` to run before every optimizer's
    ``step``. Returns a handle whose ``remove()`` unregisters it."""
    handle = RemovableHandle(_global_step_pre_hooks)
    _global_step_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook) -> RemovableHandle:
    """Register ``hook(optimizer, args, kwargs) -> None`` to run after every optimizer's ``step``."""
    handle = RemovableHandle(_global_step_post_hooks)
    _global_step_post_hooks[handle.id] = hook
    return handle


def _typename(obj) -> str:
    if isinstance(obj, Tensor):
        return obj.type()
    cls = type(obj)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def _with_step_hooks(step):
    """Wrap a subclass's ``step``: run the step hooks, turn grad mode off, and note that the optimizer has stepped
    (the lr schedulers read ``_opt_called`` to warn when they are stepped first)."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        self._opt_called = True
        if getattr(self, "_stepping", False):
            # An overriding step() calling super().step(): the hooks already ran around the outer call.
            return step(self, *args, **kwargs)
        local_pre = self._optimizer_step_pre_hooks
        if _global_step_pre_hooks or local_pre:
            for hook in chain(tuple(_global_step_pre_hooks.values()), tuple(local_pre.values())):
                result = hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError(f"{step} must return None or a tuple of (new_args, new_kwargs), but "
                                           f"got {result}.")
        prev = GRAD_ENABLED[0]
        GRAD_ENABLED[0] = False
        self._stepping = True
        try:
            out = step(self, *args, **kwargs)
        finally:
            GRAD_ENABLED[0] = prev
            self._stepping = False
        local_post = self._optimizer_step_post_hooks
        if local_post or _global_step_post_hooks:
            for hook in chain(tuple(local_post.values()), tuple(_global_step_post_hooks.values())):
                hook(self, args, kwargs)
        return out

    wrapper._hooked = True
    return wrapper


class Optimizer:
    r"""Base class for all optimizers.

    Args:
        params (iterable): an iterable of :class:`Tensor` s, of ``(name, Tensor)`` pairs (as given by
            ``module.named_parameters()``), or of :class:`dict` s defining parameter groups. Each dict has a
            ``'params'`` entry and may override any option of ``defaults`` for its group.
        defaults (dict): the default values of the optimization options, used when a group does not set them.

    .. warning::
        Parameters must be given in an order that is the same from run to run (a list, not a set): the state dict
        identifies parameters by their position.
    """

    # Each tensor in a parameter's state (momentum, moments, ...) has the parameter's shape, except 0-d ones such as
    # ``step``; load_state_dict checks this. LBFGS keeps flat whole-model vectors and turns it off.
    _state_has_param_shapes = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_hooked", False):
            cls.step = _with_step_hooks(step)

    def __init__(self, params, defaults: dict) -> None:
        self.defaults = defaults
        self._init_runtime()
        if defaults.get("differentiable"):
            raise ValueError(f"{type(self).__name__}: differentiable=True is not supported; ember updates "
                             "parameters in place outside autograd, so a step is never part of a graph")
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + _typename(params))
        self.state: "defaultdict[Tensor, dict]" = defaultdict(dict)
        self.param_groups: list = []
        try:
            param_groups = list(params)
        except TypeError:
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + _typename(params)) from None
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def _init_runtime(self):
        # Everything that is not state: hooks and scratch buffers (rebuilt, never saved or deep-copied).
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        self._scratch_cache = {}
        self._stepping = False

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        if "_scratch_cache" not in self.__dict__:
            self._init_runtime()
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(group.keys()):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        return "\n".join(lines) + "\n)"

    # -- parameter groups ------------------------------------------------------------------------------------
    def add_param_group(self, param_group: dict) -> None:
        """Add a parameter group to :attr:`param_groups`.

        Useful when fine-tuning: frozen layers can be made trainable and handed to the optimizer mid-training.

        Args:
            param_group (dict): the Tensors to optimize under ``'params'`` and any group-specific options; options
                it leaves out take the optimizer's defaults.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        if "params" not in param_group:
            raise ValueError("param_group must have a 'params' entry holding the Tensors to optimize, got keys "
                             f"{sorted(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, (set, frozenset)):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            params = list(params)

        tensors, names = [], []
        for param in params:
            if isinstance(param, tuple) and len(param) == 2:
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names

        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(param))
            if not (param.grad_fn is None or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)

        if len({id(p) for p in tensors}) != len(tensors):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)

        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in seen for p in tensors):
            raise ValueError("some parameters appear in more than one parameter group")

        if self.param_groups:
            current = "with names" if "param_names" in self.param_groups[0] else "without names"
            new = "with names" if "param_names" in param_group else "without names"
            if current != new:
                raise ValueError("all optimizer param groups should be with/without names. cannot add param group "
                                 f"{new} to the optimizer")

        self.param_groups.append(param_group)

    # -- gradients -------------------------------------------------------------------------------------------
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all optimized Tensors.

        Args:
            set_to_none (bool): set the grads to ``None`` instead of filling them with zeros (the default; it saves
                memory, and an optimizer skips a parameter whose grad is ``None`` while it steps one whose grad is
                zero).
        """
        for group in self.param_groups:
            for p in group["params"]:
                grad = p._grad
                if grad is None:
                    continue
                if set_to_none:
                    p._grad = None
                else:
                    if grad.grad_fn is not None:
                        grad.detach_()
                    else:
                        grad._requires_grad = False
                    grad._data.fill(0)
                    grad._bump_version()

    def step(self, closure=None):
        """Perform a single optimization step (parameter update).

        Args:
            closure (Callable, optional): a closure that re-evaluates the model and returns the loss; it is called
                with grad mode on. Optional for most optimizers, required by :class:`LBFGS`.

        Returns:
            the closure's loss, or ``None`` without a closure.
        """
        raise NotImplementedError

    # -- hooks -----------------------------------------------------------------------------------------------
    def register_step_pre_hook(self, hook) -> RemovableHandle:
        """Register ``hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs)`` to run before ``step``.

        Returns a handle whose ``remove()`` unregisters the hook.
        """
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook) -> RemovableHandle:
        """Register ``hook(optimizer, args, kwargs) -> None`` to run after ``step``."""
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer) -> None`` to run before :meth:`state_dict` builds the dict."""
        return _register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer, state_dict) -> state_dict or None`` to post-process :meth:`state_dict`."""
        return _register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer, state_dict) -> state_dict or None`` to run before :meth:`load_state_dict`."""
        return _register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer) -> None`` to run after :meth:`load_state_dict`."""
        return _register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # -- state dict ------------------------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """Return the optimizer's state as a :class:`dict` with two entries, exactly as PyTorch lays it out:

        * ``state``: maps each parameter's index (counted across all groups, in order) to its state dict, e.g.
          ``{0: {'step': tensor(3.), 'exp_avg': tensor(...), 'exp_avg_sq': tensor(...)}}``. Parameters never
          stepped have no entry.
        * ``param_groups``: one dict per group holding its options and ``'params'``, the list of its parameters'
          indices, e.g. ``[{'lr': 0.001, 'betas': (0.9, 0.999), ..., 'params': [0, 1]}]``.

        The state tensors are the live ones (not copies), as in PyTorch: deep-copy the result to keep a snapshot.
        """
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        index_of: dict = {}
        packed_groups = []
        start = 0
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                index_of.setdefault(id(p), i)
            packed["params"] = [index_of[id(p)] for p in group["params"]]
            start += len(packed["params"])
            packed_groups.append(packed)
        packed_state = {(index_of[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        state_dict = {"state": packed_state, "param_groups": packed_groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict: dict) -> None:
        """Load an optimizer state returned by :meth:`state_dict`.

        Saved indices are mapped back onto this optimizer's parameters in order. Floating-point state tensors are
        cast to their parameter's dtype (``step`` is kept as saved) and copied, so the loaded optimizer never shares
        buffers with the dict.

        Args:
            state_dict (dict): optimizer state, as returned by :meth:`state_dict`.
        """
        if not isinstance(state_dict, dict) or "state" not in state_dict or "param_groups" not in state_dict:
            got = sorted(state_dict) if isinstance(state_dict, dict) else type(state_dict).__name__
            raise ValueError("optimizer state_dict must be a dict with the keys 'state' and 'param_groups' (as "
                             f"returned by Optimizer.state_dict()), got {got}")
        state_dict = state_dict.copy()
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result

        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")

        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        if self._state_has_param_shapes:
            self._check_state_shapes(state_dict["state"], id_map)
        state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            param = id_map.get(_as_index(key))
            if param is not None:
                state[param] = _cast_state(param, value)
            else:
                state[key] = value

        new_groups = []
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
            for name, default in self.defaults.items():  # dicts from older versions may lack newer options
                saved.setdefault(name, default)
            new_groups.append(saved)
        self.state = state
        self.param_groups = new_groups

        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    def _check_state_shapes(self, saved_state, id_map) -> None:
        """Refuse a state whose tensors do not fit their parameters now, rather than at the first step."""
        names = {}
        for group in self.param_groups:
            for p, name in zip(group["params"], group.get("param_names") or ()):
                names[id(p)] = name
        for key, value in saved_state.items():
            param = id_map.get(_as_index(key))
            if param is None or not isinstance(value, dict):
                continue
            for state_name, tensor in value.items():
                shape = tuple(tensor.shape) if isinstance(tensor, (Tensor, np.ndarray)) else None
                if shape and shape != tuple(param.shape):
                    who = f"parameter {key}" + (f" ({names[id(param)]!r})" if id(param) in names else "")
                    raise ValueError(f"loaded optimizer state does not fit {who}: its '{state_name}' has shape "
                                     f"{shape} but the parameter has shape {tuple(param.shape)}. The checkpoint "
                                     "was saved for a different model (or a different parameter order)")

    # -- helpers for subclasses ------------------------------------------------------------------------------
    def _step_each_param(self, closure):
        """The whole ``step`` of an optimizer that updates each parameter on its own (all but :class:`LBFGS`).

        Evaluates ``closure``; then for each group reads its options once with ``_group_options(group)`` and, for
        each parameter that has a gradient, creates its state with ``_init_state`` on first use and calls
        ``_update(param, grad, state, *options)``. Returns the closure's loss.
        """
        loss = self._eval_closure(closure)
        calls = []  # (param, grad, state, options), states created first, here on the calling thread
        for group in self.param_groups:
            options = self._group_options(group)
            keeps_state = self._keeps_state(group)
            for p in group["params"]:
                grad = p._grad
                if grad is None:
                    continue
                if keeps_state:
                    state = self.state[p]
                    if len(state) == 0:
                        self._init_state(p, state, group)
                else:
                    state = None
                calls.append((p, grad, state, options))
        self._run_updates(calls)
        return loss

    def _run_updates(self, calls) -> None:
        """``_update`` for each call; with several threads and enough elements, the parameters are split into one
        group of about equal size per thread and the groups update side by side (each parameter's update is its
        own computation, so the result does not depend on the split; each thread has its own scratch)."""
        from .. import threads
        total = sum(c[0]._data.size for c in calls)
        n = threads.get_num_threads()
        if n <= 1 or len(calls) < 2 or total < 2 * threads.ELEMENTWISE_GRAIN or any(
                type(c[0]._data) is not np.ndarray for c in calls):
            for p, grad, state, options in calls:
                self._update(p, grad, state, *options)
            return
        groups, size, target = [[]], 0, total / n
        for c in calls:
            if size >= target * len(groups) and len(groups) < n:
                groups.append([])
            groups[-1].append(c)
            size += c[0]._data.size

        def run(lo, hi):
            for group in groups[lo:hi]:
                for p, grad, state, options in group:
                    self._update(p, grad, state, *options)
        threads.parallel_for(len(groups), run, grain=1)

    def _group_options(self, group: dict) -> tuple:
        """The options of ``group`` that ``_update`` takes after ``(param, grad, state)``, read once per group."""
        raise NotImplementedError

    def _keeps_state(self, group: dict) -> bool:
        """Whether the parameters of ``group`` have state. If not, ``self.state`` is left untouched (so
        ``state_dict`` shows no entry, as PyTorch's momentum-free SGD) and ``_update`` gets ``state=None``."""
        return True

    def _init_state(self, param: Tensor, state: dict, group: dict) -> None:
        """Fill the empty ``state`` of ``param`` before its first update (nothing by default)."""

    def _update(self, param: Tensor, grad: Tensor, state, *options) -> None:
        """Update ``param`` in place from ``grad``, its ``state`` and its group's options."""
        raise NotImplementedError

    def _scratch(self, like, count: int):
        """``count`` scratch arrays shaped and typed like the array ``like``.

        They are views into one buffer per dtype sized for the largest parameter, reused by every step, so an
        update allocates nothing. Their content is garbage on entry.
        """
        key = (like.dtype, type(like), threading.get_ident())  # one buffer per thread (_run_updates)
        n = like.size
        buf = self._scratch_cache.get(key)
        if buf is None or buf.shape[0] < count or buf.shape[1] < n:
            rows = max(count, buf.shape[0] if buf is not None else 0)
            cols = max(n, buf.shape[1] if buf is not None else 0)
            xp = np if type(like) is np.ndarray else array_module(like)
            buf = xp.empty((rows, cols), dtype=like.dtype)
            self._scratch_cache[key] = buf
        shape = like.shape
        return [buf[i, :n].reshape(shape) for i in range(count)]

    def _run_blocked(self, kernel, arrays, n_scratch: int, args) -> None:
        """Call ``kernel(xp, *arrays, *scratch, *args)`` on cache-sized blocks of the arrays.

        ``arrays`` (the parameter first; ``None`` entries are passed through) all have the parameter's shape. An
        element-wise update makes a dozen passes over its arrays; on blocks of 256 KiB per array those passes hit
        the L2 cache instead of main memory, which makes a step on a large parameter about 1.5x faster. Small,
        non-contiguous or non-NumPy arrays run in one call.
        """
        first = arrays[0]
        n = first.size
        block = _BLOCK_BYTES // first.itemsize
        if (n <= 2 * block or type(first) is not np.ndarray
                or not all(a is None or a.flags.c_contiguous for a in arrays)):
            xp = np if type(first) is np.ndarray else array_module(first)
            kernel(xp, *arrays, *self._scratch(first, n_scratch), *args)
            return
        flat = [None if a is None else a.reshape(-1) for a in arrays]
        scratch = self._scratch(flat[0][:block], n_scratch)
        for start in range(0, n, block):
            stop = start + block
            if stop > n:
                stop = n
                scratch = [s[:n - start] for s in scratch]
            kernel(np, *[None if f is None else f[start:stop] for f in flat], *scratch, *args)

    @staticmethod
    def _eval_closure(closure):
        """Call ``closure`` with grad mode on (the step itself runs with it off) and return its loss."""
        if closure is None:
            return None
        prev = GRAD_ENABLED[0]
        GRAD_ENABLED[0] = True
        try:
            return closure()
        finally:
            GRAD_ENABLED[0] = prev


# -- module-level helpers shared by the optimizer files ------------------------------------------------------
def _register(container, hook, prepend):
    handle = RemovableHandle(container)
    container[handle.id] = hook
    if prepend:
        container.move_to_end(handle.id, last=False)
    return handle


def _as_index(key):
    # JSON round trips turn int keys into strings; accept both.
    if isinstance(key, str) and key.lstrip("-").isdigit():
        return int(key)
    return key


def _scalar_np_dtype():
    """The dtype of scalar state such as ``step``: float64 if that is the default dtype, else float32 (PyTorch)."""
    return np.float64 if _dt.get_default_dtype() is _dt.float64 else np.float32


def _cast_state(param: Tensor, value, key=None):
    """Copy a loaded state value for ``param``: tensors (and arrays) become fresh Tensors, floating ones in the
    parameter's dtype when the parameter is real floating point (PyTorch's rule; a complex parameter's states keep
    their saved dtypes), except ``step``, which keeps its own dtype."""
    if isinstance(value, (Tensor, np.ndarray)):
        arr = value._data if isinstance(value, Tensor) else value
        if key == "step":
            arr = arr.copy()
        elif param._data.dtype.kind == "f" and arr.dtype.kind in "fc":
            arr = arr.astype(param._data.dtype, copy=True)
        else:
            arr = arr.copy()
        return Tensor._make(arr)
    if key == "step" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return Tensor._make(np.array(float(value), dtype=_scalar_np_dtype()))
    if isinstance(value, dict):
        return {k: _cast_state(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v) for v in value)
    return value


def new_step_tensor() -> Tensor:
    """A fresh ``step`` counter: a 0-dim float tensor holding 0, as PyTorch keeps it."""
    return Tensor._make(np.array(0.0, dtype=_scalar_np_dtype()))


def scalar_tensor(value: float) -> Tensor:
    """A 0-dim tensor of the scalar-state dtype holding ``value`` (e.g. NAdam's ``mu_product``)."""
    return Tensor._make(np.array(value, dtype=_scalar_np_dtype()))


def bump_step(state: dict) -> float:
    """Add one to ``state['step']`` in place and return the new count as a float."""
    step_t = state["step"]
    arr = step_t._data
    arr += 1
    return float(arr)


def zeros_state(param: Tensor, fill: float = 0.0) -> Tensor:
    """A state tensor shaped and typed like ``param``, filled with ``fill`` (both parts, for a complex one)."""
    data = param._data
    xp = np if type(data) is np.ndarray else array_module(data)
    if fill != 0 and data.dtype.kind == "c":
        fill = complex(fill, fill)
    arr = xp.zeros_like(data) if fill == 0 else xp.full_like(data, fill)
    return Tensor._make(arr)


def real_view(arr):
    """A real view of a complex array (real and imaginary parts interleaved), or the array itself.

    Optimizers treat a complex parameter as two real ones, as PyTorch does with ``view_as_real``.
    """
    if arr.dtype.kind != "c":
        return arr
    if not arr.flags.c_contiguous:
        raise RuntimeError("optimizers need complex parameters, gradients and states to be contiguous, got one "
                           f"with shape {tuple(arr.shape)} and strides {arr.strides}")
    return arr.reshape(-1).view(arr.real.dtype)


def descent_grad(xp, p, g, t0, t1, weight_decay, maximize):
    """The gradient an element-wise kernel descends along: ``g`` negated if ``maximize``, plus the L2 penalty
    ``weight_decay * p``.

    Returns ``g`` itself when neither applies, else the scratch array ``t1`` holding the result; the scratch
    array ``t0`` is clobbered.
    """
    if maximize:
        xp.negative(g, out=t1)
        g = t1
    if weight_decay != 0:
        xp.multiply(p, weight_decay, out=t0)
        xp.add(t0, g, out=t1)
        g = t1
    return g


def update_moments(xp, g, m, v, t0, beta1, beta2) -> None:
    """Adam's running averages, in place: ``m`` of the gradient, ``v`` of its square (``t0`` is clobbered)."""
    # m <- m + (1 - beta1) (g - m), PyTorch's lerp form of beta1 m + (1 - beta1) g
    xp.subtract(g, m, out=t0)
    t0 *= 1 - beta1
    m += t0
    # v <- beta2 v + (1 - beta2) g^2
    xp.multiply(g, g, out=t0)
    t0 *= 1 - beta2
    v *= beta2
    v += t0


def as_float(value) -> float:
    """A hyper-parameter (Python number or one-element Tensor) as a float."""
    if isinstance(value, Tensor):
        return float(value.item())
    return float(value)


def check_lr(lr) -> None:
    """Reject a negative (or non-numeric) learning rate with PyTorch's message."""
    if isinstance(lr, Tensor):
        if lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        lr = lr.item()
    _check_number("lr", lr)
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def check_nonneg(what: str, value, argument: str) -> None:
    """Reject a negative option with PyTorch's message, ``Invalid <what> value: <value>``."""
    _check_number(argument, value)
    if not 0.0 <= value:
        raise ValueError(f"Invalid {what} value: {value}")


def check_betas(betas) -> None:
    """Require two coefficients in [0, 1) with PyTorch's message, ``Invalid beta parameter at index i: ...``."""
    try:
        n = len(betas)
    except TypeError:
        n = -1
    if n != 2:
        raise ValueError(f"betas must be a pair of floats (beta1, beta2), got {betas!r}")
    for i, beta in enumerate(betas):
        beta = as_float(beta) if isinstance(beta, Tensor) else beta
        _check_number(f"betas[{i}]", beta)
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")


def _check_number(argument: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{argument} must be a number, got {type(value).__name__} ({value!r})")
