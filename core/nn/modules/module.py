"""``Module``: the base class of every layer and model.

Parameters, buffers and submodules register themselves when assigned as attributes. They live in the three
registries ``_parameters``, ``_buffers`` and ``_modules`` (as in PyTorch, so code that touches those dicts keeps
working; the registry type is in ``_registry.py``, the hook machinery in ``hooks.py``), and each registry mirrors its entries into the instance ``__dict__``. That mirror is what makes
``self.weight`` a plain dictionary lookup instead of a failed lookup followed by ``__getattr__``, which matters in
small training loops where attribute access is a visible part of every step.
"""
from __future__ import annotations

import itertools
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from ..parameter import Buffer, Parameter
from ._registry import _Registry
from .hooks import (_BackwardHook, _global_backward_hooks, _global_backward_pre_hooks, _global_forward_hooks,
                    _global_forward_hooks_always_called, _global_forward_pre_hooks, _HookHandle, _insert,
                    register_module_forward_hook, register_module_forward_pre_hook,
                    register_module_full_backward_hook, register_module_full_backward_pre_hook)

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_hook", "register_module_full_backward_pre_hook"]

def _typename(obj) -> str:
    if isinstance(obj, Tensor):
        return obj.type()
    cls = obj if isinstance(obj, type) else type(obj)
    module = cls.__module__
    return cls.__qualname__ if module in (None, "builtins") else f"{module}.{cls.__qualname__}"


def _addindent(text: str, num_spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    first = lines.pop(0)
    return first + "\n" + "\n".join(" " * num_spaces + line for line in lines)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What :meth:`Module.load_state_dict` returns: the keys that were missing and the ones that were unexpected."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _forward_unimplemented(self, *input):
    """Define the computation performed at every call. Should be overridden by all subclasses."""
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


class Module:
    """Base class for all neural network modules.

    Models subclass it, create their layers in ``__init__`` and define the computation in :meth:`forward`::

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = nn.Conv2d(1, 20, 5)
                self.conv2 = nn.Conv2d(20, 20, 5)

            def forward(self, x):
                x = F.relu(self.conv1(x))
                return F.relu(self.conv2(x))

    Submodules assigned as attributes are registered, so their parameters are returned by :meth:`parameters`,
    moved by :meth:`to` and saved by :meth:`state_dict`. Call the module (``model(x)``), not ``forward``, so that
    hooks run.
    """

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False
    forward = _forward_unimplemented

    def __init__(self, *args, **kwargs):
        if self.call_super_init is False and bool(kwargs):
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if self.call_super_init is False and bool(args):
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} were "
                            "given")
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        for name in ("_parameters", "_buffers", "_modules"):
            reg = _Registry()
            reg._owner = self
            setattr_(self, name, reg)
        setattr_(self, "_non_persistent_buffers_set", set())
        for name in ("_backward_pre_hooks", "_backward_hooks", "_forward_hooks", "_forward_hooks_with_kwargs",
                     "_forward_hooks_always_called", "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs",
                     "_state_dict_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                     "_load_state_dict_post_hooks"):
            setattr_(self, name, OrderedDict())
        setattr_(self, "_is_full_backward_hook", None)
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    # ------------------------------------------------------------------------------------------------- calling
    def __call__(self, *args, **kwargs):
        # the fast path: no hook anywhere means a direct call of forward
        if (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks or self._backward_pre_hooks
                or _global_forward_pre_hooks or _global_forward_hooks or _global_backward_hooks
                or _global_backward_pre_hooks):
            return self._call_impl(*args, **kwargs)
        return self.forward(*args, **kwargs)

    def _call_impl(self, *args, **kwargs):
        """Run ``forward`` with the forward pre-hooks, forward hooks and backward hooks around it."""
        forward_call = self.forward
        backward_pre_hooks = list(_global_backward_pre_hooks.values()) + list(self._backward_pre_hooks.values())
        full_backward_hooks = list(_global_backward_hooks.values()) + list(self._backward_hooks.values())
        if _global_forward_pre_hooks or self._forward_pre_hooks:
            for hook_id, hook in itertools.chain(_global_forward_pre_hooks.items(), self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    res = hook(self, args, kwargs)
                    if res is not None:
                        if isinstance(res, tuple) and len(res) == 2:
                            args, kwargs = res
                        else:
                            raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, "
                                               f"new_kwargs), but got {res}.")
                else:
                    res = hook(self, args)
                    if res is not None:
                        args = res if isinstance(res, tuple) else (res,)
        bw_hook = None
        if full_backward_hooks or backward_pre_hooks:
            bw_hook = _BackwardHook(self, full_backward_hooks, backward_pre_hooks)
            args = bw_hook.setup_input_hook(args)
        try:
            result = forward_call(*args, **kwargs)
        except Exception:
            # hooks registered with always_call=True run even when forward raises
            for hook_id, hook in itertools.chain(_global_forward_hooks.items(), self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called or hook_id in _global_forward_hooks_always_called:
                    try:
                        if hook_id in self._forward_hooks_with_kwargs:
                            hook(self, args, kwargs, None)
                        else:
                            hook(self, args, None)
                    except Exception:
                        pass
            raise
        if _global_forward_hooks or self._forward_hooks:
            for hook_id, hook in itertools.chain(_global_forward_hooks.items(), self._forward_hooks.items()):
                if hook_id in self._forward_hooks_with_kwargs:
                    res = hook(self, args, kwargs, result)
                else:
                    res = hook(self, args, result)
                if res is not None:
                    result = res
        if bw_hook is not None:
            result = bw_hook.setup_output_hook(result)
        return result

    # --------------------------------------------------------------------------------------------- registration
    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        """Add a buffer: module state that is not a parameter, such as BatchNorm's ``running_mean``.

        Args:
            name (str): the buffer's attribute name.
            tensor (Tensor or None): the buffer. ``None`` registers a name whose value is skipped by ``state_dict``.
            persistent (bool): whether the buffer is part of the module's ``state_dict``.
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if name not in self._buffers and (name in self.__dict__ or hasattr(type(self), name)):
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' (ember Tensor or None "
                            "required)")
        if isinstance(tensor, (Buffer, Parameter)):
            plain = Tensor._make(tensor._data)
            plain._version = tensor._ensure_version()
            tensor = plain
        if name in self._parameters:
            del self._parameters[name]
        if name in self._modules:
            del self._modules[name]
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param) -> None:
        """Add a parameter to the module; it is then reachable as an attribute named ``name``.

        Args:
            name (str): the parameter's attribute name.
            param (Parameter or None): the parameter. ``None`` registers a name that ``state_dict`` skips.
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if name not in self._parameters and (name in self.__dict__ or hasattr(type(self), name)):
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' (ember.nn.Parameter or "
                            "None required)")
        if param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created "
                             f"explicitly. To express '{name}' as a function of another Tensor, compute the value in "
                             "the forward() method.")
        self._parameters[name] = param

    def add_module(self, name: str, module) -> None:
        """Add a child module, reachable as the attribute ``name``.

        Args:
            name (str): the child's name.
            module (Module or None): the child module.
        """
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if "_modules" not in self.__dict__:
            raise AttributeError("cannot assign module before Module.__init__() call")
        if name not in self._modules and (name in self.__dict__ or hasattr(type(self), name)):
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def register_module(self, name: str, module) -> None:
        """Alias for :meth:`add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target: str) -> "Module":
        """The submodule at the dotted path ``target`` (``""`` is the module itself), e.g. ``"net_b.linear"``."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: "Module") -> None:
        """Replace (or set) the submodule at the dotted path ``target``."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        setattr(parent, name, module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path ``target``, e.g. ``"net_b.linear.weight"``."""
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{param_name}`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{param_name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at the dotted path ``target``."""
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{buffer_name}`")
        if buffer_name not in mod._buffers:
            raise AttributeError(f"`{buffer_name}` is not a buffer")
        return mod._buffers[buffer_name]

    def get_extra_state(self):
        """Extra state to put in the ``state_dict`` (override together with :meth:`set_extra_state`)."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called. Please "
                           "file an issue.")

    def set_extra_state(self, state) -> None:
        """Restore the state returned by :meth:`get_extra_state`."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called. Please "
                           "file an issue.")

    # ------------------------------------------------------------------------------------------ attribute access
    def __getattr__(self, name):
        # Only reached when normal lookup fails: registered names are mirrored in __dict__, so this is the error
        # path (or a registry filled while unpickling, before the mirror was restored).
        if name in ("_parameters", "_buffers", "_modules"):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        d = self.__dict__
        for reg in ("_parameters", "_buffers", "_modules"):
            r = d.get(reg)
            if r is not None and name in r:
                return r[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._remove_from(name, buffers=True, modules=True, plain=True)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' (ember.nn.Parameter or "
                                "None expected)")
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._remove_from(name, params=True, buffers=True, plain=True)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' (ember.nn.Module or "
                                "None expected)")
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if buffers is not None and name in buffers:
            if isinstance(value, Buffer):
                self.register_buffer(name, value, getattr(value, "persistent", True))
                return
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' (ember.nn.Buffer, ember.Tensor "
                                "or None expected)")
            buffers[name] = value
            return
        if isinstance(value, Buffer):
            if buffers is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            self._remove_from(name, params=True, modules=True, plain=True)
            self.register_buffer(name, value, getattr(value, "persistent", True))
            return
        object.__setattr__(self, name, value)

    def _remove_from(self, name, params=False, buffers=False, modules=False, plain=False):
        d = self.__dict__
        if params and name in d["_parameters"]:
            del d["_parameters"][name]
        if buffers and name in d["_buffers"]:
            del d["_buffers"][name]
            d["_non_persistent_buffers_set"].discard(name)
        if modules and name in d["_modules"]:
            del d["_modules"][name]
        if plain and name in d and not any(name in d[r] for r in ("_parameters", "_buffers", "_modules")):
            del d[name]

    def __delattr__(self, name):
        d = self.__dict__
        if name in d.get("_parameters", ()):
            del d["_parameters"][name]
        elif name in d.get("_buffers", ()):
            del d["_buffers"][name]
            d["_non_persistent_buffers_set"].discard(name)
        elif name in d.get("_modules", ()):
            del d["_modules"][name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = set(dir(type(self))) | set(self.__dict__)
        return sorted(k for k in keys if not k[:1].isdigit())

    def __getstate__(self):
        return dict(self.__dict__)

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ("_parameters", "_buffers", "_modules"):
            reg = self.__dict__.get(name)
            if reg is None:
                reg = _Registry()
            elif not isinstance(reg, _Registry):
                reg = _Registry(reg)
            object.__setattr__(self, name, reg)
            reg._bind(self)
        for name in ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks",
                     "_forward_hooks_with_kwargs", "_forward_hooks_always_called", "_state_dict_hooks",
                     "_state_dict_pre_hooks", "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks",
                     "_backward_hooks", "_backward_pre_hooks"):
            if name not in self.__dict__:
                object.__setattr__(self, name, OrderedDict())
        if "_non_persistent_buffers_set" not in self.__dict__:
            object.__setattr__(self, "_non_persistent_buffers_set", set())
        if "_is_full_backward_hook" not in self.__dict__:
            object.__setattr__(self, "_is_full_backward_hook", None)

    # ----------------------------------------------------------------------------------------------- iteration
    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate: bool = True):
        """Yield ``(name, member)`` for the members ``get_members_fn(module)`` returns, over (sub)modules."""
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield (module_prefix + ("." if module_prefix else "") + k, v)

    def parameters(self, recurse: bool = True):
        """An iterator over the module's parameters (the submodules' too when ``recurse``), each once."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        """An iterator over ``(name, parameter)``, names dotted like ``"fc1.weight"``.

        Args:
            prefix (str): prepended to every name.
            recurse (bool): include the parameters of submodules.
            remove_duplicate (bool): yield a parameter shared by several modules only once.
        """
        return self._named_members(lambda m: m._parameters.items(), prefix=prefix, recurse=recurse,
                                   remove_duplicate=remove_duplicate)

    def buffers(self, recurse: bool = True):
        """An iterator over the module's buffers."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        """An iterator over ``(name, buffer)``, names dotted like ``"bn.running_mean"``."""
        return self._named_members(lambda m: m._buffers.items(), prefix=prefix, recurse=recurse,
                                   remove_duplicate=remove_duplicate)

    def children(self):
        """An iterator over the immediate child modules."""
        for _, module in self.named_children():
            yield module

    def named_children(self):
        """An iterator over ``(name, child)`` for the immediate children, each module once."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self):
        """An iterator over all modules of the tree, this one first, each once."""
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        """An iterator over ``(name, module)`` for all modules of the tree (the root's name is ``prefix``)."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub_prefix, remove_duplicate)

    # --------------------------------------------------------------------------------------------------- modes
    def train(self, mode: bool = True) -> "Module":
        """Set training mode (``mode=True``) or evaluation mode for this module and its descendants."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> "Module":
        """Set evaluation mode (same as ``train(False)``): Dropout stops dropping, BatchNorm uses running stats."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        """Set ``requires_grad`` on every parameter (e.g. ``False`` to freeze a model for fine-tuning)."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters: to ``None`` (default) or to zeros."""
        for p in self.parameters():
            g = p._grad
            if g is None:
                continue
            if set_to_none:
                p._grad = None
            else:
                if g.grad_fn is not None:
                    g = p._grad = g.detach()
                g._data[...] = 0

    def share_memory(self) -> "Module":
        """Accepted for compatibility; NumPy arrays need no special handling here."""
        return self

    def apply(self, fn) -> "Module":
        """Call ``fn`` on every submodule (children first) and then on this module; returns self.

        The usual use is initialisation::

            def init_weights(m):
                if isinstance(m, nn.Linear):
                    nn.init.xavier_uniform_(m.weight)
            net.apply(init_weights)
        """
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------------------------------------ casting
    def _apply(self, fn, recurse: bool = True) -> "Module":
        """Apply ``fn`` to every parameter, gradient and buffer, keeping parameter objects (optimizers hold them)."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            with no_grad():
                applied = fn(param)
            if applied is not param and applied._data is not param._data:
                param._data = applied._data
            g = param._grad
            if g is not None:
                with no_grad():
                    g_applied = fn(g)
                if g_applied is not g:
                    param._grad = g_applied.detach()
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs) -> "Module":
        """Move and/or cast the parameters and buffers, in place: ``to(device)``, ``to(dtype)``, ``to(tensor)``,
        ``to(device, dtype)``.

        Only floating-point (and complex) tensors change dtype; integer buffers keep theirs.
        """
        from ...ops.conversion import _parse_to_args
        from ... import dtypes as _dt
        dtype, device, _ = _parse_to_args(args, dict(kwargs))
        if dtype is not None:
            dtype = _dt.to_dtype(dtype)
            if dtype.category < _dt.FLOAT:
                raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired "
                                f"dtype={dtype}")

        def convert(t):
            target = dtype if dtype is not None and t._data.dtype.kind in "fc" else None
            if device is None and target is None:
                return t
            if device is None:
                return t.to(target)
            return t.to(device, target) if target is not None else t.to(device)
        return self._apply(convert)

    def _cast_floats(self, dtype):
        return self._apply(lambda t: t.to(dtype) if t._data.dtype.kind == "f" else t)

    def float(self) -> "Module":
        """Cast floating-point parameters and buffers to float32."""
        from ... import dtypes as _dt
        return self._cast_floats(_dt.float32)

    def double(self) -> "Module":
        """Cast floating-point parameters and buffers to float64."""
        from ... import dtypes as _dt
        return self._cast_floats(_dt.float64)

    def half(self) -> "Module":
        """Cast floating-point parameters and buffers to float16."""
        from ... import dtypes as _dt
        return self._cast_floats(_dt.float16)

    def type(self, dst_type) -> "Module":
        """Cast all parameters and buffers to ``dst_type``."""
        return self._apply(lambda t: t.type(dst_type))

    def cpu(self) -> "Module":
        """Move all parameters and buffers to the CPU."""
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None) -> "Module":
        """Move all parameters and buffers to a CUDA device (needs CuPy)."""
        return self._apply(lambda t: t.cuda(device))

    # ------------------------------------------------------------------------------------------------ state dict
    def _save_to_state_dict(self, destination, prefix, keep_vars) -> None:
        """Put this module's own parameters and persistent buffers (not its children's) into ``destination``.

        Override it (with :meth:`_load_from_state_dict`) to store extra state, as BatchNorm does.
        """
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        non_persistent = self._non_persistent_buffers_set
        for name, buf in self._buffers.items():
            if buf is not None and name not in non_persistent:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + "_extra_state"] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """A dictionary of the whole state: parameters and persistent buffers, keyed by dotted names.

        Keys are PyTorch's (``"fc1.weight"``, ``"bn.running_mean"``, ``"0.bias"`` in a ``Sequential``). Values are
        detached tensors sharing memory with the module (or the parameters themselves with ``keep_vars=True``).
        """
        if args:  # the deprecated positional form state_dict(destination, prefix, keep_vars)
            destination = args[0]
            if len(args) > 1:
                prefix = args[1]
            if len(args) > 2:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            res = hook(self, destination, prefix, local_metadata)
            if res is not None:
                destination = res
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        """Copy this module's own entries of ``state_dict`` (keys starting with ``prefix``) into its tensors.

        Problems are appended to ``missing_keys``, ``unexpected_keys`` and ``error_msgs`` rather than raised, so
        :meth:`load_state_dict` can report all of them at once.
        """
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        non_persistent = self._non_persistent_buffers_set
        local_state = {k: v for k, v in self._parameters.items() if v is not None}
        for k, v in self._buffers.items():
            if v is not None and k not in non_persistent:
                local_state[k] = v
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                import numpy as _np
                if isinstance(input_param, _np.ndarray):
                    input_param = Tensor._make(input_param)
                else:
                    error_msgs.append(f'While copying the parameter named "{key}", expected ember.Tensor or '
                                      f"Tensor-like object from checkpoint but received {type(input_param)}")
                    continue
            if input_param.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {input_param.shape} from "
                                  f"checkpoint, the shape in current model is {param.shape}.")
                continue
            try:
                if assign:
                    if isinstance(param, Parameter):
                        new = input_param if isinstance(input_param, Parameter) else \
                            Parameter(input_param.detach(), requires_grad=param.requires_grad)
                        setattr(self, name, new)
                    else:
                        setattr(self, name, input_param)
                else:
                    _copy_into(param, input_param)
            except Exception as ex:
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                                  f"{param.shape} and whose dimensions in the checkpoint are {input_param.shape}, "
                                  f"an exception occurred : {ex.args}.")
        extra_state_key = prefix + "_extra_state"
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_state_key in state_dict:
                self.set_extra_state(state_dict[extra_state_key])
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and extra_state_key in state_dict:
            unexpected_keys.append(extra_state_key)
        if strict:
            modules = self._modules
            for key in state_dict.keys():
                if key.startswith(prefix) and key != extra_state_key:
                    input_name = key[len(prefix):].split(".", 1)[0]
                    if input_name not in modules and input_name not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy parameters and buffers from ``state_dict`` into this module and its descendants.

        Args:
            state_dict (dict): a dict as returned by :meth:`state_dict` (or loaded by ``ember.load``).
            strict (bool): require the keys to match this module's keys exactly. Default: ``True``.
            assign (bool): assign the loaded tensors instead of copying into the existing ones.

        Returns:
            ``NamedTuple`` with ``missing_keys`` and ``unexpected_keys``.

        Raises:
            RuntimeError: listing every missing key, unexpected key and shape mismatch (the latter even when
                ``strict=False``).
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                         unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state_dict = {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}
                    load(child, child_state_dict, child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                out = hook(module, incompatible)
                if out is not None:
                    raise RuntimeError("Hooks registered with ``register_load_state_dict_post_hook`` are not expected "
                                       "to return new values, if incompatible_keys need to be modified, it should be "
                                       "done inplace.")

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ------------------------------------------------------------------------------------------------------ hooks
    def register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False):
        """Register ``hook(module, args) -> None or new args`` to run before every ``forward``.

        With ``with_kwargs=True`` the hook is ``hook(module, args, kwargs) -> None or (new_args, new_kwargs)``.
        ``prepend=True`` runs it before the hooks already registered. Returns a handle with ``remove()``.
        """
        handle = _HookHandle(self._forward_pre_hooks, (self._forward_pre_hooks_with_kwargs,))
        _insert(self._forward_pre_hooks, handle, hook, prepend)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False):
        """Register ``hook(module, args, output) -> None or new output`` to run after every ``forward``.

        With ``with_kwargs=True`` the hook is ``hook(module, args, kwargs, output)``. ``always_call=True`` runs it
        even if ``forward`` raises. Returns a handle with ``remove()``.
        """
        handle = _HookHandle(self._forward_hooks, (self._forward_hooks_with_kwargs,
                                                   self._forward_hooks_always_called))
        _insert(self._forward_hooks, handle, hook, prepend)
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        return handle

    def register_full_backward_pre_hook(self, hook, prepend: bool = False):
        """Register ``hook(module, grad_output) -> None or new grad_output``, run when the gradients w.r.t. the
        module's outputs are computed (before those w.r.t. its inputs)."""
        handle = _HookHandle(self._backward_pre_hooks)
        _insert(self._backward_pre_hooks, handle, hook, prepend)
        return handle

    def register_full_backward_hook(self, hook, prepend: bool = False):
        """Register ``hook(module, grad_input, grad_output) -> None or new grad_input``.

        It runs once the gradients w.r.t. the module's positional tensor inputs are computed. ``grad_input`` and
        ``grad_output`` are tuples (``None`` for inputs that need no gradient). The hook must not modify its
        arguments in place; returning a tuple replaces ``grad_input``.
        """
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        self._is_full_backward_hook = True
        handle = _HookHandle(self._backward_hooks)
        _insert(self._backward_hooks, handle, hook, prepend)
        return handle

    def register_backward_hook(self, hook):
        """Deprecated: use :meth:`register_full_backward_hook` (this registers a full backward hook)."""
        import warnings
        warnings.warn("register_backward_hook is deprecated; it registers a full backward hook in ember. Use "
                      "register_full_backward_hook.", FutureWarning, stacklevel=2)
        return self.register_full_backward_hook(hook)

    def register_state_dict_pre_hook(self, hook):
        """Register ``hook(module, prefix, keep_vars)`` to run before :meth:`state_dict` collects this module."""
        handle = _HookHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def _register_state_dict_hook(self, hook):
        """Register ``hook(module, state_dict, prefix, local_metadata) -> None or new state_dict``."""
        handle = _HookHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    register_state_dict_post_hook = _register_state_dict_hook

    def _register_load_state_dict_pre_hook(self, hook, with_module: bool = False):
        """Register ``hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)``
        (with ``module`` as first argument when ``with_module``) to run before this module loads its entries."""
        handle = _HookHandle(self._load_state_dict_pre_hooks)
        if with_module:
            import functools
            hook = functools.partial(hook, self)
        self._load_state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_load_state_dict_pre_hook(self, hook):
        """Register ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs)`` to run before this module loads its entries."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        """Register ``hook(module, incompatible_keys)`` to run after :meth:`load_state_dict` (it may edit the key
        lists in place)."""
        handle = _HookHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    # ------------------------------------------------------------------------------------------------------- repr
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The module-specific part of ``repr`` (e.g. ``in_features=4, out_features=2, bias=True``)."""
        return ""

    def __repr__(self):
        extra_lines = []
        extra = self.extra_repr()
        if extra:
            extra_lines = extra.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            child_lines.append("(" + key + "): " + _addindent(repr(module), 2))
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


def _copy_into(dst: Tensor, src: Tensor) -> None:
    """``dst.copy_(src)`` without autograd: write ``src``'s values (cast, moved) into ``dst``'s array."""
    data = src._data
    if type(data) is not type(dst._data):
        xp = dst._xp
        data = xp.asarray(data) if xp.__name__ != "numpy" else data.get()
    dst._data[...] = data
    dst._bump_version()
