"""Matrix and tensor products (``matmul``, ``mm``, ``bmm``, ``dot``, ``vdot``, ``mv``, ``outer``/``ger``, ``inner``,
``einsum``, ``tensordot``, ``kron``), ``addmm`` (the other scaled sums are in :mod:`scaled_products`), and the
top-level linear-algebra functions.

``einsum`` accepts every equation NumPy does: explicit or implicit output, ``...`` broadcasting, repeated labels
(diagonals) and the sublist format. Its gradient w.r.t. one operand is another einsum: the upstream gradient
contracted with the (conjugated) other operands. Labels that appear only in that operand, dims it broadcast from
size 1, and repeated labels are then restored by expanding and by placing values on the diagonal (an einsum with
identity matrices), so every rule is itself differentiable.

The top-level ``inverse``, ``det``, ``logdet``, ``slogdet``, ``cholesky``, ``pinverse``, ``matrix_power``,
``cross``, ``svd``, ``qr`` and ``solve`` follow PyTorch's ``torch.*`` (not ``torch.linalg.*``) signatures; ``solve``
keeps the old ``gesv`` role: ``solve(B, A)`` returns ``(solution, LU)``.
"""
from __future__ import annotations

import collections
import functools
import string
import warnings

import numpy as np

from .. import dtypes as dt, threads
from .. import return_types as _rt
from ..autograd.graph import Node
from ._base import GRAD_ENABLED, Tensor, binary_arrays, check_tensor, normalize_dim, record, sum_to, \
    tensor_method, wrap
from ._linalg_table import LINALG
from .arithmetic import _conj, add, mul
from .clamp_where import where

__all__ = ["matmul", "mm", "bmm", "dot", "vdot", "outer", "ger", "inner", "mv", "addmm", "einsum", "tensordot", "kron",
           "inverse", "matrix_exp",
           "det", "logdet", "slogdet", "solve", "cholesky", "cholesky_solve", "cholesky_inverse", "pinverse",
           "matrix_power", "cross", "svd", "qr", "chain_matmul", "cdist"]


# ------------------------------------------------------------------------------------------------- matrix products
class MmBackward0(Node):
    """Backward of ``matmul`` for any ranks: operands are lifted to 2-D and the batch dims summed back."""
    __slots__ = ()

    def apply(self, grad):
        a, b = self.saved_tensors
        ga = gb = None
        if a.ndim == 1 and b.ndim == 1:
            if self.next_functions[0] is not None:
                ga = grad * _conj(b)
            if self.next_functions[1] is not None:
                gb = grad * _conj(a)
            return ga, gb
        a2 = a.unsqueeze(0) if a.ndim == 1 else a
        b2 = b.unsqueeze(-1) if b.ndim == 1 else b
        g2 = grad
        if a.ndim == 1:
            g2 = g2.unsqueeze(-2)
        if b.ndim == 1:
            g2 = g2.unsqueeze(-1)
        if self.next_functions[0] is not None:
            ga = matmul(g2, _conj(b2.mT))
            ga = sum_to(ga, a2.shape)
            if a.ndim == 1:
                ga = ga.squeeze(0)
        if self.next_functions[1] is not None:
            gb = matmul(_conj(a2.mT), g2)
            gb = sum_to(gb, b2.shape)
            if b.ndim == 1:
                gb = gb.squeeze(-1)
        return ga, gb


class BmmBackward0(MmBackward0):
    __slots__ = ()


class DotBackward0(MmBackward0):
    __slots__ = ()


class MvBackward0(MmBackward0):
    __slots__ = ()


def _matmul_error(a, b):
    sa, sb = a.shape, b.shape
    if len(sa) == 1 and len(sb) == 1:
        return RuntimeError(f"inconsistent tensor size, expected tensor [{sa[0]}] and src [{sb[0]}] to have the same "
                            f"number of elements, but got {sa[0]} and {sb[0]} elements respectively")
    if len(sa) <= 2 and len(sb) <= 2:
        ra = (1, sa[0]) if len(sa) == 1 else sa
        rb = (sb[0], 1) if len(sb) == 1 else sb
        return RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({ra[0]}x{ra[1]} and {rb[0]}x{rb[1]})")
    return RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{sa[0]}, {sa[-1]}] but "
                        f"got: [{sb[0]}, {sb[-2] if len(sb) > 1 else sb[0]}]. (matmul of shapes {list(sa)} and "
                        f"{list(sb)})")


def _matmul_node_cls(a, b):
    if a.ndim == 1 and b.ndim == 1:
        return DotBackward0
    if a.ndim == 2 and b.ndim == 1:
        return MvBackward0
    if a.ndim <= 2 and b.ndim <= 2:
        return MmBackward0
    return BmmBackward0


def _blas_friendly(x):
    """A C-contiguous copy of a non-contiguous stack of matrices (NumPy's batched matmul can fall off its BLAS path
    for transposed views, up to 8x slower; 2-D operands are fine: BLAS takes their transposes as flags)."""
    if x.ndim > 2 and not x.flags.c_contiguous:
        return x.copy(order="C")
    return x


@tensor_method("matmul", "__matmul__")
def matmul(input, other):
    """Matrix product with PyTorch's rules: 1-D operands are promoted and batch dimensions broadcast.

    Both operands must have the same dtype (PyTorch does not promote in matmul).
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"matmul(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if not isinstance(other, Tensor):
        raise TypeError(f"matmul(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    if input._data.dtype != other._data.dtype:
        raise _matmul_dtype_error(input, other)
    a, b = binary_arrays(input, other)
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and {b.ndim}D")
    a, b = _blas_friendly(a), _blas_friendly(b)
    try:
        out = wrap(threads.matmul(input._xp, a, b))  # split across ember's threads when big (core/threads.py)
    except ValueError:
        raise _matmul_error(a, b) from None
    if GRAD_ENABLED[0] and (input._requires_grad or other._requires_grad):
        node = _matmul_node_cls(a, b)()
        node.save(input, other)
        record(node, out, input, other)
    return out


# the C++ names PyTorch's matmul kernels print for a dtype
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
              "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
              "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _matmul_dtype_error(input, other):
    if input._data.ndim == 1 and other._data.ndim == 1:
        return RuntimeError(f"dot : expected both vectors to have same dtype, but found {input.dtype.scalar_name} "
                            f"and {other.dtype.scalar_name}")
    names = [_CPP_NAMES.get(t._data.dtype.name, t._data.dtype.name) for t in (input, other)]
    return RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {names[0]} != {names[1]}")


def _rmatmul(self, other):
    from .creation import as_tensor
    return matmul(as_tensor(other), self)


Tensor.__rmatmul__ = _rmatmul


@tensor_method()
def mm(input, mat2):
    """Matrix product of two 2-D tensors."""
    if input.ndim != 2:
        raise RuntimeError(f"self must be a matrix, got a {input.ndim}-D tensor")
    if mat2.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got a {mat2.ndim}-D tensor")
    return matmul(input, mat2)


@tensor_method()
def bmm(input, mat2):
    """Batched matrix product of two 3-D tensors with the same batch size."""
    if input.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor, got a {input.ndim}-D tensor")
    if mat2.ndim != 3:
        raise RuntimeError(f"batch2 must be a 3D tensor, got a {mat2.ndim}-D tensor")
    if input.shape[0] != mat2.shape[0] or input.shape[2] != mat2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{input.shape[0]}, "
                           f"{input.shape[2]}] but got: [{mat2.shape[0]}, {mat2.shape[1]}].")
    return matmul(input, mat2)


@tensor_method()
def dot(input, other):
    """Inner product of two 1-D tensors."""
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {input.dtype} and "
                           f"{other.dtype}")
    return matmul(input, other)


@tensor_method()
def vdot(input, other):
    """Inner product of two 1-D tensors, conjugating the first: ``sum(conj(input) * other)``."""
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"vdot : expected both vectors to have same dtype, but found {input.dtype.scalar_name} "
                           f"and {other.dtype.scalar_name}")
    if input.shape[0] != other.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src "
                           f"[{other.shape[0]}] to have the same number of elements, but got {input.shape[0]} and "
                           f"{other.shape[0]} elements respectively")
    return matmul(input.conj() if input._data.dtype.kind == "c" else input, other)


@tensor_method()
def mv(input, vec):
    """Matrix-vector product."""
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {vec.ndim}")
    return matmul(input, vec)


def _check_tensors(fn, *named):
    """PyTorch's TypeError for an argument that is not a Tensor, naming it and its position."""
    for pos, (name, t) in enumerate(named, 1):
        if not isinstance(t, Tensor):
            raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not {type(t).__name__}")


@tensor_method()
def outer(input, vec2):
    """Outer product of two 1-D tensors: ``out[i][j] = input[i] * vec2[j]`` (operands are promoted)."""
    _check_tensors("outer", ("input", input), ("vec2", vec2))
    for name, t in (("self", input), ("vec2", vec2)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    return mul(input.unsqueeze(1), vec2.unsqueeze(0))


@tensor_method()
def ger(input, vec2):
    """Outer product of two 1-D tensors (the old name of :func:`outer`)."""
    return outer(input, vec2)


@tensor_method()
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)``."""
    prod = mm(mat1, mat2)
    if alpha != 1:
        prod = prod * alpha
    return add(prod, input if beta == 1 else input * beta)




@tensor_method()
def inner(input, other):
    """Inner product over the last dimension: ``out[i..., j...] = sum_k input[i..., k] * other[j..., k]``; a
    0-dim operand multiplies the other instead. Both operands must have the same dtype."""
    _check_tensors("inner", ("input", input), ("other", other))
    if input.ndim == 0 or other.ndim == 0:
        return mul(input, other)
    if input._data.dtype != other._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    if input._data.shape[-1] != other._data.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input._data.shape)} and {list(other._data.shape)}")
    if input._data.dtype.kind == "b":
        raise NotImplementedError("\"dot\" not implemented for 'Bool'" if input.ndim == other.ndim == 1 else
                                  "\"addmm_impl_cpu_\" not implemented for 'Bool'")
    return tensordot(input, other, ([-1], [-1]))


_LETTERS = string.ascii_uppercase + string.ascii_lowercase  # ASCII order, as NumPy's implicit output uses
# Above this many elements in total, let NumPy plan the contraction (BLAS via tensordot); below, the planning
# costs more than it saves.
_OPTIMIZE_MIN_ELEMENTS = 4096


# ----------------------------------------------------------------------------------------------- equation parsing
def _sublist_to_equation(args):
    """Turn einsum's sublist form ``(op0, [0, 1], op1, [1, 2], [0, 2])`` into ``("AB,BC->AC", [op0, op1])``."""
    ops, subs = [], []
    items = list(args)
    out = None
    if len(items) % 2 == 1:
        out = items.pop()
    for i in range(0, len(items), 2):
        ops.append(items[i])
        subs.append(items[i + 1])

    def convert(sub):
        s = ""
        for v in sub:
            if v is Ellipsis:
                s += "..."
            elif isinstance(v, (int, np.integer)) and 0 <= v < 52:
                s += _LETTERS[v]
            else:
                raise RuntimeError(f"einsum(): subscript in subscript list is not within the valid range [0, 52), "
                                   f"got {v!r}")
        return s

    eq = ",".join(convert(s) for s in subs)
    if out is not None:
        eq += "->" + convert(out)
    return eq, ops


_Parsed = collections.namedtuple("_Parsed", ["inputs", "output", "equation"])


@functools.lru_cache(maxsize=1024)
def _parse(equation: str, ndims: tuple) -> _Parsed:
    """Expand ``...`` into explicit labels and make the output explicit.

    Returns per-operand label strings, the output labels and the normalised equation NumPy runs.
    """
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, rhs = eq.split("->", 1)
        if "->" in rhs:
            raise RuntimeError("einsum(): found '->' more than once in equation")
    else:
        lhs, rhs = eq, None
    terms = lhs.split(",")
    if len(terms) < len(ndims):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    if len(terms) > len(ndims):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    for pos, ch in enumerate(eq):
        if ch not in _LETTERS and ch not in ".,->":
            raise RuntimeError(f"einsum(): invalid subscript given at index {pos} in the equation string, "
                               f"subscripts must be in [a-zA-Z]")
    used = set(ch for ch in eq if ch in _LETTERS)
    spare = [c for c in _LETTERS if c not in used]
    # ellipsis dims get fresh labels, aligned from the right across operands (NumPy broadcasting)
    ell_counts = []
    for k, (term, nd) in enumerate(zip(terms, ndims)):
        if term.count("...") > 1 or (term.count(".") != 3 * term.count("...")):
            raise RuntimeError(f"einsum(): found '.' for operand {k} that is not part of any ellipsis")
        n_labels = len(term.replace("...", ""))
        if "..." in term:
            if n_labels > nd:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n_labels}) is more than "
                                   f"the number of dimensions ({nd}) for operand {k}")
            ell_counts.append(nd - n_labels)
        else:
            if n_labels != nd:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n_labels}) does not match "
                                   f"the number of dimensions ({nd}) for operand {k} and no ellipsis was given")
            ell_counts.append(0)
    n_ell = max(ell_counts) if ell_counts else 0
    if n_ell > len(spare):
        raise RuntimeError("einsum(): too many dimensions: ran out of subscript letters")
    ell_labels = "".join(spare[:n_ell])
    inputs = []
    for term, cnt in zip(terms, ell_counts):
        inputs.append(term.replace("...", ell_labels[n_ell - cnt:]) if "..." in term else term)
    if rhs is None:
        counts = collections.Counter("".join(inputs))
        single = sorted(c for c in counts if counts[c] == 1 and c not in ell_labels)
        output = ell_labels + "".join(single)
    else:
        if rhs.count("...") > 1 or rhs.count(".") != 3 * rhs.count("..."):
            raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis")
        if "..." not in rhs and n_ell:
            raise RuntimeError("einsum(): the operands have '...' dimensions, so the output subscripts must contain "
                               "'...' too")
        output = rhs.replace("...", ell_labels)
        seen = set()
        all_in = set("".join(inputs))
        for ch in output:
            if ch in seen:
                raise RuntimeError(f"einsum(): output subscript {ch} appears more than once in the output")
            if ch not in all_in:
                raise RuntimeError(f"einsum(): output subscript {ch} does not appear in the equation for any input "
                                   f"operand")
            seen.add(ch)
    return _Parsed(tuple(inputs), output, ",".join(inputs) + "->" + output)


def _optimize_flag(parsed, arrays):
    """Whether NumPy should plan the contraction: worth it for 3+ large operands, or for two operands sharing a
    summed label and no batch label (then it becomes one BLAS ``tensordot``); otherwise planning only costs time."""
    if len(arrays) < 2:
        return False
    total = 0
    for a in arrays:
        total += a.size
    if total < _OPTIMIZE_MIN_ELEMENTS:
        return False
    if len(arrays) > 2:
        return "greedy"
    shared = set(parsed.inputs[0]) & set(parsed.inputs[1])
    if shared and not (shared & set(parsed.output)):
        return "greedy"
    return False


def _einsum_arrays(xp, parsed, arrays):
    try:
        return xp.einsum(parsed.equation, *arrays, optimize=_optimize_flag(parsed, arrays))
    except ValueError as e:
        raise RuntimeError(f"einsum(): operands do not broadcast with remapped shapes: {e}") from None


# ---------------------------------------------------------------------------------------------------- einsum
def _label_sizes(labels_per_op, shapes):
    sizes = {}
    for labels, shape in zip(labels_per_op, shapes):
        for ch, n in zip(labels, shape):
            if sizes.get(ch, 1) == 1:
                sizes[ch] = n
            elif n != 1 and sizes[ch] != n:
                raise RuntimeError(f"einsum(): operands do not broadcast with remapped shapes (original->remapped): "
                                   f"subscript {ch} has size {sizes[ch]} and {n}")
    return sizes


def _operand_grad(grad: Tensor, k: int, operands, inputs, output: str) -> Tensor:
    """The gradient of ``einsum(inputs -> output)`` w.r.t. operand ``k`` (PyTorch's complex convention)."""
    labels = inputs[k]
    shape = operands[k]._data.shape
    sizes = _label_sizes(inputs, [op._data.shape for op in operands])
    others = [output] + [inputs[j] for j in range(len(inputs)) if j != k]
    available = set("".join(others))
    unique = []
    for ch in labels:
        if ch not in unique:
            unique.append(ch)
    own_size = {ch: n for ch, n in zip(labels, shape)}
    # labels to produce by the contraction; the others are either summed only in this operand (restored by
    # expanding) or broadcast from size 1 in this operand (summed away, then restored as a size-1 dim)
    target = [ch for ch in unique if ch in available and not (own_size[ch] == 1 and sizes[ch] != 1)]
    ops = [grad] + [operands[j].conj() for j in range(len(inputs)) if j != k]
    g = einsum(",".join(others) + "->" + "".join(target), *ops)
    if len(target) != len(unique):
        for pos, ch in enumerate(unique):
            if ch not in target:
                g = g.unsqueeze(pos)
    full = tuple(own_size[ch] for ch in unique)
    if tuple(g._data.shape) != full:
        # labels summed only here, or broadcast from size 1 in every other operand
        g = g.expand(full)
    if len(unique) != len(labels):
        g = _embed_diagonals(g, unique, labels, own_size)
    return _like_input(g, operands[k])


def _like_input(g: Tensor, t: Tensor) -> Tensor:
    """A gradient in the dtype of its input: the real part for a real input reached through complex ops."""
    if g._data.dtype == t._data.dtype:
        return g
    if t._data.dtype.kind != "c" and g._data.dtype.kind == "c":
        g = g.real
    return g.to(t.dtype)


def _embed_diagonals(g: Tensor, unique, labels, own_size):
    """Place ``g`` (one dim per distinct label) on the diagonals of a tensor with the repeated ``labels``."""
    used = set(labels)
    spare = iter(c for c in _LETTERS if c not in used)
    out_labels = []
    eyes, eye_labels = [], []
    seen = set()
    for ch in labels:
        if ch in seen:
            fresh = next(spare)
            out_labels.append(fresh)
            eye_labels.append(ch + fresh)
            eyes.append(wrap(g._xp.eye(own_size[ch], dtype=g._data.dtype)))
        else:
            seen.add(ch)
            out_labels.append(ch)
    eq = ",".join(["".join(unique)] + eye_labels) + "->" + "".join(out_labels)
    return einsum(eq, g, *eyes)


class EinsumBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        inputs, output = self.inputs, self.output
        operands = self.saved_tensors
        return tuple(_operand_grad(grad, k, operands, inputs, output) if edge is not None else None
                     for k, edge in enumerate(self.next_functions))


def einsum(*args) -> Tensor:
    """Sum of products of the operands' elements over the dimensions named by Einstein notation.

    ``einsum("ij,jk->ik", a, b)`` is a matrix product; ``"ii->i"`` a diagonal, ``"ii"`` a trace, ``"...ij->...ji"``
    a batched transpose, ``"i,j->ij"`` an outer product. Without ``->`` the output holds the labels used exactly
    once, in alphabetical order. The operands may also be given as a list, or in the sublist form
    ``einsum(a, [0, 1], b, [1, 2], [0, 2])``. Operands are promoted to a common dtype.
    """
    if not args:
        raise TypeError("einsum(): must specify the equation string and at least one operand, or at least one "
                        "operand and its subscripts list")
    if isinstance(args[0], str):
        equation = args[0]
        operands = args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = tuple(operands[0])
    else:
        equation, operands = _sublist_to_equation(args)
    operands = tuple(operands)
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    for i, op in enumerate(operands):
        if not isinstance(op, Tensor):
            raise TypeError(f"einsum(): argument 'operands' must be tuple of Tensors, but found element of type "
                            f"{type(op).__name__} at pos {i}")
    parsed = _parse(equation, tuple(op._data.ndim for op in operands))
    first = operands[0]._data.dtype
    if all(op._data.dtype == first for op in operands):
        arrays = [op._data for op in operands]
    else:
        rt = dt.result_type(*operands).np
        arrays = [op._data if op._data.dtype == rt else op._data.astype(rt) for op in operands]
    try:
        res = _einsum_arrays(operands[0]._xp, parsed, arrays)
    except RuntimeError:
        _label_sizes(parsed.inputs, [a.shape for a in arrays])  # names the mismatching subscript
        raise
    out = wrap(operands[0]._xp.asarray(res))
    if GRAD_ENABLED[0]:
        for op in operands:
            if op._requires_grad:
                node = EinsumBackward0()
                node.save(*operands)
                node.inputs, node.output = parsed.inputs, parsed.output
                record(node, out, *operands)
                break
    return out


# ------------------------------------------------------------------------------------------------------ tensordot
def _tensordot_dims(dims, nd_a, nd_b):
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, (int, np.integer)):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(nd_a, nd_b):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(nd_a - dims, nd_a)), list(range(dims))
    if len(dims) != 2:
        raise RuntimeError("tensordot expects dims to be an int or a pair of lists of dims")
    da, db = dims
    da = [da] if isinstance(da, (int, np.integer)) else list(da)
    db = [db] if isinstance(db, (int, np.integer)) else list(db)
    if len(da) != len(db):
        raise RuntimeError(f"both dimension lists should have same length, got {len(da)} and {len(db)}")
    return [normalize_dim(d, nd_a) for d in da], [normalize_dim(d, nd_b) for d in db]


def tensordot(a: Tensor, b: Tensor, dims=2, out=None) -> Tensor:
    """Contract ``a`` and ``b`` over the given dims: ``dims=k`` pairs the last k dims of ``a`` with the first k of
    ``b``; ``dims=([1, 0], [0, 1])`` names the pairs. The result holds ``a``'s free dims, then ``b``'s."""
    check_tensor(a, "a", "tensordot")
    check_tensor(b, "b", "tensordot")
    da, db = _tensordot_dims(dims, a._data.ndim, b._data.ndim)
    for x, y in zip(da, db):
        if a._data.shape[x] != b._data.shape[y]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a._data.shape[x]} in dim "
                               f"{x} and second has size {b._data.shape[y]} in dim {y}")
    rt = dt.result_type(a, b).np
    xa = a._data if a._data.dtype == rt else a._data.astype(rt)
    xb = b._data if b._data.dtype == rt else b._data.astype(rt)
    res = wrap(a._xp.asarray(a._xp.tensordot(xa, xb, axes=(da, db))))
    if GRAD_ENABLED[0] and (a._requires_grad or b._requires_grad):
        # the same contraction written as an einsum gives the backward rule
        la = list(_LETTERS[:a._data.ndim])
        lb = list(_LETTERS[a._data.ndim:a._data.ndim + b._data.ndim])
        for x, y in zip(da, db):
            lb[y] = la[x]
        output = "".join(ch for i, ch in enumerate(la) if i not in da) + \
            "".join(ch for i, ch in enumerate(lb) if i not in db)
        node = EinsumBackward0()
        node.save(a, b)
        node.inputs, node.output = ("".join(la), "".join(lb)), output
        record(node, res, a, b)
    return res


# ----------------------------------------------------------------------------------------------------------- kron
class KronBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        a, b = self.saved_tensors
        nd = max(a._data.ndim, b._data.ndim)
        sa = (1,) * (nd - a._data.ndim) + a._data.shape
        sb = (1,) * (nd - b._data.ndim) + b._data.shape
        # out[i * nb + j] = a[i] * b[j] per dim: view the gradient with the a- and b-indices interleaved
        inter = []
        for x, y in zip(sa, sb):
            inter += [x, y]
        g = grad.reshape(inter)
        la = _LETTERS[:nd]
        lb = _LETTERS[nd:2 * nd]
        lg = "".join(x + y for x, y in zip(la, lb))
        ga = gb = None
        if self.next_functions[0] is not None:
            ga = _like_input(einsum(f"{lg},{lb}->{la}", g, b.reshape(sb).conj()).reshape(a._data.shape), a)
        if self.next_functions[1] is not None:
            gb = _like_input(einsum(f"{lg},{la}->{lb}", g, a.reshape(sa).conj()).reshape(b._data.shape), b)
        return ga, gb


@tensor_method()
def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: blocks ``input[i] * other`` laid out so that the result has size
    ``input.size(d) * other.size(d)`` along every dim (the smaller-rank operand is padded with leading 1s)."""
    check_tensor(input, "input", "kron")
    check_tensor(other, "other", "kron")
    rt = dt.result_type(input, other).np
    xa = input._data if input._data.dtype == rt else input._data.astype(rt)
    xb = other._data if other._data.dtype == rt else other._data.astype(rt)
    out = wrap(input._xp.asarray(input._xp.kron(xa, xb)))
    if GRAD_ENABLED[0] and (input._requires_grad or other._requires_grad):
        node = KronBackward0()
        node.save(input, other)
        record(node, out, input, other)
    return out


# ------------------------------------------------------------------------------------------ top-level linear algebra
# ``LINALG`` holds ember.core.linalg's functions, registered by linalg itself (see _linalg_table.py)

@tensor_method("inverse")
def inverse(input: Tensor) -> Tensor:
    """The inverse of a square matrix or batch of matrices (alias of :func:`ember.linalg.inv`)."""
    return LINALG.inv(input)


@tensor_method("matrix_exp")
def matrix_exp(input: Tensor) -> Tensor:
    """The matrix exponential of a square matrix or batch of matrices (alias of :func:`ember.linalg.matrix_exp`)."""
    return LINALG.matrix_exp(input)


@tensor_method("det")
def det(input: Tensor) -> Tensor:
    """The determinant of a square matrix or batch of matrices (alias of :func:`ember.linalg.det`)."""
    return LINALG.det(input)


@tensor_method("slogdet")
def slogdet(input: Tensor):
    """``(sign, logabsdet)`` of the determinant, as ``ember.return_types.slogdet`` (see ``ember.linalg.slogdet``)."""
    return _rt.slogdet(*LINALG.slogdet(input))


@tensor_method("logdet")
def logdet(input: Tensor) -> Tensor:
    """The log-determinant: ``-inf`` for a singular matrix and ``nan`` for a negative determinant (real input)."""
    from .complex import angle, complex as make_complex
    sign, logabs = LINALG.slogdet(input)
    if input._data.dtype.kind == "c":
        return make_complex(logabs, angle(sign))
    bad = sign._data < 0
    if bad.any():
        return logabs + wrap(input._xp.where(bad, np.nan, 0).astype(logabs._data.dtype))
    return logabs


_SolveResult = _rt.return_type("solve", ("solution", "LU"))
_warned = set()


def _warn_once(key, msg):
    if key not in _warned:
        _warned.add(key)
        warnings.warn(msg, UserWarning, stacklevel=3)


def _lu_packed(a: np.ndarray, xp) -> np.ndarray:
    """LAPACK getrf's packed LU factors (unit-lower L below the diagonal, U on and above) with partial pivoting."""
    n = a.shape[-1]
    lu = xp.array(a.reshape((-1, n, n)), copy=True)
    rows = xp.arange(lu.shape[0])
    for k in range(n):
        p = k + xp.argmax(abs(lu[:, k:, k]), axis=1)
        top = lu[rows, k].copy()
        lu[rows, k] = lu[rows, p]
        lu[rows, p] = top
        piv = lu[:, k, k]
        safe = xp.where(piv == 0, 1, piv)
        lu[:, k + 1:, k] /= safe[:, None]
        lu[:, k + 1:, k + 1:] -= lu[:, k + 1:, k, None] * lu[:, k, None, k + 1:]
    return lu.reshape(a.shape)


@tensor_method("solve")
def solve(input: Tensor, A: Tensor):
    """The old ``gesv``: solve ``A X = input`` and also return the LU factorisation of ``A``.

    Returns the named tuple ``(solution, LU)``; ``LU`` packs the unit-lower ``L`` and upper ``U`` of the
    partially pivoted factorisation (not differentiable). Prefer :func:`ember.linalg.solve`, which takes its
    arguments in the order ``(A, B)``.
    """
    _warn_once("solve", "ember.solve is deprecated in favor of ember.linalg.solve and will be removed in a future "
                        "release. ember.linalg.solve has its arguments reversed and does not return the LU "
                        "factorization.\nX = ember.solve(B, A).solution\nshould be replaced with\n"
                        "X = ember.linalg.solve(A, B)")
    check_tensor(input, "input", "solve")
    check_tensor(A, "A", "solve")
    if input._data.ndim < 2 or A._data.ndim < 2:
        raise RuntimeError(f"solve: expected 2 or more dimensions for input and A, got {input._data.ndim} and "
                           f"{A._data.ndim}")
    solution = LINALG.solve(A, input)
    batch = np.broadcast_shapes(A._data.shape[:-2], input._data.shape[:-2])
    lu = _lu_packed(A._xp.broadcast_to(A._data, batch + A._data.shape[-2:]), A._xp)
    return _SolveResult(solution, wrap(A._xp.asarray(lu)))


@tensor_method("cholesky")
def cholesky(input: Tensor, upper: bool = False) -> Tensor:
    """The Cholesky factor of a Hermitian positive-definite matrix (deprecated form of ``linalg.cholesky``)."""
    return LINALG.cholesky(input, upper=upper)


@tensor_method("cholesky_solve")
def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False) -> Tensor:
    """Solve ``A X = input`` given the Cholesky factor ``input2`` of ``A`` (lower, or upper if ``upper``)."""
    if upper:
        y = LINALG.solve_triangular(input2.mH, input, upper=False)
        return LINALG.solve_triangular(input2, y, upper=True)
    y = LINALG.solve_triangular(input2, input, upper=False)
    return LINALG.solve_triangular(input2.mH, y, upper=True)


@tensor_method("cholesky_inverse")
def cholesky_inverse(input: Tensor, upper: bool = False) -> Tensor:
    """The inverse of ``A`` given its Cholesky factor ``input`` (lower ``L``, or upper ``U`` if ``upper``)."""
    n = input._data.shape[-1]
    eye = wrap(input._xp.eye(n, dtype=input._data.dtype))
    L = input.mH if upper else input
    Linv = LINALG.solve_triangular(L, eye, upper=False)
    return Linv.mH @ Linv


@tensor_method("pinverse")
def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """The pseudo-inverse, ignoring singular values below ``rcond`` times the largest."""
    return LINALG.pinv(input, rtol=rcond)


@tensor_method("matrix_power")
def matrix_power(input: Tensor, n: int) -> Tensor:
    """``input`` raised to the integer power ``n`` (alias of :func:`ember.linalg.matrix_power`)."""
    return LINALG.matrix_power(input, n)


@tensor_method("cross")
def cross(input: Tensor, other: Tensor, dim=None) -> Tensor:
    """The cross product along ``dim``; with ``dim=None`` the first dim of size 3 is used (deprecated default)."""
    check_tensor(input, "input", "cross")
    check_tensor(other, "other", "cross")
    if dim is None:
        _warn_once("cross", "Using ember.cross without specifying the dim arg is deprecated.\nPlease either pass the "
                            "dim explicitly or simply use ember.linalg.cross.\nThe default value of dim will change "
                            "to agree with that of linalg.cross in a future release.")
        shape = np.broadcast_shapes(input._data.shape, other._data.shape)
        dims = [i for i, s in enumerate(shape) if s == 3]
        if not dims:
            raise RuntimeError(f"cross: no dimension of size 3 in input of shape {list(shape)}")
        dim = dims[0]
    if input._data.ndim != other._data.ndim:
        nd = max(input._data.ndim, other._data.ndim)
        input = input.reshape((1,) * (nd - input._data.ndim) + input._data.shape)
        other = other.reshape((1,) * (nd - other._data.ndim) + other._data.shape)
    return LINALG.cross(input, other, dim=dim)


_SvdResult, _QrResult = _rt.svd, _rt.qr


@tensor_method("svd")
def svd(input: Tensor, some: bool = True, compute_uv: bool = True):
    """The old ``torch.svd``: ``(U, S, V)`` with ``input = U diag(S) V^H`` (note ``V``, not ``Vh``).

    ``some=True`` gives the reduced decomposition. With ``compute_uv=False``, ``U`` and ``V`` are zero matrices.
    """
    if not compute_uv:
        s = LINALG.svdvals(input)
        m, n = input._data.shape[-2:]
        batch = input._data.shape[:-2]
        xp = input._xp
        return _SvdResult(wrap(xp.zeros(batch + (m, m), dtype=input._data.dtype)), s,
                          wrap(xp.zeros(batch + (n, n), dtype=input._data.dtype)))
    U, S, Vh = LINALG.svd(input, full_matrices=not some)
    return _SvdResult(U, S, Vh.mH)


@tensor_method("qr")
def qr(input: Tensor, some: bool = True):
    """The old ``torch.qr``: ``(Q, R)``, reduced when ``some`` else complete."""
    Q, R = LINALG.qr(input, mode="reduced" if some else "complete")
    return _QrResult(Q, R)


def chain_matmul(*matrices) -> Tensor:
    """The product of a chain of 2-D matrices in the cheapest order (deprecated: use ``linalg.multi_dot``)."""
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if len(matrices) == 1:
        return matrices[0].clone()
    return LINALG.multi_dot(matrices)


_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")


def _positive_root(s, root):
    """``root(s)`` where ``s > 0``, else 0, with a zero gradient where ``s == 0`` (PyTorch's subgradient at a
    zero distance; the plain root's gradient is infinite there)."""
    pos = s > 0
    return where(pos, root(where(pos, s, 1)), 0)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The ``p``-norm distances between the rows of ``x1`` ``(B*, P, M)`` and of ``x2`` ``(B*, R, M)``:
    ``(B*, P, R)``, batch dims broadcast. For p = 2 PyTorch's matrix-product form is used when either side has more
    than 25 rows (or always/never, by ``compute_mode``). Differentiable, with PyTorch's gradients: 0 at a zero
    distance, and for p = inf the full gradient to every coordinate that attains the maximum."""
    for name, t in (("x1", x1), ("x2", x2)):
        check_tensor(t, name, "cdist")
        if t.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name.upper()} got: {t.ndim}D")
        if not t.dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name.upper()} got: {t.dtype.scalar_name}")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    rows1, rows2 = x1.shape[-2], x2.shape[-2]
    use_mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode == _CDIST_MODES[0] and (rows1 > 25 or rows2 > 25)))
    if use_mm:  # PyTorch's _euclidean_dist: one GEMM of [-2 x1, |x1|^2, 1] by [x2, 1, |x2|^2]
        from .creation import ones_like
        from .shape import cat
        n1, n2 = (x1 * x1).sum(-1, keepdim=True), (x2 * x2).sum(-1, keepdim=True)
        a = cat([x1 * -2, n1, ones_like(n1)], -1)
        b = cat([x2, ones_like(n2), n2], -1)
        return _positive_root(matmul(a, b.transpose(-2, -1)), lambda v: v.sqrt())
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)  # (B*, P, R, M)
    size = diff.abs()
    if p == 0:  # the count of differing coordinates, with PyTorch's zero gradient (it is in the graph)
        return (diff != 0).sum(-1).to(diff.dtype) + (size * 0).sum(-1)
    if p == 1:
        return size.sum(-1)
    if p == 2:
        return _positive_root((diff * diff).sum(-1), lambda v: v.sqrt())
    if p == float("inf"):
        # value: the max; gradient: sign(diff) wherever |diff| equals it (PyTorch's, not shared between ties)
        top = size.amax(-1)
        hit = (size * (size == top.unsqueeze(-1))).sum(-1)
        return top.detach() + hit - hit.detach()
    return _positive_root((size ** p).sum(-1), lambda v: v ** (1.0 / p))
