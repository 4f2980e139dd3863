"""Play through a git repository: examples/git/ copied into a real repository in a temporary
folder (the machine's git), three players committing their move files in turn, the job script
applying each commit with the seed from the environment (as from a CI secret), a forged move
refused, and a record that replays from its seed to the end."""

import os
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import click
import pytest
import yaml

from rebis_pbm.app import open_game
from rebis_pbm.engine import legal_moves
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.record import parse_record
from transport_support import PLAYERS, REPO, exe, illegal_card, new_args, pick_move, run, secret_key

SEED = "git-game"
REFEREE = ("Rebis referee", "referee@example.org")


def git(repo: Path, *args, author: tuple[str, str] | None = None) -> str:
    env = {**os.environ, "HOME": str(repo.parent), "GIT_CONFIG_NOSYSTEM": "1"}
    if author:
        env.update(GIT_AUTHOR_NAME=author[0], GIT_AUTHOR_EMAIL=author[1])
        # a host without a mail name cannot guess a committer: the author commits
        env.setdefault("GIT_COMMITTER_NAME", author[0])
        env.setdefault("GIT_COMMITTER_EMAIL", author[1])
    done = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


def key(repo: Path) -> str:
    """The game's secret (``SALT:SEED``), as the CI secret holds it."""
    return secret_key(repo.parent / "referee-only.secret.yaml")


def job(repo: Path, *args, seed: bool = True) -> subprocess.CompletedProcess:
    """The CI job as the workflow runs it: plain shell; the seed from the environment's secret
    (the referee job), or no seed at all (``seed=False``: a pull request's check)."""
    env = {**os.environ, "HOME": str(repo.parent), "GIT_CONFIG_NOSYSTEM": "1",
           "REBIS_PBM_SEED": key(repo), "REBIS_REFEREE_NAME": REFEREE[0],
           "REBIS_REFEREE_EMAIL": REFEREE[1],
           "PATH": f"{Path(exe()).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    if not seed:
        del env["REBIS_PBM_SEED"]
    command = ["git", "check", *args[1:]] if args and args[0] == "--check" else \
        ["git", "apply", *args]
    return subprocess.run([exe(), *command], cwd=repo, env=env, capture_output=True,
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
    monkeypatch.setenv("REBIS_PBM_SEED", key(repo))
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "-m", "Start the game")
    return repo


def played(game: Path) -> list:
    """The moves of the record as replayed with the seed (the record seals closing cards)."""
    return [move for move, _ in open_game(game)[1].history]


def tracked(repo: Path, commit="HEAD") -> set[str]:
    return set(git(repo, "ls-tree", "-r", "--name-only", commit).split())


def commit_move(repo: Path, player: str, move, message: str, *, as_player: str | None = None,
                after: bool = False):
    """``as_player`` commits it (default: the move's own player); ``after``: the move names the
    history it answers, the record's last chain digest (rebis-pbm/4, required of a signed
    player)."""
    sender = as_player or player
    path = repo / "moves" / f"turn-{move.turn:03d}-{player}.yaml"
    named = ({"after": parse_record((repo / "game.yaml").read_bytes(), "game.yaml").last_digest()}
             if after else {})
    path.write_text(dump_yaml({"game": "gitgame", **named, **move.as_dict()}))
    git(repo, "add", str(path.relative_to(repo)))
    git(repo, "commit", "--quiet", "-m", message, author=(sender, PLAYERS[sender]))


def test_the_repository_holds_the_record_and_public_view_only(repo):
    assert tracked(repo) == {".github/workflows/rebis-referee.yml", ".github/CODEOWNERS",
                             ".gitignore", "README.md", ".gitlab-ci.yml", "moves/.gitkeep",
                             "game.yaml",
                             "game.views/public.yaml", "game.views/public.txt"}
    # The private views `new` wrote beside the record are ignored, as a seed file would be.
    assert (repo / "game.views" / "alice.yaml").exists()
    ignored = git(repo, "check-ignore", "game.views/alice.yaml", "game.secret.yaml")
    assert ignored.split() == ["game.views/alice.yaml", "game.secret.yaml"]


def test_git_add_all_in_a_players_clone_never_commits_what_play_writes_beside_it(repo):
    """The thirteenth tester's finding 3: `rebis-pbm play` writes into the folder it is run in
    (a clone's top, or a shard game's folder) the secret join text of a two-round fair deal, a
    command line and a move with its signature, plain or sealed; `git add -A` commits none of
    them, while the files a player commits under moves/ and commands/ stay addable (a private
    repository takes plain moves), and the lines docs/git.md adds for a public repository still
    keep a plain move out of moves/."""
    from rebis_pbm.files.names import command_file_name, join_text_file_name, move_file_name
    kept = [join_text_file_name("gitgame", "alice"), f"games/a/{join_text_file_name('g', 'bob')}",
            command_file_name("gitgame", "alice"), command_file_name("gitgame", "alice") + ".sig",
            *(move_file_name(7, "alice") + suffix for suffix in ("", ".sig", ".age", ".sig.age")),
            f"games/a/{move_file_name(7, 'bob')}"]
    committed = [f"moves/{move_file_name(7, 'alice')}", f"moves/{move_file_name(7, 'alice')}.sig",
                 "commands/alice-1.txt", "commands/alice-command.txt",
                 "commands/alice-command.txt.sig", f"games/a/moves/{move_file_name(7, 'bob')}",
                 "games/a/commands/bob-command.txt",
                 f"moves/old/{move_file_name(1, 'alice')}"]  # (which the job refuses, clearly)
    for name in kept + committed:
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text("x\n")
    git(repo, "add", "-A")
    staged = set(git(repo, "diff", "--cached", "--name-only").split())
    assert staged == set(committed)
    git(repo, "reset", "--quiet")
    with (repo / ".gitignore").open("a") as ignore:  # docs/git.md, "A public repository"
        ignore.write("moves/*.yaml\nmoves/*.sig\n")
    (repo / "moves" / f"{move_file_name(7, 'alice')}.age").write_text("x\n")
    git(repo, "add", "-A")
    staged = set(git(repo, "diff", "--cached", "--name-only").split())
    assert f"moves/{move_file_name(7, 'alice')}" not in staged
    assert f"moves/{move_file_name(7, 'alice')}.sig" not in staged
    assert f"moves/{move_file_name(7, 'alice')}.age" in staged


def test_a_whole_game_through_git_commits(repo):
    before = git(repo, "rev-parse", "HEAD").strip()
    applied = []
    while True:
        state = open_game(repo / "game.yaml")[1].state
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
            # A pull request's check, without the seed: nothing is written or committed.
            commit_move(repo, mover, move, "my move (for review)")
            head, record_before = git(repo, "rev-parse", "HEAD"), (repo / "game.yaml").read_bytes()
            checked = job(repo, "--check", "HEAD", seed=False)
            assert checked.returncode == 0, checked.stderr
            assert "1 move file(s) checked" in checked.stdout
            assert "nothing committed" in checked.stdout
            assert git(repo, "rev-parse", "HEAD") == head
            assert (repo / "game.yaml").read_bytes() == record_before
        else:
            commit_move(repo, mover, move, f"turn {move.turn}")
        done = job(repo, f"{before}..HEAD")
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"turn-{move.turn:03d}-{mover}.yaml" in done.stdout
        assert "rebis-pbm git: 1 move(s) applied\n" in done.stdout
        applied.append(move)
        # The job committed the record and the public view, as the referee, and nothing else.
        author = git(repo, "log", "-1", "--format=%an <%ae>").strip()
        assert author == f"{REFEREE[0]} <{REFEREE[1]}>"
        changed = set(git(repo, "show", "--name-only", "--format=", "HEAD").split())
        assert changed == {"game.yaml", "game.views/public.yaml", "game.views/public.txt"}
        assert played(repo / "game.yaml") == applied
        before = git(repo, "rev-parse", "HEAD").strip()

    assert open_game(repo / "game.yaml")[1].state.finished
    assert played(repo / "game.yaml") == applied and len(applied) == 10
    assert {m.player for m in applied} == set(PLAYERS)
    # The record as committed verifies on its own: the last move revealed the seed.
    verified = run("verify", repo / "game.yaml", env={"REBIS_PBM_SEED": ""})
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.startswith(b"Verified: game gitgame (")
    assert b", 10 move" in verified.stdout
    # The public view in the repository is the final one; no commit ever held a private view or
    # a seed file, and the seed entered the history only with the game's last move.
    assert "The game is over." in (repo / "game.views" / "public.txt").read_text()
    for commit in git(repo, "rev-list", "--all").split():
        assert not {f for f in tracked(repo, commit)
                    if f.endswith(".secret.yaml") or (f.startswith("game.views/")
                    and not f.startswith("game.views/public."))}
    revealing = git(repo, "log", "--all", "--format=%H", f"-Sseed: {SEED}").split()
    assert revealing == [git(repo, "rev-parse", "HEAD").strip()]


def test_a_move_sent_twice_is_applied_once(repo):
    state = open_game(repo / "game.yaml")[1].state
    commit_move(repo, "alice", pick_move(state), "turn 1")
    assert job(repo, "HEAD").returncode == 0
    head = git(repo, "rev-parse", "HEAD")
    # The same commit again (a re-run of the CI job): nothing changes, nothing is committed,
    # and the job does not count it as applied.
    again = job(repo, "HEAD~1")
    assert again.returncode == 0, again.stderr
    assert "Turn 1 by alice was already applied" in again.stdout
    assert ("rebis-pbm git: 0 move(s) applied, 1 already in the record (resent: nothing changed)"
            in again.stdout)
    assert git(repo, "rev-parse", "HEAD") == head


def test_an_illegal_move_fails_the_job_with_the_reason(repo):
    state = open_game(repo / "game.yaml")[1].state
    move = pick_move(state)
    path = repo / "moves" / "turn-001-alice.yaml"
    text = dump_yaml({"game": "gitgame", **move.as_dict()})
    path.write_text(text.replace(f"cards: {move.play.cards[0]}",
                                 f"cards: {illegal_card(state)}"))
    git(repo, "add", "moves")
    git(repo, "commit", "--quiet", "-m", "oops", author=("alice", PLAYERS["alice"]))
    record_before = (repo / "game.yaml").read_bytes()
    refused = job(repo, "HEAD")
    assert refused.returncode == 1
    assert "moves/turn-001-alice.yaml: move rejected:" in refused.stderr
    assert (repo / "game.yaml").read_bytes() == record_before


def test_a_busy_record_fails_the_job_with_75_not_as_a_refused_move(repo, monkeypatch):
    """Another command holding the record's lock is not the move's fault: exit 75 (try again
    later), said so, nothing changed; the same job run again applies the move."""
    from rebis_pbm.files.lock import locked
    commit_move(repo, "alice", pick_move(open_game(repo / "game.yaml")[1].state), "turn 1")
    record_before, head = (repo / "game.yaml").read_bytes(), git(repo, "rev-parse", "HEAD")
    monkeypatch.setenv("REBIS_PBM_LOCK_TIMEOUT", "0.2")
    with locked(repo / "game.yaml"):
        busy = job(repo, "HEAD")
    assert busy.returncode == 75, busy.stderr
    assert "another rebis-pbm command is updating" in busy.stderr
    assert ("rebis-pbm git: moves/turn-001-alice.yaml (commit" in busy.stderr
            and "was not applied: the record was busy; nothing changed, run the job again"
            in busy.stderr and "refused" not in busy.stderr)
    assert (repo / "game.yaml").read_bytes() == record_before
    assert git(repo, "rev-parse", "HEAD") == head and git(repo, "status", "--porcelain") == ""
    again = job(repo, "HEAD")
    assert again.returncode == 0 and "1 move(s) applied" in again.stdout


def test_a_committed_seed_stops_the_job(repo, tmp_path):
    shutil.copy(tmp_path / "referee-only.secret.yaml", repo / "game.secret.yaml")
    git(repo, "add", "--force", "game.secret.yaml")
    git(repo, "commit", "--quiet", "-m", "oops")
    result = job(repo, "HEAD")
    assert result.returncode == 2 and "game.secret.yaml is committed" in result.stderr


def test_a_bad_revision_is_a_usage_error(repo):
    result = job(repo, "no-such-branch")
    assert result.returncode == 2 and "give a commit, or a range OLD..NEW" in result.stderr


def commit_file(repo: Path, name: str, text: str, author: str = "alice") -> None:
    """Commit ``text`` as ``moves/NAME`` (any name, spaces and line breaks included)."""
    path = repo / "moves" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    git(repo, "add", "--", str(path.relative_to(repo)))
    git(repo, "commit", "--quiet", "-m", "a move", author=(author, PLAYERS[author]))


def first_move_text(repo: Path) -> str:
    return dump_yaml({"game": "gitgame", **pick_move(open_game(repo / "game.yaml")[1].state)
                      .as_dict()})


@pytest.mark.parametrize("name, words", [
    ("turn 001 alice.yaml", "its name holds a space or another character"),
    ("turn-001-alice.yaml\nnotes", "its name holds a space or another character"),
    ("notes.txt", "this is not a move file's name"),
    ("turn-001-alice.yml", "this is not a move file's name"),
    ("old/turn-001-alice.yaml", "it is in a folder inside moves/"),
])
def test_a_file_in_moves_that_is_not_named_as_a_move_stops_the_job_clearly(repo, name, words):
    commit_file(repo, name, first_move_text(repo))
    head, record_before = git(repo, "rev-parse", "HEAD"), (repo / "game.yaml").read_bytes()
    for args, seed in ((("HEAD~1..HEAD",), True), (("--check", "HEAD"), False)):
        result = job(repo, *args, seed=seed)
        assert result.returncode == 2, result.stdout + result.stderr
        assert words in result.stderr
        assert "each named moves/turn-NNN-PLAYER.yaml" in result.stderr
        assert "fatal:" not in result.stderr  # git never got a broken-up name
        assert (repo / "game.yaml").read_bytes() == record_before
        assert git(repo, "rev-parse", "HEAD") == head


@pytest.mark.parametrize("name", ["turn-002-alice.yaml", "turn-001-bob.yaml", "turn-01-alice.yaml",
                                  "turn-0001-alice.yaml"])
def test_a_move_file_named_for_another_turn_or_player_is_refused(repo, name):
    commit_file(repo, name, first_move_text(repo))  # turn 1 by alice, whatever the name says
    record_before = (repo / "game.yaml").read_bytes()
    for args, seed in ((("HEAD",), True), (("--check", "HEAD"), False)):
        result = job(repo, *args, seed=seed)
        if name == "turn-002-alice.yaml" and seed:
            # The job judges a file when its name's turn comes; until then it waits (the
            # pull request's check, which reads no state, says what is wrong at once).
            assert result.returncode == 0, result.stdout + result.stderr
            assert (f"moves/{name}: waits for turn 2 (the record's next turn is 1)"
                    in result.stdout)
            continue
        assert result.returncode == 2, result.stdout + result.stderr
        assert (f"moves/{name}: this file holds the move of turn 1 by alice, so it must be "
                f"named turn-001-alice.yaml") in result.stderr
        assert (repo / "game.yaml").read_bytes() == record_before


def test_the_first_push_of_a_branch_takes_every_commit_from_the_first(repo):
    """CI gives 40 zeros as the "before" of a branch's first push."""
    commit_file(repo, "turn-001-alice.yaml", first_move_text(repo))
    done = job(repo, f"{'0' * 40}..HEAD")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rebis-pbm git: 1 move(s) applied\n" in done.stdout
    assert len(played(repo / "game.yaml")) == 1
    assert git(repo, "log", "-1", "--format=%s").strip() == \
        "Apply moves/turn-001-alice.yaml from alice@example.org"
    # The same push seen again from the start: nothing more to apply.
    again = job(repo, f"{'0' * 40}..HEAD")
    assert again.returncode == 0 and "0 move(s) applied, 1 already in the record" in again.stdout


def test_a_merged_pull_request_is_applied_as_its_commits_author(repo):
    """The documented flow: alice's move on a branch, merged into main with a merge commit by
    someone else; the job attributes the move to alice's commit, not to the merge."""
    start = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "switch", "--quiet", "-c", "alice-turn-1")
    commit_file(repo, "turn-001-alice.yaml", first_move_text(repo))
    checked = job(repo, "--check", f"{start}..HEAD", seed=False)
    assert checked.returncode == 0 and "1 move file(s) checked" in checked.stdout
    git(repo, "switch", "--quiet", "main")
    git(repo, "merge", "--quiet", "--no-ff", "-m", "Merge alice's move", "alice-turn-1",
        author=("bob", PLAYERS["bob"]))
    done = job(repo, f"{start}..HEAD")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "moves/turn-001-alice.yaml" in done.stdout and "alice@example.org" in done.stdout
    assert "1 move(s) applied" in done.stdout and len(played(repo / "game.yaml")) == 1


def test_a_pull_request_counts_as_its_files_stand_at_its_last_commit(repo):
    """A pull request whose first commit misnamed the move and whose second renamed it: the
    merged push holds only the right name, and that is what the job applies."""
    start = git(repo, "rev-parse", "HEAD").strip()
    commit_file(repo, "turn 001 alice.yaml", first_move_text(repo))
    git(repo, "mv", "moves/turn 001 alice.yaml", "moves/turn-001-alice.yaml")
    git(repo, "commit", "--quiet", "-m", "rename", author=("alice", PLAYERS["alice"]))
    done = job(repo, f"{start}..HEAD")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 move(s) applied" in done.stdout and len(played(repo / "game.yaml")) == 1


def test_the_moves_of_one_push_are_applied_in_turn_order(repo):
    from rebis_pbm.engine import apply_move

    start = git(repo, "rev-parse", "HEAD").strip()
    state = open_game(repo / "game.yaml")[1].state
    first = pick_move(state)
    second = pick_move(apply_move(state, first)[0])
    commit_move(repo, "bob", second, "bob's move, pushed first")
    commit_move(repo, "alice", first, "alice's move, pushed second")
    done = job(repo, f"{start}..HEAD")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.index("turn-001-alice") < done.stdout.index("turn-002-bob")
    assert played(repo / "game.yaml") == [first, second]
    assert "rebis-pbm git: 2 move(s) applied\n" in done.stdout


def test_the_check_of_a_pull_request_refuses_to_run_with_the_seed(repo):
    commit_file(repo, "turn-001-alice.yaml", first_move_text(repo))
    result = job(repo, "--check", "HEAD", seed=True)
    assert result.returncode == 2
    assert "a check runs without the seed, but REBIS_PBM_SEED is set" in result.stderr


def test_the_check_of_a_pull_request_needs_no_seed_and_checks_the_author(repo):
    commit_file(repo, "turn-001-alice.yaml", first_move_text(repo), author="carol")
    result = job(repo, "--check", "HEAD", seed=False)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "this move is for alice, but it comes from carol@example.org (carol)" in result.stderr
    assert "would be refused" in result.stderr


# --- the workflow: only code from the protected main branch ever gets the seed ---------------

WORKFLOW = REPO / "examples/git/.github/workflows/rebis-referee.yml"


def workflow() -> dict:
    import yaml

    return yaml.safe_load(WORKFLOW.read_text())


def test_the_workflow_runs_the_referee_for_pushes_to_main_and_checks_pull_requests():
    flow = workflow()
    triggers = flow[True]  # PyYAML reads the key `on` as true (YAML 1.1)
    # pull_request_target and workflow_run would run from main with a pull request's content.
    assert triggers == {"push": {"branches": ["main"], "paths": ["moves/**", "commands/**"]},
                        "pull_request": {"paths": ["moves/**", "commands/**"]}}
    assert flow["permissions"] == {"contents": "read"}
    referee = flow["jobs"]["referee"]
    assert referee["if"] == "github.event_name == 'push' && github.ref == 'refs/heads/main'"
    assert referee["concurrency"]["cancel-in-progress"] is False  # moves are applied in order
    runs = {s.get("name"): s.get("run", "") for s in referee["steps"]}
    publish = runs["Apply the new moves and publish the record"]
    assert publish.startswith('rebis-pbm git apply "$BEFORE..$GITHUB_SHA" --remote origin '
                              '--branch main')
    check = flow["jobs"]["check"]
    assert check["if"] == "github.event_name == 'pull_request'"
    assert 'rebis-pbm git check "$BASE..$HEAD"' in \
        {s.get("name"): s.get("run", "") for s in check["steps"]}[
            "Check the pull request's move files (without the seed; nothing is committed)"]


def test_only_the_referee_job_sees_secrets_and_only_through_the_main_only_environment():
    import yaml

    flow = workflow()
    referee, check = flow["jobs"]["referee"], flow["jobs"]["check"]
    # The environment's deployment branches are main only (docs/git.md): its secrets reach no
    # run from another branch, a pull request or a fork.
    assert referee["environment"] == "rebis-referee"
    # The seed only in the one step that needs it, not in the install steps.
    with_seed = [s for s in referee["steps"] if "REBIS_PBM_SEED" in yaml.safe_dump(s)]
    assert [s["name"] for s in with_seed] == ["Apply the new moves and publish the record"]
    assert with_seed[0]["env"]["REBIS_PBM_SEED"] == "${{ secrets.REBIS_PBM_SEED }}"
    assert "REBIS_PBM_SEED" not in yaml.safe_dump(referee["env"])
    assert "secrets." not in yaml.safe_dump(check) and "environment" not in check
    assert "REBIS_PBM_SEED" not in yaml.safe_dump(check)
    checkout = next(s for s in check["steps"] if s.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["persist-credentials"] is False
    outside = {k: v for k, v in flow.items() if k != "jobs"}
    assert "secrets." not in yaml.safe_dump(outside)


def install_steps() -> list[str]:
    flow = workflow()
    return [s["run"] for job_ in flow["jobs"].values() for s in job_["steps"]
            if "pip install" in s.get("run", "")]


def run_install(tmp_path, commit: str) -> tuple[subprocess.CompletedProcess, str]:
    """The install step as CI runs it, with a stand-in ``python`` that records its arguments."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    log = tmp_path / "python-args"
    (bin_dir / "python").write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{log}"\n')
    (bin_dir / "python").chmod(0o755)
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "REBIS_PBM_GIT": "https://git.example.org/rebis-pbm.git", "REBIS_PBM_COMMIT": commit}
    done = subprocess.run(["sh", "-e", "-c", install_steps()[0]], env=env, capture_output=True,
                          text=True, timeout=60)
    return done, log.read_text() if log.exists() else ""


def test_rebis_pbm_is_installed_from_git_at_one_commit_never_by_name_from_an_index(tmp_path):
    steps = install_steps()
    # The check job, the referee job and the pages job, each the same pinned install.
    assert len(steps) == 3 and steps[0] == steps[1] == steps[2]
    assert workflow()["env"]["REBIS_PBM_COMMIT"] == "0" * 40  # to be set by the referee
    commit = "0123456789abcdef0123456789abcdef01234567"
    done, args = run_install(tmp_path, commit)
    assert done.returncode == 0, done.stderr
    assert args.splitlines() == [
        "-m", "pip", "install", f"rebis-pbm @ git+https://git.example.org/rebis-pbm.git@{commit}"]


@pytest.mark.parametrize("commit", ["0" * 40, "", "main", "v0.1.0", "0123456789abcdef",
                                    "0123456789ABCDEF0123456789ABCDEF01234567",
                                    "0123456789abcdef0123456789abcdef012345678"])
def test_the_install_step_refuses_anything_but_a_full_commit_id(tmp_path, commit):
    done, args = run_install(tmp_path, commit)
    assert done.returncode == 2 and args == ""
    assert "must be the full 40-hex id of the rebis-pbm commit to install" in done.stderr


def test_code_owners_review_every_change_but_move_files():
    rules = [line.split() for line in
             (REPO / "examples/git/.github/CODEOWNERS").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    # The last matching pattern wins: moves/ and commands/ have no owner, everything else
    # (answers/ included) is the referee's.
    assert rules == [["*", "@REFEREE"], ["/moves/"], ["/commands/"]]


def test_the_guide_names_the_workflows_environment_and_has_players_push_branches_not_main():
    import re

    guide = (REPO / "docs" / "git.md").read_text()
    assert f"`{workflow()['jobs']['referee']['environment']}`" in guide
    steps = re.search(r"## What a player does each turn\n\n```sh\n(.*?)```", guide, re.S).group(1)
    pushes = [line.split("#")[0] for line in steps.splitlines() if line.startswith("git push")]
    assert pushes and not any(re.search(r"\bmain\b", line) for line in pushes)


# --- the CI examples run real commands ------------------------------------------------------

GITLAB = REPO / "examples/git/.gitlab-ci.yml"


def example_commands() -> list[list[str]]:
    """Every ``rebis-pbm ...`` command line in the GitHub and GitLab examples, as words."""
    import shlex

    import yaml

    lines = []
    for job_ in workflow()["jobs"].values():
        lines += [s.get("run", "") for s in job_["steps"]]
    gitlab = yaml.safe_load(GITLAB.read_text())
    for job_ in gitlab.values():
        if isinstance(job_, dict):
            lines += job_.get("script", []) + job_.get("before_script", [])
    commands = []
    for text in lines:
        text = text.replace("\\\n", " ")
        for part in re.split(r"[;\n]|\bthen\b", text):
            words = shlex.split(part, comments=True)
            if "rebis-pbm" in words:
                commands.append(words[words.index("rebis-pbm") + 1:])
    return commands


def test_the_ci_examples_parse_and_run_only_real_commands_and_options():
    from rebis_pbm.cli import cli

    commands = example_commands()
    used = {tuple(c[:2]) for c in commands}
    assert {("git", "check"), ("git", "apply"), ("mail", "out"), ("site", "game.yaml")} <= used
    for words in commands:
        command = cli.get_command(None, words[0])
        rest = words[1:]
        if isinstance(command, click.Group):  # git apply, mail out: a command of a group
            command, rest = command.get_command(None, words[1]), words[2:]
        assert command is not None, words
        known = {o for p in command.params for o in p.opts}
        for word in rest:
            if word.startswith("--"):
                assert word.split("=")[0] in known, f"{words[:2]}: no option {word}"
    helped = subprocess.run([exe(), "git", "apply", "--help"], capture_output=True, text=True)
    assert helped.returncode == 0 and "--remote" in helped.stdout


def test_the_gitlab_example_serialises_the_referee_and_keeps_the_seed_from_merge_requests():
    import yaml

    gitlab = yaml.safe_load(GITLAB.read_text())
    referee, check = gitlab["referee"], gitlab["check"]
    assert referee["resource_group"] == "rebis-referee"
    assert referee["environment"] == "rebis-referee"
    assert referee["rules"][0]["if"] == \
        '$CI_PIPELINE_SOURCE == "push" && $CI_COMMIT_BRANCH == "main"'
    assert "REBIS_PBM_SEED" not in yaml.safe_dump(check)
    # The seed and the referee's age identity leave the environment before anything is
    # installed, and only `git apply` gets them back.
    first, second = gitlab["default"]["before_script"][:2]
    assert first == "seed=${REBIS_REFEREE_SEED:-}; unset REBIS_REFEREE_SEED"
    assert second == "identity=${REBIS_REFEREE_AGE_IDENTITY:-}; unset REBIS_REFEREE_AGE_IDENTITY"
    assert "REBIS_PBM_AGE_IDENTITY" not in yaml.safe_dump(check)
    seeded = [line for line in referee["script"] if "REBIS_PBM_SEED" in line]
    assert len(seeded) == 1 and seeded[0].startswith(
        "REBIS_PBM_SEED=$seed REBIS_PBM_AGE_IDENTITY=$identity rebis-pbm git apply")
    assert sum("REBIS_PBM_AGE_IDENTITY" in line for line in referee["script"]) == 1


# --- signed moves: the signature committed beside the move (docs/git.md) ----------------------

def signed_game(tmp_path: Path) -> tuple[Path, Path, str, object]:
    """A game through git where alice registered a key: (the repository, her private key
    file, ssh-keygen, the state before turn 1)."""
    keygen = shutil.which("ssh-keygen")
    if keygen is None:
        pytest.skip("ssh-keygen (openssh-client) is not installed; .ci/run installs it")
    repo = tmp_path / "rebis-game"
    shutil.copytree(REPO / "examples" / "git", repo)
    git(repo, "init", "--quiet", "--initial-branch=main")
    key_file = tmp_path / "alice_key"
    subprocess.run([keygen, "-q", "-t", "ed25519", "-N", "", "-f", str(key_file)], check=True)
    made = run(*new_args(repo / "game.yaml", SEED, "gitgame"), "--key", f"alice={key_file}.pub")
    assert made.returncode == 0, made.stderr
    shutil.move(repo / "game.secret.yaml", tmp_path / "referee-only.secret.yaml")
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "-m", "Start the game", author=REFEREE)
    os.environ["REBIS_PBM_SEED"] = key(repo)
    try:
        state = open_game(repo / "game.yaml")[1].state
    finally:
        del os.environ["REBIS_PBM_SEED"]
    return repo, key_file, keygen, state


def test_a_move_is_applied_with_its_signature_committed_beside_it_and_refused_without(tmp_path):
    """alice registered a key: a commit in her name without her signature (carol forging the
    author) is refused; her move with moves/turn-001-alice.yaml.sig is applied."""
    repo, key_file, keygen, state = signed_game(tmp_path)
    # carol commits a move for alice with alice's name and address as the author: git takes it
    commit_move(repo, "alice", pick_move(state), "turn 1", after=True)
    before = (repo / "game.yaml").read_bytes()
    forged = job(repo, "HEAD")
    assert forged.returncode == 1
    assert "no signature came with it" in forged.stderr
    assert (repo / "game.yaml").read_bytes() == before
    move_path = repo / "moves" / "turn-001-alice.yaml"
    subprocess.run([keygen, "-q", "-Y", "sign", "-f", str(key_file), "-n", "rebis-pbm",
                    str(move_path)], check=True, capture_output=True)
    git(repo, "add", "moves")
    git(repo, "commit", "--quiet", "-m", "turn 1, signed", author=("alice", PLAYERS["alice"]))
    signed = job(repo, "HEAD")
    assert signed.returncode == 0, signed.stderr
    assert "1 move(s) applied" in signed.stdout
    assert run("verify", repo / "game.yaml", env={"REBIS_PBM_SEED": ""}).returncode == 0


def test_the_check_refuses_an_unsigned_move_of_a_player_who_registered_a_key(tmp_path):
    """Issue 27: `git check` passed alice's move without her signature, which the job then
    refused: the check refuses it as apply does, and one signed by another key; her own
    signature passes."""
    repo, key_file, keygen, state = signed_game(tmp_path)
    before = git(repo, "rev-parse", "HEAD").strip()
    commit_move(repo, "alice", pick_move(state), "turn 1")
    unsigned = job(repo, "--check", f"{before}..HEAD", seed=False)
    assert unsigned.returncode == 1, unsigned.stdout + unsigned.stderr
    assert "alice registered a key, so their moves must be signed" in unsigned.stderr
    assert "moves/turn-001-alice.yaml (commit " in unsigned.stderr
    assert "would be refused" in unsigned.stderr
    move_path = repo / "moves" / "turn-001-alice.yaml"
    other_key = tmp_path / "carol_key"
    subprocess.run([keygen, "-q", "-t", "ed25519", "-N", "", "-f", str(other_key)], check=True)
    for signer, code in ((other_key, 1), (key_file, 0)):
        Path(f"{move_path}.sig").unlink(missing_ok=True)
        subprocess.run([keygen, "-q", "-Y", "sign", "-f", str(signer), "-n", "rebis-pbm",
                        str(move_path)], check=True, capture_output=True)
        git(repo, "add", "moves")
        git(repo, "commit", "--quiet", "-m", "turn 1, signed", author=("alice", PLAYERS["alice"]))
        checked = job(repo, "--check", f"{before}..HEAD", seed=False)
        assert checked.returncode == code, checked.stdout + checked.stderr
        assert ("its signature does not check against alice's key" in checked.stderr) \
            == (signer == other_key)
    assert "1 move file(s) checked" in checked.stdout


def test_a_refused_move_skips_neither_the_mail_step_nor_the_game_page():
    """A refused move file fails the referee step once every other move is pushed (docs/git.md,
    "A public repository"): the views queued for those moves are still mailed, and the game
    page still published, on GitHub and on GitLab; a pull request still deploys nothing."""
    import yaml

    flow = workflow()
    mail = next(s for s in flow["jobs"]["referee"]["steps"]
                if s.get("name") == "Send each player their own view by e-mail")
    assert mail["if"] == "${{ !cancelled() && vars.REBIS_SMTP_HOST != '' }}"
    assert flow["jobs"]["pages"]["if"] == ("${{ !cancelled() && github.event_name == 'push' && "
                                           "github.ref == 'refs/heads/main' }}")
    script = yaml.safe_load(GITLAB.read_text())["referee"]["script"]
    applying = next(i for i, line in enumerate(script) if "rebis-pbm git apply" in line)
    assert script[applying - 1] == "status=0" and script[applying].rstrip().endswith(
        "|| status=$?")
    assert "rebis-pbm mail out" in script[applying + 1] and script[-1] == 'exit "$status"'


# --- a fair deal through git: the joins as turn 0 (docs/git.md) -------------------------------

def test_a_fair_deal_through_git_takes_each_join_as_turn_0_then_deals(tmp_path, monkeypatch):
    """Without --referee-deal the game waits for joins: each player commits
    moves/turn-000-NAME.yaml with entropy of their own; the job applies each join in its
    author's name (a join named for another player is refused), and the last one deals, after
    which turn 1 is played as usual."""
    repo = tmp_path / "rebis-game"
    shutil.copytree(REPO / "examples" / "git", repo)
    git(repo, "init", "--quiet", "--initial-branch=main")
    git(repo, "config", "user.name", REFEREE[0])
    git(repo, "config", "user.email", REFEREE[1])
    args = [a for a in new_args(repo / "game.yaml", SEED, "fairgame") if a != "--referee-deal"]
    args += ["--record-format", "rebis-pbm/4"]  # one round of joins (two: test_git_two_rounds)
    made = run(*args)
    assert made.returncode == 0, made.stderr
    shutil.move(repo / "game.secret.yaml", tmp_path / "referee-only.secret.yaml")
    monkeypatch.setenv("REBIS_PBM_SEED", key(repo))
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "-m", "Start the game")
    # carol commits a join in bob's name: refused, bob's seat still waits.
    (repo / "moves" / "turn-000-bob.yaml").write_text("game: fairgame\nplayer: bob\njoin: c\n")
    git(repo, "add", "moves")
    git(repo, "commit", "--quiet", "-m", "join", author=("carol", PLAYERS["carol"]))
    forged = job(repo, "HEAD~1..HEAD")
    assert forged.returncode != 0 and "Traceback" not in forged.stderr
    assert "bob" in yaml.safe_load((repo / "game.yaml").read_text()).get("players", [])
    assert not open_game(repo / "game.yaml").record.joins
    git(repo, "rm", "--quiet", "moves/turn-000-bob.yaml")
    git(repo, "commit", "--quiet", "-m", "remove")
    for name, entropy in (("alice", "a1"), ("bob", "b2"), ("carol", "c3")):
        (repo / "moves" / f"turn-000-{name}.yaml").write_text(
            f"game: fairgame\nplayer: {name}\njoin: {entropy}\n")
        git(repo, "add", "moves")
        git(repo, "commit", "--quiet", "-m", f"{name} joins", author=(name, PLAYERS[name]))
        done = job(repo, "HEAD~1..HEAD")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Traceback" not in done.stderr
        assert f"{name} joined the deal" in done.stdout and "Turn 0" not in done.stdout
    assert "every player has joined, the cards are dealt" in done.stdout
    record = open_game(repo / "game.yaml").record
    assert [j.player for j in record.joins] == ["alice", "bob", "carol"]
    assert not record.joining()  # the last join dealt
    state = open_game(repo / "game.yaml").replay.state
    move = pick_move(state)
    name = f"turn-001-{move.player}.yaml"
    (repo / "moves" / name).write_text(dump_yaml({"game": "fairgame", **move.as_dict()}))
    git(repo, "add", "moves")
    git(repo, "commit", "--quiet", "-m", "turn 1", author=(move.player, PLAYERS[move.player]))
    done = job(repo, "HEAD~1..HEAD")
    assert done.returncode == 0, done.stdout + done.stderr
    assert played(repo / "game.yaml") == [move]


def test_git_two_rounds_takes_commitments_then_joins_then_deals(tmp_path, monkeypatch):
    """rebis-pbm/5 (docs/shuffle.md, "Two rounds"): each player commits their commitment as
    moves/turn-000-NAME.yaml, then, once all are in, the join in the same file; a join
    committed in round 1 is refused; the last join deals."""
    from rebis_pbm.record.commitments import commitment_of

    repo = tmp_path / "rebis-game"
    shutil.copytree(REPO / "examples" / "git", repo)
    git(repo, "init", "--quiet", "--initial-branch=main")
    git(repo, "config", "user.name", REFEREE[0])
    git(repo, "config", "user.email", REFEREE[1])
    args = [a for a in new_args(repo / "game.yaml", SEED, "fairgame") if a != "--referee-deal"]
    made = run(*args)
    assert made.returncode == 0, made.stderr
    shutil.move(repo / "game.secret.yaml", tmp_path / "referee-only.secret.yaml")
    monkeypatch.setenv("REBIS_PBM_SEED", key(repo))
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "-m", "Start the game")

    def send(name: str, text: str) -> subprocess.CompletedProcess:
        (repo / "moves" / f"turn-000-{name}.yaml").write_text(text)
        git(repo, "add", "moves")
        git(repo, "commit", "--quiet", "-m", f"{name}: the deal", author=(name, PLAYERS[name]))
        return job(repo, "HEAD~1..HEAD")

    early = send("alice", "game: fairgame\nplayer: alice\njoin: a1\n")
    assert early.returncode != 0 and "first round" in early.stdout + early.stderr
    assert not open_game(repo / "game.yaml").record.joins
    for name in PLAYERS:
        done = send(name, f"game: fairgame\nplayer: {name}\n"
                          f"commitment: {commitment_of('fairgame', name, name + ' words')}\n")
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"{name} sent their commitment" in done.stdout
        if name != list(PLAYERS)[-1]:  # round 1 is said, as plain apply says it
            assert "round 1 of 2, the deal waits for the commitments of" in done.stdout
    # the last commitment: the job says round 2 (the joins) has begun, and whose it waits for
    assert (f"{name} sent their commitment; every commitment is in: round 2 of 2, the deal "
            f"waits for the joins of {', '.join(PLAYERS)}") in done.stdout
    record = open_game(repo / "game.yaml").record
    assert record.join_round() == 2
    after = record.joins[-1].chain_sha256
    for name in PLAYERS:
        done = send(name, f"game: fairgame\nplayer: {name}\nafter: {after}\n"
                          f"join: {name} words\n")
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"{name} joined the deal" in done.stdout
        if name != list(PLAYERS)[-1]:
            assert "; round 2 of 2, the deal waits for the joins of" in done.stdout
    assert "every player has joined, the cards are dealt" in done.stdout
    assert not open_game(repo / "game.yaml").record.joining()
    assert run("verify", repo / "game.yaml").returncode == 0


def _accented_repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A game repository (examples/git) of José, Zoë and Émile with their addresses, made by
    ``new``: the repository and the players' addresses."""
    players = {"José": "jose@example.org", "Zoë": "zoe@example.org", "Émile": "emile@example.org"}
    repo = tmp_path / "rebis-game"
    shutil.copytree(REPO / "examples" / "git", repo)
    git(repo, "init", "--quiet", "--initial-branch=main")
    git(repo, "config", "user.name", REFEREE[0])
    git(repo, "config", "user.email", REFEREE[1])
    made = run(*new_args(repo / "game.yaml", SEED, "gitgame", players=players))
    assert made.returncode == 0, made.stderr
    return repo, players


def test_players_with_accented_names_and_addresses_play_through_git(tmp_path, monkeypatch):
    # turn-001-José.yaml: the git transport's move file names take the schema's player names
    # (Latin letters with accents, NFC; movefiles.SAFE_NAME), in a rebis-pbm/5 record whose
    # keyed record digest holds the addresses under those names (docs/audit.md, "Canonical form")
    repo, players = _accented_repo(tmp_path)
    assert "format: rebis-pbm/6" in (repo / "game.yaml").read_text(encoding="utf-8")
    shutil.move(repo / "game.secret.yaml", tmp_path / "referee-only.secret.yaml")
    monkeypatch.setenv("REBIS_PBM_SEED", key(repo))
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "-m", "Start the game")
    applied = []
    while not (state := open_game(repo / "game.yaml")[1].state).finished:
        before = git(repo, "rev-parse", "HEAD").strip()
        mover, move = state.player_to_move, pick_move(state)
        assert mover in players
        path = repo / "moves" / f"turn-{move.turn:03d}-{mover}.yaml"
        path.write_text(dump_yaml({"game": "gitgame", **move.as_dict()}), encoding="utf-8")
        git(repo, "add", str(path.relative_to(repo)))
        git(repo, "commit", "--quiet", "-m", "my move", author=(mover, players[mover]))
        done = job(repo, f"{before}..HEAD")
        assert done.returncode == 0, done.stdout + done.stderr
        applied.append(move)
        assert played(repo / "game.yaml") == applied
    assert {m.player for m in applied} == set(players)
    # Each player's view (the referee's `view`, with the seed) and the public one name them.
    for name in players:
        shown = run("view", repo / "game.yaml", "--player", name,
                    env={"REBIS_PBM_SEED": key(repo)})
        assert shown.returncode == 0, shown.stderr
        own = shown.stdout.decode("utf-8")
        assert f"view of {name}" in own and "The game is over." in own
    assert "José" in (repo / "game.views" / "public.txt").read_text(encoding="utf-8")
    # The record verifies with the seed (the keyed record digest over the accented names'
    # addresses) and, the game over, on its own.
    for seed in (key(repo), ""):
        verified = run("verify", repo / "game.yaml", env={"REBIS_PBM_SEED": seed})
        assert verified.returncode == 0, verified.stdout + verified.stderr
        assert verified.stdout.startswith(b"Verified: game gitgame (")
    with_seed = run("verify", repo / "game.yaml", env={"REBIS_PBM_SEED": key(repo)})
    assert b"record_hmac" in with_seed.stdout and b"Not checked" not in with_seed.stdout


def test_move_file_names_take_the_schemas_player_names():
    # movefiles.SAFE_NAME: the characters of the schema's player names (NFC) and '.'
    from rebis_pbm.formats.schemas import defined_pattern
    from rebis_pbm.transports.git.movefiles import SAFE_NAME, name_fault
    player = defined_pattern("move", "player")
    for name in ("José", "Zoë", "Çağla", "Ŀuís", "Ạnh", "ana_b-2"):
        assert player.fullmatch(name) and SAFE_NAME.fullmatch(name), name
        assert name_fault(f"turn-001-{name}.yaml") is None, name
        assert name_fault(f"turn-001-{name}.yaml.sig") is None, name
    for c in map(chr, range(0x20, 0x2000)):  # every letter the schema takes, SAFE_NAME takes
        if player.fullmatch(f"a{c}"):
            assert SAFE_NAME.fullmatch(c), repr(c)
    # NFD (as macOS commits names) is taken in NFC, José's; a combining mark with no
    # precomposed letter stays one after NFC, and no move file's name holds it.
    decomposed = unicodedata.normalize("NFD", "José")
    assert decomposed != "José" and name_fault(f"turn-001-{decomposed}.yaml") is None
    assert name_fault("turn-001-Jose\u0324.yaml") is not None  # e + diaeresis below
    assert name_fault("turn-001-j\u043ese.yaml") is not None  # a Cyrillic o


def test_the_docs_local_set_up_gives_players_a_clone_of_main(repo, tmp_path):
    """docs/git.md, "Trying it on one machine", run as written after the referee's set-up: the
    bare repository's HEAD is main, so a player's clone checks out the game (a plain
    ``git init --bare`` names master, and the clone holds nothing)."""
    text = (REPO / "docs" / "git.md").read_text(encoding="utf-8")
    part = text[text.index("**Trying it on one machine**"):]
    start = part.index("```sh\n") + 6
    block = part[start:part.index("\n```", start)]
    assert "--initial-branch=main" in block
    env = {**os.environ, "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["bash", "-e", "-c", block], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    clone = tmp_path / "alice-game"
    assert (clone / "game.yaml").read_bytes() == (repo / "game.yaml").read_bytes()
    assert git(clone, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    # the job of the same section, in the referee's clone, with a move alice pushed
    state = open_game(repo / "game.yaml")[1].state
    move = pick_move(state)
    path = clone / "moves" / f"turn-{move.turn:03d}-{state.player_to_move}.yaml"
    path.write_text(dump_yaml({"game": "gitgame", **move.as_dict()}), encoding="utf-8")
    git(clone, "add", "moves")
    git(clone, "commit", "--quiet", "-m", "my move",
        author=(state.player_to_move, PLAYERS[state.player_to_move]))
    git(clone, "push", "--quiet", "origin", "main")
    applied = job(repo, "--remote", "origin")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    git(clone, "pull", "--quiet")
    assert played(clone / "game.yaml") == [move]


def test_git_apply_refreshes_the_private_views_the_referees_clone_keeps(repo):
    """`new` wrote each player's view beside the record (never committed); after `git apply`
    in the referee's clone they tell the game as it stands, as after `apply`, and the clone
    stays clean. A checkout without them (a CI runner's) gets none."""
    views = repo / "game.views"
    before = {p: (views / f"{p}.txt").read_bytes() for p in PLAYERS}
    state = open_game(repo / "game.yaml")[1].state
    move = pick_move(state)
    commit_move(repo, state.player_to_move, move, "my move")
    done = job(repo, "HEAD")
    assert done.returncode == 0, done.stdout + done.stderr
    for player in PLAYERS:
        now = (views / f"{player}.txt").read_bytes()
        shown = run("view", repo / "game.yaml", "--player", player)
        assert shown.returncode == 0, shown.stderr
        assert now == shown.stdout and now != before[player], player
        assert (views / f"{player}.txt").stat().st_mode & 0o777 == 0o600
    assert git(repo, "status", "--porcelain") == ""
    # a runner's checkout: no private view is written where none was
    for path in views.iterdir():
        if not path.name.startswith("public."):
            path.unlink()
    state = open_game(repo / "game.yaml")[1].state
    move = pick_move(state)
    commit_move(repo, state.player_to_move, move, "next move")
    assert job(repo, "HEAD").returncode == 0
    assert sorted(p.name for p in views.iterdir()) == ["public.txt", "public.yaml"]


def test_a_move_file_named_in_nfd_is_applied_as_its_players(tmp_path, monkeypatch):
    # macOS commits moves/turn-001-José.yaml with "e" and a combining accent (NFD): the name is
    # taken in NFC, as the players' names are, and the move is applied (never a stopped game).
    import unicodedata
    repo, players = _accented_repo(tmp_path)
    shutil.move(repo / "game.secret.yaml", tmp_path / "referee-only.secret.yaml")
    monkeypatch.setenv("REBIS_PBM_SEED", key(repo))
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "-m", "Start the game")
    state = open_game(repo / "game.yaml").replay.state
    mover, move = state.player_to_move, pick_move(state)
    assert mover == "José"
    name = unicodedata.normalize("NFD", f"turn-001-{mover}.yaml")
    assert name != f"turn-001-{mover}.yaml"
    (repo / "moves" / name).write_text(dump_yaml({"game": "gitgame", **move.as_dict()}),
                                       encoding="utf-8")
    git(repo, "add", "moves")
    git(repo, "commit", "--quiet", "-m", "my move", author=(mover, players[mover]))
    done = job(repo, "HEAD~1..HEAD")
    assert done.returncode == 0, done.stdout + done.stderr
    assert played(repo / "game.yaml") == [move]
