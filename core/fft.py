"""``ember.fft``: discrete Fourier transforms with PyTorch's ``torch.fft`` API, differentiable.

Every transform reduces to three primitives, each with its own backward node (named as in PyTorch):

* ``_c2c``: complex -> complex (``fft``/``ifft`` and their n-d forms), node ``FftC2CBackward0``;
* ``_r2c``: real -> one-sided complex (``rfft*``, ``ihfft*``), node ``FftR2CBackward0``;
* ``_c2r``: one-sided complex -> real (``irfft*``, ``hfft*``), node ``FftC2RBackward0``.

Normalisation: ``norm`` is ``"backward"`` (default: forward unscaled, inverse scaled by 1/n), ``"ortho"`` (both
1/sqrt(n)) or ``"forward"`` (forward scaled by 1/n). The adjoint of a transform is the opposite-direction transform
with the *dual* norm (``"backward"`` <-> ``"forward"``, ``"ortho"`` unchanged), which is how the backward rules are
written. The one-sided transforms also need the Hermitian doubling correction on the halved dimension.

Gradients follow PyTorch's complex convention (``dL/dRe + i dL/dIm``). Integer inputs are promoted to the default
float dtype; float32 computes in complex64 and float64 in complex128.
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from . import dtypes as dt
from .autograd.graph import Node
from .ops._base import GRAD_ENABLED, Tensor, check_tensor, normalize_dim, record, wrap

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
           "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_NORMS = ("backward", "ortho", "forward")
_DUAL = {"backward": "forward", "forward": "backward", "ortho": "ortho"}
_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128)}
_REAL_OF = {v: k for k, v in _COMPLEX_OF.items()}


# ----------------------------------------------------------------------------------------------- argument handling
def _norm(norm) -> str:
    if norm is None:
        return "backward"
    if norm not in _NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return norm


def _real_dtype(x: Tensor, fname: str) -> np.dtype:
    """The real dtype ``x`` computes in: integers promote to the default float; half is unsupported on CPU."""
    d = x._data.dtype
    if d.kind in "biu":
        return dt.get_default_dtype().np
    if d.kind == "c":
        return _REAL_OF[d]
    if d not in _COMPLEX_OF:
        raise RuntimeError(f"Unsupported dtype {x.dtype.scalar_name}")
    return d


def _as_real(x: Tensor, fname: str) -> Tensor:
    if x._data.dtype.kind == "c":
        raise RuntimeError(f"{fname} expects a real input tensor, but got {x.dtype.scalar_name}")
    rd = _real_dtype(x, fname)
    return x if x._data.dtype == rd else x.to(dt.from_numpy_dtype(rd))


def _as_complex(x: Tensor, fname: str) -> Tensor:
    if x._data.dtype.kind == "c":
        return x
    return x.to(dt.from_numpy_dtype(_COMPLEX_OF[_real_dtype(x, fname)]))


def _shape_and_dims(x: Tensor, s, dim):
    """PyTorch's canonical (sizes, dims) of an n-d transform from the optional ``s`` and ``dim`` arguments."""
    nd = x._data.ndim
    shape = x._data.shape
    if dim is not None:
        dim = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
        dims = tuple(normalize_dim(d, nd) for d in dim)
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        s = (s,) if isinstance(s, (int, np.integer)) else tuple(s)
        if dim is not None and len(dim) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > nd:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {nd} dimensions.")
        if dim is None:
            dims = tuple(range(nd - len(s), nd))
        sizes = tuple(int(n) if n != -1 else shape[d] for n, d in zip(s, dims))
    elif dim is None:
        dims = tuple(range(nd))
        sizes = tuple(shape)
    else:
        sizes = tuple(shape[d] for d in dims)
    for n in sizes:
        if n <= 0:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return sizes, dims


def _one_dim(x: Tensor, n, dim):
    d = normalize_dim(dim, x._data.ndim)
    if n is not None and n <= 0:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return (x._data.shape[d] if n is None else int(n),), (d,)


# ------------------------------------------------------------------------------------------------ zero pad / slice
class FftResizeBackward0(Node):
    """Backward of the zero-padding / truncation that ``n``/``s`` apply to an input: the opposite resize."""
    __slots__ = ()

    def apply(self, grad):
        dims, in_sizes = self.dims, self.in_sizes
        return (_resize(grad, dims, in_sizes),)


def _resize(x: Tensor, dims, sizes) -> Tensor:
    """Zero-pad or truncate ``x`` along ``dims`` to ``sizes`` (differentiable)."""
    data = x._data
    if all(data.shape[d] == n for d, n in zip(dims, sizes)):
        return x
    new_shape = list(data.shape)
    for d, n in zip(dims, sizes):
        new_shape[d] = n
    out_data = x._xp.zeros(new_shape, dtype=data.dtype)
    common = tuple(slice(0, min(data.shape[i], new_shape[i])) for i in range(data.ndim))
    out_data[common] = data[common]
    out = wrap(out_data)
    if GRAD_ENABLED[0] and x._requires_grad:
        node = FftResizeBackward0()
        node.dims, node.in_sizes = tuple(dims), tuple(data.shape[d] for d in dims)
        record(node, out, x)
    return out


# ------------------------------------------------------------------------------------------------------ primitives
def _cast_out(arr, dtype):
    # numpy < 2 computes every transform in double precision
    return arr if arr.dtype == dtype else arr.astype(dtype)


class FftC2CBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        dims, norm, forward, in_sizes, real_input = self.dims, self.norm, self.forward, self.in_sizes, self.real_input
        g = _resize(_c2c(grad, dims, None, _DUAL[norm], not forward), dims, in_sizes)
        # a real input (transformed as complex with zero imaginary part) takes the real part of the gradient
        return (g.real if real_input else g,)


def _c2c(x: Tensor, dims, sizes, norm: str, forward: bool, real_fill: bool = False) -> Tensor:
    """Complex-to-complex transform of ``x`` over ``dims``, resized to ``sizes`` first (None: as is).

    A float32/float64 ``x`` is transformed as the complex signal ``x + 0i`` (NumPy converts it on the fly); with
    ``real_fill`` (the 1-D ``fft``/``ifft`` of a real signal) it is computed as PyTorch does, so that the signs of
    zero agree: the one-sided transform, its mirror filled with conjugates, conjugated as a whole for the inverse.
    """
    xp = x._xp
    data = x._data
    cdtype = data.dtype if data.dtype.kind == "c" else _COMPLEX_OF[data.dtype]
    if not dims:
        out = wrap(data.astype(cdtype))
    elif real_fill and data.dtype.kind != "c" and len(dims) == 1:
        out = wrap(_cast_out(_real_full_spectrum(xp, data, sizes[0], dims[0], norm, forward), cdtype))
    else:
        fn = xp.fft.fftn if forward else xp.fft.ifftn
        out = wrap(_cast_out(fn(data, s=sizes, axes=dims, norm=norm), cdtype))
    if GRAD_ENABLED[0] and x._requires_grad:
        node = FftC2CBackward0()
        node.dims = dims
        node.norm = norm
        node.forward = forward
        node.in_sizes = tuple(data.shape[d] for d in dims)
        node.real_input = data.dtype.kind != "c"
        record(node, out, x)
    return out


def _real_full_spectrum(xp, data, n: int, dim: int, norm: str, forward: bool):
    """The full length-``n`` spectrum of real ``data`` along ``dim`` from its one-sided transform (PyTorch's r2c with
    ``onesided=False``): bins past ``n // 2`` are the conjugates of their mirrors, and the inverse is the conjugate
    of the forward transform scaled as the inverse."""
    half = xp.fft.rfft(data, n=n, axis=dim, norm=norm if forward else _DUAL[norm])
    h = half.shape[dim]
    mirror = xp.conj(xp.flip(xp.take(half, xp.arange(1, n - h + 1), axis=dim), axis=dim))
    full = xp.concatenate([half, mirror], axis=dim)
    return full if forward else xp.conj(full)


def _half_weights(xp, n_full: int, n_half: int, ndim: int, dim: int, dtype, value: float):
    """Weights along the one-sided dim ``dim``: ``value`` on the bins that stand for two Hermitian bins, else 1."""
    w = np.ones(n_half, dtype=dtype)
    doubled = n_full - n_half  # bins 1 .. doubled have a mirrored twin in the full spectrum
    if doubled > 0:
        w[1:1 + doubled] = value
    shape = [1] * ndim
    shape[dim] = n_half
    return wrap(xp.asarray(w.reshape(shape)))


class FftR2CBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        dims, sizes, norm, in_sizes = self.dims, self.sizes, self.norm, self.in_sizes
        # adjoint of the one-sided transform: zero-fill the missing half and take the real part of the inverse,
        # which is exactly irfft of the half spectrum with its doubled bins halved
        last = dims[-1]
        w = _half_weights(grad._xp, sizes[-1], grad._data.shape[last], grad._data.ndim, last,
                          _REAL_OF[grad._data.dtype], 0.5)
        g = _c2r(grad * w, dims, sizes, _DUAL[norm])
        return (_resize(g, dims, in_sizes),)


def _r2c(x: Tensor, dims, sizes, norm: str) -> Tensor:
    """One-sided forward transform of real ``x`` (the last of ``dims`` is halved to ``n // 2 + 1``)."""
    data = x._data
    out = wrap(_cast_out(x._xp.fft.rfftn(data, s=sizes, axes=dims, norm=norm), _COMPLEX_OF[data.dtype]))
    if GRAD_ENABLED[0] and x._requires_grad:
        node = FftR2CBackward0()
        node.dims, node.sizes, node.norm, node.in_sizes = dims, sizes, norm, tuple(data.shape[d] for d in dims)
        record(node, out, x)
    return out


class FftC2RBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        dims, sizes, norm, in_sizes = self.dims, self.sizes, self.norm, self.in_sizes
        # each interior bin of the half spectrum feeds two bins of the Hermitian full spectrum: double its gradient
        g = _r2c(grad, dims, sizes, _DUAL[norm])
        last = dims[-1]
        g = g * _half_weights(g._xp, sizes[-1], g._data.shape[last], g._data.ndim, last, grad._data.dtype, 2.0)
        return (_resize(g, dims, in_sizes),)


def _c2r(x: Tensor, dims, sizes, norm: str) -> Tensor:
    """Inverse one-sided transform of complex ``x`` to a real signal of ``sizes`` along ``dims``."""
    data = x._data
    out = wrap(_cast_out(x._xp.fft.irfftn(data, s=sizes, axes=dims, norm=norm), _REAL_OF[data.dtype]))
    if GRAD_ENABLED[0] and x._requires_grad:
        node = FftC2RBackward0()
        node.dims, node.sizes, node.norm, node.in_sizes = dims, sizes, norm, tuple(data.shape[d] for d in dims)
        record(node, out, x)
    return out


# ---------------------------------------------------------------------------------------------- complex transforms
def _c2c_api(input, sizes, dims, norm, forward, fname, real_fill=False):
    check_tensor(input, "input", fname)
    norm = _norm(norm)
    x = input
    if x._data.dtype.kind != "c":
        rd = _real_dtype(x, fname)  # integers -> default float; float16 is rejected
        if x._data.dtype != rd:
            x = x.to(dt.from_numpy_dtype(rd))
    return _c2c(x, dims, sizes, norm, forward, real_fill)


def fft(input, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None) -> Tensor:
    """The one-dimensional discrete Fourier transform of ``input`` along ``dim``.

    Args:
        input: the input tensor; real inputs are promoted to complex (float32 -> complex64).
        n: signal length: the input is zero-padded or trimmed to ``n`` along ``dim`` first.
        dim: the dimension to transform.
        norm: ``"backward"`` (no scaling, default), ``"ortho"`` (1/sqrt(n)) or ``"forward"`` (1/n).

    Example::

        >>> ember.fft.fft(ember.arange(4))
        tensor([ 6.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])
    """
    check_tensor(input, "input", "fft")
    sizes, dims = _one_dim(input, n, dim)
    return _c2c_api(input, sizes, dims, norm, True, "fft", real_fill=True)


def ifft(input, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None) -> Tensor:
    """The one-dimensional inverse discrete Fourier transform of ``input`` along ``dim``.

    ``norm="backward"`` (default) scales by 1/n, so ``ifft(fft(x)) == x``. See :func:`fft` for the arguments.
    """
    check_tensor(input, "input", "ifft")
    sizes, dims = _one_dim(input, n, dim)
    return _c2c_api(input, sizes, dims, norm, False, "ifft", real_fill=True)


def fftn(input, s: Optional[Sequence[int]] = None, dim: Optional[Sequence[int]] = None,
         norm: Optional[str] = None) -> Tensor:
    """The N-dimensional discrete Fourier transform of ``input``.

    Args:
        input: the input tensor (real inputs are promoted to complex).
        s: signal size per transformed dim (zero-pad or trim); -1 keeps a dim's size. When given without ``dim``,
            the last ``len(s)`` dims are transformed.
        dim: dims to transform; all of them by default.
        norm: ``"backward"``, ``"ortho"`` or ``"forward"``, applied to the whole transform.
    """
    check_tensor(input, "input", "fftn")
    sizes, dims = _shape_and_dims(input, s, dim)
    return _c2c_api(input, sizes, dims, norm, True, "fftn")


def ifftn(input, s: Optional[Sequence[int]] = None, dim: Optional[Sequence[int]] = None,
          norm: Optional[str] = None) -> Tensor:
    """The N-dimensional inverse discrete Fourier transform of ``input``; arguments as :func:`fftn`."""
    check_tensor(input, "input", "ifftn")
    sizes, dims = _shape_and_dims(input, s, dim)
    return _c2c_api(input, sizes, dims, norm, False, "ifftn")


def fft2(input, s: Optional[Sequence[int]] = None, dim: Sequence[int] = (-2, -1),
         norm: Optional[str] = None) -> Tensor:
    """The two-dimensional discrete Fourier transform over ``dim`` (the last two dims by default)."""
    return fftn(input, s, dim, norm)


def ifft2(input, s: Optional[Sequence[int]] = None, dim: Sequence[int] = (-2, -1),
          norm: Optional[str] = None) -> Tensor:
    """The two-dimensional inverse discrete Fourier transform over ``dim`` (the last two dims by default)."""
    return ifftn(input, s, dim, norm)


# ---------------------------------------------------------------------------------------------- real transforms
def rfft(input, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None) -> Tensor:
    """The one-dimensional Fourier transform of real ``input``, keeping the ``n // 2 + 1`` non-negative frequencies.

    The negative frequencies are redundant for real input (Hermitian symmetry). Arguments as :func:`fft`.
    """
    check_tensor(input, "input", "rfft")
    x = _as_real(input, "rfft")
    sizes, dims = _one_dim(x, n, dim)
    return _r2c(x, dims, sizes, _norm(norm))


def irfft(input, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None) -> Tensor:
    """The inverse of :func:`rfft`: a real signal of length ``n`` from its one-sided spectrum.

    ``n`` defaults to ``2 * (input.size(dim) - 1)``; pass the original length to round-trip odd lengths. The
    imaginary parts of the zero (and, for even ``n``, the Nyquist) frequency are ignored.
    """
    check_tensor(input, "input", "irfft")
    d = normalize_dim(dim, input._data.ndim)
    last = int(n) if n is not None else 2 * (input._data.shape[d] - 1)
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    x = _resize(_as_complex(input, "irfft"), (d,), (last // 2 + 1,))
    return _c2r(x, (d,), (last,), _norm(norm))


def rfftn(input, s: Optional[Sequence[int]] = None, dim: Optional[Sequence[int]] = None,
          norm: Optional[str] = None) -> Tensor:
    """The N-dimensional Fourier transform of real ``input``; the last transformed dim keeps ``n // 2 + 1`` bins."""
    check_tensor(input, "input", "rfftn")
    x = _as_real(input, "rfftn")
    sizes, dims = _shape_and_dims(x, s, dim)
    if not dims:
        raise RuntimeError("rfftn must transform at least one axis")
    return _r2c(x, dims, sizes, _norm(norm))


def _c2r_sizes(input, s, dim, fname):
    sizes, dims = _shape_and_dims(input, s, dim)
    if not dims:
        raise RuntimeError(f"{fname} must transform at least one axis")
    if s is None or tuple(np.atleast_1d(s))[-1] == -1:
        last = 2 * (input._data.shape[dims[-1]] - 1)
    else:
        last = sizes[-1]
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    return sizes[:-1] + (last,), dims


def irfftn(input, s: Optional[Sequence[int]] = None, dim: Optional[Sequence[int]] = None,
           norm: Optional[str] = None) -> Tensor:
    """The inverse of :func:`rfftn`: a real N-d signal of size ``s`` from its one-sided spectrum.

    The last transformed dim defaults to ``2 * (input.size(dim[-1]) - 1)``.
    """
    check_tensor(input, "input", "irfftn")
    out_sizes, dims = _c2r_sizes(input, s, dim, "irfftn")
    x = _resize(_as_complex(input, "irfftn"), dims, out_sizes[:-1] + (out_sizes[-1] // 2 + 1,))
    return _c2r(x, dims, out_sizes, _norm(norm))


def rfft2(input, s: Optional[Sequence[int]] = None, dim: Sequence[int] = (-2, -1),
          norm: Optional[str] = None) -> Tensor:
    """The two-dimensional :func:`rfftn` over ``dim`` (the last two dims by default)."""
    return rfftn(input, s, dim, norm)


def irfft2(input, s: Optional[Sequence[int]] = None, dim: Sequence[int] = (-2, -1),
           norm: Optional[str] = None) -> Tensor:
    """The two-dimensional :func:`irfftn` over ``dim`` (the last two dims by default)."""
    return irfftn(input, s, dim, norm)


# ---------------------------------------------------------------------------------------- Hermitian transforms
def hfft(input, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None) -> Tensor:
    """The Fourier transform of a Hermitian-symmetric signal given by its one-sided half: a real output of length n.

    ``hfft`` is the forward-direction counterpart of :func:`irfft`: ``hfft(x, n) == irfft(x.conj(), n) * n`` with
    the default norm. ``n`` defaults to ``2 * (input.size(dim) - 1)``.
    """
    check_tensor(input, "input", "hfft")
    d = normalize_dim(dim, input._data.ndim)
    last = int(n) if n is not None else 2 * (input._data.shape[d] - 1)
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    x = _resize(_as_complex(input, "hfft").conj(), (d,), (last // 2 + 1,))
    return _c2r(x, (d,), (last,), _DUAL[_norm(norm)])


def ihfft(input, n: Optional[int] = None, dim: int = -1, norm: Optional[str] = None) -> Tensor:
    """The inverse of :func:`hfft`: the one-sided half of the inverse transform of a real signal.

    ``ihfft(x) == ifft(x)[: n // 2 + 1]`` for real ``x``.
    """
    check_tensor(input, "input", "ihfft")
    x = _as_real(input, "ihfft")
    sizes, dims = _one_dim(x, n, dim)
    return _r2c(x, dims, sizes, _DUAL[_norm(norm)]).conj()


def hfftn(input, s: Optional[Sequence[int]] = None, dim: Optional[Sequence[int]] = None,
          norm: Optional[str] = None) -> Tensor:
    """The N-dimensional :func:`hfft`: the last transformed dim of ``input`` is the one-sided Hermitian half."""
    check_tensor(input, "input", "hfftn")
    out_sizes, dims = _c2r_sizes(input, s, dim, "hfftn")
    x = _resize(_as_complex(input, "hfftn").conj(), dims, out_sizes[:-1] + (out_sizes[-1] // 2 + 1,))
    return _c2r(x, dims, out_sizes, _DUAL[_norm(norm)])


def ihfftn(input, s: Optional[Sequence[int]] = None, dim: Optional[Sequence[int]] = None,
           norm: Optional[str] = None) -> Tensor:
    """The N-dimensional :func:`ihfft` of real ``input``: the one-sided half of its inverse transform."""
    check_tensor(input, "input", "ihfftn")
    x = _as_real(input, "ihfftn")
    sizes, dims = _shape_and_dims(x, s, dim)
    if not dims:
        raise RuntimeError("ihfftn must transform at least one axis")
    return _r2c(x, dims, sizes, _DUAL[_norm(norm)]).conj()


def hfft2(input, s: Optional[Sequence[int]] = None, dim: Sequence[int] = (-2, -1),
          norm: Optional[str] = None) -> Tensor:
    """The two-dimensional :func:`hfftn` over ``dim`` (the last two dims by default)."""
    return hfftn(input, s, dim, norm)


def ihfft2(input, s: Optional[Sequence[int]] = None, dim: Sequence[int] = (-2, -1),
           norm: Optional[str] = None) -> Tensor:
    """The two-dimensional :func:`ihfftn` over ``dim`` (the last two dims by default)."""
    return ihfftn(input, s, dim, norm)


# ------------------------------------------------------------------------------------------ frequencies and shifts
def _freq_tensor(values: np.ndarray, dtype, device, requires_grad) -> Tensor:
    from .device import module_for_device
    d = dt.to_dtype(dtype) if dtype is not None else dt.get_default_dtype()
    xp = module_for_device(device) if device is not None else np
    out = wrap(xp.asarray(values, dtype=d.np))
    if requires_grad:
        out.requires_grad_(True)
    return out


def _check_n(n, fname):
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(f"{fname}(): argument 'n' must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"{fname}: n must be non-negative, got {n}")


def fftfreq(n: int, d: float = 1.0, *, dtype=None, layout=None, device=None, requires_grad=False,
            out=None) -> Tensor:
    """The sample frequencies of a length-``n`` transform with sample spacing ``d``.

    ``[0, 1, ..., n//2 - 1 (or (n-1)//2), -(n//2), ..., -1] / (d * n)``, in the default float dtype.
    """
    _check_n(n, "fftfreq")
    idx = np.arange(n)
    idx = np.where(idx < (n + 1) // 2, idx, idx - n)
    return _freq_tensor(idx / (d * n) if n else idx.astype(np.float64), dtype, device, requires_grad)


def rfftfreq(n: int, d: float = 1.0, *, dtype=None, layout=None, device=None, requires_grad=False,
             out=None) -> Tensor:
    """The non-negative sample frequencies of :func:`rfft` of a length-``n`` signal: ``[0, ..., n//2] / (d * n)``."""
    _check_n(n, "rfftfreq")
    idx = np.arange(n // 2 + 1)
    return _freq_tensor(idx / (d * n) if n else idx.astype(np.float64), dtype, device, requires_grad)


def _shift(input, dim, sign, fname):
    check_tensor(input, "input", fname)
    nd = input._data.ndim
    if dim is None:
        dims = tuple(range(nd))
    elif isinstance(dim, (int, np.integer)):
        dims = (normalize_dim(dim, nd),)
    else:
        dims = tuple(normalize_dim(d, nd) for d in dim)
    if not dims:
        return input
    shifts = tuple(sign * (input._data.shape[d] // 2) for d in dims)
    return input.roll(shifts, dims)


def fftshift(input, dim=None) -> Tensor:
    """Reorder an FFT output so the zero frequency is in the centre (a roll by ``n // 2`` along each of ``dim``)."""
    return _shift(input, dim, 1, "fftshift")


def ifftshift(input, dim=None) -> Tensor:
    """The inverse of :func:`fftshift` (a roll by ``-(n // 2)`` along each of ``dim``)."""
    return _shift(input, dim, -1, "ifftshift")



# PyTorch's fft functions take ``out=`` (all but the shifts); one helper gives them its rules.
from .ops._out import add_out_argument  # noqa: E402

add_out_argument(globals(), [n for n in __all__ if n not in ("fftshift", "ifftshift")],
                 factories=("fftfreq", "rfftfreq"))
