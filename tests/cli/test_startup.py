"""Start-up: commands defined in other modules load only when run or listed (cli.LAZY_COMMANDS),
so reading a view imports neither the mail, audit, bot, check, new and apply commands nor
jsonschema; and
view and moves import neither pathlib nor the verify machinery (docs/performance.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from rebis_pbm.cli import LAZY_COMMANDS, cli

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("rebis_pbm.cli.audit", "rebis_pbm.cli.bots", "rebis_pbm.cli.mail", "rebis_pbm.cli.check",
         "rebis_pbm.cli.game",
         "rebis_pbm.bots", "rebis_pbm.transports.mail.policy", "rebis_pbm.transports.mail.compose",
         "rebis_pbm.transports.mail.mail_in", "rebis_pbm.transports.mail.outbox",
         "email.message", "smtplib", "jsonschema")
# What view and moves were freed of (docs/performance.md): pathlib with what it imports (they work
# with os.path), the verify-only part of the audit (reading a record needs record.walk alone),
# and fcntl (they take no lock).
NOT_ON_READ_PATH = ("pathlib", "urllib.parse", "ipaddress", "fnmatch", "rebis_pbm.record.audit",
                    "fcntl")


def test_help_lists_every_command_including_the_lazy_ones():
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    listed = {line.split()[0] for line in result.output.split("Commands:")[1].splitlines()
              if line.startswith("  ") and line.split()}
    assert set(LAZY_COMMANDS) <= listed
    assert {"new", "apply", "view", "moves", "score", "schema"} <= listed


@pytest.mark.parametrize("name", sorted(LAZY_COMMANDS))
def test_every_lazy_command_is_registered_by_its_module(name):
    result = CliRunner().invoke(cli, [name, "--help"])
    assert result.exit_code == 0, result.output
    assert f"Usage: cli {name}" in result.output


@pytest.mark.parametrize("command", [["view", "game.yaml", "--player", "ann"],
                                     ["view", "game.yaml", "--public", "--format", "yaml"],
                                     ["moves", "game.yaml", "--player", "ann"]])
def test_view_and_moves_import_neither_pathlib_nor_the_verify_machinery(tmp_path: Path, command):
    """Nor any other command's module, nor jsonschema (HEAVY)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO),
                                                                    os.environ.get("PYTHONPATH")])))
    subprocess.run([sys.executable, "-m", "rebis_pbm", "new", "game.yaml", "--player", "ann",
                    "--player", "bo", "--insecure-seed", "--referee-deal", "--seed", "s"],
                   cwd=tmp_path, env=env, check=True, capture_output=True, timeout=120)
    # What the libraries import by themselves on this Python (e.g. fcntl on 3.10) is not ours.
    code = ("import sys, yaml, click; base = set(sys.modules)\n"
            f"from rebis_pbm.cli import main; sys.argv = ['rebis-pbm', *{command!r}]"
            "\ntry:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n"
            f"print([m for m in {HEAVY + NOT_ON_READ_PATH!r} if m in set(sys.modules) - base], "
            "file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "game: rebis-" in out.stdout or "Your hand:" in out.stdout  # the command did its work
    assert out.stderr.strip() == "[]"


def test_shared_steps_take_a_path_as_text_or_as_a_path_object(tmp_path: Path):
    """The mail, audit and check commands pass pathlib paths to the steps that view, moves and
    apply call with text: both name the same files."""
    from rebis_pbm.app import default_views_dir, for_mover, open_game, write_views
    from rebis_pbm.record import secret_path
    game = tmp_path / "game.yaml"
    result = CliRunner().invoke(cli, ["new", str(game), "--player", "ann", "--player", "bo",
                                      "--insecure-seed", "--referee-deal", "--seed", "s"])
    assert result.exit_code == 0, result.output
    views = tmp_path / "game.views"
    loaded = [open_game(where) for where in (game, str(game))]
    assert loaded[0] == loaded[1]
    for where in (game, str(game)):
        assert default_views_dir(where) == str(views)
        assert secret_path(where) == str(tmp_path / "game.secret.yaml")
        assert for_mover(where, "ann")[1] == loaded[0][1].state
    # `new` wrote every view: writing them again, into either form of the folder, writes none.
    assert write_views(views, *loaded[0][:2]) == 0
    assert write_views(str(views), *loaded[0][:2]) == 0
    (views / "bo.txt").unlink()
    # only existing files are redone
    assert write_views(views, *loaded[0][:2], stale_only=True) == 0
    assert write_views(str(views), *loaded[0][:2]) == 1
    assert (views / "bo.txt").exists()
