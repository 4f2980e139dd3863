"""The rebis-pbm commands end to end (issue 2): new, apply, view, moves, score, schema.

Each test that takes the ``cli`` fixture runs twice: through click's CliRunner and through the
installed console script in a subprocess. Expected values come from the rulings (R-numbers) or
from the engine's state, never from the output under test.
"""

from __future__ import annotations

import json
import random
import re
import stat
from pathlib import Path

import pytest
import yaml

from clitools import (
    EXAMPLE_PLAYERS,
    EXAMPLE_SEED,
    EXAMPLES,
    REPO,
    example_game,
    game_id_of,
    new_game,
    restore,
    run_inproc,
    run_script,
    sha256_hex,
    snapshot,
    without_salt,
    write_move,
)
from positions import Position, closer, search
from rebis_pbm.app import open_game
from rebis_pbm.engine import NEGATIVE, POSITIVE, Move, burdens, legal_moves

SCHEMA_NAMES = ("move", "record", "view")


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def copy_example(dest: Path, upto_turn: int | None = None) -> Path:
    return example_game(dest, upto_turn)


def shelf_score(shelf, multiplier_kind: str) -> int:
    """R13 with R4: the sum of the signed numbers of the face-up cards, times the multiplier."""
    value = sum(c.number * c.factor for c in shelf.cards)
    tokens = len(shelf.tokens)
    return value * ((1 + tokens) if multiplier_kind == "additive" else 2 ** tokens)


def expected_totals(state) -> dict[str, int]:
    kind = state.ruleset.multiplier
    return {name: sum(shelf_score(s, kind) for s in state.shelves[seat])
            for seat, name in enumerate(state.players)}


# ------------------------------------------------------------------------------------ help

def test_help_documents_every_exit_code(cli):
    for args in ([], ["apply"], ["new"], ["view"], ["moves"], ["score"], ["schema"]):
        outcome = cli(*args, "--help")
        assert outcome.code == 0, outcome.err
        text = " ".join(outcome.out.split())
        assert "Exit codes:" in text
        assert "0 done" in text
        assert "1 move rejected by the rules" in text and "stale" in text
        assert "2 unreadable or schema-invalid input, or bad usage" in text
        assert "3 the game record fails verification" in text
        assert "4 internal error" in text
        assert "nothing on disk changes" in text


def test_python_dash_m_runs_every_command():
    """`python -m rebis_pbm.cli` (used by scripts/make-example.py) has the same commands as the
    console script, the ones registered by other modules (verify, reveal) included."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "rebis_pbm.cli", "--help"], cwd=REPO,
                         capture_output=True, text=True, check=True).stdout
    listed = set(re.findall(r"^  ([a-z]+)  ", out, flags=re.M))
    assert {"new", "apply", "view", "moves", "score", "schema", "verify", "reveal"} <= listed


# ------------------------------------------------------------------------------------- new

def test_new_writes_record_secret_and_views(cli, tmp_path):
    game = tmp_path / "game.yaml"
    outcome = cli("new", game, "--player", "alice", "--player", "bob", "--player", "carol",
                  "--insecure-seed", "--referee-deal", "--seed", "a seed for the test")
    assert outcome.code == 0, outcome.err
    record = yaml.safe_load(game.read_text())
    assert record["format"] == "rebis-pbm/6"
    assert re.fullmatch(r"rebis-[0-9a-f]{10}", record["game"])  # default id: random (issue 12)
    assert record["players"] == ["alice", "bob", "carol"]       # seat order as given (R5)
    assert record["seed_sha256"] != sha256_hex("a seed for the test")  # salted
    assert record["moves"] == []
    assert record["status"] == {"phase": "play", "turn": 1, "player": "alice"}
    assert record["ruleset"]["zero"] is False and record["ruleset"]["shelf_limit"] == 13
    assert "a seed for the test" not in game.read_text()        # the seed stays out of the record
    assert f"Created game {record['game']}" in outcome.out and "alice to move" in outcome.out

    secret = tmp_path / "game.secret.yaml"
    assert mode_of(secret) == 0o600
    kept = yaml.safe_load(secret.read_text())
    assert kept["game"] == record["game"] and kept["seed"] == "a seed for the test"
    assert re.fullmatch(r"[0-9a-f]{32}", kept["salt"])

    views = tmp_path / "game.views"
    for name in ("alice", "bob", "carol", "public"):
        for suffix in (".yaml", ".txt"):
            path = views / f"{name}{suffix}"
            assert mode_of(path) == (0o644 if name == "public" else 0o600), path
        view = yaml.safe_load((views / f"{name}.yaml").read_text())
        assert view["viewer"] == name and view["turn"] == 1 and view["to_move"] == "alice"
        assert ("you" in view) == (name != "public")
    # R5: 3 face-down cards, 3 hands of 5, then alice draws for turn 1 (R6 step 1).
    assert yaml.safe_load((views / "alice.yaml").read_text())["deck"] == 81 - 3 - 15 - 1
    assert len(yaml.safe_load((views / "alice.yaml").read_text())["you"]["hand"]) == 6
    # The record's lock file exists only while a command holds it: none is left in the folder.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.secret.yaml", "game.views",
                                                          "game.yaml"]


def test_new_options_zero_game_id_views_dir(cli, tmp_path):
    game = tmp_path / "g.yaml"
    outcome = cli("new", game, "--player", "ann", "--player", "ben", "--insecure-seed",
                  "--referee-deal", "--seed", "z", "--zero",
                  "--game-id", "club-7", "--views-dir", tmp_path / "out")
    assert outcome.code == 0, outcome.err
    record = yaml.safe_load(game.read_text())
    assert record["game"] == "club-7" and record["ruleset"]["zero"] is True
    view = yaml.safe_load((tmp_path / "out" / "ann.yaml").read_text())
    assert view["deck"] == 90 - 2 - 10 - 1   # R2: 90 cards with the Zero option
    assert not (tmp_path / "g.views").exists()


def test_new_random_seats_come_from_the_seed(cli, tmp_path):
    orders = []
    for n in range(6):
        game = tmp_path / f"g{n}.yaml"
        assert cli("new", game, "--player", "a", "--player", "b", "--player", "c",
                   "--player", "d", "--insecure-seed", "--referee-deal", "--seed", f"s{n}",
                   "--random-seats").code == 0
        orders.append(yaml.safe_load(game.read_text())["players"])
    assert all(sorted(o) == ["a", "b", "c", "d"] for o in orders)
    assert any(o != ["a", "b", "c", "d"] for o in orders)
    again = tmp_path / "again.yaml"
    assert cli("new", again, "--player", "a", "--player", "b", "--player", "c", "--player", "d",
               "--insecure-seed", "--referee-deal", "--seed", "s3", "--random-seats").code == 0
    assert yaml.safe_load(again.read_text())["players"] == orders[3]


def test_new_without_seed_draws_a_fresh_one(tmp_path):
    seeds = []
    for name in ("one", "two"):
        game = tmp_path / f"{name}.yaml"
        assert run_inproc("new", game, "--player", "a", "--player", "b").code == 0
        secret = yaml.safe_load((tmp_path / f"{name}.secret.yaml").read_text())
        from rebis_pbm.record import FORMAT, commitment, salted

        assert yaml.safe_load(game.read_text())["seed_sha256"] == commitment(
            FORMAT, salted(secret["seed"], secret["salt"]))
        seeds.append(secret["seed"])
    assert seeds[0] != seeds[1] and len(seeds[0]) >= 16


def test_new_refuses_to_overwrite(cli, tmp_path):
    game = new_game(tmp_path, seed="first")
    before = snapshot(tmp_path)
    outcome = cli("new", game, "--player", "x", "--player", "y", "--insecure-seed",
                  "--referee-deal", "--seed", "second")
    assert outcome.code == 2
    assert "already exists" in outcome.one_error_line()
    assert snapshot(tmp_path) == before
    # The secret alone is enough to refuse: its seed must never be replaced.
    game.unlink()
    before = snapshot(tmp_path)
    outcome = cli("new", game, "--player", "x", "--player", "y", "--insecure-seed",
                  "--referee-deal", "--seed", "second")
    assert outcome.code == 2 and "game.secret.yaml already exists" in outcome.one_error_line()
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("args, words", [
    (["--player", "solo"], "2 to 4 players"),
    ([a for p in "abcde" for a in ("--player", p)], "2 to 4 players"),
    (["--player", "ann", "--player", "ann"], "different name"),
    (["--player", "ann", "--player", "1bob"], "not a valid name"),
    (["--player", "ann", "--player", "bo b"], "not a valid name"),
    (["--player", "ann", "--player", "bob\n"], "'bob\\n' is not a valid name"),
    (["--player", "ann", "--player", "b" * 500], "'" + "b" * 40 + "... (500 characters)' is not"),
    (["--player", "ann", "--player", "bob", "--game-id", "g1\n"], "--game-id"),
    (["--player", "ann", "--player", "public"], "spectator"),
    (["--player", "ann", "--player", "bob", "--seed", ""], "seed cannot be empty"),
    (["--player", "ann", "--player", "bob", "--game-id", "no spaces"], "--game-id"),
    (["--player", "ann", "--player", "bob", "--rule", "shelf_limit=ten"], "whole number"),
    (["--player", "ann", "--player", "bob", "--rule", "colour=red"], "NAME=VALUE"),
])
def test_new_bad_usage_exits_2_and_writes_nothing(cli, tmp_path, args, words):
    outcome = cli("new", tmp_path / "game.yaml", *args)
    assert outcome.code == 2
    assert "Traceback" not in outcome.err and words in outcome.err
    assert list(tmp_path.iterdir()) == []


def test_new_in_a_missing_folder(cli, tmp_path):
    outcome = cli("new", tmp_path / "nowhere" / "game.yaml", "--player", "a", "--player", "b")
    assert outcome.code == 2 and "no such folder" in outcome.one_error_line()
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------------------ full games

def test_example_game_replays_through_the_console_script(console_script, tmp_path):
    """The bundled example: new with its seed, every move file of examples/moves/ through the
    installed script, and the result is byte for byte the shipped record, secret and views."""
    game = tmp_path / "game.yaml"
    outcome = run_script(console_script, "new", game, *[a for p in EXAMPLE_PLAYERS
                                                        for a in ("--player", p)],
                         "--insecure-seed", "--referee-deal", "--seed", EXAMPLE_SEED,
                         "--game-id", "example")
    assert outcome.code == 0, outcome.err
    move_files = sorted((EXAMPLES / "moves").glob("turn-*.yaml"))
    assert len(move_files) > 10
    for path in move_files:
        outcome = run_script(console_script, "apply", game, path)
        assert outcome.code == 0, (path.name, outcome.err)
        assert outcome.out.startswith(f"Turn {int(path.name.split('-')[1])}: ")
    # rebis-pbm/2 salts the commitment with fresh random bits, so the digests differ from run to
    # run; everything else is the shipped game's, byte for byte once the digests are set aside.
    assert without_salt(game.read_text()) == without_salt((EXAMPLES / "game.yaml").read_text())
    assert yaml.safe_load((tmp_path / "game.secret.yaml").read_text())["seed"] == \
        yaml.safe_load((EXAMPLES / "game.secret.yaml").read_text())["seed"]
    shipped = sorted(p.name for p in (EXAMPLES / "game.views").iterdir())
    assert sorted(p.name for p in (tmp_path / "game.views").iterdir()) == shipped
    for name in shipped:
        assert without_salt((tmp_path / "game.views" / name).read_text()) == \
            without_salt((EXAMPLES / "game.views" / name).read_text()), name


    state = open_game(game)[1].state
    assert state.finished
    totals = expected_totals(state)
    outcome = run_script(console_script, "score", game)
    assert outcome.code == 0
    for name, total in totals.items():
        assert f"  {name}: {total}  (" in outcome.out
    best = max(totals.values())
    winners = [n for n in state.players if totals[n] == best]
    assert ("Winner: " if len(winners) == 1 else "Shared win: ") + " and ".join(winners) \
        in outcome.out


def _play_to_the_end(run, game: Path, moves_dir: Path, choose, via_stdin: bool) -> list[dict]:
    """Play a game with `moves` output fed back into `apply` until `moves` says it is over."""
    played = []
    record_players = yaml.safe_load(game.read_text())["players"]
    for _ in range(500):
        status = yaml.safe_load(game.read_text())["status"]
        if status["phase"] == "finished":
            over = run("moves", game, "--player", record_players[0])
            assert over.code == 1 and "the game is over" in over.err
            return played
        mover = status["player"]
        if status["turn"] == 1 or status["phase"] == "red_token":
            # Only the player to move has a move: for anyone else `moves` is refused (exit 1).
            other = next(p for p in record_players if p != mover)
            assert run("moves", game, "--player", other).code == 1
        listed = run("moves", game, "--player", mover, "--format", "yaml")
        assert listed.code == 0, listed.err
        chunks = [c for c in listed.out.split("---\n") if c.strip()]
        text = choose(chunks)
        doc = yaml.safe_load(text)
        assert doc["turn"] == status["turn"] and doc["player"] == mover
        if via_stdin:
            outcome = run("apply", game, "-", stdin=text.encode())
        else:
            path = moves_dir / f"turn-{doc['turn']:03d}-{mover}.yaml"
            path.write_text(text)
            outcome = run("apply", game, path)
        assert outcome.code == 0, (doc, outcome.err)
        played.append(doc)
    raise AssertionError("the game did not end")


def test_full_game_from_moves_output_in_process(tmp_path):
    """A default 2-player game, new to final score, each move picked from `moves` output."""
    game = new_game(tmp_path / "g", ("ann", "ben"), "full game")
    rng = random.Random(2)
    played = _play_to_the_end(run_inproc, game, tmp_path, rng.choice, via_stdin=False)
    record, replay, _ = open_game(game)          # the record replays from its seed
    state = replay.state
    assert state.finished and len(record.moves) == len(played)
    assert all(record.holds(Move.from_dict(doc)) for doc in played)
    # R12: the red token was placed by a player with the highest burden, as the last move.
    last = played[-1]
    # after: the history the move answers (rebis-pbm/4, issue 27)
    assert set(last) == {"game", "after", "turn", "player", "red_token"}
    assert max(b.total for b in burdens(state)) == \
        next(b.total for b in burdens(state) if b.player == last["player"])
    score = json.loads(run_inproc("score", game, "--format", "json").out)
    assert score["phase"] == "finished"
    assert {p["player"]: p["total"] for p in score["scores"]} == expected_totals(state)
    assert yaml.safe_load(game.read_text())["status"]["scores"] == expected_totals(state)
    for name in ("ann", "ben", "public"):
        view = yaml.safe_load((tmp_path / "g" / "game.views" / f"{name}.yaml").read_text())
        assert view["phase"] == "finished" and "winners" in view["end"]


def test_short_game_through_the_console_script_with_stdin(console_script, tmp_path):
    """A short game (small shelves, few tokens: R3/R4 parameters) played with the installed
    script only: `moves` output piped into `apply GAME -` until the final score."""
    def run(*args, **kw):
        return run_script(console_script, *args, **kw)

    game = tmp_path / "game.yaml"
    outcome = run("new", game, "--player", "ann", "--player", "ben", "--insecure-seed",
                  "--referee-deal", "--seed", "short",
                  "--rule", "shelf_limit=6", "--rule", "golden_dust=1", "--rule", "gold=1")
    assert outcome.code == 0, outcome.err

    def choose(chunks):   # close a shelf when possible, so the tokens run out (R11)
        docs = [yaml.safe_load(c) for c in chunks]
        state = open_game(game)[1].state
        for chunk, doc in zip(chunks, docs, strict=True):
            play = doc.get("play")
            if play and play["shelf"] != doc["player"] and \
                    state.active_shelf(state.seat(play["shelf"])).weight + play["cards"] > 6:
                return chunk
        return chunks[-1]

    played = _play_to_the_end(run, game, tmp_path, choose, via_stdin=True)
    assert "red_token" in played[-1]
    state = open_game(game)[1].state
    score = run("score", game, "--format", "json")
    assert score.code == 0
    data = json.loads(score.out)
    assert {p["player"]: p["total"] for p in data["scores"]} == expected_totals(state)
    best = max(expected_totals(state).values())
    assert data["winners"] == [n for n, t in expected_totals(state).items() if t == best]


# ------------------------------------------------------------------------------------ view

@pytest.fixture(scope="module")
def example_mid(tmp_path_factory) -> Path:
    """The example game after turn 20, played through the CLI (a game in progress)."""
    return copy_example(tmp_path_factory.mktemp("mid"), upto_turn=20)


def test_view_in_every_format(cli, example_mid):
    record, replay, _ = open_game(example_mid)
    state = replay.state
    views_dir = example_mid.with_name("game.views")
    for viewer in (*record.players, None):
        who = ["--public"] if viewer is None else ["--player", viewer]
        as_yaml = cli("view", example_mid, *who, "--format", "yaml")
        as_json = cli("view", example_mid, *who, "--format", "json")
        as_text = cli("view", example_mid, *who)
        assert as_yaml.code == as_json.code == as_text.code == 0
        view = yaml.safe_load(as_yaml.out)
        assert json.loads(as_json.out) == view
        # The files apply wrote are the same views.
        name = viewer or "public"
        assert as_yaml.out == (views_dir / f"{name}.yaml").read_text()
        assert as_text.out == (views_dir / f"{name}.txt").read_text()
        assert view["turn"] == state.turn and view["to_move"] == state.player_to_move
        assert view["deck"] == state.deck_count
        if viewer is None:
            assert "you" not in view and "move_template" not in view
            assert "Your hand" not in as_text.out
        else:
            seat = state.seat(viewer)
            assert view["you"]["hand"] == list(state.hands[seat])
            hand_text = " ".join(str(c) for c in state.hands[seat])
            assert f"Your hand: {hand_text}." in as_text.out
            assert ("move_template" in view) == (viewer == state.player_to_move)
        # Everyone sees hand sizes, never another player's cards in hand.
        for player in view["players"]:
            assert player["hand"] == len(state.hands[state.seat(player["name"])])
        assert EXAMPLE_SEED not in as_yaml.out + as_text.out + as_json.out


def test_view_of_a_finished_game_shows_the_score(cli, tmp_path):
    game = copy_example(tmp_path)
    state = open_game(game)[1].state
    outcome = cli("view", game, "--public", "--format", "json")
    view = json.loads(outcome.out)
    assert view["phase"] == "finished"
    assert {s["player"]: s["total"] for s in view["end"]["scores"]} == expected_totals(state)


@pytest.mark.parametrize("args, words", [
    ([], "exactly one of --player NAME or --public"),
    (["--player", "alice", "--public"], "exactly one of --player NAME or --public"),
    (["--player", "zed"], "no player 'zed'"),
    (["--player", "alice", "--format", "pdf"], "'pdf' is not one of"),
])
def test_view_usage_errors(cli, example_mid, args, words):
    outcome = cli("view", example_mid, *args)
    assert outcome.code == 2 and words in outcome.err and "Traceback" not in outcome.err


# ----------------------------------------------------------------------------------- moves

def _gold_due_position() -> Position:
    """A game where the supply has no golden dust but gold left (R8.1): closing plays carry a
    gold_token placement."""
    def gold_due(state):
        return next((m for m in legal_moves(state) if m.gold_token is not None), None)
    return search(gold_due, chooser=closer)


@pytest.mark.parametrize("where", ["turn 1", "gold due", "red token"])
def test_every_listed_move_is_accepted_as_is(tmp_path, where):
    if where == "turn 1":
        game = new_game(tmp_path / "g", ("ann", "ben", "cid"), "listing")
    elif where == "gold due":
        game = _gold_due_position().build(tmp_path)
    else:
        game = copy_example(tmp_path / "g", upto_turn=36)
    folder = game.parent
    state = open_game(game)[1].state
    listed = run_inproc("moves", game, "--player", state.player_to_move, "--format", "json")
    assert listed.code == 0, listed.err
    docs = [entry["move"] for entry in json.loads(listed.out)]  # with descriptions (issue 29)
    assert docs, "a player to move always has a legal move"
    if where == "gold due":
        assert any("gold_token" in d for d in docs)
    if where == "red token":
        # the example is a rebis-pbm/4 game: each move names the history it answers (after)
        assert all(set(d) == {"game", "after", "turn", "player", "red_token"} for d in docs)
    before = snapshot(folder)
    for n, doc in enumerate(docs):
        path = write_move(tmp_path / f"m{n}.yaml", doc)
        # Every document is checked by apply; one in five (and the last) is really applied in a
        # copy of the game, which is then put back (a full apply writes every view: slower).
        real = n % 5 == 0 or n == len(docs) - 1
        outcome = run_inproc("apply", game, path, *([] if real else ["--dry-run"]))
        assert outcome.code == 0, (doc, outcome.err)
        if real:
            assert snapshot(folder) != before
            restore(folder, before)
    assert snapshot(folder) == before


def test_moves_yaml_and_json_list_the_same_documents(cli, tmp_path):
    game = new_game(tmp_path, seed="listing formats")
    as_yaml = cli("moves", game, "--player", "alice")
    as_json = cli("moves", game, "--player", "alice", "--format", "json")
    assert as_yaml.code == as_json.code == 0
    assert as_yaml.out.startswith("---\n")
    listed = json.loads(as_json.out)  # each {description, move} (issue 29)
    assert list(yaml.safe_load_all(as_yaml.out)) == [entry["move"] for entry in listed]
    assert [line[2:] for line in as_yaml.out.splitlines() if line.startswith("# ")] == \
        [entry["description"] for entry in listed]
    assert all(d["move"]["game"] == game_id_of(game) and d["move"]["turn"] == 1
               for d in listed)


def test_moves_for_a_player_with_nothing_to_play(cli, tmp_path):
    game = new_game(tmp_path / "g", seed="not yours")
    outcome = cli("moves", game, "--player", "bob")
    assert outcome.code == 1 and "turn 1 is alice's" in outcome.one_error_line()
    finished = copy_example(tmp_path / "done")
    outcome = cli("moves", finished, "--player", "bob")
    assert outcome.code == 1 and "the game is over" in outcome.one_error_line()
    outcome = cli("moves", finished, "--player", "zed")
    assert outcome.code == 2 and "no player 'zed'" in outcome.err


# ----------------------------------------------------------------------------------- score

def test_score_text_and_json(cli, tmp_path, example_mid):
    game = copy_example(tmp_path)
    state = open_game(game)[1].state
    totals = expected_totals(state)
    as_json = cli("score", game, "--format", "json")
    assert as_json.code == 0
    data = json.loads(as_json.out)
    assert data["game"] == "example" and data["phase"] == "finished"
    assert {p["player"]: p["total"] for p in data["scores"]} == totals
    kind = state.ruleset.multiplier
    for p in data["scores"]:
        seat = state.seat(p["player"])
        assert [s["score"] for s in p["shelves"]] == \
            [shelf_score(s, kind) for s in state.shelves[seat]]
        assert [s["tokens"] for s in p["shelves"]] == [len(s.tokens) for s in state.shelves[seat]]
    # R12 burden: the - cards on one's shelves plus the cards in hand.
    for b in data["burdens"]:
        seat = state.seat(b["player"])
        negative = sum(c.number for s in state.shelves[seat] for c in s.cards if c.factor < 0)
        assert (b["negative"], b["hand"], b["total"]) == \
            (negative, len(state.hands[seat]), negative + len(state.hands[seat]))
    best = max(totals.values())
    assert data["winners"] == [n for n in state.players if totals[n] == best]

    as_text = cli("score", game)
    assert as_text.code == 0 and as_text.out.startswith("Final score of game example:")
    for name, total in totals.items():
        assert f"  {name}: {total}  (" in as_text.out

    mid_state = open_game(example_mid)[1].state
    mid = cli("score", example_mid)
    assert mid.code == 0 and f"Score so far (turn {mid_state.turn})" in mid.out
    assert json.loads(cli("score", example_mid, "--format", "json").out)["winners"] is None


# ---------------------------------------------------------------------------------- schema

def test_schema_prints_the_shipped_schemas(cli):
    for name in SCHEMA_NAMES:
        outcome = cli("schema", name)
        assert outcome.code == 0
        assert outcome.out == (REPO / "schemas" / f"{name}.schema.json").read_text()
        assert json.loads(outcome.out)["$schema"].endswith("draft/2020-12/schema")
    outcome = cli("schema", "deck")
    assert outcome.code == 2 and "'deck' is not one of" in outcome.err


def test_printed_schemas_validate_the_example_files(console_script):
    """The schemas as the installed script prints them accept every bundled example file."""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    printed = {n: json.loads(run_script(console_script, "schema", n).out) for n in SCHEMA_NAMES}
    registry = Registry().with_resources(
        (f"{n}.schema.json", Resource.from_contents(s)) for n, s in printed.items())

    def errors(name, doc):
        validator = Draft202012Validator(printed[name], registry=registry,
                                         format_checker=Draft202012Validator.FORMAT_CHECKER)
        return [e.message for e in validator.iter_errors(doc)]

    record = yaml.safe_load((EXAMPLES / "game.yaml").read_text())
    assert errors("record", record) == []
    move_files = sorted((EXAMPLES / "moves").glob("*.yaml"))
    assert move_files
    for path in move_files:
        assert errors("move", yaml.safe_load(path.read_text())) == [], path.name
    view_files = sorted((EXAMPLES / "game.views").glob("*.yaml"))
    assert len(view_files) == 4
    for path in view_files:
        assert errors("view", yaml.safe_load(path.read_text())) == [], path.name
    # The validators do reject: a record without moves, a move with a sign symbol, a view
    # showing a stranger's hand field.
    assert errors("record", {k: v for k, v in record.items() if k != "moves"})
    bad_move = yaml.safe_load(move_files[0].read_text())
    bad_move["play"]["sign"] = "-"
    assert errors("move", bad_move)
    bad_view = yaml.safe_load(view_files[0].read_text())
    bad_view["players"][0]["cards_in_hand"] = [1, 2]
    assert errors("view", bad_view)


# ---------------------------------------------------------------------------- apply output

def test_dry_run_writes_nothing(cli, tmp_path):
    game = new_game(tmp_path / "g", seed="dry run")
    state = open_game(game)[1].state
    card = state.hands[0][0]
    move = write_move(tmp_path / "m.yaml", {"game": game_id_of(game), "turn": 1,
                                            "player": "alice",
                                            "play": {"cards": card, "shelf": "alice"}})
    before = snapshot(tmp_path / "g")
    dry = cli("apply", game, move, "--dry-run")
    assert dry.code == 0, dry.err
    assert dry.out.startswith("Dry run, nothing written: Turn 1: ")
    assert f"alice played {card} with sign + on alice's shelf 1" in dry.out
    assert snapshot(tmp_path / "g") == before
    real = cli("apply", game, move)
    assert real.code == 0
    assert real.out == dry.out.replace("Dry run, nothing written: ", "")
    assert snapshot(tmp_path / "g") != before


def test_apply_prints_an_account_without_hidden_cards(cli, tmp_path):
    """The referee's paragraph: what was played, and the next player's draw as a count only."""
    game = new_game(tmp_path / "g", seed="account")
    state = open_game(game)[1].state
    card = max(state.hands[0])
    move = write_move(tmp_path / "m.yaml", {"game": game_id_of(game), "turn": 1,
                                            "player": "alice",
                                            "play": {"cards": card, "shelf": "bob",
                                                     "sign": POSITIVE}})
    outcome = cli("apply", game, move)
    assert outcome.code == 0, outcome.err
    assert outcome.out.startswith(f"Turn 1: alice played {card} with sign + on bob's shelf 1")
    assert "turn 2 began: bob to move; bob drew 1 card." in outcome.out
    assert "bob drew a" not in outcome.out


def test_negative_play_account_mentions_the_draw(tmp_path):
    """R8.2: a - card on another shelf makes the player draw, told as a count to the referee."""
    pos = search(lambda st: next((m for m in _negatives(st)), None))
    game = pos.build(tmp_path)
    move = write_move(tmp_path / "m.yaml", {"game": "cli-game", **pos.candidate.as_dict()})
    outcome = run_inproc("apply", game, move)
    assert outcome.code == 0, outcome.err
    mover = pos.state.player_to_move
    assert f"{mover} played {pos.candidate.play.cards[0]} with sign - on" in outcome.out
    assert f"{mover} drew 1 card for playing a - card" in outcome.out


def _negatives(state):
    return [m for m in legal_moves(state) if m.play is not None and m.play.sign == NEGATIVE]


def test_the_move_template_is_a_legal_move_and_sends_the_player_to_the_referee_for_the_rest():
    """Players hold no seed, so the template does not tell them to run `moves` themselves."""
    from rebis_pbm.engine import Ruleset, legal_moves, setup
    from rebis_pbm.formats.yaml_reader import load_yaml
    from rebis_pbm.present.views import move_template
    state, _ = setup(Ruleset(), ("ann", "bo"), "template")
    text = move_template("g", state)
    assert "the referee can list every legal\n# move for you with rebis-pbm moves" in text
    doc = load_yaml(text.encode(), source="t", kind="move").data
    assert doc == {"game": "g", **legal_moves(state)[0].as_dict()}
