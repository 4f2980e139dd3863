"""Files, locks and exit codes as a newcomer meets them from a clean clone.

* A record locked by another command for too long is exit 75 (EX_TEMPFAIL, "try again later"),
  not 1 (which blames the move's player), and nothing changes; `mail in` leaves the message for
  the next run.
* A refused command leaves no lock file behind (`.NAME.lock` exists only while held).
* A file or folder that cannot be read or written is named as the user knows it (the record,
  its folder; never a temporary file), with what is wrong and what to do, in one sentence.
  The real permission tests run the console script without root's power to ignore permission
  bits (when the tests run as root, the child drops CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH),
  and in-process with the os functions made to refuse.
* A named pipe is refused, not waited on; a move file given as the record says the arguments
  look swapped; `--check-name` wants the turn padded to three digits, no more.
"""

from __future__ import annotations

import contextlib
import errno
import mailbox
import os
import re
import shutil
import subprocess
import sys
import tempfile
from email.message import EmailMessage
from pathlib import Path

import pytest

from clitools import REPO, Outcome, run_inproc, run_script, snapshot
from rebis_pbm.app import open_game
from rebis_pbm.cli import EXIT_CODES
from rebis_pbm.engine import legal_moves
from rebis_pbm.errors import ExitCode
from rebis_pbm.files import atomic as fileio
from rebis_pbm.files import lock as record_lock
from rebis_pbm.files.names import move_file_name
from rebis_pbm.formats.yaml_writer import dump_yaml

GAME_ID = "files-game"
ADDRESSES = {"alice": "alice@example.org", "bob": "bob@example.org"}
REFEREE = "referee@example.org"
BUSY = {record_lock.LOCK_TIMEOUT_ENV: "0.2"}   # a busy record is reported after 0.2 s, not 30


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    players = [a for name, address in ADDRESSES.items() for a in ("--player", f"{name}={address}")]
    folder = tmp_path_factory.mktemp("files") / "game"
    folder.mkdir()
    outcome = run_inproc("new", folder / "game.yaml", *players, "--insecure-seed",
                         "--referee-deal", "--seed", "files tests", "--game-id", GAME_ID)
    assert outcome.code == 0, outcome.err
    return folder / "game.yaml"


@pytest.fixture
def game(template, tmp_path) -> Path:
    shutil.copytree(template.parent, tmp_path / "game")
    return tmp_path / "game" / "game.yaml"


def move_text(game: Path) -> str:
    """A legal move for the player to move, as a move file."""
    move = legal_moves(open_game(game)[1].state)[0]
    return dump_yaml({"game": GAME_ID, **move.as_dict()})


def move_file(game: Path, folder: Path) -> Path:
    path = folder / "m.yaml"
    path.write_text(move_text(game))
    return path


def message(game: Path) -> bytes:
    """alice's first move, in the text of a message from her registered address."""
    msg = EmailMessage()
    msg["From"] = ADDRESSES["alice"]
    msg["To"] = REFEREE
    msg["Subject"] = "my move"
    msg["Message-ID"] = "<move1@example.org>"
    msg.set_content(f"---\n{move_text(game)}...\n")
    return msg.as_bytes()


HOLDER = """
import sys
from rebis_pbm.files.lock import locked
with locked(sys.argv[1]):
    print("locked", flush=True)
    sys.stdin.read()
"""


@contextlib.contextmanager
def lock_held(record: Path):
    """Another process (another rebis-pbm command, as far as ours can tell) holding the
    record's lock for as long as the block runs."""
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(record)], cwd=REPO, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == "locked"
        yield
    finally:
        holder.stdin.close()
        holder.wait(timeout=10)
        holder.stdout.close()


# ------------------------------------------------------------------------ 75: busy, try again

def test_exit_75_is_documented_wherever_the_exit_codes_are():
    assert ExitCode.BUSY == 75
    assert re.search(r"^\s+75 busy: .*\n.*try again later$", EXIT_CODES, flags=re.M)
    assert EXIT_CODES.endswith("On 1, 2, 3 and 75 nothing on disk changes.")
    for name in ("README.md", "docs/cli.md", "docs/formats.md", "docs/input.md", "docs/mail.md",
                 "docs/git.md"):
        text = (REPO / name).read_text()
        assert re.search(r"\b75\b[^.]*(busy|lock)|(busy|lock)[^.]*\b75\b", text), \
            f"{name} does not explain exit 75"


@pytest.mark.parametrize("command", ["apply", "new", "reveal", "mail in -", "mail views"])
def test_a_record_locked_too_long_exits_75_and_changes_nothing(cli, game, tmp_path, command):
    """Another command holding the record's lock is the referee's side, not the move's fault:
    exit 75 (not 1), one sentence, no file changed, no lock file left."""
    args, stdin, record = {
        "apply": (["apply", game, move_file(game, tmp_path)], None, game),
        "new": (["new", game.with_name("g2.yaml"), "--player", "ann", "--player", "ben"], None,
                game.with_name("g2.yaml")),
        "reveal": (["reveal", game, "--yes"], None, game),
        "mail in -": (["mail", "in", game, "-", "--referee", REFEREE], message(game), game),
        "mail views": (["mail", "views", game, "--referee", REFEREE], None, game),
    }[command]
    before = snapshot(tmp_path)
    with lock_held(record):
        outcome = cli(*args, stdin=stdin, env=BUSY)
    assert outcome.code == 75, outcome.err
    line = outcome.one_error_line()
    assert line.startswith(f"rebis-pbm: another rebis-pbm command is updating {record}; try "
                           f"again in a moment (waited 0.2 s")
    assert snapshot(tmp_path) == before


def test_mail_in_from_a_maildir_keeps_the_message_for_the_next_run_when_busy(cli, game,
                                                                              tmp_path):
    box = mailbox.Maildir(tmp_path / "inbox", create=True)
    box.add(message(game))
    before = snapshot(tmp_path)
    with lock_held(game):
        busy = cli("mail", "in", game, tmp_path / "inbox", "--referee", REFEREE, env=BUSY)
    assert busy.code == 75
    assert "was not handled; it stays in" in busy.err and "another rebis-pbm command" in busy.err
    assert snapshot(tmp_path) == before                 # still in new/, nothing queued
    again = cli("mail", "in", game, tmp_path / "inbox", "--referee", REFEREE)
    assert again.code == 0, again.err
    assert "turn 1 applied (alice)" in again.out
    assert len(open_game(game)[0].moves) == 1


# ------------------------------------------------------------------ refusals leave no lock file

def test_a_refused_command_leaves_no_lock_file(cli, game, tmp_path):
    """The newcomer's cases, each exit 2: nothing under the folder changes, in particular no
    `.NAME.lock` appears beside the file given as the record."""
    move = move_file(game, tmp_path)
    views = game.parent / "game.views"
    nowhere = tmp_path / "nonexistent" / "v"
    cases = [
        (["new", tmp_path / "g8.yaml", "--player", "alice", "--player", "bob", "--views-dir",
          nowhere],
         f"{nowhere}: the views folder cannot be created: its parent folder must exist, and "
         f"{nowhere.parent} does not, so nothing was written; create it first, or check the path"),
        (["apply", move, game],
         f"{move}: this is a move file, not a game record: the arguments look swapped; write "
         f"rebis-pbm apply GAME.yaml MOVE.yaml"),
        (["apply", game.with_name("game.secret.yaml"), move],
         "this is the game's secret seed file, not a game record"),
        (["apply", views / "public.yaml", move], "this is a view (what a player sees of the "
                                                  "game), not a game record"),
        (["reveal", tmp_path / "nope.yaml", "--yes"], "there is no such game record"),
    ]
    for args, words in cases:
        before = snapshot(tmp_path)
        outcome = cli(*args)
        assert outcome.code == 2, (args, outcome.err)
        assert words in outcome.one_error_line(), args
        assert snapshot(tmp_path) == before, args


def test_check_also_says_when_the_arguments_look_swapped(cli, game, tmp_path):
    move = move_file(game, tmp_path)
    outcome = cli("check", move, game)
    assert outcome.code == 2
    assert outcome.one_error_line() == (f"rebis-pbm: {move}: this is a move file, not a game "
                                        f"record: the arguments look swapped; write rebis-pbm "
                                        f"check GAME.yaml MOVE.yaml")


def test_reveal_refuses_a_views_folder_it_cannot_make_before_the_record_changes(cli, game,
                                                                                 tmp_path):
    before = snapshot(tmp_path)
    outcome = cli("reveal", game, "--yes", "--views-dir", tmp_path / "no" / "such" / "v")
    assert outcome.code == 2
    assert "its parent folder must exist" in outcome.one_error_line()
    assert snapshot(tmp_path) == before


# -------------------------------------------------------------------------- permission errors

def _no_override() -> None:
    """In the child, before it runs the script: drop root's power to ignore permission bits
    (CAP_DAC_OVERRIDE 1, CAP_DAC_READ_SEARCH 2) from the bounding set, so that the program it
    runs gets neither."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def run_as_a_user(script: str, *args) -> Outcome:
    """The console script as a user without privileges would run it."""
    preexec = _no_override if os.geteuid() == 0 else None
    env = {k: v for k, v in os.environ.items() if k != "REBIS_PBM_SEED"}
    try:
        proc = subprocess.run([script, *map(str, args)], capture_output=True, env=env,
                              preexec_fn=preexec, timeout=60)
    except subprocess.SubprocessError as exc:
        pytest.skip(f"cannot run without root's permission override here: {exc}")
    return Outcome(proc.returncode, proc.stdout.decode(), proc.stderr.decode())


PERMISSION_CASES = ["read-only game folder", "read-only folder, lock file left by a crash",
                    "read-only lock file", "unreadable record", "unreadable secret"]


def permission_case(case: str, game: Path) -> tuple[Path, int, str]:
    """What to make unusable, its new mode, and the one sentence expected."""
    folder, lock = game.parent, game.parent / ".game.yaml.lock"
    if case == "read-only game folder":
        return folder, 0o555, (f"{game}: permission denied: its folder {folder} is not writable, "
                               f"and a command that changes this file first creates its lock "
                               f"file .game.yaml.lock there; give write permission on that folder")
    if case == "read-only folder, lock file left by a crash":
        lock.touch()
        return folder, 0o555, (f"{game}: permission denied: this file cannot be written, because "
                               f"its folder {folder} is not writable (the new version is written "
                               f"beside it, then renamed over it); give write permission on that "
                               f"folder")
    if case == "read-only lock file":
        lock.touch()
        return lock, 0o444, (f"{game}: permission denied: its lock file {lock} cannot be opened "
                             f"for writing; fix that file's permissions, or delete it while no "
                             f"rebis-pbm command is running")
    path = game if case == "unreadable record" else game.with_name("game.secret.yaml")
    return path, 0o000, (f"{path}: permission denied: this file cannot be read; "
                         "check its permissions")


@pytest.mark.parametrize("case", PERMISSION_CASES)
def test_permission_errors_name_the_file_and_what_to_do(console_script, game, tmp_path, case):
    move = move_file(game, tmp_path)
    path, mode, expected = permission_case(case, game)
    old_mode = path.stat().st_mode & 0o777
    before = snapshot(tmp_path)
    path.chmod(mode)
    try:
        outcome = run_as_a_user(console_script, "apply", game, move)
    finally:
        path.chmod(old_mode)
    assert outcome.code == 2, outcome.err
    assert outcome.one_error_line() == f"rebis-pbm: {expected}"
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("case", PERMISSION_CASES)
def test_permission_errors_are_worded_the_same_in_process(game, tmp_path, monkeypatch, case):
    """The same cases through click's runner, the os refusing as it would for a user."""
    move = move_file(game, tmp_path)
    path, _, expected = permission_case(case, game)  # the os refusal is faked, not a mode
    before = snapshot(tmp_path)
    lock = str(game.parent / ".game.yaml.lock")
    real_open = os.open
    real_mkstemp = tempfile.mkstemp

    def denied(name):
        return PermissionError(errno.EACCES, os.strerror(errno.EACCES), name)

    def fake_open(name, flags, *args, **kwargs):
        name = os.fspath(name)
        folder_locked = path == game.parent and os.path.dirname(name) == str(path)
        if name == str(path) or (folder_locked and flags & os.O_CREAT and
                                 not os.path.exists(name)):
            raise denied(name)
        if name == lock and path == Path(lock) and flags & (os.O_RDWR | os.O_WRONLY):
            raise denied(name)
        return real_open(name, flags, *args, **kwargs)

    def fake_mkstemp(*args, dir=None, prefix="", suffix="", **kwargs):
        if path == game.parent and os.fspath(dir) == str(path):
            raise denied(os.path.join(dir, f"{prefix}7e7p1y59{suffix}"))
        return real_mkstemp(*args, dir=dir, prefix=prefix, suffix=suffix, **kwargs)

    def fake_unlink(name, *args, **kwargs):
        if path == game.parent and os.path.dirname(os.fspath(name)) == str(path):
            raise denied(name)
        return real_unlink(name, *args, **kwargs)

    real_unlink = os.unlink
    monkeypatch.setattr(fileio.os, "open", fake_open)
    monkeypatch.setattr(fileio.os, "unlink", fake_unlink)
    monkeypatch.setattr(tempfile, "mkstemp", fake_mkstemp)
    outcome = run_inproc("apply", game, move)
    monkeypatch.undo()
    assert outcome.code == 2, outcome.err
    assert outcome.one_error_line() == f"rebis-pbm: {expected}"
    assert snapshot(tmp_path) == before


# ------------------------------------------------------------------------ not a regular file

@pytest.mark.parametrize("which", ["move", "record"])
def test_a_named_pipe_is_refused_not_waited_on(console_script, game, tmp_path, which):
    fifo = tmp_path / "f.yaml"
    os.mkfifo(fifo)
    args = ["apply", game, fifo] if which == "move" else ["apply", fifo, move_file(game, tmp_path)]
    before = snapshot(tmp_path)
    outcome = run_script(console_script, *args, timeout=30)   # waiting for a writer: a timeout
    assert outcome.code == 2
    assert outcome.one_error_line() == (f"rebis-pbm: {fifo}: this file is a named pipe (FIFO), not "
                                        f"a regular file; give the path of a file (or - for "
                                        f"standard input)")
    assert snapshot(tmp_path) == before


# ------------------------------------------------------------------------------- --check-name

def test_the_documented_move_file_names_are_the_ones_check_name_wants(cli, game, tmp_path):
    """docs/cli.md and docs/git.md: the turn written with at least three digits, padded with
    zeros; a fourth padding zero is refused like a missing one."""
    cli_doc = (REPO / "docs" / "cli.md").read_text()
    git_doc = (REPO / "docs" / "git.md").read_text()
    assert "`turn-008-bob.yaml` for turn 8, `turn-1234-bob.yaml` for turn 1234 (not " \
           "`turn-8-bob.yaml`, nor `turn-0008-bob.yaml`)" in cli_doc
    assert "padded with zeros" in git_doc and "nor `turn-0007-alice.yaml`" in git_doc
    assert (move_file_name(8, "bob"), move_file_name(1234, "bob")) == \
        ("turn-008-bob.yaml", "turn-1234-bob.yaml")
    for name, ok in (("turn-001-alice.yaml", True), ("turn-1-alice.yaml", False),
                     ("turn-0001-alice.yaml", False)):
        path = tmp_path / name
        path.write_text(move_text(game))
        outcome = cli("check", game, path, "--check-name")
        assert (outcome.code == 0) == ok, (name, outcome.err)
        if not ok:
            assert "so it must be named turn-001-alice.yaml" in outcome.one_error_line()


# --- a views folder never replaces the record or its secret (issue 27) -------------------------

def test_new_refuses_a_views_folder_where_a_view_would_replace_the_record(cli, tmp_path):
    # A player named after the record, views written beside it: game.yaml would be game's view.
    done = cli("new", tmp_path / "game.yaml", "--player", "game", "--player", "bob",
               "--insecure-seed", "--referee-deal", "--seed", "s", "--views-dir", tmp_path)
    assert done.code == ExitCode.INPUT, done.err
    assert "would replace the record" in done.err and "nothing was written" in done.err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_apply_refuses_a_views_folder_where_a_view_would_replace_the_record(cli, tmp_path):
    folder = tmp_path / "g"
    folder.mkdir()
    made = run_inproc("new", folder / "bob.yaml", "--player", "ann", "--player", "bob",
                      "--insecure-seed", "--referee-deal", "--seed", "s", "--game-id", "vd")
    assert made.code == 0, made.err
    game = folder / "bob.yaml"
    move = legal_moves(open_game(game)[1].state)[0]
    (tmp_path / "m.yaml").write_text(dump_yaml({"game": "vd", **move.as_dict()}))
    before = snapshot(folder)
    done = cli("apply", game, tmp_path / "m.yaml", "--views-dir", folder)
    assert done.code == ExitCode.INPUT, done.err
    assert "would replace the record" in done.err
    assert snapshot(folder) == before
