"""``ember.utils.tensorboard.SummaryWriter``: every ``add_*`` method takes ember tensors; each is read back with
TensorBoard's own ``EventAccumulator`` (or, for embeddings, the projector files TensorBoard reads)."""

import numpy as np
import pytest

import ember as em
from ember.core import nn
from ember.utils.tensorboard import SummaryWriter, to_numpy

event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")


def accumulator(run_dir):
    acc = event_accumulator.EventAccumulator(str(run_dir), size_guidance={
        "scalars": 0, "tensors": 0, "histograms": 0, "images": 0, "graph": 0})
    acc.Reload()
    return acc


@pytest.fixture
def writer(tmp_path):
    w = SummaryWriter(str(tmp_path))
    yield w
    w.close()


def test_plain_tensorboardx_writer_rejects_ember_tensors(tmp_path):
    """Why the ember writer exists: tensorboardX has no way to register a tensor type (see the module docstring)."""
    from tensorboardX import SummaryWriter as Plain
    plain = Plain(str(tmp_path))
    with pytest.raises(NotImplementedError):
        plain.add_scalar("loss", em.tensor(0.5), 1)
    plain.close()


def test_add_scalar_with_tensor_value_and_step(writer, tmp_path):
    writer.add_scalar("loss", em.tensor(0.5), 1)
    writer.add_scalar("loss", em.tensor([0.25], dtype=em.float64), em.tensor(2))
    writer.add_scalar("loss", 0.125, 3)
    writer.close()  # tensorboardX's flush() does not wait for its writer thread; close() does
    events = accumulator(tmp_path).Scalars("loss")
    assert [(e.step, e.value) for e in events] == [(1, 0.5), (2, 0.25), (3, 0.125)]


def test_add_scalars_writes_one_run_per_key(writer, tmp_path):
    writer.add_scalars("acc", {"train": em.tensor(0.75), "val": em.tensor(0.5)}, 4)
    writer.close()  # tensorboardX's flush() does not wait for its writer thread; close() does
    for key, value in (("train", 0.75), ("val", 0.5)):
        (event,) = accumulator(tmp_path / "acc" / key).Scalars("acc")  # a sub-run per key, as tensorboardX does
        assert (event.step, event.value) == (4, value)


def test_add_histogram_of_a_parameter(writer, tmp_path):
    weight = nn.Parameter(em.tensor([0.0, 1.0, 1.0, 3.0]))  # requires grad: detached on the way
    writer.add_histogram("w", weight, 7)
    writer.close()  # tensorboardX's flush() does not wait for its writer thread; close() does
    (event,) = accumulator(tmp_path).Histograms("w")
    h = event.histogram_value
    assert event.step == 7 and (h.min, h.max, h.num, h.sum, h.sum_squares) == (0.0, 3.0, 4, 5.0, 11.0)


def test_add_image_and_add_images(writer, tmp_path):
    image = em.zeros(3, 4, 5)
    image[0, 1, 2] = 1.0  # one red pixel, CHW in [0, 1]
    writer.add_image("img", image, 1)
    writer.add_images("batch", em.ones(2, 1, 4, 4) * 0.5, 1)
    writer.close()  # tensorboardX's flush() does not wait for its writer thread; close() does
    acc = accumulator(tmp_path)
    (single,) = acc.Images("img")
    (grid,) = acc.Images("batch")
    assert (single.width, single.height) == (5, 4) and single.step == 1
    from PIL import Image
    import io
    pixels = np.asarray(Image.open(io.BytesIO(single.encoded_image_string)))
    assert pixels.shape == (4, 5, 3) and tuple(pixels[1, 2]) == (255, 0, 0) and pixels.sum() == 255
    assert grid.height == 4 and grid.width >= 8  # two 4x4 images side by side (with tensorboardX's padding)


def test_add_graph_of_an_ember_module(writer, tmp_path):
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    writer.add_graph(model, em.randn(5, 3))
    writer.close()  # tensorboardX's flush() does not wait for its writer thread; close() does
    graph = accumulator(tmp_path).Graph()
    names = {node.name for node in graph.node}
    assert "input/input" in names and "output/output.1" in names  # Sequential.forward(input)
    assert "Sequential/Linear[0]/weight" in names and "Sequential/Linear[2]/bias" in names
    assert "Sequential/Linear[0]/linear" in names and "Sequential/ReLU[1]/relu" in names
    with pytest.raises(ValueError, match="input_to_model"):
        writer.add_graph(model)


def test_add_hparams_with_tensor_values(writer, tmp_path):
    from tensorboard.plugins.hparams import plugin_data_pb2
    writer.add_hparams({"lr": em.tensor(0.01), "layers": 2}, {"hp/acc": em.tensor(0.875)}, name="trial")
    writer.close()  # tensorboardX's flush() does not wait for its writer thread; close() does
    acc = accumulator(tmp_path / "trial")
    (event,) = acc.Scalars("hp/acc")
    assert event.value == 0.875
    content = acc.PluginTagToContent("hparams")["_hparams_/session_start_info"]
    start = plugin_data_pb2.HParamsPluginData.FromString(content).session_start_info
    assert start.hparams["lr"].number_value == pytest.approx(0.01) and start.hparams["layers"].number_value == 2


def test_add_embedding_writes_the_projector_files(writer, tmp_path):
    vectors = em.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    writer.add_embedding(vectors, metadata=["a", "b", "c"], label_img=em.zeros(3, 1, 2, 2), global_step=0,
                         tag="points")
    writer.close()  # tensorboardX's flush() does not wait for its writer thread; close() does
    folder = tmp_path / "00000" / "points"
    rows = [line.split("\t") for line in (folder / "tensors.tsv").read_text().splitlines()]
    assert np.array(rows, dtype=float).tolist() == [[1, 2], [3, 4], [5, 6]]
    assert (folder / "metadata.tsv").read_text().split() == ["a", "b", "c"]
    assert (folder / "sprite.png").is_file()
    config = (tmp_path / "projector_config.pbtxt").read_text()
    assert 'tensor_name: "points:00000"' in config and "tensors.tsv" in config


def test_to_numpy_converts_nested_values():
    out = to_numpy({"a": [em.tensor(1.5), (em.tensor([1, 2]),)], "b": "text"})
    assert out["a"][0] == 1.5 and isinstance(out["a"][0], float)
    assert isinstance(out["a"][1], tuple) and out["a"][1][0].tolist() == [1, 2] and out["b"] == "text"


def test_tensorboard_logger_writes_through_the_ember_writer(tmp_path):
    from ember.loggers import TensorBoardLogger
    logger = TensorBoardLogger(str(tmp_path), name="")
    assert isinstance(logger.experiment, SummaryWriter)
    logger.experiment.add_histogram("h", em.ones(3), 0)
    logger.log_metrics({"m": em.tensor(2.0)}, step=5)
    logger.finalize("success")
    acc = accumulator(logger.log_dir)
    assert [(e.step, e.value) for e in acc.Scalars("m")] == [(5, 2.0)] and acc.Histograms("h")[0].histogram_value.num == 3
