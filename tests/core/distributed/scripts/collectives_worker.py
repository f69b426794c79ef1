"""Runs every collective and point-to-point call on this rank and writes what came out, for
``test_collectives.py``: ``python collectives_worker.py OUT_DIR BACKEND`` under ember-run or mpiexec."""
import json
import os
import sys
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from collective_cases import DTYPES, OPS, chunk, value  # noqa: E402

import ember as em  # noqa: E402
import ember.distributed as dist  # noqa: E402


def T(a):
    return em.tensor(np.asarray(a))


def main():
    out_dir, backend = sys.argv[1], sys.argv[2]
    dist.init_process_group(backend, timeout=30)
    r, w = dist.get_rank(), dist.get_world_size()
    res = {}

    def record(name, fn):
        try:
            out = fn()
            res[name] = {"value": out}
        except Exception as exc:  # recorded: the test shows it
            res[name] = {"error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()}

    for dt in DTYPES:
        for op in OPS:
            def ar(dt=dt, op=op):
                t = T(value(r, dt))
                dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
                return [t.dtype.__repr__(), t.tolist()]
            record(f"all_reduce/{dt}/{op}", ar)

            def red(dt=dt, op=op):
                t = T(value(r, dt))
                dist.reduce(t, dst=w - 1, op=getattr(dist.ReduceOp, op))
                return t.tolist()
            record(f"reduce/{dt}/{op}", red)

            def rs(dt=dt, op=op):
                out = T(np.zeros(3, dt))
                dist.reduce_scatter(out, [T(chunk(r, d, dt)) for d in range(w)], op=getattr(dist.ReduceOp, op))
                return out.tolist()
            record(f"reduce_scatter/{dt}/{op}", rs)

            def rst(dt=dt, op=op):
                out = T(np.zeros(3, dt))
                dist.reduce_scatter_tensor(out, T(np.concatenate([chunk(r, d, dt) for d in range(w)])),
                                           op=getattr(dist.ReduceOp, op))
                return out.tolist()
            record(f"reduce_scatter_tensor/{dt}/{op}", rst)

            def ar_async(dt=dt, op=op):
                t = T(value(r, dt))
                work = dist.all_reduce(t, op=getattr(dist.ReduceOp, op), async_op=True)
                assert isinstance(work, dist.Work)
                work.wait()
                return [bool(work.is_completed()), t.tolist()]
            record(f"all_reduce_async/{dt}/{op}", ar_async)

        def bc(dt=dt):
            t = T(value(r, dt))
            dist.broadcast(t, src=w - 1)
            return t.tolist()
        record(f"broadcast/{dt}", bc)

        def ag(dt=dt):
            outs = [T(np.zeros(6, dt)) for _ in range(w)]
            dist.all_gather(outs, T(value(r, dt)))
            return [o.tolist() for o in outs]
        record(f"all_gather/{dt}", ag)

        def agt(dt=dt):
            out = T(np.zeros((w * 6,), dt))
            dist.all_gather_into_tensor(out, T(value(r, dt)))
            return out.tolist()
        record(f"all_gather_into_tensor/{dt}", agt)

        def ga(dt=dt):
            outs = [T(np.zeros(6, dt)) for _ in range(w)] if r == 0 else None
            dist.gather(T(value(r, dt)), outs, dst=0)
            return [o.tolist() for o in outs] if outs else None
        record(f"gather/{dt}", ga)

        def sc(dt=dt):
            out = T(np.zeros(3, dt))
            src = w - 1
            dist.scatter(out, [T(chunk(src, d, dt)) for d in range(w)] if r == src else None, src=src)
            return out.tolist()
        record(f"scatter/{dt}", sc)

        def a2a(dt=dt):
            outs = [T(np.zeros(3, dt)) for _ in range(w)]
            dist.all_to_all(outs, [T(chunk(r, d, dt)) for d in range(w)])
            return [o.tolist() for o in outs]
        record(f"all_to_all/{dt}", a2a)

        def p2p(dt=dt):
            # a ring: send to the next rank, receive from the previous one (evens send first: no deadlock either way)
            nxt, prv = (r + 1) % w, (r - 1) % w
            got = T(np.zeros(6, dt))
            if r % 2 == 0:
                dist.send(T(value(r, dt)), dst=nxt)
                src = dist.recv(got, src=prv)
            else:
                src = dist.recv(got, src=prv)
                dist.send(T(value(r, dt)), dst=nxt)
            return [src, got.tolist()]
        record(f"send_recv/{dt}", p2p)

        def ip2p(dt=dt):
            nxt, prv = (r + 1) % w, (r - 1) % w
            got = T(np.zeros(6, dt))
            rw = dist.irecv(got, src=prv, tag=7)
            sw = dist.isend(T(value(r, dt)), dst=nxt, tag=7)
            sw.wait()
            rw.wait()
            return [bool(rw.is_completed()), bool(sw.is_completed()), rw.source_rank(), got.tolist()]
        record(f"isend_irecv/{dt}", ip2p)

        def any_src(dt=dt):
            if r == 0:
                got, seen = T(np.zeros(6, dt)), {}
                for _ in range(w - 1):
                    src = dist.recv(got, tag=3)
                    seen[src] = got.tolist()
                return {str(k): v for k, v in seen.items()}
            dist.send(T(value(r, dt)), dst=0, tag=3)
            return None
        record(f"recv_any_source/{dt}", any_src)

    def big():
        t = T(np.full(50_000, r + 1, np.float32))  # 200 kB: the shared-memory path of the local backend
        dist.all_reduce(t)
        u = T(np.arange(50_000, dtype=np.float64) * (r + 1))
        dist.broadcast(u, src=0)
        return [float(t[0]), float(t[-1]), float(u.sum())]
    record("large", big)

    def barrier():
        dist.barrier()
        return dist.barrier(async_op=True).wait()
    record("barrier", barrier)

    def objects():
        out = [None] * w
        dist.all_gather_object(out, {"rank": r, "name": f"r{r}"})
        lst = [f"from{r}", r * 10] if r == 0 else [None, None]
        dist.broadcast_object_list(lst, src=0)
        g = [None] * w if r == 0 else None
        dist.gather_object(("g", r), g, dst=0)
        so = [None]
        dist.scatter_object_list(so, [f"to{d}" for d in range(w)] if r == 0 else None, src=0)
        return [out, lst, g, so[0]]
    record("objects", objects)

    def groups():
        sub = dist.new_group([0, w - 1])
        if sub is dist.GroupMember.NON_GROUP_MEMBER:
            return ["non-member", dist.get_rank(sub), dist.get_world_size(sub)]
        t = T(np.array([r + 1.0]))
        dist.all_reduce(t, group=sub)
        b = T(np.array([float(r)]))
        dist.broadcast(b, src=w - 1, group=sub)
        return ["member", dist.get_rank(sub), dist.get_world_size(sub), t.tolist(), b.tolist(),
                dist.get_process_group_ranks(sub)]
    record("new_group", groups)

    def half_bool():
        h = T(value(r, "float16"))
        dist.all_reduce(h)
        b = em.tensor([r == 0, True, False])
        dist.all_reduce(b, op=dist.ReduceOp.MAX)
        c = em.tensor([r == 0, True, False])
        dist.all_reduce(c, op=dist.ReduceOp.MIN)
        nc = T(value(r, "float64").reshape(2, 3)).t()  # a non-contiguous view
        dist.all_reduce(nc)
        hb = T(value(r, "float16"))
        dist.broadcast(hb, src=w - 1)
        hg = [T(np.zeros(6, "float16")) for _ in range(w)]
        dist.all_gather(hg, T(value(r, "float16")))
        return [str(h.dtype), h.tolist(), b.tolist(), c.tolist(), nc.tolist(), hb.tolist(), [x.tolist() for x in hg]]
    record("dtypes_and_views", half_bool)

    def scalars():  # 0-d tensors keep their shape through every kind of call
        s = em.tensor(float(r + 1))
        dist.all_reduce(s)
        outs = [em.tensor(0.0) for _ in range(w)]
        dist.all_gather(outs, em.tensor(float(r)))
        b = em.tensor(float(r))
        dist.broadcast(b, src=w - 1)
        got = em.tensor(0.0)
        req = dist.irecv(got, src=(r - 1) % w)
        dist.send(em.tensor(float(r)), dst=(r + 1) % w)
        req.wait()
        return [list(s.shape), s.item(), [o.item() for o in outs], b.item(), got.item()]
    record("scalars", scalars)

    def mismatch_shape():
        dist.all_reduce(T(np.zeros(3 + r, np.float32)))
    record("mismatch_shape", mismatch_shape)

    def mismatch_dtype():
        dist.all_reduce(T(np.zeros(3, "float32" if r == 0 else "float64")))
    record("mismatch_dtype", mismatch_dtype)

    def mismatch_op():
        t = T(np.zeros(4, np.float32))
        if r == 0:
            dist.broadcast(t, src=0)
        else:
            dist.all_reduce(t)
    record("mismatch_call", mismatch_op)

    def mismatch_recv():
        if r == 0:
            dist.send(T(np.zeros((2, 3), np.float32)), dst=1, tag=9)
        elif r == 1:
            dist.recv(T(np.zeros((4,), np.float32)), src=0, tag=9)
        return "ok"
    record("mismatch_recv", mismatch_recv)

    def after_errors():  # the group still works after the mismatches
        t = T(np.ones(2))
        dist.all_reduce(t)
        return t.tolist()
    record("after_errors", after_errors)

    with open(os.path.join(out_dir, f"{backend}-{w}-rank{r}.json"), "w") as fh:
        json.dump(res, fh)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
