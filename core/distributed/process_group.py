"""Process groups: ``init_process_group``, ``new_group``, ``destroy_process_group`` and the rank queries.

The default group (the world) is made by :func:`init_process_group`; :func:`new_group` makes subsets. Every process
must call ``new_group`` in the same order with the same ranks (as in PyTorch), members or not; non-members get
``GroupMember.NON_GROUP_MEMBER``.
"""
from __future__ import annotations

import datetime
import os
from typing import List, Optional

from .environment import detect_environment

__all__ = ["Backend", "ProcessGroup", "GroupMember", "group", "init_process_group", "destroy_process_group",
           "new_group", "is_available", "is_initialized", "is_mpi_available", "get_rank", "get_world_size",
           "get_backend", "get_process_group_ranks", "get_global_rank", "get_group_rank", "default_pg_timeout",
           "get_node_local_rank"]

default_pg_timeout = datetime.timedelta(minutes=30)
"""The default ``timeout`` of :func:`init_process_group` (30 minutes, as in PyTorch)."""


class Backend(str):
    """Backend names: ``Backend.LOCAL`` (``"local"``) and ``Backend.MPI`` (``"mpi"``).

    ``"gloo"`` is accepted as an alias of ``"local"`` so that code written for PyTorch's CPU backend runs as is.
    """

    LOCAL = "local"
    MPI = "mpi"
    GLOO = "gloo"

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise TypeError(f"Backend name must be a string, got {name!r}")
        value = name.lower()
        if value == "gloo":
            value = "local"
        if value == "nccl":
            raise ValueError("backend='nccl' needs GPUs, which ember does not use; choose backend='local' (one "
                             "machine) or backend='mpi' (mpiexec/srun, one or many machines)")
        if value not in ("local", "mpi"):
            raise ValueError(f"Invalid backend {name!r}: use 'local' or 'mpi'")
        return str.__new__(cls, value)


class ProcessGroup:
    """A set of ranks that communicate together (the world, or a :func:`new_group` subset)."""

    def __init__(self, impl, gid: int, ranks: List[int], backend: str):
        self._impl = impl
        self._gid = gid
        self._ranks = list(ranks)
        self._backend = backend

    def rank(self) -> int:
        """This process's rank within the group."""
        return self._impl.rank

    def size(self) -> int:
        """The number of ranks in the group."""
        return len(self._ranks)

    def name(self) -> str:
        """The group's name (``"WORLD"`` or ``"group<N>"``)."""
        return self._impl.name

    def __repr__(self) -> str:
        return f"<ProcessGroup {self._impl.name} backend={self._backend} ranks={self._ranks}>"


class _NonGroupMember:
    def __repr__(self) -> str:
        return "GroupMember.NON_GROUP_MEMBER"


class GroupMember:
    """``GroupMember.WORLD`` is the default group once initialised; ``NON_GROUP_MEMBER`` marks other groups."""

    WORLD: Optional[ProcessGroup] = None
    NON_GROUP_MEMBER = _NonGroupMember()


group = GroupMember  # ``dist.group.WORLD``, as in PyTorch


class _State:
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.default: Optional[ProcessGroup] = None
        self.backend: Optional[str] = None  # the implementation: "local" or "mpi"
        self.backend_name: Optional[str] = None  # the name the user asked for ("gloo" runs on "local")
        self.local = None  # LocalBackend
        self.mpi_comm = None
        self.watchdog = None
        self.groups: List[ProcessGroup] = []
        self.next_gid = 1
        self.local_rank = 0
        self.local_world_size = 1


_STATE = _State()


def _seconds(timeout) -> float:
    if timeout is None:
        return default_pg_timeout.total_seconds()
    if isinstance(timeout, datetime.timedelta):
        seconds = timeout.total_seconds()
    elif isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
        seconds = float(timeout)
    else:
        raise TypeError(f"timeout must be a datetime.timedelta (or seconds), got {timeout!r}")
    if seconds <= 0:
        raise ValueError(f"timeout must be positive, got {timeout!r}")
    return seconds


def is_available() -> bool:
    """True: the ``"local"`` backend is always there (``"mpi"`` needs mpi4py, see :func:`is_mpi_available`)."""
    return True


def is_mpi_available() -> bool:
    """True if mpi4py can be imported (the ``"mpi"`` backend)."""
    import importlib.util
    return importlib.util.find_spec("mpi4py") is not None


def is_initialized() -> bool:
    """True once :func:`init_process_group` has run (and until :func:`destroy_process_group`)."""
    return _STATE.default is not None


def _require_init() -> None:
    if _STATE.default is None:
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")


def _resolve(group_arg) -> Optional[ProcessGroup]:
    """The group to use, or ``None`` when this process is not a member of ``group_arg``."""
    _require_init()
    if group_arg is None or group_arg is GroupMember.WORLD:
        return _STATE.default
    if group_arg is GroupMember.NON_GROUP_MEMBER:
        return None
    if not isinstance(group_arg, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup from new_group() (or None for the world), got "
                        f"{type(group_arg).__name__}")
    if group_arg not in _STATE.groups and group_arg is not _STATE.default:
        raise ValueError(f"{group_arg!r} has been destroyed (destroy_process_group) or belongs to an earlier "
                         "init_process_group")
    return group_arg


def _default_backend() -> str:
    found = detect_environment()
    if found is not None and found.kind in ("mpi", "slurm") and found.world_size > 1 and is_mpi_available():
        return "mpi"
    return "local"


def init_process_group(backend=None, init_method: Optional[str] = None, timeout=None, world_size: int = -1,
                       rank: int = -1, store=None, group_name: str = "", pg_options=None, device_id=None) -> None:
    """Initialise the default process group: every process of the job calls it once, before any collective.

    Args:
        backend (str, optional): ``"local"`` (processes of one machine, through shared memory and loopback
            sockets) or ``"mpi"`` (mpi4py: ``mpiexec``, ``srun``, any number of machines). Default: ``"mpi"`` when
            the process was started by an MPI launcher, else ``"local"``.
        init_method (str, optional): how the ranks meet (``"local"`` only): ``"env://"`` (default: reads
            ``MASTER_ADDR``, ``MASTER_PORT``, ``RANK``, ``WORLD_SIZE``), ``"tcp://host:port"`` (rank 0 listens there)
            or ``"file:///path"`` (a file on a filesystem all ranks see). MPI ranks meet through MPI.
        timeout (timedelta, optional): how long any operation, including this rendezvous, may wait for the other
            ranks before failing with an error. Default: 30 minutes.
        world_size (int): the number of processes (``-1``: from the environment or ``init_method``).
        rank (int): this process's rank in ``[0, world_size)`` (``-1``: from the environment or ``init_method``).
        store, group_name, pg_options, device_id: accepted for PyTorch compatibility; must be left at defaults.

    Example::

        # on each of 2 processes (ember-run --nproc-per-node 2 script.py sets the variables)
        dist.init_process_group("local")
        t = em.ones(3) * (dist.get_rank() + 1)
        dist.all_reduce(t)          # t == [3., 3., 3.] everywhere
    """
    if _STATE.default is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if store is not None:
        raise ValueError("init_process_group(store=...) is not supported by ember: use init_method")
    name = Backend(backend) if backend is not None else _default_backend()
    seconds = _seconds(timeout)
    if name == "mpi":
        _init_mpi(seconds, world_size, rank)
    else:
        _init_local(init_method, seconds, world_size, rank)
    _STATE.backend_name = backend.lower() if backend is not None else str(name)
    _STATE.default._backend = _STATE.backend_name
    from .threads import apply_rank_threads
    apply_rank_threads(_STATE.local_world_size)


def _init_local(init_method, seconds: float, world_size: int, rank: int) -> None:
    from .local_backend import LocalBackend, LocalGroup
    from .local_transport import Mesh
    from .rendezvous import connect_mesh, open_listener, parse_init_method, rendezvous
    spec = parse_init_method(init_method, world_size, rank)
    listener = open_listener()
    try:
        job, peers = rendezvous(spec, listener.getsockname()[1], seconds)
        socks = connect_mesh(spec, listener, job, peers, seconds)
    finally:
        listener.close()
    if spec.kind == "file" and spec.rank == 0:
        try:  # every rank has read the file by now (they are all connected): it can be reused
            os.unlink(spec.path)
        except OSError:
            pass
    backend = LocalBackend(spec.rank, spec.world_size, job, Mesh(spec.rank, socks, send_timeout=seconds))
    impl = LocalGroup(backend, 0, list(range(spec.world_size)), seconds, "WORLD")
    _STATE.backend, _STATE.local = "local", backend
    _STATE.local_world_size = spec.world_size
    found = detect_environment()
    _STATE.local_rank = found.local_rank if found is not None and found.world_size == spec.world_size else spec.rank
    _set_default(ProcessGroup(impl, 0, list(range(spec.world_size)), "local"))


def _init_mpi(seconds: float, world_size: int, rank: int) -> None:
    from .mpi_backend import MPIGroup, Watchdog, install_abort_on_exception, mpi_module
    MPI = mpi_module()
    world = MPI.COMM_WORLD
    size, me = world.Get_size(), world.Get_rank()
    if world_size != -1 or rank != -1:  # PyTorch warns and lets MPI decide
        import warnings
        warnings.warn(f"init_process_group(backend='mpi'): world_size ({world_size}) and rank ({rank}) are ignored "
                      f"since they are assigned by the MPI runtime (here world_size={size}, rank={me})",
                      UserWarning, stacklevel=3)
    comm = world.Dup()  # our own context: user MPI traffic on COMM_WORLD cannot mix with ours
    node = comm.Split_type(MPI.COMM_TYPE_SHARED, key=me)
    _STATE.local_rank, _STATE.local_world_size = node.Get_rank(), node.Get_size()
    node.Free()
    watchdog = Watchdog(comm)
    install_abort_on_exception(comm)
    impl = MPIGroup(comm, list(range(size)), seconds, "WORLD", watchdog, comm)
    _STATE.backend, _STATE.mpi_comm, _STATE.watchdog = "mpi", comm, watchdog
    _set_default(ProcessGroup(impl, 0, list(range(size)), "mpi"))


def _set_default(pg: ProcessGroup) -> None:
    _STATE.default = pg
    _STATE.groups = [pg]
    _STATE.next_gid = 1
    GroupMember.WORLD = pg


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization: bool = False,
              group_desc: Optional[str] = None):
    """A new group of the given global ``ranks`` (default: all). Every process must call it, in the same order.

    Returns the group on its members and ``GroupMember.NON_GROUP_MEMBER`` elsewhere.
    """
    _require_init()
    world = _STATE.default.size()
    if ranks is None:
        ranks = list(range(world))
    try:
        ranks = sorted(int(r) for r in ranks)
    except (TypeError, ValueError):
        raise TypeError(f"new_group(ranks=...) expects a list of ints, got {ranks!r}") from None
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"new_group(ranks={ranks}) lists a rank twice")
    bad = [r for r in ranks if not 0 <= r < world]
    if bad:
        raise ValueError(f"new_group(ranks={ranks}): rank(s) {bad} are outside the world of {world} processes")
    if backend is not None and Backend(backend) != _STATE.backend:
        raise ValueError(f"new_group(backend={backend!r}) differs from the default group's backend "
                         f"{_STATE.backend!r}; ember uses one backend per job")
    seconds = _seconds(timeout) if timeout is not None else _STATE.default._impl.timeout
    gid = _STATE.next_gid
    _STATE.next_gid += 1
    me = _STATE.default.rank()
    name = group_desc or f"group{gid}"
    if _STATE.backend == "mpi":
        from .mpi_backend import MPIGroup
        MPI = _STATE.default._impl.MPI
        color = 0 if me in ranks else MPI.UNDEFINED
        sub = _STATE.mpi_comm.Split(color, key=ranks.index(me) if me in ranks else 0)
        if me not in ranks:
            return GroupMember.NON_GROUP_MEMBER
        impl = MPIGroup(sub, ranks, seconds, name, _STATE.watchdog, _STATE.mpi_comm)
    else:
        if me not in ranks:
            return GroupMember.NON_GROUP_MEMBER
        from .local_backend import LocalGroup
        impl = LocalGroup(_STATE.local, gid, ranks, seconds, name)
    pg = ProcessGroup(impl, gid, ranks, _STATE.backend_name)
    _STATE.groups.append(pg)
    return pg


def destroy_process_group(group=None) -> None:
    """Destroy ``group``, or everything (and allow a new :func:`init_process_group`) when ``group`` is None."""
    _destroy(group, graceful=True)


def _destroy(group=None, graceful: bool = True) -> None:
    """``graceful=False`` drops the connections without a goodbye, so peers report this rank as failed."""
    if group is None or group is GroupMember.WORLD:
        if _STATE.default is None:
            return
        for pg in _STATE.groups:
            try:
                pg._impl.close()
            except Exception:
                pass
        if _STATE.local is not None:
            _STATE.local.close(graceful)
        if _STATE.mpi_comm is not None:
            try:
                _STATE.mpi_comm.Free()
            except Exception:
                pass
        _STATE.reset()
        GroupMember.WORLD = None
        return
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    if group in _STATE.groups:
        _STATE.groups.remove(group)
        group._impl.close()


def get_rank(group=None) -> int:
    """This process's rank in ``group`` (the world by default); ``-1`` if it is not a member."""
    pg = _resolve(group)
    return -1 if pg is None else pg.rank()


def get_world_size(group=None) -> int:
    """The number of processes in ``group`` (the world by default); ``-1`` if this process is not a member."""
    pg = _resolve(group)
    return -1 if pg is None else pg.size()


def get_backend(group=None) -> str:
    """The backend name of ``group`` as the user asked for it: ``"local"``, ``"mpi"``, or ``"gloo"`` (which runs
    on the ``"local"`` backend)."""
    pg = _resolve(group)
    if pg is None:
        raise ValueError("Invalid process group specified: this process is not a member")
    return pg._backend


def get_process_group_ranks(group) -> List[int]:
    """The global ranks of ``group``'s members, in group-rank order."""
    pg = _resolve(group)
    if pg is None:
        raise ValueError("Invalid process group specified: this process is not a member")
    return list(pg._ranks)


def get_global_rank(group, group_rank: int) -> int:
    """The global rank of ``group_rank`` in ``group``."""
    ranks = get_process_group_ranks(group)
    if not 0 <= group_rank < len(ranks):
        raise ValueError(f"group rank {group_rank} is not part of the group (it has {len(ranks)} ranks)")
    return ranks[group_rank]


def get_group_rank(group, global_rank: int) -> int:
    """The rank of ``global_rank`` within ``group``."""
    ranks = get_process_group_ranks(group)
    if global_rank not in ranks:
        raise ValueError(f"global rank {global_rank} is not part of the group {ranks}")
    return ranks.index(global_rank)


def get_node_local_rank(fallback_rank: Optional[int] = None) -> int:
    """This process's rank among the processes of its machine."""
    if _STATE.default is not None:
        return _STATE.local_rank
    found = detect_environment()
    if found is not None:
        return found.local_rank
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment and no process group is initialized; pass "
                       "fallback_rank")
