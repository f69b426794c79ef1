"""A fake GPU for testing the array-module seam (shared by tests/core and tests/metrics).

Its arrays are a NumPy subclass that ember takes for CuPy arrays (by their module name, ``.device.id`` and
``.get()``). While :func:`fake_device` is active, ember's one array-module lookup (``ember.core.device``'s
``array_module`` and ``module_for_device``, wherever a module imported them) answers, for these arrays and for
``"cuda"``, with a :class:`RecordingArrayModule` that forwards to NumPy and keeps results on the fake device (as CuPy
returns CuPy arrays).

A NumPy *function* called straight on device data from ember code (``np.where(x._data, ...)``) is caught by
``__array_function__`` and recorded in ``FakeDeviceArray.direct_calls`` with the file it came from; a result that
is a plain ``ndarray`` left the device. Operators and ufuncs on device data (``a * b``, ``np.exp(a)``) are allowed,
since a ufunc on a CuPy array dispatches to CuPy, but host data meeting device data is recorded too, wherever CuPy
would refuse it: a host array in a ufunc with device data (``device * host_mask``), passed to the device's ``xp``
(``xp.where(c, host, d)``; only ``xp.asarray`` / ``xp.array`` take host data), or written into device memory
(``device[...] = host_draw``). That is how a random draw or an ``np.zeros`` buffer that was never moved is caught.
"""
import contextlib
import os
import sys
from types import SimpleNamespace

import numpy as np

import ember

EMBER_DIR = os.path.dirname(ember.__file__) + os.sep
CORE_DIR = os.path.join(EMBER_DIR, "core") + os.sep


class FakeDeviceArray(np.ndarray):
    """An array on the fake device; remembers the NumPy functions that ember code called on it directly."""

    direct_calls = None  # a list while a fake device is active
    watched = CORE_DIR  # calls from files under this prefix are recorded

    @property
    def device(self):
        return SimpleNamespace(id=0)

    @property
    def data(self):
        """The device memory, as CuPy's ``MemoryPointer`` (only ``ptr`` is used by ember)."""
        return SimpleNamespace(ptr=self.__array_interface__["data"][0])

    def get(self):
        """Copy to the host, like ``cupy.ndarray.get``."""
        return self.view(np.ndarray).copy()

    def __array_function__(self, func, types, args, kwargs):
        caller = sys._getframe(1).f_code.co_filename
        if FakeDeviceArray.direct_calls is not None and caller.startswith(FakeDeviceArray.watched):
            FakeDeviceArray.direct_calls.append(f"np.{func.__name__} in {caller[len(EMBER_DIR):]}")
        return super().__array_function__(func, types, args, kwargs)

    def __setitem__(self, key, value):
        # a host array written into device memory (``device[...] = host_draw``) was never moved to the device
        if FakeDeviceArray.direct_calls is not None and type(value) is np.ndarray:
            caller = sys._getframe(1).f_code.co_filename
            if caller.startswith(FakeDeviceArray.watched):
                FakeDeviceArray.direct_calls.append(f"host array written into device data in {caller[len(EMBER_DIR):]}")
        super().__setitem__(key, value)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        # CuPy refuses to mix its arrays with host arrays in one ufunc (``device * host_mask`` raises TypeError), so
        # a host array (a random draw, an ``np.zeros`` mask) that meets device data here was never moved to the
        # device: record it like a direct call
        if FakeDeviceArray.direct_calls is not None:
            operands = inputs + tuple(kwargs.get("out") or ())
            if any(type(a) is np.ndarray for a in operands):
                caller = sys._getframe(1).f_code.co_filename
                if caller.startswith(FakeDeviceArray.watched):
                    name = ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"
                    FakeDeviceArray.direct_calls.append(f"host array in np.{name} in {caller[len(EMBER_DIR):]}")
        plain = tuple(a.view(np.ndarray) if isinstance(a, FakeDeviceArray) else a for a in inputs)
        out = kwargs.get("out")
        if out:
            kwargs["out"] = tuple(a.view(np.ndarray) if isinstance(a, FakeDeviceArray) else a for a in out)
        result = getattr(ufunc, method)(*plain, **kwargs)
        if out:  # results written in place are the given arrays
            return out[0] if len(out) == 1 else out
        if isinstance(result, tuple):
            return tuple(_device_result(r) for r in result)
        return _device_result(result)


def _device_result(value):
    """A ufunc result on the device, as CuPy gives: a full reduction is a 0-d device array, not a NumPy scalar
    (``np.add.at`` and friends return None)."""
    if isinstance(value, np.generic):
        value = np.asarray(value)
    return value.view(FakeDeviceArray) if type(value) is np.ndarray else value


FakeDeviceArray.__module__ = "cupy_fake"  # how ember tells a GPU array (ember.core.device.array_module)


def on_device(value):
    """``value`` (an ndarray, or a tuple/list of them) moved to the fake device; anything else as it is."""
    if type(value) is np.ndarray:
        return value.view(FakeDeviceArray)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # np.linalg's named results
        return type(value)(*(on_device(v) for v in value))
    if isinstance(value, (tuple, list)):
        return type(value)(on_device(v) for v in value)
    return value


def to_device(t):
    """An ember tensor with the data of ``t`` (a tensor or an ndarray) on the fake device, keeping requires_grad."""
    from ember.core.tensor import Tensor
    data = t._data if isinstance(t, Tensor) else np.asarray(t)
    out = Tensor._make(data.copy().view(FakeDeviceArray))
    if isinstance(t, Tensor) and t.requires_grad:
        out.requires_grad_(True)
    return out


# the fake xp's functions that take host data and return it on the device (cupy.asarray, cupy.array); every other
# function refuses a host array, as CuPy's do ("Unsupported type <class 'numpy.ndarray'>")
_MOVES_TO_DEVICE = frozenset({"asarray", "array"})


def _check_no_host_arrays(name, args, kwargs):
    """Record a host ``ndarray`` among the arguments of the fake xp's ``name`` (one level into tuples and lists,
    as in ``xp.concatenate([a, b])``): CuPy would raise, because that data was never moved to the device."""
    if FakeDeviceArray.direct_calls is None:
        return
    values = list(args) + list(kwargs.values())
    for v in list(values):
        if isinstance(v, (tuple, list)):
            values.extend(v)
    if any(type(v) is np.ndarray for v in values):
        caller = sys._getframe(2).f_code.co_filename
        if caller.startswith(FakeDeviceArray.watched):
            FakeDeviceArray.direct_calls.append(f"host array passed to {name} in {caller[len(EMBER_DIR):]}")


class RecordingArrayModule:
    """The fake device's ``xp``: NumPy's functions, recorded, with results kept on the device."""

    def __init__(self):
        self.calls = set()

    def __getattr__(self, name):
        attr = getattr(np, name)
        if isinstance(attr, type(np)):  # a submodule: xp.lib.stride_tricks, ...
            return _RecordingNamespace(self, attr, name + ".")
        if isinstance(attr, type) or not callable(attr):  # dtypes, constants, errstate: as they are
            return attr
        if isinstance(attr, np.ufunc):
            return _RecordingUfunc(self, attr, name)

        def forward(*args, **kwargs):
            self.calls.add(name)
            if name not in _MOVES_TO_DEVICE:
                _check_no_host_arrays(f"xp.{name}", args, kwargs)
            return on_device(attr(*args, **kwargs))
        return forward

    @property
    def linalg(self):
        return _RecordingNamespace(self, np.linalg, "linalg.")

    @property
    def fft(self):
        return _RecordingNamespace(self, np.fft, "fft.")

    @property
    def random(self):
        return np.random  # generators are host objects; their draws are moved by the ops


class _RecordingUfunc:
    """A ufunc of the fake ``xp``: calls and its methods (``add.at``, ``maximum.reduce``) are recorded."""

    def __init__(self, owner, ufunc, name):
        self._owner, self._ufunc, self._name = owner, ufunc, name

    def __call__(self, *args, **kwargs):
        self._owner.calls.add(self._name)
        _check_no_host_arrays(f"xp.{self._name}", args, kwargs)
        return on_device(self._ufunc(*args, **kwargs))

    def __getattr__(self, name):
        attr = getattr(self._ufunc, name)
        if not callable(attr):
            return attr

        def forward(*args, **kwargs):
            self._owner.calls.add(f"{self._name}.{name}")
            _check_no_host_arrays(f"xp.{self._name}.{name}", args, kwargs)
            return on_device(attr(*args, **kwargs))
        return forward


class _RecordingNamespace:
    def __init__(self, owner, module, prefix):
        self._owner, self._module, self._prefix = owner, module, prefix

    def __getattr__(self, name):
        attr = getattr(self._module, name)
        if isinstance(attr, type(np)):
            return _RecordingNamespace(self._owner, attr, self._prefix + name + ".")
        if isinstance(attr, type) or not callable(attr):
            return attr

        def forward(*args, **kwargs):
            self._owner.calls.add(self._prefix + name)
            _check_no_host_arrays(f"xp.{self._prefix}{name}", args, kwargs)
            return on_device(attr(*args, **kwargs))
        return forward


def _ember_namespaces():
    for name, module in list(sys.modules.items()):
        if module is not None and (name == "ember" or name.startswith("ember.")):
            namespace = getattr(module, "__dict__", None)
            if namespace is not None:
                yield module, namespace


@contextlib.contextmanager
def fake_device(watched=CORE_DIR):
    """Route ember's array-module lookup to a recording module for fake-device data; yields that module.

    Every binding of ``array_module`` / ``module_for_device`` in an ember module (``from ..device import
    array_module``, an alias such as ``_xp_of``) is patched for the duration, so no caller escapes the fake device.
    """
    device_module = sys.modules["ember.core.device"]  # (``ember.core.device`` the attribute is the class)
    real_array_module, real_module_for_device = device_module.array_module, device_module.module_for_device
    xp = RecordingArrayModule()

    def array_module(*arrays):
        return xp if any(isinstance(a, FakeDeviceArray) for a in arrays) else real_array_module(*arrays)

    def module_for_device(dev):
        return xp if device_module.device(dev).type == "cuda" else real_module_for_device(dev)

    replacements = {real_array_module: array_module, real_module_for_device: module_for_device}
    patched = []
    for module, namespace in _ember_namespaces():
        for attr, value in list(namespace.items()):
            try:
                new = replacements.get(value)
            except TypeError:  # unhashable
                continue
            if new is not None:
                patched.append((module, attr, value))
                setattr(module, attr, new)
    saved_calls, saved_watched = FakeDeviceArray.direct_calls, FakeDeviceArray.watched
    FakeDeviceArray.direct_calls, FakeDeviceArray.watched = [], watched
    try:
        yield xp
    finally:
        FakeDeviceArray.direct_calls, FakeDeviceArray.watched = saved_calls, saved_watched
        for module, attr, value in reversed(patched):
            setattr(module, attr, value)


def on_fake_device(value) -> bool:
    """True if every array in ``value`` (a tensor, an array, or a nested tuple/list of them) is on the fake device."""
    from ember.core.tensor import Tensor
    if isinstance(value, Tensor):
        return type(value._data) is FakeDeviceArray
    if isinstance(value, np.ndarray):
        return type(value) is FakeDeviceArray
    if isinstance(value, (tuple, list)):
        return all(on_fake_device(v) for v in value)
    return True
