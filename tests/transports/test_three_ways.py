"""Issue 29, done when: one whole three-player game in which each player moves one way only.

* alice (no key, French) moves only by the reply links of her mails: the first link of the HTML
  part of her latest mail, followed as a mail client follows it (test_mail_links.click) and sent
  through the SMTP server into the referee's Maildir;
* bob (a key) moves only with ``rebis-pbm play VIEW --key KEY --send``: his own SMTP settings,
  to the same real server on 127.0.0.1, the view the attachment of his latest mail;
* carol (no key, Portuguese) moves only with ``rebis-pbm play VIEW --send git``: a commit pushed
  from her clone of the game's repository.

One game, both transports: the referee's folder is a checkout of the game's repository (its
``.gitignore`` keeps the seed, the private views and the mail queue out). ``mail in`` reads the
Maildir into that checkout's record, and the referee commits and pushes the record; ``git apply
--remote origin --queue`` applies what carol pushed and queues everyone's views; ``mail out``
sends every queued view through the SMTP server. Every move is the first one listed (a fixed
rule), and what each player chose, in words, is what the referee's ``apply`` then did: the
effect read from the events of the move on the full state says the same sentence.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from test_mail_links import anchors, click, send, smtp  # noqa: F401 (smtp: a fixture)

from rebis_pbm.app import open_game
from rebis_pbm.engine import apply_move
from rebis_pbm.present.describe import effect, tell
from sshkeys import ssh_key
from transport_support import PLAYERS, REFEREE, REPO, exe, new_args, run, secret_key

LANGS = {"alice": "fr", "bob": "en", "carol": "pt"}


def git(cwd: Path, *args, name="Rebis referee", email=REFEREE) -> str:
    env = {**os.environ, "HOME": str(cwd.parent), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_NAME": name,
           "GIT_COMMITTER_EMAIL": email}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


def saved_view(msg, folder: Path) -> Path:
    """The view attached to ``msg``, saved as the player saves it."""
    [part] = [p for p in msg.iter_attachments() if p.get_filename().startswith("view-")]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / part.get_filename()
    path.write_bytes(part.get_content())
    return path


def test_one_game_by_links_by_play_send_mail_and_by_play_send_git(tmp_path, smtp):  # noqa: F811
    port, inbox = smtp
    server = f"127.0.0.1:{port}"
    # the game's repository: the referee's checkout, pushed to a bare origin
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "--quiet", "--bare", "--initial-branch=main", str(origin))
    ref = tmp_path / "referee"
    shutil.copytree(REPO / "examples" / "git", ref)
    git(ref, "init", "--quiet", "--initial-branch=main")
    bob_key = ssh_key(tmp_path, "bob_key")
    game = ref / "game.yaml"
    made = run(*new_args(game, "three-ways", "three"), "--key", f"bob={bob_key}.pub",
               *[a for p, lang in LANGS.items() for a in ("--lang", f"{p}={lang}")])
    assert made.returncode == 0, made.stderr
    secret = tmp_path / "referee-only.secret.yaml"
    shutil.move(ref / "game.secret.yaml", secret)
    env = {"REBIS_PBM_SEED": secret_key(secret), "REBIS_PBM_REFEREE": REFEREE,
           "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1",
           "PATH": f"{Path(exe()).parent}{os.pathsep}{os.environ['PATH']}"}
    git(ref, "add", "--all")
    git(ref, "commit", "--quiet", "-m", "Start the game")
    git(ref, "remote", "add", "origin", str(origin))
    git(ref, "push", "--quiet", "-u", "origin", "main")
    # carol's clone, with her own git identity
    clone = tmp_path / "carol-clone"
    git(tmp_path, "clone", "--quiet", str(origin), str(clone))
    git(clone, "config", "user.name", "carol")
    git(clone, "config", "user.email", PLAYERS["carol"])
    # bob's own mail settings: his SMTP server, his address, the referee's
    bob_config = tmp_path / "bob" / "play.yaml"
    bob_config.parent.mkdir()
    bob_config.write_text(f"smtp: {server}\ntls: none\nfrom: {PLAYERS['bob']}\n"
                          f"referee: {REFEREE}\n")

    def referee_round(after_mail: bool) -> None:
        """The referee's side after a player sent: mail in and commit the record (a move by
        mail), or the git job (a move pushed); then every queued view goes out by SMTP."""
        if after_mail:
            got = run("mail", "in", game, tmp_path / "referee-inbox", env=env)
            assert got.returncode == 0, got.stderr
            assert "applied" in got.stdout.decode(), got.stdout
            git(ref, "add", "--all")
            git(ref, "commit", "--quiet", "-m", "Moves by mail")
            git(ref, "push", "--quiet", "origin", "HEAD:main")
        else:
            job = run("git", "apply", "--remote", "origin", "--queue", cwd=ref, env=env)
            assert job.returncode == 0, job.stderr
            assert "1 move(s) applied" in job.stdout.decode()
        out = run("mail", "out", game, "--smtp", server, env=env)
        assert out.returncode == 0, out.stderr

    assert run("mail", "views", game, env=env).returncode == 0
    assert run("mail", "out", game, "--smtp", server, env=env).returncode == 0
    latest: dict[str, object] = {}
    ways: dict[str, set[str]] = {p: set() for p in PLAYERS}
    os.environ["REBIS_PBM_SEED"] = env["REBIS_PBM_SEED"]  # open_game in this process
    try:
        while True:
            for recipients, msg in inbox.take():
                latest[recipients[0]] = msg
            record, replay, _ = open_game(game)
            before = replay.state
            if before.finished:
                break
            mover = before.player_to_move
            assert mover is not None
            mail = latest[PLAYERS[mover]]
            assert "[Rebis three] " in mail["Subject"]
            if mover == "alice":
                [first, *_] = anchors(mail)
                chosen = first["title"]
                send(port, click(first["href"], PLAYERS["alice"]))
                referee_round(after_mail=True)
                ways[mover].add("link")
            elif mover == "bob":
                assert not anchors(mail)  # a signed player: the one command instead
                assert "--key ~/.ssh/id_ed25519 --send" in mail.get_body(("plain",)).get_content()
                view = saved_view(mail, tmp_path / "bob" / f"turn-{before.turn}")
                done = run("play", view, "--key", bob_key, "--send", "--config", bob_config,
                           "--out", view.parent, "--yes", "--quiet", "--move", "1")
                assert done.returncode == 0, done.stderr
                [move_file] = view.parent.glob("turn-*.yaml")
                chosen = move_file.read_text(encoding="utf-8").splitlines()[0][2:]
                referee_round(after_mail=True)
                ways[mover].add("play --send")
            else:
                view = saved_view(mail, tmp_path / "carol" / f"turn-{before.turn}")
                git(clone, "pull", "--quiet", "--ff-only", name="carol", email=PLAYERS["carol"])
                done = run("play", view, "--send", "git", "--repo", clone, "--out", view.parent,
                           "--yes", "--quiet", "--move", "1",
                           env={"HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"})
                assert done.returncode == 0, done.stderr
                [move_file] = view.parent.glob("turn-*.yaml")
                chosen = move_file.read_text(encoding="utf-8").splitlines()[0][2:]
                referee_round(after_mail=False)
                ways[mover].add("play --send git")
            # what the mover chose, in their words, is what apply did
            record, replay, _ = open_game(game)
            assert len(replay.history) == before.turn
            move, events = replay.history[-1]
            assert move.player == mover
            assert apply_move(before, move)[1] == events
            done_effect = effect(before, move)
            assert tell(done_effect, mover, before.ruleset.shelf_limit, LANGS[mover]) == chosen
        record, replay, _ = open_game(game)
    finally:
        del os.environ["REBIS_PBM_SEED"]
    assert replay.state.finished
    assert ways == {"alice": {"link"}, "bob": {"play --send"}, "carol": {"play --send git"}}
    # bob's moves carry his signature in the record (their proofs); carol's files are in the
    # game's repository, and nobody else's
    bobs = [turn for turn, (m, _) in enumerate(replay.history) if m.player == "bob"]
    assert bobs and all(record.proofs[turn] is not None for turn in bobs)
    git(ref, "fetch", "--quiet", "origin")
    pushed = [name for name in git(ref, "ls-tree", "--name-only", "origin/main",
                                   "moves/").split() if name != "moves/.gitkeep"]
    assert pushed == [f"moves/turn-{turn + 1:03d}-carol.yaml"
                      for turn, (m, _) in enumerate(replay.history) if m.player == "carol"]
    assert run("verify", game, env=env).returncode == 0
