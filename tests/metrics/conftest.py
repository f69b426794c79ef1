"""Fixtures for the metric tests: an in-process fake process group whose ranks are threads."""
import functools
import threading

import numpy as np
import pytest

import ember as em
from ember.metrics.utilities.distributed import gather_all_tensors


class FakeProcessGroup:
    """``torch.distributed``'s API for ``world_size`` ranks, each a thread of this process.

    ``all_gather`` behaves like the real collective: it fills the preallocated ``tensor_list`` in place and
    refuses tensors whose shapes differ across ranks (so the padding in ``gather_all_tensors`` is exercised).
    """

    def __init__(self, world_size: int = 2, timeout: float = 20.0):
        self.world_size = world_size
        self._barrier = threading.Barrier(world_size, timeout=timeout)
        self._slots = [None] * world_size
        self._local = threading.local()
        self.calls = 0

    # -- the process-group API -------------------------------------------------------------------------------
    def is_available(self):
        return True

    def is_initialized(self):
        return True

    def get_world_size(self, group=None):
        return self.world_size

    def get_rank(self, group=None):
        return self._local.rank

    def barrier(self, group=None):
        self._barrier.wait()

    def all_gather(self, tensor_list, tensor, group=None):
        rank = self._local.rank
        self._slots[rank] = np.array(tensor._data, copy=True)
        self._barrier.wait()
        shapes = {s.shape for s in self._slots}
        dtypes = {s.dtype for s in self._slots}
        error = None
        if len(shapes) != 1 or len(dtypes) != 1:
            error = RuntimeError(f"all_gather needs equal shapes and dtypes on every rank, got {shapes} {dtypes}")
        else:
            for i, out in enumerate(tensor_list):
                out._data[...] = self._slots[i]
        if rank == 0:
            self.calls += 1
        self._barrier.wait()
        if error is not None:
            raise error

    # -- running ranks ---------------------------------------------------------------------------------------
    def run(self, fn):
        """Run ``fn(rank)`` on every rank concurrently; return the results in rank order."""
        results = [None] * self.world_size
        errors = []

        def target(rank):
            self._local.rank = rank
            try:
                results[rank] = fn(rank)
            except BaseException as exc:  # re-raised in the main thread
                errors.append(exc)
                self._barrier.abort()

        threads = [threading.Thread(target=target, args=(r,)) for r in range(self.world_size)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        return results

    def sync_kwargs(self):
        """Metric constructor options that route its sync through this group."""
        return {"dist_sync_fn": functools.partial(gather_all_tensors, backend=self),
                "distributed_available_fn": lambda: True}


@pytest.fixture
def fake_group():
    """A two-rank fake process group."""
    return FakeProcessGroup(2)


def assert_close(actual, expected, atol=1e-6):
    """Compare a tensor (or nested tuple/list of tensors) with expected numbers."""
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_close(a, e, atol)
        return
    a = actual.numpy() if isinstance(actual, em.Tensor) else np.asarray(actual)
    np.testing.assert_allclose(a, np.asarray(expected, dtype=np.float64), atol=atol, rtol=1e-5)


@pytest.fixture
def close():
    return assert_close
