"""``ember.autograd.functional``: Jacobians, Hessians and their products with vectors, for whole functions.

The six functions of ``torch.autograd.functional`` (``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``vhp``, ``hvp``)
with PyTorch's signatures, tuple conventions and error messages. Each one is a few calls of :func:`ember.autograd.grad`
around the user's function:

- the function is called on new tensor objects for the inputs, so tensors it captures from outside (a closure over
  the very same input tensor) are not mistaken for the inputs;
- an input that no output depends on gets zeros, or an error in ``strict`` mode;
- results are detached unless ``create_graph=True``.

ember has no forward-mode AD. Forward-mode results (``jvp``, ``hvp``, ``strategy="forward-mode"``) come from the
double-backward trick: the gradient ``g = J^T u`` taken with ``create_graph=True`` is linear in the seed ``u``, so
differentiating ``g`` w.r.t. ``u`` gives ``J v``. The values are the forward-mode ones; the cost is that of reverse
mode twice.
"""
from __future__ import annotations

from ..ops import stack, zeros_like
from ..tensor import Tensor
from .engine import grad as _grad
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]

_STRATEGIES = ("forward-mode", "reverse-mode")


# ------------------------------------------------------------------------------------------------ tuple conventions
def _as_tuple(value, arg_name, fn_name):
    """``(was a tuple, tuple of Tensors)``. Only a tuple counts as several tensors: a list is one (invalid) value,
    as in PyTorch."""
    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for i, el in enumerate(values):
        if not isinstance(el, Tensor):
            which = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"the {which} has type {type(el)}.")
    return is_tuple, values


def _unpack(res, was_tuple):
    """Undo :func:`_as_tuple` on a result: ``was_tuple`` is one flag, or ``(outputs, inputs)`` flags for the nested
    tuples of a Jacobian (indexed ``[output][input]``)."""
    if isinstance(was_tuple, tuple):
        outputs_tuple, inputs_tuple = was_tuple
        if not inputs_tuple:
            res = tuple(row[0] for row in res)
        return res if outputs_tuple else res[0]
    return res if was_tuple else res[0]


def _fresh(tensors, create_graph, need_graph):
    """New tensor objects for the user's function. With ``create_graph`` an input that requires grad stays connected
    (a view), so the result can be differentiated w.r.t. it; otherwise a detached leaf."""
    return tuple(t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(need_graph)
                 for t in tensors)


def _finish(res, create_graph):
    """Detach (nested tuples of) results unless the caller asked for a differentiable graph."""
    if create_graph:
        return res
    return tuple(r.detach() if isinstance(r, Tensor) else _finish(r, create_graph) for r in res)


def _validate_v(v, ref, ref_is_tuple):
    if len(v) != len(ref):
        if ref_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(ref)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (el_v, el_ref) in enumerate(zip(v, ref)):
        if el_v.size() != el_ref.size():
            entry = f"Entry {i} in " if ref_is_tuple else ""
            raise RuntimeError(f"{entry}v has invalid size: should be {el_ref.size()} but got {el_v.size()}.")


def _prepare_v(v, ref, ref_is_tuple, fn_name, create_graph, none_message):
    if v is None:
        if len(ref) != 1 or ref[0].nelement() != 1:
            raise RuntimeError(none_message)
        return None
    _, v = _as_tuple(v, "v", fn_name)
    v = _fresh(v, create_graph, need_graph=False)
    _validate_v(v, ref, ref_is_tuple)
    return v


_INPUT_NONE_MESSAGE = ("The vector v can only be None if the input to the user-provided function is a single Tensor "
                       "with a single element.")


# ------------------------------------------------------------------------------------------------ strict-mode checks
def _check_requires_grad(tensors, kind, strict):
    """In strict mode, fail on the first tensor that is None or does not require grad. ``kind`` (``"outputs"``,
    ``"grad_inputs"`` or ``"jacobian"``) says what the tensors are, which picks PyTorch's message."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:  # only gradients can be None: an output was independent of input i
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode.")
        if t.requires_grad:
            continue
        if kind == "jacobian":
            raise RuntimeError("While computing the hessian, found that the jacobian of the user-provided function "
                               f"with respect to input {i} is independent of the input. This is not allowed in strict "
                               "mode. You should ensure that your function is twice differentiable and that the "
                               "jacobian depends on the inputs (this would be violated by a linear function for "
                               "example).")
        if kind == "grad_inputs":
            raise RuntimeError(f"The gradient with respect to input {i} is independent of the inputs of the "
                               "user-provided function. This is not allowed in strict mode.")
        raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The outputs must be "
                           "computed in a differentiable manner from the input when running in strict mode.")


_NONE_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict "
            "mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when using "
                  "the double backward trick to compute forward mode gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed in "
                   "strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
                         "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
                         "backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """Zeros (shaped like ``refs``) where a gradient is None; in strict mode, an error naming the ``stage`` instead.
    With ``create_graph`` a gradient that does not require grad is a constant, which strict mode refuses too."""
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_NONE_MESSAGES[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if stage.startswith("double") else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode when create_graph=True.")
        res.append(g)
    return tuple(res)


# ------------------------------------------------------------------------------------------------ gradient helper
def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """:func:`~ember.autograd.grad` that skips outputs which are None or do not require grad, and gives None for
    inputs that nothing depends on (instead of raising)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(out, g) for out, g in zip(outputs, grad_outputs) if out is not None and out.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    outs, gs = zip(*pairs)
    return _grad(outs, inputs, gs, retain_graph=retain_graph, create_graph=create_graph, allow_unused=True)


# ------------------------------------------------------------------------------------------------ products
def vjp(func, inputs, v=None, create_graph=False, strict=False):
    r"""``(func(inputs), v^T J)``: the outputs, and the vector-Jacobian product of ``func`` at ``inputs``.

    Args:
        func: a function of tensors returning a tensor or a tuple of tensors.
        inputs: a tensor or a tuple of tensors, the point of evaluation.
        v: the vector, shaped like the outputs; may be omitted when the output is a single one-element tensor.
        create_graph: keep the graph of the computation, so the results can be differentiated again (results
            then may still require grad); otherwise they come back detached.
        strict: raise, instead of returning zeros, when some input has no influence on the outputs.

    Returns:
        ``(outputs, vjp)``, ``vjp`` shaped like ``inputs``.

    Example::

        >>> out, g = vjp(lambda x: x ** 2, ember.tensor([1.0, 2.0]), ember.ones(2))   # g == [2., 4.]
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        v = _prepare_v(v, outputs, is_outputs_tuple, "vjp", create_graph,
                       "The vector v can only be None if the user-provided function returns a single Tensor with a "
                       "single element.")
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "back")
    return (_unpack(_finish(outputs, create_graph), is_outputs_tuple),
            _unpack(_finish(result, create_graph), is_inputs_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    r"""``(func(inputs), J v)``: the outputs, and the Jacobian-vector product of ``func`` at ``inputs``.

    Computed by the double-backward trick (see the module docstring): two reverse passes.

    Args:
        func: a function of tensors returning a tensor or a tuple of tensors.
        inputs: a tensor or a tuple of tensors, the point of evaluation.
        v: the vector, shaped like ``inputs``; may be omitted when the input is a single one-element tensor.
        create_graph: keep the graph of the computation, so the results can be differentiated again (results
            then may still require grad); otherwise they come back detached.
        strict: raise, instead of returning zeros, when some input has no influence on the outputs.

    Returns:
        ``(outputs, jvp)``, ``jvp`` shaped like the outputs.

    Example::

        >>> out, t = jvp(lambda x: x ** 2, ember.tensor([1.0, 2.0]), ember.ones(2))   # t == [2., 4.]
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, "jvp", create_graph, _INPUT_NONE_MESSAGE)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        # the backward is linear in the seeds, so their value never shows in the result: zeros, which cannot turn
        # into inf or nan
        seeds = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, seeds, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _autograd_grad(grad_inputs, seeds, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, outputs, strict, create_graph, "back_trick")
    return (_unpack(_finish(outputs, create_graph), is_outputs_tuple),
            _unpack(_finish(result, create_graph), is_outputs_tuple))


# ------------------------------------------------------------------------------------------------ Jacobian
def _reverse_jacobian(outputs, inputs, create_graph, strict):
    """``jac[i][j]`` of shape ``outputs[i].shape + inputs[j].shape``, one backward pass per output element."""
    jac = []
    for i, out in enumerate(outputs):
        rows = [[] for _ in inputs]
        flat = out.reshape(-1)
        for k in range(out.nelement()):
            grads = _autograd_grad((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
            for j, (g, inp) in enumerate(zip(grads, inputs)):
                if g is None:
                    if strict:
                        raise RuntimeError(f"Output {i} of the user-provided function is independent of input {j}. "
                                           "This is not allowed in strict mode.")
                    g = zeros_like(inp)
                elif strict and create_graph and not g.requires_grad:
                    # PyTorch names the output index here where it means the input; the message is kept as is
                    raise RuntimeError(f"The jacobian of the user-provided function is independent of input {i}. "
                                       "This is not allowed in strict mode when create_graph=True.")
                rows[j].append(g)
        jac.append(tuple(stack(r, dim=0).view(out.size() + inp.size()) for r, inp in zip(rows, inputs)))
    return tuple(jac)


def _forward_jacobian(outputs, inputs, keep_graph):
    """``jac[i][j]`` one input element (one column) at a time, as forward mode would, by the double-backward trick:
    with ``g_j = J_j^T u``, the derivative of ``g_j[k]`` w.r.t. the seeds ``u`` is column ``k`` of ``J_j``. The
    columns come out in the outputs' dtypes, as forward-mode tangents do."""
    seeds = tuple(zeros_like(out, requires_grad=True) for out in outputs)
    grad_inputs = _autograd_grad(outputs, inputs, seeds, create_graph=True)
    columns = [[[] for _ in inputs] for _ in outputs]
    for j, (g, inp) in enumerate(zip(grad_inputs, inputs)):
        flat = g.reshape(-1) if g is not None else None
        for k in range(inp.nelement()):
            tangents = (None,) * len(outputs) if flat is None else \
                _autograd_grad((flat[k],), seeds, retain_graph=True, create_graph=keep_graph)
            for i, (t, out) in enumerate(zip(tangents, outputs)):
                columns[i][j].append(zeros_like(out) if t is None else t)
    return tuple(tuple(stack(cols, dim=-1).reshape(out.shape + inp.shape) for cols, inp in zip(columns[i], inputs))
                 for i, out in enumerate(outputs))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    r"""The Jacobian of ``func`` at ``inputs``: ``J[i][j]`` has the shape of output ``i`` followed by that of input
    ``j`` (a tensor when there is one input and one output, nested tuples otherwise).

    Args:
        func: a function of tensors returning a tensor or a tuple of tensors.
        inputs: a tensor or a tuple of tensors, the point of evaluation.
        create_graph: keep the graph of the computation, so the results can be differentiated again (results
            then may still require grad); otherwise they come back detached.
        strict: raise, instead of returning zeros, when some input has no influence on the outputs.
        vectorize: accepted as in PyTorch (same values; ember computes one row at a time either way).
        strategy: ``"reverse-mode"`` (one backward pass per output element) or ``"forward-mode"`` (one column per
            input element, by the double-backward trick; needs ``vectorize=True`` as in PyTorch, and the result
            has forward mode's dtype, the output's).

    Example::

        >>> jacobian(lambda x: x ** 2, ember.tensor([1.0, 2.0]))   # [[2., 0.], [0., 4.]]
    """
    if strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` and "
                                      '`strategy="forward-mode"` are not supported together (yet). Please either set '
                                      '`create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `strategy=\"forward-mode\"` "
                               "are not supported together (yet). Please either set `strict=False` or "
                               '`strategy="reverse-mode"`.')
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        if not vectorize:
            # PyTorch's message, missing space included
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                      "only implemented for `vectorize=True`.")
        # forward-mode tangents are themselves differentiable w.r.t. primals that require grad: keep that graph
        keep = is_grad_enabled() and any(t.requires_grad for t in inputs)
        with enable_grad():
            inputs = _fresh(inputs, keep, need_graph=True)
            # PyTorch checks these outputs without naming the function ("given to None"); kept for equal messages
            is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs", None)
            jac = _forward_jacobian(outputs, inputs, keep)
        return _unpack(_finish(jac, keep), (is_outputs_tuple, is_inputs_tuple))

    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                               "supported together. Please either set `strict=False` or `vectorize=False`.")
        jac = _reverse_jacobian(outputs, inputs, create_graph, strict)
        return _unpack(_finish(jac, create_graph), (is_outputs_tuple, is_inputs_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    r"""The Hessian of the scalar function ``func`` at ``inputs``: the Jacobian of its gradient (a tensor for one
    input, a tuple of tuples for several).

    Args:
        func: a function of tensors returning a single one-element tensor.
        inputs: a tensor or a tuple of tensors, the point of evaluation.
        create_graph: keep the graph of the computation, so the results can be differentiated again (results
            then may still require grad); otherwise they come back detached.
        strict: raise, instead of returning zeros, when some input has no influence on the outputs.
        vectorize: accepted as in PyTorch (see :func:`jacobian`).
        outer_jacobian_strategy: the ``strategy`` of the outer Jacobian (see :func:`jacobian`).

    Example::

        >>> hessian(lambda x: (x ** 3).sum(), ember.tensor([1.0, 2.0]))   # [[6., 0.], [0., 12.]]
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*inp):
        out = func(*inp)
        is_out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, "outputs", strict)
        if is_out_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        return out.squeeze()

    def gradient(*inp):
        # the inputs always require grad here (the outer jacobian made them so), so the gradient keeps its graph
        jac = jacobian(scalar_func, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(gradient, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _unpack(res, (is_inputs_tuple, is_inputs_tuple))


# ------------------------------------------------------------------------------------------------ Hessian products
def _hessian_product_setup(func, inputs, v, fn_name, create_graph, strict):
    """The first half of :func:`vhp` and :func:`hvp` (under grad mode): check the inputs and ``v``, run the scalar
    ``func`` on fresh inputs and take its gradient with a graph. Returns ``(is_inputs_tuple, inputs, v,
    is_outputs_tuple, outputs, gradient)``."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    inputs = _fresh(inputs, create_graph, need_graph=True)
    v = _prepare_v(v, inputs, is_inputs_tuple, fn_name, create_graph, _INPUT_NONE_MESSAGE)
    is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict)
    if is_outputs_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    r"""``(func(inputs), v^T H)``: the output of the scalar function ``func``, and the vector-Hessian product.

    Args:
        func: a function of tensors returning a single one-element tensor.
        inputs: a tensor or a tuple of tensors, the point of evaluation.
        v: the vector, shaped like ``inputs``; may be omitted when the input is a single one-element tensor.
        create_graph: keep the graph of the computation, so the results can be differentiated again (results
            then may still require grad); otherwise they come back detached.
        strict: raise, instead of returning zeros, when some input has no influence on the outputs.

    Returns:
        ``(output, vhp)``, ``vhp`` shaped like ``inputs``.

    Example::

        >>> out, vh = vhp(lambda x: (x ** 3).sum(), ember.tensor([1.0, 2.0]), ember.ones(2))   # vh == [6., 12.]
    """
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _hessian_product_setup(
            func, inputs, v, "vhp", create_graph, strict)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "double_back")
    return (_unpack(_finish(outputs, create_graph), is_outputs_tuple),
            _unpack(_finish(result, create_graph), is_inputs_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    r"""``(func(inputs), H v)``: the output of the scalar function ``func``, and the Hessian-vector product.

    As in PyTorch it takes the double-backward trick on top of the gradient, three backward passes, so it is slower
    than :func:`vhp`; for a twice continuously differentiable function the Hessian is symmetric and both agree.

    Args:
        func: a function of tensors returning a single one-element tensor.
        inputs: a tensor or a tuple of tensors, the point of evaluation.
        v: the vector, shaped like ``inputs``; may be omitted when the input is a single one-element tensor.
        create_graph: keep the graph of the computation, so the results can be differentiated again (results
            then may still require grad); otherwise they come back detached.
        strict: raise, instead of returning zeros, when some input has no influence on the outputs.

    Returns:
        ``(output, hvp)``, ``hvp`` shaped like ``inputs``.
    """
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _hessian_product_setup(
            func, inputs, v, "hvp", create_graph, strict)
        # H^T w with a seed w that requires grad; its gradient w.r.t. w along v is H v
        seeds = tuple(zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, seeds, create_graph=True)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _autograd_grad(double_back, seeds, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "double_back_trick")
    return (_unpack(_finish(outputs, create_graph), is_outputs_tuple),
            _unpack(_finish(result, create_graph), is_inputs_tuple))
