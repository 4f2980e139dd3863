"""File reads with size caps, writes that never leave a half-written file, and the record lock.

* :func:`read_input` reads a file or stdin for :func:`rebis_pbm.yamlio.load_yaml`.
* :func:`write_atomic` replaces a file so that readers (and a crash) see either the old or
  the new content, never a mix.
* :func:`locked` serialises commands that update the same game record, through a lock file
  ``.<record name>.lock`` beside the record. The lock file is never replaced or removed:
  the record itself is replaced by every write (a new inode), so locking it would not work.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import time
from typing import Callable, Iterator, Union

from .yamlio import InputError, max_bytes

__all__ = ["read_input", "write_atomic", "write_many_atomic", "locked", "lock_path", "LockTimeout",
           "DEFAULT_LOCK_TIMEOUT"]

PathLike = Union[str, "os.PathLike[str]"]
DEFAULT_LOCK_TIMEOUT = 30.0
_POLL = 0.02  # seconds between lock attempts when a timeout is set

# Test hook: called with the name of each step of write_atomic ("created", "written",
# "synced", "mode", "replaced"); raising from it simulates a crash at that step.
_step_hook: Callable[[str], None] | None = None


def _step(name: str) -> None:
    if _step_hook is not None:
        _step_hook(name)


def read_input(path_or_dash: str, *, kind: str) -> tuple[bytes, str]:
    """Read a file, or stdin when ``path_or_dash`` is ``'-'``.

    Returns ``(data, source)`` where ``source`` is the name to show in messages (the path as
    given, or ``'<stdin>'``). At most the size cap of ``kind`` plus one byte is read, so a huge
    input is refused without reading it all. Raises :class:`InputError` (one sentence) for a
    missing file, a folder, no permission, any other read error, or an input over the cap.
    """
    cap = max_bytes(kind)
    source = "<stdin>" if path_or_dash == "-" else str(path_or_dash)
    try:
        if path_or_dash == "-":
            data = sys.stdin.buffer.read(cap + 1)
        else:
            with open(path_or_dash, "rb") as f:
                data = f.read(cap + 1)
    except FileNotFoundError:
        raise InputError("there is no such file; check the name and the folder", source=source) from None
    except IsADirectoryError:
        raise InputError("this is a folder, not a file; give the path of the file inside it",
                         source=source) from None
    except PermissionError:
        raise InputError("permission denied: this file cannot be read; check its permissions",
                         source=source) from None
    except OSError as e:
        raise InputError(f"the file cannot be read ({e.strerror or e}); check the path", source=source) from None
    if len(data) > cap:
        raise InputError(f"the input is larger than {cap // 1024} KiB ({cap} bytes), the limit for "
                         f"this kind of file; check that this is the right file", source=source)
    return data, source


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
    rewritten from the record. On any failure the
    temporary file is removed and the exception (OSError usually) propagates; ``path`` is then
    untouched. A symlink at ``path`` is replaced by a regular file.
    """
    path = os.fspath(path)
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


def write_many_atomic(items: list[tuple[PathLike, bytes | str]], *, mode: int | None = None) -> None:
    """Write each ``(path, data)`` with :func:`write_atomic`, in the given order.

    Each file is atomic on its own; the set is not. If one write fails, the earlier ones stay
    written and the exception propagates, so callers put the file that decides the game state
    (the record) first. ``mode`` applies to every file when given.
    """
    for path, data in items:
        write_atomic(path, data, mode=mode)


def lock_path(record_path: PathLike) -> str:
    """The lock file used for ``record_path``: ``.<name>.lock`` in the same folder."""
    record_path = os.fspath(record_path)
    folder, name = os.path.split(record_path)
    return os.path.join(folder, f".{name}.lock")


class LockTimeout(RuntimeError):
    """Another process held the record's lock for longer than the timeout.

    Attributes: ``record`` (the record path as given), ``lock_file``, ``timeout`` (seconds).
    """

    def __init__(self, record: str, lock_file: str, timeout: float):
        self.record, self.lock_file, self.timeout = record, lock_file, timeout
        super().__init__(f"another rebis-pbm command is updating {record}; try again in a moment "
                         f"(waited {timeout:g} s for the lock file {lock_file})")


@contextlib.contextmanager
def locked(record_path: PathLike, *, timeout: float | None = DEFAULT_LOCK_TIMEOUT) -> Iterator[str]:
    """Hold an exclusive lock for ``record_path`` while the ``with`` block runs.

    The lock is an ``fcntl.flock`` on :func:`lock_path` (created with mode 0o644 if missing,
    never deleted). Waits up to ``timeout`` seconds (None: forever; 0: one try), then raises
    :class:`LockTimeout`. Yields the lock file path. Not re-entrant: locking the same record
    again inside the block waits for itself until the timeout. OSError if the folder does not
    allow creating the lock file.
    """
    import fcntl  # here: only commands that change a record take its lock (not view or moves)

    record = os.fspath(record_path)
    lock_file = lock_path(record)
    fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if timeout is None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        else:
            # Monotonic clock only measures the wait; nothing depends on the date.
            deadline = time.monotonic() + timeout
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise LockTimeout(record, lock_file, timeout) from None
                    time.sleep(_POLL)
        try:
            yield lock_file
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
