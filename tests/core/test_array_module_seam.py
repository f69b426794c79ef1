"""The array-module seam over all of core: ops, linalg, fft, the optimizers and a training step run on a fake GPU.

DESIGN: "No op calls numpy directly on tensor data; it asks its inputs for their array module". Each case runs once
on the CPU and once on the fake device of ``fake_device.py``; on the device no NumPy function may be called on
device data from ember code, every result must stay on the device, and values and gradients must equal the CPU's.
"""
import numpy as np
import pytest

import ember as em
from ember.core import linalg, nn, optim
from ember.core.nn import functional as F
from fake_device import FakeDeviceArray, fake_device, on_fake_device, to_device

_rng = np.random.default_rng(0)


def _a(*shape, positive=False, dtype=np.float64):
    x = _rng.standard_normal(shape).astype(dtype)
    return np.abs(x) + 0.5 if positive else x


def _spd(n):
    m = _rng.standard_normal((n, n))
    return m @ m.T + n * np.eye(n)


# name -> (function of tensors, input arrays, which inputs require grad)
OP_CASES = {
    # arithmetic and elementwise
    "add": (lambda a, b: em.add(a, b, alpha=2), (_a(3, 4), _a(4)), (0, 1)),
    "mul_div": (lambda a, b: a * b / (b * b + 1), (_a(3, 4), _a(3, 4)), (0, 1)),
    "pow": (lambda a: a ** 3 + 2 ** a, (_a(5),), (0,)),
    "remainder": (lambda a: em.remainder(a, 0.7), (_a(5),), ()),
    "exp_log": (lambda a: em.log(a) + em.exp(a) + em.sqrt(a) + em.log1p(a), (_a(6, positive=True),), (0,)),
    "trig": (lambda a: em.sin(a) + em.atan2(a, a + 1) + em.tanh(a), (_a(6),), (0,)),
    "clamp_where": (lambda a, b: em.where(a > 0, a, b).clamp(-0.5, 0.5) + em.maximum(a, b), (_a(4, 3), _a(4, 3)),
                    (0, 1)),
    "rounding": (lambda a: em.floor(a) + em.round(a, decimals=1) + em.sign(a), (_a(6),), ()),
    "special": (lambda a: em.erf(a) + em.sigmoid(a), (_a(6),), (0,)),
    "compare": (lambda a, b: (a < b).float() + em.isclose(a, b).float() + em.isnan(a).float(), (_a(5), _a(5)), ()),
    # reductions
    "reduce": (lambda a: a.sum(0) + a.mean(0) + a.amax(0) + a.var(0) + em.logsumexp(a, 0), (_a(4, 3),), (0,)),
    "max_dim": (lambda a: a.max(1).values + a.argmin(1).float(), (_a(4, 3),), (0,)),
    "cumsum_prod": (lambda a: a.cumsum(0) + a.cumprod(0), (_a(4, 3),), (0,)),
    "norm": (lambda a: em.norm(a) + a.norm(p=1, dim=1).sum(), (_a(4, 3),), (0,)),
    # shape, indexing, gathering
    "shape": (lambda a: a.reshape(3, 4).t().flip(0).permute(1, 0).unsqueeze(0).squeeze(0), (_a(4, 3),), (0,)),
    "cat_stack": (lambda a, b: em.cat([a, b], 0).sum(0) + em.stack([a, b]).mean(0).sum(0), (_a(2, 3), _a(2, 3)),
                  (0, 1)),
    "split": (lambda a: a.split(2, 0)[1] * 2, (_a(4, 3),), (0,)),
    "index": (lambda a: a[1:, [0, 2]] + a[:3, 0:2], (_a(4, 3),), (0,)),
    "gather_scatter": (lambda a: a.gather(1, em.tensor([[0, 1, 2]] * 4, device=a.device)) + a.scatter_add(
        1, em.tensor([[0, 0, 1]] * 4, device=a.device), a), (_a(4, 3),), (0,)),
    "masked": (lambda a: a.masked_fill(a > 0, 0.0) + a.index_select(0, em.tensor([3, 0, 1, 2], device=a.device)),
               (_a(4, 3),), (0,)),
    "tril_triu": (lambda a: a.tril() + a.triu(1), (_a(3, 3),), (0,)),
    # sorting, diagonals, grids
    "sort_topk": (lambda a: a.sort(1).values + a.topk(3, 1).values, (_a(4, 3),), (0,)),
    "median": (lambda a: a.median(1).values + a.kthvalue(2, 1).values, (_a(4, 3),), (0,)),
    "mode_argsort": (lambda a: a.round().mode(1).values + a[0, 0].argsort().float() + a.argsort(1).float().sum(1),
                     (_a(4, 3),), (0,)),
    "diagonals": (lambda a: em.diagonal(a) + em.diag(a).sum() + em.trace(a), (_a(3, 3),), (0,)),
    "meshgrid": (lambda a, b: sum(g.sum() for g in em.meshgrid(a, b, indexing="ij")), (_a(3), _a(4)), (0, 1)),
    # products
    "matmul": (lambda a, b: a @ b + em.mm(a, b), (_a(3, 4), _a(4, 3)), (0, 1)),
    "bmm_dot": (lambda a, b: em.bmm(a, b).sum() + em.dot(a[0, 0], b[0, :, 0]), (_a(2, 3, 4), _a(2, 4, 3)), (0, 1)),
    "einsum": (lambda a, b: em.einsum("ij,jk->ik", a, b) + em.tensordot(a, b, 1), (_a(3, 4), _a(4, 3)), (0, 1)),
    "outer_kron": (lambda a, b: em.outer(a, b).sum() + em.kron(a, b).sum(), (_a(3), _a(2)), (0, 1)),
    # linear algebra
    "inv_det": (lambda a: linalg.inv(a).sum() + linalg.det(a) + linalg.slogdet(a).logabsdet, (_spd(3),), (0,)),
    "solve": (lambda a, b: linalg.solve(a, b), (_spd(3), _a(3, 2)), (0, 1)),
    "cholesky_qr": (lambda a: linalg.cholesky(a).sum() + linalg.qr(a).R.sum(), (_spd(3),), (0,)),
    "eigh_svd": (lambda a: linalg.eigvalsh(a).sum() + linalg.svdvals(a).sum(), (_spd(3),), (0,)),
    "pinv_lstsq": (lambda a, b: linalg.pinv(a).sum() + linalg.lstsq(a, b).solution.sum(), (_a(4, 3), _a(4, 2)),
                   (0,)),
    "linalg_norms": (lambda a: linalg.vector_norm(a) + linalg.matrix_norm(a) + linalg.norm(a, 2), (_a(3, 3),), (0,)),
    "matrix_functions": (lambda a: linalg.matrix_power(a, 3).sum() + linalg.multi_dot([a, a, a]).sum(), (_a(3, 3),),
                         (0,)),
    # fft
    "fft": (lambda a: em.fft.fft(a).abs().sum() + em.fft.rfft(a).real.sum() + em.fft.ifft(a).imag.sum(), (_a(8),),
            (0,)),
    "fft2": (lambda a: em.fft.fft2(a).abs().sum() + em.fft.irfftn(em.fft.rfftn(a)).sum(), (_a(4, 4),), (0,)),
}

_x4 = _a(2, 3, 6, 6)


def _lstm(x):
    """A two-layer bidirectional LSTM with projections (the fused time-loop kernels), its weights on x's device."""
    em.manual_seed(0)
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2).double()
    if on_fake_device(x):
        for p in lstm.parameters():
            p.data = to_device(p)
    out, (h, c) = lstm(x)
    return out * 2 + h.sum() + c.sum()


# nn.functional: the same check
OP_CASES.update({
    "F.relu_gelu": (lambda a: F.relu(a) + F.gelu(a) + F.silu(a) + F.leaky_relu(a, 0.1), (_a(4, 5),), (0,)),
    "F.softmax": (lambda a: F.softmax(a, 1) + F.log_softmax(a, 1), (_a(4, 5),), (0,)),
    "F.linear": (lambda x, w, b: F.linear(x, w, b), (_a(4, 5), _a(3, 5), _a(3)), (0, 1, 2)),
    "F.conv2d": (lambda x, w: F.conv2d(x, w, padding=1), (_x4, _a(4, 3, 3, 3)), (0, 1)),
    "F.pooling": (lambda x: F.max_pool2d(x, 2) + F.avg_pool2d(x, 2), (_x4,), (0,)),
    "F.adaptive_pool": (lambda x: F.adaptive_avg_pool2d(x, 1), (_x4,), (0,)),
    "F.batch_norm": (lambda x: F.batch_norm(x, None, None, training=True), (_x4,), (0,)),
    "F.layer_norm": (lambda x: F.layer_norm(x, (6,)), (_x4,), (0,)),
    "F.cross_entropy": (lambda x, y: F.cross_entropy(x, y.long()), (_a(5, 4), np.array([0, 3, 1, 2, 0.0])), (0,)),
    "F.mse_nll": (lambda x, y: F.mse_loss(x, y) + F.nll_loss(F.log_softmax(x, 1), em.tensor([0, 1, 2, 3, 0],
                                                                                         device=x.device)),
                  (_a(5, 4), _a(5, 4)), (0, 1)),
    "F.bce_logits": (lambda x, y: F.binary_cross_entropy_with_logits(x, y), (_a(6), np.array([0, 1.0] * 3)), (0,)),
    "F.embedding": (lambda w: F.embedding(em.tensor([[0, 2], [3, 0]], device=w.device), w), (_a(4, 3),), (0,)),
    "F.pad": (lambda x: F.pad(x, (1, 2, 0, 1)), (_x4,), (0,)),
    "F.interpolate": (lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), (_x4,), (0,)),
    "nn.utils.rnn": (lambda a, b: nn.utils.rnn.pad_sequence([a, b], batch_first=True, padding_value=-1.0),
                     (_a(3, 2), _a(2, 2)), (0, 1)),
    "nn.LSTM": (_lstm, (_a(5, 3, 3),), (0,)),
    "F.attention": (lambda q, k, v: F.scaled_dot_product_attention(q, k, v), (_a(2, 4, 3), _a(2, 5, 3), _a(2, 5, 3)),
                    (0, 1, 2)),
})


def _run(fn, arrays, grad_inputs, device):
    inputs = []
    for i, arr in enumerate(arrays):
        t = to_device(arr) if device else em.tensor(arr)
        inputs.append(t.requires_grad_(True) if i in grad_inputs else t)
    out = fn(*inputs)
    grads = []
    if grad_inputs:
        (out.abs().sum() if out.dtype.is_complex else out.sum()).backward()
        grads = [inputs[i].grad for i in grad_inputs]
    return out, grads


def _host(t):
    data = t._data
    return data.get() if isinstance(data, FakeDeviceArray) else data


@pytest.mark.parametrize("name", sorted(OP_CASES))
def test_ops_compute_with_the_array_module_of_their_inputs(name):
    fn, arrays, grad_inputs = OP_CASES[name]
    ref_out, ref_grads = _run(fn, arrays, grad_inputs, device=False)
    with fake_device():
        out, grads = _run(fn, arrays, grad_inputs, device=True)
        direct = list(FakeDeviceArray.direct_calls)
    assert direct == [], "numpy called on device data: " + ", ".join(direct)
    assert on_fake_device(out), "the result left the device"
    assert all(on_fake_device(g) for g in grads), "a gradient left the device"
    np.testing.assert_allclose(_host(out), ref_out._data, rtol=1e-10, atol=1e-12)
    for g, r in zip(grads, ref_grads):
        np.testing.assert_allclose(_host(g), r._data, rtol=1e-10, atol=1e-12)


def test_the_old_solve_and_its_lu_on_the_device(monkeypatch):
    from ember.core.ops import products
    monkeypatch.setattr(products, "_warned", {"solve"})  # its deprecation warning is another test's business
    b, a = _a(3, 2), _spd(3)
    ref = em.solve(em.tensor(b), em.tensor(a))
    with fake_device():
        out = em.solve(to_device(b), to_device(a))
        direct = list(FakeDeviceArray.direct_calls)
    assert direct == []
    assert on_fake_device(list(out))
    np.testing.assert_allclose(_host(out.solution), ref.solution._data, rtol=1e-12)
    np.testing.assert_array_equal(_host(out.LU), ref.LU._data)


def test_a_singular_matrix_raises_the_same_error_on_the_device():
    a = np.array([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0], [0.0, 1.0]]])
    with pytest.raises(linalg.LinAlgError) as on_cpu:
        linalg.inv(em.tensor(a))
    with fake_device():
        with pytest.raises(linalg.LinAlgError) as on_device:
            linalg.inv(to_device(a))
        direct = list(FakeDeviceArray.direct_calls)
    assert direct == []
    assert str(on_device.value) == str(on_cpu.value)


def test_creation_ops_on_the_device():
    with fake_device() as xp:
        made = [em.zeros(2, 3, device="cuda"), em.ones(3, device="cuda"), em.arange(5, device="cuda"),
                em.full((2,), 7.0, device="cuda"), em.eye(3, device="cuda"), em.tensor([1.0, 2.0], device="cuda"),
                em.randn(4, device="cuda"), em.rand(4, device="cuda")]
        direct = list(FakeDeviceArray.direct_calls)
    assert direct == []
    assert all(on_fake_device(t) for t in made)
    assert {"zeros", "ones", "arange", "full", "eye"} <= xp.calls


OPTIMIZERS = {
    "SGD": lambda p: optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
    "Adam": lambda p: optim.Adam(p, lr=0.01, amsgrad=True),
    "AdamW": lambda p: optim.AdamW(p, lr=0.01),
    "Adagrad": lambda p: optim.Adagrad(p, lr=0.1),
    "RMSprop": lambda p: optim.RMSprop(p, lr=0.01, momentum=0.5, centered=True),
    "Adadelta": lambda p: optim.Adadelta(p),
    "Adamax": lambda p: optim.Adamax(p, lr=0.01),
    "NAdam": lambda p: optim.NAdam(p, lr=0.01),
    "RAdam": lambda p: optim.RAdam(p, lr=0.01),
    "ASGD": lambda p: optim.ASGD(p, lr=0.01),
    "LBFGS": lambda p: optim.LBFGS(p, lr=0.5, max_iter=3),
}


def _optimize(make, device):
    rng = np.random.default_rng(1)
    w0, x0 = rng.standard_normal((3, 2)), rng.standard_normal((5, 3))
    w = nn.Parameter(to_device(w0) if device else em.tensor(w0))
    x = to_device(x0) if device else em.tensor(x0)
    opt = make([w])

    def closure():
        opt.zero_grad()
        loss = ((x @ w) ** 2).mean()
        loss.backward()
        return loss

    for _ in range(3):
        opt.step(closure)
    return w, opt


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizers_step_on_the_device(name):
    ref, _ = _optimize(OPTIMIZERS[name], device=False)
    with fake_device():
        w, opt = _optimize(OPTIMIZERS[name], device=True)
        direct = list(FakeDeviceArray.direct_calls)
    assert direct == [], "numpy called on device data: " + ", ".join(direct)
    assert on_fake_device(w)
    states = [v for s in opt.state.values() for v in s.values() if isinstance(v, em.Tensor) and v.dim() > 0]
    assert all(on_fake_device(v) for v in states), "optimizer state left the device"
    np.testing.assert_allclose(_host(w), ref._data, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf"), 0])
def test_gradient_clipping_on_the_device(norm_type):
    def clip(device):
        rng = np.random.default_rng(3)
        params = [nn.Parameter(em.tensor(rng.standard_normal(s))) for s in ((3, 2), (4,))]
        for p in params:
            p.grad = em.tensor(rng.standard_normal(p.shape))
            if device:
                p.data, p.grad = to_device(p), to_device(p.grad)
        total = nn.utils.clip_grad_norm_(params, 0.5, norm_type=norm_type)
        nn.utils.clip_grad_value_(params, 0.1)
        return total, [p.grad for p in params]

    ref_total, ref_grads = clip(device=False)
    with fake_device():
        total, grads = clip(device=True)
        direct = list(FakeDeviceArray.direct_calls)
    assert direct == [], "numpy called on device data: " + ", ".join(direct)
    assert all(on_fake_device(g) for g in grads)
    assert float(_host(total)) == float(ref_total._data)
    for g, r in zip(grads, ref_grads):
        np.testing.assert_array_equal(_host(g), r._data)


def _mlp_step(device):
    em.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3)).double()
    if device:
        for p in model.parameters():
            p.data = to_device(p)
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((5, 6)), rng.integers(0, 3, 5)
    x, y = (to_device(x), to_device(y)) if device else (em.tensor(x), em.tensor(y))
    for _ in range(2):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    return list(model.parameters())


def test_a_training_step_of_an_mlp_on_the_device():
    ref = _mlp_step(device=False)
    with fake_device():
        params = _mlp_step(device=True)
        direct = list(FakeDeviceArray.direct_calls)
    assert direct == [], "numpy called on device data: " + ", ".join(direct)
    assert all(on_fake_device(p) for p in params)
    for p, r in zip(params, ref):
        np.testing.assert_array_equal(_host(p), r._data)


def test_the_seam_check_catches_a_direct_numpy_call():
    # code compiled as if it lived in core/ops/exp_log.py, calling numpy on device data instead of input._xp
    from ember.core.ops import exp_log
    source = "def bad_op(input, np, Tensor):\n    return Tensor._make(np.where(input._data > 0, 1.0, 0.0))\n"
    namespace = {}
    exec(compile(source, exp_log.__file__, "exec"), namespace)
    with fake_device():
        out = namespace["bad_op"](to_device(_a(3)), np, em.Tensor)
        direct = list(FakeDeviceArray.direct_calls)
    assert direct == ["np.where in core/ops/exp_log.py"]
    assert not on_fake_device(out)
