"""Datasets: TensorDataset, ConcatDataset, ChainDataset, Subset, StackDataset and random_split."""
import warnings

import numpy as np
import pytest

import ember as em
from ember.core.data import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset,
                             TensorDataset, random_split)


class Squares(Dataset):
    def __init__(self, n, offset=0):
        self.n, self.offset = n, offset

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return (self.offset + i) ** 2


class Count(IterableDataset):
    def __init__(self, start, stop):
        self.start, self.stop = start, stop

    def __iter__(self):
        return iter(range(self.start, self.stop))

    def __len__(self):
        return self.stop - self.start


def test_base_classes_raise_until_implemented():
    with pytest.raises(NotImplementedError, match="should implement __getitem__"):
        Dataset()[0]
    with pytest.raises(NotImplementedError, match="should implement __iter__"):
        iter(IterableDataset())


def test_tensor_dataset_items_and_batches():
    x = em.arange(12).reshape(6, 2)
    y = em.tensor([10, 11, 12, 13, 14, 15])
    ds = TensorDataset(x, y)
    assert len(ds) == 6
    xi, yi = ds[4]
    assert xi.tolist() == [8, 9] and yi.item() == 14
    assert ds[-1][1].item() == 15
    batch = ds.__getitems__([5, 0, 3])
    assert len(batch) == 3
    assert batch[0][0].tolist() == [10, 11] and batch[2][1].item() == 13  # a sequence of per-sample tuples
    cols = em.data.default_collate(batch)  # already stacked: passed through
    assert cols[0].tolist() == [[10, 11], [0, 1], [6, 7]] and cols[1].tolist() == [15, 10, 13]


def test_tensor_dataset_errors():
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(em.zeros(3, 2), em.zeros(4))
    with pytest.raises(ValueError, match="Size mismatch between tensors"):
        TensorDataset(em.zeros(3, 2), em.zeros(4))
    with pytest.raises(TypeError, match="argument 1 must be a Tensor"):
        TensorDataset(em.zeros(3), [1, 2, 3])
    ds = TensorDataset(em.zeros(3))
    with pytest.raises(IndexError, match="index 3 is out of range for a dataset of length 3"):
        ds[3]
    with pytest.raises(IndexError, match="index 7 is out of range"):
        ds.__getitems__([0, 7])


def test_tensor_dataset_keeps_gradients_flowing():
    w = em.ones(4, 2, requires_grad=True)
    ds = TensorDataset(w)
    if not hasattr(em.Tensor, "__getitem__"):
        pytest.skip("tensor indexing op not available yet")
    (sample,) = ds[1]
    sample.sum().backward()
    assert w.grad.tolist() == [[0, 0], [1, 1], [0, 0], [0, 0]]


def test_concat_dataset_indexes_across_parts():
    a, b, c = Squares(3), Squares(2, offset=10), Squares(4, offset=100)
    ds = ConcatDataset([a, b, c])
    assert ds.cumulative_sizes == [3, 5, 9]
    assert len(ds) == 9
    assert [ds[i] for i in range(9)] == [0, 1, 4, 100, 121, 10000, 10201, 10404, 10609]
    assert ds[-1] == 10609 and ds[-9] == 0
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        ds[-10]
    with pytest.raises(IndexError, match="index 9 is out of range"):
        ds[9]
    assert [x for x in (a + b)] == [0, 1, 4, 100, 121]  # Dataset.__add__


def test_concat_dataset_rejects_bad_parts():
    with pytest.raises(AssertionError, match="should not be an empty iterable"):
        ConcatDataset([])
    with pytest.raises(TypeError, match="does not support IterableDataset"):
        ConcatDataset([Squares(2), Count(0, 3)])


def test_chain_dataset():
    ds = ChainDataset([Count(0, 3), Count(10, 12)])
    assert list(ds) == [0, 1, 2, 10, 11]
    assert len(ds) == 5
    assert list(Count(0, 2) + Count(5, 6)) == [0, 1, 5]
    with pytest.raises(TypeError, match="only supports IterableDataset"):
        list(ChainDataset([Squares(2)]))


def test_subset_maps_indices_and_forwards_getitems():
    base = TensorDataset(em.arange(10) * 10)
    sub = Subset(base, [7, 2, 5])
    assert len(sub) == 3
    assert sub[0][0].item() == 70
    batch = sub.__getitems__([2, 0])
    assert em.data.default_collate(batch)[0].tolist() == [50, 70]  # through TensorDataset.__getitems__
    plain = Subset(Squares(10), [3, 4])
    assert plain.__getitems__([1, 0]) == [16, 9]


def test_stack_dataset_tuple_and_dict_forms():
    a, b = Squares(3), TensorDataset(em.tensor([5, 6, 7]))
    t = StackDataset(a, b)
    assert len(t) == 3
    first, (second,) = t[2]
    assert first == 4 and second.item() == 7
    d = StackDataset(sq=a, t=b)
    assert d[1]["sq"] == 1 and d[1]["t"][0].item() == 6
    items = d.__getitems__([0, 2])
    assert [it["sq"] for it in items] == [0, 4]
    assert [it["t"][0].item() for it in items] == [5, 7]
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(Squares(2), Squares(3))
    with pytest.raises(ValueError, match="both types are given"):
        StackDataset(Squares(2), b=Squares(2))
    with pytest.raises(ValueError, match="At least one dataset should be passed"):
        StackDataset()


def test_random_split_lengths_partition_the_dataset():
    parts = random_split(range(10), [3, 7], generator=em.Generator().manual_seed(1))
    assert [len(p) for p in parts] == [3, 7]
    seen = sorted(x for p in parts for x in p)
    assert seen == list(range(10))
    expected = em.randperm(10, generator=em.Generator().manual_seed(1)).tolist()  # the documented permutation
    assert list(parts[0]) == expected[:3] and list(parts[1]) == expected[3:]


def test_random_split_fractions_round_like_pytorch():
    # floor(5 * 0.5) = 2 each, remainder 1 goes to split 0
    assert [len(p) for p in random_split(range(5), [0.5, 0.5])] == [3, 2]
    # floor(11*0.3)=3, 3, floor(11*0.4)=4 -> 10; one left over -> split 0
    assert [len(p) for p in random_split(range(11), [0.3, 0.3, 0.4])] == [4, 3, 4]
    # exact products leave no remainder
    assert [len(p) for p in random_split(range(10), [0.1, 0.1, 0.8])] == [1, 1, 8]
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        lengths = [len(p) for p in random_split(range(2), [0.9, 0.1])]
    assert lengths == [2, 0]


def test_random_split_is_reproducible_and_validates():
    a = random_split(range(20), [0.25, 0.75], generator=em.Generator().manual_seed(7))
    b = random_split(range(20), [0.25, 0.75], generator=em.Generator().manual_seed(7))
    assert [list(p) for p in a] == [list(p) for p in b]
    with pytest.raises(ValueError, match="Sum of input lengths does not equal"):
        random_split(range(10), [3, 3])
    with pytest.raises(ValueError, match="Fraction at index 1 is not between 0 and 1"):
        random_split(range(10), [0.2, 1.2, -0.4])


def test_random_split_uses_global_generator_by_default():
    em.manual_seed(3)
    a = [list(p) for p in random_split(range(8), [4, 4])]
    em.manual_seed(3)
    b = [list(p) for p in random_split(range(8), [4, 4])]
    assert a == b
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        random_split(range(4), [0.5, 0.5])  # no zero-length split: no warning
    assert np.array_equal(sorted(a[0] + a[1]), np.arange(8))
