"""The whole sequence of hook calls of fit, validate, test and predict, asserted exactly (Lightning's order)."""
import numpy as np
import pytest

import ember as em
from ember.core import nn
from ember.core.data import DataLoader, TensorDataset

MODULE_HOOKS = [
    "configure_callbacks", "prepare_data", "setup", "configure_model", "configure_optimizers", "on_fit_start",
    "on_fit_end", "on_train_start", "on_train_end", "on_train_epoch_start", "on_train_epoch_end",
    "on_train_batch_start", "on_train_batch_end", "on_validation_start", "on_validation_end",
    "on_validation_epoch_start", "on_validation_epoch_end", "on_validation_batch_start", "on_validation_batch_end",
    "on_test_start", "on_test_end", "on_test_epoch_start", "on_test_epoch_end", "on_test_batch_start",
    "on_test_batch_end", "on_predict_start", "on_predict_end", "on_predict_epoch_start", "on_predict_epoch_end",
    "on_predict_batch_start", "on_predict_batch_end", "on_before_zero_grad", "optimizer_zero_grad",
    "on_before_backward", "backward", "on_after_backward", "on_before_optimizer_step",
    "configure_gradient_clipping", "on_before_batch_transfer", "transfer_batch_to_device",
    "on_after_batch_transfer", "on_validation_model_zero_grad", "on_validation_model_eval",
    "on_validation_model_train", "on_test_model_eval", "on_test_model_train", "on_predict_model_eval",
    "teardown", "train_dataloader", "val_dataloader", "test_dataloader", "predict_dataloader",
    "training_step", "validation_step", "test_step", "predict_step",
]
CALLBACK_HOOKS = [
    "setup", "teardown", "on_fit_start", "on_fit_end", "on_sanity_check_start", "on_sanity_check_end",
    "on_train_start", "on_train_end", "on_train_epoch_start", "on_train_epoch_end", "on_train_batch_start",
    "on_train_batch_end", "on_validation_start", "on_validation_end", "on_validation_epoch_start",
    "on_validation_epoch_end", "on_validation_batch_start", "on_validation_batch_end", "on_test_start",
    "on_test_end", "on_test_epoch_start", "on_test_epoch_end", "on_test_batch_start", "on_test_batch_end",
    "on_predict_start", "on_predict_end", "on_predict_epoch_start", "on_predict_epoch_end",
    "on_predict_batch_start", "on_predict_batch_end", "on_before_zero_grad", "on_before_backward",
    "on_after_backward", "on_before_optimizer_step", "on_exception",
]


def _recorder(cls, names, calls, prefix):
    """Subclass ``cls`` so that each hook in ``names`` appends ``prefix + name`` to ``calls`` and runs the base."""
    def make(name):
        def hook(self, *args, **kwargs):
            calls.append(prefix + name)
            return getattr(super(sub, self), name)(*args, **kwargs)
        return hook
    sub = type("Recording" + cls.__name__, (cls,), {n: make(n) for n in names})
    return sub


def _data(n=8):
    rng = np.random.default_rng(0)
    return TensorDataset(em.tensor(rng.standard_normal((n, 3)).astype(np.float32)),
                         em.tensor(rng.integers(0, 2, n)))


class BoringModel(em.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(3, 2)

    def forward(self, x):
        return self.layer(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return nn.functional.cross_entropy(self(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", nn.functional.cross_entropy(self(x), y))

    def test_step(self, batch, batch_idx):
        x, y = batch
        self.log("test_loss", nn.functional.cross_entropy(self(x), y))

    def predict_step(self, batch, batch_idx, dataloader_idx=0):
        return self(batch[0])

    def configure_optimizers(self):
        return em.optim.SGD(self.parameters(), lr=0.1)

    def train_dataloader(self):
        return DataLoader(_data(), batch_size=4)

    def val_dataloader(self):
        return DataLoader(_data(), batch_size=4)

    def test_dataloader(self):
        return DataLoader(_data(), batch_size=4)

    def predict_dataloader(self):
        return DataLoader(_data(), batch_size=4)


class ManualModel(BoringModel):
    def __init__(self):
        super().__init__()
        self.automatic_optimization = False

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        x, y = batch
        loss = nn.functional.cross_entropy(self(x), y)
        opt.zero_grad()
        self.manual_backward(loss)
        opt.step()
        return loss


def _run(model_cls, method, **trainer_kwargs):
    calls = []
    model = _recorder(model_cls, MODULE_HOOKS, calls, "")()
    callback = _recorder(em.Callback, CALLBACK_HOOKS, calls, "Callback.")()
    trainer = em.Trainer(max_epochs=1, limit_train_batches=2, limit_val_batches=2, limit_test_batches=2,
                         limit_predict_batches=2, callbacks=[callback], logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False, **trainer_kwargs)
    getattr(trainer, method)(model)
    return calls


def _batch_transfer():
    return ["on_before_batch_transfer", "transfer_batch_to_device", "on_after_batch_transfer"]


def _val_epoch(zero_grad):
    seq = (["on_validation_model_zero_grad"] if zero_grad else []) + [
        "on_validation_model_eval", "Callback.on_validation_start", "on_validation_start",
        "Callback.on_validation_epoch_start", "on_validation_epoch_start"]
    for _ in range(2):
        seq += _batch_transfer() + ["Callback.on_validation_batch_start", "on_validation_batch_start",
                                    "validation_step", "Callback.on_validation_batch_end",
                                    "on_validation_batch_end"]
    seq += ["Callback.on_validation_epoch_end", "on_validation_epoch_end", "Callback.on_validation_end",
            "on_validation_end", "on_validation_model_train"]
    return seq


def _setup(stage, optimizers=True):
    return ["configure_callbacks", "prepare_data", "Callback.setup", "setup", "configure_model"] + \
        (["configure_optimizers"] if optimizers else [])


def test_fit_hook_order_automatic_optimization():
    calls = _run(BoringModel, "fit")
    expected = _setup("fit") + ["Callback.on_fit_start", "on_fit_start", "Callback.on_sanity_check_start",
                                "val_dataloader"]
    expected += _val_epoch(zero_grad=True)[1:]  # no zero_grad during the sanity check
    expected += ["Callback.on_sanity_check_end", "train_dataloader", "Callback.on_train_start", "on_train_start",
                 "Callback.on_train_epoch_start", "on_train_epoch_start"]
    for _ in range(2):
        expected += _batch_transfer() + [
            "Callback.on_train_batch_start", "on_train_batch_start", "training_step",
            "Callback.on_before_zero_grad", "on_before_zero_grad", "optimizer_zero_grad",
            "Callback.on_before_backward", "on_before_backward", "backward", "Callback.on_after_backward",
            "on_after_backward", "Callback.on_before_optimizer_step", "on_before_optimizer_step",
            "configure_gradient_clipping", "Callback.on_train_batch_end", "on_train_batch_end"]
    expected += _val_epoch(zero_grad=True)
    expected += ["Callback.on_train_epoch_end", "on_train_epoch_end", "Callback.on_train_end", "on_train_end",
                 "Callback.on_fit_end", "on_fit_end", "Callback.teardown", "teardown"]
    assert calls == expected


def test_fit_hook_order_manual_optimization():
    calls = _run(ManualModel, "fit", num_sanity_val_steps=0)
    # no sanity check: Lightning's fit loop requests the val loaders before on_train_start (FitLoop.on_run_start)
    expected = _setup("fit") + ["Callback.on_fit_start", "on_fit_start", "train_dataloader", "val_dataloader",
                                "Callback.on_train_start", "on_train_start", "Callback.on_train_epoch_start",
                                "on_train_epoch_start"]
    for i in range(2):
        expected += _batch_transfer() + ["Callback.on_train_batch_start", "on_train_batch_start", "training_step",
                                         "Callback.on_before_backward", "on_before_backward", "backward",
                                         "Callback.on_after_backward", "on_after_backward",
                                         "Callback.on_before_optimizer_step", "on_before_optimizer_step",
                                         "Callback.on_train_batch_end", "on_train_batch_end"]
    expected += _val_epoch(zero_grad=True)
    expected += ["Callback.on_train_epoch_end", "on_train_epoch_end", "Callback.on_train_end", "on_train_end",
                 "Callback.on_fit_end", "on_fit_end", "Callback.teardown", "teardown"]
    assert calls == expected
    assert "on_before_zero_grad" not in calls and "optimizer_zero_grad" not in calls
    assert "configure_gradient_clipping" not in calls


@pytest.mark.parametrize("stage", ["validate", "test"])
def test_eval_hook_order(stage):
    calls = _run(BoringModel, stage)
    name = "validation" if stage == "validate" else "test"
    loader = "val_dataloader" if stage == "validate" else "test_dataloader"
    expected = _setup(stage, optimizers=False) + [loader, f"on_{name}_model_eval", f"Callback.on_{name}_start",
                                                  f"on_{name}_start", f"Callback.on_{name}_epoch_start",
                                                  f"on_{name}_epoch_start"]
    for _ in range(2):
        expected += _batch_transfer() + [f"Callback.on_{name}_batch_start", f"on_{name}_batch_start",
                                         f"{name}_step", f"Callback.on_{name}_batch_end", f"on_{name}_batch_end"]
    expected += [f"Callback.on_{name}_epoch_end", f"on_{name}_epoch_end", f"Callback.on_{name}_end",
                 f"on_{name}_end", f"on_{name}_model_train", "Callback.teardown", "teardown"]
    assert calls == expected


def test_predict_hook_order():
    calls = _run(BoringModel, "predict")
    expected = _setup("predict", optimizers=False) + [
        "predict_dataloader", "on_predict_model_eval", "Callback.on_predict_start", "on_predict_start",
        "Callback.on_predict_epoch_start", "on_predict_epoch_start"]
    for _ in range(2):
        expected += _batch_transfer() + ["Callback.on_predict_batch_start", "on_predict_batch_start",
                                         "predict_step", "Callback.on_predict_batch_end", "on_predict_batch_end"]
    expected += ["Callback.on_predict_epoch_end", "on_predict_epoch_end", "Callback.on_predict_end",
                 "on_predict_end", "Callback.teardown", "teardown"]
    assert calls == expected


def test_monitoring_callbacks_run_after_the_module_at_epoch_end():
    calls = []

    class Monitor(em.Callback):
        _monitors_metrics = True

        def on_train_epoch_end(self, trainer, pl_module):
            calls.append("monitor")

    class Plain(em.Callback):
        def on_train_epoch_end(self, trainer, pl_module):
            calls.append("plain")

    class Model(BoringModel):
        def on_train_epoch_end(self):
            calls.append("module")

    trainer = em.Trainer(max_epochs=1, limit_train_batches=1, limit_val_batches=0, callbacks=[Monitor(), Plain()],
                         logger=False, enable_checkpointing=False, enable_progress_bar=False,
                         enable_model_summary=False)
    trainer.fit(Model())
    assert calls == ["plain", "module", "monitor"]
