"""``ember-run``: start N processes of a training script on this machine, like ``torchrun --nproc-per-node N``.

    ember-run --nproc-per-node 4 train.py --lr 0.1
    python -m ember.distributed.run --nproc-per-node 4 -m mypackage.train
    python -m ember.distributed.launch --nproc-per-node 2 train.py   # the old launcher: passes --local-rank=N

torchrun's flags keep their meaning: ``--standalone``, ``--rdzv-backend static|c10d``, ``--rdzv-endpoint``,
``--rdzv-id``, ``--master-addr``/``--master-port``, ``--max-restarts``; several machines (``--nnodes`` above 1,
etcd rendezvous) are an error that points to mpiexec/srun.

Each process gets ``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``, ``MASTER_ADDR`` and
``MASTER_PORT``, so ``init_process_group()`` (``env://``) and ``Trainer(strategy="ddp")`` find each other without
arguments. BLAS threads are set to ``cores / nproc`` unless ``OMP_NUM_THREADS`` (or a similar variable) is set.

If a process fails, the others are stopped (they normally fail on their own within moments, as their peer is
gone), no process is left behind, the launcher prints which rank failed first with its traceback, and exits with
that rank's exit code. For several machines, launch with ``mpiexec``/``srun`` and the ``mpi`` backend instead.
"""
from __future__ import annotations

import argparse
import collections
import os
import signal
import sys
import threading
import time
from typing import List, Optional

from .launch import free_port, new_run_id, start_worker, stop_workers, worker_env
from .local_shm import remove_job_files

__all__ = ["main", "parse_args", "get_args_parser"]


def get_args_parser() -> argparse.ArgumentParser:
    """The parser of ``ember-run``'s command line: torchrun's flags, with dashes or underscores."""
    parser = argparse.ArgumentParser(
        prog="ember-run", description="Start N processes of a training script on this machine (like torchrun).")
    parser.add_argument("--nproc-per-node", "--nproc_per_node", default="1",
                        help="processes to start: an int, or 'auto'/'cpu' for one per core (default: 1)")
    parser.add_argument("--nnodes", default="1", help="must be 1: ember-run starts processes on one machine")
    parser.add_argument("--node-rank", "--node_rank", type=int, default=0,
                        help="rank of this machine; must be 0, as there is one machine (default: 0)")
    parser.add_argument("--rdzv-backend", "--rdzv_backend", default="static",
                        help="'static' (meet at --master-addr:--master-port) or 'c10d' (meet at --rdzv-endpoint's "
                             "host); default: static")
    parser.add_argument("--rdzv-endpoint", "--rdzv_endpoint", default="",
                        help="HOST[:PORT] of the rendezvous (with 'static' it replaces --master-addr/--master-port)")
    parser.add_argument("--rdzv-id", "--rdzv_id", default="none",
                        help="the job id, given to the workers as TORCHELASTIC_RUN_ID (default: none)")
    parser.add_argument("--master-addr", "--master_addr", default="127.0.0.1",
                        help="address of rank 0's rendezvous, 'static' only (default: 127.0.0.1)")
    parser.add_argument("--master-port", "--master_port", type=int, default=None,
                        help="port of rank 0's rendezvous, 'static' only (default: a free port)")
    parser.add_argument("--standalone", action="store_true",
                        help="a single-machine job meeting on localhost at a free port (sets the --rdzv-* flags)")
    parser.add_argument("--grace", type=float, default=5.0,
                        help="seconds the other ranks get to exit after one fails, before they are stopped")
    parser.add_argument("--max-restarts", "--max_restarts", type=int, default=0,
                        help="restart the whole group up to this many times when a rank fails (torchrun's "
                             "elastic restart); the Trainer then resumes from the newest last.ckpt (default: 0)")
    parser.add_argument("-m", "--module", action="store_true", help="run the script as a module (python -m)")
    parser.add_argument("--no-python", "--no_python", action="store_true",
                        help="run the command directly instead of through the Python interpreter")
    parser.add_argument("script", help="the training script (or module with -m, or command with --no-python)")
    parser.add_argument("script_args", nargs=argparse.REMAINDER, help="arguments passed to the script")
    return parser


def _endpoint(parser, value: str):
    """``HOST[:PORT]`` -> ``(host, port or None)``."""
    text = value.strip()
    host, sep, port = text.rpartition(":")
    if not sep:
        return text or "127.0.0.1", None
    if not port.isdigit() or not 0 <= int(port) < 65536:
        parser.error(f"--rdzv-endpoint={value!r}: expected HOST or HOST:PORT with a port in [0, 65535]")
    return host or "127.0.0.1", int(port) or None  # port 0 means "any free port", as in torchrun


def parse_args(argv: Optional[List[str]] = None, parser: Optional[argparse.ArgumentParser] = None
               ) -> argparse.Namespace:
    """The command line of ``ember-run`` (torchrun's spelling with dashes or underscores), checked and resolved:
    ``master_addr``/``master_port`` are where rank 0 meets the others (``master_port`` None: a free port)."""
    parser = parser or get_args_parser()
    args = parser.parse_args(argv)
    nproc = str(args.nproc_per_node)
    if nproc in ("auto", "cpu"):
        args.nproc_per_node = os.cpu_count() or 1
    else:
        try:
            args.nproc_per_node = int(nproc)
        except ValueError:
            parser.error(f"--nproc-per-node={nproc!r}: expected an int, 'auto' or 'cpu'")
        if args.nproc_per_node < 1:
            parser.error(f"--nproc-per-node={nproc}: at least 1 process is needed")
    if str(args.nnodes) not in ("1", "1:1"):
        parser.error(f"--nnodes={args.nnodes}: ember-run starts processes on one machine. For several machines "
                     "launch with mpiexec or srun (backend 'mpi'): mpiexec -n N python train.py")
    if args.node_rank != 0:
        parser.error(f"--node-rank={args.node_rank}: with one machine (--nnodes=1) the node rank is 0")
    if args.max_restarts < 0:
        parser.error(f"--max-restarts={args.max_restarts}: expected 0 or more restarts")
    if args.standalone:  # torchrun: a c10d rendezvous on localhost at a free port, with a fresh job id
        args.rdzv_backend, args.rdzv_endpoint, args.rdzv_id = "c10d", "localhost:0", new_run_id()
    backend = str(args.rdzv_backend).lower()
    if backend == "static":
        if args.rdzv_endpoint:
            args.master_addr, args.master_port = _endpoint(parser, args.rdzv_endpoint)
    elif backend == "c10d":
        # the workers meet at a free port of the endpoint's host (torchrun: --master-* are for 'static' only)
        args.master_addr, args.master_port = _endpoint(parser, args.rdzv_endpoint or "127.0.0.1")[0], None
    elif backend in ("etcd", "etcd-v2"):
        parser.error(f"--rdzv-backend={args.rdzv_backend}: etcd rendezvous is for jobs across machines, which "
                     "ember-run does not start; use 'static' or 'c10d' here, or mpiexec/srun for several machines")
    else:
        parser.error(f"--rdzv-backend={args.rdzv_backend!r}: expected 'static' or 'c10d'")
    args.rdzv_backend = backend
    if args.module and args.no_python:
        parser.error("--module and --no-python cannot be used together")
    if not hasattr(args, "use_env"):
        args.use_env = True  # torchrun: the rank is in LOCAL_RANK; the old launch module passes --local-rank
    return args


class _Tail:
    """Forwards a worker's stderr line by line and keeps its last lines (for the failure summary)."""

    def __init__(self, stream, keep: int = 200):
        self.lines = collections.deque(maxlen=keep)
        self._stream = stream
        self._thread = threading.Thread(target=self._pump, daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        out = sys.stderr.buffer if hasattr(sys.stderr, "buffer") else None
        for line in iter(self._stream.readline, b""):
            self.lines.append(line.decode(errors="replace"))
            try:
                if out is not None:
                    out.write(line)
                    out.flush()
                else:
                    sys.stderr.write(line.decode(errors="replace"))
            except (OSError, ValueError):
                pass

    def join(self, timeout: float = 2.0) -> None:
        self._thread.join(timeout)

    def traceback(self) -> str:
        """The last traceback in the kept lines (or the last lines)."""
        lines = list(self.lines)
        starts = [i for i, line in enumerate(lines) if line.startswith("Traceback (most recent call last)")]
        chunk = lines[starts[-1]:] if starts else lines[-20:]
        return "".join(chunk).rstrip()

    def secondary(self) -> bool:
        """True when the last error is a communication failure caused by another rank."""
        text = self.traceback().strip().splitlines()
        last = text[-1] if text else ""
        return "DistBackendError" in last or "DistStoreError" in last


def _describe_exit(code: int) -> str:
    return f"exit code {code}" if code > 0 else "stopped"


def _command(args, local_rank: int) -> List[str]:
    extra = [] if args.use_env else [f"--local-rank={local_rank}"]  # before the script's own arguments
    if args.no_python:
        return [args.script] + extra + args.script_args
    if args.module:
        return [sys.executable, "-u", "-m", args.script] + extra + args.script_args
    return [sys.executable, "-u", args.script] + extra + args.script_args


def main(argv: Optional[List[str]] = None, args: Optional[argparse.Namespace] = None) -> int:
    """Entry point of ``ember-run``; returns (and exits with) the job's exit code.

    With ``--max-restarts N``, a failed group is stopped and started again (all ranks, on a new rendezvous) up to
    ``N`` times, as torchrun does; the workers see the attempt in ``TORCHELASTIC_RESTART_COUNT``, and the Trainer
    then resumes from the newest ``last.ckpt`` (``ckpt_path="last"``).
    """
    args = args if args is not None else parse_args(argv)
    stopping = {"signal": None}

    def on_signal(signum, frame):
        stopping["signal"] = signum

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        for attempt in range(args.max_restarts + 1):
            code, summary = _run_group(args, attempt, stopping)
            if code == 0 or stopping["signal"] is not None or attempt == args.max_restarts:
                break
            sys.stderr.write(f"ember-run: {summary}; restarting the group ({attempt + 1} of "
                             f"{args.max_restarts} restarts)\n")
            sys.stderr.flush()
        return code
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


# A preempted job (SIGTERM/SIGINT to ember-run) gives the workers this long to stop at a safe point and save,
# as torchrun does, before their process groups are stopped.
SIGNAL_GRACE = 30.0


def _forward_and_wait(procs, signum: int) -> None:
    """Pass the signal to each worker process itself (not to its DataLoader workers) and wait for them to exit."""
    for p in procs:
        if p.poll() is None:
            try:
                p.send_signal(signum)
            except OSError:
                pass
    deadline = time.monotonic() + SIGNAL_GRACE
    while any(p.poll() is None for p in procs) and time.monotonic() < deadline:
        time.sleep(0.05)


def _run_group(args, attempt: int, stopping) -> "tuple[int, str]":
    """Start the workers once and wait for them; returns ``(exit code, one-line failure summary)``."""
    import subprocess
    n = args.nproc_per_node
    port = args.master_port or free_port()
    run_id = new_run_id()
    procs, tails = [], []
    base = dict(os.environ, TORCHELASTIC_RESTART_COUNT=str(attempt), TORCHELASTIC_MAX_RESTARTS=str(args.max_restarts))
    try:
        for rank in range(n):
            env = worker_env(base, rank=rank, local_rank=rank, world_size=n, local_world_size=n, node_rank=0,
                             master_addr=args.master_addr, master_port=port, run_id=run_id)
            env["TORCHELASTIC_RUN_ID"] = args.rdzv_id
            p = start_worker(_command(args, rank), env, stderr=subprocess.PIPE)
            procs.append(p)
            tails.append(_Tail(p.stderr))
        exit_times = {}
        first_failure = None
        while True:
            now = time.monotonic()
            for i, p in enumerate(procs):
                if i not in exit_times and p.poll() is not None:
                    exit_times[i] = now
                    if p.returncode != 0 and first_failure is None:
                        first_failure = now
            if len(exit_times) == n or stopping["signal"] is not None:
                break
            if first_failure is not None and now - first_failure > args.grace:
                break
            time.sleep(0.05)
        if stopping["signal"] is not None:
            _forward_and_wait(procs, stopping["signal"])
        stop_workers(procs)
        for t in tails:
            t.join()
        if stopping["signal"] is not None:
            sys.stderr.write(f"ember-run: received signal {stopping['signal']}, stopped the {n} workers\n")
            return 128 + int(stopping["signal"]), "stopped by a signal"
        failed = [i for i, p in enumerate(procs) if p.returncode != 0]
        if not failed:
            return 0, ""
        failed.sort(key=lambda i: exit_times.get(i, float("inf")))
        root = next((i for i in failed if not tails[i].secondary()), failed[0])
        code = procs[root].returncode
        reason = f"exit code {code}" if code > 0 else f"signal {-code}"
        others = ", ".join(f"rank {i} ({_describe_exit(procs[i].returncode)})" for i in failed if i != root)
        sys.stderr.write("\n" + "=" * 80 + f"\nember-run: rank {root} (pid {procs[root].pid}) failed first with "
                         f"{reason}.\n")
        if others:
            sys.stderr.write(f"Also failed: {others}.\n")
        tb = tails[root].traceback()
        if tb:
            sys.stderr.write(f"Error of rank {root}:\n{tb}\n")
        sys.stderr.write("=" * 80 + "\n")
        sys.stderr.flush()
        return (code if code > 0 else 1), f"rank {root} failed with {reason}"
    finally:
        stop_workers(procs, grace=1.0)
        remove_job_files(run_id)


def launch_main(argv: Optional[List[str]] = None) -> int:
    """``python -m ember.distributed.launch``: PyTorch's deprecated launcher. As there, each worker gets
    ``--local-rank=N`` before its own arguments unless ``--use-env`` is given (then it reads ``LOCAL_RANK``)."""
    import warnings
    warnings.warn("The module ember.distributed.launch is deprecated, as torch.distributed.launch is. Use ember-run "
                  "(torchrun's equivalent), which sets --use-env by default: read the local rank from "
                  "os.environ['LOCAL_RANK'] instead of a --local-rank argument.", FutureWarning, stacklevel=2)
    parser = get_args_parser()
    parser.prog = "python -m ember.distributed.launch"
    parser.add_argument("--use-env", "--use_env", action="store_true",
                        help="do not pass --local-rank to the script: it reads LOCAL_RANK from the environment")
    return main(args=parse_args(argv, parser))


def _entry() -> None:  # pragma: no cover - console script
    sys.exit(main())


if __name__ == "__main__":
    sys.exit(main())
