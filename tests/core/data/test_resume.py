"""Resumable iteration: a loader restored from its state_dict continues exactly like an uninterrupted run."""
import json

import numpy as np
import pytest

import ember as em
from ember.core.data import DataLoader, IterableDataset, RandomSampler, TensorDataset

N, BATCH, K = 23, 4, 3  # 6 batches per epoch, the last one partial; interrupt after K batches


def dataset():
    return TensorDataset(em.arange(N) * 10, em.arange(N))


def labels(batches):
    return [b[1].tolist() for b in batches]


def make(generator=None, **kw):
    return DataLoader(dataset(), batch_size=BATCH, shuffle=True, generator=generator, **kw)


def assert_json_compatible(state):
    """Plain Python values, plus small uint8 tensors (generator states)."""
    tensors = []

    def default(obj):
        if isinstance(obj, em.Tensor):
            tensors.append(obj)
            return obj.tolist()
        raise TypeError(f"not JSON-able: {type(obj).__name__}")

    json.dumps(state, default=default)
    assert all(t.dtype == em.uint8 and t.numel() < 4096 for t in tensors)


@pytest.mark.parametrize("num_workers", [0, 2])
def test_restore_with_explicit_generator(num_workers):
    kw = dict(num_workers=num_workers, multiprocessing_context="fork" if num_workers else None)
    ref_loader = make(em.Generator().manual_seed(5), **kw)
    reference = [labels(ref_loader) for _ in range(3)]
    assert reference[0] != reference[1]

    loader = make(em.Generator().manual_seed(5), **kw)
    it = iter(loader)
    head = [next(it)[1].tolist() for _ in range(K)]
    state = loader.state_dict()
    del it
    assert state["epoch_in_progress"] and state["num_yielded"] == K
    assert_json_compatible(state)

    restored = make(em.Generator().manual_seed(12345), **kw)  # a different seed: the state must win
    restored.load_state_dict(json.loads(json.dumps(state, default=lambda t: t.tolist())))
    tail = labels(restored)
    assert head + tail == reference[0]
    assert labels(restored) == reference[1] and labels(restored) == reference[2]


@pytest.mark.parametrize("num_workers", [0, 2])
def test_restore_with_global_generator(num_workers):
    kw = dict(num_workers=num_workers, multiprocessing_context="fork" if num_workers else None)
    em.manual_seed(77)
    ref_loader = make(**kw)
    reference = [labels(ref_loader) for _ in range(3)]

    em.manual_seed(77)
    loader = make(**kw)
    it = iter(loader)
    head = [next(it)[1].tolist() for _ in range(K)]
    state, rng = loader.state_dict(), em.get_rng_state()  # what a checkpoint holds
    del it

    em.manual_seed(0)  # a new process: different global state until the checkpoint is restored
    restored = make(**kw)
    restored.load_state_dict(state)
    em.set_rng_state(rng)
    assert head + labels(restored) == reference[0]
    assert [labels(restored) for _ in range(2)] == reference[1:]


def test_state_dict_round_trip_before_iterating():
    loader = make(em.Generator().manual_seed(1))
    list(loader)
    state = loader.state_dict()
    restored = make(em.Generator().manual_seed(2))
    restored.load_state_dict(state)
    assert restored.state_dict()["epoch_in_progress"] == state["epoch_in_progress"]
    assert labels(restored) == labels(loader)  # the next epoch is drawn from the same generator state


def test_restore_between_epochs_and_at_the_last_batch():
    reference = [labels(loader) for loader in [make(em.Generator().manual_seed(3))] for _ in range(3)]

    loader = make(em.Generator().manual_seed(3))
    first = labels(loader)  # epoch 0 ran to StopIteration
    between = loader.state_dict()
    assert not between["epoch_in_progress"]

    it = iter(loader)
    second = [b[1].tolist() for b in [next(it) for _ in range(len(loader))]]  # every batch, no StopIteration yet
    at_last = loader.state_dict()
    assert at_last["epoch_in_progress"] and at_last["num_yielded"] == len(loader)
    assert [first, second] == reference[:2]

    a = make(em.Generator().manual_seed(0))
    a.load_state_dict(between)
    assert labels(a) == reference[1]
    b = make(em.Generator().manual_seed(0))
    b.load_state_dict(at_last)
    assert labels(b) == []  # nothing was left of that epoch
    assert labels(b) == reference[2]


class Stream(IterableDataset):
    def __iter__(self):
        return iter(range(10))


def test_restore_iterable_dataset_replays_and_skips():
    loader = DataLoader(Stream(), batch_size=3)
    it = iter(loader)
    next(it), next(it)
    restored = DataLoader(Stream(), batch_size=3)
    restored.load_state_dict(loader.state_dict())
    assert [b.tolist() for b in restored] == [[6, 7, 8], [9]]


def test_restore_with_persistent_workers():
    kw = dict(num_workers=2, multiprocessing_context="fork", persistent_workers=True)
    ref_loader = make(em.Generator().manual_seed(8), **kw)
    reference = [labels(ref_loader) for _ in range(2)]
    loader = make(em.Generator().manual_seed(8), **kw)
    it = iter(loader)
    head = [next(it)[1].tolist() for _ in range(K)]
    restored = make(em.Generator().manual_seed(99), **kw)
    restored.load_state_dict(loader.state_dict())
    assert head + labels(restored) == reference[0] and labels(restored) == reference[1]
    del it, loader, restored, ref_loader


def test_sampler_resumes_without_the_loader():
    s = RandomSampler(range(12), generator=em.Generator().manual_seed(4))
    full = list(RandomSampler(range(12), generator=em.Generator().manual_seed(4)))
    it = iter(s)
    head = [next(it) for _ in range(5)]
    s2 = RandomSampler(range(12), generator=em.Generator().manual_seed(0))
    s2.load_state_dict(s.state_dict())
    assert head + list(s2) == full


def test_load_state_dict_rejects_bad_states():
    loader = make()
    with pytest.raises(TypeError, match="expected a dict, got list"):
        loader.load_state_dict([1, 2])
    with pytest.raises(KeyError, match="missing \\['base_seed', 'sampler'\\]"):
        loader.load_state_dict({"epoch_in_progress": True, "num_yielded": 1})
    with pytest.raises(ValueError, match="num_yielded must be a non-negative int, got -1"):
        loader.load_state_dict({"epoch_in_progress": True, "num_yielded": -1, "base_seed": None, "sampler": None})
    assert np.array_equal(sorted(sum(labels(loader), [])), np.arange(N))  # still usable
