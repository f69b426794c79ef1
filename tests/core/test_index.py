"""Indexing (__getitem__/__setitem__), index_put and the gather/scatter/index_*/masked_* family."""
import numpy as np
import pytest

import ember as em
from op_testing import check_grads as _check_grads, leaf as _leaf


def _x555():
    return em.arange(125.0).reshape(5, 5, 5)


# ----------------------------------------------------------------------------------------- the issue's exact checks
def test_issue_advanced_index_picks_elements():
    x = _x555()
    a = x.numpy()
    out = x[[1, 2], [3, 2], [1, 0]]
    assert out.tolist() == [a[1, 3, 1], a[2, 2, 0]] == [41.0, 60.0]
    out = x[[2, 3, 2], [0], [1]]
    assert out.tolist() == [a[2, 0, 1], a[3, 0, 1], a[2, 0, 1]] == [51.0, 76.0, 51.0]


def test_issue_advanced_index_shapes():
    x = _x555()
    assert x[[[1, 0], [0, 1]], [0], [1]].shape == (2, 2)
    assert x[[[1, 0], [0, 1]], [0], [1]].tolist() == [[26.0, 1.0], [1.0, 26.0]]
    assert x[[0, 3], :, :].shape == (2, 5, 5)
    assert x[[0, 3], ...].shape == (2, 5, 5)
    assert x[em.tensor([0, 2, 4]), :, :].shape == (3, 5, 5)
    assert x[[1, 3], ].shape == (2, 5, 5)
    np.testing.assert_array_equal(x[[0, 3], ...].numpy(), x.numpy()[[0, 3]])
    np.testing.assert_array_equal(x[em.tensor([0, 2, 4]), :, :].numpy(), x.numpy()[[0, 2, 4]])


def test_issue_index_out_of_range_message():
    x = em.zeros(5)
    with pytest.raises(IndexError, match=r"^index 5 is out of bounds for dimension 0 with size 5$"):
        x[5]
    with pytest.raises(IndexError, match=r"index 5 is out of bounds for dimension 0 with size 5"):
        x[[0, 5]]
    with pytest.raises(IndexError, match=r"index -6 is out of bounds for dimension 0 with size 5"):
        x[em.tensor([-6])]
    with pytest.raises(IndexError, match=r"index 7 is out of bounds for dimension 1 with size 5"):
        _x555()[:, 7]


def test_issue_duplicate_indices_accumulate_gradient():
    x = em.zeros(4, 2, requires_grad=True)
    x[[0, 0, 2, 0]].sum().backward()
    assert x.grad.tolist() == [[3.0, 3.0], [0.0, 0.0], [1.0, 1.0], [0.0, 0.0]]
    y = em.zeros(3, 3, requires_grad=True)
    (y[[1, 1], [2, 2]] * em.tensor([2.0, 5.0])).sum().backward()
    assert y.grad.tolist() == [[0, 0, 0], [0, 0, 7.0], [0, 0, 0]]


def test_issue_setitem_differentiable_wrt_both_sides():
    x = em.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    v = em.tensor([10.0, 20.0], requires_grad=True)
    y = x * 1
    y[[1, 3]] = v
    assert y.tolist() == [1.0, 10.0, 3.0, 20.0]
    (y * em.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 3.0, 0.0]  # overwritten positions get no gradient
    assert v.grad.tolist() == [2.0, 4.0]
    _check_grads(lambda a, b: _assigned(a, (slice(None), [0, 2]), b[:, :2]), _leaf(3, 4), _leaf(3, 3, seed=1))


def _assigned(a, key, value):
    out = a.clone()
    out[key] = value
    return out


# ---------------------------------------------------------------------------------------------------- basic keys
@pytest.mark.parametrize("key", [
    2, -1, slice(1, 4), slice(None, None, 2), slice(-3, None), (1, 2), (1, slice(None), -1), (None, 0),
    (Ellipsis, 1), (slice(1, 3), None, Ellipsis, slice(None, None, 3)), (), Ellipsis,
])
def test_basic_keys_match_numpy(key):
    x = _x555()
    np.testing.assert_array_equal(x[key].numpy(), x.numpy()[key])


def test_basic_index_is_a_view_sharing_version_counter():
    x = em.arange(6.0).reshape(2, 3)
    row = x[1]
    col = x[:, 0]
    row[0] = 100.0
    assert x.tolist() == [[0.0, 1.0, 2.0], [100.0, 4.0, 5.0]]
    assert col.tolist() == [0.0, 100.0]
    assert x._version_number == row._version_number == col._version_number == 1
    elem = x[0, 2]  # a 0-dim view, not a copy
    x[0, 2] = -1.0
    assert elem.item() == -1.0


def test_advanced_index_is_a_copy():
    x = em.arange(4.0)
    y = x[[0, 1]]
    y[0] = 50.0
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_int_index_applies_before_advanced_like_pytorch():
    # PyTorch selects with the int first, so the advanced dim stays in place (NumPy would move it to the front)
    x = em.zeros(3, 4, 5)
    assert x[0, :, [1, 2]].shape == (4, 2)
    assert x[:, 0, [1, 2]].shape == (3, 2)
    # two advanced indices separated by a slice still go first (NumPy's rule, shared by PyTorch)
    assert x[[0, 1], :, [1, 2]].shape == (2, 4)
    assert x[:, [0, 1], [1, 2]].shape == (3, 2)


def test_bool_scalar_index_adds_dimension():
    x = em.zeros(2, 3, 4)
    assert x[True].shape == (1, 2, 3, 4)
    assert x[False].shape == (0, 2, 3, 4)
    assert x[:, True, :, 0].shape == (2, 1, 3)
    assert x[:, False].shape == (2, 0, 3, 4)


def test_mask_indexing():
    x = em.tensor([[1.0, -2.0], [-3.0, 4.0]])
    assert x[x > 0].tolist() == [1.0, 4.0]
    assert x[em.tensor([True, False])].tolist() == [[1.0, -2.0]]
    assert x[:, em.tensor([False, True])].tolist() == [[-2.0], [4.0]]
    assert x[[True, False]].tolist() == [[1.0, -2.0]]
    with pytest.raises(IndexError, match=r"The shape of the mask \[3\] at index 0 does not match"):
        x[em.tensor([True, False, True])]


def test_nested_list_is_read_as_a_tuple_of_indices():
    x = _x555()
    np.testing.assert_array_equal(x[[[1, 0], [0, 1]]].numpy(), x.numpy()[[1, 0], [0, 1]])


def test_index_errors():
    x = em.zeros(2, 3)
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        x[0, 0, 0]
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor"):
        em.tensor(1.0)[0]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[::-1]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        x[em.tensor([0.0])]
    with pytest.raises(IndexError, match="only integers, slices"):
        x[1.5]
    with pytest.raises(IndexError, match="an index can only have a single ellipsis"):
        x[..., ...]
    with pytest.raises(IndexError, match=r"shape mismatch: indexing tensors could not be broadcast together with "
                                         r"shapes \[2\], \[3\]"):
        x[[0, 1], [0, 1, 2]]


def test_zero_dim_int_tensor_acts_like_int():
    x = em.arange(6.0).reshape(2, 3)
    assert x[em.tensor(1)].tolist() == [3.0, 4.0, 5.0]


@pytest.mark.parametrize("key", [
    1, -1, slice(1, 3), (0, slice(None, None, 2)), ([1, -3, 2],), (slice(None), [0, 0, -1], slice(1, 3)),
    ([0, 1], slice(None), [2, 2]), (1, slice(None), [3, 3]), (None, Ellipsis, 2), ([[0, 1]], [[1], [1]]),
    (Ellipsis, [0, -1]), (0, 1, 2),
])
def test_getitem_gradients(key):
    _check_grads(lambda t: t[key], _leaf(4, 5, 6))


def test_getitem_mask_and_tensor_gradients():
    x = _leaf(3, 4)
    mask = x.detach() > 0
    _check_grads(lambda t: t[mask], x)
    _check_grads(lambda t: t[:, em.tensor([[0, 3], [3, 3]])], x)


def test_getitem_node_names():
    x = em.zeros(3, 3, requires_grad=True)
    assert x[0].grad_fn.name() == "SelectBackward0"
    assert x[1:].grad_fn.name() == "SliceBackward0"
    assert x[[0, 0]].grad_fn.name() == "IndexBackward0"


def test_scatter_backward_matches_add_at_reference():
    # the flat add.at kernel against NumPy's N-D add.at, with many repeats and mixed basic/advanced keys
    rng = np.random.default_rng(3)
    base = rng.standard_normal((6, 7, 8))
    rows = rng.integers(-6, 6, size=40)
    cols = rng.integers(0, 8, size=40)
    for key, ref_key in [((rows,), (rows,)), ((slice(1, 5), 2, cols), None), ((rows, slice(None), cols), None),
                         ((slice(None), rows[:5]), None)]:
        x = em.tensor(base, requires_grad=True)
        out = x[tuple(em.tensor(k) if isinstance(k, np.ndarray) else k for k in key)]
        g = rng.standard_normal(out.shape)
        out.backward(em.tensor(g))
        expected = np.zeros_like(base)
        if ref_key is not None:
            np.add.at(expected, ref_key, g)
        else:  # apply the basic part as a view, then add.at with the advanced part
            basic = tuple(slice(None) if isinstance(k, np.ndarray) else k for k in key)
            adv = tuple(k for k in key if not isinstance(k, int))
            adv = tuple(k if isinstance(k, np.ndarray) else slice(None) for k in adv)
            np.add.at(expected[basic], adv, g)
        np.testing.assert_allclose(x.grad.numpy(), expected, atol=1e-12)


# ------------------------------------------------------------------------------------------------------- setitem
def test_setitem_values_and_broadcast():
    x = em.zeros(3, 4)
    x[0] = 1.0
    x[1:, 1] = em.tensor([2.0, 3.0])
    x[:, 3] = em.tensor(7.0)
    x[x == 0] = -1.0
    assert x.tolist() == [[1, 1, 1, 7], [-1, 2, -1, 7], [-1, 3, -1, 7]]
    y = em.zeros(4, dtype=em.int64)
    y[[0, 2]] = em.tensor([1.9, 2.2])  # cast to the tensor's dtype, as PyTorch does
    assert y.tolist() == [1, 0, 2, 0] and y.dtype == em.int64


def test_setitem_bumps_version_and_errors():
    x = em.zeros(2, 3)
    x[0, 0] = 1.0
    assert x._version_number == 1
    with pytest.raises(RuntimeError, match=r"shape mismatch: value tensor of shape \[4\] cannot be broadcast to "
                                           r"indexing result of shape \[3\]"):
        x[0] = em.ones(4)
    leaf = em.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place "
                                           "operation."):
        leaf[0] = 1.0
    with em.no_grad():
        leaf[0] = 1.0
    assert leaf.tolist() == [1.0, 0.0, 0.0]


def test_setitem_gradients_for_masks_and_values():
    x, v = _leaf(3, 4), _leaf(2, 1, seed=1)
    mask = x.detach() > 0
    _check_grads(lambda a, b: _assigned(a, mask, b[0, 0]), x, v)
    _check_grads(lambda a, b: _assigned(a, (slice(1, 3), 0), b[:, 0]), x, v)
    _check_grads(lambda a, b: _assigned(a, 1, 2.5), x, v)
    # a value with extra leading ones, as assignment allows
    _check_grads(lambda a, b: _assigned(a, (0, slice(0, 2)), b.reshape(1, 1, 2)), x, v)


def test_setitem_on_non_leaf_tracks_graph():
    w = em.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = w * 2
    y[0] = y[2] * 10  # reads the old value of y[2] before writing
    y.sum().backward()
    assert y.tolist() == [60.0, 4.0, 6.0]
    assert w.grad.tolist() == [0.0, 2.0, 22.0]


def test_index_put_accumulate():
    x = em.zeros(5)
    out = x.index_put((em.tensor([1, 1, 3]),), em.tensor([1.0, 2.0, 3.0]), accumulate=True)
    assert out.tolist() == [0.0, 3.0, 0.0, 3.0, 0.0]
    assert x.tolist() == [0.0] * 5
    x.index_put_((em.tensor([0, 0]),), em.tensor(2.0), accumulate=True)
    assert x.tolist() == [4.0, 0.0, 0.0, 0.0, 0.0]
    x2d = em.zeros(2, 3)
    x2d.index_put_((em.tensor([0, 0]), em.tensor([1, 1])), em.tensor([1.0, 1.0]), accumulate=True)
    assert x2d.tolist() == [[0, 2.0, 0], [0, 0, 0]]
    _check_grads(lambda a, v: em.index_put(a, (em.tensor([0, 0, 2]),), v, accumulate=True), _leaf(3, 4),
                 _leaf(3, 4, seed=2))
    _check_grads(lambda a, v: em.index_put(a, (em.tensor([2, 0]),), v), _leaf(3, 4), _leaf(2, 4, seed=2))


# -------------------------------------------------------------------------------------------------------- gather
def test_gather_values_and_grad():
    x = em.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert em.gather(x, 1, em.tensor([[0, 0], [1, 0]])).tolist() == [[1.0, 1.0], [4.0, 3.0]]
    assert x.gather(0, em.tensor([[1, 0]])).tolist() == [[3.0, 2.0]]
    w = em.zeros(2, 3, requires_grad=True)
    w.gather(1, em.tensor([[0, 0, 2], [1, 1, 1]])).sum().backward()
    assert w.grad.tolist() == [[2.0, 0.0, 1.0], [0.0, 3.0, 0.0]]
    _check_grads(lambda a: em.gather(a, 1, em.tensor([[0, 0, 2], [1, 0, 0]])), _leaf(3, 4))
    _check_grads(lambda a: em.gather(a, 0, em.tensor([[2, 0], [1, 1]])), _leaf(3, 4))


def test_gather_errors():
    x = em.zeros(2, 3)
    with pytest.raises(RuntimeError, match="gather\\(\\): Expected dtype int64 for index"):
        x.gather(1, em.tensor([[0.0]]))
    with pytest.raises(RuntimeError, match="Index tensor must have the same number of dimensions"):
        x.gather(1, em.tensor([0]))
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 1 with size 3"):
        x.gather(1, em.tensor([[3]]))
    with pytest.raises(RuntimeError, match=r"Size does not match at dimension 0 expected index \[3, 1\]"):
        x.gather(1, em.tensor([[0], [0], [0]]))
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        x.gather(2, em.tensor([[0]]))


# ------------------------------------------------------------------------------------------------------- scatter
def test_scatter_values():
    x = em.zeros(2, 4)
    src = em.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    idx = em.tensor([[0, 1, 3], [2, 2, 0]])
    out = x.scatter(1, em.tensor([[0, 1, 3], [2, 1, 0]]), src)
    assert out.tolist() == [[1, 2, 0, 3], [6, 5, 4, 0]]
    assert x.scatter(1, idx, 9.0).tolist() == [[9, 9, 0, 9], [9, 0, 9, 0]]
    assert em.scatter_add(x, 1, idx, src).tolist() == [[1, 2, 0, 3], [6, 0, 9, 0]]
    assert x.scatter(1, idx, src, reduce="add").tolist() == [[1, 2, 0, 3], [6, 0, 9, 0]]
    ones = em.ones(2, 4)
    assert ones.scatter(1, idx, src, reduce="multiply").tolist() == [[1, 2, 1, 3], [6, 1, 20, 1]]
    y = em.zeros(3)
    y.scatter_add_(0, em.tensor([0, 0, 2]), em.tensor([1.0, 1.0, 5.0]))
    assert y.tolist() == [2.0, 0.0, 5.0]
    y.scatter_(0, em.tensor([1]), em.tensor([7.0]))
    assert y.tolist() == [2.0, 7.0, 5.0]


def test_scatter_gradients():
    unique = em.tensor([[0, 3, 2], [1, 0, 2]])
    repeated = em.tensor([[0, 0, 2], [1, 0, 0]])
    x, src = _leaf(3, 4), _leaf(2, 4, seed=1)
    _check_grads(lambda a, s: em.scatter(a, 1, unique, s), x, src)
    _check_grads(lambda a, s: em.scatter_add(a, 1, repeated, s), x, src)
    _check_grads(lambda a, s: em.scatter(a, 0, repeated, s, reduce="add"), x, src)
    _check_grads(lambda a: em.scatter(a, 1, repeated, 2.0), x)


def test_scatter_errors():
    x = em.zeros(2, 2)
    with pytest.raises(RuntimeError, match="reduce argument must be either add or multiply."):
        x.scatter(0, em.tensor([[0]]), em.ones(1, 1), reduce="max")
    with pytest.raises(IndexError, match="index 2 is out of bounds for dimension 0 with size 2"):
        x.scatter(0, em.tensor([[2]]), em.ones(1, 1))
    with pytest.raises(RuntimeError, match="to be smaller size than src"):
        x.scatter(0, em.tensor([[0, 1]]), em.ones(1, 1))


# ---------------------------------------------------------------------------------------------------- index_* ops
def test_index_select_values_and_grad():
    x = em.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert em.index_select(x, 1, em.tensor([2, 0, 2])).tolist() == [[3, 1, 3], [6, 4, 6]]
    assert x.index_select(0, em.tensor([1])).tolist() == [[4, 5, 6]]
    w = em.zeros(4, requires_grad=True)
    w.index_select(0, em.tensor([3, 3, 1])).sum().backward()
    assert w.grad.tolist() == [0, 1.0, 0, 2.0]
    _check_grads(lambda a: em.index_select(a, 1, em.tensor([2, 0, 2])), _leaf(3, 4))
    with pytest.raises(IndexError, match="index out of range in self"):
        x.index_select(0, em.tensor([2]))
    with pytest.raises(IndexError, match="Index is supposed to be a vector"):
        x.index_select(0, em.tensor([[0]]))


def test_index_add_copy_fill_values():
    x = em.zeros(3, 2)
    src = em.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    idx = em.tensor([0, 2, 0])
    assert em.index_add(x, 0, idx, src).tolist() == [[6, 8], [0, 0], [3, 4]]
    assert x.index_add(0, idx, src, alpha=2).tolist() == [[12, 16], [0, 0], [6, 8]]
    assert x.index_copy(0, em.tensor([2, 0]), src[:2]).tolist() == [[3, 4], [0, 0], [1, 2]]
    assert x.index_fill(1, em.tensor([1]), -1.0).tolist() == [[0, -1], [0, -1], [0, -1]]
    x.index_add_(0, idx, src)
    x.index_fill_(0, em.tensor([1]), 9.0)
    assert x.tolist() == [[6, 8], [9, 9], [3, 4]]
    with pytest.raises(RuntimeError, match=r"Number of indices \(3\) should be equal to source.size\(dim\) \(2\)"):
        em.index_add(x, 0, idx, src[:2])


def test_index_ops_gradients():
    x, s = _leaf(3, 4), _leaf(3, 3, seed=1)
    i = em.tensor([2, 0, 2])
    _check_grads(lambda a, b: em.index_add(a, 1, i, b, alpha=2), x, s)
    _check_grads(lambda a, b: em.index_copy(a, 0, em.tensor([2, 0]), b[:2, :].repeat(1, 2)[:, :4]), x, s)
    _check_grads(lambda a, b: em.index_fill(a, 1, i, b[0, 0]), x, s)  # repeated index counts once for the value
    _check_grads(lambda a: em.index_fill(a, 0, em.tensor([1]), 3.0), x)


# ----------------------------------------------------------------------------------------------------- masked ops
def test_masked_fill_values_and_grad():
    x = em.tensor([[1.0, 2.0], [3.0, 4.0]])
    mask = em.tensor([True, False])
    assert x.masked_fill(mask, 0.0).tolist() == [[0, 2], [0, 4]]
    assert em.masked_fill(x, x > 2, em.tensor(-1.0)).tolist() == [[1, 2], [-1, -1]]
    assert em.zeros(2, dtype=em.int64).masked_fill(em.tensor([True, False]), 3).tolist() == [3, 0]
    x.masked_fill_(mask, 5.0)
    assert x.tolist() == [[5, 2], [5, 4]]
    a, v = _leaf(3, 4), _leaf(1, seed=1)
    m = a.detach() > 0
    _check_grads(lambda t, s: em.masked_fill(t, m, s[0]), a, v)
    _check_grads(lambda t: em.masked_fill(t, em.tensor([True, False, True, False]), 0.5), a)
    with pytest.raises(RuntimeError, match="masked_fill_ only supports boolean masks, but got mask with dtype Long"):
        x.masked_fill(em.tensor([1, 0]), 0.0)
    with pytest.raises(RuntimeError, match="only supports a 0-dimensional value tensor, but got tensor with 1 "
                                           r"dimension\(s\)"):
        x.masked_fill(mask, em.tensor([1.0]))


def test_masked_select_and_scatter():
    x = em.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert em.masked_select(x, em.tensor([False, True])).tolist() == [2.0, 4.0]
    src = em.tensor([10.0, 20.0, 30.0])
    assert x.masked_scatter(em.tensor([[True, False], [False, True]]), src).tolist() == [[10, 2], [3, 20]]
    with pytest.raises(RuntimeError, match="masked_scatter: expected source to have at least as many elements"):
        x.masked_scatter(em.ones(2, 2, dtype=em.bool), src)
    a, s = _leaf(3, 4), _leaf(3, 5, seed=1)
    m = a.detach() > 0
    _check_grads(lambda t: em.masked_select(t, em.tensor([True, False, True, True])), a)
    _check_grads(lambda t, u: em.masked_scatter(t, m, u), a, s)


# -------------------------------------------------------------------------------------- nonzero/take/select & co
def test_nonzero_argwhere_and_where_condition():
    x = em.tensor([[1, 0], [0, 3]])
    assert em.nonzero(x).tolist() == [[0, 0], [1, 1]]
    assert em.nonzero(x).dtype == em.int64
    rows, cols = x.nonzero(as_tuple=True)
    assert rows.tolist() == [0, 1] and cols.tolist() == [0, 1]
    assert em.argwhere(x).tolist() == [[0, 0], [1, 1]]
    assert em.nonzero(em.zeros(2, 3)).shape == (0, 2)
    assert [t.tolist() for t in em.where(x > 0)] == [[0, 1], [0, 1]]


def test_take_and_take_along_dim():
    x = em.tensor([[4.0, 3.0, 5.0], [6.0, 7.0, 8.0]])
    assert em.take(x, em.tensor([0, 2, 5])).tolist() == [4.0, 5.0, 8.0]
    assert em.take(x, em.tensor([[-1, 0]])).tolist() == [[8.0, 4.0]]
    with pytest.raises(IndexError, match="out of range: tried to access index 6 on a tensor of 6 elements."):
        em.take(x, em.tensor([6]))
    assert em.take_along_dim(x, em.tensor([[2], [0]]), 1).tolist() == [[5.0], [6.0]]
    assert em.take_along_dim(x, em.tensor([[1, 0, 1]]), 0).tolist() == [[6.0, 3.0, 8.0]]
    assert em.take_along_dim(x, em.tensor([5, 0])).tolist() == [8.0, 4.0]
    a = _leaf(3, 4)
    _check_grads(lambda t: em.take(t, em.tensor([[0, 11], [11, 3]])), a)
    _check_grads(lambda t: em.take_along_dim(t, em.tensor([[0], [3], [1]]), 1), a)


def test_select():
    x = em.arange(6.0).reshape(2, 3)
    assert em.select(x, 1, -1).tolist() == [2.0, 5.0]
    assert x.select(0, 1).tolist() == [3.0, 4.0, 5.0]
    s = x.select(1, 0)
    s[0] = 9.0
    assert x[0, 0].item() == 9.0
    with pytest.raises(IndexError, match=r"select\(\): index 3 out of range for tensor of size \[2, 3\] at "
                                         r"dimension 1"):
        x.select(1, 3)
    _check_grads(lambda t: em.select(t, 1, -1), _leaf(3, 4))


def test_uint8_index_is_a_deprecated_mask():
    x = em.arange(3.0)
    with pytest.warns(UserWarning, match="indexing with dtype ember.uint8 is now deprecated"):
        out = x[em.tensor([1, 0, 1], dtype=em.uint8)]
    assert out.tolist() == [0.0, 2.0]
