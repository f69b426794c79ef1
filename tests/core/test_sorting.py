"""Sorting, selection, uniques, histograms, binary search, diagonals, diff and grids."""
import math

import numpy as np
import pytest

import ember as em
from ember.core.autograd import gradcheck, gradgradcheck
from op_testing import npy, rand_from

RNG = np.random.default_rng(11)
NAN = float("nan")


rand = rand_from(RNG)


def same(a, b):
    """Equal lists where NaN equals NaN."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))


# -------------------------------------------------------------------------------------------------------- sorting
def test_sort_puts_nan_last_ascending_and_first_descending():
    x = em.tensor([3.0, NAN, 1.0, 2.0])
    values, indices = em.sort(x)
    assert same(values.tolist(), [1, 2, 3, NAN]) and indices.tolist() == [2, 3, 0, 1]
    values, indices = x.sort(descending=True)
    assert same(values.tolist(), [NAN, 3, 2, 1]) and indices.tolist() == [1, 0, 3, 2]


def test_stable_sort_keeps_the_order_of_ties_in_both_directions():
    x = em.tensor([2, 1, 2, 1, 2])
    assert em.sort(x, stable=True).indices.tolist() == [1, 3, 0, 2, 4]
    assert em.sort(x, descending=True, stable=True).indices.tolist() == [0, 2, 4, 1, 3]
    assert em.argsort(x, stable=True).tolist() == [1, 3, 0, 2, 4]


def test_sort_along_a_dim_and_msort():
    x = rand(3, 4, grad=False)
    values, indices = em.sort(x, dim=0)
    np.testing.assert_array_equal(npy(values), np.sort(npy(x), axis=0))
    np.testing.assert_array_equal(npy(values), np.take_along_axis(npy(x), npy(indices), 0))
    np.testing.assert_array_equal(npy(em.msort(x)), np.sort(npy(x), axis=0))
    with pytest.raises(RuntimeError, match="not implemented for 'ComplexFloat'"):
        em.sort(em.tensor([1j]))


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("k", [1, 3, 8])
def test_topk_matches_a_full_sort(largest, k):
    x = rand(2, 8, grad=False)
    values, indices = em.topk(x, k, largest=largest)
    ref = np.sort(npy(x), axis=1)[:, ::-1][:, :k] if largest else np.sort(npy(x), axis=1)[:, :k]
    np.testing.assert_array_equal(npy(values), ref)
    np.testing.assert_array_equal(npy(values), np.take_along_axis(npy(x), npy(indices), 1))
    unsorted = em.topk(x, k, largest=largest, sorted=False).values
    np.testing.assert_array_equal(np.sort(npy(unsorted), 1), np.sort(ref, 1))


def test_topk_and_kthvalue_errors_and_values():
    x = em.tensor([[5.0, 1.0, 4.0], [2.0, 9.0, 7.0]])
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        em.topk(x, 4)
    assert em.topk(em.tensor([1.0, NAN, 3.0]), 1).indices.tolist() == [1]  # NaN is the largest
    values, indices = em.kthvalue(x, 2)
    assert values.tolist() == [4.0, 7.0] and indices.tolist() == [2, 2]
    kept = em.kthvalue(x, 1, dim=0, keepdim=True)
    assert kept.values.tolist() == [[2.0, 1.0, 4.0]] and kept.indices.tolist() == [[1, 0, 0]]
    with pytest.raises(RuntimeError, match="kthvalue\\(\\): selected number k out of range for dimension -1"):
        em.kthvalue(x, 4)


def test_median_is_the_lower_median_and_propagates_nan():
    assert em.median(em.tensor([1.0, 4.0, 2.0, 3.0])).item() == 2.0
    values, indices = em.median(em.tensor([[1.0, 4.0, 2.0, 3.0], [9.0, NAN, 7.0, NAN]]), dim=1)
    assert same(values.tolist(), [2.0, NAN]) and indices.tolist() == [2, 1]
    assert math.isnan(em.median(em.tensor([1.0, NAN])).item())
    assert em.nanmedian(em.tensor([1.0, NAN, 2.0, 3.0])).item() == 2.0
    values, indices = em.nanmedian(em.tensor([[1.0, NAN, 5.0, 3.0], [NAN, NAN, NAN, NAN]]), dim=1)
    assert same(values.tolist(), [3.0, NAN]) and indices.tolist()[0] == 3


def test_mode_picks_the_smallest_most_frequent_value():
    values, indices = em.mode(em.tensor([[1, 2, 2, 3, 3, 1, 4], [5, 5, 6, 6, 6, 0, 0]]))
    assert values.tolist() == [1, 6]
    assert indices.tolist() == [5, 4]  # the last occurrence


def test_cummax_cummin_values_and_indices():
    x = em.tensor([1.0, 3.0, 3.0, 2.0, NAN, 5.0])
    values, indices = em.cummax(x, 0)
    assert same(values.tolist(), [1, 3, 3, 3, NAN, NAN]) and indices.tolist() == [0, 1, 2, 2, 4, 4]
    values, indices = em.cummin(em.tensor([[3, 1, 2, 1]]), dim=1)
    assert values.tolist() == [[3, 1, 1, 1]] and indices.tolist() == [[0, 1, 1, 3]]
    # along a leading dim of a 3-D tensor with ties, against a direct loop (ties take the latest index)
    x = RNG.integers(0, 4, (5, 3, 2))
    values, indices = em.cummax(em.tensor(x), 0)
    for j in range(3):
        for k in range(2):
            best = 0
            for i in range(5):
                if x[i, j, k] >= x[best, j, k]:
                    best = i
                assert indices[i, j, k].item() == best and values[i, j, k].item() == x[best, j, k]


# --------------------------------------------------------------------------------------------- uniques and counts
def test_unique_with_inverse_and_counts():
    x = em.tensor([[3, 1], [2, 3], [1, 1]])
    values, inverse, counts = em.unique(x, return_inverse=True, return_counts=True)
    assert values.tolist() == [1, 2, 3] and counts.tolist() == [3, 1, 2]
    assert inverse.tolist() == [[2, 0], [1, 2], [0, 0]]
    rows, inv = em.unique(em.tensor([[1, 2], [0, 1], [1, 2]]), dim=0, return_inverse=True)
    assert rows.tolist() == [[0, 1], [1, 2]] and inv.tolist() == [1, 0, 1]
    assert x.unique().tolist() == [1, 2, 3]


def test_unique_consecutive():
    out, inverse, counts = em.unique_consecutive(em.tensor([1, 1, 2, 2, 3, 1, 1, 2]), return_inverse=True,
                                                 return_counts=True)
    assert out.tolist() == [1, 2, 3, 1, 2] and counts.tolist() == [2, 2, 1, 2, 1]
    assert inverse.tolist() == [0, 0, 1, 1, 2, 3, 3, 4]
    rows = em.unique_consecutive(em.tensor([[1, 2], [1, 2], [3, 4], [1, 2]]), dim=0)
    assert rows.tolist() == [[1, 2], [3, 4], [1, 2]]


def test_bincount_histc_histogram():
    assert em.bincount(em.tensor([0, 1, 1, 3])).tolist() == [1, 2, 0, 1]
    assert em.bincount(em.tensor([1]), minlength=3).tolist() == [0, 1, 0]
    weighted = em.bincount(em.tensor([0, 1, 1]), weights=em.tensor([0.5, 1.0, 2.0]))
    assert weighted.tolist() == [0.5, 3.0] and weighted.dtype == em.float32
    assert em.bincount(em.tensor([0]), weights=em.tensor([1.0], dtype=em.float64)).dtype == em.float64
    with pytest.raises(RuntimeError, match="bincount only supports 1-d non-negative integral inputs"):
        em.bincount(em.tensor([-1, 2]))
    # bins of width 0.75 over [0, 3]; 3 falls in the last bin, 4 is outside
    assert em.histc(em.tensor([1.0, 2.0, 1.0, 3.0, 4.0]), bins=4, min=0, max=3).tolist() == [0, 2, 1, 1]
    assert em.histc(em.tensor([1.0, 2.0, 1.0]), bins=4).tolist() == [2, 0, 0, 1]  # range from the data
    hist, edges = em.histogram(em.tensor([1.0, 2.0, 1.0]), bins=4, range=(0.0, 3.0))
    assert hist.tolist() == [0, 2, 1, 0] and edges.tolist() == [0, 0.75, 1.5, 2.25, 3.0]
    hist, _ = em.histogram(em.tensor([1.0, 2.0, 1.0]), em.tensor([0.0, 1.5, 3.0]), weight=em.tensor([1.0, 2.0, 3.0]))
    assert hist.tolist() == [4.0, 2.0]


def test_searchsorted_and_bucketize():
    seq = em.tensor([1, 3, 5, 7, 9])
    assert em.searchsorted(seq, em.tensor([3, 6, 9])).tolist() == [1, 3, 4]
    assert em.searchsorted(seq, em.tensor([3, 6, 9]), right=True).tolist() == [2, 3, 5]
    assert em.searchsorted(seq, em.tensor([3, 6, 9]), side="right").tolist() == [2, 3, 5]
    rows = em.tensor([[1, 3, 5, 7, 9], [2, 4, 6, 8, 10]])
    assert em.searchsorted(rows, em.tensor([[3, 6, 9], [3, 6, 9]])).tolist() == [[1, 3, 4], [1, 2, 4]]
    assert em.searchsorted(seq, 6).tolist() == 3
    assert em.searchsorted(seq, em.tensor([4]), out_int32=True).dtype == em.int32
    unsorted = em.tensor([9, 1, 5, 3, 7])
    assert em.searchsorted(unsorted, em.tensor([4]), sorter=em.argsort(unsorted)).tolist() == [2]
    with pytest.raises(RuntimeError, match="side and right can't be set to opposites"):
        em.searchsorted(seq, em.tensor([1]), right=True, side="left")
    # bucketize: right=False means boundaries[i-1] < x <= boundaries[i]
    assert em.bucketize(em.tensor([[3, 6, 9]]), seq).tolist() == [[1, 3, 4]]
    assert em.bucketize(em.tensor([[3, 6, 9]]), seq, right=True).tolist() == [[2, 3, 5]]


# ------------------------------------------------------------------------------------------------------ diagonals
def test_diagonal_is_a_writable_view():
    x = em.zeros(3, 4)
    x.diagonal().fill_(1)
    x.diagonal(offset=1).add_(2)
    assert x.tolist() == [[1, 2, 0, 0], [0, 1, 2, 0], [0, 0, 1, 2]]
    y = em.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(npy(em.diagonal(y, -1, 1, 2)), np.diagonal(npy(y), -1, 1, 2))
    np.testing.assert_array_equal(npy(em.diagonal(y, 2, 0, 2)), np.diagonal(npy(y), 2, 0, 2))
    with pytest.raises(RuntimeError, match="dimension1 and dimension2 cannot be identical"):
        em.diagonal(y, 0, 1, -2)


def test_diag_embed_diag_trace():
    v = em.tensor([[1.0, 2.0], [3.0, 4.0]])
    out = em.diag_embed(v, offset=1)
    assert out.shape == (2, 3, 3)
    assert out[0].tolist() == [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
    assert em.diag_embed(v, 0, 0, 2)[:, 1, :].tolist() == [[3, 0], [0, 4]]  # out[i, b, i] = v[b, i]
    assert em.diag(em.tensor([1, 2]), -1).tolist() == [[0, 0, 0], [1, 0, 0], [0, 2, 0]]
    assert em.diag(v).tolist() == [1.0, 4.0]
    assert em.trace(em.arange(6).reshape(2, 3)).item() == 0 + 4
    assert em.trace(em.arange(6).reshape(2, 3)).dtype == em.int64
    with pytest.raises(RuntimeError, match="trace: expected a matrix, but got tensor with dim 1"):
        em.trace(em.ones(3))


def test_diff_with_prepend_append_and_bool():
    x = em.tensor([1, 3, 6, 10])
    assert em.diff(x).tolist() == [2, 3, 4]
    assert em.diff(x, n=2).tolist() == [1, 1]
    assert em.diff(x, prepend=em.tensor([0]), append=em.tensor([20])).tolist() == [1, 2, 3, 4, 10]
    assert em.diff(em.tensor([True, True, False])).tolist() == [False, True]
    assert em.diff(em.tensor([[1, 2], [4, 8]]), dim=0).tolist() == [[3, 6]]


def test_meshgrid_and_cartesian_prod():
    a, b = em.tensor([1, 2, 3]), em.tensor([4, 5])
    gi, gj = em.meshgrid(a, b, indexing="ij")
    ri, rj = np.meshgrid([1, 2, 3], [4, 5], indexing="ij")
    np.testing.assert_array_equal(npy(gi), ri)
    np.testing.assert_array_equal(npy(gj), rj)
    gx, gy = em.meshgrid(a, b, indexing="xy")
    rx, ry = np.meshgrid([1, 2, 3], [4, 5], indexing="xy")
    np.testing.assert_array_equal(npy(gx), rx)
    np.testing.assert_array_equal(npy(gy), ry)
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        em.core.ops.grids._warned_meshgrid[0] = False
        em.meshgrid(a, b)
    assert em.cartesian_prod(a, b).tolist() == [[1, 4], [1, 5], [2, 4], [2, 5], [3, 4], [3, 5]]
    assert em.cartesian_prod(a) is a


# ------------------------------------------------------------------------------------------------------ gradients
def test_sort_gradient_goes_back_to_the_original_positions():
    x = em.tensor([3.0, 1.0, 2.0], requires_grad=True)
    (em.sort(x).values * em.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert x.grad.tolist() == [100.0, 1.0, 10.0]


def test_cummax_gradient_accumulates_on_repeated_indices():
    x = em.tensor([1.0, 3.0, 2.0, 0.0], requires_grad=True)
    em.cummax(x, 0).values.sum().backward()
    assert x.grad.tolist() == [1.0, 3.0, 0.0, 0.0]


def test_median_of_all_elements_splits_the_gradient_between_ties():
    x = em.tensor([2.0, 1.0, 2.0, 5.0, 7.0], requires_grad=True)
    em.median(x).backward()
    assert x.grad.tolist() == [0.5, 0.0, 0.5, 0.0, 0.0]


SELECTIONS = {
    "sort": lambda x: em.sort(x, 1).values,
    "sort_desc_dim0": lambda x: em.sort(x, 0, descending=True).values,
    "topk": lambda x: em.topk(x, 2).values,
    "topk_smallest": lambda x: em.topk(x, 2, 0, largest=False).values,
    "kthvalue": lambda x: em.kthvalue(x, 2, 1).values,
    "median": em.median,
    "median_dim": lambda x: em.median(x, 1).values,
    "nanmedian_dim": lambda x: em.nanmedian(x, 0, keepdim=True).values,
    "mode": lambda x: em.mode(x * 0 + x.detach().round(), 1).values + x.sum() * 0,
    "cummax": lambda x: em.cummax(x, 1).values,
    "cummin": lambda x: em.cummin(x, 0).values,
    "diff": lambda x: em.diff(x, 2, 1, prepend=x[:, :1]),
    "diag": lambda x: em.diag(x, 1),
    "diag_1d": lambda x: em.diag(x[0], -1),
    "diagonal": lambda x: em.diagonal(x, -1),
    "diag_embed": lambda x: em.diag_embed(x, 1, 0, 2),
    "trace": em.trace,
    "meshgrid": lambda x: em.meshgrid(x[0], x[1], indexing="xy"),
    "cartesian_prod": lambda x: em.cartesian_prod(x[0], x[1]),
}


@pytest.mark.parametrize("name", list(SELECTIONS))
def test_gradcheck(name):
    x = rand(3, 5)
    assert gradcheck(SELECTIONS[name], (x,))


@pytest.mark.parametrize("name", ["sort", "topk", "cummax", "diagonal", "diag_embed", "trace"])
def test_gradgradcheck(name):
    x = rand(3, 4)
    assert gradgradcheck(lambda t: SELECTIONS[name](t) ** 2, (x,))
