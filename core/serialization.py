"""``ember.save`` / ``ember.load``: safe serialization without pickle.

An ember file is an uncompressed zip archive holding:

* ``ember/manifest.json``: one JSON document describing the saved object. Containers, numbers, strings, bools and
  ``None`` are written inline; each tensor or array is a reference ``{"__tensor__": k}`` to an array file;
* ``ember/data/<k>.npy``: one ``.npy`` file per distinct tensor or array (written and read with
  ``allow_pickle=False``).

Loading never runs code: the JSON is parsed into plain Python values and the arrays are read as raw numbers, so an
untrusted file can at worst fail to load. Pickle files (including PyTorch checkpoints) are refused with a clear error.

Writes to a path are atomic: the archive goes to a temporary file in the same directory, is flushed and fsync'ed,
then renamed over the destination with ``os.replace``, so an interrupted save never leaves a half-written file.

The JSON encoding round-trips the things checkpoints contain: dicts with ``str``, ``int``, ``float``, ``bool``,
``None`` or tuple keys (key types are kept, so an optimizer state keyed by parameter index reloads with int keys),
``OrderedDict`` (including a state_dict's ``_metadata``), lists, tuples, sets, complex numbers, ``bytes``, non-finite
floats, NumPy scalars and arrays, ember dtypes, devices and sizes.
"""
from __future__ import annotations

import base64
import io
import json
import math
import os
import tempfile
import zipfile
from collections import OrderedDict

import numpy as np

__all__ = ["save", "load", "SerializationError", "is_ember_file", "MANIFEST", "FORMAT_VERSION"]

MANIFEST = "ember/manifest.json"
_DATA_DIR = "ember/data/"
_FORMAT = "ember"
FORMAT_VERSION = 1
_PICKLE_REFUSAL = ("pickle files are refused because loading them can run arbitrary code; re-save the object with "
                   "ember.save (for a PyTorch checkpoint: load it with torch, convert the tensors with .numpy() and "
                   "save them with ember.save)")


class SerializationError(RuntimeError):
    """Raised when an object cannot be saved, or when a file is not a valid (or is a truncated) ember file."""


# --------------------------------------------------------------------------------------------------- encoding
class _Encoder:
    """Turns a Python object into a JSON-able tree plus a list of arrays (tensors are stored once each)."""

    def __init__(self):
        self.arrays = []        # (name, ndarray)
        self._memo = {}         # id(tensor or array) -> reference dict
        self._keepalive = []    # objects whose id() is memoised must stay alive while encoding

    def _store(self, obj, array, extra):
        key = id(obj)
        ref = self._memo.get(key)
        if ref is not None:
            return ref
        index = len(self.arrays)
        self.arrays.append((f"{_DATA_DIR}{index}.npy", array))
        ref = dict(extra)
        self._memo[key] = ref
        self._keepalive.append(obj)
        return ref

    def encode(self, obj, path="obj"):
        from .tensor import Tensor
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, int):
            return int(obj)
        if isinstance(obj, float):
            if math.isfinite(obj):
                return float(obj)
            return {"__float__": repr(float(obj))}
        if isinstance(obj, Tensor):
            array = np.asarray(obj._data) if type(obj._data) is np.ndarray else obj._data.get()
            self._check_array(array, path)
            index = len(self.arrays) if id(obj) not in self._memo else None
            return self._store(obj, array, {"__tensor__": index, "requires_grad": bool(obj._requires_grad)})
        if isinstance(obj, np.ndarray):
            self._check_array(obj, path)
            index = len(self.arrays) if id(obj) not in self._memo else None
            return self._store(obj, obj, {"__ndarray__": index})
        if isinstance(obj, np.generic):
            arr = np.asarray(obj)
            self._check_array(arr, path)
            if arr.dtype.kind == "O":
                raise SerializationError(f"ember.save cannot store the NumPy object scalar at {path}")
            index = len(self.arrays)
            self.arrays.append((f"{_DATA_DIR}{index}.npy", arr))
            return {"__npscalar__": index}
        if isinstance(obj, complex):
            return {"__complex__": [self.encode(obj.real), self.encode(obj.imag)]}
        if isinstance(obj, (bytes, bytearray)):
            return {"__bytes__": base64.b64encode(bytes(obj)).decode("ascii")}
        if isinstance(obj, dict):
            items = [[self._encode_key(k, path), self.encode(v, f"{path}[{k!r}]")] for k, v in obj.items()]
            out = {"__odict__" if isinstance(obj, OrderedDict) else "__dict__": items}
            metadata = getattr(obj, "_metadata", None)
            if isinstance(obj, OrderedDict) and isinstance(metadata, dict):
                out["_metadata"] = self.encode(metadata, f"{path}._metadata")
            return out
        if isinstance(obj, list):
            return [self.encode(v, f"{path}[{i}]") for i, v in enumerate(obj)]
        if isinstance(obj, tuple):
            from .tensor import Size
            if isinstance(obj, Size):
                return {"__size__": [int(s) for s in obj]}
            return {"__tuple__": [self.encode(v, f"{path}[{i}]") for i, v in enumerate(obj)]}
        if isinstance(obj, (set, frozenset)):
            tag = "__frozenset__" if isinstance(obj, frozenset) else "__set__"
            return {tag: [self._encode_key(v, path) for v in obj]}
        from .dtypes import dtype as _dtype
        if isinstance(obj, _dtype):
            return {"__dtype__": obj.name}
        from .device import device as _device
        if isinstance(obj, _device):
            return {"__device__": str(obj)}
        raise SerializationError(
            f"ember.save cannot store an object of type '{type(obj).__module__}.{type(obj).__qualname__}' at {path}: "
            "only tensors, NumPy arrays, numbers, strings, bools, None, bytes, dtypes, devices and "
            "dicts/lists/tuples/sets of them can be saved (ember never pickles). Save the object's state_dict() "
            "instead of the object itself.")

    def _encode_key(self, key, path):
        if key is None or isinstance(key, (bool, int, float, str, tuple, complex, bytes)) or \
                isinstance(key, np.generic):
            if isinstance(key, np.generic):
                key = key.item()
            return self.encode(key, path)
        raise SerializationError(f"ember.save cannot store a dict key of type '{type(key).__name__}' in {path}: keys "
                                 "must be str, int, float, bool, None, bytes or tuples of those")

    @staticmethod
    def _check_array(array, path):
        if array.dtype.kind == "O" or array.dtype.hasobject:
            raise SerializationError(f"ember.save cannot store the object array at {path} (dtype object): only "
                                     "numeric and bool arrays can be saved")
        if array.dtype.kind == "V":
            raise SerializationError(f"ember.save cannot store the structured array at {path} (dtype "
                                     f"{array.dtype})")


class _Decoder:
    def __init__(self, read_array, map_location):
        self._read_array = read_array
        self._map_location = map_location
        self._loaded = {}

    def decode(self, node):
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, list):
            return [self.decode(v) for v in node]
        if not isinstance(node, dict):
            raise SerializationError(f"unexpected JSON value of type {type(node).__name__} in the manifest")
        if "__tensor__" in node:
            return self._tensor(node)
        if "__ndarray__" in node:
            return self._array(node["__ndarray__"])
        if "__npscalar__" in node:
            return self._read_array(node["__npscalar__"])[()]
        if "__dict__" in node:
            return {self._key(k): self.decode(v) for k, v in node["__dict__"]}
        if "__odict__" in node:
            out = OrderedDict((self._key(k), self.decode(v)) for k, v in node["__odict__"])
            if "_metadata" in node:
                out._metadata = self.decode(node["_metadata"])
            return out
        if "__tuple__" in node:
            return tuple(self.decode(v) for v in node["__tuple__"])
        if "__float__" in node:
            return float(node["__float__"])
        if "__complex__" in node:
            re, im = node["__complex__"]
            return complex(self.decode(re), self.decode(im))
        if "__bytes__" in node:
            return base64.b64decode(node["__bytes__"])
        if "__set__" in node:
            return {self._key(v) for v in node["__set__"]}
        if "__frozenset__" in node:
            return frozenset(self._key(v) for v in node["__frozenset__"])
        if "__size__" in node:
            from .tensor import Size
            return Size(node["__size__"])
        if "__dtype__" in node:
            from .dtypes import to_dtype
            return to_dtype(node["__dtype__"])
        if "__device__" in node:
            from .device import device
            return device(node["__device__"])
        raise SerializationError(f"unknown entry in the manifest: keys {sorted(node)}")

    def _key(self, node):
        value = self.decode(node)
        if isinstance(value, (list, set)):  # JSON arrays inside keys come back as lists: keys must be hashable
            return tuple(value)
        return value

    def _array(self, index):
        arr = self._loaded.get(("a", index))
        if arr is None:
            arr = self._loaded[("a", index)] = self._read_array(index)
        return arr

    def _tensor(self, node):
        index = node["__tensor__"]
        t = self._loaded.get(("t", index))
        if t is not None:
            return t
        from .tensor import Tensor
        t = Tensor._make(self._read_array(index))
        t = _apply_map_location(t, self._map_location)
        if node.get("requires_grad") and t._data.dtype.kind in "fc":
            t.requires_grad_(True)
        self._loaded[("t", index)] = t
        return t


def _apply_map_location(t, map_location):
    if map_location is None:
        return t
    if callable(map_location) and not isinstance(map_location, str):
        out = map_location(t, "cpu")
        return t if out is None else out
    if isinstance(map_location, dict):
        target = map_location.get("cpu", None)
        return t if target is None else _apply_map_location(t, target)
    from .device import device
    target = device(map_location)
    if target.type == "cpu":
        return t
    return t.to(target)


# ----------------------------------------------------------------------------------------------------- save
def _write_npy(zf, name, array):
    """Write one array as ``.npy`` straight into the zip stream (header, then the raw buffer, no extra copy)."""
    if not (array.flags.c_contiguous or array.flags.f_contiguous):
        array = np.ascontiguousarray(array)
    header = {"descr": np.lib.format.dtype_to_descr(array.dtype), "fortran_order": bool(
        array.flags.f_contiguous and not array.flags.c_contiguous), "shape": array.shape}
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    with zf.open(info, "w", force_zip64=True) as fp:
        np.lib.format._write_array_header(fp, header, None) if hasattr(np.lib.format, "_write_array_header") \
            else np.lib.format.write_array_header_2_0(fp, header)
        if array.size:
            buf = array if array.flags.c_contiguous else array.T
            fp.write(memoryview(np.ascontiguousarray(buf)).cast("B"))


def _write_archive(fileobj, obj):
    enc = _Encoder()
    root = enc.encode(obj)
    manifest = {"format": _FORMAT, "version": FORMAT_VERSION, "n_arrays": len(enc.arrays), "root": root}
    text = json.dumps(manifest, allow_nan=False, separators=(",", ":")).encode("utf-8")
    with zipfile.ZipFile(fileobj, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        info = zipfile.ZipInfo(MANIFEST, date_time=(1980, 1, 1, 0, 0, 0))
        zf.writestr(info, text)
        for name, array in enc.arrays:
            _write_npy(zf, name, array)


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False) -> None:
    """Save ``obj`` to the path or binary file object ``f``, without pickle.

    ``obj`` may be a tensor, a NumPy array, a number, string, bool, ``None``, bytes, or any nesting of dicts (with
    str/int/float/bool/None/tuple keys), lists, tuples and sets of those: a model's ``state_dict()``, an optimizer's
    ``state_dict()``, or a whole checkpoint dict. Saving to a path is atomic (temporary file, fsync, rename).

    Args:
        obj: the object to save.
        f: a path (``str`` or ``os.PathLike``) or a writable binary file object (e.g. ``io.BytesIO``).
        pickle_module, pickle_protocol: accepted for PyTorch compatibility and ignored (ember never pickles).

    Raises:
        SerializationError: if ``obj`` contains something that cannot be saved safely (the message names where).

    Example::

        >>> ember.save(model.state_dict(), "model.ember")
        >>> model.load_state_dict(ember.load("model.ember"))
    """
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        directory = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(directory):
            raise FileNotFoundError(f"ember.save: the directory {directory!r} of {path!r} does not exist")
        atomic_write(path, lambda fh: _write_archive(fh, obj))
        return
    if not hasattr(f, "write"):
        raise TypeError(f"ember.save: f must be a path or a writable binary file object, got {type(f).__name__}")
    _write_archive(f, obj)
    if hasattr(f, "flush"):
        f.flush()


def atomic_write(path, write) -> None:
    """Call ``write(binary_file)`` on a temporary file beside ``path``, fsync it, then rename it over ``path``.

    Readers see the old file or the complete new one, never a half-written file. The directory must exist.
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        try:  # keep the permissions a plain open() would have given
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        except OSError:
            pass
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(directory)


def _fsync_dir(directory):
    """Make the rename durable (POSIX); harmless where directories cannot be opened."""
    if os.name != "posix":
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# ----------------------------------------------------------------------------------------------------- load
_ZIP_MAGIC = b"PK\x03\x04"
_EMPTY_ZIP_MAGIC = b"PK\x05\x06"


def _describe(f):
    if isinstance(f, (str, os.PathLike)):
        return repr(os.fspath(f))
    name = getattr(f, "name", None)
    return repr(name) if isinstance(name, str) else f"<{type(f).__name__}>"


def _sniff(head: bytes, what: str):
    """Raise a clear error for files that are not zip archives."""
    if head[:4] in (_ZIP_MAGIC, _EMPTY_ZIP_MAGIC):
        return
    if not head:
        raise SerializationError(f"{what} is empty: not an ember file (it may be truncated)")
    if head[:1] == b"\x80" or head[:1] in (b"(", b"]", b"}", b"c") and b"." in head:
        raise SerializationError(f"{what} looks like a pickle file, not an ember file: {_PICKLE_REFUSAL}")
    raise SerializationError(f"{what} is not an ember file (ember files are zip archives written by ember.save; "
                             f"this file starts with {head[:8]!r})")


def _open_zip(fileobj, what):
    try:
        return zipfile.ZipFile(fileobj, "r")
    except zipfile.BadZipFile as exc:
        raise SerializationError(f"{what} is truncated or corrupted: it starts like a zip archive but its directory "
                                 f"cannot be read ({exc}). Was the save interrupted or the copy incomplete?") from None


class _ArrayReader:
    """Reads ``ember/data/<k>.npy`` members; for real files it reads the stored bytes straight into the array."""

    def __init__(self, zf, raw, what):
        self.zf = zf
        self.raw = raw  # a seekable binary file with a fileno, or None
        self.what = what

    def __call__(self, index):
        name = f"{_DATA_DIR}{int(index)}.npy"
        try:
            info = self.zf.getinfo(name)
        except KeyError:
            raise SerializationError(f"{self.what} is corrupted: the manifest refers to array {index} but the archive "
                                     f"has no {name}") from None
        if info.compress_type == zipfile.ZIP_STORED and self.raw is not None:
            arr = self._read_direct(info)
            if arr is not None:
                return arr
        try:
            with self.zf.open(info) as fp:
                return np.lib.format.read_array(fp, allow_pickle=False)
        except (ValueError, zipfile.BadZipFile, EOFError, OSError) as exc:
            raise SerializationError(f"{self.what} is truncated or corrupted: cannot read array {name} ({exc})") \
                from None

    def _read_direct(self, info):
        """Read the npy header and data of a stored member directly from the file, checking its CRC-32."""
        import zlib
        raw = self.raw
        raw.seek(info.header_offset)
        local = raw.read(30)
        if len(local) != 30 or local[:4] != _ZIP_MAGIC:
            raise SerializationError(f"{self.what} is truncated or corrupted: bad local header for {info.filename}")
        name_len = int.from_bytes(local[26:28], "little")
        extra_len = int.from_bytes(local[28:30], "little")
        start = info.header_offset + 30 + name_len + extra_len
        raw.seek(start)
        try:
            version = np.lib.format.read_magic(raw)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(raw)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(raw)
            else:
                return None
        except ValueError as exc:
            raise SerializationError(f"{self.what} is corrupted: bad array header in {info.filename} ({exc})") \
                from None
        if dtype.hasobject:
            raise SerializationError(f"{self.what} contains an object array ({info.filename}); object arrays need "
                                     f"pickle and are refused: {_PICKLE_REFUSAL}")
        header_len = raw.tell() - start
        count = 1
        for s in shape:
            count *= s
        nbytes = count * dtype.itemsize
        if header_len + nbytes != info.file_size:
            raise SerializationError(f"{self.what} is corrupted: {info.filename} holds {info.file_size} bytes, "
                                     f"expected {header_len + nbytes}")
        arr = np.empty(count, dtype=dtype)
        view = memoryview(arr).cast("B") if nbytes else memoryview(b"")
        got = raw.readinto(view) if nbytes else 0
        if got != nbytes:
            raise SerializationError(f"{self.what} is truncated: {info.filename} should hold {nbytes} bytes of data "
                                     f"but only {got} could be read")
        raw.seek(start)
        crc = zlib.crc32(raw.read(header_len))
        crc = zlib.crc32(view, crc)
        if crc != info.CRC:
            raise SerializationError(f"{self.what} is corrupted: the checksum of {info.filename} does not match")
        if fortran:
            return arr.reshape(shape[::-1]).transpose()
        return arr.reshape(shape)


def _load_from(fileobj, raw, what, map_location):
    head = fileobj.read(8)
    fileobj.seek(0)
    _sniff(head, what)
    with _open_zip(fileobj, what) as zf:
        names = set(zf.namelist())
        if MANIFEST not in names:
            hint = ""
            if any(n.endswith("data.pkl") for n in names):
                hint = " It looks like a PyTorch checkpoint, which stores pickled objects: " + _PICKLE_REFUSAL + "."
            elif any(n.endswith(".npy") for n in names):
                hint = " It looks like a NumPy .npz archive: load it with numpy.load."
            raise SerializationError(f"{what} is a zip archive but not an ember file (it has no {MANIFEST}).{hint}")
        try:
            text = zf.read(MANIFEST)
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise SerializationError(f"{what} is truncated or corrupted: cannot read {MANIFEST} ({exc})") from None
        try:
            manifest = json.loads(text.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise SerializationError(f"{what} is corrupted: {MANIFEST} is not valid JSON ({exc})") from None
        if not isinstance(manifest, dict) or manifest.get("format") != _FORMAT:
            raise SerializationError(f"{what} is not an ember file: its manifest does not declare format 'ember'")
        version = manifest.get("version")
        if not isinstance(version, int) or version > FORMAT_VERSION:
            raise SerializationError(f"{what} was written by a newer ember (format version {version}); this ember "
                                     f"reads format versions up to {FORMAT_VERSION}")
        decoder = _Decoder(_ArrayReader(zf, raw, what), map_location)
        return decoder.decode(manifest.get("root"))


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, **pickle_load_args):
    """Load an object saved with :func:`save` from a path or a binary file object.

    Tensors come back as plain tensors (a saved ``Parameter`` loads as a tensor, keeping ``requires_grad``); the
    same tensor saved twice loads as one object. Nothing in the file is ever executed.

    Args:
        f: a path or a readable, seekable binary file object.
        map_location: where to put the tensors: ``None``/``'cpu'``, a device, a ``{'cpu': device}`` dict or a
            callable ``fn(tensor, 'cpu') -> tensor``.
        pickle_module, weights_only, mmap: accepted for PyTorch compatibility; ember files never contain pickles,
            so loading is always as safe as PyTorch's ``weights_only=True``.

    Raises:
        SerializationError: if the file is a pickle (or a PyTorch checkpoint), not a zip, a zip that is not an
            ember file, or a truncated or corrupted ember file. The message names the file.
        FileNotFoundError: if the path does not exist.
    """
    what = _describe(f)
    if isinstance(f, (str, os.PathLike)):
        with open(os.fspath(f), "rb") as fh:
            return _load_from(fh, fh, what, map_location)
    if not hasattr(f, "read") or not hasattr(f, "seek"):
        raise TypeError(f"ember.load: f must be a path or a readable, seekable binary file object, got "
                        f"{type(f).__name__}")
    raw = f if _has_fileno(f) else None
    if raw is None and isinstance(f, io.BytesIO):
        raw = f
    return _load_from(f, raw, what, map_location)


def _has_fileno(f) -> bool:
    try:
        f.fileno()
        return hasattr(f, "readinto")
    except (AttributeError, OSError, io.UnsupportedOperation):
        return False


def is_ember_file(f) -> bool:
    """True if ``f`` (a path) is a zip archive with an ember manifest."""
    try:
        with zipfile.ZipFile(os.fspath(f), "r") as zf:
            return MANIFEST in zf.namelist()
    except (OSError, zipfile.BadZipFile):
        return False
