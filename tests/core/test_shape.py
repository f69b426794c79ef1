"""Shape ops: view/reshape family, cat/stack, split/chunk/unbind, flip/roll/narrow, tril/triu, movedim, broadcasting."""
import numpy as np
import pytest

import ember as em
from op_testing import check_grads as _check_grads, leaf as _leaf


# ------------------------------------------------------------------------------------------- the checks
def test_view_of_transposed_tensor_raises():
    x = em.arange(6.0).reshape(2, 3).t()
    with pytest.raises(RuntimeError, match=r"^view size is not compatible with input tensor's size and stride "
                                           r"\(at least one dimension spans across two contiguous subspaces\)\. "
                                           r"Use \.reshape\(\.\.\.\) instead\.$"):
        x.view(6)
    assert x.reshape(6).tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]


def test_dim_out_of_range_message():
    x = em.zeros(2, 3)
    msg = r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)$"
    for op in (lambda: em.cat([x, x], dim=2), lambda: x.flip(2), lambda: x.unbind(2), lambda: x.narrow(2, 0, 1),
               lambda: x.split(1, dim=2), lambda: x.movedim(2, 0), lambda: x.roll(1, 2), lambda: x.unflatten(2, (1,))):
        with pytest.raises(IndexError, match=msg):
            op()


def test_stack_dim_out_of_range_counts_the_new_dim():
    x = em.zeros(2, 3)
    with pytest.raises(IndexError, match=r"expected to be in range of \[-3, 2\], but got 3"):
        em.stack([x, x], dim=3)


def test_cat_size_mismatch_message():
    a, b = em.zeros(2, 3), em.zeros(2, 4)
    with pytest.raises(RuntimeError, match=r"^Sizes of tensors must match except in dimension 0\. Expected size 3 "
                                           r"but got size 4 for tensor number 1 in the list\.$"):
        em.cat([a, b])
    with pytest.raises(RuntimeError, match=r"Tensors must have same number of dimensions: got 2 and 1"):
        em.cat([a, em.zeros(3)])
    with pytest.raises(RuntimeError, match=r"zero-dimensional tensor \(at position 1\) cannot be concatenated"):
        em.cat([em.zeros(1), em.tensor(1.0)])
    with pytest.raises(RuntimeError, match="expected a non-empty list of Tensors"):
        em.cat([])
    with pytest.raises(TypeError, match="expected Tensor as element 1 in argument 0, but got int"):
        em.cat([a, 1])


# ----------------------------------------------------------------------------------------------------- cat & co.
def test_cat_values_aliases_and_promotion():
    a = em.tensor([[1.0, 2.0]])
    b = em.tensor([[3.0, 4.0], [5.0, 6.0]])
    assert em.cat([a, b]).tolist() == [[1, 2], [3, 4], [5, 6]]
    assert em.cat((b, b), dim=-1).tolist() == [[3, 4, 3, 4], [5, 6, 5, 6]]
    assert em.concat([a, a]).shape == (2, 2) and em.concatenate([a, a], 1).shape == (1, 4)
    assert em.cat([em.tensor([1, 2]), em.tensor([0.5])]).dtype == em.float32
    assert em.cat([em.tensor([1.0]), em.tensor([2.0], dtype=em.float64)]).dtype == em.float64
    assert em.cat([em.tensor([True]), em.tensor([3])]).tolist() == [1, 3]
    # legacy behaviour: 1-D empty tensors are skipped whatever the other shapes
    assert em.cat([em.tensor([]), b, em.tensor([])]).tolist() == b.tolist()


def test_cat_gradient_flows_back_in_each_input_dtype():
    a = em.ones(2, dtype=em.float64, requires_grad=True)
    b = em.ones(3, requires_grad=True)
    out = em.cat([a, b])
    assert out.dtype == em.float64
    (out * em.arange(5.0, dtype=em.float64)).sum().backward()
    assert a.grad.tolist() == [0.0, 1.0] and a.grad.dtype == em.float64
    assert b.grad.tolist() == [2.0, 3.0, 4.0] and b.grad.dtype == em.float32
    _check_grads(lambda x, y: em.cat([x, y, x], 1), _leaf(2, 3), _leaf(2, 1, seed=1))


def test_stack_family():
    a, b = em.tensor([1.0, 2.0]), em.tensor([3.0, 4.0])
    assert em.stack([a, b]).tolist() == [[1, 2], [3, 4]]
    assert em.stack([a, b], dim=1).tolist() == [[1, 3], [2, 4]]
    assert em.stack([a, b], -1).shape == (2, 2)
    assert em.hstack([a, b]).tolist() == [1, 2, 3, 4]
    assert em.vstack([a, b]).tolist() == [[1, 2], [3, 4]]
    assert em.hstack([a.reshape(2, 1), b.reshape(2, 1)]).tolist() == [[1, 3], [2, 4]]
    assert em.dstack([a, b]).shape == (1, 2, 2)
    assert em.column_stack([a, b]).tolist() == [[1, 3], [2, 4]]
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got \[2\] at entry 0 "
                                           r"and \[3\] at entry 1"):
        em.stack([a, em.zeros(3)])
    x, y = _leaf(2, 3), _leaf(2, 3, seed=1)
    _check_grads(lambda p, q: em.stack([p, q], 1), x, y)
    _check_grads(lambda p, q: em.hstack([p, q]), x, y)
    _check_grads(lambda p, q: em.vstack([p, q[0]]), x, y)


def test_atleast_nd():
    s, v, m = em.tensor(1.0), em.zeros(3), em.zeros(2, 3)
    assert em.atleast_1d(s).shape == (1,)
    assert em.atleast_2d(v).shape == (1, 3)
    assert em.atleast_3d(s).shape == (1, 1, 1)
    assert em.atleast_3d(v).shape == (1, 3, 1)
    assert em.atleast_3d(m).shape == (2, 3, 1)
    shapes = [t.shape for t in em.atleast_2d(s, v, m)]
    assert shapes == [(1, 1), (1, 3), (2, 3)]
    assert isinstance(em.atleast_1d([s]), tuple)


# --------------------------------------------------------------------------------------------- views and reshapes
def test_view_as_reshape_as_ravel_unflatten():
    x = em.arange(6.0)
    assert x.view_as(em.zeros(2, 3)).shape == (2, 3)
    assert x.reshape_as(em.zeros(3, 2)).shape == (3, 2)
    t = x.reshape(2, 3).t()
    assert t.ravel().tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    assert em.ravel(x.reshape(3, 2)).shape == (6,)
    y = em.zeros(2, 12)
    assert y.unflatten(1, (3, 4)).shape == (2, 3, 4)
    assert em.unflatten(y, -1, (2, -1, 3)).shape == (2, 2, 2, 3)
    with pytest.raises(RuntimeError, match=r"unflatten: Provided sizes \[5, 2\] don't multiply up to the size of "
                                           r"dim 1 \(12\) in the input tensor"):
        y.unflatten(1, (5, 2))
    _check_grads(lambda a: a.unflatten(1, (2, 2)).view_as(a.reshape(3, 2, 2)), _leaf(3, 4))


def test_squeeze_with_tuple_dims():
    x = em.zeros(1, 3, 1, 1)
    assert x.squeeze((0, 2)).shape == (3, 1)
    assert x.squeeze((1, -1)).shape == (1, 3, 1)  # a non-singleton dim is left alone
    assert em.squeeze(x, (0, 1, 2, 3)).shape == (3,)
    _check_grads(lambda a: a.reshape(1, 3, 1, 4).squeeze((0, 2)), _leaf(3, 4))


def test_broadcast_helpers():
    a, b = em.zeros(3, 1), em.ones(1, 4)
    pa, pb = em.broadcast_tensors(a, b)
    assert pa.shape == pb.shape == (3, 4)
    assert em.broadcast_shapes((2, 1), (3,), ()) == (2, 3)
    assert em.broadcast_to(em.tensor([1.0, 2.0]), (2, 2)).tolist() == [[1, 2], [1, 2]]
    with pytest.raises(RuntimeError, match="The size of tensor a \\(3\\) must match the size of tensor b \\(4\\) at "
                                           "non-singleton dimension 1"):
        em.broadcast_tensors(em.zeros(2, 3), em.zeros(2, 4))
    _check_grads(lambda p, q: em.broadcast_tensors(p, q), _leaf(3, 1), _leaf(1, 4, seed=1))
    _check_grads(lambda p: em.broadcast_to(p, (2, 3, 4)), _leaf(3, 1))


def test_movedim():
    x = em.zeros(2, 3, 4)
    assert em.movedim(x, 0, -1).shape == (3, 4, 2)
    assert x.movedim((0, 1), (2, 0)).shape == (3, 4, 2)
    assert em.moveaxis(x, 2, 0).shape == (4, 2, 3)
    a = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(em.tensor(a).movedim((0, 2), (1, 0)).numpy(), np.moveaxis(a, (0, 2), (1, 0)))
    with pytest.raises(RuntimeError, match="movedim: Invalid source or destination dims"):
        x.movedim((0, 1), (0,))
    with pytest.raises(RuntimeError, match=r"movedim: repeated dim in `source` \(\[0, 0\]\)"):
        x.movedim((0, 0), (1, 2))
    _check_grads(lambda p: p.movedim(0, 2), _leaf(2, 3, 4))


# --------------------------------------------------------------------------------------------------- repeat / tile
def test_repeat_and_tile_values():
    x = em.tensor([[1.0, 2.0]])
    assert x.repeat(2, 2).tolist() == [[1, 2, 1, 2], [1, 2, 1, 2]]
    assert x.repeat(2, 1, 1).shape == (2, 1, 2)
    assert em.tile(em.tensor([1, 2]), (2,)).tolist() == [1, 2, 1, 2]
    assert x.tile((2,)).tolist() == [[1, 2, 1, 2]]  # fewer dims: ones are prepended
    with pytest.raises(RuntimeError, match="Number of dimensions of repeat dims can not be smaller"):
        x.repeat(2)
    w = em.tensor([1.0, 2.0], requires_grad=True)
    w.repeat(3).sum().backward()
    assert w.grad.tolist() == [3.0, 3.0]
    _check_grads(lambda p: p.repeat(2, 1, 3), _leaf(2, 3))
    _check_grads(lambda p: p.tile((2,)), _leaf(2, 3))


# -------------------------------------------------------------------------------------------- split / chunk / unbind
def test_split_chunk_unbind_values():
    x = em.arange(10.0).reshape(5, 2)
    assert [p.shape[0] for p in x.split(2)] == [2, 2, 1]
    assert [p.tolist() for p in em.split(x, [1, 4])] == [[[0, 1]], [[2, 3], [4, 5], [6, 7], [8, 9]]]
    assert [p.shape for p in x.split(1, dim=1)] == [(5, 1), (5, 1)]
    assert [p.shape[0] for p in x.chunk(3)] == [2, 2, 1]
    assert len(em.arange(6.0).chunk(4)) == 3  # sizes 2, 2, 2: fewer chunks, as in PyTorch
    assert [r.tolist() for r in x.unbind(1)] == [[0, 2, 4, 6, 8], [1, 3, 5, 7, 9]]
    assert [p.shape for p in em.tensor_split(em.arange(7.0), 3)] == [(3,), (2,), (2,)]
    assert [p.tolist() for p in em.arange(6.0).tensor_split([1, 4])] == [[0.0], [1.0, 2.0, 3.0], [4.0, 5.0]]
    rows = [r.tolist() for r in em.tensor([[1, 2], [3, 4]])]  # iteration unbinds dim 0
    assert rows == [[1, 2], [3, 4]]


def test_split_errors():
    x = em.zeros(5)
    with pytest.raises(RuntimeError, match=r"split_with_sizes expects split_sizes to sum exactly to 5 \(input "
                                           r"tensor's size at dimension 0\), but got split_sizes=\[2, 2\]"):
        x.split([2, 2])
    with pytest.raises(RuntimeError, match="chunk expects `chunks` to be greater than 0, got: 0"):
        x.chunk(0)
    with pytest.raises(RuntimeError, match="split_size can only be 0 if dimension size is 0"):
        x.split(0)


def test_split_pieces_are_views():
    x = em.zeros(4)
    a, b = x.split(2)
    b[0] = 5.0
    assert x.tolist() == [0.0, 0.0, 5.0, 0.0]
    assert a._version is x._version


def test_split_unused_outputs_get_zero_gradient():
    x = em.arange(6.0, requires_grad=True)
    pieces = x.split(2)
    (pieces[1] * 3).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 3.0, 3.0, 0.0, 0.0]
    assert pieces[0].grad_fn is pieces[2].grad_fn  # one multi-output node
    y = em.zeros(2, 3, requires_grad=True)
    y.unbind(1)[2].sum().backward()
    assert y.grad.tolist() == [[0, 0, 1.0], [0, 0, 1.0]]


def test_split_family_gradients():
    x = _leaf(4, 3)
    _check_grads(lambda p: p.split(3), x)
    _check_grads(lambda p: p.split([1, 2], 1)[1], x)
    _check_grads(lambda p: p.chunk(2, 1), x)
    _check_grads(lambda p: p.unbind(1), x)
    _check_grads(lambda p: p.unbind(0)[2], x)


# -------------------------------------------------------------------------------------------- flip / roll / narrow
def test_flip_values_and_copy_semantics():
    a = np.arange(12.0).reshape(3, 4)
    x = em.tensor(a)
    np.testing.assert_array_equal(x.flip(0).numpy(), a[::-1])
    np.testing.assert_array_equal(em.flip(x, (0, 1)).numpy(), a[::-1, ::-1])
    np.testing.assert_array_equal(x.fliplr().numpy(), a[:, ::-1])
    np.testing.assert_array_equal(em.flipud(x).numpy(), a[::-1])
    y = x.flip(1)
    y[0, 0] = -1.0
    assert x[0, 3].item() == 3.0  # flip returns a copy
    with pytest.raises(RuntimeError, match="Input must be >= 2-d."):
        em.zeros(3).fliplr()
    _check_grads(lambda p: p.flip((0, 1)), _leaf(3, 4))
    _check_grads(lambda p: p.fliplr(), _leaf(3, 4))


def test_roll_values():
    x = em.arange(6.0).reshape(2, 3)
    assert x.roll(1, 1).tolist() == [[2, 0, 1], [5, 3, 4]]
    assert x.roll(1).tolist() == [[5, 0, 1], [2, 3, 4]]  # flattened
    assert em.roll(x, (1, -1), (0, 1)).tolist() == [[4, 5, 3], [1, 2, 0]]
    with pytest.raises(RuntimeError, match="shifts and dimensions must align"):
        x.roll((1, 2), 0)
    _check_grads(lambda p: p.roll(2, 1), _leaf(3, 4))
    _check_grads(lambda p: p.roll(5), _leaf(3, 4))


def test_narrow():
    x = em.arange(10.0).reshape(2, 5)
    assert x.narrow(1, 1, 3).tolist() == [[1, 2, 3], [6, 7, 8]]
    assert em.narrow(x, 1, -2, 2).tolist() == [[3, 4], [8, 9]]
    assert x.narrow(0, em.tensor(1), 1).tolist() == [[5, 6, 7, 8, 9]]
    v = x.narrow(1, 0, 1)
    v[0, 0] = 100.0
    assert x[0, 0].item() == 100.0
    with pytest.raises(RuntimeError, match=r"start \(4\) \+ length \(2\) exceeds dimension size \(5\)."):
        x.narrow(1, 4, 2)
    with pytest.raises(IndexError, match=r"start out of range \(expected to be in range of \[-5, 5\], but got 6\)"):
        x.narrow(1, 6, 0)
    _check_grads(lambda p: p.narrow(1, 1, 2), _leaf(3, 4))


# ------------------------------------------------------------------------------------------------------ tril/triu
def test_tril_triu_values_and_grads():
    a = np.arange(1.0, 13.0).reshape(3, 4)
    x = em.tensor(a)
    for k in (-1, 0, 2):
        np.testing.assert_array_equal(x.tril(k).numpy(), np.tril(a, k))
        np.testing.assert_array_equal(em.triu(x, diagonal=k).numpy(), np.triu(a, k))
    batch = em.ones(2, 3, 3).tril()
    assert batch.sum().item() == 12.0
    with pytest.raises(RuntimeError, match="tril: input tensor must have at least 2 dimensions"):
        em.zeros(3).tril()
    w = em.ones(2, 2, requires_grad=True)
    w.triu(1).sum().backward()
    assert w.grad.tolist() == [[0.0, 1.0], [0.0, 0.0]]
    _check_grads(lambda p: p.tril(-1), _leaf(3, 4))
    _check_grads(lambda p: p.triu(1), _leaf(2, 3, 3))


def test_flip_and_tile_accept_varargs_like_pytorch_methods():
    x = em.arange(6.0).reshape(2, 3)
    assert x.flip(0, 1).tolist() == [[5, 4, 3], [2, 1, 0]]
    assert x.flip([1]).tolist() == [[2, 1, 0], [5, 4, 3]]
    assert x.tile(2, 1).shape == (4, 3)
    assert em.tile(x, (3, 1, 1)).shape == (3, 2, 3)


@pytest.mark.parametrize("fn", [
    lambda a, b: em.dstack([a, b]), lambda a, b: em.column_stack([a[0], b[1]]), lambda a, b: a.flipud(),
    lambda a, b: em.atleast_3d(a[0]), lambda a, b: em.atleast_2d(a[0, 0]), lambda a, b: em.atleast_1d(a[0, 0]),
    lambda a, b: a.t().ravel(), lambda a, b: a.tensor_split(3, 1), lambda a, b: a.split_with_sizes([1, 1], 0),
    lambda a, b: a.reshape_as(b.reshape(3, 2)), lambda a, b: em.row_stack([a, b]),
])
def test_composed_shape_ops_gradcheck(fn):
    _check_grads(fn, _leaf(2, 3), _leaf(2, 3, seed=1))
