"""Fixtures shared by the transports' test modules (pytest finds them here; no module imports
them). The git helpers they use are plain functions of test_git_job.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_git_job import SEED, git

from transport_support import REPO, new_args, run


@pytest.fixture
def origin(tmp_path) -> Path:
    """A bare origin holding a new game (the referee's set-up, pushed): the git job's tests
    (test_git_job.py), the public repository's and the tampered record's."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "--quiet", "--bare", "--initial-branch=main", str(origin))
    setup = tmp_path / "setup"
    shutil.copytree(REPO / "examples" / "git", setup)
    git(setup, "init", "--quiet", "--initial-branch=main")
    made = run(*new_args(setup / "game.yaml", SEED, "gitjob"))
    assert made.returncode == 0, made.stderr
    shutil.move(setup / "game.secret.yaml", tmp_path / "referee-only.secret.yaml")
    git(setup, "add", "--all")
    git(setup, "commit", "--quiet", "-m", "Start the game", author="alice")
    git(setup, "push", "--quiet", str(origin), "main")
    return origin
