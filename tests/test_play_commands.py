"""`rebis-pbm play VIEW --command WORDS` (docs/play.md, "Commands"): a player's command in one
step, from their own view: the line the referee accepts (the words, the game, and for a keyed
player's away and back the point of the history their view gives), written, signed, and sent.

Through the installed console script and click's runner: the line mailed through a real SMTP
server on 127.0.0.1 (aiosmtpd), delivered into a real Maildir and carried out by the referee's
`mail in` (a copy sent again changes nothing); committed and pushed to a real git origin,
carried out by the job; and the refusals, which write nothing.
"""

from __future__ import annotations

import mailbox
import os
import shutil
import socket
import stat
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from rebis_pbm.app import read_record
from rebis_pbm.cli import cli
from rebis_pbm.record.deadlines import absences, absences_shown
from sshkeys import needs_ssh, ssh_key
from test_play import git, new_game, play, smtp_inbox, view_of
from transport_support import PLAYERS, REFEREE, REPO, exe, run, secret_key

ALLOWANCE = ("--deadline", "72h", "--absence", "14d/3")


def day(offset: int) -> str:
    return (datetime.now(timezone.utc) + timedelta(days=offset)).strftime("%Y-%m-%d")


def point_of(view: Path) -> str:
    return str(yaml.safe_load(view.read_text())["command_point"])


def invoke(*args, input: str | None = None):
    return CliRunner().invoke(cli, [str(a) for a in args], input=input)


# ------------------------------------------------------------------ the line and its file

@needs_ssh
def test_a_keyed_players_away_ends_with_the_game_and_the_point_of_their_view(tmp_path):
    key = ssh_key(tmp_path, "alice_key")
    game = new_game(tmp_path / "ref", *ALLOWANCE, "--key", f"alice={key}.pub")
    view = view_of(game, "alice", tmp_path / "alice")
    out = tmp_path / "alice"
    done = invoke("play", view, "--command", f"away  {day(3)}\t{day(5)}", "--key", key,
                  "--out", out, "--yes")
    assert done.exit_code == 0, done.output
    line = f"away {day(3)} {day(5)} playgame {point_of(view)}"
    assert f"Your command: {line}\n" in done.output
    written = out / "playgame-alice-command.txt"
    assert written.read_text() == line + "\n"
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    signature = Path(f"{written}.sig")
    assert f"Written: {written}, {signature}" in done.output
    # the signature is alice's over exactly that line, as the referee checks it
    allowed = tmp_path / "allowed"
    allowed.write_text(f"alice {Path(f'{key}.pub').read_text()}")
    with open(written, "rb") as f:
        checked = subprocess.run(["ssh-keygen", "-Y", "verify", "-f", str(allowed), "-I",
                                  "alice", "-n", "rebis-pbm", "-s", str(signature)], stdin=f,
                                 capture_output=True)
    assert checked.returncode == 0, checked.stderr


def test_a_player_without_a_key_gets_the_game_and_no_point_nor_signature(tmp_path):
    game = new_game(tmp_path / "ref", *ALLOWANCE)
    view = view_of(game, "bob", tmp_path / "bob")
    assert "command_point" not in yaml.safe_load(view.read_text())
    done = play(view, "--command", "back", "--out", tmp_path / "bob", "--yes")
    assert done.returncode == 0, done.stderr
    written = tmp_path / "bob" / "playgame-bob-command.txt"
    assert written.read_text() == "back playgame\n"
    assert not Path(f"{written}.sig").exists()
    # words naming the view's own game keep it, once
    done = play(view, "--command", "history playgame", "--out", tmp_path / "bob", "--yes")
    assert done.returncode == 0, done.stderr
    assert written.read_text() == "history playgame\n"


def test_the_question_and_the_refusals_are_in_the_players_language(tmp_path):
    game = new_game(tmp_path / "ref", "--lang", "alice=fr")
    view = view_of(game, "alice", tmp_path / "alice")
    done = invoke("play", view, "--command", "history", "--out", tmp_path / "alice",
                  input="n\n")
    assert done.exit_code == 0, done.output
    assert "Ta commande\u00a0: history playgame" in done.output
    assert "Écrire cette commande\u00a0? [O/n]\u00a0:" in done.output
    assert "Rien n'a été écrit." in done.output
    assert not list((tmp_path / "alice").glob("*command*"))
    refused = play(view, "--command", "saute", "--out", tmp_path / "alice", "--yes")
    assert refused.returncode == 2
    assert refused.stderr.decode().startswith(
        "rebis-pbm: «\u00a0saute\u00a0» n'est pas une commande\u00a0:")


@needs_ssh
@pytest.mark.parametrize("words, extra, said", [
    ("jump", ("--key",), '"jump" is not a command: write one of help, view, moves, history'),
    ("away 2026-12-10 2026-12-17 othergame", ("--key",),
     "this command names game othergame, but your view is of game playgame; nothing was "
     "written"),
    ("history", (), "you registered a key, so your commands must be signed: give your SSH "
     "private key with --key; nothing was written"),
    ("away 2026-12-10", ("--key",), "away takes the two dates of your absence"),
    ("back after " + "0" * 64 + " actions 0", ("--key",),
     "write the command without its end"),
])
def test_a_command_that_cannot_be_sent_is_refused_in_one_sentence_and_nothing_is_written(
        tmp_path, words, extra, said):
    key = ssh_key(tmp_path, "alice_key")
    game = new_game(tmp_path / "ref", *ALLOWANCE, "--key", f"alice={key}.pub")
    view = view_of(game, "alice", tmp_path / "alice")
    keyed = [key] if extra else []
    done = invoke("play", view, "--command", words, *extra, *keyed, "--out",
                  tmp_path / "alice", "--yes")
    assert done.exit_code == 2, done.output
    assert said in done.output and len(done.output.strip().splitlines()) == 1
    script = play(view, "--command", words, *extra, *keyed, "--out", tmp_path / "alice",
                  "--yes")
    assert script.returncode == 2 and said in script.stderr.decode()
    assert sorted(p.name for p in (tmp_path / "alice").iterdir()) == ["alice.yaml"]


# ------------------------------------------------------------------ by mail, through SMTP

@needs_ssh
def test_play_command_send_mails_an_away_that_mail_in_carries_out_once(tmp_path):
    with smtp_inbox() as (inbox, port):
        key = ssh_key(tmp_path, "alice_key")
        game = new_game(tmp_path / "ref", *ALLOWANCE, "--key", f"alice={key}.pub",
                        "--lang", "alice=fr")
        view = view_of(game, "alice", tmp_path / "alice")
        config = tmp_path / "alice" / "play.yaml"
        config.write_text(f"smtp: 127.0.0.1:{port}\ntls: none\n"
                          f"from: {PLAYERS['alice']}\nreferee: {REFEREE}\n")
        # ISO times: the longest away line, folded in the mail's header
        words = f"away {day(3)}T09:00Z {day(5)}T18:00Z"
        done = play(view, "--command", words, "--key", key, "--out", tmp_path / "alice",
                    "--send", "--config", config, "--yes")
        assert done.returncode == 0, done.stderr
        line = f"{words} playgame {point_of(view)}"
        [(recipients, msg)] = inbox.take()
    assert recipients == [REFEREE]
    raw = msg.as_bytes()
    header = raw.split(b"\n\n", 1)[0]
    subject = f"[Rebis playgame] {line}"
    assert len(subject) > 140 and subject.encode() not in header  # folded on the way
    assert " ".join(str(msg["Subject"]).split()) == subject
    assert [p.get_filename() for p in msg.iter_attachments()] == \
        ["playgame-alice-command.txt.sig"]
    body = msg.get_body(preferencelist=("plain",)).get_content()
    assert body == "Ma commande est l'objet de ce message (envoyé avec rebis-pbm play).\n"
    # delivered into the referee's Maildir, read by mail in: carried out
    box = tmp_path / "ref" / "Maildir"
    mailbox.Maildir(box, create=True).add(raw)
    got = run("mail", "in", game, box, "--referee", REFEREE, "--no-pictures")
    assert got.returncode == 0, got.stderr
    assert "command away (alice); answer queued" in got.stdout.decode()
    os.environ["REBIS_PBM_SEED"] = secret_key(game.with_name("game.secret.yaml"))
    try:
        assert [a.player for a in absences(read_record(game))] == ["alice"]
    finally:
        del os.environ["REBIS_PBM_SEED"]
    # the same mail again (as whoever saw it would send it): carried out already, nothing more
    before = game.read_bytes()
    copy = raw.replace(msg["Message-ID"].encode(), b"<copy@example.org>")
    assert copy != raw
    mailbox.Maildir(box, create=False).add(copy)
    again = run("mail", "in", game, box, "--referee", REFEREE, "--no-pictures")
    assert again.returncode == 0, again.stderr
    assert "command away (alice); answer queued" in again.stdout.decode()
    assert game.read_bytes() == before
    assert [a.player for a in absences(read_record(game))] == ["alice"]


def test_a_command_that_could_not_be_sent_says_so_and_keeps_its_file(tmp_path):
    game = new_game(tmp_path / "ref")
    view = view_of(game, "alice", tmp_path / "alice")
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = tmp_path / "play.yaml"
    config.write_text(f"smtp: 127.0.0.1:{port}\ntls: none\nfrom: {PLAYERS['alice']}\n"
                      f"referee: {REFEREE}\n")
    done = play(view, "--command", "history", "--out", tmp_path / "alice", "--send",
                "--config", config, "--yes")
    assert done.returncode == 2
    said = done.stderr.decode()
    assert said.startswith(f"rebis-pbm: could not send through 127.0.0.1:{port}: ")
    assert "the command file is written, send it again or mail its line to the referee" in said
    assert (tmp_path / "alice" / "playgame-alice-command.txt").read_text() == \
        "history playgame\n"


# ------------------------------------------------------------------ through git

@needs_ssh
def test_play_command_send_git_commits_commands_that_the_job_carries_out(tmp_path):
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "--quiet", "--bare", "--initial-branch=main", str(origin))
    referee = tmp_path / "referee"
    shutil.copytree(REPO / "examples" / "git", referee)
    git(referee, "init", "--quiet", "--initial-branch=main")
    key = ssh_key(tmp_path, "alice_key")
    game = new_game(referee, *ALLOWANCE, "--key", f"alice={key}.pub")
    shutil.move(referee / "game.secret.yaml", tmp_path / "referee-only.secret.yaml")
    seed = secret_key(tmp_path / "referee-only.secret.yaml")
    git(referee, "add", "--all")
    git(referee, "commit", "--quiet", "-m", "Start the game")
    git(referee, "remote", "add", "origin", str(origin))
    git(referee, "push", "--quiet", "-u", "origin", "main")
    clone = tmp_path / "alice-clone"
    git(tmp_path, "clone", "--quiet", str(origin), str(clone))
    git(clone, "config", "user.name", "alice")
    git(clone, "config", "user.email", PLAYERS["alice"])
    env = {"HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    job_env = {**env, "REBIS_PBM_SEED": seed, "REBIS_REFEREE_NAME": "Rebis referee",
               "REBIS_REFEREE_EMAIL": "referee@example.org",
               "PATH": f"{Path(exe()).parent}{os.pathsep}{os.environ['PATH']}"}

    def send(words: str, view: Path) -> str:
        """alice's command, sent from her clone; the job run on it: its output."""
        before = git(referee, "rev-parse", "HEAD").strip()
        done = play(view, "--command", words, "--key", key, "--out", tmp_path / "alice",
                    "--send", "git", "--repo", clone, "--yes", env=env)
        assert done.returncode == 0, done.stderr
        git(referee, "pull", "--quiet", "origin", "main")
        applied = run("git", "apply", f"{before}..HEAD", cwd=referee, env=job_env)
        assert applied.returncode == 0, applied.stdout + applied.stderr
        git(referee, "push", "--quiet", "origin", "main")
        git(clone, "pull", "--quiet")
        return done.stdout.decode() + applied.stdout.decode()

    def fresh_view() -> Path:
        made = run("view", game, "--player", "alice", "--format", "yaml",
                   env={"REBIS_PBM_SEED": seed})
        assert made.returncode == 0, made.stderr
        view = tmp_path / "alice" / "alice.yaml"
        view.parent.mkdir(exist_ok=True)
        view.write_bytes(made.stdout)
        return view

    def away() -> list[str]:
        os.environ["REBIS_PBM_SEED"] = seed
        try:
            return [a.player for a in absences_shown(read_record(game))]
        finally:
            del os.environ["REBIS_PBM_SEED"]

    said = send(f"away {day(3)} {day(5)}", fresh_view())
    assert "commands/alice-away-1.txt, commands/alice-away-1.txt.sig" in said
    assert "command away (alice); answered in answers/alice-away-1.txt" in said
    assert away() == ["alice"]
    author = git(referee, "log", "--format=%an <%ae>", "--author", "alice", "-1").strip()
    assert author == f"alice <{PLAYERS['alice']}>"
    said = send("back", fresh_view())
    assert "commands/alice-back-1.txt, commands/alice-back-1.txt.sig" in said
    assert "command back (alice); answered in answers/alice-back-1.txt" in said
    assert away() == []
    # a second back gets a name of its own: the first one's answer stays as it was
    view = fresh_view()
    answer = (referee / "answers" / "alice-back-1.txt").read_bytes()
    done = play(view, "--command", "back", "--key", key, "--out", tmp_path / "alice",
                "--send", "git", "--repo", clone, "--yes", env=env)
    assert done.returncode == 0, done.stderr
    assert "commands/alice-back-2.txt" in done.stdout.decode()
    assert (referee / "answers" / "alice-back-1.txt").read_bytes() == answer
