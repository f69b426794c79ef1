"""The threading policy: set/get_num_threads, OMP_NUM_THREADS, BLAS pinned, the pool, and threaded results equal to
single-threaded ones (bit-identical for elementwise kernels, float32 tolerance where partial sums are added)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import ember as em
from ember.core import threads
from ember.core.nn import functional as F

rng = np.random.default_rng(0)
BIG = 3 * threads.ELEMENTWISE_GRAIN + 17  # large enough to be split, not a multiple of the part size


@pytest.fixture
def restore_threads():
    before = em.get_num_threads()
    yield
    em.set_num_threads(before)


def _run(code, **env):
    full = dict(os.environ)
    full.pop("OMP_NUM_THREADS", None)
    full.update(env)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_set_and_get_num_threads(restore_threads):
    em.set_num_threads(3)
    assert em.get_num_threads() == 3
    em.set_num_threads(1)
    assert em.get_num_threads() == 1


@pytest.mark.parametrize("bad,exc,text", [(0, ValueError, "num=0"), (-2, ValueError, "num=-2"),
                                          (2.0, TypeError, "must be int, not float"),
                                          (True, TypeError, "must be int, not bool")])
def test_set_num_threads_rejects_bad_values(bad, exc, text):
    with pytest.raises(exc, match=text):
        em.set_num_threads(bad)


def test_default_honours_omp_num_threads_and_blas_is_pinned():
    code = ("import ember as em; from ember.core.distributed.threads import get_blas_threads; "
            "print(em.get_num_threads(), get_blas_threads())")
    assert _run(code, OMP_NUM_THREADS="3") == "3 1"
    cores = len(os.sched_getaffinity(0))
    assert _run(code) == f"{cores} 1"


def test_blas_left_alone_when_asked():
    code = "import ember; from ember.core.distributed.threads import get_blas_threads; print(get_blas_threads())"
    assert _run(code, EMBER_BLAS_THREADS="keep", OPENBLAS_NUM_THREADS="2") == "2"


def test_chunks_cover_the_range_in_aligned_parts(restore_threads):
    em.set_num_threads(2)
    parts = threads.chunks(1000, 100, align=64)
    assert parts[0][0] == 0 and parts[-1][1] == 1000
    assert all(a[1] == b[0] for a, b in zip(parts, parts[1:]))
    assert all(lo % 64 == 0 for lo, _ in parts)
    assert len(parts) == 2 * threads.PARTS_PER_THREAD
    assert threads.chunks(150, 100) == [(0, 150)]  # too small to gain
    em.set_num_threads(1)
    assert threads.chunks(10 ** 6, 100) == [(0, 10 ** 6)]


def test_parallel_for_runs_every_part(restore_threads):
    em.set_num_threads(2)
    seen = []

    def fn(lo, hi):
        seen.append((lo, hi))
    threads.parallel_for(800, fn, grain=100)
    assert sorted(seen) == [(0, 400), (400, 800)]  # one part per thread


def test_parallel_for_reraises_and_nested_calls_run_serially(restore_threads):
    em.set_num_threads(2)

    def boom(lo, hi):
        if lo > 0:
            raise KeyError("part failed")
    with pytest.raises(KeyError, match="part failed"):
        threads.parallel_for(800, boom, grain=100)
    out = np.zeros(800)

    def outer(lo, hi):
        threads.parallel_for(hi - lo, lambda a, b: out.__setitem__(slice(lo + a, lo + b), 1.0), grain=10)
    threads.parallel_for(800, outer, grain=100)
    assert out.sum() == 800


def test_pool_is_rebuilt_after_fork(restore_threads):
    em.set_num_threads(2)
    threads.parallel_for(800, lambda a, b: None, grain=100)
    code = ("import os, numpy as np, ember as em\n"
            "from ember.core import threads\n"
            "em.set_num_threads(2)\n"
            "threads.parallel_for(800, lambda a, b: None, grain=100)\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    out = np.zeros(800)\n"
            "    threads.parallel_for(800, lambda a, b: out.__setitem__(slice(a, b), 1), grain=100)\n"
            "    os._exit(0 if out.sum() == 800 else 1)\n"
            "print(os.waitpid(pid, 0)[1])\n")
    assert _run(code) == "0"


def _at_threads(n, fn):
    before = em.get_num_threads()
    em.set_num_threads(n)
    try:
        return fn()
    finally:
        em.set_num_threads(before)


def _forward_backward(fn, *arrays):
    def run():
        ts = [em.tensor(a, requires_grad=True) for a in arrays]
        out = fn(*ts)
        g = np.random.default_rng(1).standard_normal(out.shape).astype(out.detach().numpy().dtype)
        out.backward(em.tensor(g))
        return [out.detach().numpy()] + [t.grad.numpy() for t in ts]
    return run


@pytest.mark.parametrize("name,fn", [("relu", F.relu), ("gelu", F.gelu)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_elementwise_kernels_bit_identical_across_threads(name, fn, dtype):
    x = rng.standard_normal(BIG).astype(dtype)
    one = _at_threads(1, _forward_backward(fn, x))
    two = _at_threads(2, _forward_backward(fn, x))
    for a, b in zip(one, two):
        assert a.dtype == dtype and np.array_equal(a, b)


def test_linear_and_conv_equal_across_threads():
    x = rng.standard_normal((512, 256)).astype(np.float32)
    w = rng.standard_normal((384, 256)).astype(np.float32)
    one = _at_threads(1, _forward_backward(F.linear, x, w))
    two = _at_threads(2, _forward_backward(F.linear, x, w))
    for a, b in zip(one, two):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-4)
    xc = rng.standard_normal((16, 16, 16, 16)).astype(np.float32)
    wc = rng.standard_normal((32, 16, 3, 3)).astype(np.float32)
    conv = _forward_backward(lambda a, b: F.conv2d(a, b, padding=1), xc, wc)
    for a, b in zip(_at_threads(1, conv), _at_threads(2, conv)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-3)
    xn = rng.standard_normal((32, 6, 14, 14)).astype(np.float32)
    wn = rng.standard_normal((16, 6, 5, 5)).astype(np.float32)
    narrow = _forward_backward(lambda a, b: F.conv2d(a, b), xn, wn)
    for a, b in zip(_at_threads(1, narrow), _at_threads(2, narrow)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-3)


def test_pool_and_batch_norm_equal_across_threads():
    x = rng.standard_normal((64, 16, 32, 32)).astype(np.float32)
    pool = _forward_backward(lambda a: F.max_pool2d(a, 2), x)
    for a, b in zip(_at_threads(1, pool), _at_threads(2, pool)):
        assert np.array_equal(a, b)
    bn = _forward_backward(lambda a: F.batch_norm(a, None, None, training=True), x)
    for a, b in zip(_at_threads(1, bn), _at_threads(2, bn)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_batched_matmul_split_over_matrices_equals_one_thread():
    a = rng.standard_normal((8, 4, 64, 128)).astype(np.float32)
    b = rng.standard_normal((8, 4, 128, 96)).astype(np.float32)
    prod = _forward_backward(lambda x, y: x @ y, a, b)
    for one, two in zip(_at_threads(1, prod), _at_threads(2, prod)):
        np.testing.assert_allclose(one, two, rtol=1e-5, atol=1e-4)
    assert np.array_equal(_at_threads(2, lambda: threads.matmul(np, a, b)), np.matmul(a, b))
    with pytest.raises(ValueError):
        _at_threads(2, lambda: threads.matmul(np, a, a))


def test_layer_norm_equal_across_threads():
    x = rng.standard_normal((4096, 96)).astype(np.float32)
    w, b = rng.standard_normal(96).astype(np.float32), rng.standard_normal(96).astype(np.float32)
    ln = _forward_backward(lambda a, c, d: F.layer_norm(a, (96,), c, d), x, w, b)
    for one, two in zip(_at_threads(1, ln), _at_threads(2, ln)):
        np.testing.assert_allclose(one, two, rtol=1e-5, atol=1e-4)


def test_gemm_split_along_rows_or_columns_equals_one_call(restore_threads):
    em.set_num_threads(2)
    for a_shape, b_shape in [((128, 784), (784, 4096)), ((4096, 784), (784, 128))]:  # columns, then rows
        a = rng.standard_normal(a_shape).astype(np.float32)
        b = rng.standard_normal(b_shape).astype(np.float32)
        out = np.full((a_shape[0], b_shape[1]), np.nan, np.float32)
        parts = threads._gemm_parts(np, a, b, out, 2)
        assert len(parts) == 2
        parts[0]()  # the first part fills the first half of the longer side of the output, nothing else
        half = np.isnan(out)
        if a_shape[0] < b_shape[1]:
            assert not half[:, :b_shape[1] // 2].any() and half[:, b_shape[1] // 2:].all()
        else:
            assert not half[:a_shape[0] // 2].any() and half[a_shape[0] // 2:].all()
        parts[1]()
        np.testing.assert_allclose(out, a @ b, rtol=1e-5, atol=1e-3)
        np.testing.assert_allclose(threads.matmul(np, a, b), a @ b, rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("n", [1, 2])
def test_independent_products_side_by_side(restore_threads, n):
    em.set_num_threads(n)
    g = rng.standard_normal((1024, 384)).astype(np.float32)
    w = rng.standard_normal((384, 256)).astype(np.float32)
    x = rng.standard_normal((1024, 256)).astype(np.float32)
    gx, gw = threads.matmuls(np, [(g, w), (g.T, x)])
    np.testing.assert_allclose(gx, g @ w, rtol=1e-5, atol=1e-3)
    np.testing.assert_allclose(gw, g.T @ x, rtol=1e-5, atol=1e-3)
    small = threads.matmuls(np, [(g[:4], w), (g[:4].T, x[:4])])  # too small to gain: computed in turn
    np.testing.assert_allclose(small[1], g[:4].T @ x[:4], rtol=1e-5, atol=1e-4)
    # independent work (a bias gradient) runs once, in the same region, and its result comes last
    calls = []

    def bias_grad():
        calls.append(1)
        return g.sum(0)
    *prods, gb = threads.matmuls(np, [(g, w), (g.T, x)], also=bias_grad)
    assert calls == [1] and np.array_equal(gb, g.sum(0)) and np.array_equal(prods[1], gw)
    assert threads.matmuls(np, [(g[:4], w), (g[:4].T, x[:4])], also=lambda: "done")[2] == "done"


def test_linear_bias_gradient_bit_identical_across_threads():
    x = rng.standard_normal((2048, 128)).astype(np.float32)
    w = rng.standard_normal((512, 128)).astype(np.float32)
    b = rng.standard_normal(512).astype(np.float32)
    lin = _forward_backward(F.linear, x, w, b)
    one, two = _at_threads(1, lin), _at_threads(2, lin)
    assert np.array_equal(one[3], two[3])  # the bias gradient: one reduction, whichever thread runs it
    for a, c in zip(one[:3], two[:3]):
        np.testing.assert_allclose(a, c, rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_attention_equal_across_threads_and_to_the_composed_form(dtype):
    from ember.nn.attention import SDPBackend, sdpa_kernel
    q, k, v = (rng.standard_normal((64, 4, 64, 32)).astype(dtype) for _ in range(3))
    attn = _forward_backward(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True), q, k, v)
    one, two = _at_threads(1, attn), _at_threads(2, attn)
    for a, b in zip(one, two):  # parts hold whole matrices: the split changes nothing
        assert a.dtype == dtype and np.array_equal(a, b)
    with sdpa_kernel(SDPBackend.MATH):
        ref = attn()
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    for a, b in zip(one, ref):
        np.testing.assert_allclose(a, b, **tol)


@pytest.mark.parametrize("bias_shape", [(4096,), ()])
def test_split_gemm_adds_the_bias_part_by_part(restore_threads, bias_shape):
    a = rng.standard_normal((128, 784)).astype(np.float32)
    b = rng.standard_normal((784, 4096)).astype(np.float32)  # split by columns
    bias = rng.standard_normal(bias_shape).astype(np.float32)
    one = _at_threads(1, lambda: threads.matmul(np, a, b, bias=bias))
    two = _at_threads(2, lambda: threads.matmul(np, a, b, bias=bias))
    np.testing.assert_allclose(one, a @ b + bias, rtol=1e-5, atol=1e-3)
    np.testing.assert_allclose(two, one, rtol=1e-5, atol=1e-3)
    np.testing.assert_allclose(_at_threads(2, lambda: threads.matmul(np, a.T.T, b.T.T[:, :64], bias=bias[:64]
                                                                     if bias.ndim else bias)),
                               a @ b[:, :64] + (bias[:64] if bias.ndim else bias), rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("name", ["AdamW", "SGD"])
def test_optimizer_groups_of_parameters_update_side_by_side_bit_identically(name):
    shapes = [(384, 128), (384,), (512, 128), (128, 512), (128,)] * 3  # ~0.6M elements: split into two groups

    def run():
        g = np.random.default_rng(3)
        params = [em.tensor(g.standard_normal(s).astype(np.float32), requires_grad=True) for s in shapes]
        opt = em.optim.AdamW(params, lr=1e-2) if name == "AdamW" else em.optim.SGD(params, lr=0.1, momentum=0.9)
        for _ in range(3):
            for p in params:
                p.grad = em.tensor(g.standard_normal(p.shape).astype(np.float32))
            opt.step()
        return [p.detach().numpy() for p in params] + [s.numpy() for st in opt.state.values()
                                                        for s in st.values() if isinstance(s, em.Tensor)]
    one, two = _at_threads(1, run), _at_threads(2, run)
    assert len(one) == len(two) > len(shapes)
    for a, b in zip(one, two):
        assert np.array_equal(a, b)


def test_pool_keeps_no_reference_to_the_callers_arrays_after_a_region(restore_threads):
    """When a parallel region returns, no worker still holds the arrays its parts wrote: a fresh gradient computed in
    parallel then has no other owner, so backward keeps it as ``.grad`` instead of copying it (PyTorch's
    AccumulateGrad "steals" it the same way)."""
    em.set_num_threads(2)
    out = np.empty(800)
    baseline = sys.getrefcount(out)
    for _ in range(20):  # whichever thread runs the last part, every time
        # the part holds the array itself (a default argument), as the kernels' part functions do
        threads.parallel_for(800, lambda lo, hi, out=out: out.__setitem__(slice(lo, hi), 1.0), grain=100)
        assert sys.getrefcount(out) == baseline


def test_gradients_computed_on_two_threads_become_grad_without_a_copy(restore_threads, monkeypatch):
    em.set_num_threads(2)
    model = em.nn.Sequential(em.nn.Linear(784, 256), em.nn.ReLU(), em.nn.Linear(256, 10))
    x, y = em.randn(128, 784), em.randint(0, 10, (128,))
    assert 128 * 784 * 256 >= 2 * threads.GEMM_GRAIN  # the first layer's GEMMs are split across the threads
    copies = []
    original = em.Tensor.clone
    monkeypatch.setattr(em.Tensor, "clone", lambda self, *a, **k: copies.append(self.shape) or original(self, *a, **k))
    for _ in range(3):
        model.zero_grad()
        F.cross_entropy(model(x), y).backward()
    assert copies == []
