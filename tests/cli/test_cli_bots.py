"""`rebis-pbm bot` and `rebis-pbm simulate`, through the installed console script and CliRunner."""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from rebis_pbm import bots as bots_mod
from rebis_pbm.bots.simulate import game_specs, play_game
from rebis_pbm.cli import cli
from rebis_pbm.engine import Ruleset, information_set, replay, score_table, setup
from rebis_pbm.formats.yaml_writer import dump_yaml

REPO = Path(__file__).resolve().parents[2]


def console_script() -> list[str]:
    """The installed `rebis-pbm` (on PATH or beside this Python), else `python -m rebis_pbm`."""
    found = shutil.which("rebis-pbm") or str(Path(sys.executable).with_name("rebis-pbm"))
    if os.access(found, os.X_OK):
        return [found]
    return [sys.executable, "-m", "rebis_pbm"]  # a checkout run without installing


def script_env() -> dict:
    env = dict(os.environ)
    if console_script()[0] == sys.executable:  # the checkout must be importable from any folder
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


def run_script(*args: str, cwd: Path, stdin: str | None = None):
    return subprocess.run([*console_script(), *args], cwd=cwd, input=stdin, text=True,
                          capture_output=True, env=script_env(), timeout=300)


def invoke(*args: str, stdin: str | None = None):
    return CliRunner().invoke(cli, list(args), input=stdin, catch_exceptions=False)


@pytest.fixture
def game(tmp_path: Path) -> Path:
    path = tmp_path / "g.yaml"
    result = invoke("new", str(path), "--player", "ann", "--player", "bo", "--player", "cy",
                    "--insecure-seed", "--referee-deal", "--seed", "bot-test", "--game-id", "bots")
    assert result.exit_code == 0, result.output
    return path


# --- bot ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("strategy", bots_mod.STRATEGIES)
def test_bot_prints_a_move_that_apply_accepts_from_stdin(game: Path, strategy: str):
    out = run_script("bot", str(game), "--player", "ann", "--strategy", strategy, "--seed", "4",
                     cwd=game.parent)
    assert out.returncode == 0, out.stderr
    applied = run_script("apply", str(game), "-", cwd=game.parent, stdin=out.stdout)
    assert applied.returncode == 0, applied.stderr
    assert applied.stdout.startswith("Turn 1: ann played")


def test_bot_chooses_what_the_bot_chooses_from_the_players_information_set(game: Path):
    state, _ = setup(Ruleset(), ("ann", "bo", "cy"), "bot-test")
    view = information_set(state, 0)
    for strategy in bots_mod.STRATEGIES:
        expected = bots_mod.make_bot(strategy, "s").choose(view)
        result = invoke("bot", str(game), "--player", "ann", "--strategy", strategy, "--seed", "s")
        assert result.exit_code == 0
        body = result.output.split("\n", 1)[1]  # after the comment line
        assert body == dump_yaml({"game": "bots", **expected.as_dict()})


def test_bot_same_seed_same_move(game: Path):
    first = invoke("bot", str(game), "--player", "ann", "--seed", "x").output
    assert invoke("bot", str(game), "--player", "ann", "--seed", "x").output == first


def test_bot_for_a_player_who_is_not_to_move_is_rejected(game: Path):
    out = run_script("bot", str(game), "--player", "bo", cwd=game.parent)
    assert out.returncode == 1
    assert "bo has no move to make: turn 1 is ann's" in out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""


def test_bot_for_an_unknown_player_is_bad_usage(game: Path):
    result = invoke("bot", str(game), "--player", "zed")
    assert result.exit_code == 2
    assert "no player 'zed'" in result.output


def test_bot_writes_nothing(game: Path):
    before = {p.name: p.read_bytes() for p in game.parent.rglob("*") if p.is_file()}
    assert invoke("bot", str(game), "--player", "ann").exit_code == 0
    assert {p.name: p.read_bytes() for p in game.parent.rglob("*") if p.is_file()} == before


# --- simulate -----------------------------------------------------------------------------------

def simulate_json(*args: str, cwd: Path) -> dict:
    out = run_script("simulate", "--format", "json", *args, cwd=cwd)
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""  # not a terminal: no progress bar
    return json.loads(out.stdout)


def test_simulate_same_seed_same_report_with_one_or_two_processes(tmp_path: Path):
    args = ("--games", "24", "--players", "2-4", "--strategy", "greedy", "--strategy", "random",
            "--seed", "jobs")
    one = simulate_json(*args, "--jobs", "1", cwd=tmp_path)
    two = simulate_json(*args, "--jobs", "2", cwd=tmp_path)
    assert (one.pop("timing")["jobs"], two.pop("timing")["jobs"]) == (1, 2)
    assert one == two  # everything but the timing
    assert one["games"] == 24 and one["problems"] == []


def test_simulate_report_adds_up(tmp_path: Path):
    rep = simulate_json("--games", "30", "--players", "2-4", "--seed", "sums", cwd=tmp_path)
    assert sum(rep["end"].values()) == 30
    # Games cycle through 2, 3, 4 players: seat 3 sits in 20 games, seat 4 in 10.
    assert [s["games"] for s in rep["seats"]] == [30, 30, 20, 10]
    # Each game gives exactly one win, shared or not.
    assert round(sum(s["win_rate"] * s["games"] for s in rep["seats"]), 2) == 30
    assert rep["red_token"]["awarded"] == 30 == sum(s["red_token"] for s in rep["seats"])
    assert abs(rep["turns"]["total"] - rep["turns"]["per_game"]["mean"] * 30) < 0.5
    timing = rep["timing"]
    assert timing["turns_per_second"] > 0 and timing["games_per_second"] > 0


def test_simulate_text_report(tmp_path: Path):
    out = run_script("simulate", "--games", "5", "--players", "4", "--seed", "t", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    for words in ("Simulated 5 games (seed 't', players 4, strategies random)", "games/s",
                  "turns/s", "Turns per game", "How games ended", "Win rate by seat",
                  "By strategy", "Red token", "Invariant violations: none."):
        assert words in out.stdout


def test_simulate_shows_a_progress_bar_on_a_terminal_only(tmp_path: Path):
    main, secondary = pty.openpty()
    try:
        proc = subprocess.run([*console_script(), "simulate", "--games", "20", "--seed", "bar"],
                              cwd=tmp_path, stdout=subprocess.PIPE, stderr=secondary,
                              text=True, env=script_env(), timeout=300)
        os.close(secondary)
        shown = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(main)
    assert proc.returncode == 0
    assert b"Playing" in shown and b"100%" in shown
    assert "Playing" not in proc.stdout  # the report stays clean


def test_simulate_rejects_a_bad_player_count(tmp_path: Path):
    out = run_script("simulate", "--players", "5", cwd=tmp_path)
    assert out.returncode == 2
    assert "2 to 4 players" in out.stderr and "Traceback" not in out.stderr


def test_an_invariant_violation_is_reported_with_the_seed_that_reproduces_it(monkeypatch):
    class Cheat:
        """Plays a card it does not hold: the engine must refuse, the report must tell."""

        def __init__(self, seed):
            pass

        def choose(self, view):
            move = bots_mod.RandomBot(0).choose(view)
            play = type(move.play)((99,), move.play.owner, move.play.sign) if move.play else None
            return type(move)(move.turn, move.player, move.golden_dust, play, move.gold_token,
                              move.red_token)

    monkeypatch.setitem(bots_mod._BOTS, "greedy", Cheat)
    result = invoke("simulate", "--games", "3", "--players", "2", "--strategy", "random",
                    "--strategy", "greedy", "--seed", "cheat", "--format", "json")
    assert result.exit_code == 4
    rep = json.loads(result.stdout)
    assert [p["game"] for p in rep["problems"]] == [1, 2, 3]
    first = rep["problems"][0]
    assert first["seed"] == "cheat/1"
    assert "illegal move" in first["problem"] and "there is no card 99" in first["problem"]
    assert "invariant violation" in result.stderr


def test_a_simulated_game_replays_through_the_cli_to_the_same_final_score(tmp_path: Path):
    spec = game_specs(1, (3,), ("greedy", "random"), "replay-cli")[0]
    result = play_game(spec)
    assert not result.problems and result.moves
    game = tmp_path / "sim.yaml"
    players = [a for name in spec.players for a in ("--player", name)]
    created = run_script("new", str(game), *players, "--insecure-seed", "--referee-deal",
                         "--seed", spec.seed, "--game-id", "sim", cwd=tmp_path)
    assert created.returncode == 0, created.stderr
    for move in result.moves:
        applied = invoke("apply", str(game), "-",
                         stdin=dump_yaml({"game": "sim", **move.as_dict()}))
        assert applied.exit_code == 0, applied.output
    score = run_script("score", str(game), "--format", "json", cwd=tmp_path)
    assert score.returncode == 0, score.stderr
    data = json.loads(score.stdout)
    assert data["phase"] == "finished"
    assert tuple(p["total"] for p in data["scores"]) == result.scores
    # ...and the score is the rules' own (R13) for the replayed game.
    final = replay(spec.ruleset, spec.players, spec.seed, result.moves)
    assert result.scores == tuple(p.total for p in score_table(final))
