"""Tests for rebis_pbm.fileio: capped reads, crash-safe writes, the record lock."""

import io
import os
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from rebis_pbm import fileio
from rebis_pbm.fileio import LockTimeout, lock_path, locked, read_input, write_atomic, write_many_atomic
from rebis_pbm.yamlio import MOVE_MAX_BYTES, InputError

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
        requested = []

        def readable(self):
            return True

        def read(self, n=-1):
            assert n != -1, "must not read without a limit"
            self.requested.append(n)
            return b"#" * n

    monkeypatch.setattr(sys, "stdin", type("S", (), {"buffer": Endless()})())
    with pytest.raises(InputError) as info:
        read_input("-", kind="move")
    assert "larger than 64 KiB" in info.value.message and info.value.source == "<stdin>"
    assert Endless.requested == [MOVE_MAX_BYTES + 1]


def test_read_exactly_cap_is_fine(tmp_path):
    f = tmp_path / "m.yaml"
    f.write_bytes(b"#" * MOVE_MAX_BYTES)
    assert len(read_input(str(f), kind="move")[0]) == MOVE_MAX_BYTES
    f.write_bytes(b"#" * (MOVE_MAX_BYTES + 1))
    with pytest.raises(InputError, match="larger"):
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
    def deny(*a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("builtins.open", deny)
    with pytest.raises(InputError, match="permission denied"):
        read_input(str(tmp_path / "x.yaml"), kind="move")


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
            from rebis_pbm.fileio import locked, write_atomic
            with locked({str(record)!r}):
                write_atomic({str(record)!r}, "a: 2\\n")
                print("locked", flush=True)
                sys.stdin.read()
        """)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=REPO, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(LockTimeout) as info:
            with locked(record, timeout=0.2):
                pytest.fail("lock should be held by the other process")
        assert "another rebis-pbm command is updating" in str(info.value)
        assert "try again" in str(info.value) and isinstance(info.value, RuntimeError)
    finally:
        holder.stdin.close()
        holder.wait(timeout=10)
    with locked(record, timeout=1) as lf:
        assert lf == lock_path(record)
    assert (tmp_path / ".game.yaml.lock").exists()


COUNTER_WORKER = """
import os, sys
from rebis_pbm.fileio import locked, write_atomic
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
    workers = [subprocess.Popen([sys.executable, "-c", COUNTER_WORKER, str(counter), str(per)], cwd=REPO)
               for _ in range(procs)]
    for w in workers:
        assert w.wait(timeout=60) == 0
    assert counter.read_text() == str(procs * per)
    assert leftovers(tmp_path) == []


def test_lock_is_released_on_exception(tmp_path):
    record = tmp_path / "game.yaml"
    with pytest.raises(ZeroDivisionError):
        with locked(record):
            1 / 0
    start = time.monotonic()
    with locked(record, timeout=0):
        pass
    assert time.monotonic() - start < 1
