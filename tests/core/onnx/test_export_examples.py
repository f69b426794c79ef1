"""Each shipped example model (and an LSTM model) exports, passes onnx.checker's full check, and runs in ONNX
Runtime with ember's eval-mode outputs (1e-5) at the traced batch size and at another one (dynamic batch axis)."""
import importlib.util
import os

import ember as em
from ember.core import nn
from ember.core.nn import functional as F

from onnx_testing import check_export

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(em.__file__)), "examples")


def example(name):
    spec = importlib.util.spec_from_file_location(f"{name}_onnx_example", os.path.join(EXAMPLES, name, "model.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_digits_cnn():
    em.manual_seed(0)
    model = example("digits").DigitsClassifier().eval()
    proto = check_export(model, em.rand(3, 1, 8, 8), others=[em.rand(7, 1, 8, 8)], dynamic={0: [0]})
    assert [n.op_type for n in proto.graph.node] == ["Conv", "Relu", "Conv", "Relu", "MaxPool", "AveragePool",
                                                      "Reshape", "Gemm", "Relu", "Gemm", "Identity"]
    assert proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "x0_dynamic_axes_1"
    assert {i.name for i in proto.graph.initializer} >= {"features.0.weight", "head.4.bias"}


def test_autoencoder():
    em.manual_seed(0)
    model = example("autoencoder").LitAutoEncoder().eval()
    check_export(model, em.rand(4, 64), others=[em.rand(1, 64)], dynamic={0: [0]})


def test_gan_generator():
    em.manual_seed(0)
    model = example("gan").DigitGAN().eval()
    proto = check_export(model, em.randn(2, 16), others=[em.randn(9, 16)], dynamic={0: [0]})
    # only what forward used: the discriminator's weights are not exported
    assert not any(i.name.startswith("discriminator") for i in proto.graph.initializer)


def test_char_transformer():
    em.manual_seed(0)
    mod = example("char_transformer")
    model = mod.CharTransformer(block_size=16).eval()
    idx = lambda b, t: em.randint(0, mod.VOCAB_SIZE, (b, t))  # noqa: E731
    check_export(model, idx(2, 12), others=[idx(5, 12)], dynamic={0: [0]})


def test_char_transformer_with_dynamic_batch_and_sequence_length():
    # em.arange(t) (positions) and the causal mask follow the runtime sequence length
    em.manual_seed(0)
    mod = example("char_transformer")
    model = mod.CharTransformer(block_size=16).eval()
    idx = lambda b, t: em.randint(0, mod.VOCAB_SIZE, (b, t))  # noqa: E731
    proto = check_export(model, idx(2, 12), others=[idx(3, 5), idx(1, 16)], dynamic={0: [0, 1]})
    assert "Range" in [n.op_type for n in proto.graph.node]


def test_distillation_student():
    em.manual_seed(0)
    student = example("distillation").Distillation().student.eval()
    check_export(student, em.rand(3, 64), others=[em.rand(6, 64)], dynamic={0: [0]})


class LeNet(nn.Module):
    """The seed tutorial's network (tests/core/nn/test_net_repr.py)."""

    def __init__(self):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(1, 6, 5), nn.Conv2d(6, 16, 5)
        self.fc1, self.fc2, self.fc3 = nn.Linear(16 * 5 * 5, 120), nn.Linear(120, 84), nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, 16 * 5 * 5)
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


def test_seed_tutorial_lenet():
    em.manual_seed(0)
    check_export(LeNet().eval(), em.randn(2, 1, 32, 32), others=[em.randn(5, 1, 32, 32)], dynamic={0: [0]})


class LSTMClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(5, 8, num_layers=2, batch_first=True, bidirectional=True)
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        return self.head(out[:, -1]), h, c


def test_lstm_model():
    em.manual_seed(0)
    model = LSTMClassifier().eval()
    proto = check_export(model, em.randn(2, 6, 5), others=[em.randn(4, 6, 5), em.randn(3, 9, 5)],
                         dynamic={0: [0, 1]})
    assert [n.op_type for n in proto.graph.node].count("LSTM") == 2


def test_the_oldest_supported_opset():
    # opset 17: GELU is decomposed and ReduceMean/ReduceMax take their axes as an attribute
    em.manual_seed(0)
    mod = example("char_transformer")
    model = mod.CharTransformer(block_size=16).eval()
    proto = check_export(model, em.randint(0, mod.VOCAB_SIZE, (2, 12)), others=[em.randint(0, 10, (3, 12))],
                         dynamic={0: [0]}, opset_version=17)
    assert proto.opset_import[0].version == 17 and "Gelu" not in [n.op_type for n in proto.graph.node]
    check_export(nn.Sequential(nn.GroupNorm(2, 4), nn.Flatten(), nn.Softmax(-1)), em.randn(3, 4, 5), opset_version=17)
    check_export(LSTMClassifier().eval(), em.randn(2, 6, 5), opset_version=17)


class GRUWithInitialState(nn.Module):
    """The common pattern of building the initial state from the input's batch size inside forward."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(4, 6, num_layers=2, batch_first=True)
        self.fc = nn.Linear(6, 2)

    def forward(self, x):
        h0 = em.zeros(2, x.size(0), 6)
        out, _ = self.gru(x, h0)
        return self.fc(out[:, -1, :])


def test_recurrent_model_with_an_initial_state_sized_from_the_batch():
    em.manual_seed(0)
    check_export(GRUWithInitialState().eval(), em.randn(3, 5, 4), others=[em.randn(7, 9, 4)], dynamic={0: [0, 1]})
