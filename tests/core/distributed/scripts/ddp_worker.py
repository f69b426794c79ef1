"""DistributedDataParallel checks on this rank, for ``test_ddp.py``: ``python ddp_worker.py OUT_DIR BACKEND``.

Writes ``OUT_DIR/ddp-BACKEND-rank{r}.json`` with the weights and gradients the test compares against references
it computes itself in one process.
"""
import json
import os
import sys
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ddp_cases import equivalence_data, join_batches, make_mlp  # noqa: E402

import ember as em  # noqa: E402
import ember.distributed as dist  # noqa: E402
from ember.core import nn, optim  # noqa: E402
from ember.core.nn.parallel import DistributedDataParallel as DDP  # noqa: E402


def arrays(tensors):
    return [None if t is None else np.asarray(t._data, dtype=np.float64).tolist() for t in tensors]


def main():
    out_dir, backend = sys.argv[1], sys.argv[2]
    dist.init_process_group(backend, timeout=30)
    r, w = dist.get_rank(), dist.get_world_size()
    res = {}

    def record(name, fn):
        try:
            res[name] = {"value": fn()}
        except Exception as exc:
            res[name] = {"error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()}

    def equivalence():
        model = DDP(make_mlp(seed=100 + r), bucket_cap_mb=0.03)  # each rank starts from different weights
        initial = arrays(model.parameters())
        calls = []
        reduce_bucket = model.reducer.all_reduce_bucket
        model.reducer.all_reduce_bucket = lambda buf, **kw: calls.append(buf.size) or reduce_bucket(buf, **kw)
        opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        x, y = equivalence_data()
        for step in range(20):
            xb, yb = x[step * 64:(step + 1) * 64][r::w], y[step * 64:(step + 1) * 64][r::w]  # 32 each
            opt.zero_grad()
            nn.functional.cross_entropy(model(em.tensor(xb)), em.tensor(yb)).backward()
            opt.step()
        return {"initial": initial, "final": arrays(model.parameters()), "calls": calls[:len(calls) // 20],
                "buckets": model.reducer.bucket_sizes(), "keys": list(model.state_dict())[:2]}
    record("equivalence", equivalence)

    def no_sync():
        model = DDP(make_mlp(seed=1, width=5))
        x = em.tensor(np.arange(8, dtype=np.float32).reshape(1, 8) * (r + 1))
        with model.no_sync():
            model(x).sum().backward()
        local = arrays(p.grad for p in model.parameters())
        model(x * 2).sum().backward()
        return {"local": local, "synced": arrays(p.grad for p in model.parameters())}
    record("no_sync", no_sync)

    class Branchy(nn.Module):
        def __init__(self):
            super().__init__()
            em.manual_seed(3)
            self.a = nn.Linear(2, 1)
            self.b = nn.Linear(2, 1)
            self.never = nn.Linear(2, 1)

        def forward(self, x, use_b):
            out = self.a(x)
            return out + self.b(x) if use_b else out

    def unused():
        model = DDP(Branchy(), find_unused_parameters=True)
        x = em.tensor([[1.0, 2.0]]) * (r + 1)
        model(x, use_b=(r == 1)).sum().backward()
        first = arrays(p.grad for p in model.parameters())
        model(x, use_b=False).sum().backward()  # b unused everywhere now: its grad stays as it was
        return {"first": first, "second": arrays(p.grad for p in model.parameters())}
    record("find_unused", unused)

    def unused_error():
        model = DDP(Branchy())
        x = em.tensor([[1.0, 2.0]])
        model(x, use_b=False).sum().backward()
        model(x, use_b=False)
    record("unused_error", unused_error)

    def join():
        model = DDP(make_mlp(seed=5, width=6), bucket_cap_mb=0.0001)
        opt = optim.SGD(model.parameters(), lr=0.2)
        with model.join():
            for xb in join_batches(r):
                opt.zero_grad()
                model(em.tensor(xb)).pow(2).mean().backward()
                opt.step()
        return arrays(model.parameters())
    record("join", join)

    def join_buffers():
        em.manual_seed(9)
        net = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 1))
        model = DDP(net)
        opt = optim.SGD(model.parameters(), lr=0.1)
        rng = np.random.default_rng(r)
        with model.join():
            for _ in range(2 + 3 * r):
                opt.zero_grad()
                model(em.tensor(rng.standard_normal((6, 3)).astype(np.float32))).sum().backward()
                opt.step()
        return arrays(list(net.parameters()) + list(net.buffers()))
    record("join_buffers", join_buffers)

    def checkpoint():
        model = DDP(make_mlp(seed=20 + r, width=4))
        path = os.path.join(out_dir, f"ddp-{backend}.ckpt")
        if r == 0:
            with em.no_grad():
                for p in model.parameters():
                    p.add_(1.0)
            em.save(model.state_dict(), path)
        dist.barrier()
        model.load_state_dict(em.load(path))
        return arrays(model.parameters())
    record("checkpoint", checkpoint)

    with open(os.path.join(out_dir, f"ddp-{backend}-rank{r}.json"), "w") as fh:
        json.dump(res, fh)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
