"""DataLoader in the main process: batching, shuffling, validation, IterableDataset, collate and the fast path."""
import collections

import numpy as np
import pytest

import ember as em
from ember.core.data import (DataLoader, Dataset, IterableDataset, SequentialSampler, TensorDataset,
                             default_collate, default_convert)


class Pairs(Dataset):
    """A custom dataset with only __len__ and __getitem__: sample i is (array [i, 2i], label i % 3)."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return np.array([i, 2 * i], dtype=np.float32), i % 3


class StreamNoLen(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))


class Stream(StreamNoLen):
    def __len__(self):
        return self.n


def test_custom_dataset_with_shuffle_and_batching():
    loader = DataLoader(Pairs(10), batch_size=4, shuffle=True, generator=em.Generator().manual_seed(0))
    batches = list(loader)
    assert len(loader) == 3 and [len(b[1]) for b in batches] == [4, 4, 2]
    xs = np.concatenate([b[0].numpy() for b in batches])
    ys = np.concatenate([b[1].numpy() for b in batches])
    order = xs[:, 0].astype(int)
    assert sorted(order.tolist()) == list(range(10))  # every sample exactly once
    assert np.array_equal(xs[:, 1], 2 * xs[:, 0]) and np.array_equal(ys, order % 3)  # rows stay together
    assert batches[0][0].dtype == em.float32 and batches[0][1].dtype == em.int64
    assert order.tolist() != list(range(10))


def test_seeded_shuffle_repeats_exactly():
    def epochs(seed):
        em.manual_seed(seed)
        loader = DataLoader(Pairs(30), batch_size=7, shuffle=True)
        return [[b[0][:, 0].tolist() for b in loader] for _ in range(2)]

    a, b = epochs(123), epochs(123)
    assert a == b
    assert a[0] != a[1]  # a new order every epoch
    g1 = [b[1].tolist() for b in DataLoader(Pairs(30), 5, shuffle=True, generator=em.Generator().manual_seed(9))]
    g2 = [b[1].tolist() for b in DataLoader(Pairs(30), 5, shuffle=True, generator=em.Generator().manual_seed(9))]
    assert g1 == g2


def test_sequential_batches_and_drop_last():
    ds = TensorDataset(em.arange(10))
    assert [b[0].tolist() for b in DataLoader(ds, batch_size=4)] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    loader = DataLoader(ds, batch_size=4, drop_last=True)
    assert len(loader) == 2 and [b[0].tolist() for b in loader] == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_fast_path_equals_per_sample_path():
    x = em.randn(50, 3)
    y = em.arange(50)
    fast = TensorDataset(x, y)

    class PerSample(TensorDataset):
        __getitems__ = None  # PyTorch's switch: a falsy __getitems__ means "fetch sample by sample"

    slow = PerSample(x, y)
    a = list(DataLoader(fast, batch_size=8, shuffle=True, generator=em.Generator().manual_seed(1)))
    b = list(DataLoader(slow, batch_size=8, shuffle=True, generator=em.Generator().manual_seed(1)))
    assert len(a) == len(b) == 7
    for (xa, ya), (xb, yb) in zip(a, b):
        assert np.array_equal(xa.numpy(), xb.numpy()) and np.array_equal(ya.numpy(), yb.numpy())
        assert xa.dtype == xb.dtype and ya.dtype == yb.dtype


def test_custom_collate_fn_sees_samples_from_getitems():
    seen = []

    def collate(samples):
        seen.append(len(samples))
        return [s[1].item() for s in samples]

    loader = DataLoader(TensorDataset(em.zeros(5, 2), em.arange(5)), batch_size=2, collate_fn=collate)
    assert list(loader) == [[0, 1], [2, 3], [4]] and seen == [2, 2, 1]


def test_batch_size_none_and_batch_sampler():
    loader = DataLoader(Pairs(3), batch_size=None)
    items = list(loader)
    assert len(loader) == 3 and isinstance(items[1][0], em.Tensor) and items[1][1] == 1  # default_convert
    bs = DataLoader(TensorDataset(em.arange(6)), batch_sampler=[[5, 0], [2]])
    assert [b[0].tolist() for b in bs] == [[5, 0], [2]]


def test_iterable_dataset_batches_and_len():
    loader = DataLoader(Stream(7), batch_size=3)
    assert [b.tolist() for b in loader] == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(loader) == 3
    assert len(DataLoader(Stream(7), batch_size=3, drop_last=True)) == 2
    assert [b.tolist() for b in DataLoader(Stream(7), batch_size=3, drop_last=True)] == [[0, 1, 2], [3, 4, 5]]
    no_len = DataLoader(StreamNoLen(4), batch_size=2)
    assert [b.tolist() for b in no_len] == [[0, 1], [2, 3]]
    with pytest.raises(TypeError, match="object of type 'StreamNoLen' has no len()"):
        len(no_len)


@pytest.mark.parametrize("bad", [0, -3])
def test_bad_batch_size_is_rejected(bad):
    with pytest.raises(ValueError, match=f"batch_size should be a positive integer value, but got batch_size={bad}"):
        DataLoader(Pairs(4), batch_size=bad)


def test_argument_validation_messages():
    ds = Pairs(4)
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        DataLoader(ds, shuffle=True, sampler=SequentialSampler(ds))
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive with batch_size, shuffle"):
        DataLoader(ds, batch_size=2, batch_sampler=[[0, 1]])
    with pytest.raises(ValueError, match="batch_size=None option disables auto-batching and is mutually exclusive"):
        DataLoader(ds, batch_size=None, drop_last=True)
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(ds, num_workers=-1)
    with pytest.raises(ValueError, match="timeout option should be non-negative"):
        DataLoader(ds, timeout=-1)
    with pytest.raises(ValueError, match="prefetch_factor option could only be specified in multiprocessing"):
        DataLoader(ds, prefetch_factor=2)
    with pytest.raises(ValueError, match="persistent_workers option needs num_workers > 0"):
        DataLoader(ds, persistent_workers=True)
    with pytest.raises(ValueError, match="multiprocessing_context can only be used with multi-process loading"):
        DataLoader(ds, multiprocessing_context="spawn")
    with pytest.raises(ValueError, match="multiprocessing_context option should specify a valid start method"):
        DataLoader(ds, num_workers=1, multiprocessing_context="threads")
    with pytest.raises(ValueError, match="expected unspecified shuffle option, but got shuffle=True"):
        DataLoader(Stream(3), shuffle=True)
    with pytest.raises(ValueError, match="expected unspecified sampler option"):
        DataLoader(Stream(3), sampler=[0, 1])
    with pytest.raises(TypeError, match="generator should be an ember.Generator"):
        DataLoader(ds, shuffle=True, generator=np.random.default_rng())


def test_dataset_without_len_is_named():
    class NoLen:
        def __getitem__(self, i):
            return i

    with pytest.raises(TypeError, match="data_source must be a sized .*NoLen has no __len__"):
        DataLoader(NoLen(), batch_size=2)
    with pytest.raises(TypeError, match="dataset must be a map-style dataset .* but got generator"):
        DataLoader((i for i in range(3)))


def test_attributes_are_frozen_after_init():
    loader = DataLoader(Pairs(4), batch_size=2)
    with pytest.raises(ValueError, match="batch_size attribute should not be set after DataLoader is initialized"):
        loader.batch_size = 3
    loader.num_workers = 0  # others may change


def test_pin_memory_is_accepted_and_ignored():
    loader = DataLoader(TensorDataset(em.arange(4)), batch_size=2, pin_memory=True)
    assert [b[0].tolist() for b in loader] == [[0, 1], [2, 3]]


# -- default_collate / default_convert -----------------------------------------------------------------------
Point = collections.namedtuple("Point", ["x", "y"])


def test_default_collate_numbers_and_strings():
    ints = default_collate([0, 1, 2])
    assert ints.tolist() == [0, 1, 2] and ints.dtype == em.int64
    floats = default_collate([0.5, 1.5])
    assert floats.tolist() == [0.5, 1.5] and floats.dtype == em.float64  # Python floats: float64, as PyTorch
    assert default_collate([True, False]).dtype == em.bool
    assert default_collate(["a", "b"]) == ["a", "b"]
    scalars = default_collate([np.float32(1), np.float32(2)])
    assert scalars.dtype == em.float32 and scalars.tolist() == [1.0, 2.0]


def test_default_collate_containers():
    out = default_collate([(1, "a"), (2, "b")])
    assert isinstance(out, list) and out[0].tolist() == [1, 2] and out[1] == ("a", "b")
    d = default_collate([{"A": 0, "B": 1}, {"A": 100, "B": 100}])
    assert d["A"].tolist() == [0, 100] and d["B"].tolist() == [1, 100]
    p = default_collate([Point(1, 2.0), Point(3, 4.0)])
    assert isinstance(p, Point) and p.x.tolist() == [1, 3] and p.y.tolist() == [2.0, 4.0]
    lst = default_collate([[1, 2], [3, 4]])
    assert isinstance(lst, list) and [t.tolist() for t in lst] == [[1, 3], [2, 4]]
    od = default_collate([collections.OrderedDict(a=1), collections.OrderedDict(a=2)])
    assert type(od) is collections.OrderedDict and od["a"].tolist() == [1, 2]


def test_default_collate_arrays_and_tensors():
    arr = default_collate([np.zeros((2, 3), np.float32), np.ones((2, 3), np.float32)])
    assert arr.shape == (2, 2, 3) and arr.dtype == em.float32 and arr.numpy()[1].sum() == 6
    t = default_collate([em.tensor([1, 2]), em.tensor([3, 4]), em.tensor([5, 6])])
    assert t.tolist() == [[1, 2], [3, 4], [5, 6]] and t.dtype == em.int64


def test_default_collate_names_the_bad_element():
    with pytest.raises(RuntimeError, match="could not collate element 3 of the batch: stack expects each tensor to be "
                                           r"equal size, but got \[3\] at entry 0 and \[4\] at entry 3"):
        default_collate([em.zeros(3), em.zeros(3), em.zeros(3), em.zeros(4)])
    with pytest.raises(TypeError, match=r"could not collate element 2 of the batch at \['label'\]: expected a real "
                                        "number like element 0, got str"):
        default_collate([{"label": 1}, {"label": 2}, {"label": "x"}])
    with pytest.raises(KeyError, match="element 1 of the batch: missing key 'y'"):
        default_collate([{"x": 1, "y": 2}, {"x": 1}])
    with pytest.raises(RuntimeError, match="element 1 of the batch: each element in list of batch should be of equal "
                                           "size"):
        default_collate([[1, 2], [1, 2, 3]])
    with pytest.raises(TypeError, match="element 0 of the batch: batch must contain tensors, numpy arrays, numbers, "
                                        "dicts or lists; found <class 'object'>"):
        default_collate([object(), object()])
    with pytest.raises(TypeError, match="found <U1"):
        default_collate([np.array(["a"]), np.array(["b"])])


def test_collate_error_surfaces_through_the_loader():
    class Ragged(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return np.zeros(3 if i != 2 else 5, np.float32)

    with pytest.raises(RuntimeError, match="could not collate element 2 of the batch"):
        list(DataLoader(Ragged(), batch_size=4))


def test_default_convert():
    out = default_convert([np.array([0, 1]), np.array([2.5])])
    assert isinstance(out, list) and out[0].tolist() == [0, 1] and out[1].dtype == em.float64
    assert default_convert((np.int64(3), "s"))[0].item() == 3
    assert default_convert({"a": np.zeros(2)})["a"].shape == (2,)
    t = em.zeros(2)
    assert default_convert(t) is t
    assert default_convert("text") == "text"
    strings = np.array(["a", "b"])
    assert default_convert(strings) is strings


# -- seed_everything -----------------------------------------------------------------------------------------
@pytest.fixture
def clean_seed_env(monkeypatch):
    # setenv records the original value (or its absence), so whatever seed_everything writes is undone afterwards
    for name in ("PL_GLOBAL_SEED", "PL_SEED_WORKERS"):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    return monkeypatch


def test_seed_everything_seeds_python_numpy_and_ember(clean_seed_env):
    import os
    import random

    assert em.seed_everything(42) == 42
    assert random.random() == random.Random(42).random()
    assert np.random.random_sample() == np.random.RandomState(42).random_sample()
    assert em.rand(3).tolist() == em.rand(3, generator=em.Generator().manual_seed(42)).tolist()
    assert os.environ["PL_GLOBAL_SEED"] == "42" and os.environ["PL_SEED_WORKERS"] == "0"
    em.seed_everything(7, workers=True)
    assert os.environ["PL_SEED_WORKERS"] == "1"


def test_seed_everything_without_a_seed(clean_seed_env):
    with pytest.warns(UserWarning, match="No seed found, seed set to 0"):
        assert em.seed_everything() == 0
    clean_seed_env.setenv("PL_GLOBAL_SEED", "123")
    assert em.seed_everything() == 123
    clean_seed_env.setenv("PL_GLOBAL_SEED", "abc")
    with pytest.warns(UserWarning, match="Invalid seed found: 'abc', seed set to 0"):
        assert em.seed_everything() == 0


def test_seed_everything_out_of_range(clean_seed_env):
    with pytest.warns(UserWarning, match="-1 is not in bounds, numpy accepts from 0 to 4294967295"):
        assert em.seed_everything(-1) == 0
    with pytest.warns(UserWarning, match="is not in bounds"):
        assert em.seed_everything(2 ** 32) == 0
    assert em.seed_everything(3.0) == 3  # cast to int, as Lightning does
