"""One test per op family: random inputs, exported, checked with onnx.checker and run in ONNX Runtime."""
import pytest

import ember as em
from ember.core import nn
from ember.core.nn import functional as F

from onnx_testing import Fn, check_export


def op_types(proto):
    return [n.op_type for n in proto.graph.node]


@pytest.fixture(autouse=True)
def seed():
    em.manual_seed(0)


def test_linear_addmm_matmul_einsum():
    lin = nn.Linear(5, 3)
    check_export(lin, em.randn(4, 5), others=[em.randn(2, 5)], dynamic={0: [0]})
    check_export(nn.Linear(5, 3, bias=False), em.randn(2, 7, 5), others=[em.randn(3, 7, 5)], dynamic={0: [0]})
    w, b = em.randn(5, 3), em.randn(3)
    check_export(Fn(lambda x: em.addmm(b, x, w, beta=0.5, alpha=2.0)), em.randn(4, 5))
    check_export(Fn(lambda x, y: x @ y), (em.randn(2, 3, 4), em.randn(4, 6)))
    check_export(Fn(lambda x, y: em.bmm(x, y)), (em.randn(2, 3, 4), em.randn(2, 4, 5)))
    check_export(Fn(lambda x, y: em.matmul(x, y)), (em.randn(4), em.randn(2, 4, 3)))
    check_export(Fn(lambda x, y: em.einsum("bij,bjk->bik", x, y)), (em.randn(2, 3, 4), em.randn(2, 4, 5)))


@pytest.mark.parametrize("kwargs", [dict(), dict(stride=2, padding=1), dict(dilation=2, padding=2),
                                    dict(groups=2, padding="same"), dict(padding=1, padding_mode="reflect")])
def test_conv1d_conv2d(kwargs):
    check_export(nn.Conv2d(4, 6, 3, **kwargs), em.randn(2, 4, 9, 9), others=[em.randn(3, 4, 9, 9)],
                 dynamic={0: [0]})
    check_export(nn.Conv1d(4, 6, 3, **kwargs), em.randn(2, 4, 11), others=[em.randn(1, 4, 11)], dynamic={0: [0]})


def test_conv_functional_unbatched_and_transposed():
    w, b = em.randn(6, 2, 3, 3), em.randn(6)
    check_export(Fn(lambda x: F.conv2d(x, w, b, stride=(2, 1), padding=(1, 0), groups=2)), em.randn(4, 8, 8))
    check_export(nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1), em.randn(2, 4, 5, 5),
                 others=[em.randn(3, 4, 5, 5)], dynamic={0: [0]})
    check_export(nn.ConvTranspose2d(4, 2, (2, 3), dilation=2, groups=2, bias=False), em.randn(1, 4, 4, 5))


def test_pooling():
    x = em.randn(2, 3, 8, 8)
    check_export(nn.MaxPool2d(2), x)
    check_export(nn.MaxPool2d(3, stride=2, padding=1, dilation=1), x)
    check_export(nn.MaxPool1d(3, stride=2), em.randn(2, 3, 9))
    check_export(nn.AvgPool2d(3, stride=2, padding=1), x)
    check_export(nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), x)
    check_export(nn.AvgPool1d(2), em.randn(2, 3, 8))
    proto = check_export(nn.AdaptiveAvgPool2d(1), x, others=[em.randn(5, 3, 8, 8)], dynamic={0: [0]})
    assert op_types(proto)[0] == "GlobalAveragePool"
    check_export(nn.AdaptiveAvgPool2d((4, 2)), x)
    check_export(nn.AdaptiveMaxPool2d(2), x)


def test_normalization():
    bn = nn.BatchNorm2d(3)
    bn.running_mean.copy_(em.randn(3))
    bn.running_var.copy_(em.rand(3) + 0.5)
    bn.weight.data.copy_(em.randn(3))
    check_export(bn.eval(), em.randn(2, 3, 4, 4), others=[em.randn(5, 3, 4, 4)], dynamic={0: [0]})
    bn1 = nn.BatchNorm1d(4, affine=False).eval()
    check_export(bn1, em.randn(6, 4))
    check_export(nn.LayerNorm(6), em.randn(2, 3, 6))
    check_export(nn.LayerNorm((3, 6), elementwise_affine=False), em.randn(2, 3, 6))
    gn = nn.GroupNorm(2, 4)
    gn.weight.data.copy_(em.randn(4))
    check_export(gn, em.randn(2, 4, 5, 3), others=[em.randn(3, 4, 5, 3)], dynamic={0: [0]})
    check_export(nn.InstanceNorm2d(3, affine=True), em.randn(2, 3, 4, 5))
    check_export(Fn(lambda x: F.normalize(x, dim=-1)), em.randn(3, 5))


def test_dropout_eval_and_embedding():
    proto = check_export(nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5)).eval(), em.randn(3, 4))
    assert "Dropout" not in op_types(proto)
    emb = nn.Embedding(10, 4, padding_idx=0)
    check_export(emb, em.randint(0, 10, (2, 5)), others=[em.randint(0, 10, (4, 5))], dynamic={0: [0]})


@pytest.mark.parametrize("name, kwargs", [
    ("relu", {}), ("relu6", {}), ("gelu", {}), ("gelu", dict(approximate="tanh")), ("silu", {}), ("sigmoid", {}),
    ("tanh", {}), ("softmax", dict(dim=-1)), ("log_softmax", dict(dim=1)), ("leaky_relu", dict(negative_slope=0.2)),
    ("elu", dict(alpha=0.7)), ("selu", {}), ("celu", {}), ("softplus", {}), ("softplus", dict(beta=2.0, threshold=1.0)),
    ("softsign", {}), ("hardtanh", dict(min_val=-0.5, max_val=2.0)), ("hardsigmoid", {}), ("hardswish", {}),
    ("logsigmoid", {}), ("mish", {}), ("tanhshrink", {}), ("softmin", dict(dim=0)), ("glu", dict(dim=-1)),
    ("threshold", dict(threshold=0.1, value=-2.0)),
])
def test_activations(name, kwargs):
    # F is looked up at call time: the exporter sees ops called through their module, as PyTorch's users write them
    check_export(Fn(lambda x: getattr(F, name)(x, **kwargs)), em.randn(3, 4, 6) * 3)


def test_activation_modules():
    for layer in (nn.ReLU(), nn.GELU("tanh"), nn.SiLU(), nn.LeakyReLU(0.1), nn.ELU(), nn.SELU(), nn.Softmax(-1),
                  nn.LogSoftmax(-1), nn.Tanh(), nn.Sigmoid(), nn.PReLU(4), nn.Hardswish(), nn.Mish()):
        check_export(layer, em.randn(3, 4, 6) * 3)


@pytest.mark.parametrize("gelu_opset", [17, None])
def test_gelu_opsets(gelu_opset):
    proto = check_export(nn.GELU(), em.randn(5, 4) * 3, opset_version=gelu_opset)
    assert ("Gelu" in op_types(proto)) == (gelu_opset is None)


def test_elementwise_arithmetic_and_math():
    a, b = em.randn(3, 4), em.rand(3, 4) + 0.5
    for fn in [lambda x, y: x + y * 2 - 1, lambda x, y: x / y, lambda x, y: 1 - x, lambda x, y: 2 / y,
               lambda x, y: em.add(x, y, alpha=3), lambda x, y: em.sub(x, y, alpha=0.5), lambda x, y: x ** 2,
               lambda x, y: y ** 0.5, lambda x, y: em.pow(y, x), lambda x, y: -x, lambda x, y: x.abs(),
               lambda x, y: y.exp().log(), lambda x, y: y.sqrt() + y.rsqrt(), lambda x, y: x.sin() * x.cos(),
               lambda x, y: y.log2() + y.log10() + y.log1p() + x.expm1(), lambda x, y: x.clamp(-0.5, 0.5),
               lambda x, y: x.clamp(min=0), lambda x, y: em.where(x > 0, x, y), lambda x, y: em.maximum(x, y),
               lambda x, y: em.minimum(x, y), lambda x, y: x.floor() + x.ceil() + x.round() + x.trunc(),
               lambda x, y: x.where(x > 0, y),
               lambda x, y: em.remainder(x, -2.0) + em.fmod(x, y) + em.div(x, -y, rounding_mode="trunc"),
               lambda x, y: x // y, lambda x, y: x % y, lambda x, y: x.masked_fill(x < 0, 0.0),
               lambda x, y: (x > y) | (x < 0), lambda x, y: ((x >= y) & (x != 0)).float(),
               lambda x, y: (x == x).long() + 1, lambda x, y: em.erf(x) + x.sign() + x.square() + x.reciprocal(),
               lambda x, y: em.lerp(x, y, 0.3), lambda x, y: x.tanh() * x.sigmoid()]:
        check_export(Fn(fn), (a, b))


def test_elementwise_integer_promotion():
    i = em.randint(-5, 5, (3, 4))
    x = em.randn(3, 4)
    for fn in [lambda n, x: n + x, lambda n, x: n * 2 + 1, lambda n, x: n / 2, lambda n, x: n // 3,
               lambda n, x: n % 3, lambda n, x: (n > 0) + n, lambda n, x: n.float() * x]:
        check_export(Fn(fn), (i, x))


def test_reductions():
    x = em.randn(3, 4, 5)
    for fn in [lambda x: x.sum(), lambda x: x.sum(1), lambda x: x.sum((0, 2), keepdim=True), lambda x: x.mean(-1),
               lambda x: x.amax(1), lambda x: x.amin((1, 2)), lambda x: x.max(), lambda x: x.max(1)[0],
               lambda x: x.max(dim=2, keepdim=True), lambda x: x.min(0), lambda x: x.prod(1),
               lambda x: x.var(1), lambda x: x.std(), lambda x: x.var(2, unbiased=False, keepdim=True),
               lambda x: x.argmax(-1), lambda x: x.argmin(), lambda x: x.logsumexp(1), lambda x: x.cumsum(1),
               lambda x: (x > 0).all(1), lambda x: (x > 1).any(), lambda x: x.norm(dim=1)]:
        check_export(Fn(fn), x)


def test_shape_ops():
    x = em.randn(2, 3, 4)
    for fn in [lambda x: x.reshape(6, 4), lambda x: em.flatten(x), lambda x: x.transpose(0, 1).contiguous().view(3, -1),
               lambda x: x[:1].expand(5, 3, 4), lambda x: x.unbind(0), lambda x: x[0].t(), lambda x: x.split(1)]:
        check_export(Fn(fn), x)


def test_shape_ops_with_a_dynamic_batch():
    x = em.randn(2, 3, 4)
    for fn in [lambda x: x.view(x.size(0), -1), lambda x: x.flatten(1), lambda x: x.permute(2, 0, 1),
               lambda x: x.transpose(1, 2), lambda x: em.cat([x, x * 2], dim=1), lambda x: em.stack([x, -x], dim=-1),
               lambda x: x.split(2, dim=2), lambda x: x.split([1, 2], 1), lambda x: x.chunk(2, dim=-1),
               lambda x: x.unsqueeze(1).squeeze(1), lambda x: x[:, :1].squeeze(),
               lambda x: x.unsqueeze(0).expand(2, -1, -1, -1),
               lambda x: x.repeat(1, 2, 1), lambda x: x.flip(1), lambda x: x.unbind(1), lambda x: x.movedim(0, -1),
               lambda x: x.unflatten(2, (2, 2)), lambda x: x.narrow(2, 1, 2), lambda x: x.select(1, -1),
               lambda x: x.tril() + x.triu(1), lambda x: x.double().float(),
               lambda x: x.reshape(x.shape[0] * 3, 4).reshape(x.shape[0], 12)]:
        check_export(Fn(fn), x, others=[em.randn(5, 3, 4)], dynamic={0: [0]})


def test_sizes_read_from_dynamic_axes():
    x = em.randn(2, 3, 4)
    for fn in [lambda x: x + em.arange(x.shape[2]), lambda x: x * em.ones(x.shape[0], 1, x.shape[2]),
               lambda x: x + em.zeros_like(x), lambda x: em.full_like(x, 2.5) * x,
               lambda x: em.full((x.size(0), 3, 1), 0.5) + x, lambda x: x[:, :, em.arange(1, x.shape[2], 2)]]:
        check_export(Fn(fn), x, others=[em.randn(4, 3, 6)], dynamic={0: [0, 2]})
    with pytest.raises(em.onnx.OnnxExporterError, match="'arange' in the model's own forward uses the size 4 .it was 6 "
                                                        "at another size of the dynamic axes."):
        check_export(Fn(lambda x: em.arange(x.shape[0] * 2)), x, dynamic={0: [0]})


class Tokens(nn.Module):
    """A class token expanded to the batch, and a buffer mask sliced to the sequence length."""

    def __init__(self):
        super().__init__()
        self.cls = nn.Parameter(em.randn(1, 1, 4))
        self.register_buffer("mask", em.tril(em.ones(16, 16)))

    def forward(self, x):
        b, t, _ = x.shape
        x = em.cat([self.cls.expand(b, -1, -1), x], dim=1)
        scores = x @ x.transpose(1, 2)
        return scores * self.mask[:t + 1, :t + 1] + self.cls.expand_as(x).sum()


def test_sizes_from_dynamic_axes_in_expand_and_slices():
    check_export(Tokens(), em.randn(2, 5, 4), others=[em.randn(3, 9, 4), em.randn(1, 2, 4)], dynamic={0: [0, 1]})


@pytest.mark.parametrize("fn, message", [
    (lambda x: x.narrow(1, 0, x.size(1) - 1), "'narrow' in the model's own forward uses sizes that follow a dynamic "
                                              "axis"),
    (lambda x: x[:, x.size(1) - 2], r"'index' in the model's own forward indexes with 3 \(it was 5 at another size"),
    (lambda x: x[:, :x.size(1) - 1], "'index' in the model's own forward slices at 4"),
    (lambda x: x.reshape(-1, 2 * x.size(1), 2)[:, :, 0].sum(1, keepdim=True).repeat(1, x.size(0)),
     "'repeat' in the model's own forward uses sizes that follow a dynamic axis"),
])
def test_sizes_that_would_be_frozen_are_refused(fn, message):
    with pytest.raises(em.onnx.OnnxExporterError, match=message):
        check_export(Fn(fn), em.randn(2, 5, 4), dynamic={0: [0, 1]})


def test_indexing():
    x = em.randn(4, 5, 6)
    idx = em.tensor([3, 0, 2])
    for fn in [lambda x: x[1], lambda x: x[-1, 2:4], lambda x: x[:, ::2, 1:-1], lambda x: x[..., 0],
               lambda x: x[:, None, 1], lambda x: x[idx], lambda x: x[:, idx], lambda x: x[x > 0],
               lambda x: x[:, 1][x[:, 1] > 0], lambda x: x[x[:, 0, 0] > 0], lambda x: x[:, [0, 4]],
               lambda x: x.index_select(2, idx), lambda x: x.gather(1, em.zeros(4, 2, 6, dtype=em.int64)),
               lambda x: x[:, :x.shape[1]]]:
        check_export(Fn(fn), x)
    # a slice the model computes from the dynamic size stays "to the end"
    check_export(Fn(lambda x: x[:x.shape[0], 1:]), x, others=[em.randn(7, 5, 6)], dynamic={0: [0]})


def test_scaled_dot_product_attention():
    q, k, v = em.randn(2, 3, 5, 8), em.randn(2, 3, 7, 8), em.randn(2, 3, 7, 4)
    check_export(Fn(lambda q, k, v: F.scaled_dot_product_attention(q, k, v)), (q, k, v))
    check_export(Fn(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.3)),
                 (q, k, v), others=[(em.randn(2, 3, 6, 8), em.randn(2, 3, 9, 8), em.randn(2, 3, 9, 4))],
                 dynamic={0: [2], 1: [2], 2: [2]})
    bool_mask = em.rand(5, 7) > 0.3
    bool_mask[:, 0] = True
    check_export(Fn(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=bool_mask)), (q, k, v))
    float_mask = em.randn(2, 1, 5, 7)
    check_export(Fn(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=float_mask)), (q, k, v))


@pytest.mark.parametrize("batch_first", [True, False])
def test_multihead_attention_and_transformer_encoder_layer(batch_first):
    mha = nn.MultiheadAttention(8, 2, batch_first=batch_first).eval()
    x = em.randn(3, 4, 8)
    other = em.randn(3, 6, 8) if batch_first else em.randn(5, 4, 8)
    check_export(Fn(lambda x: mha(x, x, x)[0]), x, others=[other], dynamic={0: [0, 1]})
    check_export(Fn(lambda x: mha(x, x, x, need_weights=True)), x)
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=batch_first).eval()
    check_export(layer, x, others=[other], dynamic={0: [0, 1]})
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, activation="gelu", norm_first=True,
                                       batch_first=batch_first).eval()
    mask = nn.Transformer.generate_square_subsequent_mask(x.shape[0 if not batch_first else 1])
    check_export(Fn(lambda x: layer(x, src_mask=mask)), x)


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU, nn.RNN])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_recurrent_layers(cls, bidirectional):
    rnn = cls(4, 6, num_layers=2, bidirectional=bidirectional).eval()
    x = em.randn(5, 3, 4)
    proto = check_export(rnn, x, others=[em.randn(7, 2, 4)], dynamic={0: [0, 1]})
    assert op_types(proto).count(cls.__name__) == 2
    d = 2 if bidirectional else 1
    h0 = em.randn(2 * d, 3, 6)
    hx = (h0, em.randn(2 * d, 3, 6)) if cls is nn.LSTM else h0
    check_export(Fn(lambda x: rnn(x, hx)), x)
    first = cls(4, 6, batch_first=True, bias=False).eval()
    check_export(first, em.randn(3, 5, 4))
    check_export(first, em.randn(5, 4))  # unbatched


@pytest.mark.parametrize("kwargs", [dict(scale_factor=2), dict(size=(5, 7)),
                                    dict(scale_factor=1.5, mode="nearest-exact"),
                                    dict(scale_factor=2, mode="bilinear"), dict(size=(7, 5), mode="bilinear"),
                                    dict(scale_factor=3, mode="bilinear", align_corners=True),
                                    dict(size=(6, 9), mode="bicubic"), dict(scale_factor=2, mode="bicubic",
                                                                             align_corners=True)])
def test_interpolate(kwargs):
    check_export(Fn(lambda x: F.interpolate(x, **kwargs)), em.randn(2, 3, 4, 5), others=[em.randn(3, 3, 4, 5)],
                 dynamic={0: [0]})


def test_upsample_and_linear_interpolation():
    check_export(nn.Upsample(scale_factor=2, mode="nearest"), em.randn(1, 2, 3, 3))
    check_export(Fn(lambda x: F.interpolate(x, scale_factor=2.5, mode="linear")), em.randn(2, 3, 6))


def test_sorting_selection_and_ops_exported_through_what_they_call():
    x = em.randn(3, 5, 4)
    for fn in [lambda x: x.topk(2, dim=1), lambda x: x.topk(3, largest=False), lambda x: x.sort(1),
               lambda x: x.sort(-1, descending=True)[0], lambda x: x.argsort(0),
               lambda x: F.one_hot(x.argmax(-1), 6),
               lambda x: F.cosine_similarity(x, x.flip(1), dim=-1),  # no mapping: exported through its ops
               lambda x: F.pixel_shuffle(x.reshape(x.size(0), 4, 5, 1), 2)]:
        check_export(Fn(fn), x, others=[em.randn(4, 5, 4)], dynamic={0: [0]})
