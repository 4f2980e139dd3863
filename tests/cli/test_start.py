"""The command's start (rebis_pbm.start): the cycle collector is kept from the imports' objects,
and is on while the command runs, so that a long command still frees cycles it made."""

import gc
import subprocess
import sys
import weakref

import rebis_pbm.cli
from rebis_pbm import start


class Node:
    """An object that can hold itself (a cycle only the collector frees)."""


def test_the_command_runs_with_the_collector_on_and_the_imports_frozen(monkeypatch):
    seen = {}
    before = gc.get_threshold()

    def command_line():
        seen["enabled"] = gc.isenabled()
        seen["threshold"] = gc.get_threshold()
        seen["frozen"] = gc.get_freeze_count()
        cycle = Node()
        cycle.itself = cycle  # a cycle made by the command, then dropped
        seen["cycle"] = weakref.ref(cycle)
        del cycle
        seen["held"] = [[] for _ in range(2 * start.YOUNG)]  # enough for a collection to run

    monkeypatch.setattr(rebis_pbm.cli, "main", command_line)
    try:
        start.main()
    finally:
        gc.unfreeze()  # the rest of the test run scans as before
        gc.set_threshold(*before)
    assert seen["enabled"] is True
    assert seen["threshold"] == (start.YOUNG, *before[1:])
    assert seen["frozen"] > 1000  # the objects already made are frozen, not scanned again
    assert seen["cycle"]() is None  # the collector ran by itself and freed the command's cycle
    assert gc.isenabled()


def test_the_collector_is_on_again_when_the_command_fails(monkeypatch):
    def command_line():
        raise SystemExit(2)

    monkeypatch.setattr(rebis_pbm.cli, "main", command_line)
    before = gc.get_threshold()
    try:
        try:
            start.main()
        except SystemExit as exc:
            assert exc.code == 2
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
    assert gc.isenabled()


def test_the_console_script_and_python_m_start_there():
    from importlib.metadata import entry_points

    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "rebis-pbm"]
    assert script.value == "rebis_pbm.start:main"
    for module in ("rebis_pbm", "rebis_pbm.cli"):
        done = subprocess.run([sys.executable, "-m", module, "--version"], capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0 and "rebis-pbm" in done.stdout, done.stderr
