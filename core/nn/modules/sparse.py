"""Embedding layers: ``Embedding`` (a lookup table) and ``EmbeddingBag`` (reduced bags of lookups)."""
from __future__ import annotations

from ...ops.creation import empty
from ...tensor import Tensor
from .. import init
from ..functional._linear import embedding, embedding_bag
from ..parameter import Parameter
from .module import Module

__all__ = ["Embedding", "EmbeddingBag"]


def _check_padding_idx(padding_idx, num_embeddings):
    if padding_idx is not None:
        if padding_idx > 0 and padding_idx >= num_embeddings:
            raise ValueError(f"Padding_idx must be within num_embeddings (got padding_idx={padding_idx} for "
                             f"num_embeddings={num_embeddings})")
        if padding_idx < 0:
            if padding_idx < -num_embeddings:
                raise ValueError(f"Padding_idx must be within num_embeddings (got padding_idx={padding_idx} for "
                                 f"num_embeddings={num_embeddings})")
            padding_idx = num_embeddings + padding_idx
    return padding_idx


def _initial_weight(_weight, num_embeddings, embedding_dim, device, dtype, padding_idx, freeze=False):
    if _weight is None:
        weight = Parameter(empty((num_embeddings, embedding_dim), device=device, dtype=dtype),
                           requires_grad=not freeze)
        return weight, True
    if list(_weight.shape) != [num_embeddings, embedding_dim]:
        raise ValueError("Shape of weight does not match num_embeddings and embedding_dim")
    return Parameter(_weight, requires_grad=not freeze), False


class Embedding(Module):
    """A lookup table: maps integer indices to rows of a learnable ``(num_embeddings, embedding_dim)`` matrix.

    Args:
        num_embeddings (int): size of the dictionary.
        embedding_dim (int): size of each embedding vector.
        padding_idx (int, optional): the row at this index is initialised to zeros and receives no gradient.
        max_norm (float, optional): rows looked up with a norm larger than this are renormalised in place.
        norm_type (float): the p of the norm used by ``max_norm``. Default: 2.
        scale_grad_by_freq (bool): scale gradients by the inverse frequency of the indices in the batch.
        sparse (bool): accepted for compatibility; gradients are dense.

    Attributes:
        weight: the ``(num_embeddings, embedding_dim)`` table, initialised from N(0, 1).
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx=None, max_norm=None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False, _weight=None,
                 _freeze: bool = False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = _check_padding_idx(padding_idx, num_embeddings)
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.weight, fresh = _initial_weight(_weight, num_embeddings, embedding_dim, device, dtype, padding_idx,
                                             _freeze)
        self.sparse = sparse
        if fresh:
            self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw the table from N(0, 1) and zero the padding row."""
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self) -> None:
        if self.padding_idx is not None:
            self.weight._data[self.padding_idx] = 0
            self.weight._bump_version()

    def forward(self, input):
        return embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                         self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze: bool = True, padding_idx=None, max_norm=None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False):
        """An Embedding whose table is ``embeddings`` (2-D); ``freeze=True`` keeps it fixed during training."""
        if not isinstance(embeddings, Tensor) or embeddings.ndim != 2:
            raise ValueError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, _freeze=freeze,
                   padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


class EmbeddingBag(Module):
    """Sums, averages or takes the max of bags of embeddings, without instantiating the per-index embeddings.

    Args:
        num_embeddings (int): size of the dictionary.
        embedding_dim (int): size of each embedding vector.
        max_norm, norm_type, scale_grad_by_freq, sparse: as in :class:`Embedding`.
        mode (str): ``'sum'``, ``'mean'`` (default) or ``'max'``.
        include_last_offset (bool): ``offsets`` has one more entry, the end of the last bag.
        padding_idx (int, optional): this index is left out of every bag.

    Call it as ``bag(input, offsets=None, per_sample_weights=None)``.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm=None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False, _weight=None,
                 include_last_offset: bool = False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        if mode not in ("sum", "mean", "max"):
            raise ValueError(f"mode has to be one of sum, mean or max, but got {mode!r}")
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.padding_idx = _check_padding_idx(padding_idx, num_embeddings)
        self.weight, fresh = _initial_weight(_weight, num_embeddings, embedding_dim, device, dtype, padding_idx)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset
        if fresh:
            self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw the table from N(0, 1) and zero the padding row."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            self.weight._data[self.padding_idx] = 0
            self.weight._bump_version()

    def forward(self, input, offsets=None, per_sample_weights=None):
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                             self.mode, self.sparse, per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        s += f", mode={self.mode}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze: bool = True, max_norm=None, norm_type: float = 2.0,
                        scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                        include_last_offset: bool = False, padding_idx=None):
        """An EmbeddingBag whose table is ``embeddings`` (2-D); ``freeze=True`` keeps it fixed."""
        if not isinstance(embeddings, Tensor) or embeddings.ndim != 2:
            raise ValueError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, max_norm=max_norm,
                  norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  include_last_offset=include_last_offset, padding_idx=padding_idx)
        bag.weight.requires_grad_(not freeze)
        return bag
