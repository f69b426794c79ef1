"""The other rank of test_bad_input.py's two-process checks: ``python peer.py MODE INIT_METHOD``.

* ``world3``: joins a 2-rank rendezvous claiming world_size=3 (must be refused);
* ``file``: joins a file:// rendezvous as rank 1, all-reduces once, then waits in a receive that rank 0 never
  sends (rank 0 times out in a collective; this rank must learn it at once and fail);
* ``mpi-timeout``: under mpiexec, rank 1 skips a barrier so that rank 0's watchdog aborts the job.
"""
import sys

import ember as em
import ember.distributed as dist

mode = sys.argv[1]
if mode == "world3":
    dist.init_process_group("local", init_method=sys.argv[2], world_size=3, rank=1, timeout=20)
elif mode == "file":
    dist.init_process_group("local", init_method=sys.argv[2], world_size=2, rank=1, timeout=20)
    t = em.ones(2)
    dist.all_reduce(t)
    print("sum", t.tolist(), flush=True)
    group = dist.new_group([0, 1], timeout=0.5)
    dist.recv(em.zeros(1), src=0)
elif mode == "mpi-timeout":
    dist.init_process_group("mpi", timeout=0.5)
    if dist.get_rank() == 0:
        dist.barrier()
    else:
        dist.recv(em.zeros(1), src=0)
