"""`rebis-pbm check` (a move file checked without the seed, as a pull request's check does in a
game played through git) and `apply --check-name` (a move file named after its turn and
player), each through click's CliRunner and the installed console script."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from clitools import EXAMPLES, example_game, run_inproc, snapshot
from rebis_pbm.app import open_game

ALICE_1 = EXAMPLES / "moves" / "turn-001-alice.yaml"   # turn 1 by alice, game "example"


@pytest.fixture
def seedless(tmp_path) -> Path:
    """The example game before its first move, as a player's clone holds it: no seed anywhere."""
    game = example_game(tmp_path / "game", upto_turn=0)
    (game.parent / "game.secret.yaml").unlink()
    return game


def renamed(tmp_path: Path, name: str) -> Path:
    """Alice's first move under another file name."""
    (tmp_path / "moves").mkdir(exist_ok=True)
    return Path(shutil.copy(ALICE_1, tmp_path / "moves" / name))


def test_check_needs_no_seed_and_writes_nothing(cli, seedless):
    before = snapshot(seedless.parent)
    outcome = cli("check", seedless, ALICE_1, "--check-name", "--as", "alice")
    assert outcome.code == 0, outcome.err
    assert outcome.out == (f"{ALICE_1}: a well-formed move of turn 1 by alice for game example; "
                           f"the rules are checked when it is applied.\n")
    assert snapshot(seedless.parent) == before
    # The same game cannot apply the move: that needs the seed.
    assert cli("apply", seedless, ALICE_1, "--dry-run").code == 2


@pytest.mark.parametrize("name, right", [("turn-002-alice.yaml", "turn-001-alice.yaml"),
                                         ("turn-001-bob.yaml", "turn-001-alice.yaml"),
                                         ("turn-1-alice.yaml", "turn-001-alice.yaml"),
                                         ("alice.yaml", "turn-001-alice.yaml")])
def test_a_move_file_not_named_after_its_turn_and_player_is_refused(cli, seedless, tmp_path,
                                                                   name, right):
    path = renamed(tmp_path, name)
    before = snapshot(seedless.parent)
    outcome = cli("check", seedless, path, "--check-name")
    assert outcome.code == 2
    assert outcome.one_error_line() == (
        f"rebis-pbm: {path}: this file holds the move of turn 1 by alice, so it must be named "
        f"{right}; rename the file, or correct the turn and player in it")
    assert snapshot(seedless.parent) == before
    # Without --check-name the name does not matter.
    assert cli("check", seedless, path).code == 0


def test_check_refuses_another_players_move(cli, seedless):
    outcome = cli("check", seedless, ALICE_1, "--as", "bob")
    assert outcome.code == 1
    assert "this move is for alice, but it comes from bob; a player can only send their own " \
        "moves" in outcome.one_error_line()


@pytest.mark.parametrize("edit, code, words", [
    (lambda t: t.replace("turn: 1", "turn: first"), 2, ":2:7: field turn"),
    (lambda t: t.replace("game: example", "game: other"), 2, "this move is for game other"),
])
def test_check_refuses_what_apply_would_refuse_before_the_rules(cli, seedless, tmp_path, edit,
                                                                code, words):
    path = tmp_path / "turn-001-alice.yaml"
    path.write_text(edit(ALICE_1.read_text()))
    outcome = cli("check", seedless, path)
    assert outcome.code == code and words in outcome.one_error_line()


@pytest.mark.parametrize("command", ["check", "apply"])
def test_check_name_needs_a_file(seedless, command):
    outcome = run_inproc(command, seedless, "-", "--check-name", stdin=ALICE_1.read_bytes())
    assert outcome.code == 2 and "--check-name needs a move file" in outcome.err


def test_apply_check_name_refuses_a_misnamed_move_and_applies_a_well_named_one(cli, tmp_path):
    game = example_game(tmp_path / "game", upto_turn=0)
    before = snapshot(game.parent)
    wrong = renamed(tmp_path, "turn-002-alice.yaml")
    outcome = cli("apply", game, wrong, "--check-name")
    assert outcome.code == 2
    assert "so it must be named turn-001-alice.yaml" in outcome.one_error_line()
    assert snapshot(game.parent) == before
    done = cli("apply", game, renamed(tmp_path, "turn-001-alice.yaml"), "--check-name")
    assert done.code == 0, done.err
    assert len(open_game(game)[0].moves) == 1
