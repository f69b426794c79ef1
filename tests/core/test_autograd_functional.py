"""``ember.autograd.functional`` (vjp, jvp, jacobian, hessian, vhp, hvp) and ``functional_call`` (``ember.func`` and
the deprecated ``ember.nn.utils.stateless``): values against closed forms and finite differences, PyTorch's tuple
conventions, and PyTorch 2.13's error messages (measured with torch 2.13 CPU, copied verbatim)."""
import inspect
import subprocess
import sys
import warnings

import numpy as np
import pytest

import ember as em
from ember.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp
from ember.core import nn
from ember.core.func import functional_call
from ember.core.nn.utils import stateless

RNG = np.random.default_rng(0)


def t64(a, requires_grad=False):
    return em.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def arr(t):
    return t.detach().numpy()


# ------------------------------------------------------------------------------------------ finite differences
def numeric_jacobian(f, inputs, eps=1e-6):
    """``J[i][j]`` of shape ``out_i.shape + in_j.shape`` by central differences of ``f`` (tuple in, tuple out)."""
    base = [np.array(a, dtype=np.float64) for a in inputs]
    outs = [arr(o) for o in f(*[t64(a) for a in base])]
    jac = [[np.zeros(o.shape + a.shape) for a in base] for o in outs]
    for j, a in enumerate(base):
        for k in np.ndindex(a.shape):
            plus = [b.copy() for b in base]
            minus = [b.copy() for b in base]
            plus[j][k] += eps
            minus[j][k] -= eps
            hi = f(*[t64(b) for b in plus])
            lo = f(*[t64(b) for b in minus])
            for i, (h, l) in enumerate(zip(hi, lo)):
                jac[i][j][(Ellipsis,) + k] = (arr(h) - arr(l)) / (2 * eps)
    return jac


W = RNG.standard_normal((3, 4))


def two_in_two_out(a, b):
    # a: (2, 3), b: (4,)
    return (a.sin() @ t64(W) * b.exp(), (a * a).sum() * b.tanh())


def scalar_of_two(a, b):
    return (a.sin() @ t64(W) * b.exp()).sum() + (a ** 3).sum() * b.tanh().sum()


A0 = RNG.standard_normal((2, 3))
B0 = RNG.standard_normal(4)


@pytest.mark.parametrize("kwargs", [{}, {"vectorize": True}, {"strategy": "forward-mode", "vectorize": True}])
def test_jacobian_matches_finite_differences(kwargs):
    got = jacobian(two_in_two_out, (t64(A0), t64(B0)), **kwargs)
    want = numeric_jacobian(two_in_two_out, (A0, B0))
    for i in range(2):
        for j in range(2):
            assert got[i][j].shape == want[i][j].shape
            np.testing.assert_allclose(arr(got[i][j]), want[i][j], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("kwargs", [{}, {"vectorize": True}, {"outer_jacobian_strategy": "forward-mode",
                                                               "vectorize": True}])
def test_hessian_matches_finite_differences_of_the_gradient(kwargs):
    def gradient(a, b):
        return vjp(scalar_of_two, (a, b))[1]

    got = hessian(scalar_of_two, (t64(A0), t64(B0)), **kwargs)
    want = numeric_jacobian(gradient, (A0, B0))
    for i in range(2):
        for j in range(2):
            np.testing.assert_allclose(arr(got[i][j]), want[i][j], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(arr(got[0][1]), np.swapaxes(arr(got[1][0]).reshape(4, 6), 0, 1).reshape(2, 3, 4))


# ------------------------------------------------------------------------------------------ closed forms
def test_jacobian_of_an_affine_map_is_its_matrix_per_row():
    Wm, b = RNG.standard_normal((2, 3)), RNG.standard_normal(2)
    x = t64(RNG.standard_normal((4, 3)))
    jac = jacobian(lambda v: v @ t64(Wm).T + t64(b), x)
    assert jac.shape == (4, 2, 4, 3)
    want = np.einsum("ik,jl->ijkl", np.eye(4), Wm)  # row i of the output depends on row i of the input only
    np.testing.assert_allclose(arr(jac), want, atol=1e-15)


def test_jacobian_of_an_elementwise_map_is_diagonal():
    x = RNG.standard_normal(5)
    jac = jacobian(lambda v: v.exp() * v, t64(x))
    np.testing.assert_allclose(arr(jac), np.diag(np.exp(x) * (1 + x)), rtol=1e-14)


def test_hessian_of_a_quadratic_form_and_of_a_cubic():
    Am = RNG.standard_normal((3, 3))
    x = RNG.standard_normal(3)
    np.testing.assert_allclose(arr(hessian(lambda v: v @ t64(Am) @ v, t64(x))), Am + Am.T, rtol=1e-14)
    np.testing.assert_allclose(arr(hessian(lambda v: (v ** 3).sum(), t64(x))), np.diag(6 * x), rtol=1e-14)


def test_products_are_the_jacobian_and_hessian_times_v():
    x = t64(RNG.standard_normal(3))
    v_out, v_in = t64(RNG.standard_normal(2)), t64(RNG.standard_normal(3))
    M = t64(RNG.standard_normal((2, 3)))

    def f(a):
        return (M @ a.sin()) * a.sum()

    def g(a):
        return (a.sin() * (M.T @ M @ a)).sum()

    J, H = arr(jacobian(f, x)), arr(hessian(g, x))
    out, vj = vjp(f, x, v_out)
    np.testing.assert_allclose(arr(out), arr(f(x)))
    np.testing.assert_allclose(arr(vj), arr(v_out) @ J, rtol=1e-12)
    np.testing.assert_allclose(arr(jvp(f, x, v_in)[1]), J @ arr(v_in), rtol=1e-12)
    np.testing.assert_allclose(arr(vhp(g, x, v_in)[1]), arr(v_in) @ H, rtol=1e-12)
    np.testing.assert_allclose(arr(hvp(g, x, v_in)[1]), H @ arr(v_in), rtol=1e-12)


def test_v_may_be_omitted_for_a_single_element():
    s = t64(1.5)
    assert vjp(lambda a: (a * a).sum(), t64([1.0, 2.0]))[1].tolist() == [2.0, 4.0]
    assert jvp(lambda a: a * a * a, s)[1].item() == pytest.approx(3 * 1.5 ** 2)
    assert vhp(lambda a: a ** 3, s)[1].item() == pytest.approx(6 * 1.5)
    assert hvp(lambda a: a ** 3, s)[1].item() == pytest.approx(6 * 1.5)


# ------------------------------------------------------------------------------------------ tuple conventions
X, Y = t64(RNG.standard_normal((2, 3))), t64(RNG.standard_normal(4))


NESTING = {  # (function, inputs, shapes of the Jacobian)
    "tensor in, tensor out": (lambda a: a.exp(), X, (2, 3, 2, 3)),
    "tuple in, tensor out": (lambda a, b: a.exp() * b.sum(), (X, Y), ((2, 3, 2, 3), (2, 3, 4))),
    "tensor in, tuple out": (lambda a: (a.exp(), a.sum(1)), X, ((2, 3, 2, 3), (2, 2, 3))),
    "tuple in, tuple out": (lambda a, b: (a.exp() * b.sum(), b * 2), (X, Y),
                            (((2, 3, 2, 3), (2, 3, 4)), ((4, 2, 3), (4, 4)))),
    "1-tuple in, 1-tuple out": (lambda a: (a.exp(),), (X,), (((2, 3, 2, 3),),)),
}


def _shapes(r):
    return tuple(_shapes(e) for e in r) if isinstance(r, tuple) else tuple(r.shape)


@pytest.mark.parametrize("case", NESTING)
@pytest.mark.parametrize("kwargs", [{}, {"vectorize": True}, {"strategy": "forward-mode", "vectorize": True}])
def test_jacobian_nests_like_its_inputs_and_outputs(case, kwargs):
    f, inputs, expected = NESTING[case]
    jac = jacobian(f, inputs, **kwargs)
    assert _shapes(jac) == expected
    assert isinstance(jac, tuple) == isinstance(expected[0], tuple)


def test_hessian_is_a_tensor_for_a_tensor_and_a_tuple_of_tuples_for_a_tuple():
    assert isinstance(hessian(lambda a: (a ** 3).sum(), X), em.Tensor)
    h = hessian(lambda a, b: (a ** 3).sum() * b.sum(), (X, Y))
    assert [[tuple(e.shape) for e in row] for row in h] == [[(2, 3, 2, 3), (2, 3, 4)], [(4, 2, 3), (4, 4)]]
    h1 = hessian(lambda a: (a ** 3).sum(), (X,))
    assert isinstance(h1, tuple) and isinstance(h1[0], tuple) and h1[0][0].shape == (2, 3, 2, 3)


def test_products_return_the_output_and_a_result_nested_like_the_convention():
    pair = lambda a, b: (a * b.sum(), b * 2)  # noqa: E731
    out, res = vjp(pair, (X, Y), (em.ones_like(X), em.ones_like(Y)))
    assert _shapes(out) == ((2, 3), (4,)) and _shapes(res) == ((2, 3), (4,))
    out, res = jvp(pair, (X, Y), (em.ones_like(X), em.ones_like(Y)))
    assert _shapes(out) == ((2, 3), (4,)) and _shapes(res) == ((2, 3), (4,))
    out, res = jvp(lambda a: a.sum(1), X, em.ones_like(X))  # jvp is shaped like the output, vjp like the input
    assert _shapes(out) == (2,) and _shapes(res) == (2,)
    out, res = vjp(lambda a: a.sum(1), X, em.ones(2, dtype=em.float64))
    assert _shapes(res) == (2, 3)
    for fn in (vhp, hvp):
        out, res = fn(lambda a: (a ** 3).sum(), X, em.ones_like(X))
        assert _shapes(out) == () and _shapes(res) == (2, 3)
        out, res = fn(lambda a, b: (a ** 3).sum() * b.sum(), (X, Y), (em.ones_like(X), em.ones_like(Y)))
        assert _shapes(out) == () and _shapes(res) == ((2, 3), (4,))
        assert _shapes(fn(lambda a: (a ** 3).sum(), (X,), (em.ones_like(X),))[1]) == ((2, 3),)


def test_independent_inputs_and_outputs_get_zeros_when_not_strict():
    j = jacobian(lambda a, b: (a * 2, b.detach()), (X, Y))
    assert not arr(j[0][1]).any() and not arr(j[1][1]).any() and j[0][1].shape == (2, 3, 4)
    np.testing.assert_array_equal(arr(j[0][0]).reshape(6, 6), 2 * np.eye(6))
    assert not arr(vjp(lambda a, b: a * 2, (X, Y), em.ones_like(X))[1][1]).any()
    assert not arr(jvp(lambda a, b: (a * 2, b.detach()), (X, Y), (em.ones_like(X), em.ones_like(Y)))[1][1]).any()
    for fn in (vhp, hvp):
        res = fn(lambda a, b: (a ** 3).sum(), (X, Y), (em.ones_like(X), em.ones_like(Y)))[1]
        assert not arr(res[1]).any() and arr(res[0]).any()
    h = hessian(lambda a, b: (a ** 3).sum(), (X, Y))
    assert not arr(h[1][1]).any() and not arr(h[0][1]).any()


def test_jacobian_dtype_is_the_inputs_in_reverse_mode_and_the_outputs_in_forward_mode():
    x = t64([1.0, 2.0])
    assert jacobian(lambda a: a.float() * 3, x).dtype == em.float64
    fwd = jacobian(lambda a: a.float() * 3, x, strategy="forward-mode", vectorize=True)
    assert fwd.dtype == em.float32
    np.testing.assert_array_equal(fwd.numpy(), 3 * np.eye(2, dtype=np.float32))


def test_results_are_detached_and_leave_the_inputs_alone_without_create_graph():
    x = t64([1.0, 2.0], requires_grad=True)
    out, res = vjp(lambda a: a ** 2, x, em.ones_like(x))
    assert not out.requires_grad and not res.requires_grad and x.grad is None
    assert not jacobian(lambda a: a ** 2, x).requires_grad
    assert not hessian(lambda a: (a ** 3).sum(), x).requires_grad
    with em.no_grad():  # the functions turn grad mode on for themselves
        np.testing.assert_allclose(arr(hessian(lambda a: (a ** 3).sum(), x)), np.diag([6.0, 12.0]))
        assert vjp(lambda a: a ** 2, x, em.ones_like(x), create_graph=True)[1].requires_grad


# ------------------------------------------------------------------------------------------ create_graph
def test_create_graph_results_differentiate_to_the_next_derivative():
    x = t64([0.5, -1.0, 2.0], requires_grad=True)
    h = hessian(lambda a: (a ** 4).sum(), x, create_graph=True)  # diag(12 x^2)
    assert h.requires_grad
    (g,) = em.autograd.grad(h.sum(), x)
    np.testing.assert_allclose(arr(g), 24 * arr(x))
    v = t64([1.0, 2.0, 3.0], requires_grad=True)
    _, res = vjp(lambda a: a ** 3, x, v, create_graph=True)  # 3 x^2 v
    gx, gv = em.autograd.grad(res.sum(), (x, v))
    np.testing.assert_allclose(arr(gx), 6 * arr(x) * arr(v))
    np.testing.assert_allclose(arr(gv), 3 * arr(x) ** 2)
    _, res = jvp(lambda a: a.sin(), x, v, create_graph=True)  # cos(x) v
    np.testing.assert_allclose(arr(em.autograd.grad(res.sum(), x)[0]), -np.sin(arr(x)) * arr(v), rtol=1e-14)
    jac = jacobian(lambda a: a.exp(), x, create_graph=True)
    np.testing.assert_allclose(arr(em.autograd.grad(jac.sum(), x)[0]), np.exp(arr(x)), rtol=1e-14)


def test_forward_mode_jacobian_stays_differentiable_in_inputs_that_require_grad():
    # as PyTorch's forward-mode tangents are: J = diag(2 x) here, so d(sum J)/dx = 2
    x = t64([0.5, -1.0], requires_grad=True)
    jac = jacobian(lambda a: a * a, x, strategy="forward-mode", vectorize=True)
    assert jac.requires_grad
    np.testing.assert_allclose(arr(em.autograd.grad(jac.sum(), x)[0]), [2.0, 2.0])


# ------------------------------------------------------------------------------------------ errors (PyTorch 2.13's)
_J_HESS = ("While computing the hessian, found that the jacobian of the user-provided function with respect to input "
           "0 is independent of the input. This is not allowed in strict mode. You should ensure that your function is "
           "twice differentiable and that the jacobian depends on the inputs (this would be violated by a linear "
           "function for example).")
_NO_GRAD_OUT = ("Output 0 of the user-provided function does not require gradients. The outputs must be computed in a "
                "differentiable manner from the input when running in strict mode.")
x3 = t64([0.5, -1.0, 2.0])
y2 = t64([1.5, 0.3])
o3, o2 = em.ones(3, dtype=em.float64), em.ones(2, dtype=em.float64)

ERRORS = [
    # v validation
    (lambda: vjp(lambda a: a * 2, x3, o2), RuntimeError,
     "v has invalid size: should be ember.Size([3]) but got ember.Size([2])."),
    (lambda: vjp(lambda a: a * 2, x3, (o3, o3)), RuntimeError, "The given v should contain a single Tensor."),
    (lambda: vjp(lambda a: (a * 2, a), x3, (o3,)), RuntimeError,
     "v is a tuple of invalid length: should be 2 but got 1."),
    (lambda: vjp(lambda a: (a * 2, a), x3, (o3, o2)), RuntimeError,
     "Entry 1 in v has invalid size: should be ember.Size([3]) but got ember.Size([2])."),
    (lambda: vhp(lambda a, b: (a * a).sum(), (x3, y2), (o3, o3)), RuntimeError,
     "Entry 1 in v has invalid size: should be ember.Size([2]) but got ember.Size([3])."),
    (lambda: vjp(lambda a: a * 2, x3), RuntimeError,
     "The vector v can only be None if the user-provided function returns a single Tensor with a single element."),
    (lambda: jvp(lambda a: a * 2, x3), RuntimeError,
     "The vector v can only be None if the input to the user-provided function is a single Tensor with a single "
     "element."),
    (lambda: hvp(lambda a: a.sum(), x3), RuntimeError,
     "The vector v can only be None if the input to the user-provided function is a single Tensor with a single "
     "element."),
    # types
    (lambda: vjp(lambda a: a * 2, [x3]), TypeError,
     "The inputs given to vjp must be either a Tensor or a tuple of Tensors but the given inputs has type "
     "<class 'list'>."),
    (lambda: vjp(lambda a: a * 2, (x3, 3)), TypeError,
     "The inputs given to vjp must be either a Tensor or a tuple of Tensors but the value at index 1 has type "
     "<class 'int'>."),
    (lambda: vjp(lambda a: [a * 2], x3, o3), TypeError,
     "The outputs of the user-provided function given to vjp must be either a Tensor or a tuple of Tensors but the "
     "given outputs of the user-provided function has type <class 'list'>."),
    (lambda: vjp(lambda a: a * 2, x3, [o3]), TypeError,
     "The v given to vjp must be either a Tensor or a tuple of Tensors but the given v has type <class 'list'>."),
    (lambda: hessian(lambda a: (a ** 3).sum(), [x3]), TypeError,
     "The inputs given to hessian must be either a Tensor or a tuple of Tensors but the given inputs has type "
     "<class 'list'>."),
    (lambda: jacobian(lambda a: [a], x3, strategy="forward-mode", vectorize=True), TypeError,
     "The outputs given to None must be either a Tensor or a tuple of Tensors but the given outputs has type "
     "<class 'list'>."),
    # strict mode
    (lambda: vjp(lambda a, b: a * 2, (x3, y2), o3, strict=True), RuntimeError,
     "The output of the user-provided function is independent of input 1. This is not allowed in strict mode."),
    (lambda: vjp(lambda a: em.ones(3), x3, o3, strict=True), RuntimeError, _NO_GRAD_OUT),
    (lambda: vjp(lambda a: a * 2, x3, o3, strict=True, create_graph=True), RuntimeError,
     "The jacobian of the user-provided function is independent of input 0. This is not allowed in strict mode when "
     "create_graph=True."),
    (lambda: jvp(lambda a, b: a * 2, (x3, y2), (o3, o2), strict=True), RuntimeError,
     "The output of the user-provided function is independent of input 1. This is not allowed in strict mode."),
    (lambda: jvp(lambda a: a.detach(), x3, o3, strict=True), RuntimeError, _NO_GRAD_OUT),
    (lambda: jacobian(lambda a, b: a * 2, (x3, y2), strict=True), RuntimeError,
     "Output 0 of the user-provided function is independent of input 1. This is not allowed in strict mode."),
    (lambda: jacobian(lambda a, b: a * 2, (x3, y2), strict=True, create_graph=True), RuntimeError,
     "The jacobian of the user-provided function is independent of input 0. This is not allowed in strict mode when "
     "create_graph=True."),
    (lambda: jacobian(lambda a: a.detach(), x3, vectorize=True, strict=True), RuntimeError, _NO_GRAD_OUT),
    (lambda: hessian(lambda a: a.sum(), x3, strict=True), RuntimeError, _J_HESS),
    (lambda: hessian(lambda a, b: (a ** 3).sum() + (a * b.sum()).sum(), (x3, y2), strict=True), RuntimeError,
     "Output 1 of the user-provided function is independent of input 1. This is not allowed in strict mode."),
    (lambda: vhp(lambda a: a.sum(), x3, o3, strict=True), RuntimeError, _J_HESS),
    (lambda: hvp(lambda a: a.sum(), x3, o3, strict=True), RuntimeError, _J_HESS),
    (lambda: hvp(lambda a, b: (a * a).sum(), (x3, y2), (o3, o2), strict=True), RuntimeError,
     "The output of the user-provided function is independent of input 1. This is not allowed in strict mode."),
    (lambda: vhp(lambda a: (a * a).sum(), x3, o3, strict=True, create_graph=True), RuntimeError,
     "The hessian of the user-provided function is independent of input 0. This is not allowed in strict mode when "
     "create_graph=True."),
    # output shape of the scalar functions
    (lambda: hessian(lambda a: a * 2, x3), RuntimeError,
     "The Tensor returned by the function given to hessian should contain a single element"),
    (lambda: hessian(lambda a: (a.sum(), a.sum()), x3), RuntimeError,
     "The function given to hessian should return a single Tensor"),
    (lambda: vhp(lambda a: a * 2, x3, o3), RuntimeError,
     "The Tensor returned by the function given to vhp should contain a single element"),
    (lambda: hvp(lambda a: (a.sum(),), x3, o3), RuntimeError,
     "The function given to hvp should return a single Tensor"),
    # strategies and flags
    (lambda: jacobian(lambda a: a * 2, x3, strategy="foo"), AssertionError,
     'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has more outputs than '
     'inputs, "forward-mode" tends to be more performant. Otherwise, prefer to use "reverse-mode".'),
    (lambda: hessian(lambda a: (a ** 3).sum(), x3, outer_jacobian_strategy="bar"), AssertionError,
     'Expected strategy to be either "forward-mode" or "reverse-mode".'),
    (lambda: jacobian(lambda a: a * 2, x3, strategy="forward-mode"), NotImplementedError,
     "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly implemented for `vectorize=True`."),
    (lambda: hessian(lambda a: (a ** 3).sum(), x3, outer_jacobian_strategy="forward-mode"), NotImplementedError,
     "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly implemented for `vectorize=True`."),
    (lambda: jacobian(lambda a: a * 2, x3, strategy="forward-mode", vectorize=True, strict=True), RuntimeError,
     'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are not supported together '
     '(yet). Please either set `strict=False` or `strategy="reverse-mode"`.'),
    (lambda: jacobian(lambda a: a * 2, x3, strategy="forward-mode", vectorize=True, create_graph=True),
     NotImplementedError,
     'torch.autograd.functional.jacobian: `create_graph=True` and `strategy="forward-mode"` are not supported '
     'together (yet). Please either set `create_graph=False` or `strategy="reverse-mode"`.'),
    (lambda: jacobian(lambda a: a * 2, x3, vectorize=True, strict=True), RuntimeError,
     "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not supported together. Please "
     "either set `strict=False` or `vectorize=False`."),
]


@pytest.mark.parametrize("call, exc, message", ERRORS, ids=range(len(ERRORS)))
def test_errors_are_worded_as_pytorch_2_13(call, exc, message):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == message


def test_a_tensor_the_function_captures_is_a_constant_even_when_it_is_the_input():
    # the function runs on a fresh tensor object, so `x` in its body is not the differentiated input
    x = t64([1.0, 2.0], requires_grad=True)
    for create_graph in (False, True):
        np.testing.assert_allclose(arr(jacobian(lambda a: a * x, x, create_graph=create_graph)), np.diag([1.0, 2.0]))
        np.testing.assert_allclose(arr(vjp(lambda a: a * x, x, em.ones_like(x), create_graph=create_graph)[1]),
                                   [1.0, 2.0])


def test_strict_mode_passes_when_every_input_matters():
    out, res = vjp(lambda a: a * a, x3, o3, strict=True, create_graph=True)
    np.testing.assert_allclose(arr(res), 2 * arr(x3))
    np.testing.assert_allclose(arr(hessian(lambda a: (a ** 3).sum(), x3, strict=True)), np.diag(6 * arr(x3)))


# ------------------------------------------------------------------------------------------ registration
def test_functional_is_a_lazy_submodule_of_autograd():
    import ember.autograd.functional as by_import
    assert em.autograd.functional is by_import and em.autograd.functional.jacobian is jacobian
    assert "functional" in dir(em.autograd)
    code = "import sys, ember; print('ember.core.autograd.functional' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


def test_new_public_names_have_docstrings_and_func_exposes_functional_call_only():
    import ember.core.func as func
    assert func.__all__ == ["functional_call"] and functional_call.__module__ == "ember.core.func"
    assert em.nn.utils.stateless is stateless and stateless.__all__ == ["functional_call"]
    for fn in (vjp, jvp, jacobian, hessian, vhp, hvp, functional_call, stateless.functional_call):
        assert (fn.__doc__ or "").strip(), fn
    assert "forward-mode" in jacobian.__doc__ and "double-backward" in jvp.__doc__


# ------------------------------------------------------------------------------------------ functional_call
def _mlp():
    em.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).double()


def test_gradients_reach_the_given_tensors_and_not_the_module_parameters():
    model = _mlp()
    own = dict(model.named_parameters())
    params = {name: (p.detach() * 0.5).requires_grad_() for name, p in own.items()}
    x = t64(RNG.standard_normal((5, 3)))
    loss = functional_call(model, params, x).pow(2).sum()
    grads = em.autograd.grad(loss, list(params.values()))
    assert all(p.grad is None for p in model.parameters())
    # the same gradients as the module itself gives when its parameters hold those values
    with em.no_grad():
        for name, p in own.items():
            p.copy_(params[name])
    want = em.autograd.grad(model(x).pow(2).sum(), list(own.values()))
    for g, w in zip(grads, want):
        np.testing.assert_allclose(arr(g), arr(w), rtol=1e-12)


def test_meta_gradient_through_an_inner_step_matches_the_closed_form():
    # loss(w) = (w x - y)^2, one inner step w' = w - lr loss'(w); d loss(w')/dw = 2 (w' x - y) x (1 - 2 lr x^2)
    model = nn.Linear(1, 1, bias=False).double()
    w0, x, y, lr = 0.7, 1.3, -0.4, 0.1
    w = t64([[w0]], requires_grad=True)
    inputs, target = t64([[x]]), t64([[y]])

    def loss(weights):
        return (functional_call(model, {"weight": weights}, inputs) - target).pow(2).sum()

    (g,) = em.autograd.grad(loss(w), w, create_graph=True)
    (meta,) = em.autograd.grad(loss(w - lr * g), w)
    w1 = w0 - lr * 2 * (w0 * x - y) * x
    assert meta.item() == pytest.approx(2 * (w1 * x - y) * x * (1 - 2 * lr * x * x), rel=1e-12)


def test_the_module_is_restored_even_when_the_call_raises():
    class Boom(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x):
            raise ValueError("boom")

    m = Boom()
    weight, bias = m.lin.weight, m.lin.bias
    with pytest.raises(ValueError, match="boom"):
        functional_call(m, {"lin.weight": em.zeros(2, 2), "lin.bias": em.zeros(2)}, em.ones(1, 2))
    assert m.lin.weight is weight and m.lin.bias is bias and m.lin._parameters["weight"] is weight
    # a bad value part-way through undoes the swaps already made
    with pytest.raises(TypeError, match=r"^3 is not an instance of ember\.Tensor$"):
        functional_call(m, {"lin.weight": em.zeros(2, 2), "lin.bias": 3}, em.ones(1, 2))
    assert m.lin.weight is weight and m.lin.bias is bias
    with pytest.raises(AttributeError, match=r"^Boom has no attribute `nope`$"):
        functional_call(m, {"lin.weight": em.zeros(2, 2), "nope.bias": em.zeros(2)}, em.ones(1, 2))
    assert m.lin.weight is weight
    assert [type(p) for p in m.parameters()] == [nn.Parameter, nn.Parameter]


class Tied(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(2, 2, bias=False) for _ in range(n))
        for layer in self.layers[1:]:
            layer.weight = self.layers[0].weight

    def forward(self, x):
        return sum(layer(x) for layer in self.layers)


def test_tied_weights_follow_the_value_given_unless_tie_weights_is_false():
    m, x, eye = Tied(2), em.ones(1, 2), em.eye(2)
    assert functional_call(m, {"layers.0.weight": eye}, x).tolist() == [[2.0, 2.0]]
    untied = functional_call(m, {"layers.0.weight": eye}, x, tie_weights=False)
    np.testing.assert_allclose(untied.detach().numpy(), 1.0 + (x @ m.layers[1].weight.T).detach().numpy(), rtol=1e-6)
    assert functional_call(m, {"layers.0.weight": eye, "layers.1.weight": eye}, x).tolist() == [[2.0, 2.0]]
    with pytest.raises(ValueError) as info:
        functional_call(m, {"layers.0.weight": eye, "layers.1.weight": 2 * eye}, x)
    assert str(info.value) == ("functional_call got multiple values for keys ['layers.0.weight', 'layers.1.weight'], "
                               "which are tied. Consider using tie_weights=False")
    assert functional_call(m, {"layers.0.weight": eye, "layers.1.weight": 2 * eye}, x,
                           tie_weights=False).tolist() == [[3.0, 3.0]]
    # PyTorch 2.13 raises KeyError('layers.2.weight') when two of three tied names get the same value; ember applies
    # the rule as documented (only differing values are an error)
    assert functional_call(Tied(3), {"layers.0.weight": eye, "layers.1.weight": eye}, x).tolist() == [[3.0, 3.0]]
    assert m.layers[0].weight is m.layers[1].weight


def test_a_submodule_used_twice_is_restored():
    # PyTorch 2.13 leaves the given tensor in the shared slot here; ember undoes the swaps in reverse order
    lin = nn.Linear(2, 2)
    seq, weight = nn.Sequential(lin, lin), lin.weight
    functional_call(seq, {"0.weight": em.zeros(2, 2)}, em.ones(1, 2))
    assert lin.weight is weight


def test_strict_reports_missing_and_unexpected_keys():
    m = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    with pytest.raises(RuntimeError) as info:
        functional_call(m, {"0.weight": em.zeros(2, 3), "foo": em.zeros(1)}, em.ones(4, 3), strict=True)
    assert str(info.value) == ("Error(s) in reparametrizing for Sequential:\n\tUnexpected key(s): 'foo'.\n\tMissing "
                               "key(s): '0.bias', '1.bias', '1.num_batches_tracked', '1.running_mean', "
                               "'1.running_var', '1.weight'.")
    full = {name: t.detach().clone() for name, t in list(m.named_parameters()) + list(m.named_buffers())}
    assert functional_call(m, full, em.ones(4, 3), strict=True).shape == (4, 2)
    # tied names are filled in before the check, so giving one of them is enough
    functional_call(Tied(2), {"layers.0.weight": em.eye(2)}, em.ones(1, 2), strict=True)
    with pytest.raises(RuntimeError, match=r"Missing key\(s\): 'layers.1.weight'\.$"):
        functional_call(Tied(2), {"layers.0.weight": em.eye(2)}, em.ones(1, 2), strict=True, tie_weights=False)


def test_batchnorm_buffers_are_the_given_ones():
    bn = nn.BatchNorm1d(2).double()
    x = t64(RNG.standard_normal((6, 2)))
    bufs = {"running_mean": em.zeros(2, dtype=em.float64), "running_var": em.ones(2, dtype=em.float64),
            "num_batches_tracked": em.tensor(0)}
    functional_call(bn, bufs, x)
    data = arr(x)
    np.testing.assert_allclose(arr(bufs["running_mean"]), 0.1 * data.mean(0), rtol=1e-12)
    np.testing.assert_allclose(arr(bufs["running_var"]), 0.9 + 0.1 * data.var(0, ddof=1), rtol=1e-12)
    assert bufs["num_batches_tracked"].item() == 1
    assert arr(bn.running_mean).tolist() == [0.0, 0.0] and bn.num_batches_tracked.item() == 0
    bn.eval()
    stats = {"running_mean": t64([1.0, -1.0]), "running_var": t64([4.0, 0.25])}
    out = functional_call(bn, stats, x)
    np.testing.assert_allclose(arr(out), (data - [1.0, -1.0]) / np.sqrt(np.array([4.0, 0.25]) + bn.eps), rtol=1e-12)


def test_a_rebound_buffer_is_written_back_to_the_dict():
    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("count", em.zeros(()))

        def forward(self, x):
            self.count = self.count + 1
            return x

    m, given = Counter(), {"count": em.zeros(())}
    functional_call(m, given, em.ones(()))
    assert given["count"].item() == 1.0 and m.count.item() == 0.0
    twice, shared = nn.Sequential(m, m), {"0.count": em.zeros(())}  # one slot under two names, rebound twice
    functional_call(twice, shared, em.ones(()))
    assert shared["0.count"].item() == 2.0 and m.count.item() == 0.0
    one_of_several = {"count": em.zeros(())}
    functional_call(m, (one_of_several,), em.ones(()))
    assert one_of_several["count"].item() == 0.0  # a tuple of dicts is merged into a new dict first, as in PyTorch


def test_args_kwargs_and_dict_forms():
    class Echo(nn.Module):
        def forward(self, *args, **kwargs):
            return args, kwargs

    x = em.ones(2)
    assert functional_call(Echo(), {}, x) == ((x,), {})
    assert functional_call(Echo(), {}, [x, x])[0][0] == [x, x]  # a non-tuple is one argument
    assert functional_call(Echo(), {}, (x, x), {"k": 1}) == ((x, x), {"k": 1})
    assert functional_call(Echo(), {}) == ((), {})
    m = nn.Linear(2, 1, bias=False)
    out = functional_call(m, ({"weight": em.ones(1, 2)}, {"bias": em.ones(1)}), x)  # the empty bias slot is used
    assert out.tolist() == [3.0] and m.bias is None and m._parameters["bias"] is None
    functional_call(m, {"extra": em.ones(1)}, x)  # a name the module lacks is an attribute for the call only
    assert not hasattr(m, "extra")
    with pytest.raises(ValueError) as info:
        functional_call(m, ({"weight": em.ones(1, 2)}, {"weight": em.ones(1, 2)}), x)
    assert str(info.value) == "['weight'] appeared in multiple dictionaries; behavior of functional call is ambiguous"
    with pytest.raises(ValueError, match="^Expected all elements of parameter_and_buffer_dicts to be dictionaries$"):
        functional_call(m, [{"weight": em.ones(1, 2)}, 3], x)
    with pytest.raises(ValueError) as info:
        functional_call(m, 3, x)
    assert str(info.value) == ("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                               "<class 'int'>")


def test_deprecated_stateless_functional_call_warns_and_works():
    m = nn.Linear(2, 1, bias=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = stateless.functional_call(m, {"weight": em.ones(1, 2)}, (em.ones(2),))
    assert out.tolist() == [2.0]
    assert [(w.category, str(w.message)) for w in caught] == [(FutureWarning, (
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed in a future "
        "version of PyTorch. Please use `torch.func.functional_call` instead which is a drop-in replacement."))]
    assert caught[0].filename == __file__  # it points at the caller
    assert str(inspect.signature(stateless.functional_call)) == \
        "(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False)"
    assert str(inspect.signature(functional_call)) == \
        "(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False)"
