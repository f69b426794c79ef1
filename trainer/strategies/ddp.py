"""``DDPStrategy``: data-parallel training over several processes (``Trainer(strategy="ddp", devices=N)``).

Launching, as Lightning does:

* under ``mpiexec``/``srun``/``ember-run`` (or any torchrun-style launcher) the job uses the processes it was given;
* otherwise ``devices=N`` re-runs the same command (``sys.argv``) in N-1 more processes on this machine, with
  ``RANK``, ``WORLD_SIZE``, ``MASTER_ADDR``... set (Lightning's subprocess script launcher). The children die with
  the parent, and the parent reaps them at exit: no orphans;
* ``num_nodes > 1`` needs a cluster launch (MPI or SLURM): ember cannot start processes on other machines.

The backend is ``"mpi"`` under an MPI (or multi-node SLURM) launch and ``"local"`` otherwise, unless
``DDPStrategy(process_group_backend=...)`` says.

In the job: the LightningModule is wrapped in :class:`~ember.nn.parallel.DistributedDataParallel` (rank 0's weights
go to every rank, gradients are averaged in buckets during backward), loaders get a ``DistributedSampler``, rank zero
alone writes logs, checkpoints, the progress bar and summaries, ``self.log(..., sync_dist=True)`` reduces across
ranks, and callbacks agree through :meth:`reduce_boolean_decision` and :meth:`broadcast`.
"""
from __future__ import annotations

import atexit
import contextlib
import logging
import os
import sys
import time
import warnings
from typing import Any, Iterator, List, Optional

import numpy as np

from ...core.tensor import Tensor
from ..exceptions import MisconfigurationException
from ..utilities import apply_to_collection
from .strategy import Strategy

__all__ = ["DDPStrategy", "select_ddp_strategy", "launched_world_size"]

log = logging.getLogger("ember.trainer")

_DDP_NAMES = {
    "ddp": {}, "ddp_spawn": {}, "ddp_fork": {}, "ddp_notebook": {},
    "ddp_find_unused_parameters_true": {"find_unused_parameters": True},
    "ddp_find_unused_parameters_false": {"find_unused_parameters": False},
    "ddp_spawn_find_unused_parameters_true": {"find_unused_parameters": True},
    "ddp_spawn_find_unused_parameters_false": {"find_unused_parameters": False},
}


def launched_world_size() -> int:
    """The world size given by a launcher (``mpiexec``, ``srun``, ``ember-run``, torchrun-style variables), else 1."""
    from ...core.distributed.environment import detect_environment
    try:
        found = detect_environment()
    except ValueError:
        return 1
    return found.world_size if found is not None else 1


def select_ddp_strategy(strategy, devices: int = 1, num_nodes: int = 1, precision="32-true") -> Optional["DDPStrategy"]:
    """The :class:`DDPStrategy` for the Trainer's ``strategy`` flag, or ``None`` when it is not a DDP request.

    ``"ddp"`` and its Lightning variants always give one; ``"auto"`` gives one when ``devices > 1``,
    ``num_nodes > 1`` or the process was started by a launcher with a world size above one.
    """
    if isinstance(strategy, str):
        name = strategy.lower()
        if name in _DDP_NAMES:
            return DDPStrategy(precision=precision, _name=name, **_DDP_NAMES[name])
        if name == "auto" and (devices > 1 or num_nodes > 1 or launched_world_size() > 1):
            return DDPStrategy(precision=precision)
    return None


# -------------------------------------------------------------------------------------------- the launcher
class _ScriptLauncher:
    """Rank 0 re-runs this process's command in ``world_size - 1`` children (Lightning's subprocess launcher)."""

    def __init__(self) -> None:
        self.procs: List[Any] = []
        self.run_id = ""
        self.parent_failed = False
        self._reaping = False

    @staticmethod
    def command() -> List[str]:
        """The command that re-runs this process: the script (``python script.py``) or the module (``-m``)."""
        import __main__
        spec = getattr(__main__, "__spec__", None)
        argv0 = sys.argv[0] if sys.argv else ""
        main_name = (spec.name or "") if spec is not None else ""
        if main_name.split(".")[0] == "pytest" or os.path.basename(argv0).startswith(("pytest", "py.test")):
            raise MisconfigurationException(
                "Trainer(strategy='ddp', devices=N) starts N-1 more processes by re-running this command, which is "
                "pytest here. Run the training from a script (subprocess) in the test, or launch it with "
                "`ember-run --nproc-per-node N script.py`.")
        if spec is not None and spec.name not in ("__main__",) and spec.name:
            name = spec.name[:-len(".__main__")] if spec.name.endswith(".__main__") else spec.name
            return [sys.executable, "-m", name] + sys.argv[1:]
        if not argv0 or argv0 in ("-c", "-") or not os.path.isfile(argv0):
            raise MisconfigurationException(
                "Trainer(strategy='ddp', devices=N) starts N-1 more processes by re-running your script, but this "
                "session has no script to re-run (an interactive shell, a notebook or `python -c`). Put the training "
                "in a script, or start the processes yourself: `ember-run --nproc-per-node N script.py`.")
        return [sys.executable, os.path.abspath(argv0)] + sys.argv[1:]

    def launch(self, world_size: int) -> None:
        """Start ranks 1..world_size-1 and make this process rank 0 of the job."""
        from ...core.distributed.launch import free_port, new_run_id, start_worker, worker_env
        cmd = self.command()
        self.run_id = new_run_id()
        port = free_port()
        base = dict(os.environ)
        for rank in range(1, world_size):
            env = worker_env(base, rank=rank, local_rank=rank, world_size=world_size, local_world_size=world_size,
                             node_rank=0, master_addr="127.0.0.1", master_port=port, run_id=self.run_id)
            self.procs.append(start_worker(cmd, env))
        # this process is rank 0 of the same job (and later Trainers of this script see the launch too)
        os.environ.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "WORLD_SIZE": str(world_size),
                           "RANK": "0", "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": str(world_size), "NODE_RANK": "0",
                           "GROUP_RANK": "0", "EMBER_RUN_ID": self.run_id})
        from ...core.distributed.rendezvous import WATCHERS
        WATCHERS.append(self.dead_child)
        previous_hook = sys.excepthook

        def hook(exc_type, exc, tb):
            self.parent_failed = True
            previous_hook(exc_type, exc, tb)
        sys.excepthook = hook
        atexit.register(self.reap)
        import threading
        threading.Thread(target=self._watch_children, name="ember-ddp-watch", daemon=True).start()

    def _watch_children(self) -> None:
        """If a child fails while this process (rank 0) does not end, e.g. because it hangs outside any collective,
        end it FAILURE_GRACE seconds later, as torchrun stops a group one of whose workers failed."""
        while not self._reaping:
            failed = [(i + 1, p.returncode) for i, p in enumerate(self.procs) if p.poll() not in (None, 0)]
            if failed and not self.parent_failed:
                deadline = time.monotonic() + self.FAILURE_GRACE
                while time.monotonic() < deadline and not self._reaping and not self.parent_failed:
                    time.sleep(0.1)
                if self._reaping or self.parent_failed:
                    return
                listing = ", ".join(f"rank {r} (exit code {c})" for r, c in failed)
                sys.stderr.write(f"\n[ember] DDP worker process(es) failed: {listing}, and rank 0 did not stop "
                                 f"within {self.FAILURE_GRACE:g} s; stopping the job.\n")
                sys.stderr.flush()
                from ...core.distributed.launch import stop_workers
                stop_workers(self.procs)
                os._exit(1)
            time.sleep(0.2)

    def dead_child(self) -> Optional[str]:
        """A message if a child exited (while rank 0 waits for the others to join)."""
        for i, p in enumerate(self.procs):
            if p.poll() is not None:
                return (f"rank {i + 1} (pid {p.pid}) exited with code {p.returncode} before joining; see its error "
                        "above")
        return None

    # After rank 0 failed (e.g. a collective timed out at T because a rank hung), the children get this long to
    # fail too before they are stopped, so the job ends within T + 10 s; after a success they get FINISH_WAIT.
    FAILURE_GRACE = 5.0
    FINISH_WAIT = 60.0

    def reap(self, wait: Optional[float] = None) -> None:
        """At exit: release the peers, let the children finish, stop any that do not, report failures."""
        from ...core import distributed as dist
        from ...core.distributed.launch import stop_workers
        from ...core.distributed.local_shm import remove_job_files
        from ...core.distributed.process_group import _destroy
        self._reaping = True
        if dist.is_initialized():  # children waiting on rank 0 fail at once instead of at their timeout
            _destroy(None, graceful=not self.parent_failed)
        if wait is None:
            wait = self.FAILURE_GRACE if self.parent_failed else self.FINISH_WAIT
        deadline = time.monotonic() + wait
        while any(p.poll() is None for p in self.procs) and time.monotonic() < deadline:
            time.sleep(0.05)
        stop_workers(self.procs)
        remove_job_files(self.run_id)
        failed = [(i + 1, p.returncode) for i, p in enumerate(self.procs) if p.returncode]
        if failed and not self.parent_failed:
            listing = ", ".join(f"rank {r} (exit code {c})" for r, c in failed)
            sys.stdout.flush()
            sys.stderr.write(f"\n[ember] DDP worker process(es) failed: {listing}; see their errors above.\n")
            sys.stderr.flush()
            os._exit(1)


# ----------------------------------------------------------------------------------------- all_gather grads
def _all_gather_with_grad(tensor: Tensor, group) -> Tensor:
    from ...core.autograd.function import Function
    from ...core import distributed as dist

    class _AllGatherGrad(Function):
        @staticmethod
        def forward(ctx, t):
            n = dist.get_world_size(group)
            out = [Tensor._make(np.empty_like(t._data)) for _ in range(n)]
            dist.all_gather(out, Tensor._make(t._data.copy(order="C")), group=group)
            return Tensor._make(np.stack([o._data for o in out]))

        @staticmethod
        def backward(ctx, grad):
            g = Tensor._make(grad._data.copy(order="C"))
            dist.all_reduce(g, group=group)
            return Tensor._make(g._data[dist.get_rank(group)])

    return _AllGatherGrad.apply(tensor)


# -------------------------------------------------------------------------------------------- the strategy
class DDPStrategy(Strategy):
    """Multi-process data-parallel training (see the module docstring).

    Args:
        process_group_backend (str, optional): ``"local"`` or ``"mpi"``; default: ``"mpi"`` under an MPI or
            multi-node SLURM launch, ``"local"`` otherwise.
        timeout (timedelta): how long any collective may wait for the other ranks before failing. Default: 30 min.
        start_method (str): ``"popen"`` (re-run the script); accepted for Lightning compatibility.
        precision: as for the Trainer.
        **kwargs: passed to :class:`~ember.nn.parallel.DistributedDataParallel` (``find_unused_parameters``,
            ``bucket_cap_mb``, ``broadcast_buffers``, ...).

    ``Trainer(strategy=...)`` names: ``"ddp"``; ``"ddp_spawn"``, ``"ddp_fork"`` and ``"ddp_notebook"`` are accepted
    and use the same launcher (re-running the script); the ``"..._find_unused_parameters_true"`` names set
    ``find_unused_parameters=True``.
    """

    strategy_name = "ddp"

    def __init__(self, process_group_backend: Optional[str] = None, timeout=None, start_method: str = "popen",
                 precision="32-true", cluster_environment=None, _name: str = "ddp", **kwargs: Any) -> None:
        super().__init__(precision=precision)
        if process_group_backend is not None:
            from ...core.distributed.process_group import Backend
            process_group_backend = str(Backend(process_group_backend))
        self._backend = process_group_backend
        from ...core.distributed.process_group import default_pg_timeout
        self._timeout = timeout if timeout is not None else default_pg_timeout
        self._start_method = start_method
        self._ddp_kwargs = kwargs
        self._name = _name
        self._trainer = None
        self._launcher: Optional[_ScriptLauncher] = None
        self._ddp = None
        self._block_sync = False
        self.global_rank = 0
        self.local_rank = 0
        self.node_rank = 0
        self.world_size = 1

    # ------------------------------------------------------------------------------------------ environment
    @property
    def trainer(self):
        """The Trainer this strategy serves; attaching it starts or joins the job's processes."""
        return self._trainer

    @trainer.setter
    def trainer(self, trainer) -> None:
        # the Trainer attaches its strategy right after choosing it: processes start and meet here, so that
        # prepare_data, loggers and callbacks already know their ranks
        self._trainer = trainer
        if trainer is not None:
            self.setup_environment(getattr(trainer, "num_devices", 1), getattr(trainer, "num_nodes", 1))

    @property
    def process_group_backend(self) -> Optional[str]:
        """The backend asked for (``"local"``, ``"mpi"``, or None for automatic)."""
        return self._backend

    def setup_environment(self, devices: int = 1, num_nodes: int = 1) -> None:
        """Start or join the processes of the job and initialise the process group (once per process)."""
        from ...core import distributed as dist
        from ...core.distributed.environment import detect_environment
        found = detect_environment()
        if found is not None:
            world, rank = found.world_size, found.rank
            expected = devices * num_nodes
            if devices > 1 and expected != world:
                raise MisconfigurationException(
                    f"This process was started by {found.kind} as one of {world} processes, but Trainer(devices="
                    f"{devices}, num_nodes={num_nodes}) asks for {expected}. Launch devices x num_nodes processes "
                    "in total, or leave devices at its default so the launch decides.")
            if num_nodes > 1 and found.num_nodes not in (1, num_nodes) and found.kind != "torchrun":
                raise MisconfigurationException(f"Trainer(num_nodes={num_nodes}) but the launch spans "
                                                f"{found.num_nodes} nodes")
            self.local_rank, self.node_rank = found.local_rank, found.node_rank
        else:
            if num_nodes > 1:
                raise MisconfigurationException(
                    f"Trainer(num_nodes={num_nodes}) needs the processes on every machine to be started by a cluster "
                    "launcher, with MPI or SLURM: e.g. `mpiexec -n <nodes x devices> python train.py` or "
                    "`srun --nodes=<nodes> --ntasks-per-node=<devices> python train.py` (with the 'mpi' extra "
                    "installed). This process was started on its own, and ember cannot start processes on other "
                    "machines.")
            world, rank = devices, 0
            if self._backend == "mpi" and world > 1:
                raise MisconfigurationException(
                    "DDPStrategy(process_group_backend='mpi') needs the job to be started by mpiexec or srun, e.g. "
                    f"`mpiexec -n {world} python {os.path.basename(sys.argv[0]) if sys.argv else 'train.py'}`")
        self.global_rank, self.world_size = rank, world
        if dist.is_initialized():
            if dist.get_world_size() != world:
                raise MisconfigurationException(
                    f"ember.distributed is already initialised with {dist.get_world_size()} processes, but this "
                    f"Trainer needs {world}")
            self.global_rank = dist.get_rank()
            return
        if found is None and world > 1:
            self._launcher = _ScriptLauncher()
            self._launcher.launch(world)
            found = detect_environment()
        backend = self._backend or self._auto_backend(found)
        kwargs = {"timeout": self._timeout}
        if backend == "local":
            if found is not None and found.kind in ("mpi",):
                raise MisconfigurationException("process_group_backend='local' cannot run under mpiexec (no "
                                                "rendezvous address): use 'mpi'")
            if found is not None and found.kind == "slurm":
                kwargs.update(init_method=f"tcp://{found.main_address}:{found.main_port}", world_size=world,
                              rank=rank)
            elif world == 1 and found is None:
                from ...core.distributed.launch import free_port
                kwargs.update(init_method=f"tcp://127.0.0.1:{free_port()}", world_size=1, rank=0)
        log.info("Initializing distributed: GLOBAL_RANK: %d, MEMBER: %d/%d", rank, rank + 1, world)
        try:
            dist.init_process_group(backend, **kwargs)
        finally:
            if self._launcher is not None:
                from ...core.distributed.rendezvous import WATCHERS
                if self._launcher.dead_child in WATCHERS:
                    WATCHERS.remove(self._launcher.dead_child)
        self.global_rank = dist.get_rank()
        self.world_size = dist.get_world_size()
        self.local_rank = dist.get_node_local_rank(self.global_rank) if found is not None else 0

    def _auto_backend(self, found) -> str:
        from ...core.distributed.process_group import is_mpi_available
        if found is not None and found.kind == "mpi":
            return "mpi"
        if found is not None and found.kind == "slurm" and (found.num_nodes > 1 or is_mpi_available()):
            if not is_mpi_available():
                raise MisconfigurationException("a multi-node SLURM job needs the 'mpi' backend: pip install "
                                                "'ember[mpi]' (mpi4py)")
            return "mpi"
        return "local"

    # ------------------------------------------------------------------------------------------- the model
    @property
    def model(self):
        """The :class:`DistributedDataParallel` wrapper of the LightningModule (after setup)."""
        return self._ddp

    def connect(self, model) -> None:
        """Precision, logger ranks and versions, then wrap the module in DDP (which broadcasts rank 0's weights)."""
        super().connect(model)
        self._setup_loggers()
        self.teardown()
        from ...core.nn.parallel import DistributedDataParallel
        self._ddp = DistributedDataParallel(model, **self._ddp_kwargs)

    def _setup_loggers(self) -> None:
        trainer = self.trainer
        for logger in getattr(trainer, "loggers", []) or []:
            logger._rank = self.global_rank
            if hasattr(logger, "_version") and logger._version is None:
                version = logger.version if self.is_global_zero else None
                logger._version = self.broadcast(version)

    def batch_to_device(self, batch, device=None, dataloader_idx: int = 0):
        """Sync rank 0's buffers (DDP's ``broadcast_buffers``), then the usual batch transfer."""
        ddp = self._ddp
        if ddp is not None and ddp._will_sync_buffers():
            ddp._sync_buffers()  # what DDP's forward does: every rank computes with rank 0's buffers
        return super().batch_to_device(batch, device, dataloader_idx)

    def _should_sync(self) -> bool:
        if self._block_sync:
            return False
        trainer = self.trainer
        module = trainer.lightning_module
        if module is not None and module.automatic_optimization and trainer.accumulate_grad_batches > 1:
            loop = trainer.fit_loop.epoch_loop
            return not loop._should_accumulate(loop.batch_idx, loop.batch_progress.is_last_batch)
        return True

    def backward(self, module, loss: Tensor, *args: Any, **kwargs: Any) -> None:
        """Backward with the gradient average across ranks (skipped inside an accumulation window)."""
        ddp = self._ddp
        sync = ddp is not None and self._should_sync()
        if sync:
            ddp.prepare_for_backward(loss)
        super().backward(module, loss, *args, **kwargs)
        if sync and ddp.reducer._armed:
            names = ddp.reducer.unready_parameter_names()
            raise RuntimeError(
                "DDP could not average the gradients: these parameters received no gradient in this backward on rank "
                f"{self.global_rank}: {', '.join(names)}. If parts of the model are unused in some steps, use "
                "Trainer(strategy='ddp_find_unused_parameters_true') or DDPStrategy(find_unused_parameters=True).")

    @contextlib.contextmanager
    def block_backward_sync(self) -> Iterator[None]:
        """Skip the gradient average for the backward passes inside the block (manual gradient accumulation)."""
        previous = self._block_sync
        self._block_sync = True
        try:
            yield
        finally:
            self._block_sync = previous

    def process_dataloader(self, loader, shuffle: bool = False):
        """Give ``loader`` a :class:`DistributedSampler` (when ``Trainer(use_distributed_sampler=True)``)."""
        trainer = self.trainer
        if trainer is None or not getattr(trainer, "use_distributed_sampler", True) or self.world_size == 1:
            return loader
        from ...core.data import (BatchSampler, DataLoader, DistributedSampler, IterableDataset, RandomSampler,
                                  SequentialSampler)
        if not isinstance(loader, DataLoader) or isinstance(loader.dataset, IterableDataset):
            return loader
        if isinstance(loader.sampler, DistributedSampler):
            return loader
        custom_batches = loader.batch_sampler is not None and type(loader.batch_sampler) is not BatchSampler
        if custom_batches or not isinstance(loader.sampler, (RandomSampler, SequentialSampler)):
            warnings.warn("The dataloader uses a custom sampler or batch_sampler, so the Trainer cannot shard it "
                          "across processes: every rank will see all of its data. Use a DistributedSampler yourself "
                          "(and Trainer(use_distributed_sampler=False)).")
            return loader
        sampler = DistributedSampler(loader.dataset, num_replicas=self.world_size, rank=self.global_rank,
                                     shuffle=bool(shuffle and isinstance(loader.sampler, RandomSampler)),
                                     seed=int(os.environ.get("PL_GLOBAL_SEED", 0)))
        kwargs = dict(batch_size=loader.batch_size, sampler=sampler, num_workers=loader.num_workers,
                      collate_fn=loader.collate_fn, pin_memory=loader.pin_memory, drop_last=loader.drop_last,
                      timeout=loader.timeout, worker_init_fn=loader.worker_init_fn, generator=loader.generator,
                      persistent_workers=loader.persistent_workers)
        if loader.num_workers > 0:
            kwargs.update(multiprocessing_context=loader.multiprocessing_context,
                          prefetch_factor=loader.prefetch_factor)
        return DataLoader(loader.dataset, **kwargs)

    # ----------------------------------------------------------------------------------------- collectives
    def barrier(self, name: Optional[str] = None) -> None:
        """Wait for all processes."""
        from ...core import distributed as dist
        if dist.is_initialized() and self.world_size > 1:
            dist.barrier()

    def broadcast(self, obj: Any, src: int = 0) -> Any:
        """``obj`` of rank ``src`` on every rank (any picklable object)."""
        from ...core import distributed as dist
        if not dist.is_initialized() or self.world_size == 1:
            return obj
        box = [obj]
        dist.broadcast_object_list(box, src=src)
        return box[0]

    def reduce(self, tensor, group=None, reduce_op="mean"):
        """Reduce a tensor across processes: ``"mean"`` (default), ``"sum"``, ``"max"``, ``"min"`` or a ReduceOp.
        Non-tensors are returned unchanged."""
        from ...core import distributed as dist
        if not isinstance(tensor, Tensor) or not dist.is_initialized() or self.world_size == 1:
            return tensor
        op = dist.ReduceOp.coerce(reduce_op if reduce_op is not None else "sum", "reduce_op")
        out = tensor.detach().clone()
        if op is dist.ReduceOp.AVG and not out.is_floating_point():
            out = out.float()
        dist.all_reduce(out, op=op, group=group)
        return out

    def reduce_number(self, value: float, op: str = "sum") -> float:
        """Reduce a Python number across processes (``"sum"``, ``"max"`` or ``"min"``)."""
        from ...core import distributed as dist
        if not dist.is_initialized() or self.world_size == 1:
            return value
        if isinstance(value, Tensor):
            value = value.item()
        t = Tensor._make(np.array([float(value)], dtype=np.float64))
        dist.all_reduce(t, op=dist.ReduceOp.coerce(op))
        return float(t._data[0])

    def all_gather(self, data, group=None, sync_grads: bool = False):
        """Gather tensors (or collections of them) from all processes: each gets a new leading dimension of the
        world size. With ``sync_grads=True`` the gradient flows back to every rank's input."""
        from ...core import distributed as dist
        if not dist.is_initialized() or self.world_size == 1:
            return data

        def gather(t: Tensor) -> Tensor:
            if sync_grads:
                return _all_gather_with_grad(t, group)
            n = dist.get_world_size(group)
            src = Tensor._make(t.detach()._data.copy(order="C"))
            out = [Tensor._make(np.empty_like(src._data)) for _ in range(n)]
            dist.all_gather(out, src, group=group)
            return Tensor._make(np.stack([o._data for o in out]))
        return apply_to_collection(data, Tensor, gather)

    def reduce_boolean_decision(self, decision: bool, all: bool = True) -> bool:
        """True when every rank decided True (``all=True``) or when any did (``all=False``)."""
        from ...core import distributed as dist
        if not dist.is_initialized() or self.world_size == 1:
            return bool(decision)
        t = Tensor._make(np.array([1 if decision else 0], dtype=np.int64))
        dist.all_reduce(t)
        count = int(t._data[0])
        return count == self.world_size if all else count > 0

    def teardown(self) -> None:
        """Detach DDP's gradient hooks (the process group stays for later ``fit``/``test`` calls)."""
        if self._ddp is not None:
            self._ddp._remove_hooks()
            self._ddp = None

    def __repr__(self) -> str:
        return f"DDPStrategy(backend={self._backend or 'auto'}, world_size={self.world_size}, rank={self.global_rank})"
