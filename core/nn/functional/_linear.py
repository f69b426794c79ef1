"""Linear maps, embeddings and vector utilities of ``ember.nn.functional``.

``linear`` is fused: one GEMM forward, and a backward that runs plain NumPy GEMMs unless a graph of the derivative
is being recorded (``create_graph=True``), in which case the same rule is written with ember ops.
"""
from __future__ import annotations

import numpy as np

from ... import threads
from ...autograd.graph import Node
from ...device import array_module as _xp_of
from ...ops._base import GRAD_ENABLED, Tensor, record, wrap
from ._args import _tensor_arg
# dropout moved to _dropout.py; the old import path ``_linear.dropout`` keeps working
from ._dropout import (alpha_dropout, dropout, dropout1d, dropout2d, dropout3d,  # noqa: F401
                       feature_alpha_dropout)
from ._sums import sum_leading

__all__ = ["linear", "bilinear", "embedding", "embedding_bag", "one_hot", "normalize", "cosine_similarity",
           "pairwise_distance", "pdist"]


# ------------------------------------------------------------------------------------------------------ linear
class AddmmBackward0(Node):
    """Backward of ``linear``: ``dx = g W``, ``dW = g^T x``, ``db = sum(g)`` over the flattened leading dims."""

    __slots__ = ()

    def apply(self, grad):
        x, w = self.saved_tensors
        has_bias = self._ctx
        nf = self.next_functions
        in_f = w._data.shape[1]
        out_f = w._data.shape[0]
        gx = gw = gb = None
        if not GRAD_ENABLED[0]:
            g2 = grad._data.reshape(-1, out_f)
            xp = grad._xp
            pairs = []  # the input and weight gradients are independent products: computed side by side
            if nf[0] is not None:
                pairs.append((g2, w._data))
            if nf[1] is not None:
                pairs.append((g2.T, x._data.reshape(-1, in_f)))
            want_bias = has_bias and nf[2] is not None  # independent too: it runs alongside them
            prods = threads.matmuls(xp, pairs, also=(lambda: sum_leading(xp, g2, 1)) if want_bias else None)
            if nf[0] is not None:
                gx = wrap(prods.pop(0).reshape(x._data.shape))
            if nf[1] is not None:
                gw = wrap(prods.pop(0))
            if want_bias:
                gb = wrap(prods.pop(0))
        else:
            g2 = grad.reshape(-1, out_f)
            if nf[0] is not None:
                gx = g2.matmul(w).reshape(x._data.shape)
            if nf[1] is not None:
                gw = g2.t().matmul(x.reshape(-1, in_f))
            if has_bias and nf[2] is not None:
                gb = g2.sum(0)
        return (gx, gw, gb) if has_bias else (gx, gw)


class MmBackward0(AddmmBackward0):
    __slots__ = ()


class LinearBackward0(AddmmBackward0):
    __slots__ = ()


def linear(input, weight, bias=None):
    """``y = x W^T + b``.

    Args:
        input (Tensor): ``(*, in_features)``.
        weight (Tensor): ``(out_features, in_features)``.
        bias (Tensor, optional): ``(out_features)``.
    """
    if type(input) is not Tensor:
        _tensor_arg(input, "input", "linear", 1)
    _tensor_arg(weight, "weight", "linear", 2)
    x, w = input._data, weight._data
    if w.ndim != 2 or x.ndim == 0 or (bias is not None and bias._data.shape not in ((w.shape[0],), ())):
        # unusual shapes: the composed (broadcasting) form handles them
        out = input.matmul(weight.t() if w.ndim == 2 else weight)
        return out + bias if bias is not None else out
    if x.dtype != w.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {input.dtype.scalar_name} and "
                           f"{weight.dtype.scalar_name}")
    in_f = w.shape[1]
    if x.shape[-1] != in_f:
        rows = x.size // x.shape[-1] if x.shape[-1] else 0
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{x.shape[-1]} and "
                           f"{w.shape[1]}x{w.shape[0]})")
    b = None
    if bias is not None:
        b = bias._data
        if b.dtype != x.dtype:
            raise RuntimeError(f"expected bias to have dtype {input.dtype}, but got {bias.dtype}")
    # x W^T with W^T a transposed view: BLAS reads it in place, no layout copy of either operand; the bias is
    # added by each part of a split GEMM right after its product (core/threads.py)
    if x.ndim == 2:
        out = threads.matmul(input._xp, x, w.T, bias=b)
    else:
        out = threads.matmul(input._xp, x.reshape(-1, in_f), w.T, bias=b).reshape(x.shape[:-1] + (w.shape[0],))
    res = wrap(out)
    if GRAD_ENABLED[0] and (input._requires_grad or weight._requires_grad or
                            (bias is not None and bias._requires_grad)):
        if x.ndim != 2:
            node = LinearBackward0()
        else:
            node = AddmmBackward0() if bias is not None else MmBackward0()
        node.save(input, weight)
        node._ctx = bias is not None
        if bias is not None:
            record(node, res, input, weight, bias)
        else:
            record(node, res, input, weight)
    return res


def bilinear(input1, input2, weight, bias=None):
    """``y_k = x1^T A_k x2 + b_k``.

    Args:
        input1 (Tensor): ``(*, in1_features)``.
        input2 (Tensor): ``(*, in2_features)`` with the same leading dims as ``input1``.
        weight (Tensor): ``(out_features, in1_features, in2_features)``.
        bias (Tensor, optional): ``(out_features)``.
    """
    _tensor_arg(input1, "input1", "bilinear", 1)
    _tensor_arg(input2, "input2", "bilinear", 2)
    _tensor_arg(weight, "weight", "bilinear", 3)
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    if tuple(input1.shape[:-1]) != tuple(input2.shape[:-1]):
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {list(input1.shape[:-1])} and "
                           f"{list(input2.shape[:-1])}")
    if weight.ndim != 3:
        raise RuntimeError(f"bilinear(): weight must be three-dimensional, got {weight.ndim} dimensions")
    out_f, in1, in2 = weight.shape
    if input1.shape[-1] != in1:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but "
                           f"expected {in1}")
    if input2.shape[-1] != in2:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but "
                           f"expected {in2}")
    lead = tuple(input1.shape[:-1])
    x1 = input1.reshape(-1, in1)
    x2 = input2.reshape(-1, in2)
    # (B, in1) @ (in1, out*in2) -> (B, out, in2), then contract in2 with x2
    t = x1.matmul(weight.permute(1, 0, 2).reshape(in1, out_f * in2)).reshape(-1, out_f, in2)
    y = (t * x2.unsqueeze(1)).sum(-1)
    if bias is not None:
        y = y + bias
    return y.reshape(lead + (out_f,))


# --------------------------------------------------------------------------------------------------- embedding
def _check_indices(indices, fn):
    if not isinstance(indices, Tensor):
        raise TypeError(f"{fn}(): argument 'indices' (position 1) must be Tensor, not {type(indices).__name__}")
    if indices._data.dtype.kind not in "iu":
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {indices.type()} instead (while checking arguments for {fn})")


def _rows_sum(grad2, idx, n_rows):
    """Sum the rows of ``grad2`` (K, D) into an (n_rows, D) array at row indices ``idx`` (K,)."""
    xp = _xp_of(grad2)
    out = xp.zeros((n_rows,) + grad2.shape[1:], dtype=grad2.dtype)
    if idx.size == 0:
        return out
    idx = xp.asarray(idx)  # segment ids may come from the host (pad_sequence's lengths)
    if idx.size < 64:
        xp.add.at(out, idx, grad2)
        return out
    # sort once and reduce contiguous runs: much faster than np.add.at for 2-D data
    order = xp.argsort(idx, kind="stable")
    s = idx[order]
    starts = xp.flatnonzero(xp.concatenate((xp.asarray([True]), s[1:] != s[:-1])))
    out[s[starts]] = xp.add.reduceat(grad2[order], starts, axis=0)
    return out


class EmbeddingBackward0(Node):
    """Backward of a row gather: scatter-add the gradient rows into a zero weight gradient."""

    __slots__ = ()

    def apply(self, grad):
        return (_scatter_rows(grad, self._ctx),)


class EmbeddingDenseBackwardBackward0(Node):
    """Backward of the scatter-add (which is linear in the gradient): gather the rows back."""

    __slots__ = ()

    def apply(self, grad):
        return (_gather_rows(grad, self._ctx, adjoint=True),)


def _gather_rows(src, ctx, adjoint=False):
    """Rows ``src[idx]`` reshaped to ``out_shape``; differentiable in ``src`` (its backward is the scatter-add).

    ``ctx = (idx, n_rows, row_shape, padding_idx, freq_scale, out_shape)``. The forward lookup ignores
    ``padding_idx`` and ``freq_scale`` (they only shape the weight gradient); as the adjoint of the scatter
    (``adjoint=True``, the double-backward path) it applies them, since the scatter did.
    """
    idx, n_rows, row_shape, padding_idx, freq_scale, out_shape = ctx
    rows = src._data.reshape((n_rows,) + row_shape)[idx]
    if adjoint:
        if freq_scale is not None:
            rows = rows * freq_scale.reshape((-1,) + (1,) * (rows.ndim - 1))
        if padding_idx >= 0:
            rows[idx == padding_idx] = 0
    out = wrap(rows.reshape(out_shape))
    if GRAD_ENABLED[0] and src._requires_grad:
        node = EmbeddingBackward0()
        node._ctx = ctx
        record(node, out, src)
    return out


def _scatter_rows(grad, ctx):
    """The weight gradient of a row gather: rows of ``grad`` summed into ``(n_rows,) + row_shape`` at ``idx``."""
    idx, n_rows, row_shape, padding_idx, freq_scale, out_shape = ctx
    g2 = grad._data.reshape((idx.size, -1))
    if freq_scale is not None:
        g2 = g2 * freq_scale[:, None]
    res = _rows_sum(g2, idx, n_rows)
    if padding_idx >= 0:
        res[padding_idx] = 0
    out = wrap(res.reshape((n_rows,) + row_shape))
    if GRAD_ENABLED[0] and grad._requires_grad:
        node = EmbeddingDenseBackwardBackward0()
        node._ctx = ctx
        record(node, out, grad)
    return out


def _take_rows(src, idx, out_shape=None):
    """``src[idx]`` along dim 0 for a flat intp index array, differentiable (gather / scatter-add pair)."""
    row_shape = tuple(src._data.shape[1:])
    if out_shape is None:
        out_shape = (idx.size,) + row_shape
    return _gather_rows(src, (idx, src._data.shape[0], row_shape, -1, None, tuple(out_shape)))


def _segment_sum(rows, seg, n_segments):
    """Sum the rows of ``rows`` (K, ...) into ``n_segments`` rows by segment id ``seg`` (K,), differentiable."""
    row_shape = tuple(rows._data.shape[1:])
    ctx = (seg, n_segments, row_shape, -1, None, tuple(rows._data.shape))
    return _scatter_rows(rows, ctx)


def _renorm_rows(weight, idx, max_norm, norm_type):
    """Rescale (in place, without autograd) the rows of ``weight`` referenced by ``idx`` whose norm exceeds
    ``max_norm``."""
    w = weight._data
    xp = weight._xp
    rows = xp.unique(idx)
    if rows.size == 0:
        return
    sub = w[rows]
    norms = xp.linalg.norm(sub.reshape(rows.size, -1).astype(np.float64), ord=norm_type, axis=1)
    scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    w[rows] = (sub * scale.reshape((-1,) + (1,) * (sub.ndim - 1))).astype(w.dtype)
    weight._bump_version()


def _normalize_padding_idx(padding_idx, num_embeddings):
    if padding_idx is None:
        return -1
    if padding_idx > 0:
        if padding_idx >= num_embeddings:
            raise ValueError("Padding_idx must be within num_embeddings")
    elif padding_idx < 0:
        if padding_idx < -num_embeddings:
            raise ValueError("Padding_idx must be within num_embeddings")
        padding_idx = num_embeddings + padding_idx
    return padding_idx


def _flat_indices(input, num_embeddings):
    idx = input._data.reshape(-1)
    if idx.size:
        lo, hi = idx.min(), idx.max()
        if lo < 0 or hi >= num_embeddings:
            bad = hi if hi >= num_embeddings else lo
            raise IndexError(f"index out of range in self (index {int(bad)} for an embedding with {num_embeddings} "
                             f"rows; valid indices are 0..{num_embeddings - 1})")
    return idx.astype(np.intp, copy=False)


def _freq_scale(idx):
    """Per-index ``1 / count(index)`` for ``scale_grad_by_freq``."""
    counts = _xp_of(idx).bincount(idx)
    return (1.0 / counts[idx])


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    """Look up rows of ``weight`` at the integer indices ``input``: the output has shape ``input.shape + (D,)``.

    Args:
        input (Tensor): integer indices.
        weight (Tensor): the ``(num_embeddings, D)`` table.
        padding_idx (int, optional): the row at this index gets no gradient.
        max_norm (float, optional): rows looked up with a larger ``norm_type``-norm are renormalised in place.
        norm_type (float): the p of the norm for ``max_norm``.
        scale_grad_by_freq (bool): divide the gradient by the frequency of each index in the batch.
        sparse (bool): accepted for compatibility; gradients are dense.
    """
    _check_indices(input, "embedding")
    _tensor_arg(weight, "weight", "embedding", 2)
    if weight.ndim != 2:
        raise RuntimeError(f"'weight' must be 2-D, got a {weight.ndim}-D tensor")
    n = weight._data.shape[0]
    padding_idx = _normalize_padding_idx(padding_idx, n)
    idx = _flat_indices(input, n)
    if max_norm is not None:
        _renorm_rows(weight, idx, max_norm, norm_type)
    freq = _freq_scale(idx).astype(weight._data.dtype) if scale_grad_by_freq and idx.size else None
    row_shape = tuple(weight._data.shape[1:])
    return _gather_rows(weight, (idx, n, row_shape, padding_idx, freq, tuple(input._data.shape) + row_shape))


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sum, mean or max of embedding rows over bags, without materialising the intermediate embeddings per bag.

    Args:
        input (Tensor): ``(B, L)`` indices (each row a bag of fixed length), or 1-D indices with ``offsets``.
        weight (Tensor): the ``(num_embeddings, D)`` table.
        offsets (Tensor, optional): start of each bag in the 1-D ``input``.
        mode (str): ``'sum'``, ``'mean'`` or ``'max'``.
        per_sample_weights (Tensor, optional): weights of each index (``mode='sum'`` only).
        include_last_offset (bool): ``offsets`` has one extra entry, the end of the last bag.
        padding_idx (int, optional): indices equal to it are left out of every bag.
    """
    _check_indices(input, "embedding_bag")
    _tensor_arg(weight, "weight", "embedding_bag", 2)
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"mode has to be one of sum, mean or max, but got {mode}")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "the Pytorch GitHub.")
    if per_sample_weights is not None and per_sample_weights.shape != input.shape:
        raise ValueError(f"embedding_bag: If per_sample_weights ({list(per_sample_weights.shape)}) is not None, then "
                         f"it must have the same shape as the input ({list(input.shape)})")
    n, d = weight._data.shape
    xp = weight._xp
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences. However, found offsets of type Tensor")
        b, length = input._data.shape
        starts = xp.arange(0, b * length, length, dtype=np.intp)
        total = b * length
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        starts = offsets._data.astype(np.intp)
        total = input._data.shape[0]
        if include_last_offset:
            starts = starts[:-1]
        if starts.size and (starts[0] != 0):
            raise ValueError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                             f"position 0. However, got {int(starts[0])}")
        if starts.size and starts[-1] > total:
            raise ValueError(f"offsets[-1] can not be greater than input's length ({total}), but got "
                             f"offsets[-1] of {int(starts[-1])}")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    pad = _normalize_padding_idx(padding_idx, n)
    idx = _flat_indices(input, n)
    if max_norm is not None:
        _renorm_rows(weight, idx, max_norm, norm_type)
    n_bags = starts.size
    # the bag of each input position: the last bag starting at or before it (an empty bag starts where the next does)
    bag_of = xp.searchsorted(starts, xp.arange(total, dtype=np.intp), side="right") - 1
    keep = xp.arange(total, dtype=np.intp) if pad < 0 else xp.flatnonzero(idx != pad)
    idx_k, bag_k = idx[keep], bag_of[keep]
    counts = xp.bincount(bag_k, minlength=n_bags)
    freq = _freq_scale(idx_k).astype(weight._data.dtype) if scale_grad_by_freq and idx_k.size else None
    plan = _BagPlan(mode, idx_k, bag_k, counts, keep, total, n_bags, n, d, pad, freq)
    psw = per_sample_weights
    # One node for the whole op (grad_fn EmbeddingBagBackward0 in every mode, as in PyTorch): the forward runs
    # without recording, the node's backward is written with differentiable ember ops (so it differentiates again).
    prev = GRAD_ENABLED[0]
    GRAD_ENABLED[0] = False
    try:
        out = _bag_forward(weight, psw, plan)
    finally:
        GRAD_ENABLED[0] = prev
    if GRAD_ENABLED[0] and (weight._requires_grad or (psw is not None and psw._requires_grad)):
        node = EmbeddingBagBackward0()
        node.plan = plan
        node.save(weight, psw)
        record(node, out, weight, psw)
    return out


class _BagPlan:
    """What an embedding_bag call reduces: kept indices ``idx`` with their bag ``bag``, bag sizes ``counts``, the
    kept positions ``keep`` of the ``total`` inputs; for ``mode='max'`` the forward adds the bags that are not
    empty (``nonempty``) and, per bag and column, the position in ``idx`` of the maximal row (``first``)."""

    __slots__ = ("mode", "idx", "bag", "counts", "keep", "total", "n_bags", "n", "d", "pad", "freq", "nonempty",
                 "first")

    def __init__(self, mode, idx, bag, counts, keep, total, n_bags, n, d, pad, freq):
        self.mode, self.idx, self.bag, self.counts, self.keep, self.total = mode, idx, bag, counts, keep, total
        self.n_bags, self.n, self.d, self.pad, self.freq = n_bags, n, d, pad, freq
        self.nonempty = self.first = None

    def mean_scale(self, dtype):
        xp = _xp_of(self.counts)
        return xp.where(self.counts > 0, 1.0 / xp.maximum(self.counts, 1), 0.0).astype(dtype)


def _bag_forward(weight, psw, plan):
    rows = weight._data[plan.idx]
    if plan.mode == "max":
        xp = weight._xp
        counts = plan.counts
        nonempty = xp.flatnonzero(counts)
        out = xp.zeros((plan.n_bags, plan.d), dtype=rows.dtype)
        plan.nonempty, plan.first = nonempty, xp.zeros((0, plan.d), dtype=np.intp)
        if nonempty.size:
            seg_starts = (xp.cumsum(counts) - counts)[nonempty]                # where each non-empty bag's rows start
            out[nonempty] = xp.maximum.reduceat(rows, seg_starts, axis=0)
            hit = rows == out[plan.bag]                                         # rows equal to their bag's maximum
            pos = xp.where(hit, xp.arange(rows.shape[0])[:, None], rows.shape[0])
            plan.first = xp.minimum.reduceat(pos, seg_starts, axis=0)         # first maximal row, as PyTorch picks
        return wrap(out)
    if psw is not None:
        rows = rows * psw._data.reshape(-1)[plan.keep][:, None]
    out = _rows_sum(rows, plan.bag, plan.n_bags)
    if plan.mode == "mean":
        out *= plan.mean_scale(out.dtype)[:, None]
    return wrap(out)


class EmbeddingBagBackward0(Node):
    """Backward of ``embedding_bag``: scatter the bag gradients back to the rows that made each bag (scaled by the
    per-sample weights or the bag size; in max mode only the maximal row of each column), and, for the per-sample
    weights, the dot product of each row with its bag's gradient."""

    __slots__ = ("plan",)

    def apply(self, grad):
        weight, psw = self.saved_tensors
        plan = self.plan
        n, d = plan.n, plan.d
        g_weight = g_psw = None
        if plan.mode == "max":
            if self.next_functions[0] is not None:
                flat_pos = (plan.idx[plan.first] * d + grad._xp.arange(d)).reshape(-1)
                picked = grad if plan.nonempty.size == plan.n_bags else _take_rows(grad, plan.nonempty)
                ctx = (flat_pos, n * d, (), -1, None, (flat_pos.size,))
                g_weight = _scatter_rows(picked.reshape(-1), ctx).reshape(n, d)
            return g_weight, None
        g_rows = _take_rows(grad, plan.bag)                                       # (K, D): each row's bag gradient
        if plan.mode == "mean":
            g_rows = g_rows * wrap(plan.mean_scale(grad._data.dtype)[plan.bag][:, None])
        psw_k = None
        if psw is not None:
            psw_k = psw.reshape(-1)
            if plan.keep.size != plan.total:
                psw_k = _take_rows(psw_k, plan.keep)
        if self.next_functions[0] is not None:
            scaled = g_rows if psw_k is None else g_rows * psw_k.unsqueeze(1)
            g_weight = _scatter_rows(scaled, (plan.idx, n, (d,), plan.pad, plan.freq, (plan.idx.size, d)))
        if psw is not None and self.next_functions[1] is not None:
            g_k = (g_rows * _take_rows(weight, plan.idx)).sum(1)
            if plan.keep.size != plan.total:  # padded positions get no gradient
                g_k = _segment_sum(g_k.unsqueeze(1), plan.keep, plan.total)
            g_psw = g_k.reshape(psw.shape)
        return g_weight, g_psw


# -------------------------------------------------------------------------------------------- vector utilities
def one_hot(tensor, num_classes=-1):
    """One-hot encode an integer tensor: the result has shape ``tensor.shape + (num_classes,)`` and dtype int64.

    ``num_classes=-1`` uses ``tensor.max() + 1``.
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"one_hot(): argument 'tensor' (position 1) must be Tensor, not {type(tensor).__name__}")
    t = tensor._data
    if t.dtype.kind not in "iu":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if t.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(t.max()) + 1
    if t.size:
        if t.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if t.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    return wrap(_one_hot_array(tensor._xp, t, num_classes, np.int64))


def _one_hot_array(xp, classes, num_classes, dtype):
    """``classes.shape + (num_classes,)`` zeros of ``dtype`` with a 1 at each class index (no range checks): one
    flat scatter, faster than comparing every entry with every class."""
    flat = classes.reshape(-1)
    out = xp.zeros(flat.size * num_classes, dtype=dtype)
    out[xp.arange(flat.size) * num_classes + flat] = 1
    return out.reshape(classes.shape + (num_classes,))


def _vector_norm(x, p, dim, keepdim):
    """The p-norm of ``x`` over ``dim`` composed from ember ops (differentiable to any order away from 0)."""
    if p == 2:
        return (x * x).sum(dim, keepdim=keepdim).sqrt()
    if p == 1:
        return x.abs().sum(dim, keepdim=keepdim)
    if p == float("inf"):
        return x.abs().amax(dim, keepdim=keepdim)
    return (x.abs() ** p).sum(dim, keepdim=keepdim) ** (1.0 / p)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``x / max(||x||_p, eps)`` along ``dim``.

    Args:
        input (Tensor): input of any shape.
        p (float): the exponent of the norm. Default: 2.
        dim (int or tuple): the dimension(s) to normalise over. Default: 1.
        eps (float): lower bound of the norm, to avoid division by zero.
    """
    _tensor_arg(input, "input", "normalize", 1)
    norm = _vector_norm(input, p, dim, True).clamp_min(eps)
    return input / norm


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``x1 . x2 / (max(||x1||, eps) * max(||x2||, eps))`` along ``dim`` (the inputs broadcast)."""
    _tensor_arg(x1, "x1", "cosine_similarity", 1)
    _tensor_arg(x2, "x2", "cosine_similarity", 2)
    n1 = _vector_norm(x1, 2, dim, True).clamp_min(eps)
    n2 = _vector_norm(x2, 2, dim, True).clamp_min(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``||x1 - x2 + eps||_p`` over the last dimension."""
    _tensor_arg(x1, "x1", "pairwise_distance", 1)
    _tensor_arg(x2, "x2", "pairwise_distance", 2)
    out_ndim = max(x1.ndim, x2.ndim)
    diff = x1 - x2 + eps
    if out_ndim == 0:
        return diff.abs()
    return _vector_norm(diff, p, -1, keepdim)


def pdist(input, p=2):
    """Pairwise p-norm distances between the rows of a 2-D input (the upper triangle, row by row)."""
    _tensor_arg(input, "input", "pdist", 1)
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    n = input.shape[0]
    i, j = input._xp.triu_indices(n, 1)
    a = _take_rows(input, i.astype(np.intp))
    b = _take_rows(input, j.astype(np.intp))
    return _vector_norm(a - b, p, -1, False)
