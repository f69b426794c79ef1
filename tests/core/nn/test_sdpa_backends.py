"""Choosing the attention implementation (``ember.nn.attention.sdpa_kernel``, ``ember.backends.cuda``), the
``cudnn``/``mps`` flags, and the fused kernel's output layout (nanoGPT's ``y.transpose(1, 2).view(B, T, C)``)."""
import warnings

import numpy as np
import pytest

import ember as em
import ember.nn.functional as F
from ember.nn.attention import SDPBackend, sdpa_kernel


def _nanogpt_qkv(B=2, T=5, nh=3, hs=4, seed=0):
    """q, k, v exactly as nanoGPT's CausalSelfAttention makes them: split, view, transpose."""
    em.manual_seed(seed)
    C = nh * hs
    x = em.randn(B, T, 3 * C, dtype=em.float64, requires_grad=True)
    q, k, v = x.split(C, dim=2)
    k = k.view(B, T, nh, hs).transpose(1, 2)
    q = q.view(B, T, nh, hs).transpose(1, 2)
    v = v.view(B, T, nh, hs).transpose(1, 2)
    return x, q, k, v, (B, T, C)


def test_fused_output_has_the_query_layout_so_nanogpts_view_after_transpose_works():
    x, q, k, v, (B, T, C) = _nanogpt_qkv()
    y = F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0, is_causal=True)
    assert type(y.grad_fn).__name__ == "ScaledDotProductAttentionBackward0"
    direct = y.transpose(1, 2).view(B, T, C)  # no copy needed, as with PyTorch's fused kernel
    copied = y.transpose(1, 2).contiguous().view(B, T, C)
    np.testing.assert_array_equal(direct.detach().numpy(), copied.detach().numpy())
    g_direct, = em.autograd.grad(direct.square().sum(), x, retain_graph=True)
    g_copied, = em.autograd.grad(copied.square().sum(), x)
    np.testing.assert_array_equal(g_direct.numpy(), g_copied.numpy())
    contiguous_q = q.contiguous()  # a contiguous query keeps a contiguous output
    out = F.scaled_dot_product_attention(contiguous_q, k, v, is_causal=True)
    assert out.view(B, 3, T * C // 3).shape == (B, 3, T * C // 3)


def test_math_and_fused_agree_and_differ_where_pytorchs_do():
    x, q, k, v, (B, T, C) = _nanogpt_qkv()
    mask = em.randn(T, T, dtype=em.float64, requires_grad=True)
    fused = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    with sdpa_kernel(SDPBackend.MATH):
        math = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        assert type(math.grad_fn).__name__ != "ScaledDotProductAttentionBackward0"
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            math.transpose(1, 2).view(B, T, C)  # the math path's output is contiguous, as PyTorch's is
    np.testing.assert_allclose(math.detach().numpy(), fused.detach().numpy(), rtol=0, atol=1e-12)
    gf = em.autograd.grad(fused.sum(), [x, mask])
    gm = em.autograd.grad(math.sum(), [x, mask])
    for a, b in zip(gf, gm):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=0, atol=1e-12)


def test_math_backend_handles_gqa_bool_masks_and_fully_masked_rows():
    em.manual_seed(1)
    q = em.randn(2, 4, 3, 5, dtype=em.float64)
    k = em.randn(2, 2, 3, 5, dtype=em.float64)
    v = em.randn(2, 2, 3, 5, dtype=em.float64)
    keep = em.tensor([[True, False, True], [False, False, False], [True, True, True]])
    fused = F.scaled_dot_product_attention(q, k, v, attn_mask=keep, enable_gqa=True)
    with sdpa_kernel([SDPBackend.MATH]):
        math = F.scaled_dot_product_attention(q, k, v, attn_mask=keep, enable_gqa=True)
    np.testing.assert_allclose(math.numpy(), fused.numpy(), rtol=0, atol=1e-12)
    assert np.all(math.numpy()[..., 1, :] == 0)  # a row with every key masked gives zeros, not nan


def test_sdpa_kernel_restores_the_previous_choice_even_after_an_error():
    assert em.backends.cuda.flash_sdp_enabled() and em.backends.cuda.math_sdp_enabled()
    with pytest.raises(KeyError):
        with sdpa_kernel([SDPBackend.MATH, SDPBackend.EFFICIENT_ATTENTION]):
            assert not em.backends.cuda.flash_sdp_enabled()
            assert em.backends.cuda.math_sdp_enabled() and em.backends.cuda.mem_efficient_sdp_enabled()
            assert not em.backends.cuda.cudnn_sdp_enabled()
            raise KeyError("boom")
    assert em.backends.cuda.flash_sdp_enabled() and em.backends.cuda.cudnn_sdp_enabled()
    with pytest.raises(TypeError, match="expects SDPBackend values, got 'math'"):
        with sdpa_kernel("math"):
            pass


def test_only_gpu_kernels_enabled_means_no_kernel():
    _, q, k, v, _ = _nanogpt_qkv()
    with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION]):
        with pytest.raises(RuntimeError, match="No available kernel. Aborting execution"):
            F.scaled_dot_product_attention(q, k, v)


def test_backends_cuda_switches_and_the_deprecated_sdp_kernel():
    _, q, k, v, _ = _nanogpt_qkv()
    with pytest.warns(FutureWarning, match="sdp_kernel\\(\\)` is deprecated"):
        with em.backends.cuda.sdp_kernel(enable_flash=False, enable_math=True, enable_mem_efficient=False):
            assert not em.backends.cuda.flash_sdp_enabled() and not em.backends.cuda.mem_efficient_sdp_enabled()
            out = F.scaled_dot_product_attention(q, k, v)
            assert type(out.grad_fn).__name__ != "ScaledDotProductAttentionBackward0"
    assert em.backends.cuda.flash_sdp_enabled()
    em.backends.cuda.enable_flash_sdp(False)
    try:
        out = F.scaled_dot_product_attention(q, k, v)
        assert type(out.grad_fn).__name__ != "ScaledDotProductAttentionBackward0"
    finally:
        em.backends.cuda.enable_flash_sdp(True)
    assert em.backends.cuda.is_built() is False and em.backends.cuda.matmul.allow_tf32 is False


def test_cudnn_and_mps_flags():
    import ember.backends.cudnn as cudnn
    assert cudnn is em.backends.cudnn
    assert (cudnn.is_available(), cudnn.version(), cudnn.enabled) == (False, None, True)
    assert (em.backends.mps.is_available(), em.backends.mps.is_built()) == (False, False)
    before = cudnn.benchmark, cudnn.deterministic
    cudnn.benchmark, cudnn.deterministic = True, True  # the tutorials' lines run and are kept
    try:
        assert (em.backends.cudnn.benchmark, em.backends.cudnn.deterministic) == (True, True)
    finally:
        cudnn.benchmark, cudnn.deterministic = before
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        device = "mps" if em.backends.mps.is_available() else "cpu"
    assert em.device(device) == em.device("cpu")
