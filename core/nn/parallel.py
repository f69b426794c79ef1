"""``ember.nn.parallel``: :class:`DistributedDataParallel`, data-parallel training over a process group.

Each process holds a replica of the model and trains on its own share of the data (a ``DistributedSampler``).
Wrapping the model broadcasts rank 0's parameters and buffers, so all replicas start equal; after every
``loss.backward()`` the gradients are averaged across the ranks (in a few flat buckets, overlapping with the rest of
backward), so the optimizers take identical steps and the replicas stay equal.
"""
from __future__ import annotations

import contextlib
from typing import Any, Dict, Iterator, List, Optional

import numpy as np

from ..autograd.grad_mode import GRAD_ENABLED
from ..distributed.join import Join, Joinable, JoinHook, _JoinConfig
from ..tensor import Tensor
from .modules.module import Module

__all__ = ["DistributedDataParallel", "DataParallel"]


def _coalesced_broadcast(tensors: List[Tensor], src_group_rank: int, pg, cap_bytes: int) -> None:
    """Broadcast ``tensors`` from ``src_group_rank`` in a few flat buffers (one dtype each, at most ``cap_bytes``)."""
    from ..distributed.consistency import make_meta
    groups: Dict[Any, List[Tensor]] = {}
    for t in tensors:
        groups.setdefault(t._data.dtype, []).append(t)
    for dtype, items in groups.items():
        chunk: List[Tensor] = []
        size = 0
        for t in items + [None]:
            if t is not None and (not chunk or size + t._data.nbytes <= cap_bytes):
                chunk.append(t)
                size += t._data.nbytes
                continue
            if chunk:
                flat = np.concatenate([c._data.reshape(-1) for c in chunk]) if len(chunk) > 1 else \
                    np.ascontiguousarray(chunk[0]._data).reshape(-1).copy()
                meta = make_meta("broadcast", flat.dtype, flat.shape, src_group_rank)
                pg._impl.broadcast(flat, src_group_rank, meta).wait()
                if pg.rank() != src_group_rank:
                    off = 0
                    for c in chunk:
                        n = c._data.size
                        c._data[...] = flat[off:off + n].reshape(c._data.shape)
                        c._bump_version()
                        off += n
            chunk, size = ([t], t._data.nbytes) if t is not None else ([], 0)


class DistributedDataParallel(Module, Joinable):
    """Data parallelism over a process group, with ``torch.nn.parallel.DistributedDataParallel``'s behaviour.

    Construction broadcasts rank 0's parameters and buffers to every rank. Each ``forward`` (with grad enabled)
    prepares a gradient reduction that runs during ``loss.backward()``: gradients are averaged across the ranks in
    flat buckets of ``bucket_cap_mb`` (one collective per bucket), and when backward returns every ``.grad`` holds
    the average. With ``broadcast_buffers`` (default), rank 0's buffers (e.g. BatchNorm statistics) are broadcast
    before each forward.

    Args:
        module (Module): the model (its parameters must have the same shapes on every rank).
        device_ids: must be ``None`` (CPU modules), as in PyTorch.
        output_device: must be ``None``.
        dim (int): accepted for compatibility.
        broadcast_buffers (bool): sync buffers from rank 0 at the start of every forward. Default: ``True``.
        init_sync (bool): broadcast rank 0's state at construction. Default: ``True``.
        process_group (ProcessGroup, optional): the group to average over (default: the world).
        bucket_cap_mb (float, optional): bucket size in MiB. Default: ``25``.
        find_unused_parameters (bool): walk the autograd graph of the forward outputs to find parameters that
            will not get a gradient (they are counted as ready with zeros; if no rank used one, its ``.grad`` stays
            ``None``). Needed when part of the model is skipped in some iterations. Default: ``False``.
        gradient_as_bucket_view (bool): accepted; gradients are always views into the buckets after a reduction.
        static_graph (bool): accepted for compatibility.

    Example::

        dist.init_process_group()
        model = DistributedDataParallel(Net())
        opt = em.optim.SGD(model.parameters(), lr=0.1)
        for x, y in loader:                       # loader uses a DistributedSampler
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()   # gradients are averaged here
            opt.step()

    ``no_sync()`` skips the reduction (gradient accumulation); ``join()`` handles ranks with fewer batches.
    ``state_dict()`` keys carry the ``module.`` prefix, as in PyTorch (save ``model.module.state_dict()`` for a
    checkpoint that loads into the bare model).
    """

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0,
                 broadcast_buffers: bool = True, init_sync: bool = True, process_group=None,
                 bucket_cap_mb: Optional[float] = None, find_unused_parameters: bool = False,
                 check_reduction: bool = False, gradient_as_bucket_view: bool = False, static_graph: bool = False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None, mixed_precision=None,
                 device_mesh=None, skip_all_reduce_unused_params: bool = False) -> None:
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel expects an ember.nn.Module, got {type(module).__name__}")
        if device_ids is not None or output_device is not None:
            raise ValueError(
                "DistributedDataParallel device_ids and output_device arguments only work with GPU modules; ember "
                f"modules live on the CPU, so leave them as None (got device_ids={device_ids!r}, output_device="
                f"{output_device!r})")
        if mixed_precision is not None or device_mesh is not None:
            raise ValueError("DistributedDataParallel(mixed_precision=..., device_mesh=...) is not supported by "
                             "ember")
        from .. import distributed as dist
        from ..distributed.process_group import _resolve
        pg = _resolve(process_group)
        if pg is None:
            raise ValueError("DistributedDataParallel: this process is not a member of process_group")
        self.module = module
        object.__setattr__(self, "process_group", pg)
        object.__setattr__(self, "_dist", dist)
        self.dim = dim
        self.broadcast_buffers = bool(broadcast_buffers)
        self.find_unused_parameters = bool(find_unused_parameters)
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * (1 << 20))
        ignored = set(getattr(module, "_ddp_params_and_buffers_to_ignore", ()) or ())
        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad and n not in ignored]
        if not named:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter that "
                               "requires a gradient.")
        self._module_buffers = [b for n, b in module.named_buffers() if n not in ignored and b is not None]
        self._verify_same_model(named)
        if init_sync:
            states = list(module.parameters()) + self._module_buffers
            _coalesced_broadcast(states, 0, pg, self.bucket_bytes_cap)
        from ..distributed.reducer import Reducer
        reducer = Reducer(named, pg, self.bucket_bytes_cap / (1 << 20), self.find_unused_parameters)
        object.__setattr__(self, "reducer", reducer)
        object.__setattr__(self, "_join_config", _JoinConfig(False, False, None))
        self._authoritative_rank = 0

    # ------------------------------------------------------------------------------------------------ checks
    def _verify_same_model(self, named) -> None:
        pg = self.process_group
        layout = [(n, list(p._data.shape), p._data.dtype.str) for n, p in named]
        everyone: List[Any] = [None] * pg.size()
        self._dist.all_gather_object(everyone, layout, group=pg)
        ref = everyone[0]
        for r, other in enumerate(everyone):
            if other == ref:
                continue
            if len(other) != len(ref):
                raise RuntimeError(f"DDP expects the same model across all ranks, but rank {pg._ranks[r]} has "
                                   f"{len(other)} parameters that require grad, while rank {pg._ranks[0]} has "
                                   f"{len(ref)}")
            for (n0, s0, d0), (n1, s1, d1) in zip(ref, other):
                if (n0, s0, d0) != (n1, s1, d1):
                    raise RuntimeError(
                        f"DDP expects the same model across all ranks, but parameter {n1!r} is {d1} {tuple(s1)} on "
                        f"rank {pg._ranks[r]} and {n0!r} is {d0} {tuple(s0)} on rank {pg._ranks[0]}")

    # ---------------------------------------------------------------------------------------------- forward
    def forward(self, *inputs, **kwargs):
        """Run the module; with grad enabled (and outside ``no_sync``), prepare the gradient average that the next
        backward performs. Buffers are synced from rank 0 first when ``broadcast_buffers`` is set."""
        reducer = self.reducer
        if reducer.pending:
            names = reducer.unready_parameter_names()
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new one. This error "
                "indicates that your module has parameters that were not used in producing loss. You can enable "
                "unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
                "`DistributedDataParallel`, and by making sure all `forward` function outputs participate in "
                "calculating loss. Parameters which did not receive grad for rank "
                f"{self._dist.get_rank()}: {', '.join(names)}")
        grad_sync = bool(GRAD_ENABLED[0]) and self.require_backward_grad_sync
        self._notify_join(grad_sync)
        if self._will_sync_buffers():
            self._sync_buffers()
        output = self.module(*inputs, **kwargs)
        if grad_sync:
            reducer.prepare_for_backward(output if self.find_unused_parameters else None)
        return output

    def _will_sync_buffers(self) -> bool:
        return self.require_forward_param_sync and self.broadcast_buffers and bool(self._module_buffers)

    def _sync_buffers(self) -> None:
        _coalesced_broadcast(self._module_buffers, self._authoritative_rank, self.process_group,
                             self.bucket_bytes_cap)

    def _notify_join(self, grad_sync: bool) -> None:
        table = Join.notify_join_context(self, flag=grad_sync)
        if table is None:
            self._authoritative_rank = 0
            return
        active = np.flatnonzero(table[:, 0])
        self._authoritative_rank = int(active[0])
        divide_by_initial = getattr(self, "_divide_by_initial_world_size", True)
        self.reducer.divisor = float(self.process_group.size() if divide_by_initial else len(active))

    def prepare_for_backward(self, outputs) -> None:
        """Arm the gradient reduction of the next backward when the forward did not run through this wrapper
        (the Trainer calls the LightningModule's ``training_step`` directly). ``outputs``: the loss."""
        self.reducer.prepare_for_backward(outputs if self.find_unused_parameters else None)

    # ----------------------------------------------------------------------------------------- contexts
    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Skip the gradient reduction of the backward passes inside the block: gradients accumulate locally, and
        the first synchronised backward after it averages the accumulated sum.

        Example::

            with ddp.no_sync():
                for x in micro_batches[:-1]:
                    ddp(x).sum().backward()
            ddp(micro_batches[-1]).sum().backward()   # reduces everything accumulated
        """
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def join(self, divide_by_initial_world_size: bool = True, enable: bool = True,
             throw_on_early_termination: bool = False) -> Join:
        """A :class:`~ember.distributed.Join` context manager for inputs of uneven size across ranks.

        Args:
            divide_by_initial_world_size (bool): divide the gradient sums by the full world size even when some
                ranks have joined (``True``, the default) or by the number of ranks still training.
            enable (bool): ``False`` makes it a no-op.
            throw_on_early_termination (bool): raise on all ranks as soon as one runs out of data.
        """
        return Join([self], enable, throw_on_early_termination,
                    divide_by_initial_world_size=divide_by_initial_world_size)

    def join_hook(self, **kwargs) -> JoinHook:
        """The hook that shadows this model's collectives while its rank has joined."""
        object.__setattr__(self, "_divide_by_initial_world_size", kwargs.get("divide_by_initial_world_size", True))
        return _DDPJoinHook(self)

    @property
    def join_process_group(self):
        """The group of the join's status collective: this model's process group."""
        return self.process_group

    # -------------------------------------------------------------------------------------------- teardown
    def _remove_hooks(self) -> None:
        """Detach the gradient hooks (the model keeps working as a plain module)."""
        self.reducer.remove_hooks()


class _DDPJoinHook(JoinHook):
    """Shadows DDP's collectives for the ranks still training: buffer broadcast and bucket all-reduces."""

    def __init__(self, ddp: DistributedDataParallel):
        self.ddp = ddp

    def main_hook(self) -> None:
        """Take part in one iteration of the active ranks: the buffer broadcast, then zeros for every bucket."""
        ddp = self.ddp
        table = ddp._join_config.join.table
        active = np.flatnonzero(table[:, 0])
        ddp._authoritative_rank = int(active[0])
        if ddp._will_sync_buffers():
            ddp._sync_buffers()
        if table[:, 1].any():  # a synchronised backward follows on the active ranks
            ddp.reducer.shadow_backward()

    def post_hook(self, is_last_joiner: bool) -> None:
        """Copy the model of the last rank to finish to every rank."""
        ddp = self.ddp
        src = ddp._join_config.join.last_joiner_rank()
        states = list(ddp.module.parameters()) + ddp._module_buffers
        _coalesced_broadcast(states, src, ddp.process_group, ddp.bucket_bytes_cap)


class DataParallel(Module):
    """Single-process data parallelism splits batches across GPUs; without GPUs it runs ``module`` unchanged, as
    PyTorch's does. For several CPU processes use :class:`DistributedDataParallel`.

    Args:
        module (Module): the model.
        device_ids, output_device: must be ``None`` (there are no GPUs).
        dim (int): accepted for compatibility.
    """

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0) -> None:
        super().__init__()
        if device_ids or output_device is not None:
            raise ValueError(f"DataParallel(device_ids={device_ids!r}, output_device={output_device!r}): ember has no "
                             "GPUs; leave them as None")
        self.module = module
        self.device_ids: List[int] = []
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        """Run the wrapped module."""
        return self.module(*inputs, **kwargs)
