"""``ember.special``: PyTorch's ``torch.special`` functions, their values, dtypes, edge values, errors and gradients.

Values are checked against references computed here (``math``, exact ``fractions`` series, closed forms such as
zeta(2) = pi^2/6). Edge values (poles, ±0, ±inf, nan, underflow) are PyTorch 2.13's, measured with PyTorch and
marked "PyTorch 2.13" where they are not what the mathematics alone would say.
"""
import math
from fractions import Fraction

import numpy as np
import pytest

import ember as em
from ember.autograd import gradcheck, gradgradcheck
from ember.core import special

from fake_device import FakeDeviceArray, fake_device, on_fake_device, to_device

INF, NAN = math.inf, math.nan
EULER = 0.57721566490153286061
ZETA3 = 1.2020569031595942854  # Apery's constant


def f64(*values):
    return em.tensor(list(values), dtype=em.float64)


def values(t):
    return t.numpy().tolist()


def same(actual, expected):
    """Equal including the sign of zero and nan positions."""
    a = np.asarray(actual, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    np.testing.assert_array_equal(a, e)
    np.testing.assert_array_equal(np.signbit(a[a == 0]), np.signbit(e[e == 0]))


def close(actual, expected, rtol=1e-14, atol=0.0):
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64),
                               rtol=rtol, atol=atol)


# ------------------------------------------------------------------------------------------------- the namespace
def test_existing_ops_are_the_same_function_objects():
    for name, op in [("erf", em.erf), ("erfc", em.erfc), ("erfinv", em.erfinv), ("expm1", em.expm1),
                     ("exp2", em.exp2), ("log1p", em.log1p), ("sinc", em.sinc), ("logit", em.logit),
                     ("logsumexp", em.logsumexp), ("softmax", em.softmax), ("log_softmax", em.log_softmax),
                     ("xlogy", em.xlogy), ("i0", em.i0), ("digamma", em.digamma), ("polygamma", em.polygamma)]:
        assert getattr(special, name) is op, name
    # PyTorch's documented aliases
    assert special.expit is em.sigmoid
    assert special.gammaln is em.lgamma
    assert special.psi is em.digamma
    assert special.multigammaln is em.mvlgamma


def test_every_public_name_is_documented_and_lazily_reachable():
    for name in special.__all__:
        assert (getattr(special, name).__doc__ or "").strip(), name
    import ember.core as core
    assert core.special is special


def test_out_argument():
    x = f64(0.5, 1.0, 3.0)
    for fn in (special.ndtr, special.gammaln, special.i1e, special.entr, special.round, em.sinc, special.bessel_j1,
               special.scaled_modified_bessel_k0):
        out = em.empty(3, dtype=em.float64)
        assert fn(x, out=out) is out
        same(values(out), values(fn(x)))
    out = em.empty(2, dtype=em.float64)
    assert special.zeta(2.0, f64(1.0, 2.0), out=out) is out
    close(values(out), [math.pi ** 2 / 6, math.pi ** 2 / 6 - 1])
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        special.ndtri(f64(0.3).requires_grad_(), out=em.empty(1, dtype=em.float64))


# ---------------------------------------------------------------------------------------------- thin mappings
def test_thin_mappings_follow_their_torch_special_signatures():
    x = em.tensor([[0.2, 0.5], [0.9, 0.7]])
    same(values(special.softmax(x, 1)), values(em.softmax(x, 1)))
    assert special.log_softmax(x, 0, em.float64).dtype == em.float64  # dtype also works positionally (PyTorch)
    close(values(special.logsumexp(x, 1, keepdim=True)), [[math.log(math.exp(0.2) + math.exp(0.5))],
                                                          [math.log(math.exp(0.9) + math.exp(0.7))]], rtol=1e-6)
    close(values(special.logit(em.tensor([0.0, 0.3, 1.0]), 0.1)),
          [math.log(0.1 / 0.9), math.log(0.3 / 0.7), math.log(0.9 / 0.1)], rtol=1e-6)
    close(values(special.round(f64(1.2345, -2.5), decimals=2)), [1.23, -2.5])
    with pytest.raises(RuntimeError, match="\"round_vml_cpu\" not implemented for 'Long'"):
        special.round(em.tensor([1, 2]))  # torch.special.round rejects integers; torch.round does not


# -------------------------------------------------------------------------------------------------------- lgamma
def test_gammaln_matches_exact_factorials_and_half_integers():
    n = np.arange(1, 171)
    close(values(special.gammaln(em.tensor(n, dtype=em.float64))), [math.log(math.factorial(k - 1)) for k in n],
          rtol=2e-15, atol=1e-300)
    # Gamma(k + 1/2) = (2k)! sqrt(pi) / (4^k k!)
    half = [k + 0.5 for k in range(0, 60)]
    ref = [math.log(Fraction(math.factorial(2 * k), 4 ** k * math.factorial(k))) + 0.5 * math.log(math.pi)
           for k in range(60)]
    close(values(special.gammaln(em.tensor(half, dtype=em.float64))), ref, rtol=2e-15)


def test_gammaln_is_accurate_near_its_zeros_at_one_and_two():
    # lgamma(1 + z) = -gamma z + sum_k (-1)^k zeta(k) z^k / k, summed to well below float64 precision; z is the
    # exact offset of the float input from 1 (or 2)
    zetas = [math.pi ** 2 / 6, ZETA3, math.pi ** 4 / 90, 1.0369277551433699263, math.pi ** 6 / 945]

    def lgamma_1p(z):
        return -EULER * z + sum((-1) ** k * zk * z ** k / k for k, zk in enumerate(zetas, start=2))

    for base in (1.0, 2.0):
        x = base + np.array([1e-12, -1e-9, 3e-6, -2e-4, 1e-3])
        z = x - base  # exact (Sterbenz)
        ref = [lgamma_1p(v) + (math.log1p(v) if base == 2.0 else 0.0) for v in z]
        close(values(special.gammaln(em.tensor(x, dtype=em.float64))), ref, rtol=1e-14)


def test_gammaln_against_math_lgamma_on_a_grid():
    x = np.concatenate([np.linspace(0.01, 30, 900), np.geomspace(30, 1e300, 60), np.geomspace(1e-300, 1e-3, 30),
                        -np.linspace(0.05, 30.95, 300) + 0.013])
    ref = np.array([math.lgamma(v) for v in x])
    # relative accuracy, except near the zeros of lgamma on the negative axis where only the absolute error is small
    close(values(special.gammaln(em.tensor(x, dtype=em.float64))), ref, rtol=2e-14, atol=4e-15)


def test_gammaln_edge_values_as_pytorch():
    # PyTorch 2.13: inf at 0, -0 and the negative integers (and -inf), nan at nan; overflow to inf past ~2.55e305
    same(values(special.gammaln(f64(0.0, -0.0, -1.0, -2.0, -1e300, INF, -INF, NAN, 1.0, 2.0, 2.6e305))),
         [INF, INF, INF, INF, INF, INF, INF, NAN, 0.0, 0.0, INF])
    close(values(special.gammaln(f64(1e300, -100.5, 171.7))),
          [6.89775527898213743e+302, -3.64900968309427356e+02, 7.10171612940374985e+02])  # PyTorch 2.13


# ------------------------------------------------------------------------------------------------------- digamma
def _harmonic(n):
    return float(sum(Fraction(1, k) for k in range(1, n + 1)))


def test_digamma_at_integers_and_half_integers():
    n = [1, 2, 3, 7, 10, 11, 50, 1000]
    close(values(special.digamma(f64(*n))), [-EULER + _harmonic(k - 1) for k in n], rtol=4e-16)
    # psi(k + 1/2) = -gamma - 2 log 2 + sum_{j<=k} 2 / (2j - 1); psi(1/2 - k) = psi(1/2 + k) (cot vanishes)
    k = [0, 1, 4, 9, 30]
    ref = [-EULER - 2 * math.log(2) + float(sum(Fraction(2, 2 * j - 1) for j in range(1, m + 1))) for m in k]
    close(values(special.digamma(f64(*[m + 0.5 for m in k]))), ref, rtol=1e-15)
    close(values(special.digamma(f64(*[0.5 - m for m in k]))), ref, rtol=1e-14)


def test_digamma_edge_values_as_pytorch():
    # PyTorch 2.13: -inf at +0 but +inf at -0, nan at the negative integers and at -inf
    same(values(special.digamma(f64(0.0, -0.0, -1.0, -2.0, -1e300, INF, -INF, NAN))),
         [-INF, INF, NAN, NAN, NAN, INF, NAN, NAN])
    close(values(special.digamma(f64(1e-300, 1e300))), [-1e300, 6.90775527898213682e+02])


# ----------------------------------------------------------------------------------------- polygamma and zeta
def test_polygamma_closed_forms():
    # psi^(n)(1) = (-1)^(n+1) n! zeta(n + 1)
    # (the references are rounded float expressions themselves: a tolerance of a few ulp)
    close(values(special.polygamma(1, f64(1.0))), [math.pi ** 2 / 6], rtol=1e-15)
    close(values(special.polygamma(2, f64(1.0))), [-2 * ZETA3], rtol=1e-15)
    close(values(special.polygamma(3, f64(1.0))), [6 * math.pi ** 4 / 90], rtol=1e-15)
    close(values(special.polygamma(5, f64(1.0))), [120 * math.pi ** 6 / 945], rtol=1e-15)
    # trigamma(k) = pi^2/6 - sum_{j<k} 1/j^2 ; trigamma(1/2) = pi^2/2
    k = [2, 5, 30]
    close(values(special.polygamma(1, f64(*k))),
          [math.pi ** 2 / 6 - float(sum(Fraction(1, j * j) for j in range(1, m))) for m in k], rtol=1e-15)
    close(values(special.polygamma(1, f64(0.5, -0.5))), [math.pi ** 2 / 2, math.pi ** 2 / 2 + 4], rtol=1e-15)
    close(values(special.polygamma(0, f64(3.0))), values(special.digamma(f64(3.0))), rtol=0)


def test_polygamma_edge_values_as_pytorch():
    x = f64(0.0, -0.0, -1.0, INF, -INF, NAN, 1e300)
    # PyTorch 2.13: its trigamma kernel gives pi^2 / sin(pi x)^2 at the poles, finite (6.6e32) at -1; 0 at inf
    same(values(special.polygamma(1, x)), [INF, INF, 6.58079014732094693e+32, 0.0, NAN, NAN, 1e-300])
    # ... and rounds pi * x in float32 for float32 input
    same(values(special.polygamma(1, em.tensor([-1.0, -7.0]))), [1291369695936512.0, 5602954706944.0])
    # n >= 2 goes through zeta: nan at inf (zeta(n+1, inf) is nan), ±inf at the poles and at -inf
    same(values(special.polygamma(2, x)), [-INF, -INF, -INF, NAN, -INF, NAN, -0.0])
    same(values(special.polygamma(3, x)), [INF, INF, INF, NAN, INF, NAN, 0.0])


def test_polygamma_errors_as_pytorch():
    t = em.tensor([1.0])
    with pytest.raises(RuntimeError, match=r"^polygamma\(n, x\) does not support negative n\.$"):
        special.polygamma(-1, t)
    with pytest.raises(RuntimeError, match="does not support negative n"):
        t.polygamma(-2)
    with pytest.raises(TypeError, match="argument 'n' \\(position 1\\) must be int, not float"):
        special.polygamma(1.5, t)
    with pytest.raises(TypeError, match="argument 'input' \\(position 2\\) must be Tensor, not float"):
        special.polygamma(1, 3.0)
    with pytest.raises(RuntimeError, match="\"trigamma\" not implemented for 'ComplexFloat'"):
        special.polygamma(1, em.tensor([1j]))
    with pytest.raises(RuntimeError, match="\"digamma\" not implemented for 'ComplexFloat'"):
        special.digamma(em.tensor([1j]))


def test_zeta_values():
    s = f64(2.0, 4.0, 3.0, 3.0, 2.0, 2.0)
    q = f64(1.0, 1.0, 1.0, 0.5, 3.0, -1.5)
    ref = [math.pi ** 2 / 6, math.pi ** 4 / 90, ZETA3, 7 * ZETA3, math.pi ** 2 / 6 - 1.25,
           4 / 9 + 4 + math.pi ** 2 / 2]  # zeta(s, 1/2) = (2^s - 1) zeta(s); negative q adds the leading terms
    close(values(special.zeta(s, q)), ref, rtol=1e-15)
    # a slowly converging sum, summed in exact arithmetic: zeta(1.5, 2.25) (the tail from 10^5 by Euler-Maclaurin)
    n, s_, q_ = 100000, 1.5, 2.25
    head = math.fsum((q_ + k) ** -s_ for k in range(n))
    a = q_ + n
    tail = a ** (1 - s_) / (s_ - 1) + 0.5 * a ** -s_ + s_ / 12 * a ** (-s_ - 1)
    close(values(special.zeta(f64(s_), f64(q_))), [head + tail], rtol=2e-15)
    # the odd-s cancellation of negative half-integers keeps full accuracy: zeta(5, -100.5) = zeta(5, 101.5)
    close(values(special.zeta(f64(5.0), f64(-100.5))), values(special.zeta(f64(5.0), f64(101.5))), rtol=1e-15)


def test_zeta_domain_and_edge_values_as_pytorch():
    rows = {  # s: values at q = 1, 0, -1, -2.5, 0.5, 2, inf, -inf, nan, 1e300 (PyTorch 2.13)
        1.0: [INF] * 10,
        0.5: [NAN] * 10,
        1.5: [2.61237534868548815, INF, INF, NAN, 4.77653794755483396, 1.61237534868548860, NAN, INF, NAN, 0.0],
        INF: [1.0, INF, INF, INF, INF, NAN, NAN, INF, NAN, NAN],
        NAN: [NAN, INF, INF, NAN, NAN, NAN, NAN, INF, NAN, NAN],
    }
    q = f64(1.0, 0.0, -1.0, -2.5, 0.5, 2.0, INF, -INF, NAN, 1e300)
    for s, expected in rows.items():
        got = values(special.zeta(s, q))
        np.testing.assert_allclose(got, expected, rtol=1e-15, err_msg=f"s={s}")
    # zeta(2, 1e300) is 1e-300 but PyTorch's a^-s underflows first and gives 0; a huge s stops after one term
    same(values(special.zeta(f64(2.0, 1e300, 1e20), f64(1e300, 1.0, -10.5))), [0.0, 1.0, INF])


def test_zeta_arguments_dtypes_and_errors():
    assert special.zeta(em.tensor([2, 3]), em.tensor([1, 2])).dtype == em.float32  # integers: default float
    assert special.zeta(2.0, em.tensor([1.0])).dtype == em.float32  # a number does not upcast
    assert special.zeta(em.tensor([2.0]), em.tensor([1.0], dtype=em.float64)).dtype == em.float64
    close(values(special.zeta(em.tensor([2.0, 3.0]), 1.0)), [math.pi ** 2 / 6, ZETA3], rtol=1e-7)
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        special.zeta(2.0, 3.0)
    with pytest.raises(RuntimeError, match="The size of tensor a \\(2\\) must match the size of tensor b \\(3\\)"):
        special.zeta(em.tensor([2.0, 3.0]), em.tensor([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match="\"zeta_cpu\" not implemented for 'Half'"):
        special.zeta(em.tensor([2.0], dtype=em.float16), 2.0)


def test_zeta_gradient_in_q_only():
    q = f64(1.5, 2.0, -2.5, 0.3).requires_grad_()
    assert gradcheck(lambda t: special.zeta(3.0, t), (q,))
    s = f64(2.5, 3.0).requires_grad_(False)
    q2 = f64(0.7, 4.0).requires_grad_()
    assert gradcheck(lambda t: special.zeta(s, t), (q2,))
    assert type(special.zeta(3.0, q).grad_fn).__name__ == "SpecialZetaBackward1"  # PyTorch's node names
    x = f64(3.0).requires_grad_()
    out = special.zeta(x, 1.5)
    assert type(out.grad_fn).__name__ == "SpecialZetaBackward2"
    with pytest.raises(NotImplementedError, match="the derivative for 'zeta' is not implemented."):
        out.backward()  # as PyTorch: the forward records, the backward refuses


# ------------------------------------------------------------------------------------------------- multigammaln
def test_multigammaln_values_errors_and_dtypes():
    x = f64(2.5, 4.0, 10.25)
    for p in (1, 2, 3, 5):
        ref = [p * (p - 1) / 4 * math.log(math.pi) + sum(math.lgamma(v - j / 2) for j in range(p)) for v in
               values(x)]
        close(values(special.multigammaln(x, p)), ref, rtol=1e-14)
    assert special.multigammaln(em.tensor([1, 2]), 1).dtype == em.float32
    same(values(special.multigammaln(f64(NAN, INF), 2)), [NAN, INF])
    with pytest.raises(RuntimeError, match="^p has to be greater than or equal to 1$"):
        special.multigammaln(x, 0)
    with pytest.raises(TypeError, match="argument 'p' \\(position 2\\) must be int, not bool"):
        special.multigammaln(x, True)
    # PyTorch 2.13 no longer checks x > (p - 1) / 2: 0.4 with p = 2 is lgamma(0.4) + lgamma(-0.1) + log(pi) / 2
    close(values(special.multigammaln(f64(0.4), 2)), [math.lgamma(0.4) + math.lgamma(-0.1) + math.log(math.pi) / 2])


# ------------------------------------------------------------------------------------- normal distribution family
def test_ndtr_is_pytorchs_erf_formula():
    x = np.linspace(-2.5, 8, 200)
    ref = [0.5 * math.erfc(-v / math.sqrt(2)) for v in x]
    close(values(special.ndtr(em.tensor(x, dtype=em.float64))), ref, rtol=0, atol=3e-16)
    # PyTorch computes (1 + erf(x / sqrt 2)) / 2, which is exactly 0 from about -8.3 down (PyTorch 2.13: 0 at -10)
    same(values(special.ndtr(f64(-10.0, -INF, INF, NAN, 0.0))), [0.0, 0.0, 1.0, NAN, 0.5])
    assert special.ndtr(em.tensor([1, 2])).dtype == em.float32


def test_log_ndtr_in_both_tails():
    x = np.linspace(-5, 5, 101)
    ref = [math.log(0.5 * math.erfc(-v / math.sqrt(2))) if v < 0 else math.log1p(-0.5 * math.erfc(v / math.sqrt(2)))
           for v in x]
    close(values(special.log_ndtr(em.tensor(x, dtype=em.float64))), ref, rtol=4e-15)
    # far left: log ndtr(x) = -x^2/2 - log(-x sqrt(2 pi)) + log(1 - 1/x^2 + 3/x^4 - 15/x^6 + 105/x^8 - ...)
    left = [-40.0, -100.0, -1e3, -1e6]
    ref = [-v * v / 2 - math.log(-v * math.sqrt(2 * math.pi))
           + math.log1p(-1 / v ** 2 + 3 / v ** 4 - 15 / v ** 6 + 105 / v ** 8 - 945 / v ** 10) for v in left]
    close(values(special.log_ndtr(f64(*left))), ref, rtol=1e-15)
    # far right: log(1 - ndtr(-x)) ~ -ndtr(-x), tiny but not 0 (40-digit values; the rounding of x / sqrt(2) costs
    # 2 x^2 ulp in erfc, as in PyTorch)
    close(values(special.log_ndtr(f64(8.0, 30.0))), [-6.220960574271786e-16, -4.906713927148187e-198], rtol=1e-13)
    # PyTorch 2.13: -0.0 at inf (log1p(-0)), -inf at -inf
    same(values(special.log_ndtr(f64(INF, -INF, NAN, 40.0))), [-0.0, -INF, NAN, -0.0])


def test_ndtri_inverts_ndtr_into_the_tails():
    close(values(special.ndtri(f64(0.975, 0.025, 0.5))), [1.959963984540054, -1.959963984540054, 0.0], rtol=1e-15)
    p = np.concatenate([np.linspace(0.02, 0.98, 97), [0.2499999, 0.25, 0.7500001]])
    close(values(special.ndtr(special.ndtri(em.tensor(p, dtype=em.float64)))), p, rtol=1e-14)
    tiny = [1e-300, 1e-100, 1e-20, 1e-5, 5e-324]
    close(values(special.log_ndtr(special.ndtri(f64(*tiny)))), [math.log(v) for v in tiny], rtol=2e-15)
    top = [1e-10, 1e-16]
    close(values(special.ndtri(f64(*[1 - v for v in top]))), values(-special.ndtri(f64(*[1 - (1 - v) for v in
                                                                                        top]))), rtol=1e-15)
    same(values(special.ndtri(f64(0.0, -0.0, 1.0, -0.5, 1.5, NAN))), [-INF, -INF, INF, NAN, NAN, NAN])
    close(values(special.ndtri(f64(1e-300))), [-37.04709629936120052], rtol=1e-15)  # PyTorch 2.13
    same(values(special.ndtri(em.tensor([1e-300, 1.0]))), [-INF, INF])  # float32: 1e-300 is 0 (PyTorch 2.13)


def test_erfcx_scaled_complementary_error_function():
    x = np.linspace(-5, 5, 81)
    # exp(x^2) of the exactly squared float: math.exp(x*x) has the rounding of x*x, at most 25 ulp at |x| = 5
    close(values(special.erfcx(em.tensor(x, dtype=em.float64))),
          [math.exp(v * v) * math.erfc(v) for v in x], rtol=4e-15)
    # large x: 1/(x sqrt(pi)) (1 - 1/(2x^2) + 3/(4x^4) - 15/(8x^6) + ...), where erfc alone underflows
    close(values(special.erfcx(f64(30.0))), [1.87958888614167541e-02], rtol=1e-15)  # PyTorch 2.13, correct
    big = [1e3, 1e10, 1e200]
    series = [1 - w / 2 + 3 * w * w / 4 - 15 * w ** 3 / 8 + 105 * w ** 4 / 16 for w in (1 / (v * v) for v in big)]
    close(values(special.erfcx(f64(*big))), [c / (v * math.sqrt(math.pi)) for c, v in zip(series, big)],
          rtol=1e-15)
    # PyTorch 2.13: 0 at inf, inf at -inf and wherever 2 exp(x^2) overflows
    same(values(special.erfcx(f64(0.0, INF, -INF, -30.0, NAN))), [1.0, 0.0, INF, INF, NAN])


def test_erfcx_log_ndtr_ndtri_reject_half_as_pytorch():
    h = em.tensor([0.5], dtype=em.float16)
    for name in ("erfcx", "log_ndtr", "ndtri"):
        with pytest.raises(RuntimeError, match=f"\"{name}_cpu\" not implemented for 'Half'"):
            getattr(special, name)(h)
    assert special.gammaln(h).dtype == em.float16 and special.i0e(h).dtype == em.float16


# ------------------------------------------------------------------------------------------- entr and xlog1py
def test_entr_values_and_edges():
    x = [0.25, 0.5, 2.0, 10.0, 1e-300]
    close(values(special.entr(f64(*x))), [-v * math.log(v) for v in x])
    # 0 at 0 (both signs), -0.0 at 1, -inf for negative input and at inf (PyTorch 2.13)
    same(values(special.entr(f64(0.0, -0.0, 1.0, -1.0, -INF, INF, NAN))), [0.0, 0.0, -0.0, -INF, -INF, -INF, NAN])
    assert special.entr(em.tensor([1, 2])).dtype == em.float32


def test_xlog1py_values_edges_and_overloads():
    x = f64(0.0, 0.0, 0.0, 2.0, 1.0, 3.0)
    y = f64(NAN, -1.0, -5.0, 0.5, -1.0, 1e-20)
    same(values(special.xlog1py(x, y))[:3] + values(special.xlog1py(x, y))[4:5], [NAN, 0.0, 0.0, -INF])
    close(values(special.xlog1py(x, y))[3::2], [2 * math.log1p(0.5), 3 * math.log1p(1e-20)])
    close(values(special.xlog1py(2.0, f64(1.0))), [2 * math.log(2.0)])
    close(values(special.xlog1py(f64(1.0), 2)), [math.log(3.0)])
    assert special.xlog1py(em.tensor([1, 2]), em.tensor([1, 2])).dtype == em.float32
    assert special.xlog1py(em.tensor([1.0], dtype=em.float16), 2.0).dtype == em.float16
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        special.xlog1py(2.0, 3.0)
    with pytest.raises(RuntimeError, match="\"xlog1py_cpu\" not implemented for 'ComplexFloat'"):
        special.xlog1py(em.tensor([1.0]), em.tensor([1j]))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # ember's arithmetic warns on the 0/0 of these gradients
def test_xlog1py_gradients_at_zero_as_pytorch():
    x = f64(0.0, 0.0, 1.0, 0.0, 2.0).requires_grad_()
    y = f64(NAN, -1.0, -1.0, -2.0, 3.0).requires_grad_()
    special.xlog1py(x, y).sum().backward()
    # PyTorch 2.13: d/dx is 0 where x == 0 and y <= -1; d/dy = x / (1 + y)
    same(values(x.grad), [NAN, 0.0, -INF, 0.0, math.log(4.0)])
    same(values(y.grad), [NAN, NAN, INF, -0.0, 0.5])
    assert type(special.xlog1py(x, y).grad_fn).__name__ == "SpecialXlog1PyBackward0"


# ---------------------------------------------------------------------------------------- modified Bessel I0, I1
def _bessel_series(nu, x, terms):
    """I_nu(x) from its power series in exact rational arithmetic (x is an exact binary fraction)."""
    fx = Fraction(x)
    u = fx * fx / 4
    term = Fraction(1) if nu == 0 else fx / 2
    total = Fraction(0)
    for k in range(terms):
        total += term
        term = term * u / ((k + 1) * (k + 1 + nu))
    return total


@pytest.mark.parametrize("x", [1e-5, 0.375, 1.0, 2.5, 7.9, 8.1, 15.25, 19.9, 20.1, 26.0, 41.5])
def test_i0_i1_and_scaled_forms_against_exact_series(x):
    terms = 40 + int(3 * x)
    i0_ref, i1_ref = _bessel_series(0, x, terms), _bessel_series(1, x, terms)
    t = f64(x, -x)
    close(values(special.i0(t)), [float(i0_ref)] * 2, rtol=2e-15)
    close(values(special.i1(t)), [float(i1_ref), -float(i1_ref)], rtol=2e-15)
    scale = math.exp(-x)
    close(values(special.i0e(t)), [float(i0_ref) * scale] * 2, rtol=3e-15)
    close(values(special.i1e(t)), [float(i1_ref) * scale, -float(i1_ref) * scale], rtol=3e-15)


def test_bessel_edge_values_as_pytorch():
    x = f64(0.0, -0.0, INF, -INF, NAN, 700.0, 710.0, -710.0, 1e-300)
    # PyTorch 2.13 computes I as exp(|x|) * (the scaled value): nan at ±inf, inf once exp overflows
    same(values(special.i0(x))[:5], [1.0, 1.0, NAN, NAN, NAN])
    same(values(special.i0(x))[6:8], [INF, INF])
    close(values(special.i0(f64(700.0))), [1.52959334767187349e+302], rtol=1e-15)
    same(values(special.i1(x))[:5] + values(special.i1(x))[6:8], [0.0, -0.0, NAN, NAN, NAN, INF, -INF])
    close(values(special.i1(f64(1e-300))), [5e-301], rtol=1e-15)
    same(values(special.i0e(f64(INF, -INF, NAN))), [0.0, 0.0, NAN])
    same(values(special.i1e(f64(INF, -INF, 0.0, -0.0))), [0.0, -0.0, 0.0, -0.0])


def test_i1_gradient_at_zero_and_nan_is_one_half_as_pytorch():
    x = f64(0.0, 1e-300, NAN, 2.0).requires_grad_()
    special.i1(x).sum().backward()
    same(values(x.grad)[:3], [0.5, 0.5, 0.5])
    close(values(x.grad)[3], float(_bessel_series(0, 2.0, 60) - _bessel_series(1, 2.0, 60) / 2))
    y = f64(0.0, NAN).requires_grad_()
    special.i1e(y).sum().backward()
    same(values(y.grad), [0.5, 0.5])


# ------------------------------------------------------------------------------------------------------- dtypes
@pytest.mark.parametrize("name", ["gammaln", "digamma", "ndtr", "ndtri", "log_ndtr", "erfcx", "i0", "i0e", "i1",
                                  "i1e", "entr", "expit", "erf", "erfc", "erfinv", "sinc", "exp2", "expm1", "log1p"])
def test_dtypes_follow_pytorch(name):
    fn = getattr(special, name)
    assert fn(em.tensor([0, 1])).dtype == em.float32  # integers compute in the default float dtype
    assert fn(em.tensor([0.25])).dtype == em.float32
    assert fn(em.tensor([0.25], dtype=em.float64)).dtype == em.float64


def test_float32_values_agree_with_float64_to_a_few_ulp():
    x = np.linspace(-9.7, 30.3, 157)
    for name in ("gammaln", "digamma", "i0", "i0e", "i1", "i1e", "erfcx", "log_ndtr"):
        fn = getattr(special, name)
        got = fn(em.tensor(x.astype(np.float32))).numpy()
        ref = fn(em.tensor(x.astype(np.float32).astype(np.float64), dtype=em.float64)).numpy()
        finite = np.isfinite(ref) & (np.abs(ref) < 3e38) & (np.abs(ref) > 1e-30)
        ulp = np.spacing(np.abs(ref[finite]).astype(np.float32)).astype(np.float64)
        assert np.max(np.abs(got[finite] - ref[finite]) / ulp) <= 1.0, name  # computed in float64, then rounded
    # PyTorch 2.13's float32 values, within 2 ulp
    np.testing.assert_allclose(values(special.gammaln(em.tensor([-0.5, 171.7]))), [1.26551210880279541,
                                                                                 710.17156982421875], rtol=2.4e-7)
    np.testing.assert_allclose(values(special.i1(em.tensor([8.0]))), [399.873136782559925], rtol=1.2e-7)


def test_complex_input_is_rejected_with_pytorchs_kernel_names():
    z = em.tensor([1 + 1j])
    for name, label in [("gammaln", "lgamma_vml_cpu"), ("i0", "i0_vml_cpu"), ("i0e", "i0e_cpu"), ("i1", "i1_cpu"),
                        ("i1e", "i1e_cpu"), ("erfcx", "erfcx_cpu"), ("ndtri", "ndtri_cpu"),
                        ("log_ndtr", "log_ndtr_cpu"), ("entr", "entr_cpu")]:
        with pytest.raises(RuntimeError, match=f"\"{label}\" not implemented for 'ComplexFloat'"):
            getattr(special, name)(z)


# ------------------------------------------------------------------------------- top-level ops, Tensor methods
def test_top_level_ops_and_tensor_methods():
    t = em.tensor([1.5, 2.0, 3.25])
    for method, fn in [("lgamma", em.lgamma), ("digamma", em.digamma), ("i0", em.i0)]:
        same(values(getattr(t, method)()), values(fn(t)))
        u = t.clone()
        assert getattr(u, method + "_")() is u
        same(values(u), values(fn(t)))
    same(values(t.polygamma(2)), values(em.polygamma(2, t)))
    same(values(t.mvlgamma(2)), values(em.mvlgamma(t, 2)))
    u = t.clone()
    u.polygamma_(1)
    same(values(u), values(em.polygamma(1, t)))
    u = t.clone()
    u.mvlgamma_(3)
    same(values(u), values(em.mvlgamma(t, 3)))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        em.tensor([2]).polygamma_(1)


# ---------------------------------------------------------------------------------------------------- gradients
GRADCHECKS = {
    "gammaln": (special.gammaln, [0.3, 1.7, 4.5, 12.0, -0.6, -2.3]),
    "digamma": (special.digamma, [0.3, 1.7, 4.5, 12.0, -0.6, -2.3]),
    "polygamma0": (lambda t: special.polygamma(0, t), [0.4, 2.5, -1.3]),
    "polygamma1": (lambda t: special.polygamma(1, t), [0.4, 2.5, 11.0, -1.3]),
    "polygamma3": (lambda t: special.polygamma(3, t), [0.4, 2.5, 11.0, -1.3]),
    "multigammaln": (lambda t: special.multigammaln(t, 3), [1.2, 2.5, 7.0]),
    # (finite differences of a sum of outputs: one large I0 would drown the others' differences, so the
    # asymptotic branch gets its own point)
    "i0": (special.i0, [-3.0, -0.2, 0.7, 5.0]),
    "i0_large": (special.i0, [24.0]),
    "i0e": (special.i0e, [-3.0, -0.2, 0.7, 5.0, 25.0]),
    "i1": (special.i1, [-3.0, -0.2, 0.7, 5.0]),
    "i1_large": (special.i1, [-24.0]),
    "i1e": (special.i1e, [-3.0, -0.2, 0.7, 5.0, 25.0]),
    "erfcx": (special.erfcx, [-2.0, -0.3, 0.2, 1.5, 7.0]),
    "ndtr": (special.ndtr, [-2.0, -0.3, 0.2, 1.5]),
    "log_ndtr": (special.log_ndtr, [-30.0, -2.0, -0.3, 0.2, 3.0]),
    "ndtri": (special.ndtri, [0.01, 0.3, 0.5, 0.8, 0.999]),
    "entr": (special.entr, [0.1, 0.5, 2.0]),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKS))
def test_gradcheck(name):
    fn, points = GRADCHECKS[name]
    assert gradcheck(fn, (f64(*points).requires_grad_(),))


def test_xlog1py_gradcheck_in_both_arguments():
    x = f64(0.5, -1.2, 2.0).requires_grad_()
    y = f64(0.3, 1.5, -0.4).requires_grad_()
    assert gradcheck(special.xlog1py, (x, y))
    assert gradcheck(lambda t: special.xlog1py(t, 0.7), (x,))


def test_second_derivatives():
    x = f64(0.7, 2.5, -1.4).requires_grad_()
    for fn in (special.gammaln, special.digamma, special.i1, special.log_ndtr):
        assert gradgradcheck(fn, (x,))


def test_gradient_nodes_are_named_as_in_pytorch():
    x = f64(0.3).requires_grad_()
    names = {fn: type(fn(x).grad_fn).__name__ for fn in (special.gammaln, special.digamma, special.i0,
                                                          special.i0e, special.i1, special.i1e, special.erfcx,
                                                          special.log_ndtr, special.ndtri, special.entr)}
    assert list(names.values()) == ["LgammaBackward0", "DigammaBackward0", "I0Backward0", "SpecialI0EBackward0",
                                    "SpecialI1Backward0", "SpecialI1EBackward0", "SpecialErfcxBackward0",
                                    "SpecialLogNdtrBackward0", "SpecialNdtriBackward0", "SpecialEntrBackward0"]
    assert type(special.polygamma(1, x).grad_fn).__name__ == "PolygammaBackward0"
    assert type(special.multigammaln(x + 2, 2).grad_fn).__name__ == "MvlgammaBackward0"


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # ember's arithmetic warns on the inf and nan gradients
def test_edge_gradients_as_pytorch():
    def grad(fn, *points):
        t = f64(*points).requires_grad_()
        fn(t).sum().backward()
        return values(t.grad)
    # PyTorch 2.13 (measured)
    same(grad(special.gammaln, 0.0, -0.0, -1.0), [-INF, INF, NAN])
    same(grad(special.digamma, 0.0, INF, -INF), [INF, 0.0, NAN])
    same(grad(special.entr, 0.0, -1.0, INF), [INF, NAN, -INF])
    same(grad(special.ndtri, 0.0, 1.0, -1.0), [INF, INF, NAN])
    same(grad(special.log_ndtr, INF, -INF), [0.0, NAN])
    close(grad(special.log_ndtr, -40.0), [4.00249688472123566e+01], rtol=1e-14)
    same(grad(special.erfcx, -40.0, INF), [-INF, NAN])
    same(grad(special.i0e, 0.0, INF), [0.0, 0.0])


# ------------------------------------------------------------------------------------------- array-module seam
def test_special_kernels_compute_with_the_array_module_of_their_inputs():
    x = np.array([-30.0, -3.3, -2.0, -0.4, 0.0, 0.3, 1.7, 5.0, 25.0, 800.0, np.nan, np.inf])
    cases = [special.gammaln, special.digamma, lambda t: special.polygamma(1, t),
             lambda t: special.polygamma(3, t), lambda t: special.multigammaln(t.abs() + 2, 3),
             lambda t: special.zeta(t.abs() + 1.5, t), special.i0, special.i0e, special.i1, special.i1e,
             special.erfcx, special.log_ndtr, special.ndtr, lambda t: special.ndtri(t.abs() / 1000),
             special.entr, lambda t: special.xlog1py(t, t.abs()), special.bessel_j0, special.bessel_j1,
             special.spherical_bessel_j0, special.scaled_modified_bessel_k0, special.scaled_modified_bessel_k1]
    for fn in cases:
        ref = fn(em.tensor(x))
        with fake_device():
            out = fn(to_device(x))
            direct = list(FakeDeviceArray.direct_calls)
        assert direct == [], direct
        assert on_fake_device(out)
        np.testing.assert_array_equal(out._data.get(), ref._data)


# ------------------------------------------------------------------------------------ Bessel J0, J1 and K0, K1
def _bessel_j_series(nu, x, terms):
    """J_nu(x) from its alternating power series in exact rational arithmetic (no cancellation error)."""
    fx = Fraction(x)
    u = fx * fx / 4
    term = Fraction(1) if nu == 0 else fx / 2
    total = Fraction(0)
    for k in range(terms):
        total += term
        term = -term * u / ((k + 1) * (k + 1 + nu))
    return float(total)


def test_bessel_j0_j1_against_exact_series():
    x = [1e-3, 0.5, 0.999, 1.0, 2.404825557695773, 3.8317059702075125, 7.25, 13.5, 24.9, 25.1, 33.0]
    for nu, fn in ((0, special.bessel_j0), (1, special.bessel_j1)):
        ref = [_bessel_j_series(nu, v, 30 + int(3 * v)) for v in x]
        close(values(fn(em.tensor(x, dtype=em.float64))), ref, rtol=1e-14, atol=5e-16)  # atol: at the zeros
        sign = 1 if nu == 0 else -1  # J0 is even, J1 odd
        close(values(fn(em.tensor([-v for v in x], dtype=em.float64))), [sign * r for r in ref], rtol=1e-14,
              atol=5e-16)


def test_bessel_j_edge_values_and_no_gradient_as_pytorch():
    x = f64(0.0, -0.0, INF, -INF, NAN, 1e-300)
    same(values(special.bessel_j0(x)), [1.0, 1.0, NAN, NAN, NAN, 1.0])
    same(values(special.bessel_j1(x)), [0.0, -0.0, NAN, NAN, NAN, 5e-301])
    same(values(special.spherical_bessel_j0(x)), [1.0, 1.0, 0.0, 0.0, NAN, 1.0])
    # PyTorch 2.13 for huge x: the phase x - pi/4 rounds to x, and both give cos(x) sqrt(2 / (pi x))
    close(values(special.bessel_j0(f64(1e300, 1e5))), [-4.59091695231317363e-151, -1.71920111623833890e-03],
          rtol=1e-12)
    close(values(special.bessel_j1(f64(1e300, 1e5))), [-4.59091695231317363e-151, 1.84675756287595752e-03],
          rtol=1e-12)
    close(values(special.spherical_bessel_j0(f64(1e300, 0.3, 7.0))),
          [math.sin(1e300) / 1e300, math.sin(0.3) / 0.3, math.sin(7.0) / 7.0], rtol=1e-15)
    t = f64(0.5, 3.0).requires_grad_()
    for fn in (special.bessel_j0, special.bessel_j1, special.spherical_bessel_j0, special.scaled_modified_bessel_k0,
               special.scaled_modified_bessel_k1):
        out = fn(t)
        assert not out.requires_grad and out.grad_fn is None  # PyTorch records no graph for these
        assert fn(em.tensor([1, 2])).dtype == em.float32
        with pytest.raises(RuntimeError, match=f"\"{fn.__name__}_cpu\" not implemented for 'Half'"):
            fn(em.tensor([1.0], dtype=em.float16))


def _k_quadrature(nu, x):
    """e^x K_nu(x) = int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt by a fine trapezoidal sum (exact to rounding for
    this analytic, fast-decaying integrand)."""
    h = 0.005
    n = int(math.acosh(1 + 45 / x) / h) + 2
    terms = [math.exp(-x * (math.cosh(k * h) - 1)) * math.cosh(nu * k * h) for k in range(n)]
    return h * (math.fsum(terms) - 0.5 * terms[0])


def test_scaled_modified_bessel_k_against_quadrature_and_the_wronskian():
    x = [0.05, 0.5, 0.999, 1.0, 2.7, 11.0, 60.0]
    close(values(special.scaled_modified_bessel_k0(f64(*x))), [_k_quadrature(0, v) for v in x], rtol=2e-15)
    close(values(special.scaled_modified_bessel_k1(f64(*x))), [_k_quadrature(1, v) for v in x], rtol=2e-15)
    # I0 K1 + I1 K0 = 1/x, with the scalings cancelling: ties these kernels to i0e and i1e
    t = em.tensor(np.geomspace(1e-3, 1e4, 80), dtype=em.float64)
    lhs = special.i0e(t) * special.scaled_modified_bessel_k1(t) + special.i1e(t) * special.scaled_modified_bessel_k0(t)
    close(values(lhs * t), [1.0] * 80, rtol=3e-15)


def test_scaled_modified_bessel_k_edge_values_as_pytorch():
    x = f64(0.0, -0.0, -1.0, INF, -INF, NAN, 1e300, 1e-300)
    k0 = values(special.scaled_modified_bessel_k0(x))
    k1 = values(special.scaled_modified_bessel_k1(x))
    same(k0[:6], [INF, INF, NAN, 0.0, NAN, NAN])
    same(k1[:6], [INF, INF, NAN, 0.0, NAN, NAN])
    close(k0[6:], [1.25331413731550042e-150, 6.90891459413872099e+02], rtol=1e-15)  # PyTorch 2.13
    close(k1[6:], [1.25331413731550015e-150, 9.99999999999999904e+299], rtol=1e-15)


def test_series_tables_written_out_are_the_derived_values():
    """gamma.py writes its series coefficients as literals (deriving them cost milliseconds at ``import ember``):
    they must be exactly the values derived from exact Bernoulli numbers and the Hurwitz zeta kernel."""
    from ember.core.ops import gamma
    assert gamma._series_tables() == (gamma._EM, gamma._LG2, gamma._STIRLING, gamma._PSI, gamma._PSI2)
