"""Trainer.fit behaviour: convergence, accumulation, clipping, limits, intervals, stopping and debugging flags."""
import os

import numpy as np
import pytest

import ember as em
from ember.core import nn
from ember.core.data import DataLoader

from trainer_testing import Classifier, make_dataset, quiet_trainer


def test_classifier_reaches_full_train_accuracy(loader):
    em.manual_seed(0)
    model = Classifier(lr=1.0)
    trainer = quiet_trainer(max_epochs=30)
    trainer.fit(model, loader(n=64, batch_size=16, shuffle=True))
    ds = make_dataset(64)
    with em.no_grad():
        pred = model(ds.tensors[0]).argmax(1)
    assert (pred == ds.tensors[1]).float().mean().item() == 1.0
    assert trainer.state.finished and trainer.current_epoch == 30 and trainer.global_step == 30 * 4


def _weights_after(batch_size, accumulate, n=32):
    em.manual_seed(1)
    model = Classifier(lr=0.3)
    trainer = quiet_trainer(max_epochs=1, accumulate_grad_batches=accumulate)
    trainer.fit(model, DataLoader(make_dataset(n), batch_size=batch_size, shuffle=False))
    return model.layer.weight.detach().numpy().copy(), model.layer.bias.detach().numpy().copy(), trainer


def test_gradient_accumulation_equals_a_larger_batch():
    w_acc, b_acc, t_acc = _weights_after(batch_size=8, accumulate=4)
    w_big, b_big, t_big = _weights_after(batch_size=32, accumulate=1)
    np.testing.assert_allclose(w_acc, w_big, atol=1e-6)
    np.testing.assert_allclose(b_acc, b_big, atol=1e-6)
    assert t_acc.global_step == t_big.global_step == 1


def test_accumulation_steps_on_the_last_batch_and_zeroes_once_per_window():
    zero_grads, steps = [], []

    class Model(Classifier):
        def optimizer_zero_grad(self, epoch, batch_idx, optimizer):
            zero_grads.append(batch_idx)
            super().optimizer_zero_grad(epoch, batch_idx, optimizer)

        def optimizer_step(self, epoch, batch_idx, optimizer, optimizer_closure=None):
            steps.append(batch_idx)
            super().optimizer_step(epoch, batch_idx, optimizer, optimizer_closure)

    trainer = quiet_trainer(max_epochs=1, accumulate_grad_batches=3)
    trainer.fit(Model(), DataLoader(make_dataset(40), batch_size=8))  # 5 batches
    assert steps == [2, 4] and zero_grads == [0, 3] and trainer.global_step == 2


def test_gradient_clipping_bounds_the_norm_used_by_the_step():
    seen_before, seen_at_step = [], []

    def norm(model):
        return float(np.sqrt(sum((p.grad.numpy() ** 2).sum() for p in model.parameters())))

    class Model(Classifier):
        def on_before_optimizer_step(self, optimizer):
            seen_before.append(norm(self))

        def on_train_batch_end(self, outputs, batch, batch_idx):
            seen_at_step.append(norm(self))  # the gradients the update used (clipped after the hook above)

    trainer = quiet_trainer(max_epochs=1, gradient_clip_val=0.01)
    trainer.fit(Model(lr=0.01), DataLoader(make_dataset(32), batch_size=8))
    assert max(seen_before) > 0.01
    assert all(n <= 0.01 * (1 + 1e-5) for n in seen_at_step)


def test_gradient_clipping_by_value():
    grads = []

    class Model(Classifier):
        def on_train_batch_end(self, outputs, batch, batch_idx):
            grads.append(max(np.abs(p.grad.numpy()).max() for p in self.parameters()))

    trainer = quiet_trainer(max_epochs=1, gradient_clip_val=0.001, gradient_clip_algorithm="value")
    trainer.fit(Model(), DataLoader(make_dataset(16), batch_size=8))
    assert max(grads) <= 0.001 + 1e-9


def test_fast_dev_run_runs_one_batch_each_and_writes_no_files(tmp_path):
    counts = {"train": 0, "val": 0, "test": 0}

    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            counts["train"] += 1
            return super().training_step(batch, batch_idx)

        def validation_step(self, batch, batch_idx):
            counts["val"] += 1
            super().validation_step(batch, batch_idx)

        def test_step(self, batch, batch_idx):
            counts["test"] += 1
            super().test_step(batch, batch_idx)

    trainer = em.Trainer(fast_dev_run=True, default_root_dir=tmp_path, enable_progress_bar=False)
    model = Model()
    data = DataLoader(make_dataset(32), batch_size=4)
    trainer.fit(model, data, data)
    trainer.test(model, data)
    assert counts == {"train": 1, "val": 1, "test": 1}
    assert os.listdir(tmp_path) == []
    # Lightning: the default logger becomes a DummyLogger (issue 13, point 11), so code that logs keeps working
    assert [type(lg).__name__ for lg in trainer.loggers] == ["DummyLogger"] and trainer.checkpoint_callback is None


@pytest.mark.parametrize("fraction,expected", [(0.25, 4), (0.5, 2), (1.0, 1)])
def test_val_check_interval_fraction(fraction, expected):
    runs = []

    class Model(Classifier):
        def on_validation_start(self):
            runs.append(self.trainer.fit_loop.epoch_loop.batch_idx)

    trainer = quiet_trainer(max_epochs=1, limit_train_batches=8, limit_val_batches=2, val_check_interval=fraction,
                            num_sanity_val_steps=0)
    data = DataLoader(make_dataset(80), batch_size=4)
    trainer.fit(Model(), data, data)
    assert len(runs) == expected
    assert runs[-1] == 7


def test_val_check_interval_int_and_check_val_every_n_epoch():
    runs = []

    class Model(Classifier):
        def on_validation_start(self):
            runs.append((self.current_epoch, self.trainer.fit_loop.epoch_loop.batch_idx))

    trainer = quiet_trainer(max_epochs=4, limit_train_batches=4, limit_val_batches=1, check_val_every_n_epoch=2,
                            num_sanity_val_steps=0)
    data = DataLoader(make_dataset(32), batch_size=4)
    trainer.fit(Model(), data, data)
    assert runs == [(1, 3), (3, 3)]
    runs.clear()
    trainer = quiet_trainer(max_epochs=1, limit_train_batches=6, limit_val_batches=1, val_check_interval=3,
                            num_sanity_val_steps=0)
    trainer.fit(Model(), data, data)
    assert runs == [(0, 2), (0, 5)]


def test_limit_train_batches_fraction_and_int():
    trainer = quiet_trainer(max_epochs=1, limit_train_batches=0.5)
    trainer.fit(Classifier(), DataLoader(make_dataset(32), batch_size=4))
    assert trainer.num_training_batches == 4 and trainer.global_step == 4
    trainer = quiet_trainer(max_epochs=1, limit_train_batches=3)
    trainer.fit(Classifier(), DataLoader(make_dataset(32), batch_size=4))
    assert trainer.global_step == 3


def test_max_steps_stops_mid_epoch():
    steps = []

    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            steps.append(batch_idx)
            return super().training_step(batch, batch_idx)

    trainer = quiet_trainer(max_steps=3)
    trainer.fit(Model(), DataLoader(make_dataset(40), batch_size=4))
    assert steps == [0, 1, 2] and trainer.global_step == 3
    assert trainer.max_epochs == -1


def test_min_epochs_overrides_should_stop():
    class Model(Classifier):
        def on_train_epoch_end(self):
            self.trainer.should_stop = True

    trainer = quiet_trainer(max_epochs=10, min_epochs=3)
    trainer.fit(Model(), DataLoader(make_dataset(8), batch_size=4))
    assert trainer.current_epoch == 3


def test_on_train_batch_start_returning_minus_one_ends_the_epoch():
    seen = []

    class Model(Classifier):
        def on_train_batch_start(self, batch, batch_idx):
            seen.append(batch_idx)
            return -1 if batch_idx == 2 else None

    trainer = quiet_trainer(max_epochs=2)
    trainer.fit(Model(), DataLoader(make_dataset(40), batch_size=4))
    assert seen == [0, 1, 2, 0, 1, 2] and trainer.global_step == 4


def test_overfit_batches_uses_the_same_batches_without_shuffle():
    firsts = []

    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            if batch_idx == 0:
                firsts.append(batch[1].numpy().copy())
            return super().training_step(batch, batch_idx)

    trainer = quiet_trainer(max_epochs=3, overfit_batches=2)
    with pytest.warns(UserWarning, match="shuffling"):
        trainer.fit(Model(), DataLoader(make_dataset(40), batch_size=4, shuffle=True))
    assert trainer.global_step == 6
    assert all((f == firsts[0]).all() for f in firsts)


def test_precision_64_trains_in_double():
    dtypes = []

    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            dtypes.append((batch[0].dtype, self.layer.weight.dtype))
            return super().training_step(batch, batch_idx)

    trainer = quiet_trainer(max_epochs=1, limit_train_batches=1, precision="64-true")
    trainer.fit(Model(), DataLoader(make_dataset(8), batch_size=4))
    assert dtypes == [(em.float64, em.float64)]


def test_keyboard_interrupt_ends_gracefully():
    calls = []

    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            if batch_idx == 1:
                raise KeyboardInterrupt
            return super().training_step(batch, batch_idx)

        def on_exception(self, exception):
            calls.append(type(exception).__name__)

        def teardown(self, stage):
            calls.append(f"teardown:{stage}")

    trainer = quiet_trainer(max_epochs=1)
    with pytest.raises(SystemExit) as info:  # Lightning 2.6: after the graceful shutdown the script exits with 1
        trainer.fit(Model(), DataLoader(make_dataset(16), batch_size=4))
    assert info.value.code == 1
    assert trainer.state.status.value == "interrupted" and trainer.interrupted
    assert calls == ["KeyboardInterrupt", "teardown:fit"]


def test_exception_in_step_calls_on_exception_and_reraises():
    class Boom(em.Callback):
        seen = None

        def on_exception(self, trainer, pl_module, exception):
            Boom.seen = exception

    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            raise ValueError("bad batch")

    trainer = quiet_trainer(max_epochs=1, callbacks=[Boom()])
    with pytest.raises(ValueError, match="bad batch"):
        trainer.fit(Model(), DataLoader(make_dataset(8), batch_size=4))
    assert isinstance(Boom.seen, ValueError) and trainer.state.status.value == "interrupted"


def test_datamodule_flow_and_from_datasets():
    order = []

    class DM(em.LightningDataModule):
        def prepare_data(self):
            order.append("prepare_data")

        def setup(self, stage):
            order.append(f"setup:{stage}")
            self.ds = make_dataset(16)

        def train_dataloader(self):
            order.append("train_dataloader")
            return DataLoader(self.ds, batch_size=4)

        def val_dataloader(self):
            order.append("val_dataloader")
            return DataLoader(self.ds, batch_size=4)

        def teardown(self, stage):
            order.append(f"teardown:{stage}")

    trainer = quiet_trainer(max_epochs=1)
    trainer.fit(Classifier(), datamodule=DM())
    assert order == ["prepare_data", "setup:fit", "val_dataloader", "train_dataloader", "teardown:fit"]
    dm = em.LightningDataModule.from_datasets(make_dataset(16), make_dataset(8), batch_size=4)
    trainer = quiet_trainer(max_epochs=1)
    trainer.fit(Classifier(), datamodule=dm)
    assert trainer.global_step == 4 and "val_loss" in trainer.callback_metrics


def test_properties_during_fit():
    seen = {}

    class Model(Classifier):
        def on_train_start(self):
            t = self.trainer
            seen.update(training=t.training, sanity=t.sanity_checking, n_train=t.num_training_batches,
                        n_val=t.num_val_batches, est=t.estimated_stepping_batches, stage=t.state.stage.value,
                        zero=t.is_global_zero, module=t.lightning_module is self)

        def on_validation_start(self):
            seen.setdefault("sanity_seen", self.trainer.sanity_checking)

    data = DataLoader(make_dataset(32), batch_size=8)
    trainer = quiet_trainer(max_epochs=2, accumulate_grad_batches=2)
    trainer.fit(Model(), data, DataLoader(make_dataset(8), batch_size=4))
    assert seen == {"sanity_seen": True, "training": True, "sanity": False, "n_train": 4, "n_val": [2], "est": 4,
                    "stage": "train", "zero": True, "module": True}


def test_reload_dataloaders_every_n_epochs():
    requests = []

    class Model(Classifier):
        def train_dataloader(self):
            requests.append(self.current_epoch)
            return DataLoader(make_dataset(8), batch_size=4)

    quiet_trainer(max_epochs=5, reload_dataloaders_every_n_epochs=2).fit(Model())
    assert requests == [0, 2, 4]


def test_limit_val_batches_zero_disables_validation():
    runs = []

    class Model(Classifier):
        def validation_step(self, batch, batch_idx):
            runs.append(batch_idx)

    data = DataLoader(make_dataset(8), batch_size=4)
    quiet_trainer(max_epochs=2, limit_val_batches=0).fit(Model(), data, data)
    assert runs == []


def test_detect_anomaly_rejects_a_non_finite_loss():
    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            return super().training_step(batch, batch_idx) * float("nan")

    with pytest.raises(RuntimeError, match="not finite"):
        quiet_trainer(max_epochs=1, detect_anomaly=True).fit(Model(), DataLoader(make_dataset(8), batch_size=4))


def test_validation_runs_in_eval_mode_and_without_grad():
    seen = []

    class Model(Classifier):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(0.5)

        def validation_step(self, batch, batch_idx):
            seen.append((self.training, em.is_grad_enabled()))

        def training_step(self, batch, batch_idx):
            seen.append((self.training, em.is_grad_enabled()))
            return super().training_step(batch, batch_idx)

    data = DataLoader(make_dataset(4), batch_size=4)
    quiet_trainer(max_epochs=1, num_sanity_val_steps=0).fit(Model(), data, data)
    assert seen == [(True, True), (False, False)]
