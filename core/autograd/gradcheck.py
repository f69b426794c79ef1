"""``gradcheck`` and ``gradgradcheck``: compare analytical gradients with central finite differences.

Defaults are PyTorch's (``eps=1e-6, atol=1e-5, rtol=1e-3``). Inputs that require grad should be float64 (or
complex128); complex inputs are perturbed along the real and imaginary axes, and the check uses PyTorch's
convention that the gradient of a real loss ``L`` w.r.t. ``z`` is ``dL/dRe(z) + i dL/dIm(z)``.
"""
from __future__ import annotations

import warnings

import numpy as np

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` when the analytical and numerical gradients differ."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (list, tuple)) else (x,)


def _outputs(func, inputs):
    from ..tensor import Tensor
    out = func(*inputs)
    outs = _as_tuple(out)
    return [o for o in outs if isinstance(o, Tensor) and o._data.dtype.kind in "fc"]


def _fail(msg, raise_exception):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def _numerical_vjp(func, inputs, idx, grad_outs, eps):
    """d/dx_idx of sum_k Re(<grad_out_k, out_k>) by central differences, as an array shaped like the input."""
    x = inputs[idx]
    data = x._data
    flat = data.reshape(-1)
    result = np.zeros(data.shape, dtype=data.dtype)
    res_flat = result.reshape(-1)

    def objective():
        # grad mode stays on: for gradgradcheck, ``func`` itself calls autograd.grad
        outs = _outputs(func, inputs)
        return sum(float(np.real(np.vdot(g, o._data)).sum()) for g, o in zip(grad_outs, outs))

    directions = (1.0, 1j) if data.dtype.kind == "c" else (1.0,)
    for i in range(flat.size):
        orig = flat[i]
        for d in directions:
            flat[i] = orig + eps * d
            plus = objective()
            flat[i] = orig - eps * d
            minus = objective()
            flat[i] = orig
            res_flat[i] += (plus - minus) / (2 * eps) * d
    return result


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False, fast_mode=False,
              masked=None):
    """Check the gradients of ``func`` at ``inputs`` against central finite differences.

    For every output a random upstream gradient is drawn; the vector-Jacobian product from autograd must match the
    numerical one within ``atol + rtol * |numerical|``. Also checks that a zero upstream gradient gives zero (or
    None) gradients and that backward is reproducible. Returns True, or raises ``GradcheckError``.
    """
    from ..tensor import Tensor
    from .engine import grad as autograd_grad
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t._requires_grad]
    if not diff_idx:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the them "
                         "have requires_grad=True.")
    for i in diff_idx:
        if inputs[i]._data.dtype not in (np.float64, np.complex128):
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating point "
                          "or complex. ")
    outs = _outputs(func, inputs)
    if not outs:
        return _fail("gradcheck: the function returned no floating-point tensor outputs", raise_exception)
    rng = np.random.default_rng(0)
    grad_outs = []
    for o in outs:
        g = rng.standard_normal(o._data.shape)
        if o._data.dtype.kind == "c":
            g = g + 1j * rng.standard_normal(o._data.shape)
        grad_outs.append(np.asarray(g, dtype=o._data.dtype))
    diff_inputs = [inputs[i] for i in diff_idx]
    connected = [o for o in outs if o._requires_grad]
    gos = [Tensor._make(g.copy()) for g, o in zip(grad_outs, outs) if o._requires_grad]
    if connected:
        analytical = autograd_grad(connected, diff_inputs, gos, retain_graph=True, allow_unused=True)
    else:
        analytical = [None] * len(diff_inputs)
    for k, i in enumerate(diff_idx):
        numerical = _numerical_vjp(func, inputs, i, grad_outs, eps)
        a = analytical[k]
        a = np.zeros_like(numerical) if a is None else np.asarray(a._data)
        if a.shape != numerical.shape:
            return _fail(f"Gradient shape mismatch for input {i}: analytical {a.shape}, numerical {numerical.shape}",
                         raise_exception)
        if not np.allclose(a, numerical, rtol=rtol, atol=atol, equal_nan=False):
            err = np.max(np.abs(a - numerical))
            return _fail(f"Jacobian mismatch for output 0 with respect to input {i},\nnumerical:{numerical}\n"
                         f"analytical:{a}\nmax abs difference: {err}\n", raise_exception)
    if connected:
        again = autograd_grad(connected, diff_inputs, [Tensor._make(g.copy()) for g in
                                                        (g for g, o in zip(grad_outs, outs) if o._requires_grad)],
                              retain_graph=True, allow_unused=True)
        for k, (a, b) in enumerate(zip(analytical, again)):
            if (a is None) != (b is None) or (a is not None and np.max(np.abs(a._data - b._data)) > nondet_tol):
                return _fail(f"Backward is not reentrant, i.e., running backward with same input and grad_output "
                             f"multiple times gives different values, although analytical gradient matches "
                             f"numerical gradient. The tolerance for nondeterminism was {nondet_tol}.",
                             raise_exception)
        zeros = [Tensor._make(np.zeros_like(o._data)) for o in connected]
        zero_grads = autograd_grad(connected, diff_inputs, zeros, retain_graph=True, allow_unused=True)
        for k, g in enumerate(zero_grads):
            if g is not None and np.any(g._data != 0):
                return _fail(f"backward not multiplied by grad_output: a zero grad_output gave a non-zero gradient "
                             f"for input {diff_idx[k]}", raise_exception)
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, gen_non_contig_grad_outputs=False,
                  raise_exception=True, nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """Check second-order gradients: gradcheck of the map ``(inputs, grad_outputs) -> vjp`` built with create_graph."""
    from ..tensor import Tensor
    from .engine import grad as autograd_grad
    inputs = _as_tuple(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(1)
        grad_outputs = []
        for o in outs:
            g = rng.standard_normal(o._data.shape)
            if o._data.dtype.kind == "c":
                g = g + 1j * rng.standard_normal(o._data.shape)
            t = Tensor._make(np.asarray(g, dtype=o._data.dtype))
            t.requires_grad_(True)
            grad_outputs.append(t)
    grad_outputs = list(_as_tuple(grad_outputs))
    n_in = len(inputs)
    diff_idx = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t._requires_grad]

    def first_order(*args):
        ins, gos = args[:n_in], args[n_in:]
        all_outs = _outputs(func, ins)
        o = [x for x in all_outs if x._requires_grad]
        go = [g for g, x in zip(gos, all_outs) if x._requires_grad]
        diff = [ins[i] for i in diff_idx]
        grads = autograd_grad(o, diff, go, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_order, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol)
