"""``ember.testing``: PyTorch's ``torch.testing`` for test suites ported from PyTorch.

* :func:`assert_close` compares tensors, NumPy arrays, Python scalars and (nested) sequences and mappings of them,
  with PyTorch 2.13's rules, default tolerances and error messages.
* :func:`make_tensor` builds a random tensor with ``torch.testing.make_tensor``'s value ranges per dtype.
* :func:`assert_allclose` is the deprecated predecessor of ``assert_close``; PyTorch 2.13 still ships it, so ember does.

A comparison runs in two phases, as in PyTorch. First the inputs are walked into *pairs* of leaves, recursing through
sequences and mappings; a structural problem (lengths, keys, types no pair handles, a lone ``rtol``) ends the walk
with its own message, which ``msg`` does not replace. Then every pair is compared, and the first failure is raised
with ``msg`` applied and the path of the failing item appended.
"""
from __future__ import annotations

import cmath
import collections.abc
import contextlib
import math
import warnings
from typing import Any, Callable, Optional, Union

import numpy as np

from . import dtypes as dt
from .device import array_module
from .ops import creation
from .ops._elementwise import complex_abs
from .ops.compare import isclose_arrays
from .tensor import Tensor
from .type_info import finfo, iinfo

__all__ = ["assert_close", "make_tensor", "assert_allclose"]

# (rtol, atol) by dtype name; any other dtype (the integers, bool) compares exactly. bfloat16 and complex32 are
# listed so that they get PyTorch's values the day ember grows them.
_DEFAULT_TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
                       "float64": (1e-7, 1e-7), "complex32": (1e-3, 1e-5), "complex64": (1.3e-6, 1e-5),
                       "complex128": (1e-7, 1e-7)}
# assert_allclose keeps the older, looser table (and no complex entry, so complex compares exactly there)
_ALLCLOSE_TOLERANCES = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-5, 1e-8)}
# a Python number counts as the dtype PyTorch maps its exact type to
_NUMBER_DTYPES = {int: "int64", float: "float64", complex: "complex128"}


# ------------------------------------------------------------------------------------------------ failures
class _Failure(Exception):
    """A failed check on its way to becoming the user's exception: the exception type, the message and the path of
    the failing item inside nested inputs."""

    def __init__(self, type_, msg: str, id_: tuple = ()):
        super().__init__(msg)
        self.type, self.msg, self.id = type_, msg, id_

    def to_error(self, msg=None) -> Exception:
        if isinstance(msg, str):
            return self.type(msg)  # a string replaces the whole message, item path included
        text = self.msg
        if self.id:
            text += f"\n\nThe failure occurred for item {_item_path(self.id)}"
        return self.type(msg(text) if callable(msg) else text)


class _Unsupported(Exception):
    """A pair type cannot handle these inputs; the next one is tried."""


def _item_path(id_: tuple) -> str:
    return "".join(str([key]) for key in id_)  # [1]['a'], keys shown by repr as PyTorch does


def _tolerances(dtype_names, rtol, atol, id_, table=_DEFAULT_TOLERANCES):
    # both or neither: a lone atol=0 would still let rtol's default pass values the user meant to reject
    if (rtol is None) != (atol is None):
        raise _Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                                   f"{'rtol' if rtol is None else 'atol'}.", id_)
    if rtol is not None:
        return rtol, atol
    rtols, atols = zip(*(table.get(name, (0.0, 0.0)) for name in dtype_names))
    return max(rtols), max(atols)


def _mismatch_msg(identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol) -> str:
    equality = rtol == 0 and atol == 0
    lines = [f"{identifier} are not {'equal' if equality else 'close'}!", "", extra]
    for kind, diff, idx, tol in (("absolute", abs_diff, abs_idx, atol), ("relative", rel_diff, rel_idx, rtol)):
        line = (f"{kind.title()} difference: {diff}" if idx is None
                else f"Greatest {kind} difference: {diff} at index {idx}")
        lines.append(line if equality else f"{line} (up to {tol} allowed)")
    return "\n".join(lines)


def _scalar_mismatch_msg(actual, expected, rtol, atol) -> str:
    # Python arithmetic on the values, so a float32 0-dim tensor reports double-precision differences
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg("Scalars", f"Expected {expected} but got {actual}.", abs_diff, None, atol, rel_diff, None,
                         rtol)


# ------------------------------------------------------------------------------------------------ pairs
class _Pair:
    """Two leaves to compare; ``name`` is PyTorch's class name, shown when a comparison fails unexpectedly."""

    name = "Pair"
    _shown = ()  # option attributes listed by __repr__

    def __init__(self, actual, expected, id_):
        self.actual, self.expected, self.id = actual, expected, id_

    def fail(self, type_, msg):
        raise _Failure(type_, msg, self.id)

    def __repr__(self):
        fields = [("id", self.id), ("actual", self.actual), ("expected", self.expected)]
        fields += [(name, getattr(self, name)) for name in self._shown]
        return "\n".join([f"{self.name}(", *(f"    {k}={v!s}," for k, v in fields), ")"])


class _NonePair(_Pair):
    name = "NonePair"

    def __init__(self, actual, expected, id_, options):
        if actual is not None and expected is not None:
            raise _Unsupported
        super().__init__(actual, expected, id_)

    def compare(self):
        if not (self.actual is None and self.expected is None):
            self.fail(AssertionError, f"None mismatch: {self.actual} is not {self.expected}")


class _BooleanPair(_Pair):
    name = "BooleanPair"

    def __init__(self, actual, expected, id_, options):
        if not (isinstance(actual, (bool, np.bool_)) and isinstance(expected, (bool, np.bool_))):
            raise _Unsupported
        super().__init__(bool(actual), bool(expected), id_)

    def compare(self):
        if self.actual is not self.expected:
            self.fail(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}")


class _NumberPair(_Pair):
    name = "NumberPair"
    _shown = ("rtol", "atol", "equal_nan", "check_dtype")

    def __init__(self, actual, expected, id_, options):
        kinds = (int, float, complex, np.number)
        if not (isinstance(actual, kinds) and isinstance(expected, kinds)):
            raise _Unsupported
        actual, expected = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
        super().__init__(actual, expected, id_)
        # A bool (or an IntEnum) meeting a number has no dtype here: the KeyError surfaces as PyTorch's
        # "Originating a NumberPair()" RuntimeError, as it does in PyTorch.
        names = [_NUMBER_DTYPES[type(x)] for x in (actual, expected)]
        self.rtol, self.atol = _tolerances(names, options["rtol"], options["atol"], id_)
        self.equal_nan, self.check_dtype = options["equal_nan"], options["check_dtype"]

    def compare(self):
        actual, expected = self.actual, self.expected
        if self.check_dtype and type(actual) is not type(expected):
            self.fail(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.")
        if actual == expected:
            return
        if self.equal_nan and cmath.isnan(actual) and cmath.isnan(expected):
            return
        abs_diff = abs(actual - expected)
        if cmath.isfinite(abs_diff) and abs_diff <= self.atol + self.rtol * abs(expected):
            return
        self.fail(AssertionError, _scalar_mismatch_msg(actual, expected, self.rtol, self.atol))


def _to_tensor(value) -> Tensor:
    if isinstance(value, Tensor):
        return value
    if isinstance(value, np.ndarray) and (any(s < 0 for s in value.strides) or not value.dtype.isnative):
        raise _Unsupported  # torch.as_tensor refuses these arrays, so PyTorch finds no pair for them either
    try:
        return creation.as_tensor(value)
    except Exception:
        raise _Unsupported from None


class _TensorLikePair(_Pair):
    name = "TensorLikePair"
    _shown = ("rtol", "atol", "equal_nan", "check_device", "check_dtype", "check_layout", "check_stride")

    def __init__(self, actual, expected, id_, options):
        # the types must be directly related: a tensor never matches an array, a list or a Python number
        if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
            raise _Unsupported
        if not options["allow_subclasses"] and type(actual) is not type(expected):
            raise _Unsupported
        actual, expected = _to_tensor(actual), _to_tensor(expected)
        super().__init__(actual, expected, id_)
        self.rtol, self.atol = _tolerances([actual.dtype.name, expected.dtype.name], options["rtol"],
                                           options["atol"], id_)
        for name in self._shown[2:]:
            setattr(self, name, options[name])

    def compare(self):
        actual, expected = self.actual, self.expected
        self._compare_attributes(actual, expected)
        a, b = self._equalize(actual, expected)
        matches = isclose_arrays(a, b, self.rtol, self.atol, self.equal_nan)
        if bool(matches.all()):
            return
        if a.ndim == 0:
            msg = _scalar_mismatch_msg(a.item(), b.item(), self.rtol, self.atol)
        else:
            msg = _tensor_mismatch_msg(a, b, matches, self.rtol, self.atol)
        self.fail(AssertionError, msg)

    def _compare_attributes(self, actual, expected):
        def mismatch(attribute, x, y):
            self.fail(AssertionError, f"The values for attribute '{attribute}' do not match: {x} != {y}.")

        if actual.shape != expected.shape:
            mismatch("shape", actual.shape, expected.shape)
        # Every ember tensor is strided, so layouts always agree: check_layout has nothing to check.
        if self.check_stride and actual.stride() != expected.stride():
            mismatch("stride()", actual.stride(), expected.stride())
        if self.check_device and actual.device != expected.device:
            mismatch("device", actual.device, expected.device)
        if self.check_dtype and actual.dtype != expected.dtype:
            mismatch("dtype", actual.dtype, expected.dtype)

    @staticmethod
    def _equalize(actual, expected):
        """The two data arrays on one device and in one dtype (reached only when the checks allow a difference)."""
        if actual.device != expected.device:
            actual, expected = actual.cpu(), expected.cpu()
        a, b = actual._data, expected._data
        if actual.dtype != expected.dtype:
            common = dt.promote_types(actual.dtype, expected.dtype).np
            a, b = a.astype(common), b.astype(common)
        return a, b


_PAIR_TYPES = (_NonePair, _BooleanPair, _NumberPair, _TensorLikePair)


# ------------------------------------------------------------------------------------------------ numerics
def _tensor_mismatch_msg(a, b, matches, rtol, atol) -> str:
    xp = array_module(a, b)
    total = matches.size
    mismatched = total - int(matches.sum())
    extra = f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"
    a, b, matched = a.reshape(-1), b.reshape(-1), matches.reshape(-1)
    with np.errstate(all="ignore"):
        if a.dtype.kind in "fc":
            abs_diff = complex_abs(xp, a - b)
            abs_diff[matched] = 0
            rel_diff = abs_diff / complex_abs(xp, b)
        else:
            # integers and bools are widened to int64 so that the difference cannot wrap; the ratio of two int64
            # tensors is a tensor of the default float dtype
            a, b = a.astype(np.int64), b.astype(np.int64)
            abs_diff = xp.abs(a - b)
            abs_diff[matched] = 0
            fd = dt.get_default_dtype().np
            rel_diff = abs_diff.astype(fd) / xp.abs(b).astype(fd)
        rel_diff[matched] = 0
    # argmax takes the first maximum and the first NaN, which is where PyTorch's max(dim) points
    i_abs, i_rel = int(xp.argmax(abs_diff)), int(xp.argmax(rel_diff))
    shape = matches.shape
    return _mismatch_msg("Tensor-likes", extra, abs_diff[i_abs].item(), _unravel(i_abs, shape), atol,
                         rel_diff[i_rel].item(), _unravel(i_rel, shape), rtol)


def _unravel(flat_index: int, shape) -> tuple:
    return tuple(int(i) for i in np.unravel_index(flat_index, shape))


# ------------------------------------------------------------------------------------------------ the walk
def _originate(actual, expected, id_, options) -> list:
    """The pairs of leaves of two (nested) inputs; raises a _Failure for structures that do not match."""
    sequence, mapping = collections.abc.Sequence, collections.abc.Mapping
    # strings are excluded: "a"[0] is "a" again, so recursing would never end
    if (isinstance(actual, sequence) and not isinstance(actual, str)
            and isinstance(expected, sequence) and not isinstance(expected, str)):
        if len(actual) != len(expected):
            raise _Failure(AssertionError,
                           f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", id_)
        pairs = []
        for i in range(len(actual)):
            pairs.extend(_originate(actual[i], expected[i], (*id_, i), options))
        return pairs
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            missing, additional = sorted(expected_keys - actual_keys), sorted(actual_keys - expected_keys)
            raise _Failure(AssertionError, f"The keys of the mappings do not match:\nMissing keys in the actual "
                                           f"mapping: {missing}\nAdditional keys in the actual mapping: {additional}",
                           id_)
        keys = actual_keys
        with contextlib.suppress(Exception):  # sorted when the keys allow it, so the first failure is deterministic
            keys = sorted(keys)
        pairs = []
        for key in keys:
            pairs.extend(_originate(actual[key], expected[key], (*id_, key), options))
        return pairs
    for pair_type in _PAIR_TYPES:
        try:
            return [pair_type(actual, expected, id_, options)]
        except _Unsupported:
            continue
        except _Failure:
            raise
        except Exception as error:
            raise RuntimeError(f"Originating a {pair_type.name}() at item {_item_path(id_)} with\n\n"
                               f"{type(actual).__name__}(): {actual}\n\nand\n\n{type(expected).__name__}(): "
                               f"{expected}\n\nresulted in the unexpected exception above.") from error
    raise _Failure(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                              f"{type(expected)}.", id_)


# ------------------------------------------------------------------------------------------------ public API
def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True, rtol: Optional[float] = None,
                 atol: Optional[float] = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False,
                 msg: Optional[Union[str, Callable[[str], str]]] = None) -> None:
    r"""Assert that ``actual`` and ``expected`` are close.

    Real, finite values are close when :math:`|actual - expected| \le atol + rtol \cdot |expected|`. Infinities
    are close only to the same infinity, and ``NaN`` only to ``NaN`` when ``equal_nan=True``. Tensors must also
    have the same shape and, unless the check is turned off, the same device, dtype and (with
    ``check_stride=True``) strides.

    ``actual`` and ``expected`` may be tensors, NumPy arrays or Python scalars, of directly related types (a
    tensor is never compared to an array or a number), or (nested) sequences and mappings of these, which must
    have the same lengths and keys and are compared item by item.

    Default tolerances by dtype (the looser of the two dtypes when they differ):

    ========================  ==========  ==========
    dtype                     ``rtol``    ``atol``
    ========================  ==========  ==========
    float16                   ``1e-3``    ``1e-5``
    float32, complex64        ``1.3e-6``  ``1e-5``
    float64, complex128       ``1e-7``    ``1e-7``
    integers, bool            ``0``       ``0``
    ========================  ==========  ==========

    Python ``int``, ``float`` and ``complex`` count as int64, float64 and complex128.

    Args:
        actual: the value under test.
        expected: the reference value.
        allow_subclasses: if ``False``, the inputs must be of exactly the same type (a ``Parameter`` no longer
            matches a plain tensor).
        rtol: relative tolerance; ``atol`` must be given with it.
        atol: absolute tolerance; ``rtol`` must be given with it.
        equal_nan: if ``True``, two ``NaN`` values count as equal.
        check_device: if ``False``, tensors on different devices are moved to the CPU and compared.
        check_dtype: if ``False``, tensors of different dtypes are promoted (``ember.promote_types``) and compared,
            and Python numbers of different types are compared.
        check_layout: accepted for compatibility: every ember tensor is strided.
        check_stride: if ``True``, tensors must also have the same ``stride()``.
        msg: replaces the failure message; a callable receives the generated message and returns the new one.
            Structural errors (lengths, keys, unsupported types, tolerance arguments) keep their own message.

    Raises:
        AssertionError: values, shapes, devices, dtypes or strides differ, or sequences or mappings do not match.
        TypeError: no comparison handles the inputs' types (e.g. a tensor and a NumPy array).
        ValueError: only one of ``rtol`` and ``atol`` is given.

    Example::

        >>> assert_close(ember.tensor([1., 2., 3.]), ember.tensor([1., 2.5, 3.]))
        Traceback (most recent call last):
        ...
        AssertionError: Tensor-likes are not close!
        <BLANKLINE>
        Mismatched elements: 1 / 3 (33.3%)
        Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)
        Greatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this function's
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                   check_stride=check_stride)
    try:
        pairs = _originate(actual, expected, (), options)
    except _Failure as failure:
        raise failure.to_error() from None
    failures = []
    for pair in pairs:
        try:
            pair.compare()
        except _Failure as failure:
            failures.append(failure)
        except Exception as error:
            raise RuntimeError(f"Comparing\n\n{pair}\n\nresulted in the unexpected exception above.") from error
    if failures:
        error = failures[0].to_error(msg)
        del failures  # the failures' tracebacks reference this frame; drop the cycle before raising
        raise error


def assert_allclose(actual: Any, expected: Any, rtol: Optional[float] = None, atol: Optional[float] = None,
                    equal_nan: bool = True, msg: str = "") -> None:
    """Deprecated: use :func:`assert_close`.

    Converts non-tensor inputs with ``ember.tensor`` (``expected`` in ``actual``'s dtype), then calls
    :func:`assert_close` with ``check_dtype=False`` and the older default tolerances (float16: ``1e-3``/``1e-3``,
    float32: ``1e-4``/``1e-5``, float64: ``1e-5``/``1e-8``, any other dtype exact). ``NaN`` equals ``NaN`` by
    default. Warns with a ``FutureWarning``.
    """
    __tracebackhide__ = True
    warnings.warn("`ember.testing.assert_allclose()` is deprecated (as `torch.testing.assert_allclose()` is since "
                  "PyTorch 1.12) and will be removed in a future release. Please use `ember.testing.assert_close()` "
                  "instead. You can find detailed upgrade instructions in "
                  "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = creation.tensor(actual)
    if not isinstance(expected, Tensor):
        expected = creation.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = _tolerances([actual.dtype.name, expected.dtype.name], None, None, (), _ALLCLOSE_TOLERANCES)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True, check_dtype=False,
                 check_stride=False, msg=msg or None)


def _low_high(low, high, dtype, lowest_inclusive, highest_exclusive, default_low, default_high):
    """The sampling bounds after PyTorch's defaults, checks, clamping to the dtype and (for integers) ceiling."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if isinstance(low, Tensor):
        low = low.item()
    if isinstance(high, Tensor):
        high = high.item()
    floating = dtype.category in (dt.FLOAT, dt.COMPLEX)
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got {low=} and {high=}")
    elif low == high and floating:
        warnings.warn("Passing `low==high` to `ember.testing.make_tensor` for floating or complex types is "
                      "deprecated (since PyTorch 2.1) and will be removed in a future release. Use `ember.full(...)` "
                      "instead.", FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest_inclusive or low >= highest_exclusive:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} only "
                         f"supports [{lowest_inclusive}, {highest_exclusive})")
    low = min(max(low, lowest_inclusive), highest_exclusive)
    high = min(max(high, lowest_inclusive), highest_exclusive)
    if not floating:
        # low is ceiled so no value falls below it; high too, because randint's upper bound is exclusive
        return math.ceil(low), math.ceil(high)
    return low, high


def _uniform(shape, dtype, low, high):
    """Host array of ``dtype`` drawn uniformly from [low, high) by ember's generator (so ``manual_seed`` repeats
    it); a complex dtype draws its real and imaginary parts independently."""
    real = dtype.to_real().np
    draws = shape + (2,) if dtype.category == dt.COMPLEX else shape
    u = creation.rand(draws, dtype=dt.float64)._data
    if high - low >= float(np.finfo(real).max):
        values = (low / 2 + (high / 2 - low / 2) * u) * 2  # the width overflows: scale down and back, as PyTorch
    else:
        values = low + (high - low) * u
    values = values.astype(real)
    if low < high:
        # rounding to a narrow dtype can land on high itself, which the interval excludes
        top = real.type(high)
        if float(top) >= high:
            top = np.nextafter(top, real.type(-np.inf))
        values = np.minimum(values, top)
    if dtype.category == dt.COMPLEX:
        values = np.ascontiguousarray(values).view(dtype.np)[..., 0]
    return np.asarray(values)  # a 0-dim draw computes to a NumPy scalar, which cannot be indexed in place


def make_tensor(*shape, dtype, device=None, low=None, high=None, requires_grad: bool = False,
                noncontiguous: bool = False, exclude_zero: bool = False, memory_format=None) -> Tensor:
    """A tensor of ``shape``, ``dtype`` and ``device`` filled with values drawn uniformly from ``[low, high)``.

    ``low`` and ``high`` outside the dtype's finite range are clamped to it. When omitted they default by dtype:

    ========================  =========  ==========
    dtype                     ``low``    ``high``
    ========================  =========  ==========
    bool                      ``0``      ``2``
    unsigned integers         ``0``      ``10``
    signed integers           ``-9``     ``10``
    floating and complex      ``-9``     ``9``
    ========================  =========  ==========

    For integer dtypes both bounds are rounded up. Complex values draw their real and imaginary parts from the
    range independently. Values differ from PyTorch's (another generator) but come from ember's, so
    ``ember.manual_seed`` makes them repeat.

    Args:
        shape: the sizes, as integers or one sequence of integers (no size gives a 0-dim tensor).
        dtype: the ember dtype of the result.
        device: the device of the result (the CPU when ``None``).
        low: inclusive lower bound; ``None`` for the dtype's default.
        high: exclusive upper bound; ``None`` for the dtype's default. ``low == high`` on a floating or complex
            dtype is deprecated (use ``ember.full``).
        requires_grad: whether autograd records operations on the result (floating and complex dtypes only).
        noncontiguous: if ``True``, the result is a non-contiguous view (ignored below two elements). Mutually
            exclusive with ``memory_format``.
        exclude_zero: if ``True``, zeros are replaced: by ``1`` for bool and integers, by the dtype's smallest
            normal number (``ember.finfo(dtype).tiny``) for floating and complex dtypes.
        memory_format: passed to ``Tensor.clone`` for the result's memory format. Mutually exclusive with
            ``noncontiguous``.

    Raises:
        ValueError: ``requires_grad=True`` with a bool or integer dtype, ``low >= high``, a ``NaN`` bound, an
            interval outside the dtype's range, or both ``noncontiguous`` and ``memory_format``.
        TypeError: ``dtype`` is not an ember dtype.
    """
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"{noncontiguous=} and {memory_format=}")
    category = dtype.category if isinstance(dtype, dt.dtype) else None
    if requires_grad and category in (dt.BOOL, dt.INT):
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got {dtype=}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        # twice the last dimension, then every other element, so the view is not the same values shifted by one
        shape = (*shape[:-1], 2 * shape[-1])
    if category == dt.BOOL:
        low, high = _low_high(low, high, dtype, 0, 2, 0, 2)
        values = creation.randint(low, high, shape, dtype=dtype)._data
    elif category == dt.INT:
        info = iinfo(dtype)
        # randint cannot draw int64's maximum (its exclusive bound would overflow), so int64 stops one short
        highest = info.max + (0 if dtype is dt.int64 else 1)
        low, high = _low_high(low, high, dtype, info.min, highest, -9, 10)
        values = creation.randint(low, high, shape, dtype=dtype)._data
    elif category in (dt.FLOAT, dt.COMPLEX):
        info = finfo(dtype)
        low, high = _low_high(low, high, dtype, info.min, info.max, -9, 9)
        creation.empty(shape, dtype=dtype)  # ember's own errors for a bad shape
        values = _uniform(shape, dtype, low, high)
    else:
        names = ", ".join(repr(d) for d in dt.ALL_DTYPES)
        raise TypeError(f"The requested dtype '{dtype}' is not supported by ember.testing.make_tensor(). Pass one of "
                        f"the ember dtypes: {names}.")
    if noncontiguous:
        values = values[..., 1::2]  # starting at 1 also catches code that ignores the storage offset
    if exclude_zero:
        values[values == 0] = 1 if category in (dt.BOOL, dt.INT) else finfo(dtype).tiny
    result = creation.as_tensor(values)
    if device is not None:
        result = result.to(device)
    if memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if category in (dt.FLOAT, dt.COMPLEX):
        result.requires_grad_(requires_grad)
    return result
