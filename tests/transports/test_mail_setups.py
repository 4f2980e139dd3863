"""docs/mail.md's set-ups, run as written (issue 14, item 7): the crontab line under cron's bare
environment (`sh`, PATH=/usr/bin:/bin, HOME), and the procmail recipe through the real procmail
(installed by .ci/run), with the paths of a test folder as $HOME. The `.forward` line is run by
test_mail_robust.py."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_mail_cli import REFEREE, SEED, incoming, invoke, maildir, move_doc, state_of

from rebis_pbm.files.lock import locked
from rebis_pbm.transports.mail.maildir import maildir_new
from transport_support import PLAYERS, exe, new_args, pick_move

DOC = Path(__file__).resolve().parents[2] / "docs" / "mail.md"


def doc_block(after: str) -> str:
    """The first fenced block of docs/mail.md after the line starting with ``after``."""
    text = DOC.read_text()
    rest = text[text.index(after):]
    found = re.search(r"^```[a-z]*\n(.*?)^```", rest, re.S | re.M)
    return found.group(1)


@pytest.fixture
def home(tmp_path) -> Path:
    """A $HOME as the doc has it: rebis-pbm in ~/.local/bin, the game in ~/rebis/game.yaml
    (addresses, first views sent), the Maildir ~/Maildir/.rebis."""
    (tmp_path / ".local" / "bin").mkdir(parents=True)
    (tmp_path / ".local" / "bin" / "rebis-pbm").symlink_to(exe())
    game = tmp_path / "rebis" / "game.yaml"
    game.parent.mkdir()
    assert invoke(*new_args(game, SEED, "g1")).exit_code == 0
    assert invoke("mail", "views", game, "--referee", REFEREE).exit_code == 0
    for msg in maildir_new(game.with_name("game.mailq")):
        msg.unlink()
    maildir(tmp_path / "Maildir" / ".rebis")
    return tmp_path


def move_message(home: Path) -> bytes:
    move = pick_move(state_of(home / "rebis" / "game.yaml"))
    return incoming(PLAYERS[move.player], move_doc(move),
                    Subject="Re: [Rebis g1] turn 1: your move")


def fake_sendmail(home: Path) -> Path:
    spool = home / "spool"
    spool.mkdir()
    program = home / "sendmail"
    program.write_text(f'#!/bin/sh\ncat > "$(mktemp "{spool}/XXXXXX")"\n')
    program.chmod(0o755)
    return program


def test_the_crontab_line_applies_the_moves_and_sends_the_views(home):
    [line] = [cron for cron in doc_block("**cron over a Maildir**").splitlines() if cron.strip()]
    fields = line.split(None, 5)
    assert fields[:5] == ["*/5", "*", "*", "*", "*"] and "%" not in line  # % is cron's newline
    command = fields[5].replace("--sendmail", f"--sendmail {fake_sendmail(home)}")
    (home / "Maildir" / ".rebis" / "new" / "m1").write_bytes(move_message(home))
    cron_env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "SHELL": "/bin/sh",
                "LOGNAME": "referee"}
    done = subprocess.run(["/bin/sh", "-c", command], env=cron_env, capture_output=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert b"turn 1 applied" in done.stdout and b"4 messages handed to" in done.stdout
    assert state_of(home / "rebis" / "game.yaml").turn == 2
    assert len(list((home / "spool").iterdir())) == 4
    again = subprocess.run(["/bin/sh", "-c", command], env=cron_env, capture_output=True,
                           timeout=120)
    assert again.returncode == 0 and b"No new message" in again.stdout


def procmail(home: Path, message: bytes, env=None) -> subprocess.CompletedProcess:
    program = shutil.which("procmail")
    if program is None:
        pytest.skip("procmail is not installed (apt-get install procmail; .ci/run does)")
    rcfile = home / ".procmailrc"
    rcfile.write_text(doc_block("**A procmail recipe**"))
    # -m: a mail filter with this rcfile, as delivery would run it for the user whose HOME it
    # is; procmail -m passes on only the variables assigned on its command line
    assignments = [f"{name}={value}" for name, value in {"HOME": home, **(env or {})}.items()]
    return subprocess.run([program, "-m", *assignments, str(rcfile)], input=message,
                          env={"PATH": "/usr/bin:/bin"}, capture_output=True, timeout=120)


def test_the_procmail_recipe_applies_the_move_and_leaves_nothing_behind(home):
    done = procmail(home, move_message(home))
    assert done.returncode == 0, done.stderr
    assert state_of(home / "rebis" / "game.yaml").turn == 2
    assert len(maildir_new(home / "rebis" / "game.mailq")) == 4
    assert maildir_new(home / "Maildir" / ".rebis") == []


def test_the_procmail_recipe_leaves_a_message_to_the_maildir_when_the_record_is_busy(home):
    game = home / "rebis" / "game.yaml"
    message = move_message(home)
    with locked(game):  # another command holds the record
        done = procmail(home, message, env={"REBIS_PBM_LOCK_TIMEOUT": "0.2"})
    assert done.returncode == 0, done.stderr
    assert state_of(game).turn == 1
    [kept] = maildir_new(home / "Maildir" / ".rebis")
    assert kept.read_bytes().endswith(message.split(b"\n\n", 1)[1])
    # ... where the cron line's mail in finds it
    result = invoke("mail", "in", game, home / "Maildir" / ".rebis", "--referee", REFEREE)
    assert result.exit_code == 0 and "turn 1 applied" in result.output
