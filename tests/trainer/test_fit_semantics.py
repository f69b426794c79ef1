"""Fit trains as Lightning 2.x does: each test pins one behaviour that once differed silently (issue 13)."""
import warnings

import numpy as np
import pytest

import ember as em
from ember.core import nn
from ember.core.data import DataLoader

from trainer_testing import Classifier, RecordingLogger, make_dataset, quiet_trainer


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


# ------------------------------------------------------------------------------------ 3. unsized (streaming) loaders
class Stream(em.data.IterableDataset):
    """A stream of ``n`` samples without ``__len__``."""

    def __init__(self, n):
        self.data = make_dataset(n)

    def __iter__(self):
        return (self.data[i] for i in range(len(self.data)))


class NoLength:
    """A loader whose ``__len__`` raises, as some streaming wrappers do."""

    def __init__(self, loader, error):
        self.loader, self.error = loader, error

    def __iter__(self):
        return iter(self.loader)

    def __len__(self):
        raise self.error("length unknown")


class ValidationRecorder(em.Callback):
    def __init__(self):
        self.at = []

    def on_validation_start(self, trainer, pl_module):
        if not trainer.sanity_checking:
            self.at.append((trainer.current_epoch, trainer.fit_loop.epoch_loop.batch_idx))


@pytest.mark.parametrize("make_loader", [
    lambda: DataLoader(Stream(56), batch_size=8),
    lambda: NoLength(DataLoader(make_dataset(56), batch_size=8), NotImplementedError),
    lambda: NoLength(DataLoader(make_dataset(56), batch_size=8), TypeError),
], ids=["iterable-dataset", "len-raises-NotImplementedError", "len-raises-TypeError"])
def test_unsized_train_loader_validates_every_int_interval(loader, make_loader):
    recorder = ValidationRecorder()
    trainer = quiet_trainer(max_epochs=2, val_check_interval=3, callbacks=[recorder])
    trainer.fit(Classifier(), make_loader(), loader(16))
    assert trainer.num_training_batches == float("inf")
    assert trainer.global_step == 14  # 7 batches per epoch
    # Lightning: an int interval counts batches; the epoch end of a stream is not an extra validation point
    assert recorder.at == [(0, 2), (0, 5), (1, 2), (1, 5)]


def test_unsized_train_loader_with_default_interval_validates_at_epoch_end(loader):
    recorder = ValidationRecorder()
    trainer = quiet_trainer(max_epochs=2, callbacks=[recorder])
    trainer.fit(Classifier(), DataLoader(Stream(24), batch_size=8), loader(16))
    assert recorder.at == [(0, 2), (1, 2)]


def test_unsized_loader_rejects_fractional_intervals(loader):
    trainer = quiet_trainer(max_epochs=1, val_check_interval=0.5)
    with pytest.raises(em.trainer.exceptions.MisconfigurationException,
                       match=r"`Trainer\(val_check_interval\)` must be `1.0` or an int"):
        trainer.fit(Classifier(), DataLoader(Stream(24), batch_size=8), loader(16))
    trainer = quiet_trainer(max_epochs=1, limit_train_batches=0.5)
    with pytest.raises(em.trainer.exceptions.MisconfigurationException,
                       match=r"`Trainer\(limit_train_batches\)` must be `1.0` or an int"):
        trainer.fit(Classifier(), DataLoader(Stream(24), batch_size=8), loader(16))


def test_unsized_loader_that_is_empty_ends_the_epoch_without_error(loader):
    recorder = ValidationRecorder()
    trainer = quiet_trainer(max_epochs=2, callbacks=[recorder])
    trainer.fit(Classifier(), DataLoader(Stream(0), batch_size=8), loader(16))
    assert trainer.current_epoch == 2 and trainer.global_step == 0
    assert recorder.at == []  # nothing was trained, so nothing is validated


def test_sized_loader_that_is_empty_stops_fit(loader):
    trainer = quiet_trainer(max_epochs=2)
    trainer.fit(Classifier(), loader(0), loader(16))
    assert trainer.current_epoch == 0 and trainer.global_step == 0


def test_integral_float_limits_above_one_are_batch_counts(loader):
    trainer = quiet_trainer(max_epochs=1, limit_train_batches=3.0, limit_val_batches=1.0)
    assert trainer.limit_train_batches == 3 and isinstance(trainer.limit_train_batches, int)
    trainer.fit(Classifier(), loader(64))
    assert trainer.global_step == 3
    with pytest.raises(em.trainer.exceptions.MisconfigurationException,
                       match=r"You have passed invalid value 1.5 for limit_train_batches, it has to be in "
                             r"\[0.0, 1.0\] or an int"):
        quiet_trainer(limit_train_batches=1.5)


# ------------------------------------------------------------------------------------------- 5. scheduler stepping
class SchedulerModel(Classifier):
    """Records every ``lr_scheduler_step`` as (epoch, batch_idx, metric given)."""

    def __init__(self, scheduler_config, stop_at=None):
        super().__init__()
        self.scheduler_config = scheduler_config
        self.stop_at = stop_at
        self.steps = []

    def configure_optimizers(self):
        opt = em.optim.SGD(self.parameters(), lr=0.1)
        return {"optimizer": opt, "lr_scheduler": self.scheduler_config(opt)}

    def on_train_batch_start(self, batch, batch_idx):
        if self.stop_at is not None and batch_idx == self.stop_at:
            return -1

    def lr_scheduler_step(self, scheduler, metric):
        fit_loop = self.trainer.fit_loop
        self.steps.append((fit_loop.epoch_progress.current.processed, fit_loop.epoch_loop.batch_idx, metric is not None))
        super().lr_scheduler_step(scheduler, metric)


def test_plateau_scheduler_with_step_interval_steps_every_frequency_steps(loader):
    model = SchedulerModel(lambda opt: {"scheduler": em.optim.lr_scheduler.ReduceLROnPlateau(opt),
                                        "interval": "step", "frequency": 2, "monitor": "train_loss"})
    quiet_trainer(max_epochs=1, limit_val_batches=0).fit(model, loader(48))
    assert model.steps == [(0, 1, True), (0, 3, True), (0, 5, True)]  # no epoch processed yet, batch idx


def test_plateau_scheduler_with_epoch_frequency_counts_epochs_from_one(loader):
    model = SchedulerModel(lambda opt: {"scheduler": em.optim.lr_scheduler.ReduceLROnPlateau(opt),
                                        "frequency": 2, "monitor": "train_loss"})
    quiet_trainer(max_epochs=4, limit_val_batches=0).fit(model, loader(16))
    assert [epochs for epochs, _, _ in model.steps] == [2, 4]  # after the 2nd and the 4th epoch


def test_epoch_schedulers_step_when_on_train_batch_start_ends_the_epoch(loader):
    model = SchedulerModel(lambda opt: em.optim.lr_scheduler.StepLR(opt, step_size=1), stop_at=2)
    trainer = quiet_trainer(max_epochs=2, limit_val_batches=0)
    trainer.fit(model, loader(48))
    assert trainer.global_step == 4
    assert [(epochs, metric) for epochs, _, metric in model.steps] == [(1, False), (2, False)]
    assert trainer.optimizers[0].param_groups[0]["lr"] == pytest.approx(0.1 * 0.1 ** 2)


class ManualSchedulerModel(SchedulerModel):
    def __init__(self, scheduler_config):
        super().__init__(scheduler_config)
        self.automatic_optimization = False

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        loss = super().training_step(batch, batch_idx)
        opt.zero_grad()
        self.manual_backward(loss)
        opt.step()


def test_manual_optimization_never_steps_schedulers_and_needs_no_monitor(loader):
    model = ManualSchedulerModel(lambda opt: em.optim.lr_scheduler.ReduceLROnPlateau(opt))
    trainer = quiet_trainer(max_epochs=2, limit_val_batches=0)
    trainer.fit(model, loader(16))
    assert model.steps == [] and trainer.global_step == 4
    model = ManualSchedulerModel(lambda opt: {"scheduler": em.optim.lr_scheduler.StepLR(opt, 1), "monitor": "x",
                                              "strict": False, "interval": "step"})
    with pytest.warns(RuntimeWarning, match=r"The lr scheduler dict contains the key\(s\) \['monitor', 'strict'\], "
                                            r"but the keys will be ignored"):
        quiet_trainer(max_epochs=1, limit_val_batches=0).fit(model, loader(16))
    assert model.steps == [] and model.trainer.lr_scheduler_configs[0].interval == "step"


class NoState:
    def __init__(self, optimizer):
        self.optimizer = optimizer

    def step(self):
        pass


class CustomScheduler(NoState):
    def state_dict(self):
        return {}

    def load_state_dict(self, state):
        pass


def test_invalid_schedulers_are_rejected_with_lightnings_errors(loader):
    with pytest.raises(TypeError, match=r"The provided lr scheduler `NoState` is invalid. It should have `state_dict` "
                                        r"and `load_state_dict` methods defined."):
        quiet_trainer(max_epochs=1).fit(SchedulerModel(NoState), loader(16))
    with pytest.raises(em.trainer.exceptions.MisconfigurationException,
                       match=r"`CustomScheduler` doesn't follow PyTorch's LRScheduler API. You should override the "
                             r"`LightningModule.lr_scheduler_step` hook"):
        quiet_trainer(max_epochs=1).fit(Classifier_with(CustomScheduler), loader(16))
    model = SchedulerModel(CustomScheduler)  # overrides lr_scheduler_step: accepted
    quiet_trainer(max_epochs=1, limit_val_batches=0).fit(model, loader(16))
    assert model.steps == [(0, 1, False)]  # the epoch scheduler steps on the epoch's last batch


def Classifier_with(scheduler_cls):
    class WithScheduler(Classifier):
        def configure_optimizers(self):
            opt = em.optim.SGD(self.parameters(), lr=0.1)
            return [opt], [scheduler_cls(opt)]
    return WithScheduler()


# ------------------------------------------------------------------------------------------- 6. several train loaders
class MultiLoaderModel(Classifier):
    """Trains on the sum of the losses of every loader's batch; records the batch structures it saw."""

    def __init__(self):
        super().__init__()
        self.seen = []
        self.val_seen = []

    def training_step(self, batch, batch_idx):
        leaves = list(_leaves(batch))
        self.seen.append((batch_idx, _shape_of(batch)))
        return sum(nn.functional.cross_entropy(self(x), y) for x, y in leaves)

    def validation_step(self, batch, batch_idx, dataloader_idx=0):
        self.val_seen.append((dataloader_idx, batch_idx))

    def on_validation_batch_end(self, outputs, batch, batch_idx, dataloader_idx=0):
        self.val_seen.append(("end", dataloader_idx, batch_idx))


def _is_pair(batch):
    return isinstance(batch, (list, tuple)) and all(isinstance(t, em.Tensor) for t in batch)


def _leaves(batch):
    if _is_pair(batch):
        yield batch
    elif isinstance(batch, dict):
        for v in batch.values():
            yield from _leaves(v)
    elif isinstance(batch, list):
        for v in batch:
            yield from _leaves(v)
    else:
        yield batch


def _shape_of(batch):
    if _is_pair(batch):
        return batch[0].shape[0]  # the batch size identifies the loader
    if isinstance(batch, dict):
        return {k: _shape_of(v) for k, v in batch.items()}
    return [_shape_of(v) for v in batch]


def test_a_list_of_train_loaders_gives_list_batches_in_max_size_cycle_mode():
    model = MultiLoaderModel()
    trainer = quiet_trainer(max_epochs=1, limit_val_batches=0)
    trainer.fit(model, [DataLoader(make_dataset(16), batch_size=4), DataLoader(make_dataset(6), batch_size=3)])
    assert trainer.num_training_batches == 4 and trainer.global_step == 4
    assert model.seen == [(i, [4, 3]) for i in range(4)]  # the 2-batch loader starts over


def test_a_nested_dict_of_train_loaders_gives_batches_of_the_same_structure():
    model = MultiLoaderModel()
    loaders = {"a": DataLoader(make_dataset(8), batch_size=4),
               "b": [DataLoader(make_dataset(6), batch_size=2), DataLoader(make_dataset(2), batch_size=1)]}
    trainer = quiet_trainer(max_epochs=1, limit_val_batches=0)
    trainer.fit(model, loaders)
    assert model.seen == [(i, {"a": 4, "b": [2, 1]}) for i in range(3)]
    assert trainer.train_dataloader is loaders


def test_combined_loader_modes_in_fit():
    from ember.utilities import CombinedLoader
    model = MultiLoaderModel()
    combined = CombinedLoader([DataLoader(make_dataset(16), batch_size=4), DataLoader(make_dataset(6), batch_size=3)],
                              mode="min_size")
    trainer = quiet_trainer(max_epochs=1, limit_val_batches=0)
    trainer.fit(model, combined)
    assert trainer.global_step == 2 and model.seen == [(0, [4, 3]), (1, [4, 3])]
    with pytest.raises(ValueError, match=r'`FitLoop` only supports the `CombinedLoader\(mode="max_size_cycle" \| '
                                         r'"min_size"\)` modes'):
        quiet_trainer(max_epochs=1).fit(MultiLoaderModel(), CombinedLoader([DataLoader(make_dataset(4))],
                                                                            mode="sequential"))
    with pytest.raises(ValueError, match=r"Unsupported mode 'zip', please select one of"):
        CombinedLoader([], mode="zip")


def test_combined_loader_iterates_in_lightnings_modes():
    from ember.trainer.utilities import CombinedLoader
    loaders = {"a": range(3), "b": range(10, 12)}
    assert list(CombinedLoader(loaders, "max_size_cycle")) == [
        ({"a": 0, "b": 10}, 0, 0), ({"a": 1, "b": 11}, 1, 0), ({"a": 2, "b": 10}, 2, 0)]
    assert list(CombinedLoader(loaders, "min_size")) == [({"a": 0, "b": 10}, 0, 0), ({"a": 1, "b": 11}, 1, 0)]
    assert list(CombinedLoader(loaders, "max_size")) == [
        ({"a": 0, "b": 10}, 0, 0), ({"a": 1, "b": 11}, 1, 0), ({"a": 2, "b": None}, 2, 0)]
    assert list(CombinedLoader(loaders, "sequential")) == [(0, 0, 0), (1, 1, 0), (2, 2, 0), (10, 0, 1), (11, 1, 1)]
    assert [len(CombinedLoader(loaders, m)) for m in ("min_size", "max_size_cycle", "max_size", "sequential")] == \
        [2, 3, 3, 5]


def test_dataloader_idx_is_right_for_every_val_loader():
    model = MultiLoaderModel()
    val = {"x": DataLoader(make_dataset(8), batch_size=4),
           "y": [DataLoader(make_dataset(4), batch_size=4), DataLoader(make_dataset(4), batch_size=4)]}
    quiet_trainer(max_epochs=1, num_sanity_val_steps=0).fit(model, DataLoader(make_dataset(8), batch_size=4), val)
    assert model.val_seen == [(0, 0), ("end", 0, 0), (0, 1), ("end", 0, 1), (1, 0), ("end", 1, 0),
                              (2, 0), ("end", 2, 0)]
    from ember.utilities import CombinedLoader
    model.val_seen = []
    quiet_trainer().validate(model, CombinedLoader(val, mode="sequential"))
    assert [seen for seen in model.val_seen if seen[0] != "end"] == [(0, 0), (0, 1), (1, 0), (2, 0)]
    with pytest.raises(ValueError, match=r'`trainer.validate\(\)` only supports the `CombinedLoader\(mode='
                                         r'"sequential"\)` mode'):
        quiet_trainer().validate(model, CombinedLoader(val, mode="max_size"))


class CrashAtStep(em.Callback):
    def __init__(self, step):
        self.step = step

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        if trainer.global_step == self.step:
            raise RuntimeError("simulated crash")


def _multi_loader_run(tmp_path, extra=(), ckpt_path=None, seed=0):
    from ember.callbacks import ModelCheckpoint
    em.seed_everything(seed)
    model = MultiLoaderModel()
    ckpt = ModelCheckpoint(dirpath=tmp_path, every_n_train_steps=1, save_top_k=0, save_last=True)
    trainer = quiet_trainer(max_epochs=2, limit_val_batches=0, callbacks=[ckpt, *extra],
                            default_root_dir=str(tmp_path), enable_checkpointing=True)
    loaders = {"a": DataLoader(make_dataset(20, seed=3), batch_size=4, shuffle=True),
               "b": DataLoader(make_dataset(6, seed=4), batch_size=3, shuffle=True)}
    trainer.fit(model, loaders, ckpt_path=ckpt_path)
    return trainer, model


def test_mid_epoch_resume_with_several_train_loaders_is_exact(tmp_path):
    reference, ref_model = _multi_loader_run(tmp_path / "ref")
    assert reference.global_step == 10
    with pytest.raises(RuntimeError, match="simulated crash"):
        _multi_loader_run(tmp_path / "run", extra=[CrashAtStep(8)])  # epoch 1, after loader b started over
    trainer, model = _multi_loader_run(tmp_path / "run", ckpt_path="last", seed=7)
    assert trainer.global_step == 10
    assert model.seen == ref_model.seen[8:]
    _assert_same_weights(_weights(model), _weights(ref_model))


# ---------------------------------------------------------------------------------- 7. resume from the end-of-fit last
def _counters(trainer):
    fit_loop = trainer.fit_loop
    epoch_loop = fit_loop.epoch_loop
    return {"global_step": trainer.global_step, "epoch": trainer.current_epoch,
            "batches_that_stepped": epoch_loop._batches_that_stepped,
            "epoch_progress": fit_loop.epoch_progress.state_dict(),
            "batch_progress_total": epoch_loop.batch_progress.state_dict()["total"],
            "optimizer_steps": epoch_loop.automatic_optimization.optimizer_steps}


@pytest.mark.parametrize("first, then, checkpoint", [
    (dict(max_epochs=2), dict(max_epochs=4), {}),
    (dict(max_epochs=2, limit_val_batches=0), dict(max_epochs=4, limit_val_batches=0), {}),
    (dict(max_epochs=2), dict(max_epochs=4), dict(every_n_train_steps=1)),  # saved before the last validation
    (dict(max_steps=4), dict(max_steps=8), {}),  # max_steps cut epoch 1 short: its end-of-epoch save
    (dict(max_steps=4), dict(max_steps=8), dict(every_n_train_steps=2)),
    (dict(max_steps=3), dict(max_steps=6), dict(every_n_train_steps=3)),
], ids=["epochs", "epochs-no-val", "epochs-step-ckpt", "max-steps-mid-epoch", "max-steps-step-ckpt",
        "max-steps-at-epoch-end"])
def test_resuming_from_the_end_of_fit_last_checkpoint_continues_the_counters(tmp_path, first, then, checkpoint):
    from ember.callbacks import ModelCheckpoint

    def run(ckpt_path=None, root="a", **flags):
        logger = RecordingLogger()
        em.seed_everything(0)
        model = Classifier()
        trainer = quiet_trainer(enable_checkpointing=True, num_sanity_val_steps=0, log_every_n_steps=1,
                                logger=logger, default_root_dir=str(tmp_path / root),
                                callbacks=[ModelCheckpoint(dirpath=tmp_path / root, save_last=True, save_top_k=1,
                                                           **checkpoint)], **flags)
        trainer.fit(model, DataLoader(make_dataset(24), batch_size=8, shuffle=True),
                    DataLoader(make_dataset(8), batch_size=8), ckpt_path=ckpt_path)
        return trainer, model

    interrupted, _ = run(**first)
    resumed, resumed_model = run(ckpt_path=tmp_path / "a" / "last.ckpt", **then)
    straight, straight_model = run(root="b", **then)
    assert _counters(resumed) == _counters(straight)
    _assert_same_weights(_weights(resumed_model), _weights(straight_model))

    def train_steps(trainer):
        return [step for step, metrics in trainer.logger.calls if "train_loss" in metrics]
    assert train_steps(resumed) == train_steps(straight)[-len(train_steps(resumed)):]
    if checkpoint and "max_epochs" in first:
        # saved before the epoch's last validation: the resumed fit runs it again, at the same logger step
        def val_steps(trainer):
            return [step for step, metrics in trainer.logger.calls if "val_loss" in metrics]
        assert val_steps(resumed)[0] == val_steps(interrupted)[-1]


# ------------------------------------------------------------------------------------ 8. when dataloaders are requested
class RequestRecorder(Classifier):
    def __init__(self):
        super().__init__()
        self.requests = []

    def train_dataloader(self):
        self.requests.append(("train", self.trainer.current_epoch))
        return DataLoader(make_dataset(16), batch_size=8)

    def val_dataloader(self):
        self.requests.append(("val", self.trainer.current_epoch))
        return DataLoader(make_dataset(8), batch_size=8)

    def test_dataloader(self):
        self.requests.append(("test", self.trainer.current_epoch))
        return DataLoader(make_dataset(8), batch_size=8)


@pytest.mark.parametrize("flags, expected", [
    (dict(reload_dataloaders_every_n_epochs=1, max_epochs=3),
     [("val", 0), ("train", 0), ("train", 1), ("val", 1), ("train", 2), ("val", 2)]),
    (dict(reload_dataloaders_every_n_epochs=2, check_val_every_n_epoch=2, max_epochs=4),
     [("val", 0), ("train", 0), ("val", 1), ("train", 2), ("val", 3)]),
    (dict(reload_dataloaders_every_n_epochs=1, max_epochs=2, num_sanity_val_steps=0),
     [("train", 0), ("val", 0), ("train", 1), ("val", 1)]),
    (dict(max_epochs=3), [("val", 0), ("train", 0)]),
], ids=["every-epoch", "every-2-validating-every-2", "no-sanity-check", "no-reload"])
def test_dataloaders_are_requested_when_lightning_requests_them(flags, expected):
    model = RequestRecorder()
    quiet_trainer(**flags).fit(model)
    assert model.requests == expected


def test_validate_and_test_with_a_zero_limit_do_not_request_the_loader():
    model = RequestRecorder()
    assert quiet_trainer(limit_val_batches=0).validate(model) == []
    assert quiet_trainer(limit_test_batches=0).test(model) == []
    assert model.requests == []


# --------------------------------------------------------------------------- 4. step methods without batch_idx
class NoBatchIdx(em.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(4, 2)
        self.calls = []

    def training_step(self, batch):
        self.calls.append("training_step")
        x, y = batch
        return nn.functional.cross_entropy(self.layer(x), y)

    def validation_step(self, batch):
        self.calls.append("validation_step")

    def test_step(self, batch):
        self.calls.append("test_step")

    def predict_step(self, batch):
        self.calls.append("predict_step")
        return self.layer(batch[0])

    def configure_optimizers(self):
        return em.optim.SGD(self.parameters(), lr=0.1)


def test_step_methods_without_batch_idx_get_only_the_batch(loader):
    model = NoBatchIdx()
    trainer = quiet_trainer(max_epochs=1, num_sanity_val_steps=0)
    trainer.fit(model, loader(16), loader(8))
    trainer.test(model, loader(8))
    out = trainer.predict(model, loader(8))
    assert model.calls == ["training_step"] * 2 + ["validation_step", "test_step", "predict_step"]
    assert out[0].shape == (8, 2)


def test_several_val_loaders_need_a_dataloader_idx_argument(loader):
    class Strict(Classifier):
        def validation_step(self, batch, batch_idx):
            pass

    with pytest.raises(RuntimeError, match=r"You provided multiple `val` dataloaders, but no `dataloader_idx` "
                                           r"argument in `validation_step\(\)`"):
        quiet_trainer().validate(Strict(), [loader(8), loader(8)])

    class Needy(Classifier):
        def validation_step(self, batch, batch_idx, dataloader_idx):
            pass

    with pytest.raises(RuntimeError, match=r"You provided only a single `val` dataloader, but have included "
                                           r"`dataloader_idx` in `validation_step\(\)`"):
        quiet_trainer().validate(Needy(), loader(8))


# ------------------------------------------------------------------------------------------------ 10. hook dispatch
def test_hooks_assigned_on_instances_are_called(loader):
    seen = []
    model = Classifier()
    model.on_train_batch_end = lambda outputs, batch, batch_idx: seen.append(("module", batch_idx))
    callback = em.Callback()
    callback.on_train_batch_end = lambda trainer, pl_module, outputs, batch, batch_idx: seen.append(("cb", batch_idx))
    quiet_trainer(max_epochs=1, callbacks=[callback], limit_val_batches=0).fit(model, loader(16))
    assert seen == [("cb", 0), ("module", 0), ("cb", 1), ("module", 1)]


def test_validation_step_set_to_none_disables_validation(loader):
    model = Classifier()
    model.validation_step = None
    recorder = ValidationRecorder()
    trainer = quiet_trainer(max_epochs=2, callbacks=[recorder])
    trainer.fit(model, loader(16), loader(8))
    assert recorder.at == [] and not trainer.enable_validation


def test_setup_and_teardown_get_the_trainer_fn(loader):
    stages = []

    class Recorder(em.Callback):
        def setup(self, trainer, pl_module, stage):
            stages.append(("cb.setup", stage))

        def teardown(self, trainer, pl_module, stage):
            stages.append(("cb.teardown", stage))

    class Model(Classifier):
        def setup(self, stage):
            stages.append(("setup", stage))

    trainer = quiet_trainer(max_epochs=1, callbacks=[Recorder()])
    trainer.fit(Model(), loader(8), loader(8))
    assert stages == [("cb.setup", "fit"), ("setup", "fit"), ("cb.teardown", "fit")]
    assert all(isinstance(stage, em.trainer.states.TrainerFn) for _, stage in stages)
    assert f"{stages[0][1]}" == "fit" and stages[0][1] == em.trainer.states.TrainerFn.FITTING


def test_callback_state_dict_is_called_once_per_save(tmp_path, loader):
    class Stateful(em.Callback):
        calls = 0

        def state_dict(self):
            Stateful.calls += 1
            return {"calls": Stateful.calls}

    model = Classifier()
    trainer = quiet_trainer(max_epochs=1, callbacks=[Stateful()])
    trainer.fit(model, loader(8))
    trainer.save_checkpoint(tmp_path / "a.ckpt")
    assert Stateful.calls == 1
    assert em.load(tmp_path / "a.ckpt")["callbacks"][Stateful.__qualname__] == {"calls": 1}


# -------------------------------------------------------------------------------------------- 11. Trainer attributes
def test_max_epochs_is_none_until_fit_resolves_it_to_1000_with_a_warning(loader):
    trainer = quiet_trainer(limit_train_batches=1, limit_val_batches=0)
    assert trainer.max_epochs is None
    with pytest.warns(UserWarning, match=r"`max_epochs` was not set. Setting it to 1000 epochs. To train without an "
                                         r"epoch limit, set `max_epochs=-1`."):
        trainer.fit(Classifier(), loader(8))
    assert trainer.max_epochs == 1000 and trainer.current_epoch == 1000
    stepped = quiet_trainer(max_steps=3)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="`max_epochs` was not set")
        stepped.fit(Classifier(), loader(16))
    assert stepped.max_epochs == -1 and stepped.global_step == 3


def test_fast_dev_run_flags_as_lightning_keeps_them(loader, tmp_path):
    assert em.Trainer(fast_dev_run=True, default_root_dir=tmp_path).fast_dev_run is True
    assert em.Trainer(fast_dev_run=1, default_root_dir=tmp_path).fast_dev_run is True
    assert em.Trainer(fast_dev_run=3, default_root_dir=tmp_path).fast_dev_run == 3
    trainer = em.Trainer(fast_dev_run=True, default_root_dir=tmp_path, enable_progress_bar=False)
    assert type(trainer.logger).__name__ == "DummyLogger"
    assert em.Trainer(fast_dev_run=True, logger=False).loggers == []
    with pytest.raises(em.trainer.exceptions.MisconfigurationException,
                       match=r"fast_dev_run=-1 is not a valid configuration. It should be >= 0."):
        em.Trainer(fast_dev_run=-1)


def test_enable_validation(loader):
    trainer = quiet_trainer(max_epochs=1)
    trainer.fit(Classifier(), loader(8), loader(8))
    assert trainer.enable_validation is True
    trainer = quiet_trainer(max_epochs=1, limit_val_batches=0)
    trainer.fit(Classifier(), loader(8), loader(8))
    assert trainer.enable_validation is False


def test_val_check_interval_beyond_the_epoch_is_allowed_without_validation(loader):
    trainer = quiet_trainer(max_epochs=1, val_check_interval=100, limit_val_batches=0)
    trainer.fit(Classifier(), loader(16), loader(8))
    assert trainer.global_step == 2
    with pytest.raises(ValueError, match=r"`val_check_interval` \(100\) must be less than or equal to the number of "
                                         r"the training batches \(2\)"):
        quiet_trainer(max_epochs=1, val_check_interval=100).fit(Classifier(), loader(16), loader(8))


def test_barebones_disables_what_lightning_disables(loader, tmp_path):
    trainer = em.Trainer(barebones=True, max_epochs=1, default_root_dir=tmp_path)
    assert trainer.loggers == [] and trainer.checkpoint_callback is None and trainer.progress_bar_callback is None
    assert trainer.log_every_n_steps == 0 and trainer.num_sanity_val_steps == 0
    assert not any(type(cb).__name__ == "ModelSummary" for cb in trainer.callbacks)
    with pytest.warns(UserWarning, match=r"You are trying to `self.log\(\)` but `Trainer\(barebones=True\)` is "
                                         r"configured"):
        trainer.fit(Classifier(), loader(8))
    assert trainer.callback_metrics == {}
    for flag, value, feature in [("enable_checkpointing", True, "Checkpointing"), ("logger", True, "Logging"),
                                 ("enable_progress_bar", True, "Progress bar"), ("log_every_n_steps", 5, "Logging"),
                                 ("enable_model_summary", True, "Model summary"),
                                 ("num_sanity_val_steps", 2, "Sanity checking"),
                                 ("detect_anomaly", True, "Anomaly detection")]:
        with pytest.raises(ValueError, match=rf"`Trainer\(barebones=True, {flag}={value!r}\)` was passed. {feature} "
                                             "can't be enabled in barebones mode."):
            em.Trainer(barebones=True, **{flag: value})


# -------------------------------------------------------------------------------------- 12. the 1.x data-flow hooks
def test_lightning_1x_hooks_still_work_and_each_says_so_once(loader, monkeypatch):
    from ember.trainer import deprecation
    monkeypatch.setattr(deprecation, "_SHOWN", set())
    outputs = []

    class OldStyle(Classifier):
        def training_step_end(self, step_output):
            return step_output

        def training_epoch_end(self, epoch_outputs):
            outputs.append(len(epoch_outputs))

    with pytest.warns(deprecation.EmberDeprecationWarning) as record:
        quiet_trainer(max_epochs=2, limit_val_batches=0, automatic_optimization=True).fit(OldStyle(), loader(16))
    messages = [str(w.message) for w in record if issubclass(w.category, deprecation.EmberDeprecationWarning)]
    assert len(messages) == 3  # once each, although the fit runs two epochs
    assert any(m.startswith("`training_epoch_end(outputs)` is a Lightning 1.x hook") and "`on_train_epoch_end()`" in m
               for m in messages)
    assert any(m.startswith("`training_step_end` is a Lightning 1.x hook") for m in messages)
    assert any(m.startswith("`Trainer(automatic_optimization=...)` is a Lightning 1.x flag") for m in messages)
    assert outputs == [2, 2]  # still supported
    with warnings.catch_warnings():
        warnings.simplefilter("error", deprecation.EmberDeprecationWarning)
        quiet_trainer(max_epochs=1, limit_val_batches=0).fit(OldStyle(), loader(16))  # already said: silent


def test_optimizer_idx_training_step_gets_a_notice(loader, monkeypatch):
    from ember.trainer import deprecation
    monkeypatch.setattr(deprecation, "_SHOWN", set())

    class TwoOptimizers(Classifier):
        def training_step(self, batch, batch_idx, optimizer_idx):
            return super().training_step(batch, batch_idx)

        def configure_optimizers(self):
            return [em.optim.SGD(self.parameters(), lr=0.1), em.optim.SGD(self.parameters(), lr=0.1)]

    with pytest.warns(deprecation.EmberDeprecationWarning, match=r"`training_step\(batch, batch_idx, optimizer_idx\)`"
                                                                 r" is Lightning 1.x"):
        trainer = quiet_trainer(max_epochs=1, limit_val_batches=0)
        trainer.fit(TwoOptimizers(), loader(16))
    assert trainer.global_step == 4


# ------------------------------------------------------------------- 13. toggling, clipping conflicts, from_datasets
def test_toggle_optimizer_restores_shared_and_frozen_parameters_as_lightning():
    shared, only_a, frozen_a, only_b = (nn.Parameter(em.zeros(1)) for _ in range(4))
    frozen_a.requires_grad = False
    opt_a = em.optim.SGD([shared, only_a, frozen_a], lr=0.1)
    opt_b = em.optim.SGD([shared, only_b], lr=0.1)
    model = Classifier()
    model.trainer = quiet_trainer()
    model.trainer.optimizers = [opt_a, opt_b]

    def flags():
        return [p.requires_grad for p in (shared, only_a, frozen_a, only_b)]

    model.toggle_optimizer(opt_a)
    assert flags() == [True, True, False, False]
    model.toggle_optimizer(opt_b)  # toggled again without untoggling: Lightning records the toggled flags
    assert flags() == [True, False, False, False]
    model.untoggle_optimizer(opt_b)
    assert flags() == [True, True, False, False]
    model.untoggle_optimizer(opt_a)
    assert flags() == [True, True, False, False]


def test_clip_gradients_conflicting_with_the_trainer_flags_raise(loader):
    class ClipsItself(Classifier):
        def __init__(self, **clip):
            super().__init__()
            self.clip = clip

        def configure_gradient_clipping(self, optimizer, gradient_clip_val=None, gradient_clip_algorithm=None):
            self.clip_gradients(optimizer, **self.clip)

    with pytest.raises(em.trainer.exceptions.MisconfigurationException,
                       match=r"You have set `Trainer\(gradient_clip_val=1.0\)` and have passed "
                             r"`clip_gradients\(gradient_clip_val=0.5\)`. Please use only one of them."):
        quiet_trainer(max_epochs=1, gradient_clip_val=1.0).fit(ClipsItself(gradient_clip_val=0.5), loader(8))
    with pytest.raises(em.trainer.exceptions.MisconfigurationException,
                       match=r"You have set `Trainer\(gradient_clip_algorithm='norm'\)` and have passed "
                             r"`clip_gradients\(gradient_clip_algorithm='value'\)"):
        quiet_trainer(max_epochs=1, gradient_clip_val=1.0, gradient_clip_algorithm="norm").fit(
            ClipsItself(gradient_clip_algorithm="value"), loader(8))
    # the same value, or a value with no Trainer flag, is fine
    quiet_trainer(max_epochs=1, gradient_clip_val=0.5).fit(ClipsItself(gradient_clip_val=0.5), loader(8))
    quiet_trainer(max_epochs=1).fit(ClipsItself(gradient_clip_val=0.5, gradient_clip_algorithm="value"), loader(8))


def test_from_datasets_passes_batch_size_and_num_workers_on():
    class DM(em.LightningDataModule):
        def __init__(self, batch_size, num_workers=0):
            super().__init__()
            self.batch_size, self.num_workers = batch_size, num_workers

    class Plain(em.LightningDataModule):
        pass

    dm = DM.from_datasets(make_dataset(16), Stream(8), batch_size=4, num_workers=0)
    assert dm.batch_size == 4 and dm.num_workers == 0
    assert dm.train_dataloader().batch_size == 4
    assert dm.val_dataloader().batch_size == 4  # an iterable dataset gets no shuffling (it cannot be shuffled)
    assert Plain.from_datasets(make_dataset(16), batch_size=2).train_dataloader().batch_size == 2


# ------------------------------------------------------------------------------------------ 14. Lightning's warnings
def _messages(record):
    return [str(w.message) for w in record]


def test_few_workers_warning_names_the_loader_and_the_suggestion(loader, monkeypatch):
    from ember.exceptions import PossibleUserWarning
    from ember.trainer import data_checks
    monkeypatch.setattr(data_checks, "_cpus", lambda: 8)
    with pytest.warns(PossibleUserWarning) as record:
        quiet_trainer(max_epochs=1).fit(Classifier(), loader(8), loader(8))
    messages = _messages(record)
    for name in ("train_dataloader", "val_dataloader"):
        assert f"The '{name}' does not have many workers which may be a bottleneck. Consider increasing the value of " \
               "the `num_workers` argument` to `num_workers=7` in the `DataLoader` to improve performance." in messages
    monkeypatch.setattr(data_checks, "_cpus", lambda: 2)  # one spare CPU: no advice
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*does not have many workers")
        quiet_trainer(max_epochs=1).fit(Classifier(), loader(8), loader(8))


class SizedStream(Stream):
    def __len__(self):
        return len(self.data)


def test_iterable_dataset_with_len_and_empty_loader_warnings(loader):
    with pytest.warns(UserWarning, match=r"Your `IterableDataset` has `__len__` defined."):
        quiet_trainer(max_epochs=1, limit_val_batches=0).fit(Classifier(), DataLoader(SizedStream(8), batch_size=4))
    with pytest.warns(UserWarning, match=r"Total length of `DataLoader` across ranks is zero. Please make sure this "
                                         r"was your intention."):
        quiet_trainer(max_epochs=1).fit(Classifier(), loader(0))


def test_overfit_batches_turns_off_shuffling_of_train_and_val_loaders(loader):
    with pytest.warns(UserWarning) as record:
        trainer = quiet_trainer(max_epochs=1, overfit_batches=2)
        trainer.fit(Classifier(), loader(16, shuffle=True), loader(16, shuffle=True))
    messages = _messages(record)
    for prefix in ("train", "val"):
        assert f"You requested to overfit but enabled {prefix} dataloader shuffling. We are turning off the {prefix} " \
               f"dataloader shuffling for you." in messages


def test_log_every_n_steps_beyond_the_epoch_warns(loader):
    with pytest.warns(UserWarning, match=r"The number of training batches \(2\) is smaller than the logging interval "
                                         r"Trainer\(log_every_n_steps=50\)"):
        quiet_trainer(max_epochs=1, logger=RecordingLogger()).fit(Classifier(), loader(16))


def test_validation_step_without_val_loader_warns_and_skips(loader):
    recorder = ValidationRecorder()
    with pytest.warns(UserWarning, match=r"You defined a `validation_step` but have no `val_dataloader`. Skipping val "
                                         r"loop."):
        quiet_trainer(max_epochs=1, callbacks=[recorder]).fit(Classifier(), loader(16))
    assert recorder.at == []

    class NoValStep(Classifier):
        validation_step = None

    with pytest.warns(UserWarning, match=r"You passed in a `val_dataloader` but have no `validation_step`. Skipping "
                                         r"val loop."):
        quiet_trainer(max_epochs=1).fit(NoValStep(), loader(16), loader(8))


# ------------------------------------------------------------------------------------ 9. time-based val_check_interval
class FakeClock:
    def __init__(self):
        self.now = 0.0

    def monotonic(self):
        return self.now


class Tick(em.Callback):
    """Ten seconds pass during every training batch."""

    def __init__(self, clock):
        self.clock = clock

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        self.clock.now += 10


@pytest.mark.parametrize("interval", ["00:00:00:25", __import__("datetime").timedelta(seconds=25), {"seconds": 25}],
                         ids=["string", "timedelta", "dict"])
def test_time_based_val_check_interval_validates_when_the_time_has_passed(loader, monkeypatch, interval):
    from ember.trainer.loops import training_epoch_loop
    clock = FakeClock()
    monkeypatch.setattr(training_epoch_loop, "time", clock)
    recorder = ValidationRecorder()
    trainer = quiet_trainer(max_epochs=2, val_check_interval=interval, callbacks=[Tick(clock), recorder],
                            num_sanity_val_steps=0)
    trainer.fit(Classifier(), loader(32, batch_size=4), loader(8))
    # 10 s per batch, 25 s between validations: after the 3rd and 6th batch, then (the clock running on) the 1st and
    # 4th and 7th of the next epoch
    assert recorder.at == [(0, 2), (0, 5), (1, 0), (1, 3), (1, 6)]
    assert trainer.val_check_batch is None


def test_time_based_val_check_interval_errors():
    with pytest.raises(em.trainer.exceptions.MisconfigurationException,
                       match=r"`Trainer\(val_check_interval='1:00'\)` is not a valid duration. Expected a string in "
                             r"the format DD:HH:MM:SS."):
        quiet_trainer(val_check_interval="1:00")
    with pytest.raises(em.trainer.exceptions.MisconfigurationException, match="timedelta arguments"):
        quiet_trainer(val_check_interval={"fortnights": 1})
    quiet_trainer(val_check_interval={"hours": 1}, check_val_every_n_epoch=None)  # a time needs no epoch gate
