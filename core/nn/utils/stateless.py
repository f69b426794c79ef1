"""Functional calls of a Module: run it with some of its parameters and buffers replaced by given tensors.

The replacement goes straight into the owning submodule's ``_parameters``/``_buffers`` registry (as PyTorch's does),
not through ``Module.__setattr__``, whose guard refuses a plain tensor in a parameter slot: a value that is not a
Parameter (a tensor computed from others, e.g. fast weights after an inner gradient step) is exactly what the caller
wants gradients to flow through. The originals are put back when the call returns or raises.

``functional_call`` here is ``torch.nn.utils.stateless.functional_call``, deprecated in PyTorch 2.0; the current
form, which also takes a tuple of dicts, is ``ember.func.functional_call``.
"""
from __future__ import annotations

import contextlib
import warnings
from collections.abc import Sequence
from itertools import chain

from ...tensor import Tensor
from ..modules.module import Module
from ..parallel import DataParallel

__all__ = ["functional_call"]

_MISSING = object()  # the slot did not exist before the call: restoring means deleting it


def _submodule(module, path, memo):
    """The submodule at the dotted ``path`` (memoized: every key of one call shares its prefixes)."""
    if not path:
        return module
    found = memo.get(path)
    if found is None:
        parent_path, _, attr = path.rpartition(".")
        parent = _submodule(module, parent_path, memo)
        try:
            found = getattr(parent, attr)
        except AttributeError as exc:
            raise AttributeError(f"{parent._get_name()} has no attribute `{attr}`") from exc
        if not isinstance(found, Module):
            raise TypeError(f"submodule `{path}`: {found} is not an instance of ember.nn.Module")
        memo[path] = found
    return found


def _swap(module, name, value):
    """Put ``value`` in ``module``'s slot ``name`` and return what was there (``_MISSING`` if nothing was)."""
    if value is not _MISSING and value is not None and not isinstance(value, Tensor):
        raise TypeError(f"{value} is not an instance of ember.Tensor")
    if "." in name:
        raise KeyError('tensor name can\'t contain "."')
    if name == "":
        raise KeyError('tensor name can\'t be empty string ""')
    for registry in (module._parameters, module._buffers):
        if name in registry:
            old = registry[name]
            if value is _MISSING:
                del registry[name]
            else:
                registry[name] = value  # the registry mirrors it into __dict__, so `self.weight` sees it
            return old
    old = getattr(module, name, _MISSING)
    if old is not _MISSING and old is not None and not isinstance(old, Tensor):
        raise TypeError(f"attribute `{name}`: {old} is not an instance of ember.Tensor")
    if value is not _MISSING:
        setattr(module, name, value)
    elif old is not _MISSING:
        delattr(module, name)
    return old


def _swap_all(module, named_values):
    """Swap every ``name -> value`` in, returning the originals in swap order. If one swap fails, the ones done are
    undone before the error propagates."""
    memo = {}
    originals = []
    try:
        for name, value in named_values.items():
            prefix, _, attr = name.rpartition(".")
            originals.append((name, _swap(_submodule(module, prefix, memo), attr, value)))
    except Exception:
        _restore(module, originals)
        raise
    return originals


def _restore(module, originals):
    """Swap the originals back in reverse order, and return the values that were in the slots. Reverse order matters
    when two names reach one slot (a submodule used twice): the first swap saw the true original, so it must be the
    last one undone."""
    memo = {}
    final, by_slot = {}, {}
    for name, original in reversed(originals):
        prefix, _, attr = name.rpartition(".")
        owner = _submodule(module, prefix, memo)
        # a shared slot's value at the end of the call is what its first restore finds; later ones see originals
        final[name] = by_slot.setdefault((id(owner), attr), _swap(owner, attr, original))
    return final


def _named_tensors(module):
    return chain(module.named_parameters(remove_duplicate=False), module.named_buffers(remove_duplicate=False))


def _untie(module, named_values):
    """Extend ``named_values`` to every name tied to a given one (the same tensor reachable under several names), so
    tied parameters follow the value given. Several different values for one tied group are an error."""
    names_of = {}
    for name, t in dict(_named_tensors(module)).items():
        names_of.setdefault(id(t), []).append(name)
    group_of = {name: group for group in names_of.values() if len(group) > 1 for name in group}
    untied = dict(named_values)
    for name, value in named_values.items():
        group = group_of.get(name)
        if group is None:
            continue
        # PyTorch 2.13 compares the values of the whole group here and so raises KeyError when only some of three
        # or more tied names are given; ember compares only the values given, which is what the rule means
        if len({id(named_values[n]) for n in group if n in named_values}) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(group)}, which are tied. "
                             "Consider using tie_weights=False")
        for tied in group:
            untied[tied] = value
    return untied


def _check_keys(module, keys):
    valid = {name for name, _ in _named_tensors(module)}
    keys = set(keys)
    errors = []
    if keys - valid:
        errors.append(f"Unexpected key(s): {', '.join(map(repr, sorted(keys - valid)))}.")
    if valid - keys:
        errors.append(f"Missing key(s): {', '.join(map(repr, sorted(valid - keys)))}.")
    if errors:
        raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t" + "\n\t".join(errors))


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False):
    """Within the block, ``module`` uses the given parameters and buffers (dotted names) in place of its own."""
    named_values = _untie(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    if strict:
        _check_keys(module, named_values)
    originals = []
    try:
        originals = _swap_all(module, named_values)
        yield
    finally:
        final = _restore(module, originals)
        # a module that rebinds a buffer during the call (``self.count = self.count + 1``) leaves its new value in
        # the caller's dict, as PyTorch does; in-place updates (BatchNorm's running stats) land there by themselves
        parameters_and_buffers.update({k: final[k] for k in parameters_and_buffers if k in final})


def _functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """The call shared by :func:`functional_call` and ``ember.func.functional_call``, on one merged dict."""
    if isinstance(module, DataParallel):
        raise RuntimeError("The stateless API can't be used with nn.DataParallel module")
    kwargs = {} if kwargs is None else kwargs
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)


_DEPRECATION = ("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed in a "
                "future version of PyTorch. Please use `torch.func.functional_call` instead which is a drop-in "
                "replacement.")


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    r"""Call ``module`` with its parameters and buffers replaced by the given ones (deprecated).

    .. warning::
        Deprecated as in PyTorch 2.0 (it warns with PyTorch's ``FutureWarning`` text, which names ``torch``): use
        :func:`ember.func.functional_call`, a drop-in replacement that also takes a tuple of dicts.

    Args:
        module (ember.nn.Module): the module to call.
        parameters_and_buffers (dict of str and Tensor): the parameters and buffers to use in the call, keyed by
            their dotted names (``"0.weight"``, ``"bn.running_mean"``).
        args (Any or tuple): positional arguments of the call. If not a tuple, it is the single argument.
        kwargs (dict): keyword arguments of the call.
        tie_weights (bool, optional): if ``True``, parameters and buffers tied in the module (one tensor under
            several names) stay tied: giving one name replaces them all, and giving different values for tied names
            is an error. If ``False``, only the names given are replaced. Default: ``True``.
        strict (bool, optional): if ``True``, the names given must be exactly the module's parameters and buffers;
            missing or unexpected keys are an error. Default: ``False``.

    Returns:
        Any: the result of calling ``module``.
    """
    warnings.warn(_DEPRECATION, FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)


def _merged(parameter_and_buffer_dicts):
    """One dict from a dict or a sequence of dicts with distinct keys."""
    if isinstance(parameter_and_buffer_dicts, dict):
        return parameter_and_buffer_dicts  # the caller's own dict, so rebound buffers are written back to it
    if not isinstance(parameter_and_buffer_dicts, Sequence):
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
        raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
    counts = {}
    for d in parameter_and_buffer_dicts:
        for key in d:
            counts[key] = counts.get(key, 0) + 1
    repeated = [key for key, n in counts.items() if n > 1]
    if repeated:
        raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
    return {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}


def _func_functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True,
                          strict=False):
    r"""Call ``module`` with its parameters and buffers replaced by the given ones (``torch.func.functional_call``).

    The module's own parameters and buffers are untouched: they are swapped out for the call and back afterwards,
    even if the call raises. The given values may be any tensors, including ones computed from other tensors, so
    gradients flow to whatever produced them; this is the basis of meta-learning::

        params = {name: p.detach().requires_grad_() for name, p in model.named_parameters()}
        loss = loss_fn(ember.func.functional_call(model, params, (x,)), y)
        grads = ember.autograd.grad(loss, params.values())

    .. note::
        If the module performs in-place operations on parameters or buffers (BatchNorm's running statistics), they
        act on the given tensors; a buffer the module rebinds (``self.count = self.count + 1``) is written back into
        the given dict (only when one dict, not a tuple, is given).

    Args:
        module (ember.nn.Module): the module to call.
        parameter_and_buffer_dicts (dict of str and Tensor, or tuple of them): the parameters and buffers to use,
            keyed by their dotted names (``"0.weight"``, ``"bn.running_mean"``). Several dicts must have distinct
            keys.
        args (Any or tuple): positional arguments of the call. If not a tuple, it is the single argument.
        kwargs (dict): keyword arguments of the call.
        tie_weights (bool, optional): if ``True``, parameters and buffers tied in the module (one tensor under
            several names) stay tied: giving one name replaces them all, and giving different values for tied names
            is an error. If ``False``, only the names given are replaced. Default: ``True``.
        strict (bool, optional): if ``True``, the names given must be exactly the module's parameters and buffers;
            missing or unexpected keys are an error. Default: ``False``.

    Returns:
        Any: the result of calling ``module``.
    """
    return _functional_call(module, _merged(parameter_and_buffer_dicts), args, kwargs, tie_weights=tie_weights,
                            strict=strict)
