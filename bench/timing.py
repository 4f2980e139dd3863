"""How the benchmarks time one command: the import floor, the players, the installed console
script, and one run's wall time, CPU time and peak memory (shared by bench/run.py and
bench/daily.py, so neither imports the other)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

FLOOR = [sys.executable, "-c", "import yaml, jsonschema, click"]
PLAYERS = ("alice", "bob", "carol", "dave")


def rebis_pbm() -> list[str]:
    found = Path(sys.executable).with_name("rebis-pbm")
    if found.exists():
        return [str(found)]
    return [shutil.which("rebis-pbm") or sys.exit("rebis-pbm is not installed beside "
                                                  f"{sys.executable}: run `make bench`")]


def run_once(cmd: list[str], cwd: Path) -> tuple[float, float, int, int]:
    """(wall seconds, CPU seconds, peak RSS in KiB, exit code) of one run of ``cmd``."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, proc.returncode
