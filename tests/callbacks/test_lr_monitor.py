"""LearningRateMonitor: Lightning's key names and when values reach the loggers (RecordingLogger keeps every call)."""
from types import SimpleNamespace

import pytest

import ember as em
from ember.callbacks import LearningRateMonitor
from ember.core import nn
from ember.trainer import MisconfigurationException
from ember.trainer.optimizer import LRSchedulerConfig

from callback_testing import Scripted, loader, make_trainer
from trainer_testing import RecordingLogger


class WithScheduler(Scripted):
    def __init__(self, optimizer="adam", interval="epoch"):
        super().__init__()
        self.kind, self.interval = optimizer, interval

    def configure_optimizers(self):
        if self.kind == "adam":
            opt = em.optim.Adam(self.parameters(), lr=0.1)
        else:
            opt = em.optim.SGD(self.parameters(), lr=0.1, momentum=0.8, weight_decay=0.01)
        sched = em.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": self.interval}}


def fit(tmp_path, model, monitor, **kwargs):
    logger = RecordingLogger()
    options = dict(max_epochs=2, logger=logger, callbacks=[monitor], log_every_n_steps=1, enable_checkpointing=False)
    options.update(kwargs)
    trainer = make_trainer(tmp_path, **options)
    trainer.fit(model, loader())
    return logger, trainer


def logged(logger, key):
    return [(step, m[key]) for step, m in logger.calls if key in m]


def test_optimizer_without_scheduler_is_logged_at_every_opportunity(tmp_path):
    logger, trainer = fit(tmp_path, Scripted(lr=0.1), LearningRateMonitor())
    # at each epoch start (step 0, then 4) and before each batch that will be logged (every step)
    assert logged(logger, "lr-SGD") == [(0, 0.1), (0, 0.1), (1, 0.1), (2, 0.1), (3, 0.1),
                                        (4, 0.1), (4, 0.1), (5, 0.1), (6, 0.1), (7, 0.1)]
    assert trainer.callback_metrics["lr-SGD"].item() == pytest.approx(0.1)


def test_epoch_scheduler_is_logged_at_epoch_start(tmp_path):
    monitor = LearningRateMonitor(log_momentum=True, log_weight_decay=True)
    logger, _ = fit(tmp_path, WithScheduler("adam"), monitor)
    assert logged(logger, "lr-Adam") == [(0, 0.1), (4, 0.05)]  # StepLR halves it after epoch 0
    assert logged(logger, "lr-Adam-momentum") == [(0, 0.9), (4, 0.9)]  # betas[0]
    assert logged(logger, "lr-Adam-weight_decay") == [(0, 0.0), (4, 0.0)]
    assert monitor.lrs == {"lr-Adam": [0.1, 0.05]}


def test_logging_interval_step_and_sgd_momentum(tmp_path):
    monitor = LearningRateMonitor(logging_interval="step", log_momentum=True, log_weight_decay=True)
    logger, _ = fit(tmp_path, WithScheduler("sgd"), monitor, log_every_n_steps=2)
    # (batches that stepped + 1) % 2 == 0 -> before the batches at steps 1, 3, 5, 7
    assert logged(logger, "lr-SGD") == [(1, 0.1), (3, 0.1), (5, 0.05), (7, 0.05)]
    assert logged(logger, "lr-SGD-momentum") == [(1, 0.8), (3, 0.8), (5, 0.8), (7, 0.8)]
    assert logged(logger, "lr-SGD-weight_decay")[0] == (1, 0.01)


def test_step_scheduler_with_epoch_interval_logs_only_at_epoch_start(tmp_path):
    logger, _ = fit(tmp_path, WithScheduler("adam", interval="step"), LearningRateMonitor(logging_interval="epoch"))
    assert logged(logger, "lr-Adam") == [(0, 0.1), (4, 0.1 * 0.5 ** 4)]


def test_names_for_duplicates_groups_and_prefix():
    p = [nn.Parameter(em.zeros(1)) for _ in range(6)]
    sgd_a, sgd_b = em.optim.SGD([p[0]], lr=0.1), em.optim.SGD([p[1]], lr=0.2)
    adam = em.optim.Adam([{"params": [p[2]]}, {"params": [p[3]], "lr": 0.01}], lr=0.1)
    named = em.optim.Adam([{"params": [p[4]], "name": "head"}], lr=0.3)
    scheduled = em.optim.RMSprop([p[5]], lr=0.5)
    config = LRSchedulerConfig(em.optim.lr_scheduler.StepLR(scheduled, 1), name="my-lr")
    trainer = SimpleNamespace(loggers=[object()], optimizers=[sgd_a, sgd_b, adam, named, scheduled],
                              lr_scheduler_configs=[config], callback_metrics={})
    monitor = LearningRateMonitor(log_key_prefix="optim/")
    monitor.on_train_start(trainer, None)
    # the scheduler's own name; then per class a counter suffix; then one key per param group (or its name)
    assert list(monitor.lrs) == ["optim/my-lr", "optim/lr-SGD", "optim/lr-SGD-1", "optim/lr-Adam/pg1",
                                 "optim/lr-Adam/pg2", "optim/lr-Adam-1/head"]
    stats = monitor._extract_stats(trainer, "any")
    assert stats == {"optim/my-lr": 0.5, "optim/lr-SGD": 0.1, "optim/lr-SGD-1": 0.2, "optim/lr-Adam/pg1": 0.1,
                     "optim/lr-Adam/pg2": 0.01, "optim/lr-Adam-1/head": 0.3}


def test_a_new_param_group_keeps_the_history():
    a, b = nn.Parameter(em.zeros(1)), nn.Parameter(em.zeros(1))
    sgd = em.optim.SGD([a], lr=0.1)
    trainer = SimpleNamespace(loggers=[object()], optimizers=[sgd], lr_scheduler_configs=[], callback_metrics={})
    monitor = LearningRateMonitor()
    monitor.on_train_start(trainer, None)
    monitor._extract_stats(trainer, "any")
    sgd.add_param_group({"params": [b], "lr": 0.01})  # e.g. fine-tuning unfroze a backbone
    monitor._extract_stats(trainer, "any")
    assert monitor.lrs == {"lr-SGD/pg1": [0.1, 0.1], "lr-SGD/pg2": [0.01]}


def test_errors(tmp_path):
    with pytest.raises(MisconfigurationException, match="logging_interval should be `step` or `epoch` or `None`"):
        LearningRateMonitor(logging_interval="batch")
    trainer = make_trainer(tmp_path, max_epochs=1, callbacks=[LearningRateMonitor()])
    with pytest.raises(MisconfigurationException, match="has no logger"):
        trainer.fit(Scripted(), loader())
    p = nn.Parameter(em.zeros(1))
    same = em.optim.SGD([{"params": [p], "name": "x"}, {"params": [nn.Parameter(em.zeros(1))], "name": "x"}], lr=1.0)
    trainer = SimpleNamespace(loggers=[object()], optimizers=[same], lr_scheduler_configs=[], callback_metrics={})
    with pytest.raises(MisconfigurationException, match="duplicated parameter group names"):
        LearningRateMonitor().on_train_start(trainer, None)
    class NoMomentum(Scripted):
        def configure_optimizers(self):
            return em.optim.Adagrad(self.parameters(), lr=0.1)

    with pytest.warns(RuntimeWarning, match="do not have momentum"):
        logger, _ = fit(tmp_path, NoMomentum(), LearningRateMonitor(log_momentum=True))
    assert logged(logger, "lr-Adagrad-momentum")[0] == (0, 0)
