"""A shard: many games in one repository, each in games/NAME/ (its record game.yaml, its move
files in games/NAME/moves/), handled by one `rebis-pbm git apply --games games` (one process,
one fetch, one push) and one `rebis-pbm git check --games games`, against a real bare origin
(docs/git.md, "A shard of games in one repository").

Each game has its own seed: the job finds it in the secret file beside the record, written into
the runner's checkout (never committed), not in REBIS_PBM_SEED. A game that stops (a bad file
name, a refused move) stops only itself: the others' moves are applied and pushed, and the job
exits with the stop's code after."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_git_job import bare_env, git, job_clone

from rebis_pbm.app import open_game
from rebis_pbm.cli import cli
from rebis_pbm.engine import apply_move
from rebis_pbm.formats.yaml_writer import dump_yaml
from transport_support import (
    PLAYERS,
    REFEREE,
    REPO,
    exe,
    illegal_card,
    new_args,
    pick_move,
    run,
    secret_key,
)

pytestmark = pytest.mark.skipif(not shutil.which("git"), reason="these tests need git")
GAMES = ("a", "b", "c")
EMAIL = "referee@example.org"


@pytest.fixture
def shard(tmp_path) -> Path:
    """A bare origin holding a shard of three new games, games/a, games/b and games/c, each
    with its own seed (kept outside the repository, in tmp_path/secrets/NAME.secret.yaml)."""
    origin = tmp_path / "shard.git"
    git(tmp_path, "init", "--quiet", "--bare", "--initial-branch=main", str(origin))
    setup = tmp_path / "setup"
    shutil.copytree(REPO / "examples" / "git", setup)
    shutil.rmtree(setup / "moves")
    git(setup, "init", "--quiet", "--initial-branch=main")
    (tmp_path / "secrets").mkdir()
    for name in GAMES:
        (setup / "games" / name).mkdir(parents=True)
        made = run(*new_args(setup / "games" / name / "game.yaml", f"shard-{name}",
                             f"shard-{name}"))
        assert made.returncode == 0, made.stderr
        shutil.move(setup / "games" / name / "game.secret.yaml",
                    tmp_path / "secrets" / f"{name}.secret.yaml")
    git(setup, "add", "--all")
    git(setup, "commit", "--quiet", "-m", "Start the shard", author="alice")
    git(setup, "push", "--quiet", str(origin), "main")
    return origin


def seed_of(tmp_path: Path, name: str) -> str:
    return secret_key(tmp_path / "secrets" / f"{name}.secret.yaml")


def state_of(record: Path, seed: str):
    os.environ["REBIS_PBM_SEED"] = seed
    try:
        return open_game(record)[1].state
    finally:
        del os.environ["REBIS_PBM_SEED"]


def player_clone(tmp_path: Path, origin: Path) -> Path:
    player = tmp_path / "player"
    if player.exists():
        git(player, "pull", "--quiet", "--ff-only", "origin", "main")
    else:
        git(tmp_path, "clone", "--quiet", str(origin), str(player))
    return player


def merge_moves(tmp_path: Path, origin: Path, plan: dict[str, int], illegal: str = ""
                ) -> list:
    """The players of each game NAME of ``plan`` commit its next ``plan[NAME]`` moves, one
    commit each, and push them to main (no job ran); the last move of game ``illegal`` plays a
    card its player does not hold. Returns the moves, in commit order."""
    player = player_clone(tmp_path, origin)
    moves = []
    for name, count in plan.items():
        state = state_of(player / "games" / name / "game.yaml", seed_of(tmp_path, name))
        for i in range(count):
            move = pick_move(state)
            text = dump_yaml({"game": f"shard-{name}", **move.as_dict()})
            if name == illegal and i == count - 1:
                text = text.replace(f"cards: {move.play.cards[0]}",
                                    f"cards: {illegal_card(state)}")
            path = player / "games" / name / "moves" / f"turn-{move.turn:03d}-{move.player}.yaml"
            path.parent.mkdir(exist_ok=True)
            path.write_text(text)
            git(player, "add", "games")
            git(player, "commit", "--quiet", "-m", f"{name}: turn {move.turn}",
                author=move.player)
            moves.append(move)
            state = apply_move(state, move)[0]
    git(player, "push", "--quiet", "origin", "main")
    return moves


def runner_clone(tmp_path: Path, origin: Path, name: str = "job") -> Path:
    """The runner's checkout at main's tip, with each game's secret file beside its record (as
    the workflow writes them from its CI secret; .gitignore keeps them out of any commit)."""
    clone = job_clone(tmp_path, origin, "main", name)
    for game in GAMES:
        shutil.copy(tmp_path / "secrets" / f"{game}.secret.yaml",
                    clone / "games" / game / "game.secret.yaml")
    return clone


def count_pushes(clone: Path, tmp_path: Path) -> Path:
    """A pre-push hook in the runner's clone noting each push in a file; returns the file."""
    pushes = tmp_path / "pushes"
    hook = clone / ".git" / "hooks" / "pre-push"
    hook.write_text(f"#!/bin/sh\necho push >> '{pushes}'\n")
    hook.chmod(0o755)
    return pushes


def shard_job(clone: Path, *extra: str, env=None) -> subprocess.CompletedProcess:
    """`rebis-pbm git apply --games games` as the workflow runs it: the installed console
    script in a runner's environment (no git identity, no REBIS_PBM_SEED)."""
    return subprocess.run([exe(), "git", "apply", "--games", "games", "--remote", "origin",
                           "--branch", "main", "--email", EMAIL, *extra], cwd=clone,
                          env={**bare_env(clone.parent / "home"), **(env or {})},
                          capture_output=True, text=True, timeout=300)


def at_origin(tmp_path: Path, origin: Path) -> Path:
    final = tmp_path / "final"
    if final.exists():
        shutil.rmtree(final)
    git(tmp_path, "clone", "--quiet", str(origin), str(final))
    return final


def played(tmp_path: Path, final: Path, name: str) -> list:
    os.environ["REBIS_PBM_SEED"] = seed_of(tmp_path, name)
    try:
        return [m for m, _ in open_game(final / "games" / name / "game.yaml")[1].history]
    finally:
        del os.environ["REBIS_PBM_SEED"]


def referee_commits(clone: Path) -> list[str]:
    return git(clone, "log", "--reverse", "--format=%s", f"--author={EMAIL}").splitlines()


def test_one_job_applies_the_waiting_moves_of_every_game_of_the_shard(tmp_path, shard):
    """Two moves wait in games/a, one in games/b, none in games/c: one process applies the
    three, one commit each, writes each game's public view beside its record, queues each
    game's views in its own Maildir, and pushes once; games/c is untouched."""
    moves = merge_moves(tmp_path, shard, {"a": 2, "b": 1})
    clone = runner_clone(tmp_path, shard)
    pushes = count_pushes(clone, tmp_path)
    before_c = (clone / "games" / "c" / "game.yaml").read_bytes()
    done = shard_job(clone, "--queue", "--referee", REFEREE)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rebis-pbm git: 3 move(s) applied" in done.stdout
    assert pushes.read_text() == "push\n"
    final = at_origin(tmp_path, shard)
    assert played(tmp_path, final, "a") == moves[:2]
    assert played(tmp_path, final, "b") == moves[2:]
    assert (final / "games" / "c" / "game.yaml").read_bytes() == before_c
    assert referee_commits(final) == [
        f"Apply games/{name}/moves/turn-{m.turn:03d}-{m.player}.yaml from {PLAYERS[m.player]}"
        for name, m in zip("aab", moves, strict=True)]
    # Each commit holds its game's record and public view, nothing of another game.
    commits = git(final, "log", "--reverse", "--format=%H", f"--author={EMAIL}").split()
    for commit, name in zip(commits, "aab", strict=True):
        changed = git(final, "show", "--format=", "--name-only", commit).split()
        assert sorted(changed) == [f"games/{name}/game.views/public.txt",
                                   f"games/{name}/game.views/public.yaml",
                                   f"games/{name}/game.yaml"]
    tracked = git(final, "ls-files", "games").split()
    assert not [p for p in tracked if "secret" in p or
                ("game.views/" in p and "/game.views/public." not in p)]
    assert not git(final, "log", "--format=%H", f"--author={EMAIL}", "--", "games/c")
    # Each game where a move was applied has its own queue beside its record; games/c none.
    assert "4 messages of games/a/game.yaml queued in games/a/game.mailq/" in done.stdout
    assert [len(list((clone / "games" / n / "game.mailq" / "new").iterdir()))
            for n in ("a", "b")] == [4, 4]
    assert not (clone / "games" / "c" / "game.mailq").exists()
    assert not git(clone, "status", "--porcelain")  # the queues are never committed
    # A second run finds nothing left to do and pushes nothing.
    again = shard_job(clone)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "0 move(s) applied" in again.stdout
    assert pushes.read_text() == "push\n"


def test_a_bad_file_name_in_one_game_stops_only_that_game(tmp_path, shard):
    moves = merge_moves(tmp_path, shard, {"a": 1, "b": 1})
    player = player_clone(tmp_path, shard)
    (player / "games" / "a" / "moves" / "notes.txt").write_text("hello\n")
    git(player, "add", "games")
    git(player, "commit", "--quiet", "-m", "notes", author="bob")
    git(player, "push", "--quiet", "origin", "main")
    clone = runner_clone(tmp_path, shard)
    done = shard_job(clone)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert ("games/a/moves/notes.txt (commit" in done.stderr and
            "only move files go in games/a/moves/, each named "
            "games/a/moves/turn-NNN-PLAYER.yaml" in done.stderr)
    assert "no move of this game was applied" in done.stderr
    assert done.stderr.splitlines()[-1] == (
        "rebis-pbm: 1 game(s) of the shard ended with a refusal or an error, each said above: "
        "games/a/; every other game's moves were applied and pushed")
    assert "rebis-pbm git: 1 move(s) applied" in done.stdout
    final = at_origin(tmp_path, shard)
    assert played(tmp_path, final, "a") == []
    assert played(tmp_path, final, "b") == [moves[1]]


def test_a_refused_move_in_one_game_while_another_games_moves_are_applied(tmp_path, shard):
    """A private repository: game a's turn 2 is refused by the rules, its turn 1 (before it)
    is applied and pushed, and so are game b's moves; the job exits 1 after."""
    moves = merge_moves(tmp_path, shard, {"a": 2, "b": 2}, illegal="a")
    clone = runner_clone(tmp_path, shard)
    done = shard_job(clone)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"games/a/moves/turn-002-{moves[1].player}.yaml" in done.stderr
    assert "was refused; the record is unchanged" in done.stderr
    assert "move rejected" in done.stderr
    assert done.stderr.splitlines()[-1].startswith(
        "rebis-pbm: 1 game(s) of the shard ended with a refusal or an error")
    assert "rebis-pbm git: 3 move(s) applied" in done.stdout
    final = at_origin(tmp_path, shard)
    assert played(tmp_path, final, "a") == [moves[0]]
    assert played(tmp_path, final, "b") == moves[2:]
    # The refused file stays for its player to correct (a private repository's rule).
    assert (final / "games" / "a" / "moves" / f"turn-002-{moves[1].player}.yaml").exists()


def test_a_refused_move_in_a_public_shard_is_removed_and_the_other_games_go_on(tmp_path,
                                                                             shard):
    """A public repository (--public-repo): game a's refused move is removed in the commit of
    its refusal, its reason committed only encrypted to its mover in games/a/refusals/; game
    b's move is applied; the reason is nowhere in the output."""
    from rebis_pbm.crypto import age as encryption
    from sshkeys import ssh_key

    keys = {p: ssh_key(tmp_path, p) for p in PLAYERS}
    moves = merge_moves(tmp_path, shard, {"a": 1, "b": 1}, illegal="a")
    clone = runner_clone(tmp_path, shard)
    done = shard_job(clone, "--public-repo",
                     *(a for p, k in keys.items() for a in ("--key", f"{p}={k}.pub")))
    assert done.returncode == 1, done.stdout + done.stderr
    mover = moves[0].player
    note = f"games/a/refusals/turn-001-{mover}.txt.age"
    assert f"turn 1 by {mover} was refused; the reason is in {note}" in done.stderr
    assert "move rejected" not in done.stdout + done.stderr
    assert "rebis-pbm git: 1 move(s) applied" in done.stdout
    final = at_origin(tmp_path, shard)
    assert not (final / "games" / "a" / "moves" / f"turn-001-{mover}.yaml").exists()
    assert b"move rejected" in encryption.decrypt((final / note).read_bytes(), keys[mover])
    assert played(tmp_path, final, "a") == []
    assert played(tmp_path, final, "b") == [moves[1]]
    # Judged once: the next run finds nothing left to do in any game.
    again = shard_job(clone, "--public-repo")
    assert again.returncode == 0 and "0 move(s) applied" in again.stdout, again.stderr


def cli_in(clone: Path, monkeypatch, *args: str, env=None):
    """The same command through click's runner, in-process, in the runner's checkout."""
    monkeypatch.chdir(clone)
    full = {**bare_env(clone.parent / "home"), **(env or {})}
    for name in [k for k in os.environ if k.startswith("GIT_") or k == "REBIS_PBM_SEED"]:
        monkeypatch.delenv(name)
    return CliRunner().invoke(cli, list(args), env=full)


def test_git_check_of_a_shard_checks_each_games_changed_files(tmp_path, shard, monkeypatch):
    """A pull request adding a move to games/a and a move to games/b that is not bob's (carol
    wrote it): one check, without the seed, passes games/a's file and fails games/b's."""
    player = player_clone(tmp_path, shard)
    base = git(player, "rev-parse", "HEAD")
    state_a = state_of(player / "games" / "a" / "game.yaml", seed_of(tmp_path, "a"))
    move = pick_move(state_a)
    put_move(player, "a", move, "shard-a")
    git(player, "add", "games")
    git(player, "commit", "--quiet", "-m", "a: turn 1", author=move.player)
    good = git(player, "rev-parse", "HEAD")
    for runs in ("subprocess", "click"):
        if runs == "subprocess":
            done = subprocess.run([exe(), "git", "check", "--games", "games", f"{base}..{good}"],
                                  cwd=player, env=bare_env(tmp_path / "home"),
                                  capture_output=True, text=True, timeout=120)
            code, out, err = done.returncode, done.stdout, done.stderr
        else:
            got = cli_in(player, monkeypatch, "git", "check", "--games", "games",
                         f"{base}..{good}")
            code, out, err = got.exit_code, got.stdout, got.stderr
        assert code == 0, out + err
        assert "games/a/moves/turn-001-" in out and "a well-formed move of turn 1" in out
        assert "1 move file(s) checked" in out
    state_b = state_of(player / "games" / "b" / "game.yaml", seed_of(tmp_path, "b"))
    forged = pick_move(state_b)
    put_move(player, "b", forged, "shard-b")
    git(player, "add", "games")
    other = "carol" if forged.player != "carol" else "bob"
    git(player, "commit", "--quiet", "-m", "b: turn 1", author=other)
    head = git(player, "rev-parse", "HEAD")
    got = cli_in(player, monkeypatch, "git", "check", "--games", "games", f"{base}..{head}")
    assert got.exit_code == 1, got.stdout + got.stderr
    assert "a well-formed move of turn 1" in got.stdout  # games/a's file was still checked
    assert f"games/b/moves/turn-001-{forged.player}.yaml" in got.stderr
    assert "can only send their own moves" in got.stderr
    assert got.stderr.splitlines()[-1] == (
        "rebis-pbm: 1 game(s) of the shard ended with a refusal or an error, each said above: "
        "games/b/; every other game's move files were checked")
    assert git(player, "rev-parse", "HEAD") == head  # a check commits nothing


@pytest.mark.parametrize("runs", ["subprocess", "click"])
def test_wrong_uses_of_games_are_refused_before_anything_changes(tmp_path, shard, monkeypatch,
                                                                 runs):
    merge_moves(tmp_path, shard, {"a": 1})
    clone = runner_clone(tmp_path, shard)
    head = git(clone, "rev-parse", "HEAD")
    cases = [
        (["--game", "games/a/game.yaml"], {}, "--game and --games exclude each other"),
        ([], {"REBIS_GAME": "games/a/game.yaml"}, "REBIS_GAME and --games exclude each other"),
        ([], {"REBIS_PBM_SEED": seed_of(tmp_path, "a")},
         "REBIS_PBM_SEED holds one game's seed, but each game of a shard has its own"),
        (["nope..HEAD"], {}, "nope..HEAD: give a commit, or a range OLD..NEW"),
        (["--queue", "mailq", "--referee", REFEREE], {},
         "--queue mailq names one game's mail queue, and a shard's games each have their own: "
         "give --queue alone with --games"),
    ]
    for extra, env, words in cases:
        if runs == "subprocess":
            done = shard_job(clone, *extra, env=env)
            code, err = done.returncode, done.stderr
        else:
            got = cli_in(clone, monkeypatch, "git", "apply", "--games", "games", "--remote",
                         "origin", "--email", EMAIL, *extra, env=env)
            code, err = got.exit_code, got.stderr
        assert code == 2, err
        assert len(err.splitlines()) == 1 and err.startswith("rebis-pbm: "), err
        assert words in err
    for folder, words in (("../games", "relative to the repository's top"),
                          ("moves", "moves/ holds no game")):
        done = subprocess.run([exe(), "git", "apply", "--games", folder], cwd=clone,
                              env=bare_env(tmp_path / "home"), capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 2 and words in done.stderr, done.stderr
        assert len(done.stderr.splitlines()) == 1
    assert git(clone, "rev-parse", "HEAD") == head
    assert played(tmp_path, at_origin(tmp_path, shard), "a") == []


def test_queue_alone_queues_one_games_views_in_its_own_queue(tmp_path, origin):
    """One game per repository: --queue without DIR is the game's own queue, game.mailq/
    beside its record (what `mail out game.yaml` sends), as with --games."""
    from test_git_job import merge_moves as merge_one
    from test_git_job import run_job

    pushes = merge_one(tmp_path, origin, 1)
    clone = job_clone(tmp_path, origin, pushes[0][1], "job")
    done = run_job(clone, *pushes[0], ["--queue", "--referee", REFEREE])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 messages queued in game.mailq/ for mail out" in done.stdout
    assert len(list((clone / "game.mailq" / "new").iterdir())) == 4


def put_move(player: Path, folder: str, move, game: str) -> Path:
    """``move`` of game ``game`` as a move file in the player's clone, under
    ``games/FOLDER/moves/`` (its folders made as needed); returns its path."""
    path = player / "games" / folder / "moves" / f"turn-{move.turn:03d}-{move.player}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_yaml({"game": game, **move.as_dict()}))
    return path


def commit_as(player: Path, who: str, message: str, *paths: str) -> None:
    git(player, "add", "--force", *paths)
    git(player, "commit", "--quiet", "-m", message, author=who)
    git(player, "push", "--quiet", "origin", "main")


def test_a_committed_secret_file_never_overwrites_the_seed_the_runner_keeps(tmp_path, shard):
    """The attack: a commit (a pull request the referee let through) adds games/a's secret
    file, so that the job's checkout of the tip overwrites the seed the runner keeps there (and
    a later commit removing it deletes it). The job checks out nothing and says why; every
    runner's seed file stays as it was."""
    merge_moves(tmp_path, shard, {"a": 1, "b": 1})
    clone = runner_clone(tmp_path, shard)  # its seed files written, as the workflow does
    kept = {name: (clone / "games" / name / "game.secret.yaml").read_bytes() for name in GAMES}
    before = git(shard, "rev-parse", "main")
    player = player_clone(tmp_path, shard)
    (player / "games" / "a" / "game.secret.yaml").write_text("seed: 00\n")
    commit_as(player, "bob", "a secret", "games/a/game.secret.yaml")
    tip = git(shard, "rev-parse", "main")
    for _ in (1, 2):  # a second run does the same: the runner never took the tip
        done = shard_job(clone)
        assert done.returncode == 2, done.stdout + done.stderr
        assert "Traceback" not in done.stderr
        assert ("games/a/game.secret.yaml is committed where this checkout keeps a game's seed; "
                "nothing was checked out") in done.stderr
        assert {name: (clone / "games" / name / "game.secret.yaml").read_bytes()
                for name in GAMES} == kept
        assert git(shard, "rev-parse", "main") == tip and tip != before
    # A runner whose checkout already held the committed file, with its own seed written over
    # it (a workflow writing the seeds after checking out the tip): kept as well.
    other = runner_clone(tmp_path, shard, "job2")
    written = (other / "games" / "a" / "game.secret.yaml").read_bytes()
    assert written == kept["a"]
    done = shard_job(other)
    assert done.returncode == 2 and "nothing was checked out" in done.stderr
    assert (other / "games" / "a" / "game.secret.yaml").read_bytes() == written


def test_two_folders_of_one_game_id_stop_both_and_the_others_go_on(tmp_path, shard,
                                                                     monkeypatch):
    """The attack: games/a's record copied into games/a2 (the same game id), a move committed
    in both: played in both, the game would fork into two records. Neither is judged; games/b's
    move is applied; the pull request's check says so too."""
    merge_moves(tmp_path, shard, {"b": 1})
    player = player_clone(tmp_path, shard)
    base = git(player, "rev-parse", "HEAD")
    (player / "games" / "a2").mkdir()
    shutil.copy(player / "games" / "a" / "game.yaml", player / "games" / "a2" / "game.yaml")
    state = state_of(player / "games" / "a" / "game.yaml", seed_of(tmp_path, "a"))
    move = pick_move(state)
    for name in ("a", "a2"):
        put_move(player, name, move, "shard-a")
    commit_as(player, move.player, "a twin", "games")
    got = cli_in(player, monkeypatch, "git", "check", "--games", "games",
                 f"{base}..{git(player, 'rev-parse', 'HEAD')}")
    assert got.exit_code == 2 and "games/a/ holds game shard-a, as games/a2/ does" in got.stderr
    clone = runner_clone(tmp_path, shard)
    shutil.copy(tmp_path / "secrets" / "a.secret.yaml", clone / "games" / "a2" / "game.secret.yaml")
    done = shard_job(clone)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "games/a2/ holds game shard-a, as games/a/ does" in done.stderr
    assert "2 game(s) of the shard ended" in done.stderr
    final = at_origin(tmp_path, shard)
    assert played(tmp_path, final, "a") == [] and len(played(tmp_path, final, "b")) == 1
    assert (final / "games" / "a2" / "game.yaml").read_bytes() == \
        (final / "games" / "a" / "game.yaml").read_bytes()  # neither copy moved on


def test_a_record_committed_as_a_link_to_another_game_is_not_played(tmp_path, shard):
    """The attack: games/g2/game.yaml committed as a symbolic link to games/a's record, with a
    move in games/g2/moves/: applied through the link, games/a's game would fork. g2 is not
    judged, games/a is untouched, games/b is applied."""
    merge_moves(tmp_path, shard, {"b": 1})
    player = player_clone(tmp_path, shard)
    move = pick_move(state_of(player / "games" / "a" / "game.yaml", seed_of(tmp_path, "a")))
    put_move(player, "g2", move, "shard-a")
    (player / "games" / "g2" / "game.yaml").symlink_to("../a/game.yaml")
    commit_as(player, move.player, "a link", "games")
    clone = runner_clone(tmp_path, shard)
    shutil.copy(tmp_path / "secrets" / "a.secret.yaml", clone / "games" / "g2" / "game.secret.yaml")
    done = shard_job(clone)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "games/g2/game.yaml is committed as a symbolic link" in done.stderr
    final = at_origin(tmp_path, shard)
    assert (final / "games" / "g2" / "game.yaml").is_symlink()
    assert played(tmp_path, final, "a") == [] and len(played(tmp_path, final, "b")) == 1


def test_a_move_in_a_folder_of_no_game_fails_the_check(tmp_path, shard, monkeypatch):
    """A move file committed under a misspelt game's folder (games/aa/moves/) would wait
    forever, unjudged: the pull request's check says where a game's moves go."""
    player = player_clone(tmp_path, shard)
    base = git(player, "rev-parse", "HEAD")
    move = pick_move(state_of(player / "games" / "a" / "game.yaml", seed_of(tmp_path, "a")))
    put_move(player, "aa", move, "shard-a")
    commit_as(player, move.player, "a move, misplaced", "games")
    got = cli_in(player, monkeypatch, "git", "check", "--games", "games",
                 f"{base}..{git(player, 'rev-parse', 'HEAD')}")
    assert got.exit_code == 2, got.stdout + got.stderr
    assert (f"games/aa/moves/turn-001-{move.player}.yaml: no game of the shard has this moves/ "
            "folder") in got.stderr
