"""Fit trains as Lightning 2.x does: each test pins one behaviour that once differed silently (issue 13)."""
import warnings

import numpy as np
import pytest

import ember as em
from ember.core import nn
from ember.core.data import DataLoader

from trainer_testing import Classifier, make_dataset, quiet_trainer


def _weights(model):
    return {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}


def _assert_same_weights(a, b):
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


# ----------------------------------------------------------------------- 1. validation inside an accumulation window
def _fit_accumulating(**kwargs):
    em.seed_everything(0)
    model = Classifier(lr=0.3)
    trainer = quiet_trainer(max_epochs=1, accumulate_grad_batches=4, val_check_interval=2, limit_train_batches=8,
                            num_sanity_val_steps=0, **kwargs)
    data = DataLoader(make_dataset(64), batch_size=8)
    trainer.fit(model, data, DataLoader(make_dataset(16, seed=1), batch_size=8))
    return _weights(model), trainer


def test_validation_inside_an_accumulation_window_keeps_the_accumulated_gradients():
    validated, trainer = _fit_accumulating()
    assert trainer.global_step == 2
    assert trainer.fit_loop.epoch_loop.val_loop.batch_progress.total.completed > 0  # validation did run
    not_validated, _ = _fit_accumulating(limit_val_batches=0)
    _assert_same_weights(validated, not_validated)


# --------------------------------------------------------------------------- 2. submodules frozen in eval mode
class FrozenBackbone(Classifier):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
        self.backbone.eval()
        self.seen = []

    def forward(self, x):
        return self.layer(self.backbone(x))

    def training_step(self, batch, batch_idx):
        self.seen.append((self.training, self.backbone.training, self.backbone[1].training))
        return super().training_step(batch, batch_idx)

    def predict_step(self, batch, batch_idx):
        return self(batch[0])


def test_submodules_in_eval_mode_stay_in_eval_mode_across_validation(loader):
    model = FrozenBackbone()
    trainer = quiet_trainer(max_epochs=2, val_check_interval=2, limit_train_batches=4)
    with pytest.warns(UserWarning, match=r"Found 3 module\(s\) in eval mode at the start of training"):
        trainer.fit(model, loader(32), loader(16))
    assert model.seen == [(True, False, False)] * 8
    assert model.training and not model.backbone.training and not model.backbone[1].training


def test_no_eval_mode_warning_when_every_module_trains(loader):
    trainer = quiet_trainer(max_epochs=1)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*in eval mode at the start of training")
        trainer.fit(Classifier(), loader(16))


def test_test_and_predict_restore_each_submodule_mode(loader):
    model = FrozenBackbone()
    quiet_trainer().test(model, loader(16))
    assert model.training and not model.backbone.training
    quiet_trainer().predict(model, loader(16))
    assert model.training and not model.backbone.training
