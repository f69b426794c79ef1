"""``ember.distributed``: process groups and collective communication, with ``torch.distributed``'s API.

Two backends:

* ``"local"``: N processes on one machine, no MPI needed. The ranks meet through ``env://``, ``tcp://host:port`` or
  ``file:///path``; large payloads move through shared memory, small ones over loopback sockets.
* ``"mpi"``: mpi4py (``pip install 'ember[mpi]'``), for one or many machines: ``mpiexec -n N python train.py``,
  ``srun``, any MPI. Ranks and sizes come from MPI.

Start N local processes with the launcher (the same as ``torchrun``)::

    ember-run --nproc-per-node 4 train.py --lr 0.1      # or: python -m ember.core.distributed.run ...

and in ``train.py``::

    import ember as em
    import ember.distributed as dist

    dist.init_process_group()                 # "local" here, "mpi" under mpiexec/srun
    model = em.nn.parallel.DistributedDataParallel(MyModel())
    sampler = em.data.DistributedSampler(dataset)
    ...

Every operation waits at most the group's ``timeout``; a rank that dies makes the others fail at once with an
error naming it, and calls that disagree across ranks (shapes, dtypes, order) raise an error listing every rank's
arguments.
"""
from .._lazy import lazy_attributes as _lazy_attributes

# Names load on first use (``import ember.nn`` reaches this package through DistributedDataParallel and should not
# pay for the whole of it).
_SOURCES = {
    "collectives": ("all_gather", "all_gather_into_tensor", "all_reduce", "all_to_all", "barrier", "broadcast",
                    "gather", "irecv", "isend", "monitored_barrier", "recv", "reduce", "reduce_scatter",
                    "reduce_scatter_tensor", "scatter", "send"),
    "environment": ("ClusterEnvironment", "detect_environment"),
    "errors": ("DistBackendError", "DistError", "DistNetworkError", "DistStoreError"),
    "join": ("Join", "Joinable", "JoinHook"),
    "objects": ("all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list"),
    "process_group": ("Backend", "GroupMember", "ProcessGroup", "default_pg_timeout", "destroy_process_group",
                      "get_backend", "get_global_rank", "get_group_rank", "get_node_local_rank",
                      "get_process_group_ranks", "get_rank", "get_world_size", "group", "init_process_group",
                      "is_available", "is_initialized", "is_mpi_available", "new_group"),
    "reduce_op": ("ReduceOp",),
    "work": ("Work",),
}
_WHERE = {name: module for module, names in _SOURCES.items() for name in names}


__getattr__, __dir__ = _lazy_attributes(globals(), {name: (f".{module}", name) for name, module in _WHERE.items()},
                                       public_name="ember.distributed")


__all__ = [
    "Backend", "ClusterEnvironment", "DistBackendError", "DistError", "DistNetworkError", "DistStoreError",
    "GroupMember", "Join", "JoinHook", "Joinable", "ProcessGroup", "ReduceOp", "Work", "all_gather",
    "all_gather_into_tensor", "all_gather_object", "all_reduce", "all_to_all", "barrier", "broadcast",
    "broadcast_object_list", "default_pg_timeout", "destroy_process_group", "detect_environment", "gather",
    "gather_object", "get_backend", "get_global_rank", "get_group_rank", "get_node_local_rank",
    "get_process_group_ranks", "get_rank", "get_world_size", "group", "init_process_group", "irecv",
    "is_available", "is_initialized", "is_mpi_available", "isend", "monitored_barrier", "new_group", "recv",
    "reduce", "reduce_scatter", "reduce_scatter_tensor", "scatter", "scatter_object_list", "send",
]
