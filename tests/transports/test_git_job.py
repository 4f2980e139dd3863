"""The git job as CI runs it, against a real bare origin: `rebis-pbm git apply --remote origin`
in fresh clones checked out at the commit whose push started each job (which is stale as soon
as another move is merged), on a runner with no git identity, started in any order, overlapping,
from a shallow clone, with a push refused because main moved meanwhile (docs/git.md).

Each case reproduces a failure of the former shell job: it worked on the pushed commit (so the
second of two quick merges was refused, "turn 3 has not begun"), needed a git identity for its
`git pull --rebase`, and misread a shallow clone."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from rebis_pbm.app import open_game
from rebis_pbm.engine import apply_move
from rebis_pbm.formats.yaml_writer import dump_yaml
from transport_support import PLAYERS, REFEREE, exe, pick_move, secret_key

SEED = "git-job-seed"
pytestmark = pytest.mark.skipif(not shutil.which("git"), reason="these tests need git")


def bare_env(home: Path) -> dict:
    """A runner's environment: no git identity anywhere (no global or system config)."""
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(HOME=str(home), GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull,
               EMAIL="", PATH=f"{Path(exe()).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    return env


def git(cwd: Path, *args, env=None, author=None) -> str:
    env = dict(env or bare_env(cwd.parent / "home"))
    if author:
        env.update(GIT_AUTHOR_NAME=author, GIT_AUTHOR_EMAIL=PLAYERS[author],
                   GIT_COMMITTER_NAME=author, GIT_COMMITTER_EMAIL=PLAYERS[author])
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout.strip()


def key(folder: Path) -> str:
    """The game's secret (``SALT:SEED``), as the CI secret holds it."""
    return secret_key(folder / "referee-only.secret.yaml")


def merge_moves(tmp_path: Path, origin: Path, count: int) -> list[tuple[str, str]]:
    """``count`` players merge their moves into main one after another, each before any job
    ran; returns each push's (before, after)."""
    player = tmp_path / "player"
    git(tmp_path, "clone", "--quiet", str(origin), str(player))
    from rebis_pbm.record.secret import SEED_ENV

    os.environ[SEED_ENV] = key(tmp_path)
    try:
        state = open_game(player / "game.yaml")[1].state
    finally:
        del os.environ[SEED_ENV]
    pushes = []
    for _ in range(count):
        move = pick_move(state)
        mover = state.player_to_move
        path = player / "moves" / f"turn-{move.turn:03d}-{mover}.yaml"
        path.write_text(dump_yaml({"game": "gitjob", **move.as_dict()}))
        before = git(player, "rev-parse", "HEAD")
        git(player, "add", "moves")
        git(player, "commit", "--quiet", "-m", f"turn {move.turn}", author=mover)
        git(player, "push", "--quiet", "origin", "main")
        pushes.append((before, git(player, "rev-parse", "HEAD")))
        state = apply_move(state, move)[0]
    return pushes


def job_clone(tmp_path: Path, origin: Path, commit: str, name: str, *, depth=None) -> Path:
    """The runner's checkout: a clone at the pushed commit, detached, as CI makes it."""
    where = tmp_path / name
    shallow = ["--depth", str(depth)] if depth else []
    git(tmp_path, "clone", "--quiet", *shallow, f"file://{origin}", str(where))
    if not depth:
        git(where, "checkout", "--quiet", "--detach", commit)
    return where


def job_args(before: str, after: str) -> list[str]:
    return [exe(), "git", "apply", f"{before}..{after}", "--remote", "origin", "--branch", "main",
            "--email", "referee@example.org"]


def run_job(clone: Path, before: str, after: str, extra=()) -> subprocess.CompletedProcess:
    env = {**bare_env(clone.parent / "home"), "REBIS_PBM_SEED": key(clone.parent)}
    return subprocess.run([*job_args(before, after), *extra], cwd=clone, env=env,
                          capture_output=True, text=True, timeout=180)


def origin_record(tmp_path: Path, origin: Path) -> tuple[list, Path]:
    """The moves in origin's record (replayed with the seed), and a fresh clone of it."""
    final = tmp_path / "final"
    if final.exists():
        shutil.rmtree(final)
    git(tmp_path, "clone", "--quiet", str(origin), str(final))
    os.environ["REBIS_PBM_SEED"] = key(tmp_path)
    try:
        return [m for m, _ in open_game(final / "game.yaml")[1].history], final
    finally:
        del os.environ["REBIS_PBM_SEED"]


def referee_commits(clone: Path) -> list[str]:
    return git(clone, "log", "--format=%s", "--author=referee@example.org").splitlines()


@pytest.mark.parametrize("order", [(1, 0), (2, 0, 1), (1, 2, 0)])
def test_quick_merges_all_end_applied_in_order_whatever_order_the_jobs_start(tmp_path, origin,
                                                                           order):
    """Each job runs in a checkout of its own push, which the others' moves and records make
    stale; none fails, and every move is applied once, in turn order."""
    pushes = merge_moves(tmp_path, origin, len(order))
    clones = [job_clone(tmp_path, origin, after, f"job{i}") for i, (_, after) in
              enumerate(pushes)]
    for i in order:
        done = run_job(clones[i], *pushes[i])
        assert done.returncode == 0, done.stdout + done.stderr
    moves, final = origin_record(tmp_path, origin)
    assert [m.turn for m in moves] == list(range(1, len(order) + 1))
    assert referee_commits(final) == [f"Apply moves/turn-{t:03d}-{p}.yaml from {PLAYERS[p]}"
                                      for t, p in reversed([(m.turn, m.player) for m in moves])]
    # The job that ran first applied them all; the later ones found nothing left to do.
    first = run_job(clones[order[0]], *pushes[order[0]])
    assert "0 move(s) applied" in first.stdout


def test_overlapping_jobs_all_succeed_and_apply_each_move_once(tmp_path, origin):
    """Three jobs at once, as a CI without a concurrency group runs them: the pushes race, the
    refused ones start again on the new tip."""
    pushes = merge_moves(tmp_path, origin, 3)
    clones = [job_clone(tmp_path, origin, after, f"job{i}") for i, (_, after) in
              enumerate(pushes)]
    running = [subprocess.Popen(job_args(*pushes[i]), cwd=clones[i],
                                env={**bare_env(tmp_path / "home"),
                                     "REBIS_PBM_SEED": key(tmp_path)},
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for i in (2, 0, 1)]
    for proc in running:
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, out + err
    moves, final = origin_record(tmp_path, origin)
    assert [m.turn for m in moves] == [1, 2, 3]
    assert len(referee_commits(final)) == 3


def test_a_push_refused_because_main_moved_is_applied_again_on_the_new_tip(tmp_path, origin):
    """Between the job's apply and its push, another move is merged: the push is refused, the
    job fetches the new tip, applies both moves there and pushes."""
    pushes = merge_moves(tmp_path, origin, 1)
    clone = job_clone(tmp_path, origin, pushes[0][1], "job")
    # Prepare the next player's merge now, push it from the job's pre-push hook (once).
    player_dir = tmp_path / "player"
    state = None
    os.environ["REBIS_PBM_SEED"] = key(tmp_path)
    try:
        state = open_game(player_dir / "game.yaml")[1].state
    finally:
        del os.environ["REBIS_PBM_SEED"]
    first = pick_move(state)
    second = pick_move(apply_move(state, first)[0])
    mover = second.player
    (player_dir / "moves" / f"turn-002-{mover}.yaml").write_text(
        dump_yaml({"game": "gitjob", **second.as_dict()}))
    git(player_dir, "add", "moves")
    git(player_dir, "commit", "--quiet", "-m", "turn 2", author=mover)
    hook = clone / ".git" / "hooks" / "pre-push"
    hook.write_text(f"#!/bin/sh\n[ -e '{tmp_path}/raced' ] && exit 0\n: > '{tmp_path}/raced'\n"
                    f"cd '{player_dir}' && git push --quiet origin main\n")
    hook.chmod(0o755)
    done = run_job(clone, *pushes[0])
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "raced").exists()
    assert "the push was refused); applying again on its new tip" in done.stderr
    moves, _ = origin_record(tmp_path, origin)
    assert moves == [first, second]


def test_a_shallow_clone_is_deepened_and_each_move_keeps_its_author(tmp_path, origin):
    """GitLab's default clone has one commit: the job fetches the history it needs to know who
    wrote each move file, instead of failing on the revisions."""
    pushes = merge_moves(tmp_path, origin, 2)
    clone = job_clone(tmp_path, origin, pushes[-1][1], "shallow", depth=1)
    assert git(clone, "rev-parse", "--is-shallow-repository") == "true"
    done = run_job(clone, *pushes[-1])
    assert done.returncode == 0, done.stdout + done.stderr
    moves, final = origin_record(tmp_path, origin)
    assert len(moves) == 2
    assert [s.split(" from ")[1] for s in referee_commits(final)] == \
        [PLAYERS[moves[1].player], PLAYERS[moves[0].player]]


def push_next_move(tmp_path: Path) -> None:
    """The next player (in merge_moves's clone) merges the next move into main."""
    from rebis_pbm.record.secret import SEED_ENV

    player = tmp_path / "player"
    git(player, "pull", "--quiet", "--ff-only", "origin", "main")
    os.environ[SEED_ENV] = key(tmp_path)
    try:
        state = open_game(player / "game.yaml")[1].state
    finally:
        del os.environ[SEED_ENV]
    move, mover = pick_move(state), state.player_to_move
    path = player / "moves" / f"turn-{move.turn:03d}-{mover}.yaml"
    path.write_text(dump_yaml({"game": "gitjob", **move.as_dict()}))
    git(player, "add", "moves")
    git(player, "commit", "--quiet", "-m", f"turn {move.turn}", author=mover)
    git(player, "push", "--quiet", "origin", "main")


def killed_after_push(tmp_path: Path) -> dict:
    """An environment whose git kills the job (SIGKILL) as soon as its push is taken: the
    machine's own git, behind a wrapper first on PATH."""
    wrapper = tmp_path / "killing-git"
    wrapper.mkdir()
    real = shutil.which("git")
    # (the job runs `git -c core.quotePath=false COMMAND ...`: the command is after the -c)
    (wrapper / "git").write_text(f'#!/bin/sh\n"{real}" "$@"; rc=$?\n'
                                 f'cmd=$1; if [ "$1" = -c ]; then cmd=$3; fi\n'
                                 f'if [ "$cmd" = push ] && [ $rc = 0 ]; then kill -9 $PPID; fi\n'
                                 f'exit $rc\n')
    (wrapper / "git").chmod(0o755)
    return {"PATH": f"{wrapper}{os.pathsep}{os.environ.get('PATH', '')}"}


def test_a_job_killed_between_its_push_and_the_queue_is_repaired_by_the_next(tmp_path, origin):
    """Issue 28: a job killed after its push and before queueing the views left the players
    unnotified, and the next job, finding nothing to apply, queued nothing. The next job now
    queues the views of the pushed turn that were never queued (as `mail in` does), once."""
    pushes = merge_moves(tmp_path, origin, 1)
    clone = job_clone(tmp_path, origin, pushes[0][1], "job")
    queue = tmp_path / "mailq"
    extra = ["--queue", str(queue), "--referee", REFEREE]
    done = run_job(clone, *pushes[0], extra)
    assert done.returncode == 0 and "4 messages queued" in done.stdout, done.stderr
    push_next_move(tmp_path)
    env = {**bare_env(clone.parent / "home"), "REBIS_PBM_SEED": key(clone.parent)}
    killed = subprocess.run([*job_args(*pushes[0]), *extra], cwd=clone,
                            env={**env, **killed_after_push(tmp_path)}, capture_output=True,
                            text=True, timeout=180)
    assert killed.returncode == -9, killed.stdout + killed.stderr
    moves, _ = origin_record(tmp_path, origin)
    assert len(moves) == 2  # turn 2 is pushed ...
    assert len(list((queue / "new").iterdir())) == 4  # ... and its views were never queued
    again = run_job(clone, *pushes[0], extra)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "0 move(s) applied" in again.stdout
    assert "4 messages queued" in again.stdout and "never queued" in again.stdout
    assert len(list((queue / "new").iterdir())) == 8
    once_more = run_job(clone, *pushes[0], extra)
    assert once_more.returncode == 0 and "queued" not in once_more.stdout
    assert len(list((queue / "new").iterdir())) == 8


def test_views_are_queued_only_when_a_move_was_applied(tmp_path, origin):
    pushes = merge_moves(tmp_path, origin, 1)
    clone = job_clone(tmp_path, origin, pushes[0][1], "job")
    queue = tmp_path / "mailq"
    extra = ["--queue", str(queue), "--referee", REFEREE]
    done = run_job(clone, *pushes[0], extra)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 messages queued" in done.stdout
    assert len(list((queue / "new").iterdir())) == 4
    again = run_job(clone, *pushes[0], extra)
    assert again.returncode == 0 and "queued" not in again.stdout
    assert len(list((queue / "new").iterdir())) == 4
    # Nothing private entered the repository or origin.
    _, final = origin_record(tmp_path, origin)
    assert not [p for p in git(final, "ls-files").split() if p.startswith("game.views/")
                and not p.startswith("game.views/public.")]
