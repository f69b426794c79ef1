"""Optimizer configuration, manual optimization, the Lightning 1.x flow, schedulers, return values and bad input."""
import os

import numpy as np
import pytest

import ember as em
from ember.core import nn
from ember.core.data import DataLoader
from ember.trainer import MisconfigurationException

from trainer_testing import Classifier, make_dataset, quiet_trainer


def _data(n=16, batch_size=4):
    return DataLoader(make_dataset(n), batch_size=batch_size)


class GAN(em.LightningModule):
    """The seed document's manual-optimization pattern with three optimizers."""

    def __init__(self):
        super().__init__()
        self.automatic_optimization = False
        self.generator = nn.Linear(4, 1)
        self.discriminator = nn.Linear(4, 1)
        self.critic = nn.Linear(4, 1)
        self.losses = []

    def training_step(self, batch, batch_idx, opt_idx):
        (opt_a, opt_b, opt_c) = self.optimizers()
        loss_a = self.generator(batch[0]).pow(2).mean()
        self.manual_backward(loss_a, opt_a, retain_graph=True)
        self.manual_backward(loss_a, opt_a)
        opt_a.step()
        opt_a.zero_grad()
        loss_b = self.discriminator(batch[0]).pow(2).mean()
        self.manual_backward(loss_b, opt_b)
        opt_b.step()
        opt_b.zero_grad()
        loss_c = self.critic(batch[0]).pow(2).mean()
        self.manual_backward(loss_c)
        opt_c.step()
        opt_c.zero_grad()
        self.losses.append((loss_a.item(), loss_b.item(), loss_c.item()))

    def configure_optimizers(self):
        return [em.optim.SGD(m.parameters(), lr=0.1) for m in (self.generator, self.discriminator, self.critic)]


def test_seed_gan_pattern_trains_three_optimizers():
    model = GAN()
    trainer = quiet_trainer(max_epochs=3)
    trainer.fit(model, _data())
    first, last = np.array(model.losses[0]), np.array(model.losses[-1])
    assert (last < first).all()
    assert trainer.global_step == 3 * 4 * 3  # every optimizer.step counts


def test_trainer_flag_switches_to_manual_optimization():
    steps = []

    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            opt = self.optimizers()
            loss = super().training_step(batch, batch_idx)
            opt.zero_grad()
            self.manual_backward(loss)
            opt.step()
            steps.append(batch_idx)

    trainer = quiet_trainer(max_epochs=1, automatic_optimization=False)
    model = Model()
    trainer.fit(model, _data())
    assert not model.automatic_optimization and steps == [0, 1, 2, 3] and trainer.global_step == 4


def test_lightning_1x_epoch_end_hooks_receive_step_outputs():
    seen = {}

    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            return {"loss": super().training_step(batch, batch_idx), "idx": batch_idx}

        def training_step_end(self, out):
            out["ended"] = True
            return out

        def training_epoch_end(self, outputs):
            seen["train"] = [(o["idx"], o["ended"], o["loss"].requires_grad) for o in outputs]

        def validation_step(self, batch, batch_idx):
            return batch_idx * 10

        def validation_epoch_end(self, outputs):
            seen.setdefault("val", []).append(list(outputs))

    trainer = quiet_trainer(max_epochs=1, num_sanity_val_steps=0)
    trainer.fit(Model(), _data(), _data(8))
    assert seen == {"train": [(0, True, False), (1, True, False), (2, True, False), (3, True, False)],
                    "val": [[0, 10]]}


def test_lightning_1x_multiple_optimizers_with_optimizer_idx():
    calls = []

    class Model(Classifier):
        def __init__(self):
            super().__init__()
            self.other = nn.Linear(4, 2)

        def training_step(self, batch, batch_idx, optimizer_idx):
            calls.append(optimizer_idx)
            x, y = batch
            layer = self.layer if optimizer_idx == 0 else self.other
            return nn.functional.cross_entropy(layer(x), y)

        def configure_optimizers(self):
            return [em.optim.SGD(self.layer.parameters(), lr=0.1), em.optim.SGD(self.other.parameters(), lr=0.1)]

    trainer = quiet_trainer(max_epochs=1)
    trainer.fit(Model(), _data(8))
    assert calls == [0, 1, 0, 1] and trainer.global_step == 4


def test_multiple_optimizers_without_optimizer_idx_raise():
    class Model(Classifier):
        def configure_optimizers(self):
            return [em.optim.SGD(self.parameters(), lr=0.1), em.optim.SGD(self.parameters(), lr=0.1)]

    with pytest.raises(MisconfigurationException, match="automatic_optimization = False"):
        quiet_trainer(max_epochs=1).fit(Model(), _data())


def _forms(model):
    opt = em.optim.SGD(model.parameters(), lr=0.1)
    opt2 = em.optim.SGD(model.parameters(), lr=0.2)
    sched = em.optim.lr_scheduler.StepLR(opt, step_size=1)
    return {
        "single": (opt, 1, 0),
        "list": ([opt], 1, 0),
        "tuple_of_lists": ([opt], [sched], 1, 1),
        "dict": ({"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}, 1, 1),
        "list_of_dicts": ([{"optimizer": opt}, {"optimizer": opt2, "lr_scheduler": sched}], 2, 1),
    }


@pytest.mark.parametrize("form", ["single", "list", "tuple_of_lists", "dict", "list_of_dicts"])
def test_configure_optimizers_forms(form):
    from ember.trainer.optimizer import configure_optimizers
    model = Classifier()
    entry = _forms(model)[form]
    if form == "tuple_of_lists":
        output, n_opt, n_sched = (entry[0], entry[1]), entry[2], entry[3]
    else:
        output, n_opt, n_sched = entry
    opts, configs = configure_optimizers(output)
    assert len(opts) == n_opt and len(configs) == n_sched
    if form == "dict":
        assert configs[0].interval == "step"


def test_configure_optimizers_none_warns_and_unknown_raises():
    from ember.trainer.optimizer import configure_optimizers
    with pytest.warns(UserWarning, match="returned `None`"):
        assert configure_optimizers(None) == ([], [])
    with pytest.raises(MisconfigurationException, match="Unknown configuration"):
        configure_optimizers("adam")
    opt = em.optim.SGD(Classifier().parameters(), lr=0.1)
    with pytest.raises(MisconfigurationException, match='"interval"'):
        configure_optimizers({"optimizer": opt, "lr_scheduler": {"scheduler": em.optim.lr_scheduler.StepLR(opt, 1),
                                                                  "interval": "batch"}})


def test_step_interval_scheduler_with_frequency():
    class Model(Classifier):
        def configure_optimizers(self):
            opt = em.optim.SGD(self.parameters(), lr=1.0)
            sched = em.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
            return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step", "frequency": 2}}

    model = Model()
    trainer = quiet_trainer(max_epochs=1)
    trainer.fit(model, _data(24))  # 6 steps -> the scheduler steps 3 times
    assert trainer.optimizers[0].param_groups[0]["lr"] == pytest.approx(0.125)


def test_epoch_interval_scheduler_steps_once_per_epoch():
    class Model(Classifier):
        def configure_optimizers(self):
            opt = em.optim.SGD(self.parameters(), lr=1.0)
            return [opt], [em.optim.lr_scheduler.ExponentialLR(opt, gamma=0.1)]

    trainer = quiet_trainer(max_epochs=3)
    trainer.fit(Model(), _data())
    assert trainer.optimizers[0].param_groups[0]["lr"] == pytest.approx(1e-3)


def test_reduce_lr_on_plateau_monitored_on_val_loss():
    lrs = []

    class Model(Classifier):
        def validation_step(self, batch, batch_idx):
            self.log("val_loss", 1.0)  # a plateau from the start

        def configure_optimizers(self):
            opt = em.optim.SGD(self.parameters(), lr=1.0)
            sched = em.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=2, factor=0.5)
            return {"optimizer": opt, "lr_scheduler": sched, "monitor": "val_loss"}

        def on_train_epoch_start(self):
            lrs.append(self.trainer.optimizers[0].param_groups[0]["lr"])

    trainer = quiet_trainer(max_epochs=6, num_sanity_val_steps=0)
    trainer.fit(Model(), _data(8), _data(8))
    # epoch 0 sets the best; epochs 1, 2 are bad (patience 2); epoch 3 is the third bad one -> reduce
    assert lrs == [1.0, 1.0, 1.0, 1.0, 0.5, 0.5]


def test_plateau_monitor_missing_lists_available_keys():
    class Model(Classifier):
        def configure_optimizers(self):
            opt = em.optim.SGD(self.parameters(), lr=1.0)
            return {"optimizer": opt, "lr_scheduler": em.optim.lr_scheduler.ReduceLROnPlateau(opt),
                    "monitor": "val_acc"}

    with pytest.raises(MisconfigurationException, match=r"val_acc.*Available metrics are: \['train_loss'"):
        quiet_trainer(max_epochs=1).fit(Model(), _data())


def test_validate_test_and_predict_return_lightning_structures():
    model = Classifier()
    trainer = quiet_trainer()
    val = trainer.validate(model, _data(), verbose=False)
    test = trainer.test(model, _data(), verbose=False)
    assert list(val[0]) == ["val_loss"] and isinstance(val[0]["val_loss"], float)
    assert list(test[0]) == ["test_loss"]
    preds = trainer.predict(model, DataLoader(make_dataset(10).tensors[0], batch_size=4))
    assert [p.shape for p in preds] == [(4, 2), (4, 2), (2, 2)]
    two = trainer.predict(model, [DataLoader(make_dataset(4).tensors[0], batch_size=4)] * 2)
    assert len(two) == 2 and len(two[0]) == 1


def test_predict_step_cannot_log():
    class Model(Classifier):
        def predict_step(self, batch, batch_idx, dataloader_idx=0):
            self.log("x", 1.0)

    with pytest.raises(MisconfigurationException, match="inside `predict_step`"):
        quiet_trainer().predict(Model(), DataLoader(make_dataset(4).tensors[0], batch_size=4))


def test_save_hyperparameters_variants():
    class Model(em.LightningModule):
        def __init__(self, a, b=2, *, c="x", module=None):
            super().__init__()
            self.save_hyperparameters(ignore=["module"])

    class Named(em.LightningModule):
        def __init__(self, a, b=2):
            super().__init__()
            self.save_hyperparameters("a")

    class Child(Classifier):
        def __init__(self, extra=7):
            super().__init__(lr=0.2)

    assert dict(Child().hparams) == {"lr": 0.2, "features": 4, "extra": 7}
    assert dict(Model(1, c="y").hparams) == {"a": 1, "b": 2, "c": "y"}
    assert Model(1).hparams.b == 2
    assert dict(Named(5).hparams) == {"a": 5}


def test_bad_input_errors_name_the_hook_or_flag():
    class NoStep(em.LightningModule):
        def configure_optimizers(self):
            return None

    with pytest.raises(MisconfigurationException, match="training_step"):
        quiet_trainer(max_epochs=1).fit(NoStep(), _data())

    class NoOpt(em.LightningModule):
        def __init__(self):
            super().__init__()
            self.layer = nn.Linear(4, 2)

        def training_step(self, batch, batch_idx):
            return self.layer(batch[0]).sum()

    with pytest.raises(MisconfigurationException, match="configure_optimizers"):
        quiet_trainer(max_epochs=1).fit(NoOpt(), _data())

    class NonScalar(Classifier):
        def training_step(self, batch, batch_idx):
            return self(batch[0])

    with pytest.raises(MisconfigurationException, match=r"non-scalar loss of shape \[4, 2\]"):
        quiet_trainer(max_epochs=1).fit(NonScalar(), _data())
    with pytest.raises(MisconfigurationException, match="max_epochs.*min_epochs"):
        em.Trainer(max_epochs=1, min_epochs=3)
    with pytest.raises(MisconfigurationException, match="devices=1000"):
        em.Trainer(devices=1000)
    with pytest.raises(MisconfigurationException, match="gradient_clip_algorithm"):
        em.Trainer(gradient_clip_algorithm="l2")
    with pytest.raises(MisconfigurationException, match="accelerator='gpu'"):
        em.Trainer(accelerator="gpu")
    with pytest.raises(MisconfigurationException, match="Automatic gradient clipping is not supported"):
        quiet_trainer(max_epochs=1, gradient_clip_val=1.0).fit(GAN(), _data())
    with pytest.raises(MisconfigurationException, match="limit_val_batches"):
        em.Trainer(limit_val_batches=1.5)
    with pytest.raises(TypeError, match="requires a `LightningModule`"):
        quiet_trainer().fit(nn.Linear(2, 2), _data())


def test_manual_backward_in_automatic_mode_raises():
    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            loss = super().training_step(batch, batch_idx)
            self.manual_backward(loss)
            return loss

    with pytest.raises(MisconfigurationException, match="manual_backward"):
        quiet_trainer(max_epochs=1).fit(Model(), _data())


def test_print_only_on_rank_zero(capsys):
    model = Classifier()
    model.print("hello")
    assert capsys.readouterr().out == "hello\n"


def test_toggle_optimizer_freezes_other_parameters():
    class Model(GAN):
        def training_step(self, batch, batch_idx, opt_idx):
            opt_a, opt_b, _ = self.optimizers()
            self.toggle_optimizer(opt_a)
            flags = [p.requires_grad for p in self.discriminator.parameters()]
            self.untoggle_optimizer(opt_a)
            self.flags = (flags, [p.requires_grad for p in self.discriminator.parameters()])

    model = Model()
    quiet_trainer(max_epochs=1, limit_train_batches=1).fit(model, _data())
    assert model.flags == ([False, False], [True, True])


def test_no_files_without_logger_or_checkpointing(tmp_path):
    quiet_trainer(max_epochs=1, default_root_dir=tmp_path).fit(Classifier(), _data())
    assert os.listdir(tmp_path) == []
