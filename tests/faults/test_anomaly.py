"""Anomaly detection: a NaN produced in *backward* (the loss is finite) is caught before the optimizer step, naming
the backward node as PyTorch does and the forward op and line that created it."""
import warnings

import numpy as np
import pytest

import ember as em
from ember.core import nn
from ember.core.data import DataLoader

from trainer_testing import make_dataset, quiet_trainer


def _nan_in_backward(x):
    """sqrt has an infinite derivative at 0; times the zero upstream gradient it gives NaN, while the value is 0."""
    return (x.sqrt() * 0.0).sum()


def test_detect_anomaly_names_the_backward_node_and_the_forward_op():
    x = em.tensor([4.0, 0.0], requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        mode = em.autograd.detect_anomaly()
    with mode:
        assert em.autograd.is_anomaly_enabled() and em.autograd.is_anomaly_check_nan_enabled()
        loss = _nan_in_backward(x)
        assert np.isfinite(loss.item())
        with pytest.raises(RuntimeError) as info:
            loss.backward()
    assert not em.autograd.is_anomaly_enabled()
    message = str(info.value)
    assert message.startswith("Function 'SqrtBackward0' returned nan values in its 0th output.")
    assert "created in the forward pass by 'sqrt' at " in message and "in _nan_in_backward" in message
    assert x.grad is None  # raised before anything reached the leaf


def test_without_anomaly_mode_the_nan_gradient_goes_through_silently():
    x = em.tensor([4.0, 0.0], requires_grad=True)
    _nan_in_backward(x).backward()
    assert np.isnan(x.grad.numpy()[1]) and x.grad.numpy()[0] == 0.0


def test_set_detect_anomaly_as_function_and_context_manager_and_inf():
    x = em.tensor([1.0, 2.0], requires_grad=True)
    em.autograd.set_detect_anomaly(True)
    try:
        y = (x * float("inf")).sum()  # MulBackward0 returns grad * inf = inf for x
        with pytest.raises(RuntimeError, match=r"^Function 'MulBackward0' returned inf values in its 0th output\. "
                                               r"It was created in the forward pass by 'mul'"):
            y.backward()
        with em.autograd.set_detect_anomaly(True, check_nan=False):
            (x * float("inf")).sum().backward()  # no check: the inf gradient is accumulated
            assert not em.autograd.is_anomaly_check_nan_enabled()
        assert em.autograd.is_anomaly_enabled() and em.autograd.is_anomaly_check_nan_enabled()
    finally:
        em.autograd.set_detect_anomaly(False)
    assert not em.autograd.is_anomaly_enabled()


def test_errors_inside_backward_show_the_forward_traceback():
    class Boom(em.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")

    x = em.tensor([1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        mode = em.autograd.detect_anomaly()
    with mode:
        y = Boom.apply(x).sum()
        with pytest.warns(RuntimeWarning, match="Error detected in BoomBackward"), \
                pytest.raises(ValueError, match="boom"):
            y.backward()


class NanGradModel(em.LightningModule):
    """A finite loss whose gradient is NaN at the second step (the sqrt's input hits exactly 0)."""

    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(4, 1)
        self.steps_taken = 0

    def training_step(self, batch, batch_idx):
        x, _ = batch
        out = self.layer(x).sum() * 0.0
        if batch_idx == 1:
            out = out + (self.layer.bias * 0.0).sqrt().sum() * 0.0
        return out

    def on_before_optimizer_step(self, optimizer):
        self.steps_taken += 1

    def configure_optimizers(self):
        return em.optim.SGD(self.parameters(), lr=0.1)


def test_trainer_detect_anomaly_stops_before_the_optimizer_step():
    model = NanGradModel()
    trainer = quiet_trainer(max_epochs=1, detect_anomaly=True)
    with pytest.raises(RuntimeError, match=r"^Function 'SqrtBackward0' returned nan values in its 0th output\. It "
                                           r"was created in the forward pass by 'sqrt' at .* in training_step\."):
        trainer.fit(model, DataLoader(make_dataset(16), batch_size=4))
    assert model.steps_taken == 1  # the first batch stepped; the NaN batch never reached the optimizer
    assert np.isfinite(model.layer.weight.detach().numpy()).all()
    assert not em.autograd.is_anomaly_enabled()  # the Trainer restored the mode
