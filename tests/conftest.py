"""Fixtures shared by every test module (pytest finds them here; no module imports them).

Helpers that are plain functions live beside this file (clitools, builders, positions,
infoset, mutations, transport_support); pytest puts this folder on ``sys.path``, so test
modules in the sub-folders import them by name.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from clitools import _install_into_venv, _is_ours, run_inproc, run_script

_INSTALLED: list[str] = []   # the temporary install, shared by every module of the session


@pytest.fixture(scope="session")
def console_script(tmp_path_factory) -> str:
    """Path of the installed `rebis-pbm` console script running this checkout's code.

    `make test` installs the project into .venv, where the script sits next to sys.executable.
    Run with another interpreter (e.g. `python -m pytest` in a checkout), the project is
    installed once per session into a temporary venv instead.
    """
    beside = Path(sys.executable).parent / "rebis-pbm"
    if beside.exists():
        return str(beside)
    found = shutil.which("rebis-pbm")
    if found and _is_ours(Path(found)):
        return found
    if not _INSTALLED:
        _INSTALLED.append(_install_into_venv(tmp_path_factory.mktemp("console-script")))
    return _INSTALLED[0]


@pytest.fixture(params=["runner", "script"])
def cli(request):
    """Run rebis-pbm: ``cli(*args, stdin=bytes, env=dict) -> Outcome``, once through click's
    CliRunner and once through the installed console script in a subprocess."""
    if request.param == "runner":
        return run_inproc
    script = request.getfixturevalue("console_script")
    return lambda *args, **kw: run_script(script, *args, **kw)
