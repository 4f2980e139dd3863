"""`rebis-pbm verify`, `rebis-pbm reveal`, and `apply` refusing a record that fails verification.

Run through click's CliRunner and through the installed console script in a subprocess.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from clitools import secret_of, without_salt
from rebis_pbm.cli import cli
from rebis_pbm.files import atomic as fileio
from rebis_pbm.formats.yaml_reader import load_yaml
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.record import HEADER, SEED_ENV
from rebis_pbm.record.digests import chain_digest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples"
SEED = "rebis-pbm example game"
MOVE_FILES = sorted((EXAMPLE / "moves").glob("turn-*.yaml"))


@pytest.fixture(autouse=True)
def no_seed_in_env(monkeypatch):
    monkeypatch.delenv(SEED_ENV, raising=False)


@pytest.fixture(autouse=True)
def no_fsync(monkeypatch):
    # Durability is tested in test_fileio; here it would only make each apply wait for the disk.
    monkeypatch.setattr(fileio.os, "fsync", lambda fd: None)


def run(*args, input=None):
    return CliRunner().invoke(cli, [str(a) for a in args], input=input)


def new_game(folder: Path, upto: int) -> Path:
    """The example game created and played through the CLI up to move ``upto``."""
    game = folder / "game.yaml"
    result = run("new", game, "--player", "alice", "--player", "bob", "--player", "carol",
                 "--insecure-seed", "--referee-deal", "--seed", SEED, "--game-id", "example")
    assert result.exit_code == 0, result.output
    for move in MOVE_FILES[:upto]:
        result = run("apply", game, move)
        assert result.exit_code == 0, result.output
    return game


@pytest.fixture(scope="module")
def twelve_moves(tmp_path_factory) -> Path:
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(SEED_ENV, raising=False)
        patch.setattr(fileio.os, "fsync", lambda fd: None)
        return new_game(tmp_path_factory.mktemp("template"), 12)


@pytest.fixture
def game(tmp_path, twelve_moves) -> Path:
    """The example game after 12 moves through the CLI: record, secret file and views."""
    shutil.copytree(twelve_moves.parent, tmp_path, dirs_exist_ok=True)
    return tmp_path / "game.yaml"


def snapshot(folder: Path) -> dict:
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def edit(path: Path, change) -> None:
    data = load_yaml(path.read_bytes(), source=str(path), kind="record").data
    change(data)
    path.write_text(HEADER + dump_yaml(data))


def change_card(turn: int):
    def change(data):
        play = data["moves"][turn - 1]["play"]
        play["cards"] = play["cards"] % 9 + 1 if isinstance(play["cards"], int) else \
            [c % 9 + 1 for c in play["cards"]]
    return change


def rechain(data):
    prev = data["header_sha256"]
    for entry in data["moves"]:
        entry.pop("chain_sha256")
        entry["chain_sha256"] = prev = chain_digest(prev, entry)


# ------------------------------------------------------------------ verify

def test_verify_the_bundled_example():
    result = run("verify", EXAMPLE / "game.yaml")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Verified: game example")
    assert "37 moves" in result.output and "Winner: bob" in result.output


def test_verify_the_bundled_example_as_json():
    result = run("verify", EXAMPLE / "game.yaml", "--format", "json")
    assert result.exit_code == 0
    report = json.loads(result.output)
    assert report["verified"] is report["complete"] is True
    assert report["problem"] is None and report["moves"] == 37
    assert report["seed"] == "revealed in the record"
    assert report["status"]["winners"] == ["bob"]


def test_verify_a_game_in_progress_without_the_seed(game):
    game.with_name("game.secret.yaml").rename(game.with_name("kept-by-the-referee.yaml"))
    result = run("verify", game)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Verified as far as possible without the seed")
    assert "Not checked" in result.output and "12 keyed state digests" in result.output
    report = json.loads(run("verify", game, "--format", "json").output)
    assert report["verified"] is True and report["complete"] is False and report["seed"] is None


def test_verify_without_the_seed_says_a_status_field_it_lacks_as_a_question_mark(game):
    """A hand-edited status (the red token's phase with no player to place it) verifies as far
    as the turn goes without the seed; the line says "?" for the player, never "None"."""
    game.with_name("game.secret.yaml").rename(game.with_name("kept-by-the-referee.yaml"))
    edit(game, lambda data: data.update(status={"phase": "red_token", "turn": 13}))
    result = run("verify", game)
    assert "game ended, ? to place the red token (turn 13)" in result.output, result.output
    assert "None" not in result.output


@pytest.mark.parametrize("how", ["sidecar", "seed-file", "env"])
def test_verify_a_game_in_progress_with_the_seed(game, how, monkeypatch):
    secret = game.with_name("game.secret.yaml")
    args = ["verify", game, "--format", "json"]
    if how == "seed-file":
        secret = secret.rename(game.with_name("elsewhere.yaml"))
        args += ["--seed-file", secret]
    elif how == "env":
        monkeypatch.setenv(SEED_ENV, secret_of(secret))  # SALT:SEED (rebis-pbm/2)
        secret.unlink()
    result = run(*args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["complete"] is True
    assert report["seed"] == (SEED_ENV if how == "env" else str(secret))


def test_verify_reports_a_tampered_move_with_its_turn_and_player(game):
    edit(game, change_card(5))
    result = run("verify", game)
    assert result.exit_code == 3
    assert result.output.startswith("FAILED: game example")
    assert "at turn 5 (bob)" in result.output
    written = load_yaml(game.read_bytes(), source=str(game), kind="record").data["moves"][4]
    # found: the digest the file holds; expected: the one the entry as edited gives.
    assert f"  found:    chain_sha256 {written['chain_sha256']}\n" in result.output
    assert "  expected: chain_sha256 " in result.output
    assert f"expected: chain_sha256 {written['chain_sha256']}" not in result.output
    report = json.loads(run("verify", game, "--format", "json").output)
    assert report["verified"] is False
    assert (report["problem"]["code"], report["problem"]["turn"], report["problem"]["player"]) == \
        ("chain_digest", 5, "bob")


def test_verify_a_truncated_record(game):
    text = game.read_bytes()
    game.write_bytes(text[: len(text) // 2])
    result = run("verify", game)
    assert result.exit_code == 3
    assert "cut short" in result.output


def test_verify_a_missing_record_is_unreadable_input(tmp_path):
    result = run("verify", tmp_path / "nothing.yaml")
    assert result.exit_code == 2
    assert "no such file" in result.output


def test_verify_with_a_missing_seed_file(game):
    result = run("verify", game, "--seed-file", game.with_name("missing.yaml"))
    assert result.exit_code == 2
    assert "missing.yaml" in result.output


def test_verify_with_another_games_secret_file(game, tmp_path):
    other = tmp_path / "other.secret.yaml"
    other.write_text("game: another\nseed: whatever\n")
    result = run("verify", game, "--seed-file", other)
    assert result.exit_code == 2
    assert "is not the secret of game example" in result.output


def test_verify_with_a_secret_whose_seed_is_not_the_committed_one(game, tmp_path):
    wrong = tmp_path / "wrong.secret.yaml"
    wrong.write_text("game: example\nseed: not the seed\n")
    result = run("verify", game, "--seed-file", wrong, "--format", "json")
    assert result.exit_code == 3
    assert json.loads(result.output)["problem"]["code"] == "wrong_seed"


# ------------------------------------------------------------------ apply

def test_apply_refuses_a_record_that_fails_the_chain_check(game):
    edit(game, change_card(5))
    before = snapshot(game.parent)
    result = run("apply", game, MOVE_FILES[12])
    assert result.exit_code == 3
    assert "fails verification at turn 5 (bob)" in result.output
    assert "nothing was written" in result.output
    assert snapshot(game.parent) == before


def test_apply_refuses_a_forged_record_whose_chain_was_recomputed(game):
    edit(game, lambda data: (change_card(5)(data), rechain(data)))
    before = snapshot(game.parent)
    result = run("apply", game, MOVE_FILES[12])
    assert result.exit_code == 3
    assert "turn 5 (bob)" in result.output
    assert snapshot(game.parent) == before


def test_apply_writes_the_chain_and_the_last_move_reveals_the_seed(game):
    for move in MOVE_FILES[12:-1]:
        assert run("apply", game, move).exit_code == 0
    assert SEED not in game.read_text()
    assert all(SEED not in p.read_text() for p in (game.parent / "game.views").iterdir())
    result = run("apply", game, MOVE_FILES[-1])
    assert result.exit_code == 0, result.output
    assert "now reveals its seed" in result.output
    assert without_salt(game.read_text()) == without_salt((EXAMPLE / "game.yaml").read_text())
    game.with_name("game.secret.yaml").unlink()  # the record alone is enough now
    assert run("verify", game).exit_code == 0


# ------------------------------------------------------------------ reveal

def test_reveal_needs_confirmation_and_writes_nothing_without_it(game):
    before = snapshot(game.parent)
    result = run("reveal", game)
    assert result.exit_code == 2
    assert "--yes" in result.output and "nothing was written" in result.output
    assert "every hand" in result.output
    assert snapshot(game.parent) == before


def test_reveal_an_abandoned_game(game):
    result = run("reveal", game, "--yes")
    assert result.exit_code == 0, result.output
    assert "abandoned at turn 13" in result.output
    data = load_yaml(game.read_bytes(), source="game.yaml", kind="record").data
    assert data["seed"] == SEED
    assert data["status"]["abandoned"] is True
    game.with_name("game.secret.yaml").unlink()
    report = json.loads(run("verify", game, "--format", "json").output)
    assert report["complete"] is True, report["problem"]
    before = snapshot(game.parent)
    refused = run("apply", game, MOVE_FILES[12])
    assert refused.exit_code == 1
    assert "abandoned" in refused.output
    assert snapshot(game.parent) == before
    again = run("reveal", game, "--yes")
    assert again.exit_code == 0 and "already reveals" in again.output
    assert snapshot(game.parent) == before


def test_reveal_refuses_a_tampered_record(game):
    edit(game, change_card(3))
    before = snapshot(game.parent)
    result = run("reveal", game, "--yes")
    assert result.exit_code == 3
    assert snapshot(game.parent) == before


def test_the_abandoned_flag_cannot_be_removed_unnoticed(game):
    run("reveal", game, "--yes")
    edit(game, lambda data: data["status"].pop("abandoned"))
    result = run("verify", game, "--format", "json")
    assert result.exit_code == 3
    assert json.loads(result.output)["problem"]["code"] == "status"


# A status edited by hand is the record's status at fault, never the last move or its player:
# (the record, the edit of its text, the field the report names).
RECORDS = REPO / "tests" / "records"
STATUS_EDITS = [
    ("finished-3p", ("phase: finished", "phase: play"), "status.phase"),
    ("finished-3p", ("phase: finished", "phase: bogus"), "status.phase"),
    ("finished-3p", ("    bob: 78", "    bob: 79"), "status.scores.bob"),
    ("finished-3p", ("    bob: 78", "    bob: many"), "status.scores.bob"),
    ("finished-3p", ("  end: tokens_exhausted\n", ""), "status.end"),
    ("finished-3p", ("  end: tokens_exhausted\n", "  end: tokens_exhausted\n  extra: 1\n"),
     "status.extra"),
    ("unfinished", ("  turn: 13\n", "  turn: 14\n"), "status.turn"),
    ("unfinished", ("  turn: 13\n", "  turn: thirteen\n"), "status.turn"),
    ("unfinished", ("  turn: 13\n  player: alice\n", "  turn: 13\n"), "status.player"),
    ("unfinished", ("  turn: 13\n  player: alice\n", "  turn: 13\n  player: alice\n  x: 1\n"),
     "status.x"),
]


@pytest.mark.parametrize("name, change, field", STATUS_EDITS,
                         ids=[f"{n}:{c[1].strip() or 'removed'}" for n, c, _ in STATUS_EDITS])
def test_an_edited_status_is_the_status_at_fault_not_a_move(cli, tmp_path, name, change, field):
    text = (RECORDS / f"{name}.yaml").read_text()
    head, status = text.split("\nstatus:\n")
    assert change[0] in status
    game = tmp_path / "game.yaml"
    game.write_text(head + "\nstatus:\n" + status.replace(change[0], change[1], 1))
    last = len(load_yaml(text.encode(), source=name, kind="record").data["moves"])
    outcome = cli("verify", game)
    assert outcome.code == 3, (outcome.out, outcome.err)
    first = outcome.out.splitlines()[0]
    assert f" at the status after turn {last}: " in first, first
    assert field in first and f"turn {last} (" not in first, first
    assert "the status does not follow from the moves" in first or \
        "the record's status is not one rebis-pbm writes" in first, first
    problem = json.loads(cli("verify", game, "--format", "json").out)["problem"]
    assert (problem["code"], problem["turn"], problem["player"]) == ("status", last, None)
    # Every other reader refuses it as verify words it, without naming a player either.
    line = cli("score", game).refused(3, ("status after turn", field))
    assert f"turn {last} (" not in line


# ------------------------------------------------------------------ the installed command

def console_script() -> str:
    found = shutil.which("rebis-pbm")
    beside = Path(sys.executable).parent / "rebis-pbm"
    if found is None and beside.exists():
        found = str(beside)
    if found is None:
        pytest.skip("the rebis-pbm console script is not installed (make test installs it)")
    return found


def script(*args):
    env = {k: v for k, v in os.environ.items() if k != SEED_ENV}
    return subprocess.run([console_script(), *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=60)


def test_installed_verify_exit_codes(tmp_path):
    ok = script("verify", EXAMPLE / "game.yaml")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("Verified: game example")
    tampered = tmp_path / "game.yaml"
    shutil.copy(EXAMPLE / "game.yaml", tampered)
    edit(tampered, lambda data: data["ruleset"].update(shelf_limit=14))
    bad = script("verify", tampered, "--format", "json")
    assert bad.returncode == 3
    assert json.loads(bad.stdout)["problem"]["code"] == "header_digest"
    missing = script("verify", tmp_path / "nothing.yaml")
    assert missing.returncode == 2
    assert missing.stderr.startswith("rebis-pbm: ") and "Traceback" not in missing.stderr


def test_installed_reveal(game):
    refused = script("reveal", game)
    assert refused.returncode == 2 and "--yes" in refused.stderr
    done = script("reveal", game, "--yes")
    assert done.returncode == 0, done.stderr
    assert f"seed: {SEED}" in game.read_text()


def test_a_failure_ending_in_a_question_gets_no_extra_full_stop(game):
    game.write_text(game.read_text() + "plyers: [x]\n")   # "did you mean 'players'?"
    result = run("verify", game)
    assert result.exit_code == 3
    failed = next(line for line in result.output.splitlines() if line.startswith("FAILED"))
    assert failed.endswith("did you mean 'players'?"), failed
