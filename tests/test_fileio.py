"""Tests for rebis_pbm.files.atomic: capped reads, crash-safe writes, the record lock."""

import errno
import io
import os
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import ClassVar

import pytest

from rebis_pbm.files import atomic as fileio
from rebis_pbm.files import lock as record_lock
from rebis_pbm.files.atomic import (
    read_input,
    write_atomic,
    write_many_atomic,
)
from rebis_pbm.files.lock import LockTimeout, locked
from rebis_pbm.files.names import lock_path
from rebis_pbm.formats.yaml_reader import MOVE_MAX_BYTES, InputError

REPO = Path(__file__).resolve().parent.parent


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# ------------------------------------------------------------------ read_input

def test_read_file(tmp_path):
    f = tmp_path / "move.yaml"
    f.write_bytes(b"turn: 1\n")
    assert read_input(str(f), kind="move") == (b"turn: 1\n", str(f))


def test_read_stdin(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"turn: 2\n")))
    assert read_input("-", kind="move") == (b"turn: 2\n", "<stdin>")


def test_read_cap_reads_at_most_cap_plus_one(monkeypatch):
    class Endless(io.RawIOBase):
        requested: ClassVar[list[int]] = []  # read on the class after the call

        def readable(self):
            return True

        def read(self, n=-1):
            assert n != -1, "must not read without a limit"
            self.requested.append(n)
            return b"#" * n

    monkeypatch.setattr(sys, "stdin", type("S", (), {"buffer": Endless()})())
    with pytest.raises(InputError) as info:
        read_input("-", kind="move")
    assert info.value.message.startswith("the input is larger than 64 KiB (65536 bytes), the "
                                         "limit for a move file;")
    assert info.value.source == "<stdin>"
    assert Endless.requested == [MOVE_MAX_BYTES + 1]


def test_read_exactly_cap_is_fine(tmp_path):
    f = tmp_path / "m.yaml"
    f.write_bytes(b"#" * MOVE_MAX_BYTES)
    assert len(read_input(str(f), kind="move")[0]) == MOVE_MAX_BYTES
    f.write_bytes(b"#" * (MOVE_MAX_BYTES + 1))
    with pytest.raises(InputError,
                       match=r"the file is larger than 64 KiB .* the limit for a move file"):
        read_input(str(f), kind="move")


def test_read_missing_file(tmp_path):
    with pytest.raises(InputError) as info:
        read_input(str(tmp_path / "nope.yaml"), kind="move")
    assert "no such file" in str(info.value) and "nope.yaml" in str(info.value)


def test_read_directory(tmp_path):
    with pytest.raises(InputError, match="folder"):
        read_input(str(tmp_path), kind="record")


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read anything")
def test_read_permission_denied(tmp_path):
    f = tmp_path / "secret.yaml"
    f.write_bytes(b"a: 1\n")
    f.chmod(0)
    with pytest.raises(InputError, match="permission denied"):
        read_input(str(f), kind="secret")


def test_read_permission_denied_simulated(tmp_path, monkeypatch):
    def deny(path, *a, **k):
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(fileio.os, "open", deny)
    with pytest.raises(InputError) as info:
        read_input(str(tmp_path / "x.yaml"), kind="move")
    assert str(info.value) == (f"{tmp_path / 'x.yaml'}: permission denied: this file cannot be "
                               f"read; check its permissions")


def _in_a_thread(function, timeout=10.0):
    """``function()``'s exception, or a failure if it is still running after ``timeout``."""
    import threading

    caught = []

    def run():
        try:
            function()
        except BaseException as exc:  # any exception, handed to the test
            caught.append(exc)
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout)
    assert not worker.is_alive(), f"still waiting after {timeout} s"
    return caught[0] if caught else None


def test_read_refuses_a_named_pipe_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "f.yaml"
    os.mkfifo(fifo)
    exc = _in_a_thread(lambda: read_input(str(fifo), kind="move"))
    assert isinstance(exc, InputError)
    assert str(exc) == (f"{fifo}: this file is a named pipe (FIFO), not a regular file; give the "
                        f"path of a file (or - for standard input)")


def test_read_refuses_a_device(tmp_path):
    with pytest.raises(InputError, match="is a device, not a regular file"):
        read_input("/dev/null", kind="move")


# ------------------------------------------------------------------ write_atomic

def test_write_new_file_and_mode(tmp_path):
    f = tmp_path / "game.yaml"
    write_atomic(f, "a: 1\n")
    assert f.read_bytes() == b"a: 1\n"
    assert stat.S_IMODE(f.stat().st_mode) == 0o644
    write_atomic(f, b"a: 2\n", mode=0o600)
    assert stat.S_IMODE(f.stat().st_mode) == 0o600
    write_atomic(f, b"a: 3\n")  # keeps the existing mode
    assert stat.S_IMODE(f.stat().st_mode) == 0o600 and f.read_bytes() == b"a: 3\n"
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("step", ["created", "written", "synced", "mode"])
def test_crash_before_rename_leaves_original(tmp_path, monkeypatch, step):
    f = tmp_path / "game.yaml"
    f.write_bytes(b"original\x00bytes\n")
    before = f.read_bytes()

    def crash(name):
        if name == step:
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(fileio, "_step_hook", crash)
    with pytest.raises(OSError, match="No space"):
        write_atomic(f, b"new content\n")
    assert f.read_bytes() == before
    assert leftovers(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.yaml"]


@pytest.mark.parametrize("target", ["replace", "fsync"])
def test_os_failure_before_rename_leaves_original(tmp_path, monkeypatch, target):
    f = tmp_path / "game.yaml"
    f.write_bytes(b"original\n")

    def boom(*a, **k):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(fileio.os, target, boom)
    with pytest.raises(OSError, match="Input/output"):
        write_atomic(f, b"new\n")
    monkeypatch.undo()
    assert f.read_bytes() == b"original\n"
    assert leftovers(tmp_path) == []


def test_keyboard_interrupt_also_cleans_up(tmp_path, monkeypatch):
    f = tmp_path / "game.yaml"
    f.write_bytes(b"original\n")

    def stop(name):
        if name == "written":
            raise KeyboardInterrupt

    monkeypatch.setattr(fileio, "_step_hook", stop)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(f, b"new\n")
    assert f.read_bytes() == b"original\n" and leftovers(tmp_path) == []


def test_write_many_in_order_and_stops_at_failure(tmp_path, monkeypatch):
    a, b, c = tmp_path / "a.yaml", tmp_path / "b.yaml", tmp_path / "c.yaml"
    order = []
    real = fileio.write_atomic

    def spy(path, data, mode=None):
        order.append(Path(path).name)
        if Path(path).name == "b.yaml":
            raise OSError(28, "No space left on device")
        real(path, data, mode=mode)

    monkeypatch.setattr(fileio, "write_atomic", spy)
    with pytest.raises(OSError):
        write_many_atomic([(a, "1"), (b, "2"), (c, "3")])
    assert order == ["a.yaml", "b.yaml"]
    assert a.read_text() == "1" and not b.exists() and not c.exists()
    monkeypatch.undo()
    write_many_atomic([(a, "x"), (c, "y")])
    assert (a.read_text(), c.read_text()) == ("x", "y")


# ------------------------------------------------------------------ locking

def test_lock_path_name(tmp_path):
    assert lock_path(tmp_path / "game.yaml") == str(tmp_path / ".game.yaml.lock")
    assert lock_path("game.yaml") == ".game.yaml.lock"


def test_lock_survives_record_replacement_and_times_out(tmp_path):
    record = tmp_path / "game.yaml"
    record.write_text("a: 1\n")
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys, time
            from rebis_pbm.files.atomic import write_atomic
            from rebis_pbm.files.lock import locked
            with locked({str(record)!r}):
                write_atomic({str(record)!r}, "a: 2\\n")
                print("locked", flush=True)
                sys.stdin.read()
        """)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=REPO, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(LockTimeout) as info, locked(record, timeout=0.2):
            pytest.fail("lock should be held by the other process")
        assert "another rebis-pbm command is updating" in str(info.value)
        assert "try again" in str(info.value) and isinstance(info.value, RuntimeError)
    finally:
        holder.stdin.close()
        holder.wait(timeout=10)
    with locked(record, timeout=1) as lf:
        assert lf == lock_path(record) and os.path.exists(lf)
    assert not (tmp_path / ".game.yaml.lock").exists()      # deleted once released


COUNTER_WORKER = """
import os, sys
from rebis_pbm.files.atomic import write_atomic
from rebis_pbm.files.lock import locked
counter = sys.argv[1]
for _ in range(int(sys.argv[2])):
    with locked(counter, timeout=20):
        with open(counter) as f:
            n = int(f.read())
        write_atomic(counter, str(n + 1))
"""


def test_concurrent_increments_are_exact(tmp_path):
    counter = tmp_path / "counter.txt"
    counter.write_text("0")
    procs, per = 4, 40
    workers = [subprocess.Popen([sys.executable, "-c", COUNTER_WORKER, str(counter), str(per)],
                                cwd=REPO)
               for _ in range(procs)]
    for w in workers:
        assert w.wait(timeout=60) == 0
    assert counter.read_text() == str(procs * per)
    assert leftovers(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["counter.txt"]   # no lock file left


def test_lock_is_released_on_exception(tmp_path):
    record = tmp_path / "game.yaml"
    with pytest.raises(ZeroDivisionError), locked(record):
        raise ZeroDivisionError  # any exception inside the lock
    start = time.monotonic()
    with locked(record, timeout=0):
        pass
    assert time.monotonic() - start < 1


def test_the_lock_file_exists_only_while_the_lock_is_held(tmp_path):
    """Deleted at every release, refused or not: no `.game.yaml.lock` is ever left in a game
    folder or a git repository."""
    record = tmp_path / "game.yaml"
    with locked(record) as lf:
        assert os.path.exists(lf)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ZeroDivisionError), locked(record):
        raise ZeroDivisionError  # any exception inside the lock
    assert list(tmp_path.iterdir()) == []


def test_a_lock_file_left_by_a_killed_command_is_used_then_deleted(tmp_path):
    record = tmp_path / "game.yaml"
    killed = subprocess.run([sys.executable, "-c", textwrap.dedent(f"""
        import os
        from rebis_pbm.files.lock import locked
        with locked({str(record)!r}):
            os._exit(9)
    """)], cwd=REPO)
    assert killed.returncode == 9 and os.path.exists(lock_path(record))
    with locked(record, timeout=0):        # the kernel released the dead command's lock
        pass
    assert not os.path.exists(lock_path(record))


HOLDER = """
import sys
from rebis_pbm.files.lock import locked
with locked(sys.argv[1]):
    print("locked", flush=True)
    sys.stdin.read()
"""


def hold_lock(record) -> subprocess.Popen:
    """Another process holding ``record``'s lock until its standard input is closed."""
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(record)], cwd=REPO, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert holder.stdout.readline().strip() == "locked"
    return holder


def release(holder: subprocess.Popen) -> None:
    holder.stdin.close()
    assert holder.wait(timeout=10) == 0


def test_a_waiter_whose_lock_file_was_deleted_waits_for_the_one_the_path_names(tmp_path,
                                                                                monkeypatch):
    """The guard that makes deleting the lock file safe. A command has the lock file open when
    the holder deletes it and releases it, and a third command creates a new one and takes it.
    The first command's flock on the deleted file then succeeds; it must see that the path names
    another file and wait for that one, or two commands would hold the record's lock at once."""
    import fcntl

    record = tmp_path / "game.yaml"
    lock = tmp_path / ".game.yaml.lock"
    lock.touch()
    real_flock = fcntl.flock
    others: list[subprocess.Popen] = []

    def flock(fd, operation):
        if not others:  # between this command's open and its flock
            lock.unlink()                       # the holder deletes the file and releases it
            others.append(hold_lock(record))    # a third command makes a new one and holds it
        return real_flock(fd, operation)

    monkeypatch.setattr(fcntl, "flock", flock)
    try:
        with pytest.raises(LockTimeout), locked(record, timeout=0.3):
            pytest.fail("two commands hold the record's lock at once")
    finally:
        monkeypatch.undo()
        for other in others:
            release(other)
    assert not lock.exists()
    with locked(record, timeout=0):
        assert lock.exists()


def test_the_lock_timeout_can_be_set_in_the_environment(tmp_path, monkeypatch):
    record = tmp_path / "game.yaml"
    holder = hold_lock(record)
    try:
        monkeypatch.setenv(record_lock.LOCK_TIMEOUT_ENV, "0.2")
        start = time.monotonic()
        with pytest.raises(LockTimeout) as info, locked(record):
            pytest.fail("the lock is held by the other process")
        assert info.value.timeout == 0.2 and time.monotonic() - start < 5
    finally:
        release(holder)
    monkeypatch.delenv(record_lock.LOCK_TIMEOUT_ENV)
    assert record_lock.lock_timeout() == record_lock.DEFAULT_LOCK_TIMEOUT == 30


@pytest.mark.parametrize("text", ["soon", "-1", "nan", "inf"])
def test_a_lock_timeout_that_is_not_a_number_of_seconds_is_refused(monkeypatch, text):
    monkeypatch.setenv(record_lock.LOCK_TIMEOUT_ENV, text)
    with pytest.raises(InputError) as info:
        record_lock.lock_timeout()
    assert str(info.value) == (f"REBIS_PBM_LOCK_TIMEOUT: must be a number of seconds to wait for "
                               f"a record's lock, such as 30, not {text!r}")


# ------------------------------------------------------------------ wording of OS errors

def test_a_folder_that_forbids_writing_is_named_not_the_temporary_file(tmp_path, monkeypatch):
    import tempfile

    f = tmp_path / "game.yaml"
    f.write_text("a: 1\n")

    def deny(*, dir, prefix, suffix, **kw):
        raise PermissionError(errno.EACCES, "Permission denied",
                              os.path.join(dir, f"{prefix}7e7p1y59{suffix}"))

    monkeypatch.setattr(tempfile, "mkstemp", deny)
    with pytest.raises(fileio.FileError) as info:
        write_atomic(f, "a: 2\n")
    assert info.value.errno == errno.EACCES and info.value.filename == str(f)
    assert str(info.value) == (f"{f}: permission denied: this file cannot be written, because "
                               f"its folder {tmp_path} is not writable (the new version is written "
                               f"beside it, then renamed over it); give write permission on that "
                               f"folder")
    assert f.read_text() == "a: 1\n"


@pytest.mark.parametrize("exists", [False, True], ids=["folder", "lock file"])
def test_a_lock_file_that_cannot_be_made_or_opened_is_worded_for_the_record(tmp_path, monkeypatch,
                                                                            exists):
    record = tmp_path / "game.yaml"
    lock = lock_path(record)
    if exists:
        Path(lock).touch()
    real_open = os.open

    def deny(path, flags, *args, **kwargs):
        if os.fspath(path) == lock:
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(fileio.os, "open", deny)
    with pytest.raises(fileio.FileError) as info, locked(record, timeout=0):
        pytest.fail("locked without a lock file")
    if exists:
        expected = (f"{record}: permission denied: its lock file {lock} cannot be opened for "
                    f"writing; fix that file's permissions, or delete it while no rebis-pbm "
                    f"command is running")
    else:
        expected = (f"{record}: permission denied: its folder {tmp_path} is not writable, and a "
                    f"command that changes this file first creates its lock file .game.yaml.lock "
                    f"there; give write permission on that folder")
    assert str(info.value) == expected


@pytest.mark.parametrize("code, doing, words", [
    (errno.ENOSPC, "write", "g/game.yaml: this file cannot be written (No space left on device); "
                            "free some space on that disk"),
    (errno.EROFS, "write", "g/game.yaml: this file cannot be written: its folder g is on a "
                           "read-only file system; copy the game to a writable folder"),
    (errno.ENOENT, "write", "g/game.yaml: this file cannot be written: there is no folder g; "
                            "check the path"),
    (errno.ENOENT, "folder", "g/game.yaml: this folder cannot be created: its parent folder must "
                             "exist, and g does not; create it first, or check the path"),
    (errno.EACCES, "use", "g/game.yaml: permission denied; check the permissions of this file "
                          "and of its folder"),
])
def test_os_errors_are_worded_in_one_place(code, doing, words):
    exc = OSError(code, os.strerror(code), "g/.game.yaml.x8k2.tmp")
    assert fileio.os_error_message(exc, "g/game.yaml", doing=doing) == words
