"""Variable-length sequence helpers: ``pad_sequence``, ``PackedSequence`` and the packing functions.

All of them are differentiable: the reshuffling of rows is one gather (or one scatter) whose backward is the other,
so gradients (and gradients of gradients) flow back to the original sequences.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ...ops._base import wrap
from ...ops.shape import cat
from ...tensor import Tensor
from ..functional._linear import _segment_sum, _take_rows

__all__ = ["PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence", "pack_sequence",
           "unpad_sequence", "unpack_sequence", "invert_permutation"]


def invert_permutation(permutation):
    """The inverse of a permutation tensor (None stays None)."""
    if permutation is None:
        return None
    p = permutation._data.astype(np.int64)
    xp = permutation._xp
    out = xp.empty_like(p)
    out[p] = xp.arange(p.size, dtype=np.int64)
    return wrap(out)


class PackedSequence(namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """The packed form of a batch of variable-length sequences (see :func:`pack_padded_sequence`).

    Attributes:
        data (Tensor): the time steps of all sequences, time-major: step 0 of every sequence, then step 1 of the
            sequences that have one, and so on.
        batch_sizes (Tensor): int64; ``batch_sizes[t]`` is the number of sequences longer than ``t``.
        sorted_indices (Tensor, optional): the order (by decreasing length) the sequences were packed in.
        unsorted_indices (Tensor, optional): the inverse of ``sorted_indices``.
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            raise ValueError("PackedSequence needs batch_sizes; build packed sequences with pack_padded_sequence or "
                             "pack_sequence")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs) -> "PackedSequence":
        """Move/cast ``data`` (the index tensors stay int64 on the CPU)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self) -> "PackedSequence":
        """A copy with ``data`` on the CPU."""
        return self.to("cpu")

    def double(self) -> "PackedSequence":
        """A copy with float64 ``data``."""
        return self.to("float64")

    def float(self) -> "PackedSequence":
        """A copy with float32 ``data``."""
        return self.to("float32")

    def half(self) -> "PackedSequence":
        """A copy with float16 ``data``."""
        return self.to("float16")

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        """Always False: ember has no pinned memory."""
        return False


def _lengths_array(lengths):
    if isinstance(lengths, Tensor):
        arr = lengths._data
    else:
        arr = np.asarray(lengths)
    arr = np.asarray(arr).astype(np.int64).reshape(-1)
    return arr


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True) -> PackedSequence:
    """Pack a padded batch of variable-length sequences.

    Args:
        input (Tensor): ``(T, B, *)``, or ``(B, T, *)`` with ``batch_first=True``.
        lengths (Tensor or list of int): the length of each sequence.
        batch_first (bool): the layout of ``input``.
        enforce_sorted (bool): require ``lengths`` sorted in decreasing order; with ``False`` the sequences are
            sorted here and ``unsorted_indices`` restores the order.
    """
    lens = _lengths_array(lengths)
    if input.ndim < 2:
        raise ValueError(f"pack_padded_sequence: input must have at least 2 dims (T, B, *), got {input.ndim}")
    b_dim = 0 if batch_first else 1
    b = input.shape[b_dim]
    if lens.size != b:
        raise ValueError(f"Expected `len(lengths)` to be equal to batch_size, but got {lens.size} (batch_size={b})")
    if lens.size and lens.min() <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    t_max = input.shape[1 - b_dim]
    if lens.size and lens.max() > t_max:
        raise RuntimeError(f"pack_padded_sequence: a length ({int(lens.max())}) exceeds the padded length {t_max}")
    if enforce_sorted:
        if np.any(lens[:-1] < lens[1:]):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                               "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                               "sidestep this requirement if you do not need ONNX exportability.")
        order = np.arange(b)
        sorted_indices = None
    else:
        order = np.argsort(-lens, kind="stable")
        sorted_indices = wrap(order.astype(np.int64))
    slens = lens[order]
    t_used = int(slens[0]) if slens.size else 0
    batch_sizes = np.array([(slens > t).sum() for t in range(t_used)], dtype=np.int64)
    # row index (in the flattened (T, B) or (B, T) layout) of each packed step
    rows = []
    for t in range(t_used):
        bs = order[:batch_sizes[t]]
        rows.append(bs * t_max + t if batch_first else t * b + bs)
    flat_idx = np.concatenate(rows).astype(np.intp) if rows else np.zeros(0, dtype=np.intp)
    feat = tuple(input.shape[2:])
    data = _take_rows(input.reshape((-1,) + feat), flat_idx)
    return PackedSequence(data, wrap(batch_sizes), sorted_indices, invert_permutation(sorted_indices))


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Undo :func:`pack_padded_sequence`: returns ``(padded, lengths)`` in the original batch order.

    Args:
        sequence (PackedSequence): the packed batch.
        batch_first (bool): return ``(B, T, *)`` instead of ``(T, B, *)``.
        padding_value (float): the value of padded steps.
        total_length (int, optional): pad to this length instead of the longest sequence's.
    """
    data, batch_sizes, sorted_indices, unsorted_indices = sequence
    bsz = batch_sizes._data.astype(np.int64)
    b = int(bsz[0]) if bsz.size else 0
    t_max = int(bsz.size)
    if total_length is not None:
        if total_length < t_max:
            raise ValueError(f"Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {t_max}")
        t_out = total_length
    else:
        t_out = t_max
    order = sorted_indices._data.astype(np.int64) if sorted_indices is not None else np.arange(b)
    rows = []
    for t in range(t_max):
        bs = order[:bsz[t]]
        rows.append(bs * t_out + t if batch_first else t * b + bs)
    flat_idx = np.concatenate(rows).astype(np.intp) if rows else np.zeros(0, dtype=np.intp)
    feat = tuple(data.shape[1:])
    out = _segment_sum(data, flat_idx, t_out * b)
    if padding_value != 0:
        pad = data._xp.full(t_out * b, padding_value, dtype=data._data.dtype)
        pad[flat_idx] = 0
        out = out + wrap(pad.reshape((-1,) + (1,) * len(feat)))
    shape = (b, t_out) + feat if batch_first else (t_out, b) + feat
    lengths = np.zeros(b, dtype=np.int64)
    # lengths of the sorted sequences: sequence k is longer than t iff k < batch_sizes[t]
    for k in range(b):
        lengths[order[k]] = int((bsz > k).sum())
    return out.reshape(shape), wrap(lengths)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack variable-length sequences ``(L_i, *)`` into one padded tensor.

    Args:
        sequences (list of Tensor): the sequences.
        batch_first (bool): return ``(B, T, *)`` instead of ``(T, B, *)``.
        padding_value (float): the value of the padding.
        padding_side (str): ``'right'`` (default) or ``'left'``.
    """
    if isinstance(sequences, Tensor):
        sequences = list(sequences.unbind(0))
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    feat = tuple(sequences[0].shape[1:])
    for i, s in enumerate(sequences):
        if not isinstance(s, Tensor):
            raise TypeError(f"pad_sequence: sequences[{i}] must be a Tensor, got {type(s).__name__}")
        if tuple(s.shape[1:]) != feat:
            raise RuntimeError(f"pad_sequence: all sequences must have the same trailing dims: sequences[0] has "
                               f"{list(feat)} but sequences[{i}] has {list(s.shape[1:])}")
    lens = np.array([s.shape[0] for s in sequences], dtype=np.int64)
    b, t_max = len(sequences), int(lens.max())
    rows = []
    for i, n in enumerate(lens):
        steps = np.arange(n) + (t_max - n if padding_side == "left" else 0)
        rows.append(i * t_max + steps if batch_first else steps * b + i)
    flat_idx = np.concatenate(rows).astype(np.intp)
    data = cat([s.reshape((s.shape[0],) + feat) for s in sequences]) if len(sequences) > 1 else sequences[0]
    out = _segment_sum(data, flat_idx, b * t_max)
    if padding_value != 0:
        pad = data._xp.full(b * t_max, padding_value, dtype=data._data.dtype)
        pad[flat_idx] = 0
        out = out + wrap(pad.reshape((-1,) + (1,) * len(feat)))
    return out.reshape((b, t_max) + feat if batch_first else (t_max, b) + feat)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Split a padded batch back into a list of sequences of the given ``lengths``."""
    lens = _lengths_array(lengths)
    x = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    return [x[i, :int(n)] for i, n in enumerate(lens)]


def pack_sequence(sequences, enforce_sorted=True) -> PackedSequence:
    """Pack a list of variable-length sequences (``pad_sequence`` then ``pack_padded_sequence``)."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """Unpack a :class:`PackedSequence` into the list of its sequences."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
