"""A player's signed command names the point of the history it answers (issue 27; docs/mail.md and
docs/git.md, "Commands"; docs/audit.md, "Attacks and defences"): ``away``, ``back`` and
``resign`` of a player with a key end with ``after D actions K`` (the chain digest of their
view's witness and the number of the referee's logged actions, as their own view gives it in
``command_point``), and are carried out only at that point. Whoever saw the signed command (a
copy of the mail, the command file and its ``.sig`` in a public repository's history) sends it
again: it is stale, refused, and nothing changes.

Real Maildir and ``mail in`` through click's runner, a real git repository and the job as the
workflow runs it; keys and signatures by ``ssh-keygen``.
"""

from __future__ import annotations

import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml
from test_git_commands import commit_command
from test_git_transport import PLAYERS as GIT_PLAYERS
from test_git_transport import REFEREE as GIT_REFEREE
from test_git_transport import REPO, git, job, tracked
from test_mail_commands import (
    PLAYERS,
    REFEREE,
    REFUSED,
    Post,
    invoke,
    make_game,
    message,
    only_to,
    text_of,
)

from rebis_pbm.app import open_game, read_record
from rebis_pbm.record.deadlines import absences, absences_shown
from sshkeys import needs_ssh, ssh_key, ssh_sign
from transport_support import new_args, run

ALLOWANCE = ("--deadline", "72h", "--absence", "14d/3")


def day(offset: int) -> str:
    return (datetime.now(timezone.utc) + timedelta(days=offset)).strftime("%Y-%m-%d")


def point_in_view(views: Path, player: str) -> str:
    """What the player reads in their own YAML view: the end of their signed commands."""
    return str(yaml.safe_load((views / f"{player}.yaml").read_text())["command_point"])


def point_in_record(game: Path) -> str:
    """The same point, worked out from the record's text alone: the chain digest of its last
    move (the header's before any) and how many actions it logs."""
    data = yaml.safe_load(game.read_text())
    entries = (data.get("moves") or []) or (data.get("joins") or [])
    digest = entries[-1]["chain_sha256"] if entries else data["header_sha256"]
    return f"after {digest} actions {len(data.get('actions') or [])}"


class Signed:
    """alice (with a key) sends signed command lines by mail to a game with an allowance."""

    def __init__(self, tmp_path: Path, *extra: object) -> None:
        self.key = ssh_key(tmp_path, "alice_key")
        self.game = make_game(tmp_path, "en", PLAYERS, *ALLOWANCE, "--key",
                              f"alice={self.key}.pub", *map(str, extra))
        self.post = Post(self.game)
        self.sent = 0

    def views(self) -> Path:
        return self.game.with_name("game.views")

    def line(self, words: str) -> str:
        """``words`` ended as alice's latest view says her signed commands end."""
        return f"{words} cmd {point_in_view(self.views(), 'alice')}"

    def mail(self, line: str) -> bytes:
        self.sent += 1
        return message(PLAYERS["alice"], line, "",
                       [("c.txt.sig", ssh_sign(self.key, (line + "\n").encode()))],
                       msgid=f"<r{self.sent}@example.org>")

    def send(self, data: bytes) -> tuple[str, str]:
        """Deliver ``data`` and run ``mail in``: (its output, the reply's subject and text)."""
        self.post.deliver(data)
        said = self.post.mail_in().output
        reply = only_to(self.post.new(), PLAYERS["alice"])
        return said, reply["Subject"] + "\n" + text_of(reply)


@needs_ssh
def test_the_point_a_view_gives_is_the_records_and_moves_with_every_act(tmp_path):
    table = Signed(tmp_path)
    assert point_in_view(table.views(), "alice") == point_in_record(table.game)
    assert point_in_record(table.game).endswith(" actions 0")
    assert "command_point" not in yaml.safe_load((table.views() / "bob.yaml").read_text())
    text = (table.views() / "alice.txt").read_text()
    point = point_in_record(table.game)
    assert f"Your signed away and back commands end with: cmd {point}" in text
    said, _ = table.send(table.mail(table.line(f"away {day(3)} {day(5)}")))
    assert "command away (alice); answer queued" in said
    assert point_in_view(table.views(), "alice") == point_in_record(table.game)
    assert point_in_record(table.game).endswith(" actions 1")  # the act moved the point


@needs_ssh
def test_a_signed_away_sent_again_is_stale_and_nothing_changes(tmp_path):
    """The attack: a copy of alice's signed ``away`` mail, sent again to the same game."""
    table = Signed(tmp_path)
    away = table.mail(table.line(f"away {day(3)} {day(5)}"))
    said, _ = table.send(away)
    assert "command away (alice); answer queued" in said
    before = table.game.read_bytes()
    said, reply = table.send(away.replace(b"<r1@example.org>", b"<copy@example.org>"))
    # the copy is the same command: answered as carried out already, nothing logged again
    assert "This command was carried out when it first came (the record's action 1)" in reply
    assert table.game.read_bytes() == before
    # sent again after alice came back: still that act, nothing logged again (no new absence)
    assert "(alice); answer queued" in table.send(table.mail(table.line("back")))[0]
    before = table.game.read_bytes()
    said, reply = table.send(away.replace(b"<r1@example.org>", b"<copy2@example.org>"))
    assert "carried out when it first came (the record's action 1)" in " ".join(reply.split())
    assert table.game.read_bytes() == before
    # the same words signed at a point that has passed, never carried out there: stale
    stale = table.line(f"away {day(7)} {day(8)}").rsplit(" after ", 1)[0] + " " + \
        point_in_record(table.game).replace(" actions 2", " actions 1")
    said, reply = table.send(table.mail(stale))
    assert "command away refused" in said and REFUSED["en"] in reply
    assert "this command answers move 0 with 1 logged actions, but the game is now at move 0 " \
        "with 2" in " ".join(reply.split())
    assert table.game.read_bytes() == before


@needs_ssh
def test_a_signed_back_sent_again_does_not_call_off_a_later_absence(tmp_path):
    """The ninth tester's attack: alice goes away, comes back, goes away again; a copy of her
    first ``back`` would have called off the second absence, so that her clock ran while she
    was away. Refused: the copy names a point of the history that has passed."""
    table = Signed(tmp_path)
    assert "(alice); answer queued" in table.send(table.mail(
        table.line(f"away {day(2)} {day(4)}")))[0]
    back = table.mail(table.line("back"))
    assert "command back (alice); answer queued" in table.send(back)[0]
    assert "(alice); answer queued" in table.send(table.mail(
        table.line(f"away {day(6)} {day(9)}")))[0]
    later = absences_shown(open_game(table.game).record)
    assert [a.player for a in later] == ["alice"]  # the second absence, to come
    before = table.game.read_bytes()
    _, reply = table.send(back.replace(b"<r2@example.org>", b"<copy@example.org>"))
    # the copy names the point its first carrying out logged: it changes nothing again
    assert "carried out when it first came (the record's action 2)" in " ".join(reply.split())
    assert table.game.read_bytes() == before
    assert absences_shown(open_game(table.game).record) == later


@needs_ssh
def test_a_signed_changing_command_without_its_point_is_refused_with_the_line_to_sign(tmp_path):
    table = Signed(tmp_path)
    line = f"away {day(3)} {day(5)} cmd"
    said, reply = table.send(table.mail(line))
    assert "command away refused" in said
    to_sign = f"{line} {point_in_record(table.game)}"
    assert 'a signed away names the point of the history it answers' in " ".join(reply.split())
    assert to_sign in " ".join(reply.split())
    assert absences(open_game(table.game).record) == []
    assert "command away (alice); answer queued" in table.send(table.mail(to_sign))[0]
    assert [a.player for a in absences(open_game(table.game).record)] == ["alice"]


@needs_ssh
def test_a_point_of_another_history_or_of_the_wrong_form_is_refused(tmp_path):
    table = Signed(tmp_path)
    before = table.game.read_bytes()
    other = "after " + "ab" * 32 + " actions 0"
    said, reply = table.send(table.mail(f"back cmd {other}"))
    assert "command back refused" in said
    assert "this command answers another history than game cmd's" in " ".join(reply.split())
    for bad in ("after ABC actions 0", f"after {'0' * 64} actions +1",
                f"after {'0' * 64}"):
        said, reply = table.send(table.mail(f"back cmd {bad}"))
        assert "command back refused" in said
        assert "is not a point of the history" in " ".join(reply.split())
    assert table.game.read_bytes() == before


@needs_ssh
def test_a_command_that_changes_nothing_answers_at_any_point(tmp_path):
    """``history`` with an old point (the view before an act) is answered: it changes nothing,
    and carrying it out again gives the player what they asked for again."""
    table = Signed(tmp_path)
    old = table.line("history")
    assert "(alice); answer queued" in table.send(table.mail(
        table.line(f"away {day(3)} {day(5)}")))[0]
    said, reply = table.send(table.mail(old))
    assert "command history (alice); answer queued" in said
    assert reply.startswith("[Rebis cmd] the moves so far")


def test_a_player_without_a_key_sends_commands_as_before(tmp_path):
    """bob registered no key: his unsigned ``away`` and ``back`` need no point (the sender's
    address is all that vouches for them, as for his moves)."""
    game = make_game(tmp_path, "en", PLAYERS, *ALLOWANCE)
    post = Post(game)
    post.deliver(message(PLAYERS["bob"], f"away {day(3)} {day(5)}", "", msgid="<b1@example.org>"))
    assert "command away (bob); answer queued" in post.mail_in().output
    post.new()
    post.deliver(message(PLAYERS["bob"], "back", "", msgid="<b2@example.org>"))
    assert "command back (bob); answer queued" in post.mail_in().output


# --- git ----------------------------------------------------------------------------------------

@pytest.mark.skipif(not shutil.which("git"), reason="this test needs git")
@needs_ssh
def test_a_signed_command_file_committed_again_from_history_is_stale(tmp_path):
    """In a repository, anyone can take alice's signed command file and its ``.sig`` from the
    history and commit them again, in her name (git lets any author be written): the job
    refuses the copy, answers it in ``answers/``, and the record is left as it was."""
    repo = tmp_path / "rebis-game"
    shutil.copytree(REPO / "examples" / "git", repo)
    git(repo, "init", "--quiet", "--initial-branch=main")
    alice_key = ssh_key(tmp_path, "alice_key")
    made = run(*new_args(repo / "game.yaml", "replay-seed-0123456789", "gitgame", GIT_PLAYERS),
               *ALLOWANCE, "--key", f"alice={alice_key}.pub")
    assert made.returncode == 0, made.stderr
    shutil.move(repo / "game.secret.yaml", tmp_path / "referee-only.secret.yaml")
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "-m", "Start the game", author=GIT_REFEREE)
    line = f"away {day(3)} {day(5)} gitgame {point_in_record(repo / 'game.yaml')}"
    signature = ssh_sign(alice_key, (line + "\n").encode())
    commit_command(repo, "alice-away.txt", line, "alice", signature)
    done = job(repo, "HEAD")
    assert done.returncode == 0, done.stdout + done.stderr
    assert [a.player for a in absences(read_record(repo / "game.yaml"))] == ["alice"]
    assert "commands/alice-away.txt" not in tracked(repo)
    before = (repo / "game.yaml").read_bytes()
    commit_command(repo, "alice-again.txt", line, "alice", signature)  # the copy
    again = job(repo, "HEAD")
    assert again.returncode == 0, again.stdout + again.stderr
    answer = " ".join((repo / "answers" / "alice-again.txt").read_text().split())
    assert "carried out when it first came (the record's action 1)" in answer
    assert (repo / "game.yaml").read_bytes() == before


@needs_ssh
def test_help_tells_a_player_how_a_signed_away_or_back_ends(tmp_path):
    table = Signed(tmp_path)
    said, reply = table.send(table.mail("help cmd"))
    assert "command help (alice); answer queued" in said
    assert 'Signed, away and back also end with the point of the history they answer' in \
        " ".join(reply.split())


@needs_ssh
def test_a_command_the_referees_side_cannot_sign_stays_for_the_next_run(tmp_path, monkeypatch):
    """The fourteenth tester: in a game with a referee key, ``mail in`` run without the key
    answered a player's signed ``away`` "your command was not carried out", the referee's own
    setup told to the player as a refusal. Now the referee's side fails: the message stays in
    new/, nothing is queued to the player, and the next run with the key carries it out."""
    referee_key = ssh_key(tmp_path, "referee")
    table = Signed(tmp_path, "--referee-key", referee_key)
    game, post = table.game, table.post
    post.deliver(table.mail(table.line(f"away {day(3)} {day(5)}")))
    before = game.read_bytes()
    monkeypatch.delenv("REBIS_PBM_REFEREE_KEY", raising=False)
    result = invoke("mail", "in", game, post.box, "--referee", REFEREE, "--no-pictures")
    assert result.exit_code != 0, result.output
    assert "--referee-key" in result.output or "REBIS_PBM_REFEREE_KEY" in result.output
    assert post.new() == [] and game.read_bytes() == before
    assert len(list((post.box / "new").iterdir())) == 1  # left for the next run
    monkeypatch.setenv("REBIS_PBM_REFEREE_KEY", str(referee_key))
    assert "command away (alice); answer queued" in post.mail_in().output
    assert [a.player for a in absences(open_game(game).record)] == ["alice"]


@needs_ssh
def test_a_command_judged_again_after_its_answer_was_lost_is_answered_as_carried_out(tmp_path):
    """The fifteenth tester: ``mail in`` logged alice's signed ``away``, then could not queue
    its answer (the queue's new/ is a file): the message stayed, and the next run answered it
    "not carried out ... nothing changed" though the absence was logged. The same message
    judged again is now answered as carried out, and nothing is logged twice."""
    table = Signed(tmp_path)
    away = table.mail(table.line(f"away {day(3)} {day(5)}"))
    table.post.deliver(away)
    queue = table.game.with_name("game.mailq")
    queue.mkdir()
    (queue / "new").write_text("not a folder")
    failed = invoke("mail", "in", table.game, table.post.box, "--referee", REFEREE,
                    "--no-pictures")
    assert failed.exit_code != 0, failed.output
    assert [a.player for a in absences(open_game(table.game).record)] == ["alice"]
    assert len(list((table.post.box / "new").iterdir())) == 1  # left for the next run
    shutil.rmtree(queue)
    said = table.post.mail_in().output
    assert "command away (alice); answer queued" in said, said
    reply = only_to(table.post.new(), PLAYERS["alice"])
    assert reply["Subject"] == "[Rebis cmd] away: carried out already"
    assert "This command was carried out when it first came (the record's action 1). " \
        "Nothing more changed." in " ".join(text_of(reply).split())
    assert [a.player for a in absences(open_game(table.game).record)] == ["alice"]


@pytest.mark.parametrize("dates", [("9999-12-30", "9999-12-31"), ("0001-01-01", "0001-01-02")])
def test_an_away_at_the_calendars_ends_is_refused_in_one_sentence(tmp_path, dates):
    """The fifteenth tester: ``away 9999-12-30 9999-12-31`` made ``mail in`` fail with an
    internal error on every run (the day after the last one); year 1 was said garbled."""
    game = make_game(tmp_path, "en", PLAYERS, *ALLOWANCE)
    post = Post(game)
    before = game.read_bytes()
    post.deliver(message(PLAYERS["bob"], f"away {dates[0]} {dates[1]}", "",
                         msgid="<e1@example.org>"))
    said = post.mail_in().output
    assert "command away refused" in said, said
    reply = " ".join(text_of(only_to(post.new(), PLAYERS["bob"])).split())
    assert "internal error" not in reply and "'1-01-01" not in reply, reply
    assert game.read_bytes() == before


@needs_ssh
def test_a_refused_signed_command_carries_the_referees_signed_refusal(tmp_path, monkeypatch):
    """The sixteenth tester: a refused move's reply carries the referee's signed statement, a
    refused command's did not, so the referee could refuse a valid ``away`` with a made-up
    reason and deny it. Now the refusal is signed over the command's line: ``verify --refusal``
    takes the real reply (exit 0) and refuses an edited one (exit 2)."""
    import hashlib
    referee_key = ssh_key(tmp_path, "referee")
    monkeypatch.setenv("REBIS_PBM_REFEREE_KEY", str(referee_key))
    table = Signed(tmp_path, "--referee-key", referee_key)
    game, post = table.game, table.post
    line = table.line(f"away {day(3)} {day(30)}")
    post.deliver(table.mail(line))
    assert "command away refused" in post.mail_in().output
    reply = only_to(post.new(), PLAYERS["alice"])
    assert "Referee's refusal: game cmd, move 0, " in text_of(reply)
    saved = tmp_path / "refusal.eml"
    saved.write_bytes(reply.as_bytes())
    said = invoke("verify", game, "--refusal", saved)
    assert said.exit_code == 0, said.output
    digest = hashlib.sha256((line + "\n").encode()).hexdigest()
    assert f"the file of SHA-256 {digest} sent by alice was refused (exit" in \
        " ".join(said.output.split())
    edited = tmp_path / "edited.eml"
    edited.write_bytes(reply.as_bytes().replace(b"reason the absence was not logged",
                                                b"reason the allowance is used up"))
    assert edited.read_bytes() != saved.read_bytes()
    assert invoke("verify", game, "--refusal", edited).exit_code == 2
