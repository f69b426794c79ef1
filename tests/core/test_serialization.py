"""ember.save / ember.load: exact round trips, safe refusals, atomic writes."""
import io
import json
import math
import os
import pickle
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import ember as em
from ember.core import nn
from ember.core.serialization import MANIFEST, SerializationError


def test_state_dict_round_trip_is_exact(tmp_path):
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    path = tmp_path / "model.ember"
    em.save(model.state_dict(), path)
    loaded = em.load(path)
    assert list(loaded) == list(model.state_dict())
    for k, v in model.state_dict().items():
        assert loaded[k].dtype == v.dtype
        np.testing.assert_array_equal(loaded[k].numpy(), v.numpy())
    other = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    assert repr(other.load_state_dict(em.load(path))) == "<All keys matched successfully>"
    x = em.randn(5, 3)
    np.testing.assert_array_equal(other(x).detach().numpy(), model(x).detach().numpy())


def test_nested_checkpoint_structures_keep_their_types(tmp_path):
    state = OrderedDict(w=em.randn(2, 2), steps=em.tensor([1, 2, 3]))
    state._metadata = OrderedDict({"": {"version": 1}})
    ckpt = {
        "epoch": 3, "global_step": 1200, "lr": 1e-3, "best": float("inf"), "nan": float("nan"), "done": False,
        "name": "run-1", "none": None, "state_dict": state,
        "optimizer": {"state": {0: {"step": 10, "exp_avg": em.zeros(2)}, 1: {"step": 10}},
                      "param_groups": [{"params": [0, 1], "betas": (0.9, 0.999), "lr": 0.01}]},
        "callbacks": {"ModelCheckpoint{'monitor': 'val_loss'}": {"best_k_models": {"a.ckpt": 0.5}}},
        (1, "pair"): [1, (2, 3)], 2.5: "float key", True: "bool key",
        "array": np.arange(6, dtype=np.int16).reshape(2, 3), "scalar": np.float32(1.5), "complex": 1 - 2j,
        "bytes": b"\x00\xff", "dtype": em.float64, "size": em.Size([2, 3]), "set": {1, 2},
    }
    em.save(ckpt, tmp_path / "ckpt.ember")
    out = em.load(tmp_path / "ckpt.ember")
    assert list(out.keys()) == list(ckpt.keys())
    assert out["epoch"] == 3 and out["lr"] == 1e-3 and out["best"] == math.inf and math.isnan(out["nan"])
    assert out["done"] is False and out["none"] is None and out["name"] == "run-1"
    assert isinstance(out["state_dict"], OrderedDict) and out["state_dict"]._metadata == {"": {"version": 1}}
    assert out["state_dict"]["steps"].dtype == em.int64
    assert list(out["optimizer"]["state"].keys()) == [0, 1]  # int keys stay ints
    assert out["optimizer"]["param_groups"][0]["betas"] == (0.9, 0.999)  # tuples stay tuples
    assert out[(1, "pair")] == [1, (2, 3)] and out[2.5] == "float key" and out[True] == "bool key"
    assert out["array"].dtype == np.int16 and out["array"].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert isinstance(out["scalar"], np.float32) and out["scalar"] == 1.5
    assert out["complex"] == 1 - 2j and out["bytes"] == b"\x00\xff"
    assert out["dtype"] is em.float64 and out["size"] == em.Size([2, 3]) and out["set"] == {1, 2}


def test_parameters_load_as_tensors_keeping_requires_grad_and_sharing():
    p = nn.Parameter(em.ones(2))
    buf = io.BytesIO()
    em.save({"a": p, "b": p, "c": p.detach()}, buf)
    buf.seek(0)
    out = em.load(buf)
    assert type(out["a"]) is em.Tensor and out["a"].requires_grad and out["a"].is_leaf
    assert out["a"] is out["b"]  # one tensor saved twice loads as one object
    assert not out["c"].requires_grad


def test_file_format_is_a_zip_of_json_and_npy(tmp_path):
    path = tmp_path / "x.ember"
    em.save({"t": em.arange(4.0), "n": 1}, path)
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        assert names[0] == MANIFEST and all(n.endswith(".npy") for n in names[1:])
        assert all(i.compress_type == zipfile.ZIP_STORED for i in zf.infolist())
        manifest = json.loads(zf.read(MANIFEST))
        assert manifest["format"] == "ember"
        with zf.open(names[1]) as fp:
            np.testing.assert_array_equal(np.lib.format.read_array(fp, allow_pickle=False), [0, 1, 2, 3])


def test_pickle_files_are_refused_with_a_clear_error(tmp_path):
    path = tmp_path / "model.pt"
    with open(path, "wb") as fh:
        pickle.dump({"w": np.ones(2)}, fh)
    with pytest.raises(SerializationError, match="looks like a pickle file, not an ember file.*can run arbitrary "
                                                 "code"):
        em.load(path)


def test_torch_style_zip_and_plain_zip_are_refused(tmp_path):
    path = tmp_path / "torch.pt"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("archive/data.pkl", b"\x80\x02}q\x00.")
    with pytest.raises(SerializationError, match="not an ember file.*PyTorch checkpoint"):
        em.load(path)
    np.savez(tmp_path / "a.npz", x=np.ones(2))
    with pytest.raises(SerializationError, match="not an ember file.*numpy.load"):
        em.load(tmp_path / "a.npz")
    (tmp_path / "junk.bin").write_bytes(b"hello, world")
    with pytest.raises(SerializationError, match="is not an ember file"):
        em.load(tmp_path / "junk.bin")


def test_truncated_file_gives_a_clear_error_naming_the_file(tmp_path):
    path = tmp_path / "big.ember"
    em.save({"w": em.randn(100, 100)}, path)
    data = path.read_bytes()
    for cut in (len(data) // 2, len(data) - 10, 40):
        bad = tmp_path / f"cut{cut}.ember"
        bad.write_bytes(data[:cut])
        with pytest.raises(SerializationError, match=f"cut{cut}.ember.*(truncated|corrupted)"):
            em.load(bad)
    (tmp_path / "empty.ember").write_bytes(b"")
    with pytest.raises(SerializationError, match="empty"):
        em.load(tmp_path / "empty.ember")


def test_corrupted_array_bytes_fail_the_checksum(tmp_path):
    path = tmp_path / "c.ember"
    em.save({"w": em.zeros(1000)}, path)
    data = bytearray(path.read_bytes())
    pos = data.rfind(b"\x00" * 64)
    data[pos] = 1
    path.write_bytes(bytes(data))
    with pytest.raises(SerializationError, match="checksum"):
        em.load(path)


def test_unsupported_objects_are_named_and_nothing_is_written(tmp_path):
    path = tmp_path / "bad.ember"
    with pytest.raises(SerializationError, match=r"object of type .*Linear.* at obj\['model'\].*state_dict"):
        em.save({"model": nn.Linear(1, 1)}, path)
    assert not path.exists() and os.listdir(tmp_path) == []
    with pytest.raises(SerializationError, match="object array"):
        em.save(np.array([object()]), tmp_path / "o.ember")


def test_save_is_atomic_and_replaces_existing_file(tmp_path, monkeypatch):
    path = tmp_path / "ck.ember"
    em.save({"v": 1}, path)
    from ember.core import serialization as S
    original = S._write_npy

    def crash(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(S, "_write_npy", crash)
    with pytest.raises(KeyboardInterrupt):
        em.save({"v": 2, "t": em.ones(3)}, path)
    monkeypatch.setattr(S, "_write_npy", original)
    assert em.load(path) == {"v": 1}  # the old file is intact
    assert os.listdir(tmp_path) == ["ck.ember"]  # and no temporary file is left behind
    em.save({"v": 3}, str(path))
    assert em.load(str(path)) == {"v": 3}


def test_bytesio_and_map_location(tmp_path):
    buf = io.BytesIO()
    em.save([em.ones(2, dtype=em.float64), (1, "a")], buf)
    buf.seek(0)
    out = em.load(buf, map_location="cpu", weights_only=True)
    assert out[0].dtype == em.float64 and out[1] == (1, "a")
    buf.seek(0)
    out = em.load(buf, map_location=lambda t, loc: t * 2)
    assert out[0].tolist() == [2.0, 2.0]


def test_views_and_fortran_ordered_arrays_round_trip():
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    buf = io.BytesIO()
    em.save({"view": em.from_numpy(base)[:, ::2],
             "fortran": np.asfortranarray(base), "empty": em.zeros(0, 3)}, buf)
    buf.seek(0)
    out = em.load(buf)
    np.testing.assert_array_equal(out["view"].numpy(), base[:, ::2])
    np.testing.assert_array_equal(out["fortran"], base)
    assert out["empty"].shape == em.Size([0, 3])
