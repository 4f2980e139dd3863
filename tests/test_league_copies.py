"""Several records of one game id in a league's folder (the fourteenth tester's finding;
docs/league.md): path order no longer decides which counts.

The attack: a spectator who can write to the league folder drops a real, referee-signed earlier
state of a finished game's record (taken from a public repository's history) where it sorts
first, ``DIR/0-old/game.yaml``. ``league`` counted the first record of a game id in path order,
so the finished game counted as "in progress" (the winner's win, point and score wiped) and the
finished record was listed as "another record ... is counted". Now the record whose history
extends every other's counts (the latest state) and the others are listed as earlier states of
it; two records neither of whose histories extends the other's (a fork: another game made with
the same id, or another move at the same point) count neither; an identical copy counts once.

The games are made with the CLI, with a referee key made by ssh-keygen (``new --referee-key``),
and moved by the greedy bot (``bot`` then ``apply``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from clitools import run_inproc
from sshkeys import ssh_key

GAME = "g"
RULES = ("--rule", "golden_dust=2", "--rule", "gold=1")  # a game of a dozen moves
EARLY = 4  # the moves of the earlier state


class Made:
    """The games of the tests: ``finished`` (a folder holding the finished record of game g, no
    seed beside it), ``early`` (that game's record after its first EARLY moves), ``other`` (a
    record of another game made with the same game id, after EARLY moves), ``branch`` (g's
    record after EARLY moves and then a move the referee made for its player at their
    request, not the finished game's), ``pub`` (the
    referee's public key) and ``env`` (its private key for the commands)."""

    def __init__(self, root: Path) -> None:
        key = ssh_key(root, "referee")
        self.pub = root / "referee.pub"
        self.env = {"REBIS_PBM_REFEREE_KEY": str(key)}
        self.root = root
        live = self.new("live", "league g")
        self.play(live, EARLY)
        self.early = self.keep(live, "early")
        fork = root / "fork"
        shutil.copytree(live.parent, fork)
        self.play(live)
        self.finished = self.keep(live, "finished")
        branch = fork / "game.yaml"  # the referee moves for the player to move (move-for)
        to_move = json.loads(self.run("view", branch, "--public", "--format", "json"))["to_move"]
        self.run("move-for", branch, "--player", to_move, "--now", "2026-01-02T00:00:00Z")
        self.branch = self.keep(branch, "branch")
        other = self.new("another", "another g")
        self.other = self.keep(self.play(other, EARLY), "other")

    def run(self, *args: object) -> str:
        done = run_inproc(*args, env=self.env)
        assert done.code == 0, (args, done.err)
        return done.out

    def new(self, name: str, seed: str) -> Path:
        (self.root / name).mkdir()
        game = self.root / name / "game.yaml"
        self.run("new", game, "--insecure-seed", "--referee-deal", "--seed", seed, "--game-id",
                 GAME, "--player", "ann", "--player", "bo", *RULES, "--referee-key",
                 self.root / "referee", "--now", "2026-01-01T00:00:00Z")
        return game

    def play(self, game: Path, moves: int = 99) -> Path:
        for done in range(moves):
            public = json.loads(self.run("view", game, "--public", "--format", "json"))
            if not public.get("to_move"):
                break
            move = game.parent / f"move-{done}.yaml"
            move.write_text(self.run("bot", game, "--player", public["to_move"], "--strategy",
                                     "greedy"))
            self.run("apply", game, move)
        return game

    def keep(self, game: Path, name: str) -> Path:
        """A copy of ``game``'s record as it is now, alone (no seed beside it)."""
        kept = self.root / "kept" / name / "game.yaml"
        kept.parent.mkdir(parents=True)
        shutil.copy(game, kept)
        return kept


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Made:
    return Made(tmp_path_factory.mktemp("copies"))


def league(cli, made: Made, records: dict[str, Path], tmp_path: Path,
           pinned: bool) -> tuple[Path, dict]:
    """``league`` (JSON) over a folder holding ``records`` (folder name -> record)."""
    folder = tmp_path / "league"
    for name, record in records.items():
        (folder / name).mkdir(parents=True)
        shutil.copy(record, folder / name / "game.yaml")
    pin = ("--referee-pub", made.pub) if pinned else ()
    done = cli("league", folder, "--format", "json", *pin)
    assert done.code == 0, done.err
    return folder, json.loads(done.out)


def reasons(data: dict) -> dict[str, str]:
    return {Path(n["file"]).parent.name: n["reason"] for n in data["not_counted"]}


def test_the_games_are_what_the_tests_need(made):
    finished, early = (yaml.safe_load(p.read_text()) for p in (made.finished, made.early))
    assert finished["status"]["phase"] == "finished" and len(early["moves"]) == EARLY
    assert early["status"]["phase"] != "finished" and early["header_sha256"] == \
        finished["header_sha256"]
    branch, other = (yaml.safe_load(p.read_text()) for p in (made.branch, made.other))
    assert branch["header_sha256"] == finished["header_sha256"]
    assert branch["moves"][:EARLY] == finished["moves"][:EARLY]
    assert branch["moves"][EARLY]["chain_sha256"] != finished["moves"][EARLY]["chain_sha256"]
    assert other["game"] == GAME and other["header_sha256"] != finished["header_sha256"]


@pytest.mark.parametrize("pinned", [False, True], ids=["any", "referee-pub"])
def test_an_earlier_state_sorted_first_does_not_replace_the_finished_game(cli, made, tmp_path,
                                                                          pinned):
    """The attack: the stale copy in ``0-old`` knocked the finished record out."""
    folder, data = league(cli, made, {"0-old": made.early, "g1": made.finished}, tmp_path,
                          pinned)
    assert [(Path(g["file"]).parent.name, g["state"]) for g in data["games"]] == \
        [("g1", "finished")]
    status = yaml.safe_load(made.finished.read_text())["status"]
    lines = {s["player"]: s for s in data["standings"]}
    for player in ("ann", "bo"):
        assert lines[player]["finished"] == 1
        assert lines[player]["score"] == status["scores"][player]
    assert sum(lines[p]["wins"] + lines[p]["shared_wins"] for p in lines) >= 1
    said = reasons(data)
    assert list(said) == ["0-old"]
    assert said["0-old"].startswith(
        f"an earlier state of record {folder / 'g1' / 'game.yaml'} of game g, which is counted")
    assert f"({EARLY} moves)" in said["0-old"]


def test_an_earlier_state_sorted_last_is_listed_the_same_way(cli, made, tmp_path):
    folder, data = league(cli, made, {"g1": made.finished, "zz-old": made.early}, tmp_path, True)
    assert [Path(g["file"]).parent.name for g in data["games"]] == ["g1"]
    assert reasons(data)["zz-old"].startswith(
        f"an earlier state of record {folder / 'g1' / 'game.yaml'} of game g")


def test_the_text_table_names_the_earlier_state(cli, made, tmp_path):
    folder = tmp_path / "league"
    for name, record in {"0-old": made.early, "g1": made.finished}.items():
        (folder / name).mkdir(parents=True)
        shutil.copy(record, folder / name / "game.yaml")
    done = cli("league", folder, "--referee-pub", made.pub)
    assert done.code == 0, done.err
    assert "Not counted" in done.out
    assert f"an earlier state of record {folder / 'g1' / 'game.yaml'} of game g" in done.out


@pytest.mark.parametrize("fork", ["other", "branch"])
@pytest.mark.parametrize("pinned", [False, True], ids=["any", "referee-pub"])
def test_records_that_fork_count_none(cli, made, tmp_path, pinned, fork):
    """Another game made with the same game id (another header), or another move at the same
    point of the same game: the league cannot tell which is the game, so neither counts; an
    earlier state of both counts neither."""
    forked = {"other": made.other, "branch": made.branch}[fork]
    folder, data = league(cli, made, {"0-fork": forked, "g1": made.finished, "g2": made.early},
                          tmp_path, pinned)
    assert data["games"] == [] and data["standings"] == []
    said = reasons(data)
    assert sorted(said) == ["0-fork", "g1", "g2"]
    pair = (f"records {folder / '0-fork' / 'game.yaml'} and {folder / 'g1' / 'game.yaml'} of "
            f"game g disagree: neither's history extends the other's; none is counted until the "
            f"referee says which")
    assert said["0-fork"] == said["g1"] == pair
    if fork == "other":  # the earlier state shares no history with another game
        assert said["g2"] == (f"records {folder / '0-fork' / 'game.yaml'} and "
                              f"{folder / 'g2' / 'game.yaml'} of game g disagree: neither's "
                              f"history extends the other's; none is counted until the referee "
                              f"says which")
    else:  # the branch and the finished game both extend the earlier state
        assert said["g2"] == pair
    assert all(n["game"] == GAME for n in data["not_counted"])


@pytest.mark.parametrize("pinned", [False, True], ids=["any", "referee-pub"])
def test_an_identical_copy_counts_once_and_the_latest_state_counts(cli, made, tmp_path, pinned):
    folder, data = league(cli, made, {"0-old": made.early, "a-copy": made.finished,
                                      "g1": made.finished}, tmp_path, pinned)
    assert [(Path(g["file"]).parent.name, g["state"]) for g in data["games"]] == \
        [("a-copy", "finished")]
    said = reasons(data)
    assert said["g1"] == (f"another record of game g is counted "
                          f"({folder / 'a-copy' / 'game.yaml'}): a copy of it")
    assert said["0-old"].startswith(
        f"an earlier state of record {folder / 'a-copy' / 'game.yaml'} of game g")


def test_two_copies_of_an_earlier_state_alone_count_as_one_game_in_progress(cli, made,
                                                                            tmp_path):
    _, data = league(cli, made, {"a": made.early, "b": made.early}, tmp_path, True)
    assert [(Path(g["file"]).parent.name, g["state"]) for g in data["games"]] == \
        [("a", "in progress")]
    assert list(reasons(data)) == ["b"]


@pytest.fixture(scope="module")
def fair(tmp_path_factory, console_script) -> tuple[Path, dict[str, Path]]:
    """A fair deal (rebis-pbm/6: commitments, then joins) with a referee key, its record kept
    after each join-phase entry (``join-1`` .. ``join-4``; the deal after the fourth) and after
    two moves (``moves-2``), each alone; the referee's public key."""
    root = tmp_path_factory.mktemp("fair")
    key = ssh_key(root, "referee")
    env = {**os.environ, "REBIS_PBM_REFEREE_KEY": str(key)}

    def run(*args: object, cwd: Path = root) -> str:
        done = subprocess.run([console_script, *map(str, args)], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, (args, done.stderr)
        return done.stdout

    game, table = root / "game.yaml", root / "m"
    table.mkdir()
    run("new", game, "--insecure-seed", "--seed", "fair g", "--game-id", GAME, "--player", "ann",
        "--player", "bo", *RULES, "--referee-key", key, "--now", "2026-01-01T00:00:00Z")
    kept: dict[str, Path] = {}

    def keep(name: str) -> None:
        kept[name] = root / "kept" / name / "game.yaml"
        kept[name].parent.mkdir(parents=True)
        shutil.copy(game, kept[name])

    for entry in range(1, 5):
        player = ("ann", "bo")[(entry - 1) % 2]
        (table / f"{player}.yaml").write_text(
            run("view", game, "--player", player, "--format", "yaml"))
        run("play", f"{player}.yaml", "--yes", "--quiet", cwd=table)
        run("apply", game, table / f"turn-000-{player}.yaml")
        (table / f"turn-000-{player}.yaml").unlink()
        keep(f"join-{entry}")
    for _ in range(2):
        to_move = json.loads(run("view", game, "--public", "--format", "json"))["to_move"]
        (table / "move.yaml").write_text(run("bot", game, "--player", to_move,
                                             "--strategy", "greedy"))
        run("apply", game, table / "move.yaml")
    keep("moves-2")
    return root / "referee.pub", kept


@pytest.mark.parametrize("earlier", ["join-1", "join-3", "join-4"])
def test_an_earlier_state_of_the_join_phase_is_one_too(cli, fair, tmp_path, earlier):
    """A state during the join phase (its chain ends at a join entry, not at a move) is an
    earlier state of the game after its deal and moves, not a fork."""
    pub, kept = fair
    assert len(yaml.safe_load(kept[earlier].read_text()).get("joins", [])) == \
        int(earlier[-1])
    folder = tmp_path / "league"
    for name, record in {"0-old": kept[earlier], "g1": kept["moves-2"]}.items():
        (folder / name).mkdir(parents=True)
        shutil.copy(record, folder / name / "game.yaml")
    done = cli("league", folder, "--format", "json", "--referee-pub", pub)
    assert done.code == 0, done.err
    data = json.loads(done.out)
    assert [Path(g["file"]).parent.name for g in data["games"]] == ["g1"]
    assert reasons(data)["0-old"].startswith(
        f"an earlier state of record {folder / 'g1' / 'game.yaml'} of game g, which is counted")
    assert f"{earlier[-1]} join" in reasons(data)["0-old"]
