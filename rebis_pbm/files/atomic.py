"""File reads with size caps, writes that never leave a half-written file, the record lock, and
the one place where a failed file operation is put into words.

* :func:`read_input` reads a regular file or stdin for
:func:`rebis_pbm.formats.yaml_reader.load_yaml`;
  :func:`open_regular` opens a regular file (never waiting on a named pipe).
* :func:`write_atomic` replaces a file so that readers (and a crash) see either the old or
  the new content, never a mix.
* :func:`locked` serialises commands that update the same game record, through a lock file
  ``.<record name>.lock`` beside the record, which exists only while a command holds it.
* :func:`explain_os_error` words an OSError for people (which file or folder, what is wrong,
  what to do); :class:`FileError` is an OSError already worded that way.
"""

from __future__ import annotations

import contextlib
import errno
import math
import os
import stat
import sys
import time
from collections.abc import Callable, Iterator
from typing import BinaryIO, NamedTuple, Union

from rebis_pbm.errors import Busy, InputError
from rebis_pbm.formats.yaml_reader import max_bytes, too_big

__all__ = [
    "DEFAULT_LOCK_TIMEOUT",
    "LOCK_TIMEOUT_ENV",
    "FileError",
    "LockTimeout",
    "NotRegularFile",
    "explain_os_error",
    "lock_path",
    "lock_timeout",
    "locked",
    "make_folder",
    "open_regular",
    "os_error_message",
    "read_input",
    "write_atomic",
    "write_many_atomic",
]

PathLike = Union[str, "os.PathLike[str]"]
DEFAULT_LOCK_TIMEOUT = 30.0
LOCK_TIMEOUT_ENV = "REBIS_PBM_LOCK_TIMEOUT"  # seconds to wait for a record's lock
_POLL = 0.02  # seconds between lock attempts when a timeout is set

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


# --- the record's lock ------------------------------------------------------------------------

def lock_path(record_path: PathLike) -> str:
    """The lock file used for ``record_path``: ``.<name>.lock`` in the same folder."""
    record_path = os.fspath(record_path)
    folder, name = os.path.split(record_path)
    return os.path.join(folder, f".{name}.lock")


def lock_timeout() -> float:
    """How long :func:`locked` waits by default: ``$REBIS_PBM_LOCK_TIMEOUT`` seconds if set,
    else :data:`DEFAULT_LOCK_TIMEOUT` (30 s).

    Raises:
        InputError: the variable is set to something other than a number of seconds >= 0.
    """
    text = os.environ.get(LOCK_TIMEOUT_ENV, "").strip()
    if not text:
        return DEFAULT_LOCK_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not (math.isfinite(value) and value >= 0):
        raise InputError(f"must be a number of seconds to wait for a record's lock, such as "
                         f"{DEFAULT_LOCK_TIMEOUT:g}, not {text!r}", source=LOCK_TIMEOUT_ENV)
    return value


class LockTimeout(Busy):
    """Another process held the record's lock for longer than the timeout (exit 75, see
    :class:`rebis_pbm.errors.Busy`)."""


_FROM_ENV = object()  # locked()'s default timeout: lock_timeout(), read when called


def _same_file(path: str, fd: int) -> bool:
    """Does ``path`` still name the file open as ``fd``?"""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (held.st_dev, held.st_ino)


@contextlib.contextmanager
def locked(record_path: PathLike, *, timeout=_FROM_ENV) -> Iterator[str]:
    """Hold an exclusive lock for ``record_path`` while the ``with`` block runs.

    The lock is an ``fcntl.flock`` on :func:`lock_path`, ``.NAME.lock`` beside the record (the
    record itself is replaced by every write, a new inode each time, so it cannot carry the
    lock). The lock file is created (mode 0o644) when the lock is taken and deleted when it is
    released, so no command, refused or not, leaves one behind in a game folder or a git
    repository; after a crash the file may stay, and the next command uses and removes it.

    Deleting it safely takes the classic guard, and both halves are needed: the holder deletes
    the file *before* it releases the flock, and whoever obtains the flock then checks that
    the path still names the file it locked (``os.fstat(fd)`` against ``os.stat(path)``); if
    not (the holder deleted it meanwhile, and maybe a third process created a new one), it
    closes it and starts over. So at any moment only the file the path names can be held,
    by one process at a time: two processes can never both hold "the" lock. This is simpler
    than deleting the file only when the command changed nothing (that still needs the same
    guard, since a waiting process may have the file open, and it would still leave the file
    behind after every successful command).

    Waits up to ``timeout`` seconds (default :func:`lock_timeout`: ``$REBIS_PBM_LOCK_TIMEOUT``
    or 30; None: for ever; 0: one try), then raises :class:`LockTimeout` (exit 75, "try
    again later"). Yields the lock file path. Not re-entrant: locking the same record again
    inside the block waits for itself until the timeout.

    Raises:
        LockTimeout: another command held the lock for longer than the timeout.
        FileError: the lock file cannot be created or opened (the folder or the lock file is
            not writable), worded for the record by :func:`explain_os_error`.
        InputError: ``$REBIS_PBM_LOCK_TIMEOUT`` is not a number of seconds.
    """
    import fcntl  # here: only commands that change a record take its lock (not view or moves)

    record = os.fspath(record_path)
    lock_file = lock_path(record)
    if timeout is _FROM_ENV:
        timeout = lock_timeout()
    # Monotonic clock only measures the wait; nothing depends on the date.
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        try:
            fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise FileError(exc, explain_os_error(exc, record, doing="lock")) from None
        try:
            if deadline is None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            else:
                while True:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        if time.monotonic() >= deadline:
                            raise LockTimeout(record, lock_file, timeout) from None
                        time.sleep(_POLL)
            if _same_file(lock_file, fd):
                break
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # a released (deleted) lock file: take the one the path names now
    try:
        yield lock_file
    finally:
        try:
            # Deleted while still held (see above); a folder that forbids it leaves the file,
            # which is still correct: the next command locks that same file.
            with contextlib.suppress(OSError):
                os.unlink(lock_file)
        finally:
            os.close(fd)  # releases the flock
