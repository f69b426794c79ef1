"""Samplers: order, seeding, batching, DistributedSampler's partitioning and the samplers' own state_dict."""
import numpy as np
import pytest

import ember as em
from ember.core.data import (BatchSampler, DistributedSampler, RandomSampler, Sampler, SequentialSampler,
                             SubsetRandomSampler, WeightedRandomSampler)


class NoLen:
    def __getitem__(self, i):
        return i


def perm(n, seed):
    """The permutation an ember generator seeded with ``seed`` draws: what a seeded shuffle must follow."""
    return em.randperm(n, generator=em.Generator().manual_seed(seed)).tolist()


def test_sequential_sampler():
    s = SequentialSampler(range(5))
    assert list(s) == [0, 1, 2, 3, 4] and len(s) == 5


def test_random_sampler_with_generator_follows_the_generator():
    g = em.Generator().manual_seed(42)
    s = RandomSampler(range(10), generator=g)
    first, second = list(s), list(s)
    assert sorted(first) == list(range(10))
    ref = em.Generator().manual_seed(42)
    assert first == em.randperm(10, generator=ref).tolist()
    assert second == em.randperm(10, generator=ref).tolist()  # the generator advances between epochs
    assert first != second


def test_random_sampler_seeded_shuffle_repeats_exactly():
    em.manual_seed(5)
    a = [list(RandomSampler(range(50))) for _ in range(2)]
    em.manual_seed(5)
    b = [list(RandomSampler(range(50))) for _ in range(2)]
    assert a == b and a[0] != a[1]
    # without a generator, each epoch seeds a fresh generator with a seed drawn from the global one (as PyTorch)
    em.manual_seed(5)
    seed = em.randint(0, 2 ** 63 - 1, ()).item()
    assert a[0] == perm(50, seed)


def test_random_sampler_num_samples_and_replacement():
    s = RandomSampler(range(4), num_samples=10, generator=em.Generator().manual_seed(0))
    out = list(s)
    assert len(out) == 10 and len(s) == 10
    assert sorted(out[:4]) == [0, 1, 2, 3] and sorted(out[4:8]) == [0, 1, 2, 3]  # chained permutations
    r = list(RandomSampler(range(3), replacement=True, num_samples=200, generator=em.Generator().manual_seed(0)))
    assert len(r) == 200 and set(r) == {0, 1, 2}


def test_random_sampler_errors():
    with pytest.raises(TypeError, match="replacement should be a boolean value, but got replacement=1"):
        RandomSampler(range(3), replacement=1)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=0"):
        RandomSampler(range(3), num_samples=0)
    with pytest.raises(TypeError, match="RandomSampler: data_source must .* defines __len__.*NoLen has no __len__"):
        RandomSampler(NoLen())
    with pytest.raises(TypeError, match="SequentialSampler: data_source"):
        SequentialSampler(NoLen())
    with pytest.raises(TypeError, match="generator must be an ember.Generator"):
        RandomSampler(range(3), generator=np.random.default_rng(0))


def test_subset_random_sampler():
    idx = [10, 20, 30, 40]
    out = list(SubsetRandomSampler(idx, generator=em.Generator().manual_seed(3)))
    assert out == [idx[i] for i in perm(4, 3)]


def test_weighted_random_sampler():
    s = WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], num_samples=400, generator=em.Generator().manual_seed(0))
    out = np.array(list(s))
    assert set(out.tolist()) == {1, 3}  # zero weight is never drawn
    assert 0.65 < np.mean(out == 3) < 0.85  # P(3) = 0.75; 400 draws: 5 standard deviations either side
    no_rep = list(WeightedRandomSampler([1, 1, 1, 1, 1], 5, replacement=False, generator=em.Generator()))
    assert sorted(no_rep) == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="weights should be a 1d sequence but given weights have shape \\(2, 2\\)"):
        WeightedRandomSampler([[1, 2], [3, 4]], 2)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
        WeightedRandomSampler([1, 2], 0)
    with pytest.raises(ValueError, match="non-negative"):
        WeightedRandomSampler([1, -2], 2)
    with pytest.raises(ValueError, match="without replacement from 1 non-zero weights"):
        WeightedRandomSampler([0, 5], 2, replacement=False)


def test_batch_sampler_groups_indices():
    assert list(BatchSampler(SequentialSampler(range(10)), 3, False)) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert list(BatchSampler(SequentialSampler(range(10)), 3, True)) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    assert len(BatchSampler(range(10), 3, False)) == 4 and len(BatchSampler(range(10), 3, True)) == 3
    assert list(BatchSampler([4, 2, 0], 2, False)) == [[4, 2], [0]]  # any iterable works as the sampler


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_batch_sampler_rejects_bad_batch_size(bad):
    with pytest.raises(ValueError, match=f"batch_size should be a positive integer value, but got batch_size={bad}"):
        BatchSampler(range(3), bad, False)


def test_batch_sampler_rejects_bad_drop_last():
    with pytest.raises(ValueError, match="drop_last should be a boolean value, but got drop_last=1"):
        BatchSampler(range(3), 2, 1)


def test_sampler_base_warns_about_data_source():
    with pytest.warns(UserWarning, match="`data_source` argument is not used"):
        Sampler(range(3))
    with pytest.raises(NotImplementedError):
        iter(Sampler())


# PyTorch's DistributedSampler with shuffle=False, derived by hand from its algorithm:
#   no drop_last: num_samples = ceil(N / R), indices padded to R * num_samples by repeating from the start;
#   drop_last and N % R != 0: num_samples = ceil((N - R) / R), indices cut to R * num_samples;
#   rank r takes indices[r : total : R].
DISTRIBUTED_CASES = {
    # N=10, R=2: divides evenly, drop_last changes nothing
    (10, 2, False): [[0, 2, 4, 6, 8], [1, 3, 5, 7, 9]],
    (10, 2, True): [[0, 2, 4, 6, 8], [1, 3, 5, 7, 9]],
    # N=10, R=3: total 12, padded [0..9, 0, 1] / cut to 9 = [0..8]
    (10, 3, False): [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]],
    (10, 3, True): [[0, 3, 6], [1, 4, 7], [2, 5, 8]],
    # N=11, R=2: total 12, padded [0..10, 0] / num_samples ceil(9/2)=5, cut to [0..9]
    (11, 2, False): [[0, 2, 4, 6, 8, 10], [1, 3, 5, 7, 9, 0]],
    (11, 2, True): [[0, 2, 4, 6, 8], [1, 3, 5, 7, 9]],
    # N=11, R=3: total 12, padded [0..10, 0] / num_samples ceil(8/3)=3, cut to [0..8]
    (11, 3, False): [[0, 3, 6, 9], [1, 4, 7, 10], [2, 5, 8, 0]],
    (11, 3, True): [[0, 3, 6], [1, 4, 7], [2, 5, 8]],
}


@pytest.mark.parametrize("n,replicas,drop_last", list(DISTRIBUTED_CASES))
def test_distributed_sampler_matches_pytorch_without_shuffle(n, replicas, drop_last):
    expected = DISTRIBUTED_CASES[(n, replicas, drop_last)]
    for rank in range(replicas):
        s = DistributedSampler(range(n), num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
        assert list(s) == expected[rank]
        assert len(s) == len(expected[rank])


def test_distributed_sampler_pads_small_datasets_by_cycling():
    # N=2, R=5: total 5, padding 3 > 2 items, so the list is repeated: [0, 1, 0, 1, 0]
    assert [list(DistributedSampler(range(2), 5, r, shuffle=False)) for r in range(5)] == [[0], [1], [0], [1], [0]]


def test_distributed_sampler_shuffle_is_a_shared_seeded_permutation():
    shards = [list(DistributedSampler(range(12), 3, r, shuffle=True, seed=7)) for r in range(3)]
    order = perm(12, 7)  # generator seeded with seed + epoch = 7
    assert shards == [order[r::3] for r in range(3)]
    s = DistributedSampler(range(12), 3, 0, seed=7)
    s.set_epoch(2)
    assert list(s) == perm(12, 9)[0::3]


def test_distributed_sampler_errors():
    with pytest.raises(ValueError, match=r"Invalid rank 3, rank should be in the interval \[0, 2\]"):
        DistributedSampler(range(10), num_replicas=3, rank=3)
    with pytest.raises(RuntimeError, match="num_replicas=None and rank=None"):
        DistributedSampler(range(10))
    with pytest.raises(RuntimeError, match="rank=None"):
        DistributedSampler(range(10), num_replicas=2)
    with pytest.raises(TypeError, match="dataset must define __len__"):
        DistributedSampler(NoLen(), 2, 0)


def test_sampler_state_dict_resumes_mid_epoch():
    g = em.Generator().manual_seed(11)
    s = RandomSampler(range(20), generator=g)
    full = list(RandomSampler(range(20), generator=em.Generator().manual_seed(11)))
    it = iter(s)
    head = [next(it) for _ in range(6)]
    state = s.state_dict()
    assert state["yielded"] == 6
    fresh = RandomSampler(range(20), generator=em.Generator().manual_seed(999))
    fresh.load_state_dict(state)
    assert head + list(fresh) == full


def test_distributed_and_batch_sampler_state():
    d = DistributedSampler(range(10), 2, 1, seed=3)
    d.set_epoch(4)
    it = iter(d)
    next(it), next(it)
    state = d.state_dict()
    assert state == {"epoch": 4, "yielded": 2}
    d2 = DistributedSampler(range(10), 2, 1, seed=3)
    d2.load_state_dict(state)
    assert d2.epoch == 4 and list(d2) == list(d)[2:]

    b = BatchSampler(SequentialSampler(range(7)), 2, False)
    it = iter(b)
    next(it)
    b2 = BatchSampler(SequentialSampler(range(7)), 2, False)
    b2.load_state_dict(b.state_dict())
    assert list(b2) == [[2, 3], [4, 5], [6]]
    with pytest.raises(KeyError, match="missing \\['yielded'\\]"):
        b2.load_state_dict({"sampler": None})
