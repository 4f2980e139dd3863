"""File reads with size caps, writes that never leave a half-written file, and the one place
where a failed file operation is put into words.

* :func:`read_input` reads a regular file or stdin for
  :func:`rebis_pbm.formats.yaml_reader.load_yaml`;
  :func:`open_regular` opens a regular file (never waiting on a named pipe).
* :func:`write_atomic` replaces a file so that readers (and a crash) see either the old or
  the new content, never a mix.
* :func:`explain_os_error` words an OSError for people (which file or folder, what is wrong,
  what to do); :class:`FileError` is an OSError already worded that way.

The record's lock is :mod:`rebis_pbm.files.lock`; file names are :mod:`rebis_pbm.files.names`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from collections.abc import Callable
from typing import BinaryIO, NamedTuple

from rebis_pbm.errors import InputError
from rebis_pbm.files.names import PathLike, lock_path
from rebis_pbm.formats.yaml_reader import max_bytes, too_big

__all__ = [
    "Explained",
    "FileError",
    "NotRegularFile",
    "PathLike",
    "explain_os_error",
    "make_folder",
    "open_regular",
    "os_error_message",
    "read_input",
    "write_atomic",
    "write_many_atomic",
]


# Test hook: called with the name of each step of write_atomic ("created", "written",
# "synced", "mode", "replaced"); raising from it simulates a crash at that step.
_step_hook: Callable[[str], None] | None = None


def _step(name: str) -> None:
    if _step_hook is not None:
        _step_hook(name)


# --- wording ----------------------------------------------------------------------------------

class Explained(NamedTuple):
    """An OSError in words: ``where`` (the file or folder the user knows, never a temporary
    file), ``problem`` (what is wrong) and ``fix`` (what to do). ``str()`` is the sentence
    ``WHERE: PROBLEM; FIX``."""

    where: str
    problem: str
    fix: str

    def __str__(self) -> str:
        return f"{self.where}: {self.problem}; {self.fix}" if self.where else \
            f"{self.problem}; {self.fix}"


class NotRegularFile(OSError):
    """The path names something that is not a regular file: a named pipe (FIFO), a device or
    a socket. Reading a FIFO nobody writes to would wait for ever, so it is refused."""


class FileError(OSError):
    """An OSError already put into words by :func:`explain_os_error`.

    Keeps ``errno`` and ``filename`` (the path the user knows); ``explained`` is the
    :class:`Explained`; ``str()`` is its one sentence.
    """

    def __init__(self, exc: OSError, explained: Explained):
        super().__init__(exc.errno, str(explained), explained.where or None)
        self.explained = explained

    def __str__(self) -> str:
        return str(self.explained)


_DENIED = (errno.EACCES, errno.EPERM)
_NO_SPACE = (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))


def _folder_of(path: str) -> str:
    """The folder of ``path`` as the user knows it: as written, else the current folder."""
    return os.path.dirname(path) or os.path.dirname(os.path.abspath(path or "."))


def _kind_of(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "of another kind"


def explain_os_error(exc: OSError, path: PathLike | None = None, *, doing: str = "use",
                     what: str | None = None) -> Explained:
    """Put a failed file operation into words: the only place that does (the commands, the
    record's secret file and the lock all come here).

    ``path`` is the file or folder the user knows (default ``exc.filename``); ``doing`` says
    what was being done to it:

    * ``"read"``: reading the file;
    * ``"write"``: replacing the file through a temporary file beside it (:func:`write_atomic`),
      so most failures concern its folder, which is then named;
    * ``"lock"``: taking the lock of the record ``path`` (:func:`locked`), which creates
      ``.NAME.lock`` beside it;
    * ``"folder"``: creating the folder ``path``;
    * ``"use"``: anything else.

    ``what`` names the file or folder in the problem (default "this file", or "this folder").
    Returns an :class:`Explained`; an already worded :class:`FileError` keeps its words.
    """
    if isinstance(exc, FileError):
        return exc.explained
    where = os.fspath(path) if path is not None else os.fspath(exc.filename or "")
    folder = _folder_of(where)
    reason = exc.strerror or str(exc) or type(exc).__name__
    code = exc.errno
    if doing == "read":
        what = what or "this file"
        if isinstance(exc, NotRegularFile):
            return Explained(where, f"{what} is {exc.strerror}, not a regular file",
                             "give the path of a file (or - for standard input)")
        if code == errno.ENOENT:
            return Explained(where, "there is no such file", "check the name and the folder")
        if code == errno.EISDIR:
            return Explained(where, "this is a folder, not a file",
                             "give the path of the file inside it")
        if code in _DENIED:
            return Explained(where, f"permission denied: {what} cannot be read",
                             "check its permissions")
        return Explained(where, f"{what} cannot be read ({reason})", "check the path")
    if doing == "write":
        what = what or "this file"
        if code in _DENIED:
            return Explained(where, f"permission denied: {what} cannot be written, because its "
                             f"folder {folder} is not writable (the new version is written "
                             f"beside it, then renamed over it)",
                             "give write permission on that folder")
        if code == errno.EROFS:
            return Explained(where, f"{what} cannot be written: its folder {folder} is on a "
                             f"read-only file system", "copy the game to a writable folder")
        if code == errno.ENOENT:
            return Explained(where, f"{what} cannot be written: there is no folder {folder}",
                             "check the path")
        if code in _NO_SPACE:
            return Explained(where, f"{what} cannot be written ({reason})",
                             "free some space on that disk")
        return Explained(where, f"{what} cannot be written ({reason})",
                         "check the disk and the folder")
    if doing == "lock":
        lock_file = lock_path(where)
        if code in _DENIED and os.path.lexists(lock_file):
            return Explained(where, f"permission denied: its lock file {lock_file} cannot be "
                             f"opened for writing",
                             "fix that file's permissions, or delete it while no rebis-pbm "
                             "command is running")
        if code in _DENIED:
            return Explained(where, f"permission denied: its folder {folder} is not writable, "
                             f"and a command that changes this file first creates its lock "
                             f"file {os.path.basename(lock_file)} there",
                             "give write permission on that folder")
        if code == errno.EROFS:
            return Explained(where, f"this file cannot be changed: its folder {folder} is on a "
                             f"read-only file system", "copy the game to a writable folder")
        if code == errno.ENOENT:
            return Explained(where, f"there is no folder {folder}", "check the path")
        return Explained(where, f"its lock file {lock_file} cannot be created ({reason})",
                         "check the folder")
    if doing == "folder":
        what = what or "this folder"
        if code == errno.ENOENT:
            return Explained(where, f"{what} cannot be created: its parent folder must exist, "
                             f"and {folder} does not", "create it first, or check the path")
        if code == errno.ENOTDIR:
            return Explained(where, f"{what} cannot be created: a part of this path is a file, "
                             f"not a folder", "check the path")
        if code in _DENIED:
            return Explained(where, f"permission denied: {what} cannot be created in {folder}",
                             "give write permission on that folder")
        return Explained(where, f"{what} cannot be created ({reason})", "check the path")
    if code in _DENIED:
        return Explained(where, "permission denied",
                         "check the permissions of this file and of its folder")
    if code == errno.ENOENT:
        return Explained(where, "there is no such file or folder", "check the path")
    return Explained(where, reason, "check the file and its folder")


def os_error_message(exc: OSError, path: PathLike | None = None, *, doing: str = "use",
                     what: str | None = None) -> str:
    """:func:`explain_os_error` as its one sentence, ``WHERE: PROBLEM; FIX``."""
    return str(explain_os_error(exc, path, doing=doing, what=what))


# --- reading ----------------------------------------------------------------------------------

def open_regular(path: PathLike) -> BinaryIO:
    """Open the regular file ``path`` for reading, as a binary file object.

    Raises:
        FileError: no such file, a folder, no permission, or not a regular file (a named pipe,
            a device, a socket): opening a FIFO nobody writes to would otherwise wait for ever.
            Worded by :func:`explain_os_error` (``doing="read"``).
    """
    path = os.fspath(path)
    fd = -1
    try:
        # O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer; a regular
        # file ignores it.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        if not stat.S_ISREG(mode):
            raise NotRegularFile(None, _kind_of(mode), path)
        f = os.fdopen(fd, "rb")
    except OSError as exc:
        if fd != -1:
            os.close(fd)
        raise FileError(exc, explain_os_error(exc, path, doing="read")) from None
    return f


def read_input(path_or_dash: str, *, kind: str) -> tuple[bytes, str]:
    """Read a regular file, or stdin when ``path_or_dash`` is ``'-'``.

    Returns ``(data, source)`` where ``source`` is the name to show in messages (the path as
    given, or ``'<stdin>'``). At most the size cap of ``kind`` plus one byte is read, so a huge
    input is refused without reading it all. Raises :class:`InputError` (one sentence, worded
    by :func:`explain_os_error`) for a missing file, a folder, a FIFO, device or socket, no
    permission, any other read error, or an input over the cap.
    """
    cap = max_bytes(kind)
    source = "<stdin>" if path_or_dash == "-" else str(path_or_dash)
    try:
        if path_or_dash == "-":
            data = sys.stdin.buffer.read(cap + 1)
        else:
            with open_regular(path_or_dash) as f:
                data = f.read(cap + 1)
    except OSError as exc:
        said = explain_os_error(exc, source, doing="read")
        raise InputError(f"{said.problem}; {said.fix}", source=source) from None
    if len(data) > cap:
        raise too_big(kind, source)
    return data, source


# --- writing ----------------------------------------------------------------------------------

def _fsync_dir(folder: str) -> None:
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    except OSError as e:
        # Some file systems cannot sync a folder; the rename itself has happened.
        if e.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)


def write_atomic(path: PathLike, data: bytes | str, *, mode: int | None = None,
                 durable: bool = True) -> None:
    """Replace ``path`` with ``data`` (str is written as UTF-8) atomically and durably.

    Writes a temporary file in the same folder, flushes and fsyncs it, sets its permission
    bits (``mode`` if given, e.g. 0o600 for secrets; else the existing file's; else 0o644),
    renames it over ``path`` with os.replace and fsyncs the folder. ``durable=False`` skips
    both fsyncs (still atomic: a reader sees the old or the new file, never a mix) for files
    derived from others, such as views, which a power cut may leave stale but which are
    rewritten from the record. On any failure the temporary file is removed and ``path`` is
    untouched; an OSError is raised as a :class:`FileError` that names ``path`` and its
    folder, never the temporary file (e.g. a folder that is not writable); anything else
    (an interrupt) propagates as it is. A symlink at ``path`` is replaced by a regular file.
    """
    path = os.fspath(path)
    try:
        _write_atomic(path, data, mode, durable)
    except FileError:
        raise
    except OSError as exc:
        raise FileError(exc, explain_os_error(exc, path, doing="write")) from None


def _write_atomic(path: str, data: bytes | str, mode: int | None, durable: bool) -> None:
    if isinstance(data, str):
        data = data.encode("utf-8")
    folder = os.path.dirname(os.path.abspath(path))
    if mode is None:
        try:
            mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
    import tempfile  # here: commands that write nothing do not pay for its import

    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        _step("created")
        with os.fdopen(fd, "wb") as f:
            fd = -1  # now owned by f
            f.write(data)
            _step("written")
            f.flush()
            if durable:
                os.fsync(f.fileno())
            _step("synced")
            os.fchmod(f.fileno(), mode)
            _step("mode")
        os.replace(tmp, path)
    except BaseException:
        if fd != -1:
            os.close(fd)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _step("replaced")
    if durable:
        _fsync_dir(folder)


def write_many_atomic(items: list[tuple[PathLike, bytes | str]], *,
                      mode: int | None = None) -> None:
    """Write each ``(path, data)`` with :func:`write_atomic`, in the given order.

    Each file is atomic on its own; the set is not. If one write fails, the earlier ones stay
    written and the exception propagates, so callers put the file that decides the game state
    (the record) first. ``mode`` applies to every file when given.
    """
    for path, data in items:
        write_atomic(path, data, mode=mode)


def make_folder(path: PathLike, *, what: str = "this folder") -> bool:
    """Create the folder ``path`` unless it is one already; its parent must exist (a typo must
    not create a tree). Returns True when it was created here.

    Raises:
        FileError: it cannot be created (no parent folder, a file in the way, no permission);
            the sentence calls it ``what``.
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        return False
    try:
        os.mkdir(path)
    except OSError as exc:
        raise FileError(exc, explain_os_error(exc, path, doing="folder", what=what)) from None
    return True
