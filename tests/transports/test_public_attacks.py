"""A tester's attacks on a game in a public repository (docs/git.md, "A public repository"),
each performed on a real bare origin with the job run as CI runs it, and seen to fail:

- the docs' seal example followed inside the clone commits the plain move: `git check` refuses
  it, and the job never reads or applies it (it removes it unread) while the sealed move of
  the same turn is judged on its own;
- a garbage file jams every later job: a refused file is now removed in its refusal's commit
  (judged once), and a file for a later turn waits, unjudged, instead of being "refused" and
  then applied when its turn comes;
- a commit without an author address, a symbolic link, a sealed file named for no player: one
  public sentence each, naming the file;
- `git check` passes a sealed move named for another player;
- a wrong seed, a seed without its salt, a missing identity or a damaged record are the
  referee's set-up, not a refused move; no output shows the runner's absolute paths; an
  address with an invisible character is shown escaped; a refusal is said once.

One game is set up once and played forward through the phases (each phase a test, in order).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from test_git_job import bare_env, git
from test_public_game import GAME_ID, Table, job, my_view, send, set_up, status

from rebis_pbm import app as referee
from rebis_pbm.bots import GreedyBot
from rebis_pbm.crypto import age as encryption
from rebis_pbm.engine import apply_move
from rebis_pbm.engine.state import information_set
from rebis_pbm.formats.yaml_writer import dump_yaml
from transport_support import PLAYERS, run

pytestmark = pytest.mark.skipif(not (shutil.which("git") and shutil.which("ssh-keygen")),
                                reason="needs git and ssh-keygen (Debian: git, openssh-client; "
                                       ".ci/run installs them)")


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> Table:
    return set_up(tmp_path_factory.mktemp("public-attacks"))


def mover(table: Table) -> tuple[str, int]:
    now = status(table, "alice")
    return now["player"], now["turn"]


def others(name: str) -> list[str]:
    return [p for p in PLAYERS if p != name]


def commit_files(table: Table, who: str, files: dict[str, bytes | Path], *,
                 author: str | None = None, push: bool = True) -> str:
    """``who`` commits ``files`` (path under the clone -> content, or a Path: a symbolic link
    to it) as ``author`` (``'Name <address>'``; ``who``'s own address by default), pushes to
    main; returns the commit before."""
    clone = table.clone(who)
    git(clone, "pull", "--quiet", "--ff-only", "origin", "main")
    before = git(clone, "rev-parse", "HEAD")
    for rel, content in files.items():
        target = clone / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Path):
            target.symlink_to(content)
        else:
            target.write_bytes(content)
    git(clone, "add", "--", *files)
    env = {**bare_env(clone.parent / "home"), "GIT_COMMITTER_NAME": who,
           "GIT_COMMITTER_EMAIL": PLAYERS[who]}
    author = author or f"{who} <{PLAYERS[who]}>"
    git(clone, "commit", "--quiet", "-m", "a move", f"--author={author}", env=env)
    if push:
        git(clone, "push", "--quiet", "origin", "main")
    return before


def state_now(table: Table):
    """The whole state (the test holds the secret, as the referee does)."""
    os.environ["REBIS_PBM_SEED"] = table.secret
    try:
        return referee.open_game(table.clone("alice") / "game.yaml")[1].state
    finally:
        del os.environ["REBIS_PBM_SEED"]


def greedy(table: Table, name: str) -> dict:
    return {"game": GAME_ID, **GreedyBot().choose(my_view(table, name).state).as_dict()}


def tree(table: Table) -> set[str]:
    clone = table.clone("alice")
    git(clone, "pull", "--quiet", "--ff-only", "origin", "main")
    return set(git(clone, "ls-files", "moves").split())


def test_the_docs_seal_inside_the_clone_publishes_nothing_the_job_reads(table):
    """Finding 2: `rebis-pbm seal` inside the clone leaves the plain move and signature in
    moves/; `git add moves` commits them. The check refuses them; merged anyway, the job
    removes them unread and applies the sealed move of the same turn on its own."""
    name, turn = mover(table)
    clone = table.clone(name)
    file = f"turn-{turn:03d}-{name}.yaml"
    move = dump_yaml(greedy(table, name))
    (clone / "moves" / file).write_text(move)
    sealed = run("seal", f"moves/{file}", "--key", table.keys[name], cwd=clone)
    assert sealed.returncode == 0, sealed.stderr
    git(clone, "switch", "--quiet", "-c", "turn")
    git(clone, "add", "moves")
    git(clone, "commit", "--quiet", "-m", "my turn", author=name)
    checked = run("git", "check", "main..turn", cwd=clone, env={"REBIS_PBM_SEED": ""})
    assert checked.returncode == 2, checked.stdout
    assert (f"moves/{file}: this game is played in a public repository: seal the move "
            f"(rebis-pbm seal {file} --key KEY, outside your clone) and commit only {file}.age "
            f"and its .sig.age; never commit the plain move") in checked.stderr.decode()
    git(clone, "switch", "--quiet", "main")
    git(clone, "merge", "--quiet", "--ff-only", "turn")
    git(clone, "push", "--quiet", "origin", "main")
    done = job(table)
    assert done.returncode == 2
    assert f"Turn {turn}: " in done.stdout  # the sealed move, judged on its own
    for plain in (file, f"{file}.sig"):
        assert f"refused unread: moves/{plain}: this game is played in a public" in done.stderr
    assert move not in done.stdout + done.stderr
    assert tree(table) >= {f"moves/{file}.age", f"moves/{file}.sig.age"}
    assert not {f"moves/{file}", f"moves/{file}.sig"} & tree(table)


def test_bad_files_are_judged_once_and_jam_nothing(table):
    """Findings 3a, 3c, 6: garbage for a later turn (waits), another player's move sealed under
    this turn's name (misnamed), a sealed file committed without an author address, one named
    for no player and a symbolic link: each is refused once, in one public sentence where it
    names nothing the file holds (else in a refusal for its mover), and removed; the next job
    passes and applies the move."""
    name, turn = mover(table)
    first, second = others(name)
    t = f"{turn:03d}"
    # second's own move for a later turn, sealed under this turn's name: misnamed.
    plain = table.private(second) / "misnamed.yaml"
    plain.write_text(dump_yaml({"game": GAME_ID, "turn": turn + 3, "player": second,
                                "play": {"cards": 1, "shelf": second, "sign": "positive"}}))
    referee.seal_move(plain, [], table.keys[second], game=table.clone(second) / "game.yaml")
    commit_files(table, second, {f"moves/turn-{t}-{second}.yaml.age":
                                 Path(f"{plain}.age").read_bytes(),
                                 f"moves/turn-{t}-{second}.yaml.sig.age":
                                 Path(f"{plain}.sig.age").read_bytes()})
    commit_files(table, first, {"moves/turn-099-bob.yaml.age": b"garbage\n"}, push=False)
    commit_files(table, first, {f"moves/turn-{t}-{first}.yaml.age": b"garbage\n"},
                 author="x <>", push=False)
    commit_files(table, first, {f"moves/turn-{t}-dave.yaml.age": b"garbage\n"}, push=False)
    commit_files(table, first, {f"moves/turn-{t}-{name}.yaml.age": Path("../game.yaml")})
    done = job(table)
    said = done.stdout + done.stderr
    assert done.returncode != 0 and "--as" not in said
    assert "moves/turn-099-bob.yaml.age: waits for turn 99" in done.stdout
    assert f"turn {turn} by {second} was refused; the reason is in refusals/turn-{t}-" \
        f"{second}.txt.age; the job removed moves/turn-{t}-{second}.yaml.age" in done.stderr
    assert (f"moves/turn-{t}-{first}.yaml.age: commit ") in done.stderr
    assert "which changed it last, has no author address; commit the move with your " \
        "registered address as git user.email" in done.stderr
    assert (f"moves/turn-{t}-dave.yaml.age: dave is not a player of game {GAME_ID} "
            f"(players: ") in done.stderr
    assert (f"moves/turn-{t}-{name}.yaml.age (commit ") in done.stderr
    assert "this is a symbolic link, not a move file" in done.stderr
    for path in (f"turn-{t}-{second}", f"turn-{t}-{first}", f"turn-{t}-dave",
                 f"turn-{t}-{name}"):
        lines = [ln for ln in done.stderr.splitlines() if f"moves/{path}.yaml.age" in ln]
        assert len(lines) == 1, lines  # said once
    assert "has no key" not in said and str(table.root) not in said
    assert not [p for p in tree(table) if p.startswith(f"moves/turn-{t}-")]
    # The misnamed move's reason, for its mover only, gives the sealed name and no runner path.
    status(table, second)  # (a pull)
    note = table.clone(second) / f"refusals/turn-{t}-{second}.txt.age"
    reason = encryption.decrypt(note.read_bytes(), table.keys[second]).decode()
    assert f"so it must be named turn-{turn + 3:03d}-{second}.yaml.age" in reason
    assert str(table.root) not in reason
    # The same jobs again: nothing jams; the mover's move is applied.
    again = job(table)
    assert again.returncode == 0, again.stderr
    send(table, name, greedy(table, name))
    applied = job(table)
    assert applied.returncode == 0, applied.stderr
    assert f"Turn {turn}: " in applied.stdout and "waits for turn 99" in applied.stdout


def test_an_early_move_waits_for_its_turn_and_is_then_applied(table):
    """Finding 3d: a move for the next turn, sent before this turn is played, is neither
    refused nor applied: it waits; once this turn is played, the same job applies it."""
    name, turn = mover(table)
    state = state_now(table)
    chosen = GreedyBot().choose(my_view(table, name).state)
    now = {"game": GAME_ID, **chosen.as_dict()}
    after = apply_move(state, chosen)[0]  # what the test, holding the secret, knows will be
    assert not after.finished
    nxt = after.player_to_move
    early = {"game": GAME_ID,
             **GreedyBot().choose(information_set(after, after.to_move)).as_dict()}
    status(table, nxt)  # (a pull)
    send(table, nxt, early)
    waiting = job(table)
    assert waiting.returncode == 0, waiting.stderr
    assert f"turn-{turn + 1:03d}-{nxt}.yaml.age: waits for turn {turn + 1}" in waiting.stdout
    assert "refused" not in waiting.stdout + waiting.stderr
    status(table, name)
    send(table, name, now)
    both = job(table)
    assert both.returncode == 0, both.stderr
    assert f"Turn {turn}: " in both.stdout and f"Turn {turn + 1}: " in both.stdout
    assert not any(p.startswith("refusals/") and f"turn-{turn + 1:03d}" in p
                   for p in git(table.clone("alice"), "ls-files").split())


def test_another_player_overwriting_a_pending_move_changes_nothing(table):
    """Finding 3b: a pending sealed move and its signature overwritten by another player's
    commit are judged as their player committed them, applied, and restored."""
    name, turn = mover(table)
    file = send(table, name, greedy(table, name))
    clone = table.clone(name)
    sealed = {f"moves/{file}{s}": (clone / "moves" / f"{file}{s}").read_bytes()
              for s in (".age", ".sig.age")}
    vandal = others(name)[0]
    commit_files(table, vandal, {path: b"garbage\n" for path in sealed})
    done = job(table)
    assert done.returncode == 0, done.stderr
    assert f"Turn {turn}: " in done.stdout
    assert (f"moves/{file}.age: commit ") in done.stderr
    assert f"by {PLAYERS[vandal]} changed {name}'s move file or its signature; that change " \
        f"is not taken" in done.stderr
    status(table, name)
    for path, data in sealed.items():
        assert (clone / path).read_bytes() == data, path


def test_the_check_compares_a_sealed_files_name_with_its_author(table):
    """Finding 5 (and an address with a zero-width space, shown escaped): `git check` refuses a
    sealed move named for another player, and one from an address no player registered."""
    name, turn = mover(table)
    thief = others(name)[0]
    clone = table.clone(thief)
    file = f"moves/turn-{turn:03d}-{name}.yaml.age"
    before = commit_files(table, thief, {file: b"anything\n"}, push=False)
    checked = run("git", "check", f"{before}..HEAD", cwd=clone, env={"REBIS_PBM_SEED": ""})
    assert checked.returncode == 1
    assert (f"{file}: this move is for {name}, but it comes from {PLAYERS[thief]} ({thief}); a "
            f"player can only send their own moves") in checked.stderr.decode()
    git(clone, "reset", "--quiet", "--hard", before)
    spoof = PLAYERS[name].replace("@", "\u200b@")
    commit_files(table, thief, {file: b"anything\n"}, author=f"x <{spoof}>", push=False)
    checked = run("git", "check", f"{before}..HEAD", cwd=clone, env={"REBIS_PBM_SEED": ""})
    assert checked.returncode == 1
    shown = PLAYERS[name].replace("@", "\\u200b@")
    assert f"{shown} is not the address of any player" in checked.stderr.decode()
    git(clone, "reset", "--quiet", "--hard", before)


def test_the_referees_set_up_is_not_reported_as_a_refused_move(table):
    """Finding 6: a wrong seed, a seed without its salt, no identity, a damaged record: the
    job says the set-up is at fault, refuses and removes nothing, shows no runner path; a
    sealed move misnamed is told its right name with .yaml.age; then the right set-up applies
    the waiting move."""
    name, turn = mover(table)
    move = greedy(table, name)
    file = send(table, name, move)
    seed = table.secret.partition(":")[2]
    for secret, identity, words in ((seed, table.identity, "holds no salt"),
                                    (f"{'0' * 32}:{seed}", table.identity, "is not game"),
                                    (table.secret, "", "give the referee's age identity")):
        done = job(replace(table, secret=secret, identity=identity))
        said = done.stdout + done.stderr
        assert done.returncode == 2, said
        assert words in said and "refused" not in said
        assert f"the job stopped before judging moves/{file}.age" in done.stderr
        assert "/jobs/" not in said
    assert "SALT:SEED" in table.outputs[-3]
    assert f"moves/{file}.age" in tree(table)
    # A damaged record (an edited digest): exit 3, named as the repository has it.
    clone = table.clone(name)
    record = (clone / "game.yaml").read_text()
    at = record.index("header_sha256: ") + len("header_sha256: ")
    damaged = record[:at] + ("1" if record[at] == "0" else "0") + record[at + 1:]
    assert damaged != record
    (clone / "game.yaml").write_text(damaged)
    git(clone, "commit", "--quiet", "-am", "tamper", author=name)
    git(clone, "push", "--quiet", "origin", "main")
    broken = job(table)
    assert broken.returncode == 3 and "game.yaml" in broken.stderr
    assert "/jobs/" not in broken.stdout + broken.stderr and "refused" not in broken.stderr
    git(clone, "revert", "--quiet", "--no-edit", "HEAD", author=name)
    git(clone, "push", "--quiet", "origin", "main")
    done = job(table)
    assert done.returncode == 0 and f"Turn {turn}: " in done.stdout, done.stderr
    # No job's output, in any phase, showed a path of the runner's.
    assert not any(str(table.root) in out for out in table.outputs)
