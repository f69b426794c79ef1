"""Hostile ember files: zip bombs, ``.npy`` headers that lie about their size, malformed manifests and optimizer
states that do not fit their parameters. Each is refused with a SerializationError (or ValueError for the optimizer)
naming the file and the entry, and none allocates more than the file's own size."""
import io
import json
import tracemalloc
import zipfile

import numpy as np
import pytest

import ember as em
from ember.core import nn, optim
from ember.core.serialization import MANIFEST, SerializationError


def _archive(path, manifest, arrays=(), compress=zipfile.ZIP_STORED):
    """Write a zip with ``manifest`` (a dict or raw bytes) and ``arrays`` as ember/data/<k>.npy members."""
    with zipfile.ZipFile(path, "w", compression=compress) as zf:
        text = manifest if isinstance(manifest, bytes) else json.dumps(manifest).encode()
        zf.writestr(MANIFEST, text)
        for k, arr in enumerate(arrays):
            buf = io.BytesIO()
            np.lib.format.write_array(buf, arr, allow_pickle=False) if isinstance(arr, np.ndarray) else buf.write(arr)
            zf.writestr(f"ember/data/{k}.npy", buf.getvalue())
    return path


def _manifest(root, n_arrays=1):
    return {"format": "ember", "version": 1, "n_arrays": n_arrays, "root": root}


def _load_peak(path):
    """Load ``path`` expecting a SerializationError; return (message, peak bytes allocated)."""
    tracemalloc.start()
    try:
        with pytest.raises(SerializationError) as info:
            em.load(path)
        return str(info.value), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_zip_bomb_member_is_refused_without_expanding_it(tmp_path):
    bomb = np.zeros(50_000_000, dtype=np.uint8)  # 50 MB of zeros deflate to ~50 KB
    path = _archive(tmp_path / "bomb.ckpt", _manifest({"__ndarray__": 0}), [bomb], compress=zipfile.ZIP_DEFLATED)
    assert path.stat().st_size < 500_000
    message, peak = _load_peak(path)
    assert "bomb.ckpt" in message and "compressed" in message
    assert peak < 5_000_000


def test_npy_header_declaring_more_than_the_member_holds_is_refused_before_allocating(tmp_path):
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False,
                                                  "shape": (100_000, 100_000)})  # 80 GB declared
    lie = header.getvalue() + b"\0" * 500_000
    path = _archive(tmp_path / "lie.ckpt", _manifest({"__ndarray__": 0}), [lie])
    message, peak = _load_peak(path)
    assert "lie.ckpt" in message and "ember/data/0.npy" in message and "(100000, 100000)" in message
    assert peak < 5_000_000


def test_zip_directory_declaring_a_huge_member_is_refused(tmp_path):
    path = _archive(tmp_path / "big.ckpt", _manifest({"__ndarray__": 0}), [np.arange(10.0)])
    data = bytearray(path.read_bytes())
    central = data.rindex(b"PK\x01\x02")  # the last central-directory entry is the array's
    data[central + 20:central + 24] = (2 ** 31).to_bytes(4, "little")  # compressed size
    data[central + 24:central + 28] = (2 ** 31).to_bytes(4, "little")  # uncompressed size
    path.write_bytes(bytes(data))
    message, peak = _load_peak(path)
    assert "big.ckpt" in message and "ember/data/0.npy" in message
    assert peak < 5_000_000


def test_negative_shape_in_an_npy_header_is_refused(tmp_path):
    header = io.BytesIO()
    header.write(np.lib.format.magic(1, 0))
    text = "{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }"
    text += " " * (64 - 10 - len(text) - 1) + "\n"
    header.write(len(text).to_bytes(2, "little") + text.encode("latin1"))
    path = _archive(tmp_path / "neg.ckpt", _manifest({"__ndarray__": 0}), [header.getvalue()])
    message, _ = _load_peak(path)
    assert "neg.ckpt" in message and "ember/data/0.npy" in message


_MALFORMED = {
    "dict_not_a_list": ({"__dict__": 5}, "root"),
    "dict_item_not_a_pair": ({"__dict__": [[1, 2, 3]]}, "root"),
    "unhashable_key": ({"__dict__": [[{"__dict__": []}, 1]]}, "root"),
    "tuple_not_a_list": ({"__dict__": [["a", {"__tuple__": 7}]]}, "root['a']"),
    "tensor_index_string": ({"__dict__": [["w", {"__tensor__": "0"}]]}, "root['w']"),
    "tensor_index_negative": ({"__dict__": [["w", {"__tensor__": -1}]]}, "root['w']"),
    "tensor_index_out_of_range": ({"__dict__": [["w", {"__tensor__": 10 ** 12}]]}, "root['w']"),
    "tensor_index_bool": ({"__dict__": [["w", {"__tensor__": True}]]}, "root['w']"),
    "ndarray_index_float": ([{"__ndarray__": 0.5}], "root[0]"),
    "float_not_a_number": ([{"__float__": "abc"}], "root[0]"),
    "float_not_a_string": ([{"__float__": 3}], "root[0]"),
    "complex_wrong_arity": ([{"__complex__": [1]}], "root[0]"),
    "complex_strings": ([{"__complex__": ["a", "b"]}], "root[0]"),
    "bytes_bad_base64": ([{"__bytes__": "!!not base64!!"}], "root[0]"),
    "bytes_not_a_string": ([{"__bytes__": 12}], "root[0]"),
    "negative_size": ({"__dict__": [["s", {"__size__": [3, -1]}]]}, "root['s']"),
    "size_of_strings": ({"__dict__": [["s", {"__size__": ["x"]}]]}, "root['s']"),
    "unknown_dtype": ([{"__dtype__": "float3"}], "root[0]"),
    "unknown_device": ([{"__device__": "tpu:9"}], "root[0]"),
    "unknown_tag": ({"__dict__": [["m", {"__module__": "os.system"}]]}, "root['m']"),
    "set_of_lists_of_lists": ([{"__set__": [[[1]]]}], "root[0]"),
}


def _nested(depth):
    node = []
    for _ in range(depth):
        node = [node]
    return node


_MALFORMED["nested_400_deep"] = (_nested(400), "root[0][0]")  # valid JSON, deeper than any checkpoint


@pytest.mark.parametrize("case", sorted(_MALFORMED))
def test_malformed_manifest_entries_name_the_file_and_the_entry(tmp_path, case):
    root, entry = _MALFORMED[case]
    path = _archive(tmp_path / f"{case}.ckpt", _manifest(root), [np.arange(3.0)])
    with pytest.raises(SerializationError) as info:
        em.load(path)
    message = str(info.value)
    assert f"{case}.ckpt" in message
    assert f"manifest entry {entry}" in message, message


@pytest.mark.parametrize("manifest", [b"[" * 200_000 + b"]" * 200_000,
                                      json.dumps({"format": "ember", "version": 1, "n_arrays": -3}).encode(),
                                      json.dumps({"format": "ember", "version": "1"}).encode(),
                                      b"\xff\xfe not utf-8"])
def test_malformed_manifest_documents_are_refused(tmp_path, manifest):
    path = _archive(tmp_path / "doc.ckpt", manifest)
    with pytest.raises(SerializationError, match="doc.ckpt"):
        em.load(path)


def test_valid_files_still_round_trip_after_hardening(tmp_path):
    obj = {"a": em.arange(6.0).reshape(2, 3), (1, "x"): [1.5, float("inf"), b"\x00"], "s": em.Size([2, 0]),
           "n": {"__dict__": "a user dict whose key looks like a tag"}}
    em.save(obj, tmp_path / "ok.ckpt")
    back = em.load(tmp_path / "ok.ckpt")
    assert back["a"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert back[(1, "x")] == [1.5, float("inf"), b"\x00"] and back["s"] == em.Size([2, 0])
    assert back["n"] == {"__dict__": "a user dict whose key looks like a tag"}


def test_optimizer_state_with_wrong_shapes_is_refused_at_load():
    model = nn.Linear(3, 2)
    opt = optim.Adam(model.parameters(), lr=0.1)
    model(em.randn(4, 3)).sum().backward()
    opt.step()
    state = opt.state_dict()
    state["state"][0]["exp_avg"] = em.zeros(3, 2)
    fresh = optim.Adam(nn.Linear(3, 2).parameters(), lr=0.1)
    with pytest.raises(ValueError) as info:
        fresh.load_state_dict(state)
    message = str(info.value)
    assert "parameter 0" in message and "exp_avg" in message
    assert "(3, 2)" in message and "(2, 3)" in message


def test_optimizer_state_shape_check_names_parameters_by_name_when_known():
    model = nn.Linear(3, 2)
    opt = optim.SGD(model.named_parameters(), lr=0.1, momentum=0.9)
    model(em.randn(4, 3)).sum().backward()
    opt.step()
    state = opt.state_dict()
    state["state"][1]["momentum_buffer"] = em.zeros(5)
    with pytest.raises(ValueError, match=r"'bias'.*momentum_buffer.*\(5,\).*\(2,\)"):
        optim.SGD(nn.Linear(3, 2).named_parameters(), lr=0.1, momentum=0.9).load_state_dict(state)
