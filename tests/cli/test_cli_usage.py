"""Bad usage is one line on stderr, like every other refusal (docs/cli.md), exit 2."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("args, words", [
    (("view",), ["Missing argument 'GAME'", "rebis-pbm view --help"]),
    (("nosuch",), ["No such command 'nosuch'", "rebis-pbm --help"]),
    (("new", "g.yaml", "--player", "solo"), ["2 to 4 players", "rebis-pbm new --help"]),
    (("score", "g.yaml", "--format", "xml"), ["--format", "rebis-pbm score --help"]),
])
def test_a_usage_error_is_one_sentence(cli, tmp_path, args, words):
    outcome = cli(*args)
    assert outcome.code == 2
    line = outcome.one_error_line()
    for word in words:
        assert word in line
    assert "Usage:" not in outcome.err


def test_help_still_shows_the_usage_and_exits_0(cli):
    outcome = cli("--help")
    assert outcome.code == 0 and outcome.out.startswith("Usage: rebis-pbm")


def test_an_internal_error_names_no_game_state_and_shows_no_traceback(tmp_path, monkeypatch):
    from clitools import run_inproc
    from rebis_pbm.app import views as referee  # where `view` reads the game
    def broken(*_args, **_kwargs):
        raise KeyError("hand of bob: 3 5 7")

    monkeypatch.setattr(referee, "open_game", broken)
    outcome = run_inproc("view", tmp_path / "game.yaml", "--player", "bob")
    assert outcome.code == 4
    line = outcome.one_error_line()
    assert "internal error (KeyError)" in line and "REBIS_PBM_DEBUG" in line
    assert "hand of bob" not in line
