"""A file given in the wrong place is named as what it is (rebis_pbm.formats.filekinds): a move,
view
or secret file given as the record, a record given as a view. One sentence, exit 2, nothing
changed, and never the secret's seed in the message."""

from __future__ import annotations

import pytest

from clitools import new_game, run_inproc, snapshot
from rebis_pbm.formats.filekinds import kind_of, wrong_kind


@pytest.fixture()
def folder(tmp_path):
    game = new_game(tmp_path / "g", ("ann", "ben"), "filekinds tests")
    move = run_inproc("moves", game, "--player", "ann")
    assert move.code == 0, move.err
    (tmp_path / "g" / "move.yaml").write_text(move.out.split("\n---")[0])
    run_inproc("view", game, "--player", "ann", "--format", "yaml")
    view = run_inproc("view", game, "--player", "ann", "--format", "yaml")
    (tmp_path / "g" / "ann-view.yaml").write_text(view.out)
    return tmp_path / "g"


@pytest.mark.parametrize("given, words", [
    ("move.yaml", "this is a move file, not a game record"),
    ("ann-view.yaml", "this is a view (what a player sees of the game), not a game record"),
    ("game.secret.yaml", "this is the game's secret seed file, not a game record"),
])
@pytest.mark.parametrize("command", [["verify"], ["view", "--public"]])
def test_another_file_given_as_the_record_is_named(cli, folder, given, words, command):
    before = snapshot(folder)
    outcome = cli(command[0], folder / given, *command[1:])
    line = outcome.refused(2, [words])
    assert "filekinds tests" not in line and "seed:" not in line  # the seed is never quoted
    assert snapshot(folder) == before


def test_a_record_given_as_a_view_is_named(cli, folder):
    outcome = cli("moves", "--view", folder / "game.yaml")
    outcome.refused(2, ["this is a game record, not a view"])


@pytest.mark.parametrize("doc, kind", [
    ({"format": "rebis-pbm/2", "game": "g", "moves": []}, "record"),
    ({"view": "rebis-pbm/view/2", "players": []}, "view"),
    ({"game": "g", "seed": "s", "salt": "t"}, "secret"),
    ({"game": "g", "player": "ann", "join": "entropy"}, "move"),
    ({"game": "g", "player": "ann", "commitment": "0" * 64}, "move"),  # rebis-pbm/5, round 1
    ([{"game": "g", "turn": 1, "player": "ann"}], "listing"),
    ({"game": "g"}, None),
    ("text", None),
])
def test_kind_of_each_file(doc, kind):
    assert kind_of(doc) == kind
    assert wrong_kind(doc, kind or "move") is None or kind is None
