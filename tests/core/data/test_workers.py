"""DataLoader worker processes: results, seeding, errors, shutdown, timeouts and persistent workers.

Fork tests may use local classes (nothing is pickled to start a forked worker). The spawn test imports its dataset
from a module written to a temporary directory on sys.path, which the spawned child inherits.
"""
import multiprocessing
import os
import random
import sys
import textwrap
import threading

import numpy as np
import pytest

import ember as em
from ember.core.data import DataLoader, Dataset, IterableDataset, TensorDataset, get_worker_info

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fork is not available on Windows")

FORK = "fork"


@pytest.fixture(autouse=True)
def plain_worker_seeding(monkeypatch):
    monkeypatch.setenv("PL_SEED_WORKERS", "0")  # seed_everything(workers=True) elsewhere must not leak in here


class Crashing(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise ValueError(f"sample {i} is corrupt")
        return i


class WorkerReport(Dataset):
    """Each sample reports which worker fetched it and the first draws of that worker's generators."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = get_worker_info()
        return {"id": info.id, "num_workers": info.num_workers, "seed": info.seed, "pid": os.getpid(),
                "tag": getattr(info.dataset, "tag", "")}


class DrawOnce(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return em.rand(1).item(), random.random(), float(np.random.random_sample())


def no_children():
    return multiprocessing.active_children() == []


def test_workers_give_the_same_batches_as_the_main_process():
    ds = TensorDataset(em.randn(37, 4), em.arange(37))
    ref = [(x.numpy(), y.numpy()) for x, y in
           DataLoader(ds, batch_size=5, shuffle=True, generator=em.Generator().manual_seed(4))]
    got = [(x.numpy(), y.numpy()) for x, y in
           DataLoader(ds, batch_size=5, shuffle=True, generator=em.Generator().manual_seed(4), num_workers=2,
                      multiprocessing_context=FORK)]
    assert len(got) == len(ref) == 8
    for (xa, ya), (xb, yb) in zip(ref, got):
        assert np.array_equal(xa, xb) and np.array_equal(ya, yb)
    assert no_children()


def test_get_worker_info_and_seeds():
    assert get_worker_info() is None  # main process
    loader = DataLoader(WorkerReport(), batch_size=1, num_workers=2, multiprocessing_context=FORK,
                        generator=em.Generator().manual_seed(21))
    reports = [{k: (v[0] if isinstance(v, list) else v.item()) for k, v in b.items()} for b in loader]
    # the base seed is the first draw of the loader's generator; worker k is seeded with base_seed + k
    base_seed = em.randint(0, 2 ** 63 - 1, (), generator=em.Generator().manual_seed(21)).item()
    assert [r["id"] for r in reports] == [0, 1, 0, 1]  # tasks go round-robin
    assert all(r["num_workers"] == 2 for r in reports)
    assert [r["seed"] for r in reports] == [base_seed, base_seed + 1, base_seed, base_seed + 1]
    assert len({r["pid"] for r in reports} - {os.getpid()}) == 2


def test_worker_generators_are_seeded_with_the_worker_seed():
    loader = DataLoader(DrawOnce(), batch_size=1, num_workers=2, multiprocessing_context=FORK,
                        generator=em.Generator().manual_seed(8))
    (e0, r0, n0), (e1, r1, n1) = [[v.item() for v in b] for b in loader]
    base_seed = em.randint(0, 2 ** 63 - 1, (), generator=em.Generator().manual_seed(8)).item()
    assert e0 == pytest.approx(em.rand(1, generator=em.Generator().manual_seed(base_seed)).item())
    assert e1 == pytest.approx(em.rand(1, generator=em.Generator().manual_seed(base_seed + 1)).item())
    assert r0 == random.Random(base_seed).random() and r1 == random.Random(base_seed + 1).random()
    assert n0 != n1  # NumPy's global generator is reseeded per worker too


def tag_dataset(worker_id):
    get_worker_info().dataset.tag = f"worker-{worker_id}"


def test_worker_init_fn_runs_in_each_worker():
    loader = DataLoader(WorkerReport(), batch_size=2, num_workers=2, multiprocessing_context=FORK,
                        worker_init_fn=tag_dataset)
    assert [b["tag"] for b in loader] == [["worker-0", "worker-0"], ["worker-1", "worker-1"]]


def test_seed_workers_env_switches_to_lightning_seeding(monkeypatch):
    def draws(**kw):
        loader = DataLoader(DrawOnce(), batch_size=1, num_workers=2, multiprocessing_context=FORK,
                            generator=em.Generator().manual_seed(8), **kw)
        return [b[0].item() for b in loader]

    monkeypatch.setenv("PL_SEED_WORKERS", "0")
    plain = draws()
    monkeypatch.setenv("PL_SEED_WORKERS", "1")
    derived = draws()
    assert derived != plain and derived == draws()  # different streams, still reproducible
    assert draws(worker_init_fn=lambda wid: None) == plain  # a user's worker_init_fn takes precedence


def test_worker_exception_is_reraised_with_its_traceback():
    loader = DataLoader(Crashing(), batch_size=2, num_workers=2, multiprocessing_context=FORK)
    it = iter(loader)
    assert next(it).tolist() == [0, 1] and next(it).tolist() == [2, 3]
    with pytest.raises(ValueError, match=r"Caught ValueError in DataLoader worker process 0\.\nOriginal Traceback"
                                         r"(.|\n)*in __getitem__(.|\n)*sample 5 is corrupt"):
        next(it)
    del it


def test_worker_exception_under_spawn(tmp_path, monkeypatch):
    (tmp_path / "spawn_crash_ds.py").write_text(textwrap.dedent("""
        from ember.core.data import Dataset

        class CrashAtThree(Dataset):
            def __len__(self):
                return 6

            def __getitem__(self, i):
                if i == 3:
                    raise ValueError("sample 3 is corrupt")
                return i
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    from spawn_crash_ds import CrashAtThree

    loader = DataLoader(CrashAtThree(), batch_size=2, num_workers=1, multiprocessing_context="spawn")
    it = iter(loader)
    assert next(it).tolist() == [0, 1]
    with pytest.raises(ValueError, match="Caught ValueError in DataLoader worker process 0(.|\n)*sample 3 is "
                                         "corrupt"):
        next(it)
    del it


def test_spawn_with_a_lambda_explains_pickling():
    loader = DataLoader(TensorDataset(em.arange(4)), batch_size=2, num_workers=1, multiprocessing_context="spawn",
                        worker_init_fn=lambda worker_id: None)
    with pytest.raises(RuntimeError, match="'spawn' pickles the dataset, collate_fn and worker_init_fn, so they must "
                                           "be defined at module level"):
        iter(loader)
    assert no_children()


def test_breaking_early_leaves_no_processes():
    ds = TensorDataset(em.arange(100))
    loader = DataLoader(ds, batch_size=2, num_workers=2, multiprocessing_context=FORK)
    for _ in loader:
        break
    assert no_children()
    it = iter(loader)
    next(it)
    assert len(multiprocessing.active_children()) == 2
    del it
    assert no_children()


def test_dead_worker_is_reported():
    class Dies(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            os._exit(3)

    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+.*\) exited unexpectedly"):
        list(DataLoader(Dies(), batch_size=2, num_workers=1, multiprocessing_context=FORK))
    assert no_children()


def test_timeout_raises():
    never = threading.Event()

    class Stuck(Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            never.wait()

    loader = DataLoader(Stuck(), batch_size=2, num_workers=1, timeout=0.2, multiprocessing_context=FORK)
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.2 seconds"):
        for _ in loader:
            pass
    assert no_children()


def test_unpicklable_batch_gives_a_clear_error():
    class Lambdas(Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return lambda: i

    loader = DataLoader(Lambdas(), batch_size=2, num_workers=1, multiprocessing_context=FORK, collate_fn=list)
    with pytest.raises(Exception, match="the batch must be picklable"):
        list(loader)


def test_persistent_workers_survive_epochs():
    loader = DataLoader(WorkerReport(), batch_size=2, num_workers=2, multiprocessing_context=FORK,
                        persistent_workers=True)
    pids = [sorted({p for b in loader for p in b["pid"].tolist()}) for _ in range(3)]
    assert pids[0] == pids[1] == pids[2] and len(pids[0]) == 2
    for _ in loader:  # a broken-off epoch does not disturb the next one
        break
    assert [b["id"].tolist() for b in loader] == [[0, 0], [1, 1]]
    del loader
    assert no_children()


class Shards(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, self.n, step))


def test_iterable_dataset_sharded_across_workers():
    loader = DataLoader(Shards(10), batch_size=2, num_workers=2, multiprocessing_context=FORK)
    # batches alternate between the workers, each streaming its own shard
    assert [b.tolist() for b in loader] == [[0, 2], [1, 3], [4, 6], [5, 7], [8], [9]]
    persistent = DataLoader(Shards(5), batch_size=2, num_workers=2, multiprocessing_context=FORK,
                            persistent_workers=True)
    assert [[b.tolist() for b in persistent] for _ in range(2)] == [[[0, 2], [1, 3], [4]]] * 2
    del persistent
    assert no_children()
