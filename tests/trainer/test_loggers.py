"""TensorBoardLogger and CSVLogger: what a fit writes, read back with TensorBoard's own reader and as CSV text.

The module logs numbers chosen so every expected value is known by hand: ``a`` = batch_idx + 1 + 10 * epoch (step
and epoch values), ``val`` = epoch + 0.5. Two epochs of three batches, no sanity check. Step values go to the loggers
at step ``_batches_that_stepped`` (0-based), epoch values at the last training step of the epoch (Lightning).
"""
import csv
import glob
import os

import numpy as np
import pytest
import yaml

import ember as em
from ember.core import nn
from ember.core.data import DataLoader
from ember.loggers import CSVLogger, TensorBoardLogger

from trainer_testing import make_dataset

EventAccumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator").EventAccumulator


class Logged(em.LightningModule):
    def __init__(self, lr=0.1, name="net", nested=None):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        self.log("a", float(batch_idx + 1 + 10 * self.current_epoch), on_step=True, on_epoch=True)
        return nn.functional.cross_entropy(self(x), y)

    def validation_step(self, batch, batch_idx):
        self.log("val", self.current_epoch + 0.5)

    def configure_optimizers(self):
        return em.optim.SGD(self.parameters(), lr=self.hparams.lr)


def run_fit(tmp_path, loggers, log_every_n_steps=1, model=None):
    trainer = em.Trainer(max_epochs=2, logger=loggers, log_every_n_steps=log_every_n_steps, num_sanity_val_steps=0,
                         enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
                         default_root_dir=str(tmp_path))
    data = DataLoader(make_dataset(12), batch_size=4)  # 3 batches per epoch
    trainer.fit(model or Logged(nested={"depth": 2, "act": "relu"}), data, data)
    return trainer


def accumulator(directory):
    return EventAccumulator(str(directory), size_guidance={"scalars": 0, "tensors": 0}).Reload()


def scalars(ea, tag):
    return [(e.step, e.value) for e in ea.Scalars(tag)]


# ------------------------------------------------------------------------------------------------ TensorBoard
def test_tensorboard_scalars_of_a_fit(tmp_path):
    logger = TensorBoardLogger(tmp_path)
    run_fit(tmp_path, logger)
    assert logger.log_dir == str(tmp_path / "lightning_logs" / "version_0")
    ea = accumulator(logger.log_dir)
    assert sorted(ea.Tags()["scalars"]) == ["a_epoch", "a_step", "epoch", "hp_metric", "val"]
    assert scalars(ea, "a_step") == [(0, 1.0), (1, 2.0), (2, 3.0), (3, 11.0), (4, 12.0), (5, 13.0)]
    assert scalars(ea, "a_epoch") == [(2, 2.0), (5, 12.0)]  # epoch means, at the last step of each epoch
    assert scalars(ea, "val") == [(2, 0.5), (5, 1.5)]
    # the epoch scalar beside every logged dict: 3 step logs, then validation and epoch-end logs, per epoch
    assert scalars(ea, "epoch") == [(0, 0.0), (1, 0.0), (2, 0.0), (2, 0.0), (2, 0.0),
                                    (3, 1.0), (4, 1.0), (5, 1.0), (5, 1.0), (5, 1.0)]
    assert scalars(ea, "hp_metric") == [(0, -1.0)]


def test_tensorboard_log_every_n_steps(tmp_path):
    logger = TensorBoardLogger(tmp_path)
    run_fit(tmp_path, logger, log_every_n_steps=2)
    # (batches that stepped + 1) % 2 == 0 -> steps 1, 3, 5
    assert scalars(accumulator(logger.log_dir), "a_step") == [(1, 2.0), (3, 11.0), (5, 13.0)]


def test_tensorboard_hparams_record_and_yaml(tmp_path):
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData
    logger = TensorBoardLogger(tmp_path, name="exp")
    run_fit(tmp_path, logger)
    ea = accumulator(logger.log_dir)
    content = ea.PluginTagToContent("hparams")
    assert sorted(content) == ["_hparams_/experiment", "_hparams_/session_end_info", "_hparams_/session_start_info"]
    start = HParamsPluginData.FromString(content["_hparams_/session_start_info"]).session_start_info
    assert start.hparams["lr"].number_value == pytest.approx(0.1)
    assert start.hparams["name"].string_value == "net"
    assert start.hparams["nested/depth"].number_value == 2  # nested dicts are flattened with "/"
    assert start.hparams["nested/act"].string_value == "relu"
    experiment = HParamsPluginData.FromString(content["_hparams_/experiment"]).experiment
    assert [m.name.tag for m in experiment.metric_infos] == ["hp_metric"]
    assert sorted(h.name for h in experiment.hparam_infos) == ["lr", "name", "nested/act", "nested/depth"]
    with open(os.path.join(logger.log_dir, "hparams.yaml")) as f:
        assert yaml.safe_load(f) == {"lr": 0.1, "name": "net", "nested": {"depth": 2, "act": "relu"}}


def test_tensorboard_hp_metric_forms(tmp_path):
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData
    logger = TensorBoardLogger(tmp_path, default_hp_metric=False)
    logger.log_hyperparams({"lr": 0.5})  # no metric at all: only hparams.yaml material
    logger.log_hyperparams({"lr": 0.5}, {"hp/acc": 0.75, "hp/loss": 0.25}, step=3)
    logger.finalize("success")
    ea = accumulator(logger.log_dir)
    assert scalars(ea, "hp/acc") == [(3, 0.75)] and scalars(ea, "hp/loss") == [(3, 0.25)]
    exp = HParamsPluginData.FromString(ea.PluginTagToContent("hparams")["_hparams_/experiment"]).experiment
    assert [m.name.tag for m in exp.metric_infos] == ["hp/acc", "hp/loss"]
    other = TensorBoardLogger(tmp_path)
    other.log_hyperparams({"lr": 0.5}, 0.125)  # a bare number is hp_metric
    other.finalize("success")
    assert scalars(accumulator(other.log_dir), "hp_metric") == [(0, 0.125)]


def graph_nodes(ea):
    """name -> (op, inputs, output shapes, attr string) of every node of the run's graph."""
    return {n.name: (n.op, list(n.input), [[d.size for d in s.dim] for s in n.attr["_output_shapes"].list.shape],
                     n.attr["attr"].s.decode()) for n in ea.Graph().node}


def test_tensorboard_graph(tmp_path):
    logger = TensorBoardLogger(tmp_path, log_graph=True)
    model = Logged()
    model.example_input_array = em.randn(3, 4)
    run_fit(tmp_path, logger, model=model)
    ea = accumulator(logger.log_dir)
    assert ea.Tags()["graph"] is True
    scope = "Logged/Sequential[net]"
    assert graph_nodes(ea) == {
        "input/x": ("IO Node", [], [[3, 4]], ""),
        f"{scope}/Linear[0]/weight": ("Parameter", [], [[8, 4]], ""),
        f"{scope}/Linear[0]/bias": ("Parameter", [], [[8]], ""),
        f"{scope}/Linear[0]/linear": ("ember::linear", ["input/x", f"{scope}/Linear[0]/weight",
                                                        f"{scope}/Linear[0]/bias"], [[3, 8]], ""),
        f"{scope}/ReLU[1]/relu": ("ember::relu", [f"{scope}/Linear[0]/linear"], [[3, 8]], "{inplace : False}"),
        f"{scope}/Linear[2]/weight": ("Parameter", [], [[2, 8]], ""),
        f"{scope}/Linear[2]/bias": ("Parameter", [], [[2]], ""),
        f"{scope}/Linear[2]/linear": ("ember::linear", [f"{scope}/ReLU[1]/relu", f"{scope}/Linear[2]/weight",
                                                        f"{scope}/Linear[2]/bias"], [[3, 2]], ""),
        "output/output.1": ("IO Node", [f"{scope}/Linear[2]/linear"], [[3, 2]], ""),
    }


def test_tensorboard_graph_scopes_ops_and_shapes_like_pytorch(tmp_path):
    """A conv net: PyTorch's scope names (ClassName[attribute] nested with '/'), op names, every layer including
    Dropout and BatchNorm's buffers, tensor methods in the model's own scope, shapes on every node."""
    class Net(em.LightningModule):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.ReLU(), nn.BatchNorm2d(2),
                                          nn.Dropout(0.5))
            self.head = nn.Linear(2 * 4 * 4, 3)

        def forward(self, image):
            return self.head(self.features(image).flatten(1)).softmax(-1)

    logger = TensorBoardLogger(tmp_path, log_graph=True)
    logger.log_graph(Net(), em.randn(5, 1, 4, 4))
    logger.finalize("success")
    nodes = graph_nodes(accumulator(logger.log_dir))
    f = "Net/Sequential[features]"
    assert list(nodes) == [
        "input/image", f"{f}/Conv2d[0]/weight", f"{f}/Conv2d[0]/bias", f"{f}/Conv2d[0]/conv2d", f"{f}/ReLU[1]/relu",
        f"{f}/BatchNorm2d[2]/running_mean", f"{f}/BatchNorm2d[2]/running_var", f"{f}/BatchNorm2d[2]/weight",
        f"{f}/BatchNorm2d[2]/bias", f"{f}/BatchNorm2d[2]/batch_norm", f"{f}/Dropout[3]/dropout", "Net/flatten",
        "Net/Linear[head]/weight", "Net/Linear[head]/bias", "Net/Linear[head]/linear", "Net/softmax",
        "output/output.1"]
    assert nodes[f"{f}/Conv2d[0]/conv2d"] == (
        "ember::conv2d", ["input/image", f"{f}/Conv2d[0]/weight", f"{f}/Conv2d[0]/bias"], [[5, 2, 4, 4]],
        "{stride : (1, 1), padding : (1, 1), dilation : (1, 1), groups : 1}")
    assert nodes[f"{f}/Dropout[3]/dropout"] == (
        "ember::dropout", [f"{f}/BatchNorm2d[2]/batch_norm"], [[5, 2, 4, 4]],
        "{p : 0.5, training : False, inplace : False, generator : None}")
    assert nodes[f"{f}/BatchNorm2d[2]/running_mean"][:3] == ("Buffer", [], [[2]])
    assert nodes["Net/flatten"][:3] == ("ember::flatten", [f"{f}/Dropout[3]/dropout"], [[5, 32]])
    assert nodes["Net/softmax"][:3] == ("ember::softmax", ["Net/Linear[head]/linear"], [[5, 3]])
    assert nodes["output/output.1"] == ("IO Node", ["Net/softmax"], [[5, 3]], "")


def test_tensorboard_graph_repeated_ops_multiple_outputs_and_constants(tmp_path):
    """Two calls of one op in one scope get distinct names; an op's k-th output is read as ``name:k``; a tensor no
    op made (a constant the forward keeps) is a Constant node in the scope that reads it."""
    class Split(nn.Module):
        def __init__(self):
            super().__init__()
            self.offset = em.tensor([1.0, 2.0])  # a plain attribute: neither parameter nor buffer

        def forward(self, x):
            a, b = x.chunk(2, dim=1)
            return (a + self.offset).relu() + b.relu()

    from ember.utils._tensorboard_graph import build_graph_def
    nodes = {n.name: (n.op, list(n.input), [[d.size for d in s.dim] for s in n.attr["_output_shapes"].list.shape])
             for n in build_graph_def(Split(), em.randn(3, 4)).node}
    assert nodes == {
        "input/x": ("IO Node", [], [[3, 4]]),
        "Split/chunk": ("ember::chunk", ["input/x"], [[3, 2], [3, 2]]),
        "Split/constant": ("Constant", [], [[2]]),
        "Split/add": ("ember::add", ["Split/chunk", "Split/constant"], [[3, 2]]),
        "Split/relu": ("ember::relu", ["Split/add"], [[3, 2]]),
        "Split/relu_1": ("ember::relu", ["Split/chunk:1"], [[3, 2]]),
        "Split/add_1": ("ember::add", ["Split/relu", "Split/relu_1"], [[3, 2]]),
        "output/output.1": ("IO Node", ["Split/add_1"], [[3, 2]]),
    }


def test_graph_tracing_changes_no_state(tmp_path):
    class WithDropout(Logged):
        def forward(self, x):
            return nn.functional.dropout(self.net(x), 0.5, self.training)

    model = WithDropout()
    model.train()
    logger = TensorBoardLogger(tmp_path, log_graph=True)
    x = em.randn(2, 4)
    state = em.random.get_rng_state()
    np_state = np.random.get_state()[1].copy()
    logger.log_graph(model, x)
    assert em.random.get_rng_state().numpy().tobytes() == state.numpy().tobytes()
    assert model.training and all(m.training for m in model.modules())
    assert all(p.grad is None for p in model.parameters())
    assert (np.random.get_state()[1] == np_state).all()


def test_graph_not_logged_without_input_or_flag(tmp_path):
    logger = TensorBoardLogger(tmp_path, log_graph=True)
    with pytest.warns(UserWarning, match="example_input_array"):
        logger.log_graph(Logged())
    with pytest.warns(UserWarning, match="can't be traced"):
        logger.log_graph(Logged(), input_array="not a tensor")
    quiet = TensorBoardLogger(tmp_path / "q")  # log_graph=False: nothing, not even a directory
    quiet.log_graph(Logged(), em.randn(1, 4))
    assert not os.path.exists(tmp_path / "q")


def test_tensorboard_directories_and_versions(tmp_path):
    root = tmp_path / "lightning_logs"
    (root / "version_0").mkdir(parents=True)
    (root / "version_3").mkdir()
    (root / "version_x").mkdir()
    (root / "version_7").write_text("a file, not a run")
    logger = TensorBoardLogger(tmp_path)
    assert logger.version == 4 and logger.name == "lightning_logs" and logger.save_dir == str(tmp_path)
    assert logger.log_dir == str(root / "version_4")
    assert not os.path.exists(logger.log_dir)  # created lazily, on the first write
    logger.log_metrics({"x": 1.0}, step=0)
    assert glob.glob(str(root / "version_4" / "events.out.tfevents.*"))
    assert TensorBoardLogger(tmp_path, version="run").log_dir == str(root / "run")
    assert TensorBoardLogger(tmp_path, name="", version=2).log_dir == str(tmp_path / "version_2")
    sub = TensorBoardLogger(tmp_path, name="n", version=1, sub_dir="train")
    assert sub.log_dir == str(tmp_path / "n" / "version_1" / "train")
    assert TensorBoardLogger(tmp_path / "fresh").version == 0


def test_tensorboard_prefix_dict_values_and_experiment(tmp_path):
    from tensorboardX import SummaryWriter
    logger = TensorBoardLogger(tmp_path, prefix="train", flush_secs=1)
    assert isinstance(logger.experiment, SummaryWriter)
    logger.log_metrics({"loss": em.tensor(0.5), "n": 3}, step=7)
    logger.log_metrics({"pair": {"a": 1.0, "b": 2.0}}, step=8)  # a dict goes through add_scalars (sub-runs)
    with pytest.raises(ValueError, match="you tried to log"):
        logger.log_metrics({"bad": "text"}, step=9)
    logger.finalize("success")
    ea = accumulator(logger.log_dir)
    assert scalars(ea, "train-loss") == [(7, 0.5)] and scalars(ea, "train-n") == [(7, 3.0)]
    assert scalars(accumulator(os.path.join(logger.log_dir, "train-pair", "a")), "train-pair") == [(8, 1.0)]
    assert scalars(accumulator(os.path.join(logger.log_dir, "train-pair", "b")), "train-pair") == [(8, 2.0)]


def test_only_rank_zero_writes(tmp_path):
    logger = TensorBoardLogger(tmp_path)
    logger._rank = 1
    logger.experiment.add_scalar("x", 1.0, 0)
    assert not os.path.exists(tmp_path / "lightning_logs")


def test_several_loggers_at_once(tmp_path):
    tb, csv_logger = TensorBoardLogger(tmp_path, name="tb"), CSVLogger(tmp_path, name="csv")
    trainer = run_fit(tmp_path, [tb, csv_logger])
    assert trainer.loggers == [tb, csv_logger] and trainer.logger is tb
    assert scalars(accumulator(tb.log_dir), "val") == [(2, 0.5), (5, 1.5)]
    with open(os.path.join(csv_logger.log_dir, "metrics.csv")) as f:
        assert [row["val"] for row in csv.DictReader(f) if row["val"]] == ["0.5", "1.5"]


# -------------------------------------------------------------------------------------------------------- CSV
def test_csv_content_of_a_fit(tmp_path):
    logger = CSVLogger(tmp_path)
    run_fit(tmp_path, logger, log_every_n_steps=2)
    assert logger.log_dir == str(tmp_path / "lightning_logs" / "version_0")
    with open(os.path.join(logger.log_dir, "metrics.csv"), newline="") as f:
        text = f.read()
    # rows in logging order: step values at steps 1, 3, 5; validation then epoch values at steps 2 and 5.
    # As in Lightning, the trainer adds the epoch number (an int) to every row it logs.
    assert text == ("a_epoch,a_step,epoch,step,val\r\n"
                    ",2.0,0,1,\r\n"
                    ",,0,2,0.5\r\n"
                    "2.0,,0,2,\r\n"
                    ",11.0,1,3,\r\n"
                    ",13.0,1,5,\r\n"
                    ",,1,5,1.5\r\n"
                    "12.0,,1,5,\r\n")
    with open(os.path.join(logger.log_dir, "hparams.yaml")) as f:
        assert yaml.safe_load(f) == {"lr": 0.1, "name": "net", "nested": {"depth": 2, "act": "relu"}}


def test_csv_new_columns_keep_earlier_rows(tmp_path):
    logger = CSVLogger(tmp_path, name="exp", version=3, flush_logs_every_n_steps=1)
    logger.log_metrics({"a": 1}, step=0)
    path = os.path.join(tmp_path, "exp", "version_3", "metrics.csv")
    with open(path, newline="") as f:
        assert f.read() == "a,step\r\n1,0\r\n"
    logger.log_metrics({"b": 2.5}, step=1)
    logger.log_metrics({"a": 3, "b": 4.5}, step=2)
    with open(path, newline="") as f:
        assert f.read() == "a,b,step\r\n1,,0\r\n,2.5,1\r\n3,4.5,2\r\n"
    assert logger.experiment.metrics_keys == ["a", "b", "step"]


def test_csv_flush_every_n_steps_and_finalize(tmp_path):
    logger = CSVLogger(tmp_path, flush_logs_every_n_steps=3, prefix="p")
    path = os.path.join(logger.log_dir, "metrics.csv")
    logger.log_metrics({"x": 0.5}, step=0)
    logger.log_metrics({"x": 1.5}, step=1)
    assert not os.path.exists(path)
    logger.log_metrics({"x": 2.5}, step=2)  # (2 + 1) % 3 == 0: written
    logger.log_metrics({"x": 3.5}, step=3)
    with open(path, newline="") as f:
        assert f.read() == "p-x,step\r\n0.5,0\r\n1.5,1\r\n2.5,2\r\n"
    logger.finalize("success")
    with open(path, newline="") as f:
        assert f.read().endswith("2.5,2\r\n3.5,3\r\n")


def test_csv_write_that_fails_midway_leaves_the_previous_file(tmp_path, monkeypatch):
    logger = CSVLogger(tmp_path, flush_logs_every_n_steps=1)
    logger.log_metrics({"x": 1.0}, step=0)
    path = os.path.join(logger.log_dir, "metrics.csv")
    before = open(path, newline="").read()

    def crash(self, rows):
        self.writerow(next(iter(rows)))  # half the rows reach the temporary file...
        raise OSError(28, "No space left on device")  # ...then the disk is full

    monkeypatch.setattr(csv.DictWriter, "writerows", crash)
    with pytest.raises(OSError):
        logger.log_metrics({"x": 2.0, "y": 3.0}, step=1)
    assert open(path, newline="").read() == before
    assert os.listdir(logger.log_dir) == ["metrics.csv"]  # no temporary file left behind


def test_csv_directory_versions_and_old_file(tmp_path):
    (tmp_path / "lightning_logs" / "version_0").mkdir(parents=True)
    assert CSVLogger(tmp_path).version == 1
    run = tmp_path / "lightning_logs" / "mine"
    run.mkdir()
    (run / "metrics.csv").write_text("old,step\n1,0\n")
    logger = CSVLogger(tmp_path, version="mine")
    with pytest.warns(UserWarning, match="exists and is not empty"):
        logger.log_metrics({"new": 2.0}, step=0)
    assert not (run / "metrics.csv").exists()  # the other run's rows are gone before ours are written
    logger.finalize("success")
    assert (run / "metrics.csv").read_bytes() == b"new,step\r\n2.0,0\r\n"
    untouched = CSVLogger(tmp_path / "nothing")
    untouched.finalize("success")
    assert not os.path.exists(tmp_path / "nothing")


def test_csv_hparams_yaml_is_safe(tmp_path):
    logger = CSVLogger(tmp_path)
    with pytest.warns(UserWarning, match="Skipping 'obj' parameter"):
        logger.log_hyperparams({"lr": np.float32(0.5), "layers": (1, 2), "obj": object(), "act": None})
        logger.save()
    with open(os.path.join(logger.log_dir, "hparams.yaml")) as f:
        text = f.read()
    assert "!!python" not in text
    assert yaml.safe_load(text) == {"lr": 0.5, "layers": [1, 2], "act": None}
