"""Play through a git repository: examples/git/ copied into a real repository in a temporary
folder (the machine's git), three players committing their move files in turn, the job script
applying each commit with the seed from the environment (as from a CI secret), a forged move
refused, and a record that replays from its seed to the end."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from rebis_pbm.cli import load_game
from rebis_pbm.engine import legal_moves
from rebis_pbm.yamlio import dump_yaml

from transport_support import PLAYERS, REPO, exe, new_args, pick_move, run

SEED = "git-game"
REFEREE = ("Rebis referee", "referee@example.org")


def git(repo: Path, *args, author: tuple[str, str] | None = None) -> str:
    env = {**os.environ, "HOME": str(repo.parent), "GIT_CONFIG_NOSYSTEM": "1"}
    if author:
        env.update(GIT_AUTHOR_NAME=author[0], GIT_AUTHOR_EMAIL=author[1])
    done = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


def job(repo: Path, *args) -> subprocess.CompletedProcess:
    """The CI job as the workflow runs it: plain shell, the seed from the CI secret."""
    env = {**os.environ, "HOME": str(repo.parent), "GIT_CONFIG_NOSYSTEM": "1",
           "REBIS_PBM_SEED": SEED, "REBIS_REFEREE_NAME": REFEREE[0],
           "REBIS_REFEREE_EMAIL": REFEREE[1],
           "PATH": f"{Path(exe()).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(["sh", "rebis-job.sh", *args], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    """The referee's set-up of docs/git.md, step by step."""
    assert shutil.which("git"), "these tests need git on the machine"
    repo = tmp_path / "rebis-game"
    shutil.copytree(REPO / "examples" / "git", repo)
    git(repo, "init", "--quiet", "--initial-branch=main")
    git(repo, "config", "user.name", REFEREE[0])
    git(repo, "config", "user.email", REFEREE[1])
    made = run(*new_args(repo / "game.yaml", SEED, "gitgame"))
    assert made.returncode == 0, made.stderr
    # The seed goes to the CI secret (here: the environment), never into the repository.
    shutil.move(repo / "game.secret.yaml", tmp_path / "referee-only.secret.yaml")
    monkeypatch.setenv("REBIS_PBM_SEED", SEED)
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "-m", "Start the game")
    return repo


def played(game: Path) -> list:
    """The moves of the record as replayed with the seed (the record seals closing cards)."""
    return [move for move, _ in load_game(game)[1].history]


def tracked(repo: Path, commit="HEAD") -> set[str]:
    return set(git(repo, "ls-tree", "-r", "--name-only", commit).split())


def commit_move(repo: Path, player: str, move, message: str, *, as_player: str | None = None):
    """``as_player`` commits it (default: the move's own player)."""
    sender = as_player or player
    path = repo / "moves" / f"turn-{move.turn:03d}-{player}.yaml"
    path.write_text(dump_yaml({"game": "gitgame", **move.as_dict()}))
    git(repo, "add", str(path.relative_to(repo)))
    git(repo, "commit", "--quiet", "-m", message, author=(sender, PLAYERS[sender]))


def test_the_repository_holds_the_record_and_public_view_only(repo):
    assert tracked(repo) == {".github/workflows/rebis-referee.yml", ".gitignore", "README.md",
                             "rebis-job.sh", "moves/.gitkeep", "game.yaml",
                             "game.views/public.yaml", "game.views/public.txt"}
    # The private views `new` wrote beside the record are ignored, as a seed file would be.
    assert (repo / "game.views" / "alice.yaml").exists()
    ignored = git(repo, "check-ignore", "game.views/alice.yaml", "game.secret.yaml")
    assert ignored.split() == ["game.views/alice.yaml", "game.secret.yaml"]


def test_a_whole_game_through_git_commits(repo):
    before = git(repo, "rev-parse", "HEAD").strip()
    applied = []
    while True:
        state = load_game(repo / "game.yaml")[1].state
        if state.finished:
            break
        mover = state.player_to_move
        move = pick_move(state)
        if state.turn == 2:
            # carol commits a move for bob: refused, the record is unchanged, nothing committed.
            forged = next((m for m in legal_moves(state) if m != move), move)
            record_before = (repo / "game.yaml").read_bytes()
            commit_move(repo, mover, forged, "bob's move, honest", as_player="carol")
            refused = job(repo, f"{before}..HEAD")
            assert refused.returncode == 1, refused.stdout + refused.stderr
            assert ("this move is for bob, but it comes from carol@example.org (carol); a player "
                    "can only send their own moves") in refused.stderr
            assert "was refused; the record is unchanged" in refused.stderr
            assert (repo / "game.yaml").read_bytes() == record_before
            assert git(repo, "log", "-1", "--format=%ae").strip() == PLAYERS["carol"]
            before = git(repo, "rev-parse", "HEAD").strip()
        if state.turn == 3:
            # A pull request's check: the move is tried on a scratch copy, nothing committed.
            commit_move(repo, mover, move, "my move (for review)")
            head, record_before = git(repo, "rev-parse", "HEAD"), (repo / "game.yaml").read_bytes()
            checked = job(repo, "--check", "HEAD")
            assert checked.returncode == 0, checked.stderr
            assert "1 move(s) checked; nothing committed" in checked.stdout
            assert git(repo, "rev-parse", "HEAD") == head
            assert (repo / "game.yaml").read_bytes() == record_before
        else:
            commit_move(repo, mover, move, f"turn {move.turn}")
        done = job(repo, f"{before}..HEAD")
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"turn-{move.turn:03d}-{mover}.yaml" in done.stdout
        applied.append(move)
        # The job committed the record and the public view, as the referee, and nothing else.
        assert git(repo, "log", "-1", "--format=%an <%ae>").strip() == "%s <%s>" % REFEREE
        changed = set(git(repo, "show", "--name-only", "--format=", "HEAD").split())
        assert changed == {"game.yaml", "game.views/public.yaml", "game.views/public.txt"}
        assert played(repo / "game.yaml") == applied
        before = git(repo, "rev-parse", "HEAD").strip()

    assert load_game(repo / "game.yaml")[1].state.finished
    assert played(repo / "game.yaml") == applied and len(applied) == 10
    assert {m.player for m in applied} == set(PLAYERS)
    # The record as committed verifies on its own: the last move revealed the seed.
    verified = run("verify", repo / "game.yaml", env={"REBIS_PBM_SEED": ""})
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.startswith(b"Verified: game gitgame (") and b", 10 move" in verified.stdout
    # The public view in the repository is the final one; no commit ever held a private view or
    # a seed file, and the seed entered the history only with the game's last move.
    assert "The game is over." in (repo / "game.views" / "public.txt").read_text()
    for commit in git(repo, "rev-list", "--all").split():
        assert not {f for f in tracked(repo, commit)
                    if f.endswith(".secret.yaml") or f.startswith("game.views/")
                    and not f.startswith("game.views/public.")}
    revealing = git(repo, "log", "--all", "--format=%H", f"-Sseed: {SEED}").split()
    assert revealing == [git(repo, "rev-parse", "HEAD").strip()]


def test_a_move_sent_twice_is_applied_once(repo):
    state = load_game(repo / "game.yaml")[1].state
    commit_move(repo, "alice", pick_move(state), "turn 1")
    assert job(repo, "HEAD").returncode == 0
    head = git(repo, "rev-parse", "HEAD")
    # The same commit again (a re-run of the CI job): nothing changes, nothing is committed.
    again = job(repo, "HEAD~1")
    assert again.returncode == 0 and "already applied" in again.stdout
    assert git(repo, "rev-parse", "HEAD") == head


def test_an_illegal_move_fails_the_check_with_the_reason(repo):
    state = load_game(repo / "game.yaml")[1].state
    move = pick_move(state)
    path = repo / "moves" / "turn-001-alice.yaml"
    text = dump_yaml({"game": "gitgame", **move.as_dict()})
    path.write_text(text.replace("turn: 1", "turn: 2"))
    git(repo, "add", "moves")
    git(repo, "commit", "--quiet", "-m", "oops", author=("alice", PLAYERS["alice"]))
    record_before = (repo / "game.yaml").read_bytes()
    refused = job(repo, "HEAD")
    assert refused.returncode == 1
    assert "moves/turn-001-alice.yaml: move rejected:" in refused.stderr
    assert (repo / "game.yaml").read_bytes() == record_before


def test_a_committed_seed_stops_the_job(repo, tmp_path):
    shutil.copy(tmp_path / "referee-only.secret.yaml", repo / "game.secret.yaml")
    git(repo, "add", "--force", "game.secret.yaml")
    git(repo, "commit", "--quiet", "-m", "oops")
    result = job(repo, "HEAD")
    assert result.returncode == 2 and "game.secret.yaml is committed" in result.stderr


def test_a_bad_revision_is_a_usage_error(repo):
    result = job(repo, "no-such-branch")
    assert result.returncode == 2 and "give a commit, or a range OLD..NEW" in result.stderr


def test_the_workflow_runs_the_job_on_moves_with_the_seed_secret():
    import yaml

    flow = yaml.safe_load((REPO / "examples/git/.github/workflows/rebis-referee.yml").read_text())
    triggers = flow[True]  # PyYAML reads the key `on` as true (YAML 1.1)
    assert triggers["push"] == {"branches": ["main"], "paths": ["moves/**"]}
    assert triggers["pull_request"] == {"paths": ["moves/**"]}
    assert flow["concurrency"]["cancel-in-progress"] is False  # moves are applied in order
    referee = flow["jobs"]["referee"]
    assert referee["env"]["REBIS_PBM_SEED"] == "${{ secrets.REBIS_PBM_SEED }}"
    runs = {s.get("name"): s.get("run", "") for s in referee["steps"]}
    assert 'sh rebis-job.sh --check "$BASE..$HEAD"' in \
        runs["Check the pull request's moves (nothing is committed)"]
    publish = runs["Apply the new moves and publish the record"]
    assert 'sh rebis-job.sh "$BEFORE..$GITHUB_SHA"' in publish and "git push" in publish
