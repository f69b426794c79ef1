"""``ember.distributions``: values against closed forms computed here (math, NumPy), gradients by finite differences,
shapes, seeded sampling statistics, and PyTorch 2.13's reprs and error messages.

The expected messages and reprs were measured with PyTorch 2.13 CPU; ember prints ``ember.Size([2])`` where PyTorch
prints ``torch.Size([2])`` and names ``ember.Tensor`` where PyTorch names ``torch.Tensor``.
"""
import math
import warnings

import numpy as np
import pytest

import ember as em
from ember.core import distributions as D
from ember.core.autograd import gradcheck
from ember.core.distributions import (AffineTransform, Bernoulli, Beta, Categorical, ComposeTransform, Dirichlet,
                                      Distribution, Exponential, ExpTransform, Gamma, Independent, Laplace, LogNormal,
                                      MultivariateNormal, Normal, OneHotCategorical, Poisson, SigmoidTransform,
                                      SoftplusTransform, TanhTransform, Transform, TransformedDistribution, Uniform,
                                      constraints, identity_transform, kl_divergence, register_kl)

f64 = em.float64


def t64(values, requires_grad=False):
    return em.tensor(values, dtype=f64, requires_grad=requires_grad)


def close(tensor, expected, rtol=1e-7, atol=1e-10):
    np.testing.assert_allclose(np.asarray(tensor.detach().numpy(), dtype=float), expected, rtol=rtol, atol=atol)


def integrate(fn, lo, hi, n=400001):
    """The trapezoid rule: an independent check of closed forms. The nodes crowd quadratically towards both ends
    (cosine spacing), where densities may have integrable (log or power) singularities."""
    x = lo + (hi - lo) * (1 - np.cos(np.linspace(0, math.pi, n))) / 2
    y = fn(x)
    return float(np.sum((y[1:] + y[:-1]) * np.diff(x)) / 2)


# ------------------------------------------------------------------------------------- reprs and messages
def test_reprs_follow_pytorch_with_ember_size():
    assert repr(Normal(0., 1.)) == "Normal(loc: 0.0, scale: 1.0)"  # a 0-d parameter prints as its number
    assert repr(Normal(em.tensor([0.]), 1.)) == "Normal(loc: tensor([0.]), scale: tensor([1.]))"
    assert repr(Normal(em.zeros(2), 1.)) == "Normal(loc: ember.Size([2]), scale: ember.Size([2]))"
    assert repr(Bernoulli(0.3)) == "Bernoulli(probs: 0.30000001192092896)"  # the float32 value, as PyTorch
    assert repr(Bernoulli(logits=em.zeros(2))) == "Bernoulli(logits: ember.Size([2]))"
    assert repr(Categorical(em.ones(3, 2))) == "Categorical(probs: ember.Size([3, 2]))"
    assert repr(OneHotCategorical(em.ones(2))) == "OneHotCategorical()"  # its parameters live on the inner one
    assert repr(Uniform(0., 1.)) == "Uniform(low: 0.0, high: 1.0)"
    assert repr(Independent(Normal(em.zeros(2, 3), 1.), 1)) == (
        "Independent(Normal(loc: ember.Size([2, 3]), scale: ember.Size([2, 3])), 1)")
    assert repr(MultivariateNormal(em.zeros(3, 2), em.eye(2))) == (
        "MultivariateNormal(loc: ember.Size([3, 2]), covariance_matrix: ember.Size([3, 2, 2]))")
    # a lazily computed parameter joins the repr once it has been computed
    b = Bernoulli(em.tensor([0.3]))
    assert "logits" not in b.__dict__
    b.logits
    assert repr(b) == "Bernoulli(probs: tensor([0.3000]), logits: tensor([-0.8473]))"


def test_constraint_reprs():
    assert [repr(c) for c in (constraints.positive, constraints.real, constraints.real_vector, constraints.simplex,
                              constraints.unit_interval, constraints.boolean, constraints.one_hot,
                              constraints.nonnegative, constraints.positive_definite, constraints.lower_cholesky,
                              constraints.dependent, constraints.integer_interval(0, 3),
                              constraints.nonnegative_integer)] == [
        "GreaterThan(lower_bound=0.0)", "Real()", "IndependentConstraint(Real(), 1)", "Simplex()",
        "Interval(lower_bound=0.0, upper_bound=1.0)", "Boolean()", "OneHot()", "GreaterThanEq(lower_bound=0.0)",
        "PositiveDefinite()", "LowerCholesky()", "Dependent()", "IntegerInterval(lower_bound=0, upper_bound=3)",
        "IntegerGreaterThan(lower_bound=0)"]
    assert repr(Uniform.support) == "DependentProperty()" and repr(Normal.support) == "Real()"
    assert repr(Uniform(em.zeros(1), em.ones(1)).support) == (
        "Interval(lower_bound=tensor([0.]), upper_bound=tensor([1.]))")
    # a 0-d tensor bound prints as its number
    assert repr(Uniform(1., 2.).arg_constraints["low"]) == "LessThan(upper_bound=2.0)"
    assert Categorical.support.is_discrete and Categorical.support.event_dim == 0
    with pytest.raises(NotImplementedError, match=r"\.is_discrete cannot be determined statically"):
        constraints.dependent.is_discrete
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        constraints.dependent.check(em.ones(1))


def test_constraint_checks_reduce_event_dimensions():
    assert constraints.simplex.check(em.tensor([[0.5, 0.5], [0.2, 0.2]])).tolist() == [True, False]
    assert constraints.real.check(em.tensor([1., math.nan])).tolist() == [True, False]
    assert constraints.integer_interval(0, 3).check(em.tensor([1., 1.5, -1., 3.])).tolist() == [True, False, False,
                                                                                                  True]
    assert constraints.positive_definite.check(em.tensor([[1., 2.], [0., 1.]])).item() is False  # not symmetric
    assert constraints.positive_definite.check(em.tensor([[1., 2.], [2., 1.]])).item() is False  # indefinite
    assert constraints.positive_definite.check(em.tensor([[2., 1.], [1., 2.]])).item() is True
    assert constraints.lower_cholesky.check(em.eye(2).expand(3, 2, 2)).tolist() == [True] * 3
    assert constraints.independent(constraints.positive, 1).check(em.tensor([[1., 2.], [1., -1.]])).tolist() == [
        True, False]


def test_invalid_parameter_message_is_pytorchs():
    with pytest.raises(ValueError) as err:
        Normal(em.tensor([0., 1.]), em.tensor([1., -1.]))
    assert str(err.value) == (
        "Expected parameter scale (Tensor of shape (2,)) of distribution Normal(loc: ember.Size([2]), scale: "
        "ember.Size([2])) to satisfy the constraint GreaterThan(lower_bound=0.0), but found invalid values:\n"
        "tensor([ 1., -1.])")
    with pytest.raises(ValueError) as err:
        Normal(0., -1.)
    assert str(err.value).endswith("Normal(loc: 0.0, scale: -1.0) to satisfy the constraint "
                                   "GreaterThan(lower_bound=0.0), but found invalid values:\n-1.0")
    with pytest.raises(ValueError, match=r"Expected parameter probs .* Interval\(lower_bound=0.0, upper_bound=1.0\)"):
        Bernoulli(em.tensor([0.3, 1.5]))
    with pytest.raises(ValueError, match=r"Expected parameter low \(Tensor of shape \(\)\) of distribution "
                                         r"Uniform\(low: 1.0, high: 0.0\) to satisfy the constraint "
                                         r"LessThan\(upper_bound=0.0\)"):
        Uniform(1., 0.)
    with pytest.raises(ValueError, match=r"parameter probs .* Simplex\(\), but found invalid values:\n"
                                         r"tensor\(\[-0.7500,  1.7500\]\)"):
        Categorical(em.tensor([0.3, -0.7]))
    with pytest.raises(ValueError, match=r"parameter rate .* Exponential\(rate: 0.0\)"):
        Exponential(0.)
    with pytest.raises(ValueError, match=r"parameter covariance_matrix \(Tensor of shape \(2, 2\)\) .* "
                                         r"PositiveDefinite\(\)"):
        MultivariateNormal(em.zeros(2), -em.eye(2))
    with pytest.raises(ValueError, match=r"parameter scale_tril .* LowerCholesky\(\)"):
        MultivariateNormal(em.zeros(2), scale_tril=-em.eye(2))


def test_constructor_errors_are_pytorchs():
    for make in (lambda: Bernoulli(), lambda: Bernoulli(0.3, 0.3), lambda: Categorical(),
                 lambda: Categorical(em.ones(2), em.ones(2))):
        with pytest.raises(ValueError, match=r"^Either `probs` or `logits` must be specified, but not both\.$"):
            make()
    with pytest.raises(ValueError, match=r"^`probs` parameter must be at least one-dimensional\.$"):
        Categorical(em.tensor(0.3))
    with pytest.raises(ValueError, match=r"^`logits` parameter must be at least one-dimensional\.$"):
        Categorical(logits=em.tensor(0.3))
    with pytest.raises(ValueError, match=r"^Exactly one of covariance_matrix or precision_matrix or scale_tril may "
                                         r"be specified\.$"):
        MultivariateNormal(em.zeros(2))
    with pytest.raises(ValueError, match=r"^loc must be at least one-dimensional\.$"):
        MultivariateNormal(em.tensor(0.), em.eye(2))
    with pytest.raises(ValueError, match=r"^covariance_matrix must be at least two-dimensional, with optional "
                                         r"leading batch dimensions$"):
        MultivariateNormal(em.zeros(2), em.ones(2))
    with pytest.raises(ValueError, match=r"^Expected reinterpreted_batch_ndims <= "
                                         r"len\(base_distribution.batch_shape\), actual 3 vs 2$"):
        Independent(Normal(em.zeros(2, 3), 1.), 3)
    with pytest.raises(ValueError, match="Input arguments must all be instances of Number or ember.Tensor, but got "
                                         "list"):
        Normal([0.], 1.)
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        Normal(em.zeros(2), em.ones(3))


def test_log_prob_value_checks():
    with pytest.raises(ValueError) as err:
        Exponential(em.tensor([1.])).log_prob(em.tensor([-1.]))
    assert str(err.value) == (
        "Expected value argument (Tensor of shape (1,)) to be within the support (GreaterThanEq(lower_bound=0.0)) of "
        "the distribution Exponential(rate: tensor([1.])), but found invalid values:\ntensor([-1.])")
    with pytest.raises(ValueError, match=r"within the support \(IntegerInterval\(lower_bound=0, upper_bound=1\)\) "
                                         r"of the distribution Categorical\(probs: ember.Size\(\[2\]\)\), but found "
                                         r"invalid values:\n2$"):
        Categorical(em.tensor([1., 3.])).log_prob(em.tensor(2))
    with pytest.raises(ValueError, match=r"\(Boolean\(\)\)"):
        Bernoulli(em.tensor([0.3, 0.5])).log_prob(em.tensor([0.5, 1.]))
    with pytest.raises(ValueError, match=r"\(OneHot\(\)\) of the distribution OneHotCategorical\(\)"):
        OneHotCategorical(em.tensor([1., 3.])).log_prob(em.tensor([1., 1.]))
    with pytest.raises(ValueError, match=r"\(Real\(\)\).*\ntensor\(\[nan, 1.\]\)"):
        Normal(em.zeros(2), 1.).log_prob(em.tensor([math.nan, 1.]))
    with pytest.raises(ValueError, match="^The value argument to log_prob must be a Tensor$"):
        Normal(em.zeros(2), 1.).log_prob(0.5)
    with pytest.raises(ValueError, match=r"^Value is not broadcastable with batch_shape\+event_shape: "
                                         r"ember.Size\(\[3\]\) vs ember.Size\(\[2\]\)\.$"):
        Normal(em.zeros(2), 1.).log_prob(em.zeros(3))
    with pytest.raises(ValueError, match=r"^The right-most size of value must match event_shape: "
                                         r"ember.Size\(\[3\]\) vs ember.Size\(\[2\]\)\.$"):
        MultivariateNormal(em.zeros(2), em.eye(2)).log_prob(em.zeros(3))
    # Uniform's support depends on its parameters
    with pytest.raises(ValueError, match=r"support \(Interval\(lower_bound=tensor\(\[0., 0.\]\), "
                                         r"upper_bound=tensor\(\[1., 1.\]\)\)\)"):
        Uniform(em.zeros(2), em.ones(2)).log_prob(em.tensor([2., 0.5]))


def test_validation_can_be_turned_off():
    assert Normal(0., -1., validate_args=False).log_prob(em.tensor(0.)).isnan().item()
    assert Uniform(0., 1., validate_args=False).log_prob(em.tensor([2., -1., 0., 1.])).tolist() == [
        -math.inf, -math.inf, 0.0, -math.inf]
    assert Normal(0., 1., validate_args=False).expand([2])._validate_args is False
    with pytest.raises(ValueError):
        Distribution.set_default_validate_args("yes")
    try:
        Distribution.set_default_validate_args(False)
        Normal(0., -1.)  # no error now
        Normal(0., -1., validate_args=True).scale  # an explicit flag still wins over the default
    except ValueError:
        pass
    else:
        raise AssertionError("validate_args=True must validate even when the default is off")
    finally:
        Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        Normal(0., -1.)


# ----------------------------------------------------------------------------------------- values
def test_normal_values():
    loc, scale = t64([0.3, -1.0]), t64([1.5, 0.4])
    x = t64([0.7, -2.0])
    m = Normal(loc, scale)
    mu, s, v = np.array([0.3, -1.0]), np.array([1.5, 0.4]), np.array([0.7, -2.0])
    close(m.log_prob(x), -((v - mu) ** 2) / (2 * s ** 2) - np.log(s) - 0.5 * math.log(2 * math.pi))
    close(m.cdf(x), [0.5 * (1 + math.erf((a - b) / (c * math.sqrt(2)))) for a, b, c in zip(v, mu, s)])
    close(m.icdf(m.cdf(x)), v, rtol=1e-9)
    close(m.entropy(), 0.5 * np.log(2 * math.pi * math.e * s ** 2))
    close(m.perplexity(), np.exp(0.5 * np.log(2 * math.pi * math.e * s ** 2)))
    close(m.variance, s ** 2)
    assert m.mean is loc and m.mode is loc and m.stddev is scale


def test_bernoulli_values_and_saturated_edges():
    p = np.array([0.2, 0.7])
    m = Bernoulli(t64(p))
    close(m.log_prob(t64([1., 0.])), [math.log(0.2), math.log(0.3)])
    close(m.entropy(), -(p * np.log(p) + (1 - p) * np.log(1 - p)))
    close(m.logits, np.log(p / (1 - p)))
    close(Bernoulli(logits=t64([0.5])).probs, [1 / (1 + math.exp(-0.5))])
    assert m.mean is m.probs and m.mode.tolist() == [0., 1.]
    assert Bernoulli(em.tensor([0.5])).mode.isnan().item()
    # probs 0 and 1 clamp the logits to log(eps) - log1p(-eps), PyTorch's values (measured)
    e = Bernoulli(em.tensor([0., 0.5, 1.]))
    close(e.logits, [-15.942385, 0., 15.942385], rtol=1e-6)
    close(e.entropy(), [0., math.log(2), 1.1920929e-07], rtol=1e-5, atol=0)
    close(e.log_prob(em.tensor([1., 1., 0.])), [-15.942385, -math.log(2), -15.942385], rtol=1e-6)


def test_categorical_values_zero_probs_and_infinite_logits():
    c = Categorical(em.tensor([1., 3.]))
    close(c.probs, [0.25, 0.75])  # normalized
    close(c.log_prob(em.tensor([0, 1])), [math.log(0.25), math.log(0.75)], rtol=1e-6)
    lg = Categorical(logits=t64([1., 2., 3.]))
    close(lg.logits, np.array([1., 2., 3.]) - math.log(sum(math.exp(v) for v in (1., 2., 3.))))
    z = Categorical(em.tensor([0., 0.3, 0.7]))
    close(z.entropy(), -(0.3 * math.log(0.3) + 0.7 * math.log(0.7)), rtol=1e-6)
    close(z.log_prob(em.tensor(0)), -15.942385, rtol=1e-6)  # log of the clamped probability, as PyTorch
    inf = Categorical(logits=em.tensor([-math.inf, 0., 1.]))
    close(inf.probs, [0., 1 / (1 + math.e), math.e / (1 + math.e)], rtol=1e-6)
    assert inf.log_prob(em.tensor(0)).item() == -math.inf
    q = np.array([1 / (1 + math.e), math.e / (1 + math.e)])
    close(inf.entropy(), -(q * np.log(q)).sum(), rtol=1e-6)  # the -inf logit adds 0, not nan
    # log_prob broadcasts values against the batch
    b = Categorical(t64([[0.3, 0.7], [0.6, 0.4]]))
    close(b.log_prob(em.tensor([[0], [1]])), np.log([[0.3, 0.6], [0.7, 0.4]]))
    assert b.mode.tolist() == [1, 0]
    assert b.mean.isnan().all().item() and b.mean.shape == (2,)


def test_one_hot_categorical_values():
    m = OneHotCategorical(t64([[0.2, 0.8], [0.5, 0.5]]))
    close(m.log_prob(t64([[0., 1.], [1., 0.]])), [math.log(0.8), math.log(0.5)])
    close(m.entropy(), [-(0.2 * math.log(0.2) + 0.8 * math.log(0.8)), math.log(2)])
    close(m.variance, [[0.16, 0.16], [0.25, 0.25]])
    assert m.mode.tolist()[0] == [0., 1.] and m.mode.dtype == f64
    assert m.enumerate_support().shape == (2, 2, 2) and m.enumerate_support(expand=False).shape == (2, 1, 2)


def test_uniform_laplace_exponential_values():
    u = Uniform(t64([0., -1.]), t64([2., 3.]))
    close(u.log_prob(t64([1., 2.9])), [-math.log(2), -math.log(4)])
    close(u.cdf(t64([0.5, 3.])), [0.25, 1.])
    close(Uniform(t64(0.), t64(2.), validate_args=False).cdf(t64([-1., 5.])), [0., 1.])  # clamped outside
    close(u.icdf(t64([0.5, 0.25])), [1., 0.])
    close(u.entropy(), [math.log(2), math.log(4)])
    close(u.mean, [1., 1.]) and close(u.variance, [4 / 12, 16 / 12])
    assert u.mode.isnan().all().item()

    lap = Laplace(t64([0.5]), t64([2.]))
    for v in (-1., 0.5, 3.):
        close(lap.log_prob(t64([v])), [-math.log(4) - abs(v - 0.5) / 2])
        cdf = 0.5 * math.exp((v - 0.5) / 2) if v < 0.5 else 1 - 0.5 * math.exp(-(v - 0.5) / 2)
        close(lap.cdf(t64([v])), [cdf])
        close(lap.icdf(t64([cdf])), [v], rtol=1e-9)
    close(lap.entropy(), [1 + math.log(4)])
    close(lap.variance, [8.]) and close(lap.stddev, [math.sqrt(8)])

    e = Exponential(t64([2.]))
    close(e.log_prob(t64([0.5])), [math.log(2) - 1])
    close(e.cdf(t64([0.5])), [1 - math.exp(-1)])
    close(e.icdf(t64([0.5])), [math.log(2) / 2])
    close(e.entropy(), [1 - math.log(2)])
    close(e.mean, [0.5]) and close(e.variance, [0.25])
    assert e.mode.tolist() == [0.]


def test_independent_sums_the_reinterpreted_dimensions():
    base = Normal(t64(np.zeros((2, 3))), t64(np.full((2, 3), 2.)))
    ind = Independent(base, 1)
    assert ind.batch_shape == (2,) and ind.event_shape == (3,)
    x = t64(np.arange(6.).reshape(2, 3))
    close(ind.log_prob(x), base.log_prob(x).numpy().sum(-1))
    close(ind.entropy(), base.entropy().numpy().sum(-1))
    assert repr(ind.support) == "IndependentConstraint(Real(), 1)"
    assert Independent(base, 2).log_prob(t64(np.zeros(3))).shape == ()
    assert ind.has_rsample and not Independent(Bernoulli(em.ones(2, 3) / 2), 1).has_rsample
    with pytest.raises(ValueError, match=r"\(Boolean\(\)\) of the distribution Bernoulli"):
        Independent(Bernoulli(em.ones(2, 3) / 2), 1).log_prob(em.ones(2, 3) / 2)


def test_multivariate_normal_values_match_the_dense_formula():
    cov = np.array([[2., 0.5, 0.1], [0.5, 1., 0.3], [0.1, 0.3, 0.8]])
    mu = np.array([0.1, -0.2, 0.3])
    x = np.array([[0.5, 0.5, 0.5], [-1., 0., 2.]])
    diff = x - mu
    expected = -0.5 * (3 * math.log(2 * math.pi) + math.log(np.linalg.det(cov))
                       + np.einsum("bi,ij,bj->b", diff, np.linalg.inv(cov), diff))
    entropy = 0.5 * (3 * (1 + math.log(2 * math.pi)) + math.log(np.linalg.det(cov)))
    for kwargs in ({"covariance_matrix": t64(cov)}, {"precision_matrix": t64(np.linalg.inv(cov))},
                   {"scale_tril": t64(np.linalg.cholesky(cov))}):
        m = MultivariateNormal(t64(mu), **kwargs)
        close(m.log_prob(t64(x)), expected, rtol=1e-9)
        close(m.entropy(), entropy, rtol=1e-9)
        close(m.covariance_matrix, cov, rtol=1e-9)
        close(m.precision_matrix, np.linalg.inv(cov), rtol=1e-9)
        close(m.scale_tril, np.linalg.cholesky(cov), rtol=1e-9)
        close(m.variance, np.diag(cov), rtol=1e-9)
    # loc batch broadcast against one covariance; the Mahalanobis term broadcasts samples against the batch
    b = MultivariateNormal(t64(np.stack([mu, mu + 1])), t64(cov))
    assert b.batch_shape == (2,) and b.log_prob(t64(np.zeros((4, 1, 3)))).shape == (4, 2)
    close(b.log_prob(t64(x[:1]))[0], expected[0], rtol=1e-9)


# ------------------------------------------------------------------------------------------- KL divergences
def test_kl_normal_bernoulli_categorical_closed_forms():
    p, q = Normal(t64([0.3]), t64([1.2])), Normal(t64([-0.5]), t64([0.7]))
    close(kl_divergence(p, q), [math.log(0.7 / 1.2) + (1.2 ** 2 + 0.8 ** 2) / (2 * 0.7 ** 2) - 0.5])
    close(kl_divergence(Bernoulli(t64([0.3])), Bernoulli(t64([0.8]))),
          [0.3 * math.log(0.3 / 0.8) + 0.7 * math.log(0.7 / 0.2)])
    a, b = np.array([0.2, 0.5, 0.3]), np.array([0.1, 0.1, 0.8])
    close(kl_divergence(Categorical(t64(a)), Categorical(t64(b))), (a * np.log(a / b)).sum())
    close(kl_divergence(OneHotCategorical(t64(a)), OneHotCategorical(t64(b))), (a * np.log(a / b)).sum())
    # exact zeros: 0 log 0 = 0, and mass where q has none is infinite (PyTorch's values, measured)
    zero = Categorical(em.tensor([0., 0.3, 0.7]))
    ninf = Categorical(logits=em.tensor([-math.inf, 0., 1.]))
    assert kl_divergence(ninf, ninf).item() == 0.0
    assert kl_divergence(Categorical(em.tensor([0.5, 0.5])), Categorical(em.tensor([1., 0.]))).item() == math.inf
    close(kl_divergence(Categorical(em.tensor([1., 0.])), Categorical(em.tensor([0.5, 0.5]))), math.log(2), rtol=1e-6)
    close(kl_divergence(zero, ninf), 0.0024, atol=1e-4)
    e = Bernoulli(em.tensor([0., 0.5, 1.]))
    assert kl_divergence(e, Bernoulli(em.tensor([0.5, 0., 1.]))).tolist()[1:] == [math.inf, 0.0]
    assert kl_divergence(Bernoulli(em.tensor([0.5, 0.3, 0.])), e).tolist()[0] == math.inf


def test_kl_continuous_pairs_against_numerical_integration():
    def check(p, q, lo, hi, rtol=1e-6):
        def integrand(x):
            xt = t64(x)
            lp, lq = p.log_prob(xt).numpy(), q.log_prob(xt).numpy()
            return np.exp(lp) * (lp - lq)
        close(kl_divergence(p, q), integrate(integrand, lo, hi), rtol=rtol, atol=1e-8)

    check(Laplace(t64(0.3), t64(1.2)), Laplace(t64(-0.5), t64(0.7)), -40, 40)
    check(Exponential(t64(2.)), Exponential(t64(0.5)), 0, 40)
    check(Normal(t64(0.3), t64(1.2)), Laplace(t64(-0.5), t64(0.7)), -20, 20)
    check(Laplace(t64(0.3), t64(1.2)), Normal(t64(-0.5), t64(2.)), -60, 60)
    check(Exponential(t64(2.)), Normal(t64(0.5), t64(1.5)), 0, 40)
    check(Uniform(t64(-0.5), t64(1.)), Normal(t64(0.5), t64(1.5)), -0.5, 1. - 1e-12)
    check(Uniform(t64(0.5), t64(1.)), Exponential(t64(1.5)), 0.5, 1. - 1e-12)
    close(kl_divergence(Uniform(t64(0.), t64(1.)), Uniform(t64(-1.), t64(2.))), math.log(3))
    # infinite where p's interval sticks out of q's
    close(kl_divergence(Uniform(t64([-1., 0.]), t64([2., 1.])), Uniform(t64(0.), t64(1.5))), [math.inf, math.log(1.5)])
    for p, q in ((Normal(0., 1.), Exponential(1.)), (Normal(0., 1.), Uniform(0., 1.)),
                 (Laplace(0., 1.), Exponential(1.)), (Exponential(1.), Uniform(0., 1.)),
                 (Uniform(-1., 1.), Exponential(1.))):
        assert kl_divergence(p, q).item() == math.inf


def test_kl_multivariate_normal_and_independent():
    cp = np.array([[2., 0.5], [0.5, 1.]])
    cq = np.array([[1., -0.2], [-0.2, 0.5]])
    mp, mq = np.array([0.1, 0.2]), np.array([-0.3, 0.4])
    d = mq - mp
    expected = 0.5 * (np.trace(np.linalg.inv(cq) @ cp) + d @ np.linalg.inv(cq) @ d - 2
                      + math.log(np.linalg.det(cq) / np.linalg.det(cp)))
    p = MultivariateNormal(t64(mp), t64(cp))
    q = MultivariateNormal(t64(np.stack([mq, mq])), scale_tril=t64(np.linalg.cholesky(cq)))
    close(kl_divergence(p, q), [expected, expected], rtol=1e-9)
    with pytest.raises(ValueError, match="KL-divergence between two Multivariate Normals with different event "
                                         "shapes cannot be computed"):
        kl_divergence(p, MultivariateNormal(em.zeros(3, dtype=f64), em.eye(3, dtype=f64)))
    # a diagonal MVN is an Independent Normal
    s, t = np.array([1.5, 0.4]), np.array([0.7, 1.1])
    ind = kl_divergence(Independent(Normal(t64(mp), t64(s)), 1), Independent(Normal(t64(mq), t64(t)), 1))
    mvn = kl_divergence(MultivariateNormal(t64(mp), t64(np.diag(s ** 2))),
                        MultivariateNormal(t64(mq), t64(np.diag(t ** 2))))
    close(ind, mvn.item(), rtol=1e-9)
    with pytest.raises(NotImplementedError):
        kl_divergence(Independent(Normal(em.zeros(2), 1.), 1), Independent(Normal(em.zeros(2), 1.), 0))


def test_kl_dispatch_errors_and_specificity():
    with pytest.raises(NotImplementedError, match=r"^No KL\(p \|\| q\) is implemented for p type Categorical and q "
                                                  r"type Normal$"):
        kl_divergence(Categorical(em.tensor([.5, .5])), Normal(0., 1.))
    # two exponential families without a registered pair reach the Bregman fallback, which refuses mixed families
    with pytest.raises(NotImplementedError, match="The cross KL-divergence between different exponential families"):
        kl_divergence(Bernoulli(0.3), Normal(0., 1.))
    # for one family the Bregman divergence of the log normalizer agrees with the closed form
    from ember.core.distributions._kl_same_family import _kl_expfamily_expfamily
    p, q = Normal(t64([0.3]), t64([1.2])), Normal(t64([-0.5]), t64([0.7]))
    close(_kl_expfamily_expfamily(p, q), kl_divergence(p, q).numpy(), rtol=1e-9)
    close(D.ExponentialFamily.entropy(p), p.entropy().numpy(), rtol=1e-9)
    with pytest.raises(TypeError, match="Expected type_p to be a Distribution subclass"):
        register_kl(int, Normal)

    class N2(Normal):
        pass

    class N3(N2):
        pass

    class N4(Normal):
        pass

    register_kl(N2, Normal)(lambda p, q: "N2-Normal")
    assert kl_divergence(N3(0., 1.), Normal(0., 1.)) == "N2-Normal"  # most specific registered ancestor pair
    close(kl_divergence(N4(0., 1.), N4(1., 1.)), 0.5)  # falls back to (Normal, Normal)
    register_kl(Normal, N2)(lambda p, q: "Normal-N2")
    with pytest.warns(RuntimeWarning, match=r"Ambiguous kl_divergence\(N2, N2\)\. Please register_kl\(N2, N2\)"):
        assert kl_divergence(N2(0., 1.), N2(0., 1.)) == "N2-Normal"
    register_kl(N2, N2)(lambda p, q: "N2-N2")  # registering clears the memo, so the tie-break applies at once
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert kl_divergence(N2(0., 1.), N2(0., 1.)) == "N2-N2"


# ------------------------------------------------------------------------------------------- gradients
def _seeded(fn):
    # a fixed seed per call: the finite differences then see the same noise as the analytical gradient
    def run(*args):
        em.manual_seed(0)
        return fn(*args)
    return run


def test_rsample_gradients():
    loc, scale = t64([0.3, -1.], True), t64([1.5, 0.4], True)
    assert gradcheck(_seeded(lambda l, s: Normal(l, s).rsample((3,))), (loc, scale))
    assert gradcheck(_seeded(lambda l, s: Laplace(l, s).rsample((3,))), (loc, scale))
    assert gradcheck(_seeded(lambda r: Exponential(r).rsample((3,))), (scale,))
    low, high = t64([0., -1.], True), t64([1., 2.], True)
    assert gradcheck(_seeded(lambda lo, hi: Uniform(lo, hi).rsample((3,))), (low, high))
    assert gradcheck(_seeded(lambda l, s: Independent(Normal(l, s), 1).rsample((2,))), (loc, scale))
    mu = t64([0.1, 0.2], True)
    tril = t64([[1.2, 0.], [0.3, 0.8]], True)
    assert gradcheck(_seeded(lambda m, L: MultivariateNormal(m, scale_tril=L.tril()).rsample((3,))), (mu, tril))
    # the covariance is built symmetric, since Cholesky reads only one triangle
    assert gradcheck(_seeded(lambda m, A: MultivariateNormal(m, A @ A.mT + em.eye(2, dtype=f64)).rsample((3,))),
                     (mu, tril))
    # sample() carries no gradient, rsample() does
    g = t64([0.], True)
    assert not Normal(g, 1.).sample().requires_grad and Normal(g, 1.).rsample().requires_grad
    assert Normal(0., 1.).has_rsample and not Bernoulli(0.3).has_rsample and not Categorical(em.ones(2)).has_rsample
    with pytest.raises(NotImplementedError):
        Bernoulli(0.3).rsample()


def test_log_prob_and_entropy_gradients():
    loc, scale = t64([0.3, -1.], True), t64([1.5, 0.4], True)
    x = t64([0.7, -2.], True)
    assert gradcheck(lambda l, s, v: Normal(l, s).log_prob(v), (loc, scale, x))
    assert gradcheck(lambda l, s, v: Normal(l, s).cdf(v), (loc, scale, x))
    assert gradcheck(lambda l, s: Normal(l, s).entropy(), (loc, scale))
    assert gradcheck(lambda l, s, v: Laplace(l, s).log_prob(v), (loc, scale, x))
    assert gradcheck(lambda r, v: Exponential(r).log_prob(v.abs()), (scale, x))
    assert gradcheck(lambda lo, hi: Uniform(lo, hi).log_prob(t64([0.5, 0.])), (t64([0., -1.], True),
                                                                             t64([1., 2.], True)))
    p = t64([0.2, 0.7], True)
    assert gradcheck(lambda p: Bernoulli(p).log_prob(t64([1., 0.])), (p,))
    assert gradcheck(lambda p: Bernoulli(p).entropy(), (p,))
    assert gradcheck(lambda z: Bernoulli(logits=z).log_prob(t64([1., 0.])), (loc,))
    w = t64([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]], True)
    assert gradcheck(lambda w: Categorical(w).log_prob(em.tensor([2, 0])), (w,))
    assert gradcheck(lambda w: Categorical(logits=w).log_prob(em.tensor([2, 0])), (w,))
    assert gradcheck(lambda w: Categorical(logits=w).entropy(), (w,))
    assert gradcheck(lambda w: OneHotCategorical(w).log_prob(t64([[0., 0., 1.], [1., 0., 0.]])), (w,))
    mu, tril = t64([0.1, 0.2], True), t64([[1.2, 0.], [0.3, 0.8]], True)
    v = t64([[0.5, -0.5], [1., 2.]], True)
    assert gradcheck(lambda m, L, v: MultivariateNormal(m, scale_tril=L.tril()).log_prob(v), (mu, tril, v))
    assert gradcheck(lambda L: MultivariateNormal(em.zeros(2, dtype=f64), scale_tril=L.tril()).entropy(), (tril,))
    assert gradcheck(lambda A: MultivariateNormal(em.zeros(2, dtype=f64), precision_matrix=A @ A.mT).log_prob(
        t64([0.3, -0.2])), (tril,))


def test_kl_gradients():
    a, b = t64([0.3, -1.], True), t64([1.5, 0.4], True)
    c, d = t64([-0.2, 0.5], True), t64([0.7, 1.1], True)
    assert gradcheck(lambda a, b, c, d: kl_divergence(Normal(a, b), Normal(c, d)), (a, b, c, d))
    assert gradcheck(lambda a, b, c, d: kl_divergence(Laplace(a, b), Laplace(c, d)), (a, b, c, d))
    assert gradcheck(lambda b, d: kl_divergence(Exponential(b), Exponential(d)), (b, d))
    assert gradcheck(lambda a, b, c, d: kl_divergence(Normal(a, b), Laplace(c, d)), (a, b, c, d))
    p, q = t64([0.2, 0.7], True), t64([0.6, 0.1], True)
    assert gradcheck(lambda p, q: kl_divergence(Bernoulli(p), Bernoulli(q)), (p, q))
    w, z = t64([[0.2, 0.5, 0.3]], True), t64([[0.6, 0.1, 0.3]], True)
    assert gradcheck(lambda w, z: kl_divergence(Categorical(w), Categorical(logits=z)), (w, z))
    assert gradcheck(lambda lo, hi: kl_divergence(Uniform(lo, hi), Uniform(t64(-2.), t64(3.))),
                     (t64([0.], True), t64([1.], True)))
    mu, tril = t64([0.1, 0.2], True), t64([[1.2, 0.], [0.3, 0.8]], True)
    assert gradcheck(lambda m, L: kl_divergence(MultivariateNormal(m, scale_tril=L.tril()),
                                                MultivariateNormal(-m, L @ L.mT + em.eye(2, dtype=f64))), (mu, tril))


# ------------------------------------------------------------------------------------------- shapes and dtypes
@pytest.mark.parametrize("make, batch, event", [
    (lambda: Normal(em.zeros(2, 3), 1.), (2, 3), ()),
    (lambda: Laplace(em.zeros(3), em.ones(3)), (3,), ()),
    (lambda: Exponential(em.ones(2, 1)), (2, 1), ()),
    (lambda: Uniform(0., em.ones(4)), (4,), ()),
    (lambda: Bernoulli(em.full((2, 3), 0.5)), (2, 3), ()),
    (lambda: Categorical(em.ones(2, 3, 4)), (2, 3), ()),
    (lambda: OneHotCategorical(logits=em.zeros(2, 4)), (2,), (4,)),
    (lambda: Independent(Normal(em.zeros(2, 3), 1.), 1), (2,), (3,)),
    (lambda: MultivariateNormal(em.zeros(5, 3), em.eye(3)), (5,), (3,)),
])
def test_shapes_follow_sample_batch_event(make, batch, event):
    m = make()
    assert m.batch_shape == batch and m.event_shape == event
    assert isinstance(m.batch_shape, em.Size) and isinstance(m.event_shape, em.Size)
    assert m.sample().shape == batch + event
    assert m.sample((7, 2)).shape == (7, 2) + batch + event
    x = m.sample((6,))
    assert m.log_prob(x).shape == (6,) + batch
    assert m.entropy().shape == batch
    big = m.expand((4,) + batch)
    assert big.batch_shape == (4,) + batch and big.sample().shape == (4,) + batch + event
    assert big.log_prob(x[:1]).shape == (4,) + batch
    with pytest.raises(TypeError):  # PyTorch takes a shape, not an int
        m.sample(3)


def test_dtypes_follow_the_parameters():
    m = Normal(em.zeros(2, dtype=f64), 1.)
    assert m.scale.dtype == f64 and m.sample().dtype == f64 and m.rsample().dtype == f64
    assert m.entropy().dtype == f64
    assert Normal(0, 1).loc.dtype == em.float32  # numbers take the default dtype
    assert Uniform(0., 1.).rsample((2,)).dtype == em.float32
    assert Bernoulli(em.tensor([0.3])).sample().dtype == em.float32
    assert Categorical(em.ones(3)).sample((2,)).dtype == em.int64
    assert OneHotCategorical(em.ones(3, dtype=f64)).sample().dtype == f64
    assert Laplace(em.zeros(1, dtype=f64), 1.).rsample().dtype == f64
    assert Exponential(em.ones(1, dtype=f64)).rsample().dtype == f64
    assert Categorical(em.ones(3, dtype=f64)).entropy().dtype == f64


def test_enumerate_support_and_expand_keep_parameters():
    assert Bernoulli(em.tensor([0.3, 0.4])).enumerate_support().tolist() == [[0., 0.], [1., 1.]]
    assert Categorical(em.ones(2, 3)).enumerate_support(expand=False).shape == (3, 1)
    e = Categorical(em.tensor([0.2, 0.8])).expand([3])
    assert repr(e) == "Categorical(probs: ember.Size([3, 2]))" and e.probs.shape == (3, 2)
    assert Independent(Normal(em.zeros(2, 3), 1.), 1).expand((4, 2)).base_dist.batch_shape == (4, 2, 3)
    with pytest.raises(RuntimeError, match="The expanded size of the tensor"):
        Normal(em.zeros(2), 1.).expand((3,))


# ------------------------------------------------------------------------------------------- sampling statistics
# 20000 seeded draws; every moment must lie within 5 standard errors of the truth. The standard error of a mean is
# sigma / sqrt(n); of a variance, sqrt((m4 - sigma^4) / n) with m4 the fourth central moment (taken from the sample).
# A correct sampler fails such a bound with probability ~6e-7 per check, and the seed makes the run deterministic;
# a wrong scale is caught, since 5 standard errors of the variance are only ~7% of it for the Normal at n = 20000.
N = 20000


def _check_moments(x, mean, var):
    x = np.asarray(x, dtype=float)
    m, v = x.mean(), x.var()
    assert abs(m - mean) < 5 * math.sqrt(var / len(x)), (m, mean)
    m4 = ((x - m) ** 4).mean()
    assert abs(v - var) < 5 * math.sqrt((m4 - v * v) / len(x)), (v, var)


def test_continuous_samples_have_the_right_moments():
    em.manual_seed(0)
    _check_moments(Normal(1.5, 2.).sample((N,)).numpy(), 1.5, 4.)
    _check_moments(Normal(em.tensor(1.5), em.tensor(2.)).rsample((N,)).numpy(), 1.5, 4.)
    _check_moments(Uniform(-1., 3.).sample((N,)).numpy(), 1., 16 / 12)
    _check_moments(Laplace(0.5, 2.).sample((N,)).numpy(), 0.5, 8.)
    _check_moments(Exponential(2.).sample((N,)).numpy(), 0.5, 0.25)
    cov = np.array([[2., 0.6], [0.6, 1.]])
    x = MultivariateNormal(t64([1., -1.]), t64(cov)).sample((N,)).numpy()
    _check_moments(x[:, 0], 1., 2.)
    _check_moments(x[:, 1], -1., 1.)
    _check_moments(x[:, 0] + x[:, 1], 0., 2. + 1. + 2 * 0.6)  # the covariance enters through the sum's variance


def test_discrete_samples_have_the_right_frequencies():
    em.manual_seed(1)
    p = np.array([0.1, 0.2, 0.0, 0.7])
    s = Categorical(em.tensor(p)).sample((N,)).numpy()
    freq = np.bincount(s, minlength=4) / N
    assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / N)) and freq[2] == 0
    oh = OneHotCategorical(em.tensor(p)).sample((N,)).numpy()
    assert np.all(oh.sum(-1) == 1)
    assert np.all(np.abs(oh.mean(0) - p) <= 5 * np.sqrt(p * (1 - p) / N))
    b = Bernoulli(em.tensor([0.3, 0.9])).sample((N,)).numpy()
    assert set(np.unique(b)) <= {0., 1.}
    assert np.all(np.abs(b.mean(0) - [0.3, 0.9]) <= 5 * np.sqrt(np.array([0.21, 0.09]) / N))
    # a batch of categoricals samples each row from its own probabilities
    rows = Categorical(em.tensor([[1., 0.], [0., 1.]])).sample((50,)).numpy()
    assert np.all(rows[:, 0] == 0) and np.all(rows[:, 1] == 1)


def test_manual_seed_makes_sampling_repeat():
    for m in (Normal(em.zeros(3), 1.), Categorical(em.ones(3, 4)), Bernoulli(em.full((3,), 0.5)),
              Uniform(0., em.ones(3)), Laplace(em.zeros(3), 1.), Exponential(em.ones(3)),
              MultivariateNormal(em.zeros(3), em.eye(3))):
        em.manual_seed(7)
        a = m.sample((5,))
        em.manual_seed(7)
        assert m.sample((5,)).tolist() == a.tolist()


# ------------------------------------------------------------------------------------------- the gamma family
def digamma(x, h=1e-5):
    """The derivative of math.lgamma by central differences (error ~1e-10): a reference independent of ember."""
    return (math.lgamma(x + h) - math.lgamma(x - h)) / (2 * h)


def gamma_cdf(a, x, n=200001):
    """P(a, x) by the trapezoid rule; for a < 2 after substituting s = t^a, which removes the singularity (and the
    kink) of the density at 0."""
    if a < 2:
        s = np.linspace(0, x ** a, n)
        return integrate_samples(s, np.exp(-s ** (1 / a))) / math.gamma(a + 1)
    t = np.linspace(0, x, n)
    with np.errstate(divide="ignore"):
        y = np.exp((a - 1) * np.log(t) - t - math.lgamma(a))
    return integrate_samples(t, y)


def gamma_cdf_derivative(a, x):
    """dP/da by central differences of the quadrature (one method on both sides)."""
    h = 1e-4 * a
    if a < 2 <= a + h:
        h = (2 - a) / 2
    return (gamma_cdf(a + h, x) - gamma_cdf(a - h, x)) / (2 * h)


def integrate_samples(x, y):
    return float(np.sum((y[1:] + y[:-1]) * np.diff(x)) / 2)


def test_gamma_family_reprs_and_errors():
    assert repr(Gamma(2., 3.)) == "Gamma(concentration: 2.0, rate: 3.0)"
    assert repr(Beta(0.5, 2.)) == "Beta()"  # its concentrations are properties of the inner Dirichlet
    assert repr(Dirichlet(em.ones(3))) == "Dirichlet(concentration: ember.Size([3]))"
    assert repr(Poisson(0.)) == "Poisson(rate: 0.0)"
    with pytest.raises(ValueError, match=r"parameter rate \(Tensor of shape \(\)\) of distribution Gamma\("
                                         r"concentration: 2.0, rate: 0.0\) to satisfy the constraint "
                                         r"GreaterThan\(lower_bound=0.0\)"):
        Gamma(2., 0.)
    # an invalid Beta is reported by the Dirichlet that holds its parameters, as in PyTorch
    with pytest.raises(ValueError, match=r"parameter concentration \(Tensor of shape \(2,\)\) of distribution "
                                         r"Dirichlet\(concentration: ember.Size\(\[2\]\)\) to satisfy the constraint "
                                         r"IndependentConstraint\(GreaterThan\(lower_bound=0.0\), 1\)"):
        Beta(-0.5, 2.)
    with pytest.raises(ValueError, match=r"^`concentration` parameter must be at least one-dimensional\.$"):
        Dirichlet(em.tensor(0.5))
    with pytest.raises(ValueError, match=r"Poisson\(rate: -1.0\) to satisfy the constraint "
                                         r"GreaterThanEq\(lower_bound=0.0\)"):
        Poisson(-1.)
    with pytest.raises(ValueError, match=r"support \(IntegerGreaterThan\(lower_bound=0\)\)"):
        Poisson(em.tensor([2.])).log_prob(em.tensor([1.5]))
    with pytest.raises(ValueError, match=r"support \(Interval\(lower_bound=0.0, upper_bound=1.0\)\) of the "
                                         r"distribution Beta\(\), but found invalid values:\n1.2999999523162842$"):
        Beta(0.5, 2.).log_prob(em.tensor(1.3))
    with pytest.raises(ValueError, match=r"\(Simplex\(\)\)"):
        Dirichlet(em.ones(3)).log_prob(em.tensor([0.2, 0.3, 0.6]))
    assert not Poisson(1.).has_rsample and Gamma(1., 1.).has_rsample and Beta(1., 1.).has_rsample
    with pytest.raises(NotImplementedError):  # no closed form and no carrier measure, as in PyTorch
        Poisson(1.).entropy()


def test_gamma_family_values():
    a, r = 2.5, 1.5
    g = Gamma(t64(a), t64(r))
    for x in (0.3, 1.0, 4.0):
        close(g.log_prob(t64(x)), a * math.log(r) + (a - 1) * math.log(x) - r * x - math.lgamma(a))
        close(g.cdf(t64(x)), gamma_cdf(a, r * x), rtol=1e-8)
    close(g.log_prob(0.5), a * math.log(r) + (a - 1) * math.log(0.5) - r * 0.5 - math.lgamma(a))  # numbers too
    # whole and half-integer shapes have closed-form CDFs
    close(Gamma(t64(3.), t64(1.)).cdf(t64([0., 2., 30.])), [0., 1 - math.exp(-2) * 5, 1 - math.exp(-30) * 481])
    close(Gamma(t64(0.5), t64(1.)).cdf(t64([0.3, 9.])), [math.erf(math.sqrt(0.3)), math.erf(3.)])
    close(g.entropy(), a - math.log(r) + math.lgamma(a) + (1 - a) * digamma(a), rtol=1e-8)
    close(g.mean, a / r) and close(g.variance, a / r ** 2) and close(g.mode, (a - 1) / r)
    assert Gamma(0.5, 3.).mode.item() == 0.0
    assert Gamma(2., 3.).log_prob(em.tensor(0.)).item() == -math.inf and Gamma(0.5, 3.).log_prob(
        em.tensor(0.)).item() == math.inf  # PyTorch's values at the boundary

    c1, c0 = 2.5, 0.7
    b = Beta(t64(c1), t64(c0))
    log_b = math.lgamma(c1) + math.lgamma(c0) - math.lgamma(c1 + c0)
    for x in (0.1, 0.5, 0.95):
        close(b.log_prob(t64(x)), (c1 - 1) * math.log(x) + (c0 - 1) * math.log(1 - x) - log_b)
    entropy = log_b - (c1 - 1) * digamma(c1) - (c0 - 1) * digamma(c0) + (c1 + c0 - 2) * digamma(c1 + c0)
    close(b.entropy(), entropy, rtol=1e-8)
    close(b.mean, c1 / (c1 + c0)) and close(b.variance, c1 * c0 / ((c1 + c0) ** 2 * (c1 + c0 + 1)))
    assert b.concentration1.item() == c1 and b.concentration0.item() == c0
    assert Beta(2., 2.).mode.item() == 0.5 and Beta(0.5, 0.5).mode.item() == 1.0

    conc = np.array([0.5, 2., 1.5])
    d = Dirichlet(t64(conc))
    x = np.array([0.2, 0.3, 0.5])
    log_norm = sum(math.lgamma(c) for c in conc) - math.lgamma(conc.sum())
    close(d.log_prob(t64(x)), float(((conc - 1) * np.log(x)).sum()) - log_norm)
    a0 = conc.sum()
    entropy = log_norm + (a0 - 3) * digamma(a0) - sum((c - 1) * digamma(c) for c in conc)
    close(d.entropy(), entropy, rtol=1e-8)
    close(d.mean, conc / a0) and close(d.variance, conc * (a0 - conc) / (a0 ** 2 * (a0 + 1)))
    close(Dirichlet(t64([[0.5, 0.2, 0.3], [2., 3., 1.]])).mode, [[1., 0., 0.], [1 / 3, 2 / 3, 0.]])
    # a two-category Dirichlet is a Beta
    close(Dirichlet(t64([c1, c0])).log_prob(t64([0.3, 0.7])), b.log_prob(t64(0.3)).item())

    p = Poisson(t64([2., 0.]))
    close(p.log_prob(t64([3., 0.])), [3 * math.log(2) - 2 - math.log(6), 0.])
    assert p.log_prob(t64([3., 1.])).tolist()[1] == -math.inf
    close(Poisson(t64(2.5)).mode, 2.)


def test_gamma_family_kl():
    # Poisson: the series, summed directly
    def poisson_kl(l1, l2):
        return sum(math.exp(k * math.log(l1) - l1 - math.lgamma(k + 1)) * (k * math.log(l1 / l2) - l1 + l2)
                   for k in range(80))
    close(kl_divergence(Poisson(t64(2.)), Poisson(t64(0.7))), poisson_kl(2., 0.7), rtol=1e-9)
    # a zero rate is a point mass at 0: KL = rate of q (PyTorch gives NaN there; see _kl_same_family)
    close(kl_divergence(Poisson(t64(0.)), Poisson(t64(1.))), 1.)
    assert kl_divergence(Poisson(1.), Poisson(0.)).item() == math.inf

    def continuous(p, q, lo, hi):
        def integrand(x):
            lp, lq = p.log_prob(t64(x)).numpy(), q.log_prob(t64(x)).numpy()
            return np.exp(lp) * (lp - lq)
        close(kl_divergence(p, q), integrate(integrand, lo, hi), rtol=2e-6, atol=1e-8)

    edge = 1e-9  # Beta densities with concentration > 1 vanish at the ends, so the ends can be left out
    continuous(Gamma(t64(2.5), t64(1.5)), Gamma(t64(1.2), t64(0.6)), edge, 60)
    continuous(Beta(t64(2.5), t64(3.)), Beta(t64(1.5), t64(1.2)), edge, 1 - edge)
    continuous(Gamma(t64(2.5), t64(1.5)), Normal(t64(1.), t64(2.)), edge, 60)
    continuous(Gamma(t64(2.5), t64(1.5)), Exponential(t64(0.8)), edge, 60)
    continuous(Exponential(t64(0.8)), Gamma(t64(2.5), t64(1.5)), edge, 80)
    continuous(Beta(t64(2.5), t64(3.)), Normal(t64(0.2), t64(0.7)), edge, 1 - edge)
    continuous(Beta(t64(2.5), t64(3.)), Exponential(t64(0.8)), edge, 1 - edge)
    continuous(Beta(t64(2.5), t64(3.)), Gamma(t64(2.5), t64(1.5)), edge, 1 - edge)
    continuous(Uniform(t64(0.2), t64(0.9)), Beta(t64(2.5), t64(3.)), 0.2, 0.9 - 1e-12)
    continuous(Uniform(t64(0.2), t64(0.9)), Gamma(t64(2.5), t64(1.5)), 0.2, 0.9 - 1e-12)
    close(kl_divergence(Beta(t64(2.5), t64(3.)), Uniform(t64(0.), t64(1.))), -Beta(t64(2.5), t64(3.)).entropy().item())
    cp, cq = t64([0.5, 2., 1.5]), t64([1., 1.2, 3.])
    d_kl = kl_divergence(Dirichlet(cp), Dirichlet(cq))
    beta_kl = kl_divergence(Beta(cp[0], cp[1]), Beta(cq[0], cq[1]))
    close(kl_divergence(Dirichlet(cp[:2]), Dirichlet(cq[:2])), beta_kl.item())
    assert d_kl.shape == () and d_kl.item() > 0
    # Bernoulli against Poisson: the two atoms summed
    close(kl_divergence(Bernoulli(t64(0.3)), Poisson(t64(1.2))),
          0.7 * math.log(0.7 / math.exp(-1.2)) + 0.3 * math.log(0.3 / (1.2 * math.exp(-1.2))))
    for p, q in ((Gamma(2., 1.), Uniform(0., 1.)), (Normal(0., 1.), Gamma(2., 1.)), (Normal(0., 1.), Beta(2., 1.)),
                 (Laplace(0., 1.), Gamma(2., 1.)), (Exponential(1.), Beta(2., 2.)), (Gamma(1., 1.), Beta(2., 2.)),
                 (Uniform(-1., 1.), Gamma(2., 1.)), (Uniform(0.5, 2.), Beta(2., 2.)), (Beta(2., 2.), Uniform(0.5, 1.))):
        assert kl_divergence(p, q).item() == math.inf


def test_gamma_family_gradients():
    a, r, v = t64([2.5, 0.7], True), t64([1.5, 0.4], True), t64([0.8, 2.5], True)
    assert gradcheck(lambda a, r, v: Gamma(a, r).log_prob(v), (a, r, v))
    assert gradcheck(lambda a, r: Gamma(a, r).entropy(), (a, r))
    # the regularized incomplete gamma function, in all three arguments (PyTorch has no gradient in the shape)
    assert gradcheck(lambda a, r, v: Gamma(a, r).cdf(v), (a, r, v))
    assert gradcheck(lambda a, r: Gamma(a, r).cdf(t64([[0.1], [3.], [20.]])), (a, r))
    c1, c0, x = t64([2.5, 0.7], True), t64([1.5, 3.], True), t64([0.3, 0.6], True)
    assert gradcheck(lambda c1, c0, x: Beta(c1, c0).log_prob(x), (c1, c0, x))
    assert gradcheck(lambda c1, c0: Beta(c1, c0).entropy(), (c1, c0))
    conc = t64([[0.5, 2., 1.5]], True)
    assert gradcheck(lambda c: Dirichlet(c).log_prob(t64([0.2, 0.3, 0.5])), (conc,))
    assert gradcheck(lambda c: Dirichlet(c).entropy(), (conc,))
    assert gradcheck(lambda l: Poisson(l).log_prob(t64([3., 0.])), (r,))
    assert gradcheck(lambda a, r, b, s: kl_divergence(Gamma(a, r), Gamma(b, s)), (a, r, c0, v))
    assert gradcheck(lambda a, b, c, d: kl_divergence(Beta(a, b), Beta(c, d)), (a, r, c0, v))
    assert gradcheck(lambda p, q: kl_divergence(Dirichlet(p), Dirichlet(q)), (conc, conc.detach().flip(-1) + 0.5))
    assert gradcheck(lambda p, q: kl_divergence(Poisson(p), Poisson(q)), (a, r))
    # the rate enters the Gamma sample pathwise (x / rate); the shape through the implicit gradient below
    assert gradcheck(_seeded(lambda r: Gamma(t64([2.5, 0.7]), r).rsample((3,))), (r,))


def test_implicit_gamma_gradient_keeps_the_quantile():
    # dx/da at fixed quantile is -(dP/da) / p(x); the reference differentiates an independent quadrature of P
    from ember.core.distributions._incomplete_gamma import dlog_draw_dalpha
    points = [(0.3, 0.05), (0.3, 2.), (1., 0.5), (2.5, 1.), (2.5, 6.), (10., 14.), (50., 45.)]
    xs = t64([x for _, x in points])
    got = (xs * dlog_draw_dalpha(t64([a for a, _ in points]), xs.log())).numpy()
    for (a, x), g in zip(points, got):
        density = math.exp((a - 1) * math.log(x) - x - math.lgamma(a))
        expected = -gamma_cdf_derivative(a, x) / density
        assert abs(g - expected) <= 1e-6 * abs(expected), (a, x, g, expected)


def _per_sample_gradients(make, params):
    """Gradients of each draw's value w.r.t. its own copy of the parameters: one row of leaves per draw."""
    rows = [p.detach().expand((N,) + tuple(p.shape)).clone().requires_grad_() for p in params]
    make(*rows).sum().backward()
    return [r.grad.numpy() for r in rows]


def _check_mean(samples, expected):
    # the mean of N independent per-draw values within 5 standard errors (as for the moments above)
    assert abs(samples.mean() - expected) < 5 * samples.std() / math.sqrt(len(samples)), (samples.mean(), expected)


def test_gamma_family_samples_and_their_gradients():
    # moments as for the other samplers; the reparameterized draws' gradients must average to the derivative of
    # the true mean (E[dx/dtheta] = dE[x]/dtheta), checked per draw with the same 5-standard-error bound
    em.manual_seed(0)
    x = Gamma(t64(2.5), t64(1.5)).rsample((N,)).numpy()
    _check_moments(x, 2.5 / 1.5, 2.5 / 1.5 ** 2)
    (ga,) = _per_sample_gradients(lambda a: Gamma(a, t64(1.5)).rsample(), [t64(2.5)])
    _check_mean(ga, 1 / 1.5)  # d/da a / rate
    (ga,) = _per_sample_gradients(lambda a: Gamma(a, t64(1.)).rsample(), [t64(0.3)])
    _check_mean(ga, 1.)  # a small shape takes the boosted draw and the series' gradient
    s = Beta(t64(2.), t64(3.)).rsample((N,)).numpy()
    _check_moments(s, 0.4, 6 / (25 * 6))
    g1, g0 = _per_sample_gradients(lambda a, b: Beta(a, b).rsample(), [t64(2.), t64(3.)])
    _check_mean(g1, 3 / 25)  # d/da a / (a + b)
    _check_mean(g0, -2 / 25)  # d/db a / (a + b)
    conc = np.array([0.5, 2., 1.5])
    d = Dirichlet(t64(conc)).sample((N,)).numpy()
    assert np.allclose(d.sum(-1), 1)
    _check_moments(d[:, 1], 0.5, 2. * 2. / (16 * 5))
    (gd,) = _per_sample_gradients(lambda c: Dirichlet(c).rsample()[:, 0], [t64(conc)])
    for j, expected in enumerate([3.5 / 16, -0.5 / 16, -0.5 / 16]):  # d/dc_j c_0 / sum(c)
        _check_mean(gd[:, j], expected)
    _check_moments(Poisson(3.5).sample((N,)).numpy(), 3.5, 3.5)


def test_gamma_family_sample_shapes_and_tiny_concentrations():
    assert Poisson(em.tensor([2.])).sample((3,)).shape == (3, 1)
    assert Gamma(em.ones(2, 3), 1.).sample((4,)).shape == (4, 2, 3) and Beta(em.ones(2), 1.).rsample().shape == (2,)
    assert Dirichlet(em.ones(2, 3)).rsample((4,)).shape == (4, 2, 3)
    assert Gamma(2., 3.).rsample((2,)).dtype == em.float32 and Poisson(em.tensor([1.], dtype=f64)).sample().dtype == f64
    # draws of tiny concentrations underflow: clamped to the smallest normal number (as PyTorch's), Dirichlet
    # points stay on the simplex near a vertex, and every log-density and gradient stays finite
    em.manual_seed(0)
    a = em.tensor([0.01, 0.001], requires_grad=True)
    x = Gamma(a, 1.).rsample((200,))
    assert x.min().item() == em.finfo(em.float32).tiny and Gamma(a, 1.).log_prob(x).isfinite().all().item()
    x.sum().backward()
    assert a.grad.isfinite().all().item()
    c = em.full((3,), 0.01, requires_grad=True)
    p = Dirichlet(c).rsample((50,))
    assert np.allclose(p.detach().numpy().sum(-1), 1, atol=1e-6) and (p.max(-1)[0] > 0.5).float().mean().item() > 0.9
    p[:, 0].sum().backward()
    assert c.grad.isfinite().all().item()


# ------------------------------------------------------------------------------------------- transforms
def test_transform_values_inverses_and_jacobians():
    x = t64([-2., -0.3, 0.5, 3.])
    for t, dy_dx in ((ExpTransform(), np.exp), (SigmoidTransform(), lambda v: np.exp(-v) / (1 + np.exp(-v)) ** 2),
                     (TanhTransform(), lambda v: 1 - np.tanh(v) ** 2),
                     (SoftplusTransform(), lambda v: 1 / (1 + np.exp(-v))),
                     (AffineTransform(1., -2.), lambda v: np.full_like(v, 2.))):
        y = t(x)
        close(t.inv(y), x.numpy(), rtol=1e-9)
        close(t.log_abs_det_jacobian(x, y), np.log(dy_dx(x.numpy())), rtol=1e-9)
        close(t.inv.log_abs_det_jacobian(y, x), -np.log(dy_dx(x.numpy())), rtol=1e-9)
        assert t.inv.inv is t
    # the saturated ends (PyTorch's values, measured)
    close(SigmoidTransform()(em.tensor([-100., 100.])), [1.1754944e-38, 1.], rtol=1e-6)
    close(SigmoidTransform().inv(em.tensor([0., 1.])), [-87.3365, 15.942385], rtol=1e-6)
    assert TanhTransform().inv(em.tensor([1.])).item() == math.inf
    close(TanhTransform().log_abs_det_jacobian(em.tensor([30.]), None), [-58.6137], rtol=1e-5)
    # with cache_size=1 the inverse of an output is the cached input itself
    t = TanhTransform(cache_size=1)
    big = t64([25.])
    assert t.inv(t(big)) is big
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        Transform(cache_size=2)
    c = ComposeTransform([ExpTransform(), AffineTransform(1., 2.)])
    close(c(x), 1 + 2 * np.exp(x.numpy()))
    close(c.log_abs_det_jacobian(x, c(x)), x.numpy() + math.log(2))
    close(c.inv(c(x)), x.numpy(), rtol=1e-9)
    assert repr(c) == "ComposeTransform(\n    ExpTransform(),\n    AffineTransform()\n)"
    assert repr(ExpTransform().inv) == "_InverseTransform(ExpTransform())"
    assert ExpTransform() == ExpTransform() and ExpTransform().sign == 1 and AffineTransform(0., -2.).sign == -1
    assert identity_transform(x) is x


def test_log_normal_and_transformed_distribution():
    mu, s = 0.3, 0.8
    m = LogNormal(t64(mu), t64(s))
    for y in (0.2, 1., 4.):
        close(m.log_prob(t64(y)), -math.log(y * s * math.sqrt(2 * math.pi)) - (math.log(y) - mu) ** 2 / (2 * s * s))
        close(m.cdf(t64(y)), 0.5 * (1 + math.erf((math.log(y) - mu) / (s * math.sqrt(2)))))
    close(m.icdf(m.cdf(t64(2.))), 2., rtol=1e-9)
    close(m.entropy(), mu + 0.5 + math.log(s * math.sqrt(2 * math.pi)))
    close(m.mean, math.exp(mu + s * s / 2)) and close(m.mode, math.exp(mu - s * s))
    close(m.variance, (math.exp(s * s) - 1) * math.exp(2 * mu + s * s))
    assert repr(m) == "LogNormal()" and repr(m.support) == "GreaterThan(lower_bound=0.0)"
    assert m.expand([3]).batch_shape == (3,) and isinstance(m.expand([3]), LogNormal)
    with pytest.raises(ValueError, match=r"to be within the support \(GreaterThan\(lower_bound=0.0\)\) of the "
                                         r"distribution LogNormal\(\)"):
        LogNormal(0., 1.).log_prob(em.tensor(-1.))
    with pytest.raises(ValueError, match=r"of distribution Normal\(loc: 0.0, scale: -1.0\)"):  # the base checks
        LogNormal(0., -1.)
    close(kl_divergence(LogNormal(t64(0.), t64(1.)), LogNormal(t64(1.), t64(2.))),
          kl_divergence(Normal(t64(0.), t64(1.)), Normal(t64(1.), t64(2.))).item())
    with pytest.raises(NotImplementedError, match="needs equal transforms"):
        kl_divergence(TransformedDistribution(Normal(0., 1.), [TanhTransform()]), LogNormal(0., 1.))

    # a tanh-squashed Gaussian (SAC's policy): density by change of variables
    squashed = TransformedDistribution(Normal(t64([0.2, -0.4]), t64([0.9, 0.5])), [TanhTransform()])
    a = np.array([0.5, -0.9])
    base = -((np.arctanh(a) - [0.2, -0.4]) ** 2) / (2 * np.array([0.81, 0.25])) - np.log(
        np.array([0.9, 0.5]) * math.sqrt(2 * math.pi))
    close(squashed.log_prob(t64(a)), base - np.log(1 - a ** 2), rtol=1e-9)
    assert repr(squashed.support) == "Interval(lower_bound=-1.0, upper_bound=1.0)"
    with pytest.raises(ValueError, match="transforms must be a Transform or list, but was 3"):
        TransformedDistribution(Normal(0., 1.), 3)
    with pytest.raises(ValueError, match="transforms must be a Transform or a list of Transforms"):
        TransformedDistribution(Normal(0., 1.), [3])
    # an event-wise affine map turns the batch into an event; its parameters can broadcast the batch
    ev = TransformedDistribution(Normal(em.zeros(2), 1.), [AffineTransform(1., em.tensor([2., 3.]), event_dim=1)])
    assert ev.batch_shape == () and ev.event_shape == (2,)
    close(ev.log_prob(em.tensor([0.5, 1.5])), -3.6748, rtol=1e-4)  # PyTorch's value
    wide = TransformedDistribution(Normal(em.zeros(2), 1.), [AffineTransform(1., em.tensor([[2.], [3.]]))])
    assert wide.batch_shape == (2, 2) and wide.sample((5,)).shape == (5, 2, 2)
    # a decreasing map reverses the CDF
    flipped = TransformedDistribution(Normal(t64(0.), t64(1.)), [AffineTransform(1., -2.)])
    close(flipped.cdf(t64([0.5, 1.5])), [0.5 * (1 - math.erf((1 - y) / 2 / math.sqrt(2))) for y in (0.5, 1.5)])


def test_transformed_distribution_gradients_and_samples():
    loc, scale = t64([0.2, -0.4], True), t64([0.9, 0.5], True)
    assert gradcheck(_seeded(lambda l, s: LogNormal(l, s).rsample((3,))), (loc, scale))
    assert gradcheck(lambda l, s: LogNormal(l, s).log_prob(t64([0.5, 2.])), (loc, scale))

    def squashed_log_prob_of_own_sample(l, s):
        policy = TransformedDistribution(Normal(l, s), [TanhTransform(cache_size=1)])
        return policy.log_prob(policy.rsample((3,)))
    assert gradcheck(_seeded(squashed_log_prob_of_own_sample), (loc, scale))
    em.manual_seed(2)
    y = LogNormal(0.3, 0.5).sample((N,)).numpy()
    assert (y > 0).all()
    _check_moments(np.log(y), 0.3, 0.25)
    t = TransformedDistribution(Normal(em.zeros(3), 1.), [SigmoidTransform()]).sample((N,)).numpy()
    assert t.shape == (N, 3) and ((t > 0) & (t < 1)).all()
    second_moment = integrate(lambda z: np.exp(-z * z / 2) / math.sqrt(2 * math.pi) / (1 + np.exp(-z)) ** 2, -40, 40)
    _check_moments(t[:, 0], 0.5, second_moment - 0.25)
