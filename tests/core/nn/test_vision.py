"""interpolate / Upsample, pixel (un)shuffle, grid_sample and affine_grid: known values, references, gradients."""
import numpy as np
import pytest

import ember as em
from ember.autograd import gradcheck, gradgradcheck
from ember.core import nn
from ember.core.nn import functional as F

rng = np.random.default_rng(0)
SQUARE = em.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])


def test_interpolate_linear_known_values():
    x = em.tensor([[[1.0, 2.0]]])
    np.testing.assert_allclose(F.interpolate(x, size=4, mode="linear").numpy(), [[[1.0, 1.25, 1.75, 2.0]]])
    np.testing.assert_allclose(F.interpolate(x, size=4, mode="linear", align_corners=True).numpy(),
                               [[[1.0, 4 / 3, 5 / 3, 2.0]]], rtol=1e-6)


def test_interpolate_bilinear_known_values_both_alignments():
    # the examples of PyTorch's Upsample documentation
    np.testing.assert_allclose(F.interpolate(SQUARE, scale_factor=2, mode="bilinear").numpy()[0, 0],
                               [[1.0, 1.25, 1.75, 2.0], [1.5, 1.75, 2.25, 2.5], [2.5, 2.75, 3.25, 3.5],
                                [3.0, 3.25, 3.75, 4.0]])
    third = 1 / 3
    np.testing.assert_allclose(
        F.interpolate(SQUARE, scale_factor=2, mode="bilinear", align_corners=True).numpy()[0, 0],
        [[1.0, 1 + third, 2 - third, 2.0], [1 + 2 * third, 2.0, 2 + third, 3 - third],
         [2 + third, 3 - third, 3.0, 3 + third], [3.0, 3 + third, 4 - third, 4.0]], rtol=1e-6)


def test_interpolate_nearest_rules():
    np.testing.assert_array_equal(F.interpolate(SQUARE, scale_factor=2).numpy()[0, 0],
                                  [[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 4, 4], [3, 3, 4, 4]])
    x = em.tensor([[[10.0, 20.0, 30.0]]])
    # nearest: src = floor(dst * 3/5); nearest-exact: floor((dst + 0.5) * 3/5)
    np.testing.assert_array_equal(F.interpolate(x, size=5).numpy(), [[[10, 10, 20, 20, 30]]])
    np.testing.assert_array_equal(F.interpolate(x, size=5, mode="nearest-exact").numpy(), [[[10, 10, 20, 30, 30]]])
    np.testing.assert_array_equal(F.interpolate(x, size=2).numpy(), [[[10, 20]]])


def cubic_weight(t, a=-0.75):
    t = abs(t)
    if t <= 1:
        return (a + 2) * t ** 3 - (a + 3) * t ** 2 + 1
    if t < 2:
        return a * t ** 3 - 5 * a * t ** 2 + 8 * a * t - 4 * a
    return 0.0


def naive_bicubic(x, oh, ow, align_corners):
    """Per-pixel 4 x 4 cubic convolution with clamped borders (PyTorch's definition)."""
    h, w = x.shape
    out = np.zeros((oh, ow))
    for i in range(oh):
        for j in range(ow):
            if align_corners:
                sy = i * (h - 1) / (oh - 1) if oh > 1 else 0.0
                sx = j * (w - 1) / (ow - 1) if ow > 1 else 0.0
            else:
                sy, sx = (i + 0.5) * h / oh - 0.5, (j + 0.5) * w / ow - 0.5
            y0, x0 = int(np.floor(sy)), int(np.floor(sx))
            acc = 0.0
            for p in range(-1, 3):
                for q in range(-1, 3):
                    yy, xx = min(max(y0 + p, 0), h - 1), min(max(x0 + q, 0), w - 1)
                    acc += x[yy, xx] * cubic_weight(sy - (y0 + p)) * cubic_weight(sx - (x0 + q))
            out[i, j] = acc
    return out


@pytest.mark.parametrize("align", [False, True])
def test_interpolate_bicubic_matches_reference(align):
    x = rng.standard_normal((1, 2, 4, 5))
    out = F.interpolate(em.tensor(x), size=(7, 3), mode="bicubic", align_corners=align).numpy()
    for c in range(2):
        np.testing.assert_allclose(out[0, c], naive_bicubic(x[0, c], 7, 3, align), atol=1e-12)


def test_interpolate_area_and_trilinear():
    x = rng.standard_normal((1, 2, 6, 4))
    np.testing.assert_allclose(F.interpolate(em.tensor(x), size=(3, 2), mode="area").numpy(),
                               x.reshape(1, 2, 3, 2, 2, 2).mean(axis=(3, 5)))
    v = em.tensor(rng.standard_normal((1, 1, 2, 2, 2)))
    up = F.interpolate(v, size=(3, 3, 3), mode="trilinear", align_corners=True).numpy()
    # with aligned corners the centre of a 2x2x2 cube is the mean of its corners
    assert np.isclose(up[0, 0, 1, 1, 1], v.numpy().mean())


def test_interpolate_scale_factor_and_recompute():
    x = em.tensor(rng.standard_normal((1, 1, 5)))
    a = F.interpolate(x, scale_factor=1.5, mode="linear").numpy()
    b = F.interpolate(x, scale_factor=1.5, mode="linear", recompute_scale_factor=True).numpy()
    assert a.shape == b.shape == (1, 1, 7)
    # with the given factor the source of output 1 is (1.5 / 1.5) - 0.5 = 0.5; recomputed it is 1.5*5/7 - 0.5
    xn = x.numpy()[0, 0]
    assert np.isclose(a[0, 0, 1], 0.5 * xn[0] + 0.5 * xn[1])
    s = 1.5 * 5 / 7 - 0.5
    assert np.isclose(b[0, 0, 1], (1 - s) * xn[0] + s * xn[1])


@pytest.mark.parametrize("mode", ["nearest", "linear", "bicubic", "area"])
def test_interpolate_gradcheck_and_gradgradcheck(mode):
    x = em.tensor(rng.standard_normal((1, 2, 3, 4)), requires_grad=True)
    kw = {"align_corners": False} if mode in ("linear", "bicubic") else {}
    m = "bilinear" if mode == "linear" else mode
    size = (2, 3) if mode == "area" else (5, 6)

    def fn(a):
        return F.interpolate(a, size=size, mode=m, **kw)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_upsample_layers():
    up = nn.Upsample(scale_factor=2, mode="bilinear")
    assert repr(up) == "Upsample(scale_factor=2.0, mode='bilinear')"
    np.testing.assert_allclose(up(SQUARE).numpy(), F.interpolate(SQUARE, scale_factor=2, mode="bilinear").numpy())
    assert repr(nn.UpsamplingNearest2d(size=(4, 4))) == "UpsamplingNearest2d(size=(4, 4), mode='nearest')"
    np.testing.assert_allclose(nn.UpsamplingBilinear2d(scale_factor=2)(SQUARE).numpy(),
                               F.interpolate(SQUARE, scale_factor=2, mode="bilinear", align_corners=True).numpy())
    x = em.tensor(rng.standard_normal((1, 1, 3, 3)), requires_grad=True)
    assert gradcheck(nn.Upsample(size=(4, 5), mode="bicubic", align_corners=True), (x,))


def test_interpolate_errors():
    x = em.randn(1, 1, 4, 4)
    with pytest.raises(ValueError, match="only one of size or scale_factor"):
        F.interpolate(x, size=2, scale_factor=2)
    with pytest.raises(ValueError, match="either size or scale_factor"):
        F.interpolate(x)
    with pytest.raises(ValueError, match="align_corners option can only be set with the interpolating modes"):
        F.interpolate(x, size=2, align_corners=True)
    with pytest.raises(NotImplementedError, match="Got 4D input, but linear mode needs 3D input"):
        F.interpolate(x, size=2, mode="linear")
    with pytest.raises(NotImplementedError, match="got cubic"):
        F.interpolate(x, size=2, mode="cubic")
    with pytest.raises(ValueError, match="same number of spatial dimensions"):
        F.interpolate(x, size=(2, 2, 2))


def test_pixel_shuffle_mapping_and_inverse():
    r = 2
    x = rng.standard_normal((2, 3 * r * r, 3, 4))
    out = F.pixel_shuffle(em.tensor(x), r).numpy()
    assert out.shape == (2, 3, 6, 8)
    for c in range(3):
        for i in range(r):
            for j in range(r):
                np.testing.assert_array_equal(out[:, c, i::r, j::r], x[:, c * r * r + i * r + j])
    np.testing.assert_array_equal(F.pixel_unshuffle(em.tensor(out), r).numpy(), x)
    xt = em.tensor(x[:1], requires_grad=True)
    layer = nn.PixelShuffle(2)
    assert repr(layer) == "PixelShuffle(upscale_factor=2)"
    assert gradcheck(layer, (xt,)) and gradgradcheck(layer, (xt,))
    assert gradcheck(nn.PixelUnshuffle(2), (em.tensor(out[:1], requires_grad=True),))
    with pytest.raises(RuntimeError, match="divisible by the square of upscale_factor"):
        F.pixel_shuffle(em.randn(1, 5, 2, 2), 2)


def test_affine_grid_values():
    theta = em.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    grid = F.affine_grid(theta, (1, 1, 2, 3), align_corners=False).numpy()
    xs, ys = np.array([-2 / 3, 0.0, 2 / 3]), np.array([-0.5, 0.5])
    np.testing.assert_allclose(grid[0, ..., 0], np.tile(xs, (2, 1)), atol=1e-7)
    np.testing.assert_allclose(grid[0, ..., 1], np.tile(ys[:, None], (1, 3)), atol=1e-7)
    aligned = F.affine_grid(theta, (1, 1, 2, 3), align_corners=True).numpy()
    np.testing.assert_allclose(aligned[0, 0, :, 0], [-1.0, 0.0, 1.0])
    t = em.tensor(rng.standard_normal((2, 2, 3)), requires_grad=True)
    assert gradcheck(lambda a: F.affine_grid(a, (2, 3, 4, 5)), (t,))
    assert F.affine_grid(em.randn(1, 3, 4), (1, 1, 2, 3, 4)).shape == (1, 2, 3, 4, 3)


@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_identity_and_shift(align):
    img = em.tensor(rng.standard_normal((2, 3, 4, 5)))
    ident = em.tensor(np.tile(np.array([[1.0, 0, 0], [0, 1, 0]]), (2, 1, 1)))
    grid = F.affine_grid(ident, (2, 3, 4, 5), align_corners=align)
    np.testing.assert_allclose(F.grid_sample(img, grid, align_corners=align).numpy(), img.numpy(), atol=1e-12)
    step = 2 / (5 - 1) if align else 2 / 5  # one pixel in normalized x
    shifted = F.grid_sample(img, grid + em.tensor([step, 0.0], dtype=em.float64), align_corners=align).numpy()
    np.testing.assert_allclose(shifted[..., :-1], img.numpy()[..., 1:], atol=1e-12)
    np.testing.assert_allclose(shifted[..., -1], 0.0, atol=1e-12)  # zeros padding beyond the edge


def test_grid_sample_bilinear_point_and_padding_modes():
    img = em.tensor([[[[0.0, 1.0, 2.0], [10.0, 11.0, 12.0]]]])
    # align_corners=True: x = -1 -> column 0, x = 1 -> column 2; y likewise for rows
    pt = em.tensor([[[[0.25, 0.0]]]])  # column 1.25, row 0.5
    val = F.grid_sample(img, pt, align_corners=True).item()
    assert np.isclose(val, 0.5 * (1.25 + 11.25))
    far = em.tensor([[[[1.5, -1.0]]]])  # column 2.5 on row 0, half a pixel beyond the right edge
    assert np.isclose(F.grid_sample(img, far, align_corners=True).item(), 0.5 * 2.0)
    assert np.isclose(F.grid_sample(img, far, padding_mode="border", align_corners=True).item(), 2.0)
    # reflection about the last column's centre: 2.5 -> 1.5
    assert np.isclose(F.grid_sample(img, far, padding_mode="reflection", align_corners=True).item(), 1.5)
    near = F.grid_sample(img, em.tensor([[[[0.1, 0.9]]]]), mode="nearest", align_corners=True).item()
    assert near == 11.0  # column 1.1 -> 1, row 0.95 -> 1


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_gradcheck(mode, padding_mode):
    img = em.tensor(rng.standard_normal((1, 2, 3, 4)), requires_grad=True)
    grid = em.tensor(rng.uniform(-1.3, 1.3, (1, 2, 3, 2)), requires_grad=True)
    for align in (False, True):
        assert gradcheck(lambda a, g: F.grid_sample(a, g, mode, padding_mode, align), (img, grid))


def test_grid_sample_double_backward_raises_like_pytorch():
    img = em.tensor(rng.standard_normal((1, 1, 3, 3)), requires_grad=True)
    grid = em.tensor(rng.uniform(-1, 1, (1, 2, 2, 2)), requires_grad=True)
    (g,) = em.autograd.grad(F.grid_sample(img, grid, align_corners=False).sum(), grid, create_graph=True)
    with pytest.raises(RuntimeError, match="derivative for 'grid_sampler_2d_backward' is not implemented"):
        g.sum().backward()
