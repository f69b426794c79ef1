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
import socket
import tempfile
import zipfile
from collections import OrderedDict

import numpy as np

__all__ = ["save", "load", "SerializationError", "is_ember_file", "atomic_write", "remove_stale_temp_files",
           "MANIFEST", "FORMAT_VERSION"]

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


_MAX_DEPTH = 200  # nesting levels a manifest may have; real checkpoints use fewer than ten


class _Decoder:
    """Turns a parsed manifest back into Python objects, validating every entry.

    Anything malformed (a wrong type, a negative size, an unknown tag, a reference to a missing array, nesting past
    ``_MAX_DEPTH``) raises :class:`SerializationError` naming the file and the entry (``root['state_dict']...``).
    """

    def __init__(self, read_array, map_location, what, n_arrays):
        self._read_array = read_array
        self._map_location = map_location
        self._what = what
        self._n_arrays = n_arrays
        self._loaded = {}

    def error(self, path, problem):
        return SerializationError(f"{self._what} is corrupted: manifest entry {path} {problem}")

    def decode(self, node, path="root", depth=0):
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if depth > _MAX_DEPTH:
            raise self.error(path[:200] + "...", f"is nested more than {_MAX_DEPTH} levels deep")
        if isinstance(node, dict) and "__tensor__" in node:
            return self._tensor(node, path)
        try:
            return self._decode_container(node, path, depth + 1)
        except SerializationError:
            raise
        except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError, RuntimeError,
                MemoryError) as exc:
            raise self.error(path, f"is malformed ({type(exc).__name__}: {exc})") from None

    def _decode_container(self, node, path, depth):
        if isinstance(node, list):
            return [self.decode(v, f"{path}[{i}]", depth) for i, v in enumerate(node)]
        if not isinstance(node, dict):
            raise self.error(path, f"has the unexpected JSON type {type(node).__name__}")
        if "__ndarray__" in node:
            return self._array(node["__ndarray__"], path)
        if "__npscalar__" in node:
            return self._read_array(self._index(node["__npscalar__"], path))[()]
        if "__dict__" in node or "__odict__" in node:
            ordered = "__odict__" in node
            out = OrderedDict() if ordered else {}
            for item in self._list(node["__odict__" if ordered else "__dict__"], path):
                if not isinstance(item, list) or len(item) != 2:
                    raise self.error(path, "has a dict item that is not a [key, value] pair")
                key = self._key(item[0], path, depth)
                out[key] = self.decode(item[1], f"{path}[{key!r}]", depth)
            if ordered and "_metadata" in node:
                out._metadata = self.decode(node["_metadata"], f"{path}._metadata", depth)
            return out
        if "__tuple__" in node:
            return tuple(self.decode(v, f"{path}[{i}]", depth) for i, v in enumerate(self._list(node["__tuple__"],
                                                                                                 path)))
        if "__float__" in node:
            return float(self._str(node["__float__"], path))
        if "__complex__" in node:
            parts = self._list(node["__complex__"], path)
            if len(parts) != 2 or not all(isinstance(p, (int, float)) and not isinstance(p, bool) for p in parts):
                raise self.error(path, "must hold [real, imag] numbers")
            return complex(*parts)
        if "__bytes__" in node:
            return base64.b64decode(self._str(node["__bytes__"], path), validate=True)
        if "__set__" in node:
            return {self._key(v, path, depth) for v in self._list(node["__set__"], path)}
        if "__frozenset__" in node:
            return frozenset(self._key(v, path, depth) for v in self._list(node["__frozenset__"], path))
        if "__size__" in node:
            from .tensor import Size
            dims = self._list(node["__size__"], path)
            if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in dims):
                raise self.error(path, f"must list non-negative integer sizes, got {dims[:8]!r}")
            return Size(dims)
        if "__dtype__" in node:
            from .dtypes import to_dtype
            return to_dtype(self._str(node["__dtype__"], path))
        if "__device__" in node:
            from .device import device
            return device(self._str(node["__device__"], path))
        raise self.error(path, f"has an unknown tag: keys {sorted(node)[:8]}")

    def _list(self, value, path):
        if not isinstance(value, list):
            raise self.error(path, f"must hold a JSON list, got {type(value).__name__}")
        return value

    def _str(self, value, path):
        if not isinstance(value, str):
            raise self.error(path, f"must hold a string, got {type(value).__name__}")
        return value

    def _index(self, value, path):
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < self._n_arrays:
            raise self.error(path, f"refers to array {value!r}, but the file has arrays 0..{self._n_arrays - 1}")
        return value

    def _key(self, node, path, depth):
        value = self.decode(node, f"{path}<key>", depth)
        if isinstance(value, (list, set)):  # JSON arrays inside keys come back as lists: keys must be hashable
            value = tuple(value)
        try:
            hash(value)
        except TypeError:
            raise self.error(path, f"has a dict key of unhashable type {type(value).__name__}") from None
        return value

    def _array(self, index, path):
        index = self._index(index, path)
        arr = self._loaded.get(("a", index))
        if arr is None:
            arr = self._loaded[("a", index)] = self._read_array(index)
        return arr

    def _tensor(self, node, path):
        index = self._index(node["__tensor__"], path)
        t = self._loaded.get(("t", index))
        if t is not None:
            return t
        from .tensor import Tensor
        t = Tensor._make(self._read_array(index))
        t = _apply_map_location(t, self._map_location)  # outside the validation: a user callable's errors are theirs
        if node.get("requires_grad") is True and t._data.dtype.kind in "fc":
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


# ---------------------------------------------------------------------------------------------- atomic write
# Temporary files are named ``.<target>.<host>.<pid>.<random>.ember-tmp`` so that a file left behind by a killed
# writer can be recognised as ours, traced to its target and to its (dead) process, and removed by the next save.
TEMP_SUFFIX = ".ember-tmp"


def _host() -> str:
    return socket.gethostname().replace(".", "_") or "localhost"  # dots would make the name ambiguous


def _temp_prefix(target_name: str) -> str:
    return f".{target_name}.{_host()}.{os.getpid()}."


def _temp_owner(name: str):
    """``(target, host, pid)`` of an ember temp file name, or ``None`` if ``name`` is not one."""
    if not (name.startswith(".") and name.endswith(TEMP_SUFFIX)):
        return None
    parts = name[1:-len(TEMP_SUFFIX)].rsplit(".", 3)
    if len(parts) != 4 or not parts[2].isdigit():
        return None
    target, host, pid, _ = parts
    return target, host, int(pid)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists but belongs to someone else
        return True
    return True


def remove_stale_temp_files(directory, target_name=None) -> list:
    """Remove temporary files that an interrupted :func:`atomic_write` left in ``directory``.

    Only ember temp files (``.<target>.<host>.<pid>.<random>.ember-tmp``) written on this host by a process that no
    longer runs are removed, restricted to those of ``target_name`` when given; anything else, including a temp file
    a live writer is still filling, is left alone. Returns the removed paths.
    """
    host = _host()
    removed = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in names:
        owner = _temp_owner(name)
        if owner is None or owner[1] != host or (target_name is not None and owner[0] != target_name):
            continue
        if owner[2] == os.getpid() or _pid_alive(owner[2]):
            continue
        path = os.path.join(directory, name)
        try:
            os.unlink(path)
            removed.append(path)
        except OSError:
            pass
    return removed


def atomic_write(path, write) -> None:
    """Call ``write(binary_file)`` on a temporary file beside ``path``, fsync it, then rename it over ``path``.

    This is ember's one atomic write for every user file (checkpoints, ``em.save``, configs, logs): a crash at any
    moment leaves either the old file or the new one, never a half-written one. Stale temporary files of the same
    target left by killed writers are removed first (see :func:`remove_stale_temp_files`).
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    name = os.path.basename(path)
    remove_stale_temp_files(directory, name)
    fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(name), suffix=TEMP_SUFFIX, dir=directory)
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


def _check_member(info, archive_size, what):
    """Refuse members that could make a small file allocate a lot: compressed ones (ember never writes them, and a
    deflated member can expand a thousandfold) and ones whose declared size does not fit in the archive."""
    if info.compress_type != zipfile.ZIP_STORED:
        raise SerializationError(f"{what} is not a valid ember file: its member {info.filename} is compressed "
                                 f"(zip method {info.compress_type}); ember never writes compressed members and "
                                 "refuses to expand them (a small compressed file can expand to gigabytes)")
    if info.file_size != info.compress_size or info.header_offset + info.file_size > archive_size:
        raise SerializationError(f"{what} is corrupted: its member {info.filename} declares {info.file_size} bytes, "
                                 f"more than the {archive_size}-byte file can hold")


def _read_npy_header(fp, name, what):
    """``(shape, fortran_order, dtype, count)`` of the ``.npy`` header at ``fp``'s position, validated."""
    try:
        version = np.lib.format.read_magic(fp)
        readers = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
        if version not in readers:
            raise ValueError(f"unsupported .npy format version {version}")
        shape, fortran, dtype = readers[version](fp)
    except (ValueError, SyntaxError, TypeError, EOFError) as exc:
        raise SerializationError(f"{what} is corrupted: bad array header in {name} ({exc})") from None
    if dtype.hasobject:
        raise SerializationError(f"{what} contains an object array ({name}); object arrays need pickle and are "
                                 f"refused: {_PICKLE_REFUSAL}")
    if not all(isinstance(d, int) and d >= 0 for d in shape):
        raise SerializationError(f"{what} is corrupted: the array header of {name} declares the shape {shape}")
    count = 1
    for d in shape:
        count *= d
    return shape, fortran, dtype, count


class _ArrayReader:
    """Reads ``ember/data/<k>.npy`` members, never allocating more than the member's actual size.

    For real files the stored bytes are read straight into the array (checking the CRC-32 here); otherwise through
    ``zipfile`` (which checks it).
    """

    def __init__(self, zf, raw, what, archive_size):
        self.zf = zf
        self.raw = raw  # a seekable binary file with a fileno, or None
        self.what = what
        self.archive_size = archive_size

    def __call__(self, index):
        name = f"{_DATA_DIR}{int(index)}.npy"
        try:
            info = self.zf.getinfo(name)
        except KeyError:
            raise SerializationError(f"{self.what} is corrupted: the manifest refers to array {index} but the archive "
                                     f"has no {name}") from None
        _check_member(info, self.archive_size, self.what)
        try:
            if self.raw is not None:
                return self._read_direct(info)
            with self.zf.open(info) as fp:
                return self._read(fp, info, lambda header_len: None)
        except (zipfile.BadZipFile, EOFError, OSError) as exc:
            raise SerializationError(f"{self.what} is truncated or corrupted: cannot read array {name} ({exc})") \
                from None

    def _read(self, fp, info, check_crc):
        start = fp.tell()
        shape, fortran, dtype, count = _read_npy_header(fp, info.filename, self.what)
        header_len = fp.tell() - start
        nbytes = count * dtype.itemsize
        if header_len + nbytes != info.file_size:  # checked before allocating: a header cannot lie about its size
            raise SerializationError(f"{self.what} is corrupted: {info.filename} holds {info.file_size} bytes, but "
                                     f"its header declares an array of shape {shape} ({header_len + nbytes} bytes)")
        arr = np.empty(count, dtype=dtype)
        view = memoryview(arr).cast("B") if nbytes else memoryview(b"")
        got = fp.readinto(view) if nbytes else 0
        if got != nbytes:
            raise SerializationError(f"{self.what} is truncated: {info.filename} should hold {nbytes} bytes of data "
                                     f"but only {got} could be read")
        check_crc(start, header_len, view)
        if fortran:
            return arr.reshape(shape[::-1]).transpose()
        return arr.reshape(shape)

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
        if start + info.file_size > self.archive_size:
            raise SerializationError(f"{self.what} is truncated: {info.filename} extends past the end of the file")
        raw.seek(start)

        def check_crc(begin, header_len, view):
            raw.seek(begin)
            crc = zlib.crc32(view, zlib.crc32(raw.read(header_len)))
            if crc != info.CRC:
                raise SerializationError(f"{self.what} is corrupted: the checksum of {info.filename} does not match")
        return self._read(raw, info, check_crc)


def _archive_size(fileobj) -> int:
    here = fileobj.tell()
    size = fileobj.seek(0, os.SEEK_END)
    fileobj.seek(here)
    return size


def _load_from(fileobj, raw, what, map_location):
    head = fileobj.read(8)
    fileobj.seek(0)
    _sniff(head, what)
    archive_size = _archive_size(fileobj)
    with _open_zip(fileobj, what) as zf:
        names = set(zf.namelist())
        if MANIFEST not in names:
            hint = ""
            if any(n.endswith("data.pkl") for n in names):
                hint = " It looks like a PyTorch checkpoint, which stores pickled objects: " + _PICKLE_REFUSAL + "."
            elif any(n.endswith(".npy") for n in names):
                hint = " It looks like a NumPy .npz archive: load it with numpy.load."
            raise SerializationError(f"{what} is a zip archive but not an ember file (it has no {MANIFEST}).{hint}")
        _check_member(zf.getinfo(MANIFEST), archive_size, what)
        try:
            text = zf.read(MANIFEST)
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise SerializationError(f"{what} is truncated or corrupted: cannot read {MANIFEST} ({exc})") from None
        try:
            manifest = json.loads(text.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise SerializationError(f"{what} is corrupted: {MANIFEST} is not valid JSON ({exc})") from None
        except RecursionError:
            raise SerializationError(f"{what} is corrupted: {MANIFEST} is nested too deeply to be an ember "
                                     "manifest") from None
        if not isinstance(manifest, dict) or manifest.get("format") != _FORMAT:
            raise SerializationError(f"{what} is not an ember file: its manifest does not declare format 'ember'")
        version = manifest.get("version")
        if not isinstance(version, int) or version > FORMAT_VERSION:
            raise SerializationError(f"{what} was written by a newer ember (format version {version}); this ember "
                                     f"reads format versions up to {FORMAT_VERSION}")
        n_arrays = manifest.get("n_arrays", len(names))
        if not isinstance(n_arrays, int) or isinstance(n_arrays, bool) or n_arrays < 0:
            raise SerializationError(f"{what} is corrupted: manifest entry n_arrays is {n_arrays!r}, not a count")
        decoder = _Decoder(_ArrayReader(zf, raw, what, archive_size), map_location, what, n_arrays)
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
