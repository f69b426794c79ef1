"""``repr`` of tensors, following PyTorch's printing rules.

* Floats whose finite values are all whole print in "int mode" (``tensor([1., 2.])``).
* Otherwise 4 decimals, switching to scientific notation when the largest/smallest non-zero magnitudes differ by
  more than 1000x, exceed 1e8 or fall below 1e-4.
* All elements are padded to one width; complex numbers format real and imaginary parts separately.
* Tensors over 1000 elements are summarised with ``...`` (3 edge items per dimension).
* The suffix lists the dtype when it is not a default one, ``requires_grad=True`` or ``grad_fn=<...>``.
"""
from __future__ import annotations

import math

import numpy as np

from . import dtypes as dt

__all__ = ["tensor_repr", "set_printoptions"]


class _PrintOptions:
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None


PRINT_OPTS = _PrintOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """Set print options as ``torch.set_printoptions`` does (``profile``: "default", "short" or "full")."""
    if profile == "default":
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 4, 1000, 3, 80
    elif profile == "short":
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 2, 1000, 2, 80
    elif profile == "full":
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 4, math.inf, 3, 80
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


class _Formatter:
    def __init__(self, values: np.ndarray):
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        p = PRINT_OPTS.precision
        if not self.floating:
            for v in values.reshape(-1):
                self.max_width = max(self.max_width, len(str(v.item() if hasattr(v, "item") else v)))
            return
        vals = values.astype(np.float64).reshape(-1)
        finite = vals[np.isfinite(vals)]
        nonzero = np.abs(finite[finite != 0])
        for v in vals[~np.isfinite(vals)]:
            self.max_width = max(self.max_width, len(str(float(v))))
        if nonzero.size == 0:
            self.max_width = max(self.max_width, 2)  # "0."
            return
        vmax, vmin = nonzero.max(), nonzero.min()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        if self.int_mode:
            if vmax / vmin > 1000.0 or vmax > 1.0e8:
                self.sci_mode = True
                widths = [len(f"{v:.{p}e}") for v in finite]
            else:
                widths = [len(f"{v:.0f}") + 1 for v in finite]
        else:
            if vmax / vmin > 1000.0 or vmax > 1.0e8 or vmin < 1.0e-4:
                self.sci_mode = True
                widths = [len(f"{v:.{p}e}") for v in finite]
            else:
                widths = [len(f"{v:.{p}f}") for v in finite]
        self.max_width = max([self.max_width] + widths)
        if PRINT_OPTS.sci_mode is not None:
            self.sci_mode = PRINT_OPTS.sci_mode

    def width(self) -> int:
        return self.max_width

    def format(self, value) -> str:
        if self.floating:
            v = float(value)
            p = PRINT_OPTS.precision
            if not math.isfinite(v):
                s = str(v)
            elif self.sci_mode:
                s = f"{v:.{p}e}"
            elif self.int_mode:
                s = f"{v:.0f}."
            else:
                s = f"{v:.{p}f}"
        else:
            s = str(value.item() if hasattr(value, "item") else value)
        return " " * (self.max_width - len(s)) + s


class _ComplexFormatter:
    def __init__(self, values):
        self.real = _Formatter(values.real)
        self.imag = _Formatter(values.imag)

    def width(self):
        return self.real.width() + self.imag.width() + 2

    def format(self, value):
        real = self.real.format(value.real)
        imag = (self.imag.format(value.imag) + "j").lstrip()
        return real + imag if imag[0] in "+-" else real + "+" + imag


def _summarized_data(data, edge):
    """The elements that will be printed when summarising (for computing the width)."""
    if data.ndim == 0:
        return data
    if data.shape[0] > 2 * edge:
        parts = [_summarized_data(data[i], edge) for i in list(range(edge)) + list(range(len(data) - edge, len(data)))]
    else:
        parts = [_summarized_data(data[i], edge) for i in range(len(data))]
    return np.stack(parts) if parts else data


def _vector_str(data, indent, formatter, summarize):
    elem_width = formatter.width() + 2
    per_line = max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / elem_width)))
    edge = PRINT_OPTS.edgeitems
    if summarize and data.shape[0] > 2 * edge:
        items = [formatter.format(v) for v in data[:edge]] + [" ..."] + [formatter.format(v) for v in data[-edge:]]
    else:
        items = [formatter.format(v) for v in data]
    lines = [items[i:i + per_line] for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(", ".join(line) for line in lines) + "]"


def _tensor_str(data, indent, formatter, summarize):
    if data.ndim == 0:
        return formatter.format(data[()])
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


def _default_dtypes():
    d = dt.get_default_dtype()
    return {d, d.to_complex(), dt.int64, dt.bool_}


def tensor_repr(t) -> str:
    """PyTorch-style repr: ``tensor([1., 2.], requires_grad=True)``."""
    data = t._data if type(t._data) is np.ndarray else t._data.get()
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    summarize = data.size > PRINT_OPTS.threshold
    if data.size == 0:
        body = "[]"
        if data.shape != (0,):
            suffixes.append(f"size={tuple(data.shape)}")
    else:
        shown = _summarized_data(data, PRINT_OPTS.edgeitems) if summarize else data
        formatter = _ComplexFormatter(shown) if data.dtype.kind == "c" else _Formatter(shown)
        body = _tensor_str(data, indent, formatter, summarize)
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    if t.dtype not in _default_dtypes() or (data.size == 0 and t.dtype.category != dt.FLOAT):
        if not (data.size == 0 and t.dtype is dt.get_default_dtype()):
            suffixes.append(f"dtype={t.dtype}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return prefix + body + "".join(", " + s for s in suffixes) + ")"
