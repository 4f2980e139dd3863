"""The game page for spectators (issue 17, ``rebis-pbm site``, docs/views.md "The game page"):
what it shows, and that it holds public information only, before and after the seed's reveal."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from infoset import alternative, play_prefix
from rebis_pbm.app import open_game
from rebis_pbm.cli import cli
from rebis_pbm.engine import Ruleset, legal_moves, shuffled
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.present import site, views

ROOT = Path(__file__).resolve().parent.parent
SEED = "a seed nobody may see before the end"


def files(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(folder.iterdir())}


def test_the_page_of_a_finished_game_shows_every_move_the_score_the_seed_and_the_verdict(
        tmp_path):
    out = tmp_path / "site"
    result = CliRunner().invoke(cli, ["site", str(ROOT / "examples" / "game.yaml"),
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output == (f"Wrote the game page {out}/index.html and 39 pictures of the table "
                             f"in {out}/.\n")
    written = files(out)
    assert set(written) == {"index.html", "table.svg", *(f"turn-{n:03d}.svg" for n in range(38))}
    page = written["index.html"]
    assert page.count("<details>") == 38 and 'src="turn-037.svg"' in page
    assert "<strong>Turn 37 (carol)</strong>: carol placed the red token on carol&#x27;s shelf 4" \
        in page
    assert "Winner: bob" in page and "<td>bob</td>" in page
    assert "The record reveals the seed: <code>rebis-pbm example game</code>" in page
    assert '<span class="ok">verified</span>' in page and "Verified: game example (game.yaml)" \
        in page
    assert "<script" not in page and str(ROOT) not in page  # no folder of the referee's
    # The table now shows every face-down card (the seed is public); the pictures of each move
    # show it as a spectator saw it then, without them.
    assert "card down revealed" in written["table.svg"]
    for name in (f"turn-{n:03d}.svg" for n in range(38)):
        assert "card down revealed" not in written[name] and "card down yours" not in written[name]


def new_game(folder: Path, moves: int) -> Path:
    """A 3-player game with ``moves`` moves applied (each the first legal move)."""
    runner = CliRunner()
    game = folder / "game.yaml"
    assert runner.invoke(cli, ["new", str(game), "--player", "ann", "--player", "bo", "--player",
                               "cy", "--insecure-seed", "--referee-deal", "--seed", SEED,
                               "--game-id", "g"]).exit_code == 0
    for _ in range(moves):
        state = open_game(game)[1].state
        move = folder / "move.yaml"
        move.write_text(dump_yaml({"game": "g", **legal_moves(state)[0].as_dict()}))
        assert runner.invoke(cli, ["apply", str(game), str(move)]).exit_code == 0
    return game


def test_the_page_of_a_game_under_way_shows_the_game_so_far_and_no_secret(tmp_path):
    game = new_game(tmp_path, 5)
    out = tmp_path / "site"
    result = CliRunner().invoke(cli, ["site", str(game), "--out", str(out)])
    assert result.exit_code == 0, result.output
    written = files(out)
    assert len([n for n in written if n.startswith("turn-")]) == 6
    page = written["index.html"]
    assert "The game awaits turn 6" in page and "Score so far" in page
    assert "The seed stays with the referee" in page
    assert "Verified as far as possible without the seed" in page
    secret = (tmp_path / "game.secret.yaml").read_text()
    for name, text in written.items():
        assert SEED not in text and "secret" not in text.replace("secret file", ""), name
        assert "card down yours" not in text and "card down revealed" not in text, name
        assert "drew a" not in text and "drew an" not in text, name  # only "drew 1 card"
    assert SEED in secret  # the seed was there to be leaked


def test_a_missing_game_or_a_folder_without_parent_is_refused(tmp_path):
    runner = CliRunner()
    missing = runner.invoke(cli, ["site", str(tmp_path / "nope.yaml"), "--out", str(tmp_path)])
    assert missing.exit_code == 2 and "there is no such game record" in missing.output
    game = new_game(tmp_path, 0)
    nowhere = runner.invoke(cli, ["site", str(game), "--out", str(tmp_path / "a" / "b")])
    assert nowhere.exit_code == 2 and "the site folder" in nowhere.output
    assert not (tmp_path / "a").exists()


@pytest.mark.parametrize("rng_seed", range(4))
def test_the_page_depends_only_on_public_information(tmp_path, rng_seed):
    """Two games that differ in cards nobody has seen (every hand, the deck, the face-down cards)
    but agree on every public fact give the same page and pictures, byte for byte."""
    rng = random.Random(rng_seed)
    ruleset = Ruleset(shelf_limit=rng.choice((8, 10, 13)), hand_size=rng.randint(2, 5))
    seats = ("ann", "bo", "cy", "di")[:rng.randint(2, 4)]
    order = shuffled(ruleset.cards, f"site {rng_seed}")
    game = play_prefix(ruleset, seats, order, rng.randint(8, 30), rng)
    hidden = alternative(game, None, rng)
    assert hidden.order != game.order
    built = []
    for which, prefix in (("a", game), ("b", hidden)):
        public = site.PublicGame(
            "g", site.public_frames("g", prefix.states[0], prefix.setup_events, prefix.steps),
            views.build_view("g", prefix.replay(), None), site.score_data(prefix.state),
            True, "Verified as far as possible without the seed: ...", None, "0" * 64)
        site.write_site(tmp_path / which, public)
        built.append(files(tmp_path / which))
    assert built[0] == built[1]
    assert len(built[0]) == len(game.steps) + 3
    # and the pictures do show the game: one card face up for every card played face up (the
    # legend's, drawn last, apart)
    last = built[0][site.frame_file(len(game.steps))].split('<g class="legend">')[0]
    assert len(re.findall(r'class="card up (?:positive|negative)"', last)) == len(game.face_up)


@pytest.mark.parametrize("moves", [0, 7])
def test_a_spectator_builds_the_same_page_from_the_public_record_alone(tmp_path, moves):
    """The game page holds public information only, so it needs no seed: built from the
    record alone (no secret file, no REBIS_PBM_SEED, as a spectator or a CI job without the
    seed would), it is the very page the referee builds with the seed."""
    game = new_game(tmp_path, moves)
    with_seed = tmp_path / "with-seed"
    assert CliRunner().invoke(cli, ["site", str(game), "--out", str(with_seed)]).exit_code == 0
    secret = tmp_path / "game.secret.yaml"
    secret.rename(tmp_path / "kept-by-the-referee.yaml")
    alone = tmp_path / "public-only"
    result = CliRunner().invoke(cli, ["site", str(game), "--out", str(alone)],
                                env={"REBIS_PBM_SEED": ""})
    assert result.exit_code == 0, result.output
    assert files(alone) == files(with_seed)
