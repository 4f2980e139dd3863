"""`rebis-pbm play VIEW` (issue 29, item 3): a player's move in one command, on their machine.

Through the installed console script: numbered choices piped on standard input, and the same
dialogue in a real terminal (pexpect); the move sent by SMTP to a real server on 127.0.0.1
(aiosmtpd), which `mail in` then applies; pushed to a real git origin, which `git apply`
applies; a join in a fair deal's join phase; a sealed move in a public game.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from rebis_pbm.app import open_game
from sshkeys import ssh_key
from transport_support import PLAYERS, REFEREE, REPO, exe, new_args, run, secret_key

SEED = "play-game"


def new_game(folder: Path, *extra, seed=SEED, fair=False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    args = new_args(folder / "game.yaml", seed, "playgame")
    if fair:
        args.remove("--referee-deal")
    made = run(*args, *extra)
    assert made.returncode == 0, made.stderr
    return folder / "game.yaml"


def moves_made(game: Path) -> int:
    return len(open_game(game)[1].history)


def view_of(game: Path, player: str, where: Path) -> Path:
    """The player's YAML view, copied to their own machine (``where``)."""
    where.mkdir(parents=True, exist_ok=True)
    view = where / f"{player}.yaml"
    shutil.copy(game.parent / "game.views" / f"{player}.yaml", view)
    return view


def play(*args, stdin: bytes = b"", cwd=None, env=None) -> subprocess.CompletedProcess:
    return run("play", *args, stdin=stdin, cwd=cwd, env=env)


# ------------------------------------------------------------------ piped numbered choices

def test_piped_choices_write_a_signed_move_that_apply_accepts(tmp_path):
    key = ssh_key(tmp_path, "alice_key")
    game = new_game(tmp_path / "ref", "--key", f"alice={key}.pub")
    view = view_of(game, "alice", tmp_path / "alice")
    listing = run("moves", "--view", view, "--format", "text")
    assert listing.returncode == 0, listing.stderr
    done = play(view, "--key", key, "--out", tmp_path / "alice", "--quiet",
                stdin=b"2\n1\ny\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert "Which card do you play?" in out and "Where?" in out
    move = tmp_path / "alice" / "turn-001-alice.yaml"
    assert move.exists() and Path(f"{move}.sig").exists()
    first = move.read_text().splitlines()[0]
    assert first.startswith("# ") and first[2:] in listing.stdout.decode()
    # the unsigned move is refused (alice registered a key); signed, it is applied
    bare = tmp_path / "bare" / "turn-001-alice.yaml"
    bare.parent.mkdir()
    shutil.copy(move, bare)
    assert run("apply", game, bare).returncode != 0
    applied = run("apply", game, move)
    assert applied.returncode == 0, applied.stderr
    assert moves_made(game) == 1


def test_a_pipe_that_says_no_writes_nothing(tmp_path):
    game = new_game(tmp_path / "ref")
    view = view_of(game, "alice", tmp_path / "alice")
    done = play(view, "--out", tmp_path / "alice", stdin=b"1\n1\nn\n")
    assert done.returncode == 0, done.stderr
    assert "Nothing written." in done.stdout.decode()
    assert not list((tmp_path / "alice").glob("turn-*"))
    assert "Your hand:" in done.stdout.decode()  # the view is shown first


def test_a_pipe_that_ends_early_is_one_sentence_and_writes_nothing(tmp_path):
    game = new_game(tmp_path / "ref")
    view = view_of(game, "alice", tmp_path / "alice")
    done = play(view, "--out", tmp_path / "alice", stdin=b"1\n")
    assert done.returncode == 2
    assert done.stderr.decode() == ("rebis-pbm: no answer was given (standard input ended); "
                                    "nothing was written\n")
    assert not list((tmp_path / "alice").glob("turn-*"))


def test_not_your_move_is_refused_with_the_referees_sentence(tmp_path):
    game = new_game(tmp_path / "ref")
    done = play(view_of(game, "bob", tmp_path / "bob"), "--out", tmp_path / "bob")
    assert done.returncode == 1
    assert "turn 1 is alice's" in done.stderr.decode()


def test_a_join_phase_view_writes_a_join_with_fresh_entropy(tmp_path):
    game = new_game(tmp_path / "ref", "--record-format", "rebis-pbm/4", fair=True)  # one round
    view = view_of(game, "alice", tmp_path / "alice")
    done = play(view, "--out", tmp_path / "alice", "--yes")
    assert done.returncode == 0, done.stderr
    join = tmp_path / "alice" / "turn-000-alice.yaml"
    doc = yaml.safe_load(join.read_text())
    assert doc["player"] == "alice" and len(doc["join"]) == 32
    template = yaml.safe_load(yaml.safe_load(view.read_text())["move_template"])
    assert set(template) <= set(doc)  # every field of the view's template
    applied = run("apply", game, join)
    assert applied.returncode == 0, applied.stderr
    assert "alice joined" in applied.stdout.decode()


# ------------------------------------------------------------------ a real terminal

def test_the_dialogue_in_a_real_terminal(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    game = new_game(tmp_path / "ref")
    view = view_of(game, "alice", tmp_path / "alice")
    child = pexpect.spawn(exe(), ["play", str(view), "--out", str(tmp_path / "alice")],
                          timeout=60, encoding="utf-8", dimensions=(50, 200))
    child.expect("Your hand:")
    child.expect(r"Which card do you play\?")
    child.expect(r"Your choice \[1\]: ")
    child.sendline("1")
    child.expect(r"Where\?")
    child.expect(r"  3\. (.*)\r\n")
    chosen = child.match.group(1).strip()
    child.expect(r"Your choice \[1\]: ")
    child.sendline("3")
    child.expect(r"Write this move\? \[Y/n\]: ")
    child.sendline("")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    move = tmp_path / "alice" / "turn-001-alice.yaml"
    assert move.read_text().splitlines()[0] == f"# {chosen}"
    assert run("check", move, "--view", view).returncode == 0
    assert run("apply", game, move).returncode == 0
    assert moves_made(game) == 1


# ------------------------------------------------------------------ by mail, through SMTP

class Inbox:
    """An aiosmtpd handler keeping every delivery: (envelope recipients, parsed message)."""

    def __init__(self):
        self.deliveries = []

    async def handle_DATA(self, server, session, envelope):
        from rebis_pbm.transports.mail.policy import parse_message
        data = envelope.content.replace(b"\r\n", b"\n")
        self.deliveries.append((sorted(envelope.rcpt_tos), parse_message(data)))
        return "250 OK"

    def take(self):
        taken, self.deliveries = self.deliveries, []
        return taken


@contextlib.contextmanager
def smtp_inbox() -> Iterator[tuple[Inbox, int]]:
    """A real SMTP server (aiosmtpd) on 127.0.0.1, on a free port, while the block runs:
    (its inbox, its port)."""
    from aiosmtpd.controller import Controller

    inbox = Inbox()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, controller.port
    finally:
        controller.stop()


def test_play_send_mails_the_signed_move_that_mail_in_applies(tmp_path):
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult

    def authenticate(server, session, envelope, mechanism, auth_data):
        ok = (auth_data.login, auth_data.password) == (b"alice", b"pa55")
        return AuthResult(success=ok, handled=False)

    inbox = Inbox()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    controller = Controller(inbox, hostname="127.0.0.1", port=port, server_hostname="localhost",
                            authenticator=authenticate, auth_require_tls=False,
                            auth_required=True)
    controller.start()
    try:
        key = ssh_key(tmp_path, "alice_key")
        game = new_game(tmp_path / "ref", "--key", f"alice={key}.pub")
        view = view_of(game, "alice", tmp_path / "alice")
        config = tmp_path / "alice" / "play.yaml"
        config.write_text(f"smtp: 127.0.0.1:{controller.port}\ntls: none\nuser: alice\n"
                          f"password_env: ALICE_SMTP_PASSWORD\nfrom: {PLAYERS['alice']}\n"
                          f"referee: {REFEREE}\n")
        done = play(view, "--key", key, "--out", tmp_path / "alice", "--send", "--config",
                    config, "--yes", "--quiet", "--move", "4",
                    env={"ALICE_SMTP_PASSWORD": "pa55"})
        assert done.returncode == 0, done.stderr
        [(recipients, msg)] = inbox.take()
        assert recipients == [REFEREE]
        names = sorted(p.get_filename() for p in msg.iter_attachments())
        assert names == ["turn-001-alice.yaml", "turn-001-alice.yaml.sig"]
        assert "pa55" not in config.read_text()
        eml = tmp_path / "move.eml"
        eml.write_bytes(msg.as_bytes())
        got = run("mail", "in", game, eml, "--referee", REFEREE)
        assert got.returncode == 0, got.stderr
        assert moves_made(game) == 1
        # a wrong password: the server refuses, the command says so (exit 2)
        (tmp_path / "again").mkdir()
        refused = play(view, "--out", tmp_path / "again", "--send", "--config", config,
                       "--yes", "--quiet", "--key", key, "--move", "1",
                       env={"ALICE_SMTP_PASSWORD": "wrong"})
        assert refused.returncode == 2 and "could not send" in refused.stderr.decode()
    finally:
        controller.stop()


def test_settings_that_hold_a_password_are_refused(tmp_path):
    game = new_game(tmp_path / "ref")
    view = view_of(game, "alice", tmp_path / "alice")
    config = tmp_path / "play.yaml"
    config.write_text("smtp: 127.0.0.1:25\nfrom: a@b\nreferee: r@b\npassword: x\n")
    done = play(view, "--send", "--config", config, "--yes")
    assert done.returncode == 2 and "must not hold the password" in done.stderr.decode()


# ------------------------------------------------------------------ through git

def git(cwd: Path, *args, name="Rebis referee", email="referee@example.org") -> str:
    env = {**os.environ, "HOME": str(cwd.parent), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_NAME": name,
           "GIT_COMMITTER_EMAIL": email}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


def test_play_send_git_pushes_a_move_that_git_check_and_git_apply_accept(tmp_path):
    assert shutil.which("git")
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "--quiet", "--bare", "--initial-branch=main", str(origin))
    referee = tmp_path / "referee"
    shutil.copytree(REPO / "examples" / "git", referee)
    git(referee, "init", "--quiet", "--initial-branch=main")
    game = new_game(referee)
    shutil.move(referee / "game.secret.yaml", tmp_path / "referee-only.secret.yaml")
    seed = secret_key(tmp_path / "referee-only.secret.yaml")
    git(referee, "add", "--all")
    git(referee, "commit", "--quiet", "-m", "Start the game")
    git(referee, "remote", "add", "origin", str(origin))
    git(referee, "push", "--quiet", "-u", "origin", "main")
    before = git(referee, "rev-parse", "HEAD").strip()
    # alice's clone, with her own git identity; her view from the referee's mail
    clone = tmp_path / "alice-clone"
    git(tmp_path, "clone", "--quiet", str(origin), str(clone))
    git(clone, "config", "user.name", "alice")
    git(clone, "config", "user.email", PLAYERS["alice"])
    view = view_of(game, "alice", tmp_path / "alice")
    env = {"HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    done = play(view, "--out", tmp_path / "alice", "--send", "git", "--repo", clone, "--yes",
                "--quiet", "--move", "2", env=env)
    assert done.returncode == 0, done.stderr
    assert "moves/turn-001-alice.yaml" in done.stdout.decode()
    git(referee, "pull", "--quiet", "origin", "main")
    assert (referee / "moves" / "turn-001-alice.yaml").exists()
    author = git(referee, "log", "-1", "--format=%an <%ae>").strip()
    assert author == f"alice <{PLAYERS['alice']}>"
    job_env = {**env, "PATH": f"{Path(exe()).parent}{os.pathsep}{os.environ['PATH']}"}
    checked = run("git", "check", f"{before}..HEAD", cwd=referee, env=job_env)
    assert checked.returncode == 0, checked.stderr
    applied = run("git", "apply", f"{before}..HEAD", cwd=referee,
                  env={**job_env, "REBIS_PBM_SEED": seed})
    assert applied.returncode == 0, applied.stderr
    assert "1 move(s) applied" in applied.stdout.decode()
    os.environ["REBIS_PBM_SEED"] = seed
    try:
        assert moves_made(game) == 1
    finally:
        del os.environ["REBIS_PBM_SEED"]


# ------------------------------------------------------------------ a public game: sealed

def test_a_game_that_takes_sealed_moves_gets_the_move_sealed(tmp_path):
    identity = tmp_path / "referee.age-key"
    made = run("keygen-referee", identity)
    assert made.returncode == 0, made.stderr
    recipient = next(w for w in made.stdout.decode().split() if w.startswith("age1"))
    key = ssh_key(tmp_path, "alice_key")
    game = new_game(tmp_path / "ref", "--referee-recipient", recipient,
                    "--key", f"alice={key}.pub")
    view = view_of(game, "alice", tmp_path / "alice")
    done = play(view, "--key", key, "--out", tmp_path / "alice", "--yes", "--quiet",
                "--move", "1")
    assert done.returncode == 0, done.stderr
    sealed = tmp_path / "alice" / "turn-001-alice.yaml.age"
    assert sealed.exists() and Path(f"{tmp_path}/alice/turn-001-alice.yaml.sig.age").exists()
    shutil.copy(sealed, tmp_path / "ref" / sealed.name)
    shutil.copy(f"{tmp_path}/alice/turn-001-alice.yaml.sig.age", tmp_path / "ref")
    applied = run("apply", game, tmp_path / "ref" / sealed.name, "--identity", identity)
    assert applied.returncode == 0, applied.stderr
    assert moves_made(game) == 1


def test_the_dialogue_is_in_the_players_language(tmp_path):
    game = new_game(tmp_path / "ref", "--lang", "alice=fr")
    view = view_of(game, "alice", tmp_path / "alice")
    done = play(view, "--out", tmp_path / "alice", "--quiet", stdin=b"1\n1\nn\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    # French typography: a no-break space before ? (issue 30)
    assert "Quelle carte veux-tu poser\u00a0?" in out and "Où\u00a0?" in out
    assert "Rien n'a été écrit." in out
    assert "sur ton étagère 1 (poids" in out


@pytest.mark.parametrize(("lang", "yes", "shown", "wrong", "written"), [
    ("fr", "oui", "[O/n]\u00a0:", "n'est pas un nombre de 1 à", "Écrit"),
    ("pt", "s", "[S/n]:", "não é um número de 1 a", "Escrito"),
    ("en", "y", "[Y/n]:", "is not a number from 1 to", "Written"),
])
def test_the_dialogue_takes_the_languages_yes_and_words_its_errors(tmp_path, lang, yes, shown,
                                                                   wrong, written):
    """Issue 30: the confirmation takes the language's yes (o/oui, s/sim; y always) and shows
    it ([O/n], [S/n]); a wrong number is answered in the player's language, then asked again;
    a player not to move is told so in their language, in the second person."""
    game = new_game(tmp_path / "ref", "--lang", f"alice={lang}", "--lang", f"bob={lang}")
    view = view_of(game, "alice", tmp_path / "alice")
    done = play(view, "--out", tmp_path / "alice", "--quiet",
                stdin=f"9\nabc\n1\n1\n{yes}\n".encode())
    assert done.returncode == 0, done.stderr
    out, err = done.stdout.decode(), done.stderr.decode()
    assert shown in out and wrong in err and "abc" in err, (out, err)
    assert "Error" not in err and "valid integer" not in err and "range" not in err, err
    assert (tmp_path / "alice" / "turn-001-alice.yaml").exists()
    assert written in out
    no = {"fr": "non", "pt": "não", "en": "no"}[lang]
    again = play(view, "--out", tmp_path / "again", "--quiet", stdin=f"1\n1\n{no}\n".encode())
    assert again.returncode == 0 and not (tmp_path / "again").exists(), again.stderr
    refused = play(view_of(game, "bob", tmp_path / "bob"), "--out", tmp_path / "bob")
    said = refused.stderr.decode()
    assert refused.returncode == 1 and {"fr": "tu n'as pas de coup à jouer",
                                        "pt": "não tens lance a fazer",
                                        "en": "you have no move to make"}[lang] in said, said
    assert "bob" not in said, said


@pytest.mark.parametrize(("lang", "subject"), [("fr", "tour 1\u00a0: mon coup"),
                                               ("pt", "turno 1: o meu lance")])
def test_play_send_writes_the_subject_in_the_players_language(tmp_path, lang, subject):
    with smtp_inbox() as (inbox, port):
        game = new_game(tmp_path / "ref", "--lang", f"alice={lang}")
        view = view_of(game, "alice", tmp_path / "alice")
        config = tmp_path / "alice" / "play.yaml"
        config.write_text(f"smtp: 127.0.0.1:{port}\ntls: none\n"
                          f"from: {PLAYERS['alice']}\nreferee: {REFEREE}\n")
        done = play(view, "--out", tmp_path / "alice", "--send", "--config", config, "--yes",
                    "--quiet", "--move", "1")
        assert done.returncode == 0, done.stderr
        [(_recipients, msg)] = inbox.take()
        assert msg["Subject"] == f"[Rebis playgame] {subject}"
        assert msg.get_body(("plain",)).get_content() == {
            "fr": "Mon coup est en pièce jointe (envoyé avec rebis-pbm play).\n",
            "pt": "O meu lance vai em anexo (enviado com rebis-pbm play).\n"}[lang]
        eml = tmp_path / "move.eml"
        eml.write_bytes(msg.as_bytes())
        got = run("mail", "in", game, eml, "--referee", REFEREE)  # the referee still routes it
        assert got.returncode == 0, got.stderr
        assert moves_made(game) == 1
    # the server gone: the player is told so in their language (exit 2)
    (tmp_path / "again").mkdir()
    refused = play(view, "--out", tmp_path / "again", "--send", "--config", config, "--yes",
                   "--quiet", "--move", "1")
    said = refused.stderr.decode()
    assert refused.returncode == 2, said
    assert {"fr": "impossible d'envoyer par 127.0.0.1:",
            "pt": "não foi possível enviar por 127.0.0.1:"}[lang] in said, said
    assert "could not send" not in said, said


@pytest.mark.parametrize(("lang", "words"), [("fr", "git push a échoué dans"),
                                             ("pt", "git push falhou em")])
def test_play_send_git_says_a_refused_push_in_the_players_language(tmp_path, lang, words):
    """A clone whose remote is gone: commit works, push fails; said in the player's language."""
    assert shutil.which("git")
    game = new_game(tmp_path / "ref", "--lang", f"alice={lang}")
    view = view_of(game, "alice", tmp_path / "alice")
    clone = tmp_path / "clone"
    clone.mkdir()
    git(clone, "init", "-q")
    git(clone, "remote", "add", "origin", str(tmp_path / "no-such-remote.git"))
    git(clone, "commit", "-q", "--allow-empty", "-m", "start")
    env = {"HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "alice",
           "GIT_AUTHOR_EMAIL": PLAYERS["alice"], "GIT_COMMITTER_NAME": "alice",
           "GIT_COMMITTER_EMAIL": PLAYERS["alice"]}
    refused = play(view, "--out", tmp_path / "alice", "--send", "git", "--repo", clone,
                   "--yes", "--quiet", "--move", "1", env=env)
    said = refused.stderr.decode()
    assert refused.returncode == 2 and words in said, said
    assert " failed in " not in said, said
