"""Convolutions: values against a naive loop, gradients (first and second order), layers, repr and errors."""
import numpy as np
import pytest

import ember as em
from ember.autograd import gradcheck, gradgradcheck
from ember.core import nn
from ember.core.nn import functional as F
from ember.core.nn.functional import _conv_kernels as conv_kernels


def naive_conv2d(x, w, b=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1):
    """Direct definition: out[n, f, i, j] = sum over the group's channels and the kernel taps."""
    n, c, h, wd = x.shape
    fo, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding[0], padding[0]), (padding[1], padding[1])))
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, fo, oh, ow))
    per_group = fo // groups
    for b_ in range(n):
        for f in range(fo):
            g = f // per_group
            for i in range(oh):
                for j in range(ow):
                    acc = 0.0
                    for c_ in range(cg):
                        for p in range(kh):
                            for q in range(kw):
                                acc += xp[b_, g * cg + c_, i * stride[0] + p * dilation[0],
                                          j * stride[1] + q * dilation[1]] * w[f, c_, p, q]
                    out[b_, f, i, j] = acc + (b[f] if b is not None else 0.0)
    return out


def naive_conv_transpose2d(x, w, stride, padding, output_padding, dilation=(1, 1)):
    """Scatter definition: every input pixel adds weight * value to the output window it maps to."""
    n, cin, h, wd = x.shape
    _, cout, kh, kw = w.shape
    oh = (h - 1) * stride[0] - 2 * padding[0] + dilation[0] * (kh - 1) + output_padding[0] + 1
    ow = (wd - 1) * stride[1] - 2 * padding[1] + dilation[1] * (kw - 1) + output_padding[1] + 1
    full = np.zeros((n, cout, oh + 2 * padding[0] + kh * dilation[0], ow + 2 * padding[1] + kw * dilation[1]))
    for b_ in range(n):
        for ci in range(cin):
            for i in range(h):
                for j in range(wd):
                    for p in range(kh):
                        for q in range(kw):
                            full[b_, :, i * stride[0] + p * dilation[0], j * stride[1] + q * dilation[1]] += \
                                x[b_, ci, i, j] * w[ci, :, p, q]
    return full[:, :, padding[0]:padding[0] + oh, padding[1]:padding[1] + ow]


rng = np.random.default_rng(0)


@pytest.fixture(params=["channels_last", "nchw"])
def kernel_path(request, monkeypatch):
    """Run a test through both convolution kernels, with tiny cache blocks so images are split into row blocks."""
    monkeypatch.setattr(conv_kernels, "_MIN_RUN", 0 if request.param == "channels_last" else 10 ** 9)
    monkeypatch.setattr(conv_kernels, "_BLOCK_BYTES", 600)
    return request.param


CASES = [
    # (N, C, H, W, F, kernel, stride, padding, dilation, groups)
    (2, 3, 7, 6, 4, (3, 2), (1, 1), (1, 0), (1, 1), 1),
    (2, 4, 9, 8, 6, (3, 3), (2, 1), (2, 1), (2, 1), 2),
    (1, 6, 5, 5, 6, (1, 1), (1, 1), (0, 0), (1, 1), 6),
    (3, 2, 6, 7, 5, (2, 3), (3, 2), (1, 1), (1, 2), 1),
]


@pytest.mark.parametrize("case", CASES)
def test_conv2d_matches_naive_loop(case, kernel_path):
    n, c, h, w, f, k, s, p, d, g = case
    x = rng.standard_normal((n, c, h, w))
    wt = rng.standard_normal((f, c // g) + k)
    b = rng.standard_normal(f)
    out = F.conv2d(em.tensor(x), em.tensor(wt), em.tensor(b), s, p, d, g)
    np.testing.assert_allclose(out.numpy(), naive_conv2d(x, wt, b, s, p, d, g), atol=1e-10)


def test_conv2d_float32_and_large_blocks_match_reference():
    # big enough that the kernel splits the images into several cache blocks
    x = rng.standard_normal((3, 8, 40, 37)).astype(np.float32)
    wt = rng.standard_normal((5, 8, 3, 3)).astype(np.float32)
    out = F.conv2d(em.tensor(x), em.tensor(wt), padding=1)
    assert out.dtype == em.float32
    ref = naive_conv2d(x[:, :, :8, :9].astype(np.float64), wt.astype(np.float64), padding=(1, 1))
    np.testing.assert_allclose(out.numpy()[:, :, :7, :8], ref[:, :, :7, :8], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("case", CASES[:3])
def test_conv2d_gradcheck_and_gradgradcheck(case, kernel_path):
    n, c, h, w, f, k, s, p, d, g = case
    h, w = min(h, 6), min(w, 6)
    x = em.tensor(rng.standard_normal((1, c, h, w)), requires_grad=True)
    wt = em.tensor(rng.standard_normal((f, c // g) + k), requires_grad=True)
    b = em.tensor(rng.standard_normal(f), requires_grad=True)

    def fn(a, ww, bb):
        return F.conv2d(a, ww, bb, s, p, d, g)
    assert gradcheck(fn, (x, wt, b))
    assert gradgradcheck(fn, (x, wt, b))


def test_conv2d_stride_one_input_gradient_uses_both_kernels_consistently(kernel_path):
    # stride 1 takes the "input gradient as a convolution" path; asymmetric 'same' padding exercises its padding
    x = em.tensor(rng.standard_normal((2, 3, 5, 6)), requires_grad=True)
    wt = em.tensor(rng.standard_normal((4, 3, 2, 4)), requires_grad=True)
    assert gradcheck(lambda a, ww: F.conv2d(a, ww, padding="same"), (x, wt))
    out = F.conv2d(x, wt, padding="same")
    assert out.shape == (2, 4, 5, 6)
    # 'same' with an even kernel puts the extra zero at the end, as PyTorch does
    xd = x.detach().numpy()
    ref = naive_conv2d(np.pad(xd, ((0, 0), (0, 0), (0, 1), (1, 2))), wt.detach().numpy())
    np.testing.assert_allclose(out.detach().numpy(), ref, atol=1e-10)


def test_conv1d_matches_naive_and_gradchecks(kernel_path):
    x = rng.standard_normal((2, 4, 11))
    wt = rng.standard_normal((6, 2, 3))
    b = rng.standard_normal(6)
    out = F.conv1d(em.tensor(x), em.tensor(wt), em.tensor(b), stride=2, padding=1, dilation=2, groups=2)
    ref = naive_conv2d(x[:, :, None], wt[:, :, None], b, (1, 2), (0, 1), (1, 2), 2)[:, :, 0]
    np.testing.assert_allclose(out.numpy(), ref, atol=1e-10)
    xt = em.tensor(x[:1, :, :6], requires_grad=True)
    wtt = em.tensor(wt, requires_grad=True)
    bt = em.tensor(b, requires_grad=True)

    def fn(a, ww, bb):
        return F.conv1d(a, ww, bb, padding=1, groups=2)
    assert gradcheck(fn, (xt, wtt, bt))
    assert gradgradcheck(fn, (xt, wtt, bt))


@pytest.mark.parametrize("stride,padding,output_padding,dilation", [((2, 2), (1, 0), (1, 0), (1, 1)),
                                                                   ((1, 2), (0, 1), (0, 1), (2, 1))])
def test_conv_transpose2d_matches_naive_and_gradchecks(stride, padding, output_padding, dilation, kernel_path):
    x = rng.standard_normal((2, 3, 3, 4))
    wt = rng.standard_normal((3, 2, 3, 2))
    out = F.conv_transpose2d(em.tensor(x), em.tensor(wt), None, stride, padding, output_padding, 1, dilation)
    np.testing.assert_allclose(out.numpy(), naive_conv_transpose2d(x, wt, stride, padding, output_padding, dilation),
                               atol=1e-10)
    xt = em.tensor(x[:1], requires_grad=True)
    wtt = em.tensor(wt, requires_grad=True)
    bt = em.tensor(rng.standard_normal(2), requires_grad=True)

    def fn(a, ww, bb):
        return F.conv_transpose2d(a, ww, bb, stride, padding, output_padding, 1, dilation)
    assert gradcheck(fn, (xt, wtt, bt))
    assert gradgradcheck(fn, (xt, wtt, bt))


def test_conv_transpose_is_the_adjoint_of_conv():
    # <conv(x, w), y> == <x, conv_transpose(y, w)> for every x, y: the defining property
    x = rng.standard_normal((2, 3, 8, 7))
    y = rng.standard_normal((2, 5, 4, 4))
    wt = rng.standard_normal((5, 3, 3, 3))
    cx = F.conv2d(em.tensor(x), em.tensor(wt), stride=2, padding=1).numpy()
    ty = F.conv_transpose2d(em.tensor(y), em.tensor(wt), stride=2, padding=1, output_padding=(1, 0)).numpy()
    assert ty.shape == x.shape
    assert np.isclose((cx * y).sum(), (x * ty).sum())


def test_conv_transpose1d_and_grouped_transpose():
    x = em.tensor(rng.standard_normal((1, 4, 5)), requires_grad=True)
    wt = em.tensor(rng.standard_normal((4, 3, 3)), requires_grad=True)
    out = F.conv_transpose1d(x, wt, stride=2, groups=2)
    assert out.shape == (1, 6, 11)
    assert gradcheck(lambda a, ww: F.conv_transpose1d(a, ww, stride=2, groups=2), (x, wt))


def test_unfold_fold_values_and_adjoint():
    x = np.arange(2 * 2 * 4 * 5, dtype=np.float64).reshape(2, 2, 4, 5)
    cols = F.unfold(em.tensor(x), kernel_size=(2, 3), padding=1, stride=(2, 1)).numpy()
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    # block l = (i, j) on a 3 x 5 grid; row = c * 6 + p * 3 + q
    assert cols.shape == (2, 12, 15)
    for c in range(2):
        for p in range(2):
            for q in range(3):
                for i in range(3):
                    for j in range(5):
                        assert cols[1, c * 6 + p * 3 + q, i * 5 + j] == xp[1, c, 2 * i + p, j + q]
    y = rng.standard_normal(cols.shape)
    folded = F.fold(em.tensor(y), (4, 5), kernel_size=(2, 3), padding=1, stride=(2, 1)).numpy()
    assert np.isclose((cols * y).sum(), (x * folded).sum())
    xt = em.tensor(rng.standard_normal((1, 2, 4, 4)), requires_grad=True)
    assert gradgradcheck(lambda a: F.unfold(a, 2, dilation=2, padding=1), (xt,))
    ct = em.tensor(rng.standard_normal((1, 8, 9)), requires_grad=True)
    assert gradgradcheck(lambda a: F.fold(a, (4, 4), 2, stride=1), (ct,))


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
def test_conv2d_layer_padding_modes_match_np_pad(mode):
    em.manual_seed(0)
    layer = nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode=mode).double()
    x = rng.standard_normal((1, 2, 5, 6))
    np_mode = {"zeros": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
    ref = naive_conv2d(np.pad(x, ((0, 0), (0, 0), (1, 1), (2, 2)), mode=np_mode), layer.weight.detach().numpy(),
                       layer.bias.detach().numpy())
    np.testing.assert_allclose(layer(em.tensor(x)).detach().numpy(), ref, atol=1e-10)
    xt = em.tensor(x[:, :, :4, :4], requires_grad=True)
    assert gradcheck(layer, (xt,))


@pytest.mark.parametrize("make,shape", [
    (lambda: nn.Conv1d(2, 3, 3, stride=2, padding=1), (2, 2, 7)),
    (lambda: nn.Conv2d(2, 3, (2, 3), dilation=(2, 1)), (1, 2, 5, 5)),
    (lambda: nn.ConvTranspose2d(2, 4, 3, stride=2, padding=1, output_padding=1, groups=2), (1, 2, 3, 3)),
])
def test_conv_layers_gradcheck_and_gradgradcheck(make, shape):
    em.manual_seed(0)
    layer = make().double()
    x = em.tensor(rng.standard_normal(shape), requires_grad=True)
    params = (layer.weight, layer.bias)

    def fn(a, w, b):
        return layer._conv_forward(a, w, b) if not layer.transposed else \
            F.conv_transpose2d(a, w, b, layer.stride, layer.padding, layer.output_padding, layer.groups)
    assert gradcheck(fn, (x,) + params)
    assert gradgradcheck(fn, (x,) + params)
    assert gradcheck(layer, (x,))


def test_conv2d_layer_default_init_and_shapes():
    em.manual_seed(0)
    layer = nn.Conv2d(4, 8, 3)
    assert layer.weight.shape == (8, 4, 3, 3) and layer.bias.shape == (8,)
    bound = 1 / np.sqrt(4 * 9)  # kaiming_uniform(a=sqrt(5)) is U(-1/sqrt(fan_in), 1/sqrt(fan_in))
    assert np.abs(layer.weight.detach().numpy()).max() <= bound
    assert np.abs(layer.bias.detach().numpy()).max() <= bound
    assert layer.weight.detach().numpy().std() > bound / 3
    out = layer(em.randn(2, 4, 10, 9))
    assert out.shape == (2, 8, 8, 7)
    assert layer(em.randn(4, 10, 9)).shape == (8, 8, 7)  # unbatched input
    assert nn.Conv2d(4, 8, 3, padding="same")(em.randn(1, 4, 6, 5)).shape == (1, 8, 6, 5)
    assert nn.Conv2d(4, 8, 3, padding="valid")(em.randn(1, 4, 6, 5)).shape == (1, 8, 4, 3)
    assert nn.ConvTranspose2d(4, 2, 3, stride=2).weight.shape == (4, 2, 3, 3)


def test_conv_transpose2d_output_size_argument():
    layer = nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    x = em.randn(1, 3, 4, 4)
    assert layer(x).shape == (1, 2, 7, 7)
    assert layer(x, output_size=(8, 8)).shape == (1, 2, 8, 8)
    assert layer(x, output_size=[1, 2, 8, 7]).shape == (1, 2, 8, 7)
    with pytest.raises(ValueError, match="requested an output size of"):
        layer(x, output_size=(9, 9))


def test_conv_repr_matches_pytorch():
    assert repr(nn.Conv2d(1, 6, 5)) == "Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1))"
    assert repr(nn.Conv2d(3, 8, (3, 1), stride=2, padding=1, dilation=2, groups=1, bias=False,
                          padding_mode="circular")) == \
        "Conv2d(3, 8, kernel_size=(3, 1), stride=(2, 2), padding=(1, 1), dilation=(2, 2), bias=False, " \
        "padding_mode=circular)"
    assert repr(nn.Conv2d(4, 4, 3, padding="same", groups=2)) == \
        "Conv2d(4, 4, kernel_size=(3, 3), stride=(1, 1), padding=same, groups=2)"
    assert repr(nn.Conv1d(16, 33, 3, stride=2)) == "Conv1d(16, 33, kernel_size=(3,), stride=(2,))"
    assert repr(nn.ConvTranspose2d(16, 33, 3, stride=2, output_padding=1)) == \
        "ConvTranspose2d(16, 33, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1))"


def test_conv_bad_input_errors_name_the_layer_and_the_shapes():
    layer = nn.Conv2d(1, 6, 5)
    with pytest.raises(RuntimeError) as err:
        layer(em.randn(1, 3, 32, 32))
    msg = str(err.value)
    assert msg.startswith("Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1)): ")
    assert "expected input with 1 channels, got 3" in msg and "[1, 3, 32, 32]" in msg
    with pytest.raises(RuntimeError, match=r"expected 3D \(unbatched\) or 4D \(batched\) input.*\[32, 32\]"):
        layer(em.randn(32, 32))
    with pytest.raises(RuntimeError, match=r"kernel_size=\(5, 5\) is larger than the padded input.*\(3 x 4\)"):
        layer(em.randn(1, 1, 3, 4))
    with pytest.raises(RuntimeError, match="Conv2d.*expected input with 2 channels, got 3"):
        nn.Conv2d(2, 4, 3, padding_mode="reflect")(em.randn(1, 3, 5, 5))
    with pytest.raises(RuntimeError, match="Given groups=1, weight of size \\[6, 1, 5, 5\\]"):
        F.conv2d(em.randn(1, 3, 8, 8), em.randn(6, 1, 5, 5))
    with pytest.raises(RuntimeError, match="weight type"):
        F.conv2d(em.randn(1, 1, 8, 8), em.randn(6, 1, 5, 5, dtype=em.float64))


def test_conv_bad_constructor_arguments_are_named():
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 6, 3, groups=2)
    with pytest.raises(ValueError, match="out_channels must be divisible by groups"):
        nn.Conv2d(4, 6, 3, groups=4)
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv2d(3, 6, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        nn.Conv2d(3, 6, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="invalid padding string 'full'"):
        nn.Conv2d(3, 6, 3, padding="full")
    with pytest.raises(ValueError, match="kernel_size must be positive"):
        nn.Conv2d(3, 6, 0)
    with pytest.raises(ValueError, match="stride must be positive"):
        nn.Conv1d(3, 6, 3, stride=0)
    with pytest.raises(ValueError, match='Only "zeros" padding mode'):
        nn.ConvTranspose2d(3, 6, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match="output padding must be smaller than either stride or dilation"):
        F.conv_transpose2d(em.randn(1, 2, 3, 3), em.randn(2, 2, 3, 3), output_padding=1)


def test_empty_batch_gives_empty_outputs_and_zero_weight_gradients():
    for layer in (nn.Conv2d(3, 4, 3), nn.Conv2d(16, 8, 3, padding=1), nn.ConvTranspose2d(3, 4, 3, stride=2)):
        x = em.randn(0, layer.in_channels, 5, 5, requires_grad=True)
        out = layer(x)
        assert out.shape[0] == 0 and out.shape[1] == layer.out_channels
        out.sum().backward()
        assert x.grad.shape == x.shape
        assert layer.weight.grad.shape == layer.weight.shape and not layer.weight.grad.numpy().any()


def _conv_grads_at(threads, x, w, padding, stride=1):
    before = em.get_num_threads()
    em.set_num_threads(threads)
    try:
        xt, wt = em.tensor(x, requires_grad=True), em.tensor(w, requires_grad=True)
        out = F.conv2d(xt, wt, padding=padding, stride=stride)
        out.backward(em.tensor(np.random.default_rng(1).standard_normal(out.shape).astype(x.dtype)))
        return out.detach().numpy(), xt.grad.numpy(), wt.grad.numpy()
    finally:
        em.set_num_threads(before)


@pytest.mark.parametrize("shape,padding,stride", [
    (((64, 1, 28, 28), (6, 1, 5, 5)), 2, 1),  # LeNet's first layer: the image-major NCHW path
    (((32, 3, 32, 32), (32, 3, 3, 3)), 1, 1),  # a VGG first layer: NCHW, input gradient by col2im
    (((64, 6, 14, 14), (16, 6, 5, 5)), 0, 1),  # LeNet's second layer: channels-last, tap-major col2im
    (((32, 8, 17, 17), (16, 8, 3, 3)), 1, 2),  # strided: tap-major col2im with gaps
    (((16, 8, 32, 32), (32, 8, 3, 3)), 1, 1),  # widening, 4 KiB gradient planes: col2im, staged NHWC gradient copy
])
def test_conv_kernels_equal_across_threads_and_match_composed_reference(shape, padding, stride):
    xs, ws = shape
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal(ws).astype(np.float32)
    one, two = _conv_grads_at(1, x, w, padding, stride), _conv_grads_at(2, x, w, padding, stride)
    # GEMM blocks differ with the split (and weight gradients are summed per thread): float32 rounding only
    np.testing.assert_allclose(one[0], two[0], rtol=1e-5, atol=1e-4)
    for a, b in zip(one[1:], two[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-3)
    ref_y = naive_conv2d(x[:2].astype(np.float64), w.astype(np.float64), padding=(padding, padding),
                         stride=(stride, stride))
    np.testing.assert_allclose(one[0][:2], ref_y, rtol=1e-4, atol=1e-4)
    # gradients against the composed rule (create_graph runs the differentiable conv_t / conv_w ops in float64)
    x64, w64 = em.tensor(x.astype(np.float64), requires_grad=True), em.tensor(w.astype(np.float64), requires_grad=True)
    out = F.conv2d(x64, w64, padding=padding, stride=stride)
    g = np.random.default_rng(1).standard_normal(out.shape)
    gx, gw = em.autograd.grad(out, (x64, w64), em.tensor(g), create_graph=True)
    np.testing.assert_allclose(one[1], gx.detach().numpy(), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(one[2], gw.detach().numpy(), rtol=1e-4, atol=1e-2)
    # the weight gradient also against its definition: gw[f, c, i, j] = sum of g[n, f, y, x] * xpad[n, c, y*s+i, x*s+j]
    kh, kw = ws[2:]
    xpad = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    win = np.lib.stride_tricks.sliding_window_view(xpad, (kh, kw), axis=(2, 3))[:, :, ::stride, ::stride]
    np.testing.assert_allclose(one[2], np.einsum("nfyx,ncyxij->fcij", g, win), rtol=1e-4, atol=1e-2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,pad", [((3, 8, 32, 32), (1, 1, 1, 1)), ((2, 16, 16, 16), (2, 0, 1, 3)),
                                       ((2, 3, 32, 32), (0, 0, 0, 0))])
def test_padded_nhwc_copy_matches_np_pad(dtype, shape, pad):
    # 32x32 planes are 4 KiB apart (float32) or 8 KiB (float64): the staged transpose; the others the direct one
    x = rng.standard_normal(shape).astype(dtype)
    pt, pb, pl, pr = pad
    g = conv_kernels.ConvGeometry((1, 1), (1, 1), pad, 1, (3, 3), shape[2:], shape[2:])
    ref = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr))).transpose(0, 2, 3, 1)
    out = conv_kernels.padded_nhwc(x, g)
    assert out.flags.c_contiguous and np.array_equal(out, ref)


def test_conv2d_on_4k_planes_matches_einsum_reference():
    x = rng.standard_normal((2, 8, 32, 32)).astype(np.float32)
    w = rng.standard_normal((4, 8, 3, 3)).astype(np.float32)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))  # (N, C, 32, 32, 3, 3)
    ref = np.einsum("nchwij,fcij->nfhw", win, w.astype(np.float64))
    np.testing.assert_allclose(F.conv2d(em.tensor(x), em.tensor(w), padding=1).numpy(), ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("padding,dilation", [((1, 2), (1, 1)), ("same", (2, 1)), ((0, 0), (1, 2))])
def test_stride_one_col2im_kernels_gradcheck_and_agree(monkeypatch, kernel_path, padding, dilation):
    # the input gradient by col2im: on flat planes (stride 1), and tap-major / NCHW with the flat kernel switched off
    monkeypatch.setattr(conv_kernels, "_full_conv_cheaper", lambda g, f, c: False)
    x = em.tensor(rng.standard_normal((2, 3, 6, 7)), requires_grad=True)
    w = em.tensor(rng.standard_normal((4, 3, 2, 3)), requires_grad=True)

    def fn(a, b):
        return F.conv2d(a, b, padding=padding, dilation=dilation)
    g = em.tensor(rng.standard_normal(fn(x, w).shape))
    grads = []
    for flat in (True, False):
        monkeypatch.setattr(conv_kernels, "_FLAT_COL2IM", flat)
        assert gradcheck(fn, (x, w))
        grads.append(em.autograd.grad(fn(x, w), x, g)[0].numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, atol=1e-12)
