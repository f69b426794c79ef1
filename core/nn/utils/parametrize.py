"""Parametrizations: make a module's parameter or buffer the output of a function of other tensors.

After ``register_parametrization(module, "weight", P())``, reading ``module.weight`` computes ``P()(original)``
where ``original`` is the unconstrained tensor now living at ``module.parametrizations.weight.original``. The
optimiser updates ``original``; the constraint (symmetry, unit norm, orthogonality, ...) holds by construction.

How it is wired, as in PyTorch: the module's class is replaced by a generated subclass ``Parametrized<Name>`` (one
per module instance), and a ``property`` named after the tensor is set on that subclass. A property is a data
descriptor, so it wins over the instance ``__dict__`` that ember's registries mirror into, and assigning
``module.weight = X`` reaches its setter through ``Module.__setattr__``'s final ``object.__setattr__``.
"""
from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager
from copy import deepcopy

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations", "transfer_parametrizations_and_params"]

# cached() nests: the cache lives while at least one context is open and is dropped when the last one closes
_cache_enabled = 0
_cache: dict = {}


@contextmanager
def cached():
    """Context manager that caches the parametrized tensors registered with :func:`register_parametrization`.

    Inside it, each parametrized tensor is computed the first time it is read and the same tensor is returned on
    later reads; the cache is discarded when the (outermost) context exits. Use it when a parametrized tensor is
    read several times in one forward pass, e.g. the recurrent kernel of an RNN::

        import ember.nn.utils.parametrize as P

        with P.cached():
            output = model(inputs)
    """
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module: Module, name: str, value) -> None:
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_data(dest: Tensor, src: Tensor) -> None:
    # PyTorch uses ``dest.set_(src)``: the tensor object (which the optimiser holds) stays the same and takes the
    # new values; swapping the array keeps that identity here
    if src is not dest:
        dest.data = src


class ParametrizationList(ModuleList):
    """The sequential container holding the parametrizations of one tensor and its unconstrained original(s).

    It is the type of ``module.parametrizations[tensor_name]`` after :func:`register_parametrization`. If the first
    parametrization's ``right_inverse`` returns one tensor (or it has none, meaning the identity), the original is
    held as ``original``; if it returns a sequence, as ``original0``, ``original1``, ...

    .. warning::
        Used internally by :func:`register_parametrization`; not meant to be built by the user.

    Args:
        modules (sequence): the parametrizations (at least one).
        original (Parameter or Tensor): the parameter or buffer being parametrized.
        unsafe (bool): whether the parametrization may change the tensor's dtype and shape (then nothing is
            checked). Default: ``False``.
    """

    def __init__(self, modules, original, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype

        # the value to store is right_inverse of the chain applied backwards; a missing or NotImplemented
        # right_inverse counts as the identity at registration time
        with no_grad():
            new = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, Sequence)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")

        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}")
            if original.device != new.device:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the device.\n"
                                 f"original.device: {original.device}\n"
                                 f"right_inverse(original).device: {new.device}")
            # keep the very same tensor object, so an optimiser built before registration still updates it
            with no_grad():
                _set_data(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, item in enumerate(new):
                if not isinstance(item, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                                     f"Got element {i} of the sequence with type {type(item).__name__}.")
                # new tensors: the user must add them to the optimiser (as PyTorch documents)
                if isinstance(original, Parameter):
                    item = Parameter(item, original.requires_grad)
                item.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", item)

        if not self.unsafe:
            # forward(right_inverse(original)) must live where the original did
            Z = self()
            if not isinstance(Z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(Z).__name__}.")
            if Z.dtype != original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless "
                                 "`unsafe` flag is enabled.\n"
                                 f"unparametrized dtype: {original_dtype}\nparametrized dtype: {Z.dtype}")
            if Z.shape != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of the tensor, unless "
                                 "`unsafe` flag is enabled.\n"
                                 f"unparametrized shape: {original_shape}\nparametrized shape: {Z.shape}")

    def right_inverse(self, value: Tensor) -> None:
        """Store ``value`` as the parametrized tensor: run the ``right_inverse`` of every parametrization, last
        registered first, and write the result into ``original`` (or ``original0``, ``original1``, ...).

        Args:
            value (Tensor): the value the parametrized tensor should take.
        """
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} while "
                                     f"`original` has dtype {self.original.dtype}")
                _set_data(self.original, value)
                return
            if not isinstance(value, Sequence):
                raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError(f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                                 f"Got a sequence of length {len(value)}.")
            for i, tensor in enumerate(value):
                original_i = getattr(self, f"original{i}")
                if not isinstance(tensor, Tensor):
                    raise ValueError("'right_inverse' must return a sequence of tensors or reference-type opaques. "
                                     f"Got element {i} of type {type(tensor).__name__}.")
                if original_i.dtype != tensor.dtype:
                    raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} while "
                                     f"`original{i}` has dtype {original_i.dtype}")
                _set_data(original_i, tensor)

    def forward(self) -> Tensor:
        """The parametrized tensor: the first parametrization applied to the original(s), then the others in
        registration order."""
        modules = list(self)
        if self.is_tensor:
            x = modules[0](self.original)
        else:
            x = modules[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in modules[1:]:
            x = module(x)
        return x


def _parametrized_deepcopy(self, memo):
    # the generated class forbids pickling, and deepcopy would otherwise go through __getstate__; this copies the
    # state the way the default protocol does, and __setstate__ re-binds ember's registries to the copy
    replica = memo.get(id(self))
    if replica is not None:
        return replica
    replica = self.__new__(type(self))
    memo[id(self)] = replica
    replica.__setstate__(deepcopy(dict(self.__dict__), memo))
    return replica


def _no_pickling(self):
    raise RuntimeError("Serialization of parametrized modules is only supported through state_dict(). See:\n"
                       "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
                       "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _inject_new_class(module: Module) -> None:
    """Swap ``module``'s class for a fresh subclass ``Parametrized<Name>`` that can carry properties."""
    cls = type(module)
    namespace = {"__getstate__": _no_pickling}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _parametrized_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module: Module, tensor_name: str) -> None:
    """Put on the module's (generated) class a property ``tensor_name`` that evaluates its parametrizations."""
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = _cache[key] = parametrization()
        return tensor

    def set_original(self, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(type(module), tensor_name, property(get_parametrized, set_original,
                                                doc=f"The parametrized tensor '{tensor_name}'."))


def _check_stacked(module: Module, tensor_name: str, parametrization: Module) -> None:
    """A parametrization added on top of others must map tensors like ``module.<tensor_name>`` to such tensors."""
    Y = getattr(module, tensor_name)
    X = parametrization(Y)
    if not isinstance(X, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(X).__name__}.")
    if X.dtype != Y.dtype:
        raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless the `unsafe` "
                         f"flag is enabled.\nmodule.{tensor_name}.dtype: {Y.dtype}\n"
                         f"parametrization(module.{tensor_name}).dtype: {X.dtype}")
    if X.shape != Y.shape:
        raise ValueError("Registering a parametrization may not change the shape of the tensor, unless the `unsafe` "
                         f"flag is enabled.\nmodule.{tensor_name}.shape: {Y.shape}\n"
                         f"parametrization(module.{tensor_name}).shape: {X.shape}")
    if not hasattr(parametrization, "right_inverse"):
        return  # taken to be the identity
    try:
        Z = parametrization.right_inverse(X)
    except NotImplementedError:
        return
    if not isinstance(Z, Tensor):
        raise ValueError(f"parametrization.right_inverse must return a tensor. Got: {type(Z).__name__}")
    if Z.dtype != Y.dtype:
        raise ValueError("The tensor returned by parametrization.right_inverse must have the same dtype as "
                         f"module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                         f"module.{tensor_name}.dtype: {Y.dtype}\nreturned dtype: {Z.dtype}")
    if Z.shape != Y.shape:
        raise ValueError("The tensor returned by parametrization.right_inverse must have the same shape as "
                         f"module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                         f"module.{tensor_name}.shape: {Y.shape}\nreturned shape: {Z.shape}")


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Register a parametrization on a parameter or buffer of a module.

    Afterwards ``module.<tensor_name>`` returns ``parametrization(original)``, computed on every read (or once per
    :func:`cached` context); gradients flow through the parametrization into ``original``, which now lives at
    ``module.parametrizations.<tensor_name>.original``. The module's class becomes ``Parametrized<Name>`` and it
    gains a ``parametrizations`` :class:`~ember.nn.ModuleDict` child. Registering several parametrizations on the
    same tensor chains them, in registration order. The parametrization is put in the module's training mode.

    A parametrization may define ``right_inverse(X) -> Tensor or Sequence[Tensor]``. It is called on the current
    tensor when the first parametrization is registered, to compute the initial ``original`` (without it, the
    original is the tensor itself); if it returns a sequence, the originals are ``original0``, ``original1``, ...
    When every parametrization of a tensor defines it, assigning ``module.<tensor_name> = X`` stores
    ``right_inverse(X)`` into the originals.

    Example::

        >>> class Symmetric(nn.Module):
        ...     def forward(self, X):
        ...         return X.triu() + X.triu(1).T
        ...     def right_inverse(self, A):
        ...         return A.triu()
        >>> m = nn.Linear(5, 5)
        >>> P.register_parametrization(m, "weight", Symmetric())
        >>> em.allclose(m.weight, m.weight.T)
        True

    Args:
        module (nn.Module): the module holding the tensor.
        tensor_name (str): the name of the parameter or buffer to parametrize.
        parametrization (nn.Module): the parametrization.

    Keyword args:
        unsafe (bool): allow the parametrization to change the tensor's dtype and shape; the consistency checks are
            skipped. Default: ``False``.

    Returns:
        The module.

    Raises:
        ValueError: if the module has no parameter, buffer or parametrized tensor named ``tensor_name``, or a check
            fails.
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_stacked(module, tensor_name, parametrization)
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe  # once unsafe, always unsafe
    elif tensor_name in module._parameters or tensor_name in module._buffers:
        original = getattr(module, tensor_name)
        # built before anything changes, so a failing check leaves the module untouched
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = plist
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with "
                         f"name '{tensor_name}'")
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has a parametrization on ``tensor_name`` (on any tensor when ``tensor_name`` is None).

    Args:
        module (nn.Module): the module to query.
        tensor_name (str, optional): the name of the tensor. Default: ``None``.
    """
    parametrizations = getattr(module, "parametrizations", None)
    if not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module: Module, tensor_name: str, leave_parametrized: bool = True) -> Module:
    """Remove the parametrizations on a tensor of a module, making it a plain parameter or buffer again.

    - ``leave_parametrized=True``: the tensor keeps its current parametrized value. With a single original, the
      original tensor object is reused (so an optimiser holding it keeps working).
    - ``leave_parametrized=False``: the tensor becomes the unparametrized ``original``; only possible when the
      parametrization depends on one tensor.

    When the last parametrized tensor goes, the module gets back its original class and loses ``parametrizations``.

    Args:
        module (nn.Module): the module.
        tensor_name (str): the name of the parametrized tensor.
        leave_parametrized (bool, optional): keep the parametrized value. Default: ``True``.

    Returns:
        The module.

    Raises:
        ValueError: if ``module.<tensor_name>`` is not parametrized, or if ``leave_parametrized=False`` and it is
            parametrized in terms of several tensors.
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
                _set_data(original, t)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized "
                             "in terms of a sequence of tensors.")
        # computed with grad on: whether the result requires grad says whether it must become a Parameter
        t = getattr(module, tensor_name)
        original = Parameter(t.detach()) if t.requires_grad else t
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The module's class before parametrizations were registered (its class if it has none).

    Args:
        module (nn.Module): the module.
    """
    if is_parametrized(module):
        return type(module).__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module: Module, to_module: Module,
                                         tensor_name: str | None = None) -> Module:
    """Register ``from_module``'s parametrizations on ``to_module`` and share its original tensors with it.

    Only ``tensor_name`` is transferred when given, every parametrized tensor otherwise. A tensor missing from
    ``to_module`` is first created as a parameter holding ``from_module``'s parametrized value. Nothing happens if
    ``from_module`` is not parametrized. The parametrization modules and the originals are shared, not copied.

    Args:
        from_module (nn.Module): the module to transfer from.
        to_module (nn.Module): the module to transfer to.
        tensor_name (str, optional): the tensor to transfer. Default: ``None`` (all of them).

    Returns:
        ``to_module``.
    """
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        source = from_module.parametrizations[name]
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        if hasattr(source, "original"):
            target.original = source.original
        else:
            i = 0
            while hasattr(source, f"original{i}"):
                setattr(target, f"original{i}", getattr(source, f"original{i}"))
                i += 1
    return to_module
