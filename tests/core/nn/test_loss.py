"""Losses: values from their formulas (NumPy), reductions, options, gradients and second order."""
import math
import warnings

import numpy as np
import pytest

import ember as em
from ember.autograd import gradcheck, gradgradcheck
from ember.core import nn
from ember.core.nn import functional as F

RNG = np.random.default_rng(0)


def _d(*shape, seed=0, scale=1.0, shift=0.0):
    rng = np.random.default_rng(seed)
    return em.tensor(rng.standard_normal(shape) * scale + shift, dtype=em.float64, requires_grad=True)


def _np_log_softmax(x, axis=1):
    z = x - x.max(axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis, keepdims=True))


# ------------------------------------------------------------------------------------------------- cross entropy
def test_cross_entropy_class_indices_value_and_gradient_match_numpy():
    x = _d(5, 4)
    t = em.tensor([0, 3, 1, 1, 2])
    loss = F.cross_entropy(x, t)
    logp = _np_log_softmax(x.detach().numpy())
    assert loss.item() == pytest.approx(-logp[np.arange(5), t.numpy()].mean(), rel=1e-12)
    loss.backward()
    expected = np.exp(logp)
    expected[np.arange(5), t.numpy()] -= 1
    np.testing.assert_allclose(x.grad.numpy(), expected / 5, rtol=1e-12, atol=1e-15)
    assert loss.grad_fn.name() == "CrossEntropyLossBackward0"


def test_cross_entropy_reductions_weight_and_ignore_index():
    x = _d(6, 3)
    t = em.tensor([0, 2, 1, -100, 2, 0])
    w = em.tensor([0.5, 2.0, 1.0], dtype=em.float64)
    logp = _np_log_softmax(x.detach().numpy())
    tn = t.numpy()
    valid = tn != -100
    per = np.zeros(6)
    per[valid] = -logp[np.arange(6)[valid], tn[valid]] * w.numpy()[tn[valid]]
    np.testing.assert_allclose(F.cross_entropy(x, t, weight=w, reduction="none").detach().numpy(), per)
    assert F.cross_entropy(x, t, weight=w, reduction="sum").item() == pytest.approx(per.sum())
    assert F.cross_entropy(x, t, weight=w).item() == pytest.approx(per.sum() / w.numpy()[tn[valid]].sum())
    t2 = em.tensor([0, 2, 1, 1, 2, 0])
    loss = F.cross_entropy(x, t2, ignore_index=1)
    keep = t2.numpy() != 1
    assert loss.item() == pytest.approx(-logp[np.arange(6)[keep], t2.numpy()[keep]].mean())


def test_cross_entropy_label_smoothing_formula():
    x = _d(4, 5)
    t = em.tensor([1, 0, 4, 2])
    eps, c = 0.2, 5
    logp = _np_log_softmax(x.detach().numpy())
    q = np.full((4, 5), eps / c)
    q[np.arange(4), t.numpy()] += 1 - eps
    assert F.cross_entropy(x, t, label_smoothing=eps).item() == pytest.approx(-(q * logp).sum(1).mean(), rel=1e-12)
    assert gradcheck(lambda a: F.cross_entropy(a, t, label_smoothing=eps), (x,))
    assert gradgradcheck(lambda a: F.cross_entropy(a, t, label_smoothing=eps), (x,))


def test_cross_entropy_probability_targets():
    x = _d(3, 4)
    p = np.random.default_rng(5).dirichlet(np.ones(4), size=3)
    target = em.tensor(p, dtype=em.float64)
    logp = _np_log_softmax(x.detach().numpy())
    assert F.cross_entropy(x, target).item() == pytest.approx(-(p * logp).sum(1).mean(), rel=1e-12)
    w = em.tensor([1.0, 2.0, 0.5, 1.0], dtype=em.float64)
    assert F.cross_entropy(x, target, weight=w, reduction="sum").item() == \
        pytest.approx(-(p * logp * w.numpy()).sum(), rel=1e-12)
    assert gradcheck(lambda a: F.cross_entropy(a, target), (x,))


def test_cross_entropy_k_dimensional_and_unbatched():
    x = _d(2, 3, 4, 2)
    t = em.tensor(np.random.default_rng(1).integers(0, 3, (2, 4, 2)))
    logp = _np_log_softmax(x.detach().numpy(), 1)
    picked = np.take_along_axis(logp, t.numpy()[:, None], 1)[:, 0]
    assert F.cross_entropy(x, t).item() == pytest.approx(-picked.mean(), rel=1e-12)
    assert F.cross_entropy(x, t, reduction="none").shape == em.Size([2, 4, 2])
    assert gradcheck(lambda a: F.cross_entropy(a, t, reduction="none"), (x,))
    single = _d(4)
    out = F.cross_entropy(single, em.tensor(2), reduction="none")
    assert out.shape == em.Size([]) and out.item() == pytest.approx(-_np_log_softmax(
        single.detach().numpy()[None])[0, 2])
    assert gradcheck(lambda a: F.cross_entropy(a, em.tensor(2)), (single,))


@pytest.mark.parametrize("kw", [{}, {"reduction": "sum"}, {"reduction": "none"}, {"ignore_index": 1},
                                {"weight": "w"}])
def test_cross_entropy_fused_path_gradcheck_and_double_backward(kw):
    x = _d(5, 4)
    t = em.tensor([0, 3, 1, 1, 2])
    if kw.get("weight") == "w":
        kw = {"weight": em.tensor([0.3, 1.0, 2.0, 0.7], dtype=em.float64)}
    fn = lambda a: F.cross_entropy(a, t, **kw)  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_cross_entropy_bad_input():
    with pytest.raises(IndexError, match="Target 7 is out of bounds"):
        F.cross_entropy(em.randn(2, 3), em.tensor([0, 7]))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(2\) to match target batch_size \(3\)"):
        F.cross_entropy(em.randn(2, 3), em.tensor([0, 1, 2]))
    with pytest.raises(RuntimeError, match="weight tensor should be defined either for all 3 classes"):
        F.cross_entropy(em.randn(2, 3), em.tensor([0, 1]), weight=em.ones(2))
    with pytest.raises(RuntimeError, match="expected scalar type Long but found Float"):
        F.cross_entropy(em.randn(2, 3), em.tensor([0.0, 1.0]))
    with pytest.raises(ValueError, match="label_smoothing must be between 0.0 and 1.0"):
        F.cross_entropy(em.randn(2, 3), em.tensor([0, 1]), label_smoothing=1.5)
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        F.cross_entropy(em.randn(2, 3), em.tensor([0, 1]), reduction="avg")


def test_cross_entropy_module_and_weight_buffer():
    crit = nn.CrossEntropyLoss(weight=em.ones(3), label_smoothing=0.1)
    assert list(crit.state_dict()) == ["weight"]
    assert repr(crit) == "CrossEntropyLoss()"
    assert crit(em.randn(4, 3), em.tensor([0, 1, 2, 0])).shape == em.Size([])


# --------------------------------------------------------------------------------------------------------- NLL
def test_nll_loss_values_and_second_order():
    logp = _d(4, 3)
    t = em.tensor([2, 0, 1, 1])
    w = em.tensor([1.0, 3.0, 0.5], dtype=em.float64)
    x = logp.detach().numpy()
    picked = x[np.arange(4), t.numpy()]
    assert F.nll_loss(logp, t).item() == pytest.approx(-picked.mean())
    assert F.nll_loss(logp, t, weight=w).item() == pytest.approx(
        -(picked * w.numpy()[t.numpy()]).sum() / w.numpy()[t.numpy()].sum())
    np.testing.assert_allclose(F.nll_loss(logp, t, reduction="none").detach().numpy(), -picked)
    for kw in ({}, {"weight": w}, {"reduction": "sum"}, {"ignore_index": 0}, {"reduction": "none"}):
        assert gradcheck(lambda a: nn.NLLLoss(**kw)(a, t), (logp,))
        assert gradgradcheck(lambda a: nn.NLLLoss(**kw)(a, t), (logp,))


def test_nll_all_ignored_mean_is_nan():
    out = F.nll_loss(em.randn(2, 3), em.tensor([-100, -100]))
    assert math.isnan(out.item())


# ------------------------------------------------------------------------------------------------- regression
def test_l1_mse_values_and_l1_second_order():
    a, b = _d(3, 4), _d(3, 4, seed=1)
    an, bn = a.detach().numpy(), b.detach().numpy()
    assert nn.L1Loss()(a, b).item() == pytest.approx(np.abs(an - bn).mean())
    assert nn.MSELoss(reduction="sum")(a, b).item() == pytest.approx(((an - bn) ** 2).sum())
    np.testing.assert_allclose(nn.MSELoss(reduction="none")(a, b).detach().numpy(), (an - bn) ** 2)
    assert gradcheck(nn.L1Loss(), (a, b))
    assert gradgradcheck(nn.L1Loss(), (a, b))
    for red in ("mean", "sum", "none"):
        assert gradcheck(nn.MSELoss(reduction=red), (a, b))
        assert gradgradcheck(nn.MSELoss(reduction=red), (a, b))


def test_regression_size_mismatch_warns():
    with pytest.warns(UserWarning, match="Using a target size"):
        F.mse_loss(em.ones(3, 1), em.ones(3))


def test_smooth_l1_and_huber():
    a = _d(12) * 1
    b = em.zeros(12, dtype=em.float64)
    d = a.detach().numpy()
    beta = 0.7
    ref = np.where(np.abs(d) < beta, 0.5 * d ** 2 / beta, np.abs(d) - 0.5 * beta)
    assert nn.SmoothL1Loss(beta=beta)(a, b).item() == pytest.approx(ref.mean())
    href = np.where(np.abs(d) < beta, 0.5 * d ** 2, beta * (np.abs(d) - 0.5 * beta))
    assert nn.HuberLoss(delta=beta)(a, b).item() == pytest.approx(href.mean())
    x = _d(12)
    assert gradcheck(lambda t: F.smooth_l1_loss(t, b, beta=beta), (x,))
    assert gradcheck(lambda t: F.huber_loss(t, b, delta=beta), (x,))
    assert gradgradcheck(lambda t: F.huber_loss(t, b, delta=beta), (x,))
    assert F.smooth_l1_loss(x, b, beta=0.0).item() == pytest.approx(np.abs(x.detach().numpy()).mean())


def test_poisson_nll_loss_values_and_second_order():
    x = _d(3, 4, scale=0.5)
    t = em.tensor(np.random.default_rng(2).poisson(2.0, (3, 4)).astype(float), dtype=em.float64)
    xn, tn = x.detach().numpy(), t.numpy()
    assert nn.PoissonNLLLoss()(x, t).item() == pytest.approx((np.exp(xn) - tn * xn).mean())
    stirling = np.where(tn > 1, tn * np.log(np.where(tn > 0, tn, 1)) - tn + 0.5 * np.log(2 * np.pi * np.where(
        tn > 0, tn, 1)), 0)
    assert nn.PoissonNLLLoss(full=True)(x, t).item() == pytest.approx((np.exp(xn) - tn * xn + stirling).mean())
    rate = _d(3, 4, scale=0.1, shift=1.0)
    rn = rate.detach().numpy()
    assert nn.PoissonNLLLoss(log_input=False)(rate, t).item() == pytest.approx((rn - tn * np.log(rn + 1e-8)).mean())
    assert gradcheck(nn.PoissonNLLLoss(), (x, t))
    assert gradgradcheck(nn.PoissonNLLLoss(), (x, t))
    assert gradgradcheck(nn.PoissonNLLLoss(log_input=False), (rate, t))


def test_gaussian_nll_loss():
    x, t = _d(4, 2), _d(4, 2, seed=1)
    var = em.tensor(np.random.default_rng(3).uniform(0.5, 2, (4, 2)), dtype=em.float64, requires_grad=True)
    xn, tn, vn = x.detach().numpy(), t.detach().numpy(), var.detach().numpy()
    ref = 0.5 * (np.log(vn) + (xn - tn) ** 2 / vn)
    assert nn.GaussianNLLLoss()(x, t, var).item() == pytest.approx(ref.mean())
    assert nn.GaussianNLLLoss(full=True, reduction="sum")(x, t, var).item() == \
        pytest.approx((ref + 0.5 * math.log(2 * math.pi)).sum())
    homo = em.tensor(vn[:, :1], dtype=em.float64, requires_grad=True)
    assert nn.GaussianNLLLoss()(x, t, homo).shape == em.Size([])
    assert gradcheck(nn.GaussianNLLLoss(), (x, t, var))
    with pytest.raises(ValueError, match="var has negative entry"):
        F.gaussian_nll_loss(x, t, -var)
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(x, t, em.ones(3))


# ------------------------------------------------------------------------------------------- binary / probs
def test_bce_values_weight_and_gradients():
    p = em.tensor(np.random.default_rng(4).uniform(0.05, 0.95, (3, 4)), dtype=em.float64, requires_grad=True)
    y = em.tensor(np.random.default_rng(5).integers(0, 2, (3, 4)).astype(float), dtype=em.float64)
    w = em.tensor([1.0, 2.0, 0.5, 1.5], dtype=em.float64)
    pn, yn = p.detach().numpy(), y.numpy()
    ref = -(yn * np.log(pn) + (1 - yn) * np.log(1 - pn))
    assert nn.BCELoss()(p, y).item() == pytest.approx(ref.mean())
    assert nn.BCELoss(weight=w, reduction="sum")(p, y).item() == pytest.approx((ref * w.numpy()).sum())
    assert gradcheck(nn.BCELoss(weight=w), (p, y))
    assert gradgradcheck(nn.BCELoss(), (p, y))
    soft = em.tensor(np.random.default_rng(6).uniform(0, 1, (3, 4)), dtype=em.float64, requires_grad=True)
    assert gradcheck(nn.BCELoss(), (p, soft))
    assert F.binary_cross_entropy(em.tensor([0.0, 1.0]), em.tensor([1.0, 0.0])).item() == pytest.approx(100.0)
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(em.tensor([1.5]), em.tensor([1.0]))
    with pytest.raises(ValueError, match="different to the input size"):
        F.binary_cross_entropy(em.tensor([0.5, 0.5]), em.tensor([1.0]))


def test_bce_with_logits_pos_weight_and_stability():
    x = _d(3, 4, scale=3.0)
    y = em.tensor(np.random.default_rng(7).integers(0, 2, (3, 4)).astype(float), dtype=em.float64)
    pw = em.tensor([1.0, 2.0, 3.0, 0.5], dtype=em.float64)
    xn, yn = x.detach().numpy(), y.numpy()
    s = 1 / (1 + np.exp(-xn))
    ref = -(pw.numpy() * yn * np.log(s) + (1 - yn) * np.log(1 - s))
    assert nn.BCEWithLogitsLoss(pos_weight=pw)(x, y).item() == pytest.approx(ref.mean(), rel=1e-10)
    assert list(nn.BCEWithLogitsLoss(pos_weight=pw).state_dict()) == ["pos_weight"]
    assert gradcheck(nn.BCEWithLogitsLoss(pos_weight=pw), (x, y))
    assert gradgradcheck(nn.BCEWithLogitsLoss(), (x, y))
    big = F.binary_cross_entropy_with_logits(em.tensor([100.0, -100.0]), em.tensor([0.0, 1.0]), reduction="none")
    np.testing.assert_allclose(big.numpy(), [100.0, 100.0])


def test_kl_div_reductions_and_log_target():
    logq = em.tensor(_np_log_softmax(np.random.default_rng(8).standard_normal((3, 4))), dtype=em.float64,
                     requires_grad=True)
    p = np.random.default_rng(9).dirichlet(np.ones(4), size=3)
    p[0, 1] = 0.0  # 0 * log 0 counts as 0
    p[0] /= p[0].sum()
    target = em.tensor(p, dtype=em.float64)
    pointwise = np.where(p > 0, p * (np.log(np.where(p > 0, p, 1)) - logq.detach().numpy()), 0)
    assert nn.KLDivLoss(reduction="batchmean")(logq, target).item() == pytest.approx(pointwise.sum() / 3)
    assert nn.KLDivLoss(reduction="sum")(logq, target).item() == pytest.approx(pointwise.sum())
    with pytest.warns(UserWarning, match="batchmean"):
        assert F.kl_div(logq, target).item() == pytest.approx(pointwise.mean())
    logp = em.tensor(np.log(np.random.default_rng(10).dirichlet(np.ones(4), size=3)), dtype=em.float64)
    ref = (np.exp(logp.numpy()) * (logp.numpy() - logq.detach().numpy())).sum() / 3
    assert F.kl_div(logq, logp, reduction="batchmean", log_target=True).item() == pytest.approx(ref)
    assert gradcheck(lambda a: F.kl_div(a, target, reduction="batchmean"), (logq,))
    assert gradgradcheck(lambda a: F.kl_div(a, logp, reduction="sum", log_target=True), (logq,))


# ----------------------------------------------------------------------------------------------------- margins
def _cos(a, b):
    return (a * b).sum(1) / np.sqrt(((a * a).sum(1) + 1e-12) * ((b * b).sum(1) + 1e-12))


def test_cosine_embedding_loss():
    a, b = _d(4, 3), _d(4, 3, seed=1)
    y = em.tensor([1, -1, 1, -1])
    c = _cos(a.detach().numpy(), b.detach().numpy())
    ref = np.where(y.numpy() == 1, 1 - c, np.maximum(0, c - 0.1))
    assert nn.CosineEmbeddingLoss(margin=0.1)(a, b, y).item() == pytest.approx(ref.mean())
    assert gradcheck(nn.CosineEmbeddingLoss(margin=-0.5), (a, b, y))


def test_margin_ranking_hinge_soft_margin_and_multilabel_soft_margin():
    a, b = _d(5), _d(5, seed=1)
    y = em.tensor([1.0, -1.0, 1.0, 1.0, -1.0], dtype=em.float64)
    an, bn, yn = a.detach().numpy(), b.detach().numpy(), y.numpy()
    assert nn.MarginRankingLoss(0.2)(a, b, y).item() == pytest.approx(np.maximum(0, -yn * (an - bn) + 0.2).mean())
    assert gradcheck(nn.MarginRankingLoss(0.2), (a, b, y))
    ref = np.where(yn == 1, an, np.maximum(0, 1.0 - an))
    assert nn.HingeEmbeddingLoss()(a, y).item() == pytest.approx(ref.mean())
    assert gradcheck(nn.HingeEmbeddingLoss(), (a, y))
    assert nn.SoftMarginLoss()(a, y).item() == pytest.approx(np.log1p(np.exp(-yn * an)).mean())
    assert gradcheck(nn.SoftMarginLoss(), (a, y))
    x = _d(3, 4)
    t = em.tensor(np.random.default_rng(11).integers(0, 2, (3, 4)).astype(float), dtype=em.float64)
    xn, tn = x.detach().numpy(), t.numpy()
    s = 1 / (1 + np.exp(-xn))
    ref = -(tn * np.log(s) + (1 - tn) * np.log(1 - s)).mean(1).mean()
    assert nn.MultiLabelSoftMarginLoss()(x, t).item() == pytest.approx(ref)
    assert gradcheck(nn.MultiLabelSoftMarginLoss(), (x, t))


def test_triplet_margin_loss():
    a, p, n = _d(4, 3), _d(4, 3, seed=1), _d(4, 3, seed=2)
    an, pn, nn_ = (t.detach().numpy() for t in (a, p, n))
    d_ap = np.linalg.norm(an - pn + 1e-6, axis=1)
    d_an = np.linalg.norm(an - nn_ + 1e-6, axis=1)
    assert nn.TripletMarginLoss(margin=1.0)(a, p, n).item() == pytest.approx(np.maximum(d_ap - d_an + 1, 0).mean())
    d_pn = np.linalg.norm(pn - nn_ + 1e-6, axis=1)
    swapped = np.maximum(d_ap - np.minimum(d_an, d_pn) + 1, 0).mean()
    assert nn.TripletMarginLoss(swap=True)(a, p, n).item() == pytest.approx(swapped)
    assert gradcheck(nn.TripletMarginLoss(), (a, p, n))
    l1 = nn.TripletMarginWithDistanceLoss(distance_function=lambda u, v: (u - v).abs().sum(-1))(a, p, n)
    ref = np.maximum(np.abs(an - pn).sum(1) - np.abs(an - nn_).sum(1) + 1, 0).mean()
    assert l1.item() == pytest.approx(ref)


def test_multi_margin_and_multilabel_margin():
    x = _d(3, 4)
    t = em.tensor([1, 0, 3])
    xn = x.detach().numpy()
    ref = []
    for i, y in enumerate(t.numpy()):
        ref.append(sum(max(0, 1 - xn[i, y] + xn[i, j]) for j in range(4) if j != y) / 4)
    assert nn.MultiMarginLoss()(x, t).item() == pytest.approx(np.mean(ref))
    assert gradcheck(nn.MultiMarginLoss(p=2), (x, t))
    tl = em.tensor([[3, 0, -1, 1], [1, -1, 0, 0], [0, 1, 2, 3]])
    ref = []
    for i in range(3):
        cls = []
        for k in tl.numpy()[i]:
            if k < 0:
                break
            cls.append(k)
        others = [j for j in range(4) if j not in cls]
        ref.append(sum(max(0, 1 - (xn[i, j] - xn[i, o])) for j in cls for o in others) / 4)
    assert nn.MultiLabelMarginLoss()(x, tl).item() == pytest.approx(np.mean(ref))
    assert gradcheck(lambda a: F.multilabel_margin_loss(a, tl), (x,))


# ------------------------------------------------------------------------------------------------ distillation
def test_distillation_loss_composes():
    """Hinton-style distillation: soft targets at temperature T (scaled by T^2), hard labels, and a cosine loss
    that aligns the student's hidden features with the teacher's."""
    T, alpha = 2.0, 0.7
    student = _d(4, 5, seed=20)
    teacher = em.tensor(np.random.default_rng(21).standard_normal((4, 5)), dtype=em.float64)
    labels = em.tensor([0, 4, 2, 2])
    h_s = _d(4, 6, seed=22)
    h_t = em.tensor(np.random.default_rng(23).standard_normal((4, 6)), dtype=em.float64)
    kl, ce, cos = nn.KLDivLoss(reduction="batchmean"), nn.CrossEntropyLoss(), nn.CosineEmbeddingLoss()

    def loss_fn(s, hs):
        soft = kl(F.log_softmax(s / T, dim=1), F.softmax(teacher / T, dim=1)) * (T * T)
        hard = ce(s, labels)
        feat = cos(hs, h_t, em.ones(4))
        return alpha * soft + (1 - alpha) * hard + feat

    sn, tn = student.detach().numpy(), teacher.numpy()
    ls, lt = _np_log_softmax(sn / T), _np_log_softmax(tn / T)
    soft_ref = (np.exp(lt) * (lt - ls)).sum() / 4 * T * T
    hard_ref = -_np_log_softmax(sn)[np.arange(4), labels.numpy()].mean()
    feat_ref = (1 - _cos(h_s.detach().numpy(), h_t.numpy())).mean()
    total = loss_fn(student, h_s)
    assert total.item() == pytest.approx(alpha * soft_ref + (1 - alpha) * hard_ref + feat_ref, rel=1e-12)
    assert gradcheck(loss_fn, (student, h_s))
    total.backward()
    # the T^2 factor keeps the soft-target gradient on the scale of the hard-label one
    soft_grad = (np.exp(ls) - np.exp(lt)) / 4 * T
    hard_grad = np.exp(_np_log_softmax(sn))
    hard_grad[np.arange(4), labels.numpy()] -= 1
    np.testing.assert_allclose(student.grad.numpy(), alpha * soft_grad + (1 - alpha) * hard_grad / 4, rtol=1e-10)


def test_legacy_size_average_reduce_arguments():
    with pytest.warns(UserWarning, match="reduction='sum'"):
        crit = nn.MSELoss(size_average=False)
    assert crit.reduction == "sum"


def test_smooth_l1_and_huber_match_pytorch_bit_for_bit():
    # PyTorch 2.13 float32, reduction="none", target 0: losses and the gradients of their sum. An infinite difference
    # takes the linear branch (a loss of inf and a gradient of +-1, +-delta); it used to give NaN for both
    x = [np.inf, -np.inf, 0.3, 2.0, -2.0, 1.0, -1.0, np.nan, 0.9999999]
    cases = {
        ("smooth_l1", 1.0): ([np.inf, np.inf, 0.04500000178813934, 1.5, 1.5, 0.5, 0.5, np.nan, 0.49999988079071045],
                             [1.0, -1.0, 0.30000001192092896, 1.0, -1.0, 1.0, -1.0, np.nan, 0.9999998807907104]),
        ("smooth_l1", 0.5): ([np.inf, np.inf, 0.09000000357627869, 1.75, 1.75, 0.75, 0.75, np.nan, 0.7499998807907104],
                             [1.0, -1.0, 0.6000000238418579, 1.0, -1.0, 1.0, -1.0, np.nan, 1.0]),
        ("huber", 0.5): ([np.inf, np.inf, 0.04500000178813934, 0.875, 0.875, 0.375, 0.375, np.nan, 0.3749999403953552],
                         [0.5, -0.5, 0.30000001192092896, 0.5, -0.5, 0.5, -0.5, np.nan, 0.5]),
    }
    for (name, beta), (losses, grads) in cases.items():
        for n in (1, 1000):  # small and large arrays take different kernels
            a = em.tensor(np.tile(np.array(x, np.float32), n), requires_grad=True)
            b = em.zeros(9 * n)
            loss = (F.smooth_l1_loss(a, b, reduction="none", beta=beta) if name == "smooth_l1"
                    else F.huber_loss(a, b, reduction="none", delta=beta))
            loss.sum().backward()
            got_loss, got_grad = loss.detach().numpy()[:9], a.grad.numpy()[:9]
            nan = np.isnan(np.array(losses))
            assert np.array_equal(got_loss[~nan], np.array(losses, np.float32)[~nan]) and np.isnan(got_loss[nan]).all()
            assert np.array_equal(got_grad[~nan], np.array(grads, np.float32)[~nan]) and np.isnan(got_grad[nan]).all()


def test_smooth_l1_gradient_reaches_a_broadcast_target():
    x = em.tensor(np.array([[0.2, -1.7, 3.0], [0.95, 2.2, -0.4]]), requires_grad=True)  # no difference on a kink
    t = em.tensor(np.array([0.1, 0.3, -0.2]), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the size-mismatch warning
        assert gradcheck(lambda a, b: F.smooth_l1_loss(a, b, reduction="sum", beta=0.8), (x, t))
        assert gradgradcheck(lambda a, b: F.huber_loss(a, b, reduction="mean", delta=0.8), (x, t))
