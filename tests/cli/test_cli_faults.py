"""The small faults found by playing as a new player and a new referee would (issue 15), each
performed and seen refused or fixed."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest
import yaml

from rebis_pbm import app as referee
from rebis_pbm.engine import events as ev
from rebis_pbm.present import views
from rebis_pbm.record import SealedMove

ARCHIVE = Path(__file__).resolve().parents[1] / "records"


def new_game(folder: Path, name: str = "g", seed: str = "faults", **kw):
    return referee.create_game(folder / f"{name}.yaml", ["ana", "bob"], seed=seed,
                               insecure_seed=True, game_id=f"faults-{name}", **kw)


def greedy_until(game: Path, done) -> None:
    """Apply greedy bot moves to ``game`` until ``done(submitted)`` says so."""
    while True:
        record = referee.read_record(game)
        state = referee.open_game(game).state
        _, move = referee.bot_move(game, state.player_to_move, "greedy", seed="x")
        from rebis_pbm.formats.yaml_writer import dump_yaml
        sent = referee.submit_move(game, dump_yaml({"game": record.game, **move.as_dict()})
                                   .encode(), "m.yaml")
        if done(sent):
            return


def test_apply_refuses_the_views_folder_of_another_game(cli, tmp_path):
    new_game(tmp_path, "one")
    new_game(tmp_path, "two", seed="other")
    other_views = tmp_path / "two.views"
    before = {p.name: p.read_bytes() for p in other_views.iterdir()}
    move = referee.legal_moves_listing(tmp_path / "one.yaml", "ana").split("---\n")[1]
    (tmp_path / "m.yaml").write_text(move)
    record_before = (tmp_path / "one.yaml").read_bytes()
    done = cli("apply", tmp_path / "one.yaml", tmp_path / "m.yaml", "--views-dir", other_views)
    done.refused(2, ["views of game faults-two"])
    assert {p.name: p.read_bytes() for p in other_views.iterdir()} == before
    assert (tmp_path / "one.yaml").read_bytes() == record_before


def test_a_closing_play_resent_with_a_card_that_could_not_close_is_a_different_move(cli,
                                                                                    tmp_path):
    created = new_game(tmp_path, ruleset=referee.ruleset_from(False, ["shelf_limit=5"]))
    game = tmp_path / "g.yaml"
    greedy_until(game, lambda sent: any(isinstance(e, ev.Closed) for e in sent.events))
    record = referee.read_record(game)
    entry = record.moves[-1]
    assert isinstance(entry, SealedMove)
    replay = referee.open_game(game).replay
    closed = next(e for e in replay.history[-1][1] if isinstance(e, ev.Closed))
    weight = replay.state.shelves[replay.state.players.index(closed.owner)][closed.shelf - 1].weight
    doc = {"game": created.record.game, "turn": entry.turn, "player": entry.player,
           "play": {"cards": 5 - weight,  # weight + card == the limit: does not close
                    "shelf": entry.owner, "sign": entry.sign}}
    assert 5 - weight >= 0
    if entry.gold_token is not None:
        doc["gold_token"] = {"player": entry.gold_token.player, "shelf": entry.gold_token.shelf}
    if entry.golden_dust:
        doc["golden_dust"] = entry.golden_dust
    (tmp_path / "resent.yaml").write_text(yaml.safe_dump(doc))
    done = cli("apply", game, tmp_path / "resent.yaml", "--dry-run")
    done.refused(1, ["would not have closed it", "different move"])
    # a card that closes it is still "already applied" (the seal is not opened)
    doc["play"]["cards"] = 9
    (tmp_path / "resent.yaml").write_text(yaml.safe_dump(doc))
    done = cli("apply", game, tmp_path / "resent.yaml", "--dry-run")
    assert done.code == 0 and "already applied" in done.out


def test_as_accepts_a_git_author_as_printed(cli, tmp_path):
    referee.create_game(tmp_path / "g.yaml", ["ana", "bob"], seed="faults", insecure_seed=True,
                        addresses={"ana": "ana@example.org", "bob": "bob@example.org"})
    move = referee.legal_moves_listing(tmp_path / "g.yaml", "ana").split("---\n")[1]
    (tmp_path / "m.yaml").write_text(move)
    done = cli("apply", tmp_path / "g.yaml", tmp_path / "m.yaml", "--dry-run",
               "--as", "Ana <ana@example.org>")
    assert done.code == 0, done.err
    done = cli("apply", tmp_path / "g.yaml", tmp_path / "m.yaml", "--dry-run",
               "--as", "Bob <bob@example.org>")
    done.refused(1, ["only send their own moves"])


def test_a_read_only_record_is_refused_not_replaced(cli, tmp_path):
    new_game(tmp_path)
    game = tmp_path / "g.yaml"
    move = referee.legal_moves_listing(game, "ana").split("---\n")[1]
    (tmp_path / "m.yaml").write_text(move)
    os.chmod(game, 0o444)
    before = game.read_bytes()
    try:
        done = cli("apply", game, tmp_path / "m.yaml")
        done.refused(2, ["read-only"])
        assert game.read_bytes() == before
        assert stat.S_IMODE(os.stat(game).st_mode) == 0o444
    finally:
        os.chmod(game, 0o644)


def test_a_ruleset_without_tokens_is_refused(cli, tmp_path):
    done = cli("new", tmp_path / "g.yaml", "--player", "ana", "--player", "bob",
               "--rule", "golden_dust=0", "--rule", "gold=0")
    assert done.code == 2 and "first turn" in done.err
    assert not (tmp_path / "g.yaml").exists()


def test_a_name_in_the_wrong_case_gets_did_you_mean(cli, tmp_path):
    new_game(tmp_path)
    done = cli("view", tmp_path / "g.yaml", "--player", "ANA")
    assert done.code == 2 and "did you mean ana?" in done.err


def test_one_card_is_one_card():
    assert views.counted(1, "card") == "1 card"
    view = {"viewer": "public", "game": "g", "phase": "play", "turn": 3, "to_move": "ana",
            "deck": 1, "supply": {"golden_dust": 1, "gold": 0, "red": 0}, "players": [],
            "history": []}
    assert "Deck: 1 card." in views.render_text(view)


@pytest.mark.parametrize("name", ["unfinished", "red-token-pending"])
def test_score_and_the_public_view_need_no_seed(cli, tmp_path, name):
    """With the secret and without it, the score and the spectator view are the same."""
    for file in (f"{name}.yaml", f"{name}.secret.yaml"):
        shutil.copyfile(ARCHIVE / file, tmp_path / file)
    game = tmp_path / f"{name}.yaml"
    seeded = [cli("score", game, "--format", "json"),
              cli("view", game, "--public", "--format", "yaml")]
    (tmp_path / f"{name}.secret.yaml").unlink()
    public = [cli("score", game, "--format", "json"),
              cli("view", game, "--public", "--format", "yaml")]
    for a, b in zip(seeded, public, strict=True):
        assert a.code == b.code == 0, (a.err, b.err)
        assert a.out == b.out
    # the player's own view still needs the seed
    assert cli("view", game, "--player", "alice").code == 2
