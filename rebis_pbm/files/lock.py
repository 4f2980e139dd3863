"""The record's lock: commands that update the same game record run one at a time.

:func:`locked` holds an ``fcntl.flock`` on a lock file ``.<record name>.lock`` beside the record
(:func:`rebis_pbm.files.names.lock_path`), which exists only while a command holds it.

The ``filelock`` library was weighed and is not used: its lock creates a record's missing
folder (a mistyped game path must be refused, not made), opens the lock file with
``O_TRUNC | O_NOFOLLOW``, and only its newest releases delete the file on release with a guard,
so the documented guarantees below are kept more simply by these few lines over ``fcntl``.
"""

from __future__ import annotations

import contextlib
import enum
import math
import os
import time
from collections.abc import Iterator
from typing import Final, Literal

from rebis_pbm.errors import Busy, InputError
from rebis_pbm.files.atomic import FileError, explain_os_error
from rebis_pbm.files.names import PathLike, lock_path

__all__ = [
    "DEFAULT_LOCK_TIMEOUT",
    "LOCK_TIMEOUT_ENV",
    "LockTimeout",
    "lock_path",
    "lock_timeout",
    "locked",
]

DEFAULT_LOCK_TIMEOUT: Final = 30.0
LOCK_TIMEOUT_ENV: Final = "REBIS_PBM_LOCK_TIMEOUT"  # seconds to wait for a record's lock
_POLL: Final = 0.02  # seconds between lock attempts when a timeout is set


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


class _Default(enum.Enum):
    """locked()'s default timeout: :func:`lock_timeout`, read when called."""

    FROM_ENV = "from the environment"


_FROM_ENV: Final = _Default.FROM_ENV


def _same_file(path: str, fd: int) -> bool:
    """Does ``path`` still name the file open as ``fd``?"""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (held.st_dev, held.st_ino)


@contextlib.contextmanager
def locked(record_path: PathLike, *,
           timeout: float | Literal[_Default.FROM_ENV] | None = _FROM_ENV) -> Iterator[str]:
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
    waited = 0.0 if timeout is None else timeout  # what a LockTimeout says it waited
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
                            raise LockTimeout(record, lock_file, waited) from None
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
