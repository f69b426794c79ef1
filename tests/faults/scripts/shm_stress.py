"""Run by tests/faults/test_distributed_faults.py under ``ember-run --nproc-per-node 2``: for each collective,
``REPS`` repetitions on a fresh group whose first large payload makes the shared slot grow (sizes around the
growth threshold), each followed at once by ``destroy_process_group(group)``; then the world's last collective is a
large one right before the script exits. A peer whose segment was unlinked too early fails with FileNotFoundError."""
import sys

import numpy as np

import ember as em
import ember.distributed as dist

REPS = int(sys.argv[1])
INLINE = 1 << 16
SIZES = [INLINE // 4 + 1, (1 << 18) - 1, 1 << 18, (1 << 18) + 1, 300_000]  # float32 elements: 64 KiB .. 1.2 MB

dist.init_process_group("local")
rank, world = dist.get_rank(), dist.get_world_size()
for op in ("all_gather", "all_reduce", "broadcast"):
    for rep in range(REPS):
        group = dist.new_group([0, 1])
        n = SIZES[rep % len(SIZES)]
        x = em.full((n,), float(rank + 1 + rep))
        if op == "all_gather":
            out = [em.zeros(n) for _ in range(world)]
            dist.all_gather(out, x, group=group)
            ok = all(float(o[0]) == float(r + 1 + rep) and float(o[-1]) == float(r + 1 + rep)
                     for r, o in enumerate(out))
        elif op == "all_reduce":
            dist.all_reduce(x, group=group)
            ok = float(x[0]) == float(x[-1]) == float(sum(r + 1 + rep for r in range(world)))
        else:
            dist.broadcast(x, src=rep % world, group=group)
            ok = float(x[0]) == float(x[-1]) == float(rep % world + 1 + rep)
        assert ok, (op, rep, n)
        dist.destroy_process_group(group)
print(f"rank {rank} ok", flush=True)
big = [em.zeros(24000) for _ in range(world)]
dist.all_gather(big, em.randn(24000))  # and exit right away: the peer may still be opening this rank's segment
