"""``repr`` of tensors, following PyTorch's printing rules (``torch/_tensor_str.py``).

* One formatter per tensor decides the style from the *nonzero finite* values: floats that are all whole print in
  "int mode" (``tensor([1., 2.])``); otherwise ``precision`` decimals, switching to scientific notation when the
  largest/smallest magnitudes differ by more than 1000x, exceed 1e8 or fall below 1e-4.
* Every element is padded to the widest formatted value; complex numbers get one formatter for the real parts
  and one for the imaginary parts.
* Tensors with more than ``threshold`` elements are summarised with ``...`` (``edgeitems`` per side and dimension).
* Rows wrap at ``linewidth``; nested dimensions are indented under the opening bracket (7 spaces for "tensor(").
* The suffix lists ``device=`` off the CPU, ``dtype=`` when it is not a default one (always for empty tensors that
  are not the default float), ``size=`` for empty tensors that are not 1-D, then ``grad_fn=<...>`` or
  ``requires_grad=True``; a suffix that would pass ``linewidth`` goes to a new line.
"""
from __future__ import annotations

import math

import numpy as np

from . import dtypes as dt

__all__ = ["tensor_repr", "set_printoptions", "get_printoptions"]


class _PrintOptions:
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None


PRINT_OPTS = _PrintOptions()

_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """Set how tensors print, as ``torch.set_printoptions`` does.

    Args:
        precision: digits after the decimal point (default 4).
        threshold: element count above which a tensor is summarised with ``...`` (default 1000).
        edgeitems: items shown at each end of a summarised dimension (default 3).
        linewidth: characters per line before wrapping (default 80).
        profile: ``"default"``, ``"short"`` or ``"full"``; the other arguments override it.
        sci_mode: force (True) or forbid (False) scientific notation; None decides automatically.
    """
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"set_printoptions(): profile must be one of {sorted(_PROFILES)}, got {profile!r}")
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = _PROFILES[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict:
    """The current print options as a dict (the keyword arguments of :func:`set_printoptions`)."""
    return {"precision": PRINT_OPTS.precision, "threshold": PRINT_OPTS.threshold,
            "edgeitems": PRINT_OPTS.edgeitems, "linewidth": PRINT_OPTS.linewidth, "sci_mode": PRINT_OPTS.sci_mode}


class _Formatter:
    """Chooses int / fixed / scientific style and the common width from the values a tensor will show."""

    def __init__(self, values: np.ndarray):
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not self.floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(str(v)))
            return
        vals = flat.astype(np.float64)
        shown = vals[np.isfinite(vals) & (vals != 0)]
        if shown.size == 0:
            return  # zeros, infinities and nans only: they print at their natural width
        mags = np.abs(shown)
        vmax, vmin = float(mags.max()), float(mags.min())
        p = PRINT_OPTS.precision
        self.int_mode = bool(np.all(shown == np.ceil(shown)))
        if self.int_mode:
            if vmax / vmin > 1000.0 or vmax > 1.0e8:
                self.sci_mode = True
                width = max(len(f"{v:.{p}e}") for v in shown.tolist())
            else:
                width = max(len(f"{v:.0f}") for v in shown.tolist()) + 1  # room for the trailing "."
        elif vmax / vmin > 1000.0 or vmax > 1.0e8 or vmin < 1.0e-4:
            self.sci_mode = True
            width = max(len(f"{v:.{p}e}") for v in shown.tolist())
        else:
            width = max(len(f"{v:.{p}f}") for v in shown.tolist())
        self.max_width = max(self.max_width, width)
        if PRINT_OPTS.sci_mode is not None:
            self.sci_mode = PRINT_OPTS.sci_mode

    def width(self) -> int:
        return self.max_width

    def format(self, value) -> str:
        if self.floating:
            v = float(value)
            if self.sci_mode:
                s = f"{v:.{PRINT_OPTS.precision}e}"
            elif self.int_mode:
                s = f"{v:.0f}"
                if math.isfinite(v):
                    s += "."
            else:
                s = f"{v:.{PRINT_OPTS.precision}f}"
        else:
            s = str(value)
        return " " * (self.max_width - len(s)) + s


class _ComplexFormatter:
    """Real and imaginary parts formatted separately, joined as ``a+bj``."""

    def __init__(self, values: np.ndarray):
        self.real = _Formatter(values.real)
        self.imag = _Formatter(values.imag)

    def width(self) -> int:
        return self.real.width() + self.imag.width() + 1  # the "j"

    def format(self, value) -> str:
        real = self.real.format(value.real)
        imag = (self.imag.format(value.imag) + "j").lstrip()
        return real + imag if imag[0] in "+-" else real + "+" + imag


def _summarized_data(data: np.ndarray, edge: int) -> np.ndarray:
    """The elements that a summarised print shows (used to choose the formatter)."""
    if data.ndim == 0:
        return data
    if data.ndim == 1:
        return np.concatenate([data[:edge], data[-edge:]]) if data.shape[0] > 2 * edge else data
    if not edge:
        return data[(slice(0, 0),) * data.ndim]
    rows = list(range(edge)) + list(range(len(data) - edge, len(data))) if data.shape[0] > 2 * edge else \
        range(data.shape[0])
    return np.stack([_summarized_data(data[i], edge) for i in rows])


def _vector_str(data, indent, formatter, summarize):
    element_length = formatter.width() + 2  # ", " between elements
    per_line = max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / element_length)))
    edge = PRINT_OPTS.edgeitems
    if summarize and not edge:
        items = ["..."]
    elif summarize and data.shape[0] > 2 * edge:
        items = ([formatter.format(v) for v in data[:edge].tolist()] + [" ..."] +
                 [formatter.format(v) for v in data[-edge:].tolist()])
    else:
        items = [formatter.format(v) for v in data.tolist()]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str(data, indent, formatter, summarize):
    if data.ndim == 0:
        return formatter.format(data.item())
    if data.ndim == 1:
        return _vector_str(data, indent, formatter, summarize)
    edge = PRINT_OPTS.edgeitems
    if summarize and data.shape[0] > 2 * edge:
        slices = ([_tensor_str(data[i], indent + 1, formatter, summarize) for i in range(edge)] + ["..."] +
                  [_tensor_str(data[i], indent + 1, formatter, summarize)
                   for i in range(len(data) - edge, len(data))])
    else:
        slices = [_tensor_str(data[i], indent + 1, formatter, summarize) for i in range(data.shape[0])]
    sep = "," + "\n" * (data.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(slices) + "]"


def _body(data: np.ndarray, indent: int) -> str:
    summarize = data.size > PRINT_OPTS.threshold
    if data.dtype == np.float16:
        data = data.astype(np.float32)
    shown = _summarized_data(data, PRINT_OPTS.edgeitems) if summarize else data
    formatter = _ComplexFormatter(shown) if data.dtype.kind == "c" else _Formatter(shown)
    return _tensor_str(data, indent, formatter, summarize)


def _add_suffixes(text, suffixes, indent):
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(t) -> str:
    """PyTorch-style repr: ``tensor([1., 2.], requires_grad=True)``."""
    data = t._data if type(t._data) is np.ndarray else t._data.get()
    name = type(t).__name__
    prefix = "tensor(" if name in ("Tensor", "Parameter") else f"{name}("
    indent = len(prefix)
    suffixes = []
    device = t.device
    if device.type != "cpu":
        suffixes.append(f"device='{device}'")
    dtype = t.dtype
    default = dt.get_default_dtype()
    if data.size == 0:
        if data.ndim != 1:
            suffixes.append(f"size={tuple(data.shape)}")
        # nothing to infer the dtype from, so anything but the default float dtype is named
        if dtype is not default:
            suffixes.append(f"dtype={dtype}")
        body = "[]"
    else:
        if dtype not in (default, default.to_complex(), dt.int64, dt.bool_):
            suffixes.append(f"dtype={dtype}")
        body = _body(data, indent)
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
