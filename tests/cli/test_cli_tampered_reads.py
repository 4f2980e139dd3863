"""Every command that reads a record refuses one whose header or status was edited by hand
(exit 3, nothing written), not only `verify`; and `new` refuses names that would share a view
file."""

from __future__ import annotations

import pytest

from clitools import EXAMPLES, example_game, snapshot

READERS = [
    ("view", "--public"),
    ("view", "--player", "alice"),
    ("score",),
]


def _edit(game, old: str, new: str) -> None:
    text = game.read_text()
    assert old in text, old
    game.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize("command", READERS, ids=lambda c: " ".join(c))
def test_a_hand_edited_status_is_refused_by_every_reader(cli, tmp_path, command):
    game = example_game(tmp_path / "g")
    _edit(game, "    bob: 135\n", "    bob: 136\n")
    before = snapshot(tmp_path)
    outcome = cli(command[0], game, *command[1:])
    assert outcome.code == 3
    line = outcome.one_error_line()
    assert "status" in line and "136" in line and "135" in line
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("command", READERS, ids=lambda c: " ".join(c))
def test_an_edited_game_id_is_reported_as_an_edited_header_not_as_a_missing_seed(cli, tmp_path,
                                                                                 command):
    game = example_game(tmp_path / "g")
    _edit(game, "\ngame: example\n", "\ngame: other\n")
    before = snapshot(tmp_path)
    outcome = cli(command[0], game, *command[1:])
    assert outcome.code == 3
    line = outcome.one_error_line()
    assert "header" in line and "edited" in line and "secret" not in line
    assert snapshot(tmp_path) == before


def test_apply_refuses_to_append_to_a_record_with_an_edited_status(cli, tmp_path):
    game = example_game(tmp_path / "g", upto_turn=3)
    _edit(game, "  turn: 4\n", "  turn: 5\n")
    move = next(EXAMPLES.glob("moves/turn-004-*.yaml"))
    before = snapshot(tmp_path)
    for extra in ((), ("--dry-run",)):
        outcome = cli("apply", game, move, *extra)
        assert outcome.code == 3 and "status" in outcome.one_error_line()
        assert snapshot(tmp_path) == before


@pytest.mark.parametrize("names", [("bob", "Bob"), ("alice", "ALICE", "carol"), ("ann", "Public")])
def test_new_refuses_names_that_would_share_a_view_file(cli, tmp_path, names):
    args = [a for name in names for a in ("--player", name)]
    outcome = cli("new", tmp_path / "game.yaml", *args, "--insecure-seed", "--referee-deal",
                  "--seed", "x")
    assert outcome.code == 2
    assert "case" in outcome.err or "public" in outcome.err
    assert not any(tmp_path.iterdir())


def test_an_abandoned_game_offers_no_move_to_anyone(cli, tmp_path):
    game = example_game(tmp_path / "g", upto_turn=5)
    assert cli("reveal", game, "--yes").code == 0
    views = game.with_name("game.views")
    for name in ("alice", "bob", "carol", "public"):
        text = (views / f"{name}.txt").read_text()
        status_line = text.splitlines()[1]
        assert "abandoned" in status_line and "Your move" not in text
        assert "abandoned: true" in (views / f"{name}.yaml").read_text()
        assert "move_template" not in (views / f"{name}.yaml").read_text()
    before = snapshot(tmp_path)
    for command in ("moves", "bot"):
        outcome = cli(command, game, "--player", "alice")
        assert outcome.code == 1 and "abandoned" in outcome.one_error_line()
    assert snapshot(tmp_path) == before


def test_a_views_folder_whose_parent_is_missing_is_refused_before_anything_is_written(cli,
                                                                                       tmp_path):
    game = example_game(tmp_path / "g", upto_turn=3)
    move = next(EXAMPLES.glob("moves/turn-004-*.yaml"))
    before = snapshot(tmp_path)
    outcome = cli("apply", game, move, "--views-dir", tmp_path / "no" / "such" / "views")
    assert outcome.code == 2 and "parent folder must exist" in outcome.one_error_line()
    assert snapshot(tmp_path) == before and not (tmp_path / "no").exists()
