"""The Trainer's profilers: Lightning's names, action names, report format and files."""
import io
import logging
import os
import pstats
import re

import pytest

import ember as em
from ember.callbacks import Callback
from ember.core.data import DataLoader
from ember.profilers import AdvancedProfiler, PassThroughProfiler, Profiler, PyTorchProfiler, SimpleProfiler
from ember.trainer import MisconfigurationException
from trainer_testing import Classifier, make_dataset


def _fit(profiler, model=None, callbacks=None, root=None, epochs=1, **kwargs):
    trainer = em.Trainer(max_epochs=epochs, profiler=profiler, logger=False, enable_progress_bar=False,
                         enable_model_summary=False, enable_checkpointing=False, callbacks=callbacks,
                         default_root_dir=root, **kwargs)
    trainer.fit(model or Classifier(), DataLoader(make_dataset(), batch_size=8),
                DataLoader(make_dataset(), batch_size=8))
    return trainer


def _rows(report):
    """action -> (mean, calls, total, share) parsed from an extended SimpleProfiler report."""
    rows = {}
    for line in report.splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if len(cells) == 5 and cells[0] not in ("Action",):
            rows[cells[0]] = cells[1:]
    return rows


def test_profiler_flag_resolves_lightning_names():
    assert type(em.Trainer(profiler=None).profiler) is PassThroughProfiler
    assert type(em.Trainer(profiler="simple").profiler) is SimpleProfiler
    assert type(em.Trainer(profiler="Advanced").profiler) is AdvancedProfiler
    assert type(em.Trainer(profiler="pytorch").profiler) is PyTorchProfiler
    mine = SimpleProfiler(extended=False)
    assert em.Trainer(profiler=mine).profiler is mine
    with pytest.raises(MisconfigurationException, match=r"profiler='fast'.*\['advanced', 'pytorch', 'simple'\]"):
        em.Trainer(profiler="fast")
    with pytest.raises(MisconfigurationException, match="Only None, str and subclasses of `Profiler`"):
        em.Trainer(profiler=3)
    assert em.profilers.SimpleProfiler is SimpleProfiler and issubclass(PyTorchProfiler, Profiler)


def test_simple_profiler_writes_lightnings_report_with_lightnings_action_names(tmp_path):
    _fit(SimpleProfiler(dirpath=tmp_path, filename="perf"))
    assert sorted(os.listdir(tmp_path)) == ["fit-perf.txt"]
    report = (tmp_path / "fit-perf.txt").read_text()
    lines = report.splitlines()
    assert lines[0] == "FIT Profiler Report" and lines[1] == ""
    assert re.fullmatch(r"-+", lines[2]) and lines[4] == lines[2]
    assert [c.strip() for c in lines[3].split("|")[1:-1]] == [
        "Action", "Mean duration (s)", "Num calls", "Total time (s)", "Percentage %"]
    rows = _rows(report)
    calls = {action: int(row[1]) for action, row in rows.items() if action != "Total"}
    # 32 samples in batches of 8: 4 training batches; 2 sanity + 4 validation batches
    assert {a: calls[a] for a in (
        "run_training_epoch", "run_training_batch", "[_TrainingEpochLoop].train_dataloader_next",
        "[_EvaluationLoop].val_next",
        "[Strategy]SingleDeviceStrategy.batch_to_device", "[Strategy]SingleDeviceStrategy.training_step",
        "[Strategy]SingleDeviceStrategy.backward", "[Strategy]SingleDeviceStrategy.validation_step",
        "[LightningModule]Classifier.optimizer_step", "[LightningModule]Classifier.optimizer_zero_grad",
        "[LightningModule]Classifier.configure_optimizers", "[LightningModule]Classifier.on_fit_start")} == {
        "run_training_epoch": 1, "run_training_batch": 4, "[_TrainingEpochLoop].train_dataloader_next": 4,
        "[_EvaluationLoop].val_next": 6, "[Strategy]SingleDeviceStrategy.batch_to_device": 10,
        "[Strategy]SingleDeviceStrategy.training_step": 4,
        "[Strategy]SingleDeviceStrategy.backward": 4, "[Strategy]SingleDeviceStrategy.validation_step": 6,
        "[LightningModule]Classifier.optimizer_step": 4, "[LightningModule]Classifier.optimizer_zero_grad": 4,
        "[LightningModule]Classifier.configure_optimizers": 1, "[LightningModule]Classifier.on_fit_start": 1}
    assert all(re.fullmatch(r"run_training_(epoch|batch)|"
                            r"\[(_TrainingEpochLoop|_EvaluationLoop|Strategy|LightningModule|Callback)\].+", a)
               for a in calls)
    assert rows["Total"][0] == "-" and int(rows["Total"][1]) == sum(calls.values()) and rows["Total"][3] == "100 %"
    shares = [float(rows[a][3]) for a in calls]
    assert shares == sorted(shares, reverse=True)  # sorted by share of the run


def test_summary_is_logged_when_no_filename():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logging.getLogger("ember.trainer.profilers").addHandler(handler)
    try:
        _fit("simple")
    finally:
        logging.getLogger("ember.trainer.profilers").removeHandler(handler)
    text = stream.getvalue()
    assert text.startswith("FIT Profiler Report") and "[Strategy]SingleDeviceStrategy.training_step" in text


def test_not_extended_report_has_mean_and_total_only(tmp_path):
    _fit(SimpleProfiler(dirpath=tmp_path, filename="short", extended=False))
    lines = (tmp_path / "fit-short.txt").read_text().splitlines()
    assert [c.strip() for c in lines[3].split("|")[1:-1]] == ["Action", "Mean duration (s)", "Total time (s)"]
    assert not any(line.startswith("|  Total") for line in lines)


def test_user_actions_from_the_module_and_callbacks_are_profiled(tmp_path):
    class Model(Classifier):
        def __init__(self, profiler=None):
            super().__init__()
            self.profiler = profiler or PassThroughProfiler()  # Lightning's documented pattern

        def training_step(self, batch, batch_idx):
            with self.profiler.profile("my_custom_action"):
                return super().training_step(batch, batch_idx)

    class Timing(Callback):
        def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
            with trainer.profiler.profile("callback_action"):
                pass

    profiler = SimpleProfiler(dirpath=tmp_path, filename="perf")
    _fit(profiler, model=Model(profiler), callbacks=[Timing()])
    calls = {a: int(r[1]) for a, r in _rows((tmp_path / "fit-perf.txt").read_text()).items()}
    assert calls["my_custom_action"] == 4 and calls["callback_action"] == 4
    # Lightning's name: the callback's state_key (its qualified class name), then the hook
    assert calls[f"[Callback]{Timing.__qualname__}.on_train_batch_end"] == 4
    # without a profiler the same module runs with the pass-through one
    _fit(None, model=Model())


def test_each_stage_gets_its_own_file(tmp_path):
    profiler = SimpleProfiler(dirpath=tmp_path, filename="perf")
    trainer = _fit(profiler)
    trainer.validate(dataloaders=DataLoader(make_dataset(), batch_size=8), verbose=False)
    assert sorted(os.listdir(tmp_path)) == ["fit-perf.txt", "validate-perf.txt"]
    validate = (tmp_path / "validate-perf.txt").read_text()
    assert validate.startswith("VALIDATE Profiler Report")


def test_evaluation_and_prediction_fetches_and_transfers_are_profiled(tmp_path):
    """Lightning's action names for the batch fetches of validate/test/predict and their batch_to_device: one
    fetch per batch run (a limit stops the loop before fetching past it)."""
    class Model(Classifier):
        def predict_step(self, batch, batch_idx, dataloader_idx=0):
            return self(batch[0])

    _fit(SimpleProfiler(dirpath=tmp_path, filename="perf"), model=Model(), num_sanity_val_steps=0)

    def trainer(**kwargs):  # a profiler per stage: one instance would sum its actions over the stages it ran
        return em.Trainer(profiler=SimpleProfiler(dirpath=tmp_path, filename="perf"), logger=False,
                          enable_progress_bar=False, enable_model_summary=False, **kwargs)

    data = DataLoader(make_dataset(), batch_size=8)  # 4 batches
    trainer().validate(Model(), data, verbose=False)
    trainer(limit_test_batches=3).test(Model(), data, verbose=False)
    trainer().predict(Model(), [data, data], return_predictions=False)
    assert sorted(os.listdir(tmp_path)) == ["fit-perf.txt", "predict-perf.txt", "test-perf.txt",
                                            "validate-perf.txt"]

    def calls(stage):
        return {a: int(r[1]) for a, r in _rows((tmp_path / f"{stage}-perf.txt").read_text()).items()
                if "_next" in a or "batch_to_device" in a}

    transfer = "[Strategy]SingleDeviceStrategy.batch_to_device"
    assert calls("fit") == {"[_TrainingEpochLoop].train_dataloader_next": 4, "[_EvaluationLoop].val_next": 4,
                            transfer: 8}
    assert calls("validate") == {"[_EvaluationLoop].val_next": 4, transfer: 4}
    assert calls("test") == {"[_EvaluationLoop].test_next": 3, transfer: 3}  # limit_test_batches=3
    assert calls("predict") == {"[_PredictionLoop].predict_next": 8, transfer: 8}  # two loaders


def test_dirpath_defaults_to_the_log_dir(tmp_path):
    _fit(SimpleProfiler(filename="perf"), root=str(tmp_path))
    assert (tmp_path / "fit-perf.txt").exists()


def test_simple_profiler_start_stop_errors():
    profiler = SimpleProfiler()
    profiler.start("a")
    with pytest.raises(ValueError, match="Attempted to start a which has already started."):
        profiler.start("a")
    with pytest.raises(ValueError, match=r"Attempting to stop recording an action \(b\) which was never started."):
        profiler.stop("b")
    profiler.stop("a")
    assert len(profiler.recorded_durations["a"]) == 1


def test_advanced_profiler_reports_cprofile_per_action(tmp_path):
    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            return _marker_function(super().training_step(batch, batch_idx))

    _fit(AdvancedProfiler(dirpath=tmp_path, filename="adv", line_count_restriction=5, dump_stats=True),
         model=Model())
    report = (tmp_path / "fit-adv.txt").read_text()
    assert report.startswith("FIT Profiler Report")
    section = report.split("Profile stats for: [Strategy]SingleDeviceStrategy.training_step")[1]
    section = section.split("Profile stats for:")[0]
    assert "Ordered by: cumulative time" in section and "due to restriction <5>" in section
    listed = [line for line in section.splitlines() if re.match(r"\s+\d+(/\d+)?\s+\d", line)]
    assert len(listed) == 5  # line_count_restriction
    dump = tmp_path / "fit-adv-[Strategy]SingleDeviceStrategy.training_step.prof"
    stats = pstats.Stats(str(dump))
    assert any(func[2] == "_marker_function" and stat[0] == 4 for func, stat in stats.stats.items())


def _marker_function(loss):
    return loss


def test_advanced_profiler_nested_actions_resume_the_outer_one():
    profiler = AdvancedProfiler()
    profiler.start("outer")
    profiler.start("inner")
    _marker_function(1)
    profiler.stop("inner")
    _marker_function(2)
    profiler.stop("outer")
    summary = profiler.summary()
    outer = summary.split("Profile stats for: outer")[1].split("Profile stats for:")[0]
    assert "_marker_function" in outer
    with pytest.raises(ValueError, match="never started"):
        profiler.stop("other")


def test_pytorch_profiler_tables_ember_ops_under_trainer_actions(tmp_path):
    _fit(PyTorchProfiler(dirpath=tmp_path, filename="ops", row_limit=-1, record_shapes=True,
                         table_kwargs={"max_name_column_width": 80}))
    names = sorted(os.listdir(tmp_path))
    assert "fit-ops.txt" in names
    traces = [n for n in names if n.endswith(".pt.trace.json")]
    assert len(traces) == 1 and re.fullmatch(r"fit-ops\.\d+\.pt\.trace\.json", traces[0])
    report = (tmp_path / "fit-ops.txt").read_text()
    assert report.startswith("FIT Profiler Report" + os.linesep + "Profile stats for: records")
    rows = {line.split()[0]: line.split() for line in report.splitlines() if line.startswith(" ") or
            line[:1].isalpha() and "  " in line}
    assert rows["[pl][profile][Strategy]SingleDeviceStrategy.training_step"][-1] == "4"
    assert rows["ember::linear"][-1] == "10"  # 4 training + 6 validation forwards
    assert rows["AddmmBackward0"][-1] == "4"
    assert "Self CPU time total:" in report
    with pytest.raises(MisconfigurationException, match="sort_by_key"):
        PyTorchProfiler(sort_by_key="speed")
    with pytest.raises(KeyError, match="Found invalid table_kwargs key: sort_by"):
        PyTorchProfiler(table_kwargs={"sort_by": "count"})


def test_pytorch_profiler_with_a_schedule_exports_each_active_cycle(tmp_path):
    from ember.profiler import schedule
    profiler = PyTorchProfiler(dirpath=tmp_path, filename="sched",
                               schedule=schedule(wait=1, warmup=1, active=2, repeat=1),
                               table_kwargs={"max_name_column_width": 80})
    _fit(profiler, limit_val_batches=0)
    traces = [n for n in os.listdir(tmp_path) if n.endswith(".pt.trace.json")]
    assert len(traces) == 1 and traces[0].startswith("fit-sched-[Strategy]SingleDeviceStrategy.training_step.")
    report = (tmp_path / "fit-sched.txt").read_text()
    rows = {line.split()[0]: line.split() for line in report.splitlines() if "[pl][profile]" in line}
    assert rows["[pl][profile][Strategy]SingleDeviceStrategy.training_step"][-1] == "2"  # the 2 active steps


def test_a_failed_fit_stops_the_ember_profiler(tmp_path):
    class Failing(Classifier):
        def training_step(self, batch, batch_idx):
            raise ValueError("boom")

    add = em.Tensor.__add__
    with pytest.raises(ValueError, match="boom"):
        _fit("pytorch", model=Failing(), root=str(tmp_path))  # its trace goes to the root dir, not the cwd
    assert em.Tensor.__add__ is add  # the op wrappers are gone
    with em.profiler.profile() as prof:  # and a new profiler may start
        em.ones(1) + 1
    assert [e.name for e in prof.events()] == ["ember::ones", "ember::add"]
