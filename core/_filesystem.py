"""Local paths and fsspec URLs behind one small set of file operations (Lightning's ``cloud_io`` idea).

A plain path or a ``file://`` URL is the local file system: plain ``os`` calls and ember's one atomic write, and
fsspec is never imported. Any other ``protocol://`` URL (``memory://``, ``s3://``, ...) goes through fsspec, which
is then required; such a file is written from a complete in-memory buffer in one call (fsspec back ends have no
rename), so a reader still never sees a partly written file of ours on stores that replace objects whole.
"""
from __future__ import annotations

import os
from typing import List

__all__ = ["is_remote", "local_path", "exists", "isfile", "isdir", "listdir", "getmtime", "makedirs", "remove",
           "read_bytes", "write_file"]

_LOCAL_PROTOCOLS = ("file", "local")


def is_remote(path) -> bool:
    """Whether ``path`` is a URL of a file system other than the local one (``memory://...``, ``s3://...``)."""
    protocol, sep, _ = str(os.fspath(path)).partition("://")
    return bool(sep) and protocol not in _LOCAL_PROTOCOLS


def local_path(path) -> str:
    """``path`` as a string, with a ``file://`` / ``local://`` prefix removed (URLs of other systems unchanged)."""
    path = str(os.fspath(path))
    protocol, sep, rest = path.partition("://")
    return rest if sep and protocol in _LOCAL_PROTOCOLS else path


def _fs(path):
    """The fsspec file system of a remote ``path`` and the path inside it."""
    try:
        from fsspec.core import url_to_fs
    except ImportError:
        raise ImportError(f"The path {path!r} is an fsspec URL, which needs the fsspec package: "
                          "`pip install fsspec` (a local path needs nothing)") from None
    return url_to_fs(str(path))


def exists(path) -> bool:
    """Whether ``path`` exists."""
    if not is_remote(path):
        return os.path.exists(local_path(path))
    fs, inner = _fs(path)
    return fs.exists(inner)


def isfile(path) -> bool:
    """Whether ``path`` is a file."""
    if not is_remote(path):
        return os.path.isfile(local_path(path))
    fs, inner = _fs(path)
    return fs.isfile(inner)


def isdir(path) -> bool:
    """Whether ``path`` is a directory."""
    if not is_remote(path):
        return os.path.isdir(local_path(path))
    fs, inner = _fs(path)
    return fs.isdir(inner)


def listdir(path) -> List[str]:
    """The names (not paths) in the directory ``path``."""
    if not is_remote(path):
        return os.listdir(local_path(path))
    fs, inner = _fs(path)
    return [entry.rstrip("/").rsplit("/", 1)[-1] for entry in fs.ls(inner, detail=False)]


def getmtime(path) -> float:
    """The modification time of ``path`` in seconds since the epoch (0.0 where the remote system keeps none)."""
    if not is_remote(path):
        return os.path.getmtime(local_path(path))
    fs, inner = _fs(path)
    try:
        return fs.modified(inner).timestamp()
    except (NotImplementedError, AttributeError, KeyError):
        return 0.0


def makedirs(path) -> None:
    """Create the directory ``path`` and its parents (no error if it exists)."""
    if not is_remote(path):
        os.makedirs(local_path(path), exist_ok=True)
        return
    fs, inner = _fs(path)
    fs.makedirs(inner, exist_ok=True)


def remove(path) -> None:
    """Delete the file ``path`` (a symbolic link itself, not its target)."""
    if not is_remote(path):
        os.remove(local_path(path))
        return
    fs, inner = _fs(path)
    fs.rm_file(inner)


def read_bytes(path) -> bytes:
    """The whole content of the file ``path``."""
    if not is_remote(path):
        with open(local_path(path), "rb") as fh:
            return fh.read()
    fs, inner = _fs(path)
    return fs.cat_file(inner)


def write_file(path, write) -> None:
    """Call ``write(binary_file)`` and store the result at ``path``, creating its directory.

    Local: ember's atomic write (temporary file, fsync, rename). Remote: ``write`` fills a buffer that is then
    stored in one call.
    """
    if not is_remote(path):
        from .serialization import atomic_write
        path = local_path(path)
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        atomic_write(path, write)
        return
    import io
    buffer = io.BytesIO()
    write(buffer)
    fs, inner = _fs(path)
    parent = inner.rsplit("/", 1)[0] if "/" in inner else ""
    if parent:
        fs.makedirs(parent, exist_ok=True)
    fs.pipe_file(inner, buffer.getvalue())
