"""StochasticWeightAveraging and SWALR: the learning-rate schedule (PyTorch's formula), the averaged weights, the
BatchNorm statistics of the averaged model, errors, and an exact resume in the middle of the averaging."""
import math

import numpy as np
import pytest

import ember as em
from ember.callbacks import LambdaCallback, ModelCheckpoint, StochasticWeightAveraging
from ember.callbacks.stochastic_weight_avg import SWALR
from ember.core import nn
from ember.trainer import MisconfigurationException

from callback_testing import Scripted, loader, make_trainer


def sgd(lr=1.0):
    return em.optim.SGD([nn.Parameter(em.zeros(1))], lr=lr)


@pytest.mark.parametrize("strategy, alpha", [("linear", lambda t: t),
                                             ("cos", lambda t: (1 - math.cos(math.pi * t)) / 2)])
def test_swalr_anneals_to_swa_lr(strategy, alpha):
    opt = sgd(1.0)
    sched = SWALR(opt, swa_lr=0.1, anneal_epochs=4, anneal_strategy=strategy)
    lrs = [opt.param_groups[0]["lr"]]
    for _ in range(6):
        opt.step()
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    # lr(t) = swa_lr * alpha(t) + lr0 * (1 - alpha(t)), t = step / anneal_epochs capped at 1
    expected = [0.1 * alpha(min(k / 4, 1)) + 1.0 * (1 - alpha(min(k / 4, 1))) for k in range(7)]
    assert lrs == pytest.approx(expected, abs=1e-12)
    opt = sgd(1.0)
    sched = SWALR(opt, swa_lr=0.25, anneal_epochs=0)
    opt.step()
    sched.step()
    assert opt.param_groups[0]["lr"] == 0.25
    with pytest.raises(ValueError, match="anneal_strategy"):
        SWALR(sgd(), 0.1, anneal_strategy="step")
    with pytest.raises(ValueError, match="anneal_epochs"):
        SWALR(sgd(), 0.1, anneal_epochs=-1)


def record_weights_and_lr(store):
    def on_end(trainer, module):
        store.setdefault("weights", []).append(module.layer.weight.detach().numpy().copy())

    def on_start(trainer, module):
        store.setdefault("lr", []).append(trainer.optimizers[0].param_groups[0]["lr"])

    return LambdaCallback(on_train_epoch_end=on_end, on_train_epoch_start=on_start)


def test_weights_are_averaged_over_the_swa_epochs(tmp_path):
    store = {}
    swa = StochasticWeightAveraging(swa_lrs=0.05, swa_epoch_start=2, annealing_epochs=1,
                                    annealing_strategy="linear")
    model = Scripted(lr=0.1)
    trainer = make_trainer(tmp_path, max_epochs=4, callbacks=[swa, record_weights_and_lr(store)],
                           enable_checkpointing=False)
    trainer.fit(model, loader())
    # averaged at the starts of epochs 1, 2, 3 (swa_epoch_start=2 is 1-based): the weights after epochs 0, 1, 2
    expected = np.mean(store["weights"][:3], axis=0)
    np.testing.assert_allclose(model.layer.weight.detach().numpy(), expected, rtol=1e-6, atol=1e-7)
    assert swa.n_averaged == 3
    # SWALR from epoch 1: 0.1 during its first epoch, then annealed (linear, 1 epoch) to 0.05
    assert store["lr"] == pytest.approx([0.1, 0.1, 0.05, 0.05])
    assert isinstance(trainer.lr_scheduler_configs[0].scheduler, SWALR)


def test_fraction_start_and_user_scheduler_swap(tmp_path):
    class WithStep(Scripted):
        def configure_optimizers(self):
            opt = em.optim.SGD(self.parameters(), lr=0.1)
            return [opt], [em.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)]

    store = {}
    swa = StochasticWeightAveraging(swa_lrs=0.2, swa_epoch_start=0.5, annealing_epochs=2)
    trainer = make_trainer(tmp_path, max_epochs=4, callbacks=[swa, record_weights_and_lr(store)],
                           enable_checkpointing=False)
    trainer.fit(WithStep(), loader())
    assert swa._swa_epoch_start == 2 and swa.swa_start == 1
    # StepLR halves 0.1 after epoch 0; SWALR takes over at epoch 1 and anneals 0.05 -> 0.2 over 2 epochs (cos)
    assert store["lr"] == pytest.approx([0.1, 0.05, 0.05 + 0.15 * 0.5, 0.2])
    assert isinstance(trainer.lr_scheduler_configs[0].scheduler, SWALR)


def test_batch_norm_statistics_of_the_averaged_model(tmp_path):
    class WithBN(Scripted):
        def __init__(self):
            super().__init__(lr=0.1)
            self.pre = nn.Linear(4, 3)
            self.bn = nn.BatchNorm1d(3)
            self.layer = nn.Linear(3, 2)

        def forward(self, x):
            return self.layer(self.bn(self.pre(x)))

    model = WithBN()
    data = loader()
    trainer = make_trainer(tmp_path, max_epochs=3, enable_checkpointing=False,
                           callbacks=[StochasticWeightAveraging(swa_lrs=0.05, swa_epoch_start=1)])
    trainer.fit(model, data)
    # one pass over the 4 training batches with the averaged weights, cumulative average of the batch statistics
    w, b = model.pre.weight.detach().numpy().astype(np.float64), model.pre.bias.detach().numpy().astype(np.float64)
    means, variances = [], []
    for x, _ in data:
        h = x.numpy().astype(np.float64) @ w.T + b
        means.append(h.mean(axis=0))
        variances.append(h.var(axis=0, ddof=1))
    np.testing.assert_allclose(model.bn.running_mean.numpy(), np.mean(means, axis=0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model.bn.running_var.numpy(), np.mean(variances, axis=0), rtol=1e-5, atol=1e-6)
    assert model.bn.momentum == 0.1 and model.training


def test_invalid_configurations(tmp_path):
    for kwargs in (dict(swa_epoch_start=0), dict(swa_epoch_start=1.5)):
        with pytest.raises(MisconfigurationException, match="swa_epoch_start should be"):
            StochasticWeightAveraging(swa_lrs=0.1, **kwargs)
    for lrs in (0, -0.1, [0.1, -1.0], "0.1"):
        with pytest.raises(MisconfigurationException, match="swa_lrs"):
            StochasticWeightAveraging(swa_lrs=lrs)
    with pytest.raises(MisconfigurationException, match="avg_fn"):
        StochasticWeightAveraging(swa_lrs=0.1, avg_fn=3)

    class TwoOptimizers(Scripted):
        def __init__(self):
            super().__init__()
            self.automatic_optimization = False

        def training_step(self, batch, batch_idx):
            pass

        def configure_optimizers(self):
            return [em.optim.SGD(self.parameters(), lr=0.1), em.optim.SGD(self.parameters(), lr=0.1)]

    trainer = make_trainer(tmp_path, max_epochs=2, callbacks=[StochasticWeightAveraging(swa_lrs=0.1)],
                           enable_checkpointing=False)
    with pytest.raises(MisconfigurationException, match="SWA currently works with 1 `optimizer`"):
        trainer.fit(TwoOptimizers(), loader())


def test_resume_in_the_middle_of_the_averaging_is_exact(tmp_path):
    def run(ckpt_path=None, crash=False, max_epochs=5):
        em.seed_everything(0)
        callbacks = [StochasticWeightAveraging(swa_lrs=0.05, swa_epoch_start=2, annealing_epochs=2),
                     ModelCheckpoint(dirpath=tmp_path, save_last=True, save_top_k=1)]
        if crash:
            def stop(trainer, module):
                if trainer.current_epoch == 3:
                    raise RuntimeError("crash")
            callbacks.append(LambdaCallback(on_train_epoch_start=stop))
        model = Scripted(lr=0.1)
        trainer = make_trainer(tmp_path, max_epochs=max_epochs, callbacks=callbacks)
        trainer.fit(model, loader(shuffle=True), ckpt_path=ckpt_path)
        return model, callbacks[0]

    reference, ref_swa = run()
    with pytest.raises(RuntimeError, match="crash"):
        run(crash=True)
    resumed, swa = run(ckpt_path="last")
    assert swa.n_averaged == ref_swa.n_averaged == 4
    for key, value in reference.state_dict().items():
        assert np.array_equal(resumed.state_dict()[key].detach().numpy(), value.detach().numpy()), key
