"""Distributed training speed, each figure a ratio measured in the same run.

1. **DDP gradient all-reduce** of a 10M-parameter model (2 ranks, ``mpi`` backend): the time DDP's reducer takes to
   average every ``.grad`` (copy into flat buckets with the division folded in, one all-reduce per 25 MiB bucket,
   gradients pointed at the buckets) against one raw mpi4py ``Allreduce`` of a float32 buffer of the same size.
   Target: <= 1.3x.
2. **All-reduce bandwidth** of the ``local`` backend (shared memory + loopback sockets) against the ``mpi`` backend
   (MPICH), both through ``ember.distributed.all_reduce``, 2 ranks, float32, several sizes.
3. **Scaling**: one epoch of the 784-256-128-10 MLP (global batch 128) on 2 ranks with DDP, 1 BLAS thread each,
   against 1 rank with 2 BLAS threads. Efficiency = speedup / 2. As a control, two processes that each train on
   half the data without communicating give the best time 2 ranks can reach on this machine (on a loaded machine
   they share fewer than 2 cores), so DDP's own cost is the ratio of the DDP time to that bound.

    python benchmarks/distributed.py [--params 10_000_000] [--repeat 5] [--samples 30000]

The script starts its own jobs (``mpiexec -n 2`` and ``ember-run --nproc-per-node 2``); the ``mpi`` rows need the
``mpi`` extra (mpi4py + mpich). Best of ``--repeat`` runs.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

SIZES_MB = (1, 8, 40)


def _best(fn, repeat, barrier=None):
    times = []
    for _ in range(repeat):
        if barrier is not None:
            barrier()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def _make_big_model(n_params: int):
    import ember as em
    from ember.core import nn
    width = 1024
    layers = max(1, round(n_params / (width * width + width)))
    em.manual_seed(0)
    return nn.Sequential(*[nn.Linear(width, width) for _ in range(layers)])


def _emit(result) -> None:
    print("RESULT " + json.dumps(result), flush=True)


# ------------------------------------------------------------------------------------------------------ workers
def worker_allreduce(backend: str, n_params: int, repeat: int) -> None:
    """Bandwidth of all_reduce through ember.distributed; on mpi also DDP's reducer against raw Allreduce."""
    import ember as em
    import ember.distributed as dist
    from ember.core.nn.parallel import DistributedDataParallel
    from ember.core.tensor import Tensor
    dist.init_process_group(backend, timeout=300)
    result = {"backend": backend, "bandwidth": {}}
    for mb in SIZES_MB:
        t = em.ones(mb * (1 << 20) // 4)
        dist.all_reduce(t)  # warm-up: maps shared memory, faults pages in
        result["bandwidth"][mb] = _best(lambda: dist.all_reduce(t), repeat, dist.barrier)
    model = _make_big_model(n_params)
    ddp = DistributedDataParallel(model)
    rng = np.random.default_rng(dist.get_rank())
    grads = [rng.standard_normal(p.shape).astype(np.float32) for p in model.parameters()]
    total = sum(g.size for g in grads)

    def ddp_reduce():
        for p, g in zip(model.parameters(), grads):  # fresh gradient arrays, as backward leaves them (no copy)
            p._grad = Tensor._make(g)
        ddp.reducer.reduce_now()
    ddp_reduce()
    result["ddp"] = _best(ddp_reduce, repeat, dist.barrier)
    result["params"] = int(total)
    result["buckets"] = len(ddp.reducer.buckets)
    if backend == "mpi":
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        buf = rng.standard_normal(total).astype(np.float32)
        comm.Allreduce(MPI.IN_PLACE, buf)
        result["raw"] = _best(lambda: comm.Allreduce(MPI.IN_PLACE, buf), repeat, comm.Barrier)
    if dist.get_rank() == 0:
        _emit(result)
    dist.destroy_process_group()


def worker_epoch(samples: int, distributed: bool, shard: int = 1) -> None:
    """One epoch of the MLP; with ``distributed``, DDP over the ranks of an ember-run launch; with ``shard`` > 1,
    one process's share (1/shard of the data, batch 128/shard) and no communication at all."""
    import ember as em
    import ember.distributed as dist
    from ember.core import nn, optim
    from ember.core.data import DataLoader, DistributedSampler, TensorDataset
    from ember.core.nn import functional as F
    rng = np.random.default_rng(0)
    x = em.tensor(rng.standard_normal((samples, 784)).astype(np.float32))
    y = em.tensor(rng.integers(0, 10, samples))
    dataset = TensorDataset(x, y)
    em.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))
    world = 1
    if distributed:
        dist.init_process_group("local", timeout=300)
        world = dist.get_world_size()
        model = nn.parallel.DistributedDataParallel(model)
        loader = DataLoader(dataset, batch_size=128 // world, sampler=DistributedSampler(dataset, shuffle=False))
    else:
        loader = DataLoader(TensorDataset(x[:samples // shard], y[:samples // shard]), batch_size=128 // shard)
    opt = optim.SGD(model.parameters(), lr=0.05)

    def epoch():
        for xb, yb in loader:
            opt.zero_grad()
            F.cross_entropy(model(xb), yb).backward()
            opt.step()
    if distributed:
        dist.barrier()
    t0 = time.perf_counter()
    epoch()
    if distributed:
        dist.barrier()
    elapsed = time.perf_counter() - t0
    from ember.core.distributed.threads import get_blas_threads
    if not distributed or dist.get_rank() == 0:
        _emit({"epoch": elapsed, "world": world, "blas_threads": get_blas_threads()})
    if distributed:
        dist.destroy_process_group()


# ----------------------------------------------------------------------------------------------- orchestration
def _run(cmd, env=None):
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    return json.loads(lines[-1][len("RESULT "):])


def _run_together(cmds, env):
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for cmd in cmds]
    results = []
    for cmd, proc in zip(cmds, procs):
        out, err = proc.communicate(timeout=1800)
        lines = [line for line in out.splitlines() if line.startswith("RESULT ")]
        if proc.returncode != 0 or not lines:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{out}\n{err}")
        results.append(json.loads(lines[-1][len("RESULT "):]))
    return results


def _env(threads: int):
    launch_vars = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")
    env = {k: v for k, v in os.environ.items() if k not in launch_vars}
    env.update(OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--params", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--samples", type=int, default=30_000)
    parser.add_argument("--worker", choices=["allreduce-mpi", "allreduce-local", "epoch-1", "epoch-half",
                                             "epoch-ddp"])
    args = parser.parse_args()
    if args.worker == "allreduce-mpi":
        return worker_allreduce("mpi", args.params, args.repeat)
    if args.worker == "allreduce-local":
        return worker_allreduce("local", args.params, args.repeat)
    if args.worker == "epoch-1":
        return worker_epoch(args.samples, distributed=False)
    if args.worker == "epoch-half":
        return worker_epoch(args.samples, distributed=False, shard=2)
    if args.worker == "epoch-ddp":
        return worker_epoch(args.samples, distributed=True)

    me = os.path.abspath(__file__)
    common = ["--params", str(args.params), "--repeat", str(args.repeat), "--samples", str(args.samples)]
    ember_run = [sys.executable, "-m", "ember.core.distributed.run", "--nproc-per-node", "2"]
    mpiexec = shutil.which("mpiexec") if importlib.util.find_spec("mpi4py") else None
    local = _run(ember_run + [me, "--worker", "allreduce-local"] + common, _env(1))
    mpi = _run([mpiexec, "-n", "2", sys.executable, me, "--worker", "allreduce-mpi"] + common, _env(1)) \
        if mpiexec else None

    print(f"\nDDP gradient all-reduce, 2 ranks, {local['params'] / 1e6:.1f}M float32 parameters "
          f"({local['buckets']} buckets of <= 25 MiB)")
    print(f"{'':34}{'time (ms)':>12}{'ratio':>10}")
    if mpi:
        print(f"{'raw mpi4py Allreduce (1 buffer)':34}{mpi['raw'] * 1e3:12.1f}{1.0:10.2f}")
        print(f"{'DDP reducer, mpi backend':34}{mpi['ddp'] * 1e3:12.1f}{mpi['ddp'] / mpi['raw']:10.2f}"
              "   (target <= 1.3)")
        print(f"{'DDP reducer, local backend':34}{local['ddp'] * 1e3:12.1f}{local['ddp'] / mpi['raw']:10.2f}")
    else:
        print(f"{'DDP reducer, local backend':34}{local['ddp'] * 1e3:12.1f}   (mpi4py not installed: no baseline)")

    print("\nall_reduce bandwidth, 2 ranks, float32 (GB/s of payload; higher is better)")
    print(f"{'size':>8}{'local':>10}{'mpi':>10}{'local / mpi':>14}")
    for mb in SIZES_MB:
        key = str(mb)
        bw_local = mb * (1 << 20) / local["bandwidth"][key] / 1e9
        if mpi:
            bw_mpi = mb * (1 << 20) / mpi["bandwidth"][key] / 1e9
            print(f"{mb:>6}MB{bw_local:10.2f}{bw_mpi:10.2f}{bw_local / bw_mpi:14.2f}")
        else:
            print(f"{mb:>6}MB{bw_local:10.2f}{'-':>10}{'-':>14}")

    one = _run([sys.executable, me, "--worker", "epoch-1"] + common, _env(2))
    one_thread = _run([sys.executable, me, "--worker", "epoch-1"] + common, _env(1))
    two = _run(ember_run + [me, "--worker", "epoch-ddp"] + common, _env(1))
    halves = _run_together([[sys.executable, me, "--worker", "epoch-half"] + common] * 2, _env(1))
    ideal = max(h["epoch"] for h in halves)
    speedup = one["epoch"] / two["epoch"]
    print(f"\nOne epoch of the 784-256-128-10 MLP, {args.samples} samples, global batch 128")
    print(f"{'':40}{'time (s)':>10}{'speedup':>10}")
    print(f"{'1 rank, 2 BLAS threads (baseline)':40}{one['epoch']:10.2f}{1.0:10.2f}")
    print(f"{'1 rank, 1 BLAS thread':40}{one_thread['epoch']:10.2f}{one['epoch'] / one_thread['epoch']:10.2f}")
    print(f"{'2 ranks (DDP, local), 1 BLAS thread each':40}{two['epoch']:10.2f}{speedup:10.2f}")
    print(f"{'2 processes, half the data each, no comm.':40}{ideal:10.2f}{one['epoch'] / ideal:10.2f}"
          "   (the best 2 ranks can do on this machine)")
    print(f"DDP time over the no-communication bound: {two['epoch'] / ideal:.2f}x")
    print(f"scaling efficiency: {speedup / 2:.0%} (speedup over the baseline / 2 ranks; {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} during the run)")


if __name__ == "__main__":
    main()
