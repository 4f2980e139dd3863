"""Refusals signed by the referee (issue 27 item 2, rebis-pbm/4, docs/audit.md "Who can do
what"): in a game with a referee key, a refusal mail carries the referee's signed statement
(game, header digest, point of the history, refused file's SHA-256, sender, exit code,
reason), and ``verify --refusal FILE`` tells it from a made-up or edited one. Real ssh-keygen,
real Maildir queue, the real mail in."""

from __future__ import annotations

import hashlib
import re
import secrets
import shutil
from email.message import EmailMessage
from pathlib import Path

import pytest

from clitools import run_inproc, run_script
from rebis_pbm.app import open_game
from rebis_pbm.app.signing import sign_texts
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.record.acts import refusal_text
from rebis_pbm.transports.mail.maildir import maildir_new
from sshkeys import needs_ssh, ssh_key, ssh_sign
from transport_support import PLAYERS, REFEREE, new_args, pick_move

pytestmark = needs_ssh
NOT_SIGNED = "not signed by this game's referee"
KEY_ENV = "REBIS_PBM_REFEREE_KEY"


def signed_game(folder: Path, referee_key: bool = True) -> tuple[Path, Path, Path]:
    """A referee-dealt game in which alice signs her moves and (``referee_key``) the referee
    has a key; returns (record, alice's key, the referee's key)."""
    alice = ssh_key(folder, "alice_key")
    key = ssh_key(folder, "referee_key")
    game = folder / "game.yaml"
    extra = ["--referee-key", key] if referee_key else []
    made = run_inproc(*new_args(game, "signed refusals", "refusals"), "--key",
                      f"alice={alice}.pub", *extra)
    assert made.code == 0, made.err
    return game, alice, key


def alice_move(game: Path) -> bytes:
    record, replay, _ = open_game(game)
    return dump_yaml({"game": record.game, "after": record.last_digest(),
                      **pick_move(replay.state).as_dict()}).encode()


def send(game: Path, folder: Path, attachments, key: Path | None) -> EmailMessage:
    """A message from alice's address with ``attachments`` through ``mail in``; the reply it
    queued, parsed."""
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = PLAYERS["alice"], REFEREE, "my move"
    msg["Message-ID"] = f"<{secrets.token_hex(6)}@example.org>"
    msg.set_content("My move.\n")
    for name, data in attachments:
        msg.add_attachment(data, maintype="application", subtype="octet-stream", filename=name)
    path = folder / "in.eml"
    path.write_bytes(bytes(msg))
    env = {KEY_ENV: str(key)} if key is not None else {KEY_ENV: None}
    done = run_inproc("mail", "in", game, path, "--referee", REFEREE, env=env)
    assert done.code == 0, done.out + done.err
    assert "refused" in done.out, done.out
    from rebis_pbm.transports.mail.policy import parse_message
    queued = sorted(maildir_new(game.with_name("game.mailq")), key=lambda p: p.stat().st_mtime)
    return parse_message(queued[-1].read_bytes())


def body(reply: EmailMessage) -> str:
    part = reply.get_body(("plain",))
    assert part is not None
    return part.get_content()


def test_a_refusal_mail_carries_the_referees_signed_statement_and_verify_checks_it(
        tmp_path, console_script):
    game, _, key = signed_game(tmp_path)
    move = alice_move(game)  # unsigned: alice registered a key, so it is refused
    reply = send(game, tmp_path, [("move.yaml", move)], key)
    text = body(reply)
    record = open_game(game).record
    assert "Referee's refusal: game refusals, move 0, chain_sha256 " in text
    assert f"header_sha256 {record.header_sha256}" in text
    assert f"file_sha256 {hashlib.sha256(move).hexdigest()}" in text
    assert "player alice\nexit 1\nreason " in text and "-----BEGIN SSH SIGNATURE-----" in text
    saved = tmp_path / "refusal.eml"
    saved.write_bytes(bytes(reply))
    for run in (run_inproc, lambda *a: run_script(console_script, *a)):
        out = run("verify", game, "--refusal", saved)
        assert out.code == 0, out.out + out.err
        assert "refusal signed by this game's referee" in out.out
        assert hashlib.sha256(move).hexdigest() in out.out and "sent by alice" in out.out
    # The refusal's text alone (as a player copies it out of the mail) checks the same.
    plain = tmp_path / "refusal.txt"
    plain.write_text(text)
    assert run_inproc("verify", game, "--refusal", plain).code == 0


def _statement(text: str) -> str:
    start = text.index("Referee's refusal:")
    return text[start:]


@pytest.mark.parametrize("edit", ["reason", "file digest", "player", "exit code"])
def test_a_real_refusal_edited_is_not_signed_by_the_referee(tmp_path, edit):
    """alice keeps the real refusal but changes what it says: the signature no longer fits."""
    game, _, key = signed_game(tmp_path)
    text = _statement(body(send(game, tmp_path, [("move.yaml", alice_move(game))], key)))
    if edit == "reason":
        changed = re.sub(r"\nreason [^\n]*", "\nreason the referee lost my move", text)
    elif edit == "file digest":
        changed = re.sub(r"file_sha256 [0-9a-f]{64}", f"file_sha256 {'ab' * 32}", text)
    elif edit == "player":
        changed = text.replace("\nplayer alice\n", "\nplayer bob\n")
    else:
        changed = text.replace("\nexit 1\n", "\nexit 2\n")
    assert changed != text
    forged = tmp_path / "forged.txt"
    forged.write_text(changed)
    out = run_inproc("verify", game, "--refusal", forged)
    assert out.code == 2, out.out + out.err
    assert NOT_SIGNED in out.err and "edited reason" in out.err


def test_a_made_up_refusal_is_told_from_a_real_one(tmp_path):
    """Someone claims "the referee refused my move": a typed statement, or one signed by a
    player's key in the referee's namespace, is not the referee's."""
    game, alice, _ = signed_game(tmp_path)
    record = open_game(game).record
    claim = refusal_text(record, "cd" * 32, "alice", 1, "the referee refused my move")
    made_up = tmp_path / "made-up.txt"
    made_up.write_text(claim + "\n")
    out = run_inproc("verify", game, "--refusal", made_up)
    assert out.code == 2 and NOT_SIGNED in out.err and "carries no signature" in out.err
    made_up.write_text(claim + "\n" + sign_texts(alice, [claim])[0])
    out = run_inproc("verify", game, "--refusal", made_up)
    assert out.code == 2 and NOT_SIGNED in out.err
    nothing = tmp_path / "nothing.txt"
    nothing.write_text("The referee refused my move.\n")
    out = run_inproc("verify", game, "--refusal", nothing)
    assert out.code == 2 and "holds no refusal statement" in out.err


def test_a_signed_refusal_the_record_contradicts_proves_a_rewrite(tmp_path):
    """A refusal the referee signed at a point of the history the record no longer holds: the
    record was rewritten since (exit 3, naming the move and the digests)."""
    game, _, key = signed_game(tmp_path)
    record = open_game(game).record
    claim = refusal_text(record, "cd" * 32, "alice", 1, "not your turn")
    other = secrets.token_hex(32)
    claim = claim.replace(f"chain_sha256 {record.last_digest()}", f"chain_sha256 {other}")
    signed = tmp_path / "signed.txt"
    signed.write_text(claim + "\n" + sign_texts(key, [claim])[0])
    out = run_inproc("verify", game, "--refusal", signed)
    assert out.code == 3, out.out + out.err
    assert other in out.out and "rewritten" in out.out


def test_a_game_without_a_referee_key_sends_refusals_as_before(tmp_path):
    game, _, key = signed_game(tmp_path, referee_key=False)
    reply = send(game, tmp_path, [("move.yaml", alice_move(game))], None)
    text = body(reply)
    assert "Referee's refusal" not in text and "SSH SIGNATURE" not in text
    # A statement signed by some key proves nothing in a game whose referee signs none.
    record = open_game(game).record
    claim = refusal_text(record, "cd" * 32, "alice", 1, "refused")
    typed = tmp_path / "typed.txt"
    typed.write_text(claim + "\n" + sign_texts(key, [claim])[0])
    out = run_inproc("verify", game, "--refusal", typed)
    assert out.code == 2 and "has no referee key" in out.err


def test_a_signed_refusal_needs_the_referee_key(tmp_path):
    """A game with a referee key sends no unsigned refusal: without the key, mail in stops
    before answering (the referee's side), and the message is answered once the key is
    given."""
    game, _, key = signed_game(tmp_path)
    move = alice_move(game)
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = PLAYERS["alice"], REFEREE, "my move"
    msg.set_content("My move.\n")
    msg.add_attachment(move, maintype="application", subtype="octet-stream",
                       filename="move.yaml")
    msg.add_attachment(ssh_sign(ssh_key(tmp_path, "carol"), move), maintype="application",
                       subtype="octet-stream", filename="move.yaml.sig")
    path = tmp_path / "in.eml"
    path.write_bytes(bytes(msg))
    done = run_inproc("mail", "in", game, path, "--referee", REFEREE, env={KEY_ENV: None})
    assert done.code == 2, done.out + done.err
    assert "--referee-key" in done.err
    assert not game.with_name("game.mailq").exists() or not maildir_new(
        game.with_name("game.mailq"))
    done = run_inproc("mail", "in", game, path, "--referee", REFEREE, env={KEY_ENV: str(key)})
    assert done.code == 0 and "refused" in done.out, done.out + done.err
    replies = maildir_new(game.with_name("game.mailq"))
    assert len(replies) == 1 and b"Referee's refusal: game refusals" in replies[0].read_bytes()


@pytest.mark.skipif(not shutil.which("git"), reason="needs git (Debian: git)")
def test_a_public_repositorys_refusal_file_carries_the_signed_statement(tmp_path):
    """git apply in a public repository of a game with a referee key: the refusal file,
    encrypted to its mover, holds the reason and the referee's signed statement, which verify
    --refusal checks against the record; the statement edited fails."""
    from test_public_game import GAME_ID, my_view, refused, send, set_up, status

    from rebis_pbm.crypto import age as encryption
    table = set_up(tmp_path, referee_key=True)
    now = status(table, "alice")
    mover, turn = now["player"], now["turn"]
    other = next(p for p in PLAYERS if p != mover)
    theirs = my_view(table, other).state
    hand = theirs.hands[theirs.players.index(other)]
    file = send(table, other, {"game": GAME_ID, "turn": turn, "player": other,
                               "play": {"cards": hand[0], "shelf": other, "sign": "positive"}})
    reason = refused(table, other, turn)
    note = table.clone(other) / f"refusals/turn-{turn:03d}-{other}.txt.age"
    text = encryption.decrypt(note.read_bytes(), table.keys[other]).decode().rstrip("\0")
    assert reason.splitlines()[0] in text and f"\nplayer {other}\nexit 1\n" in text
    assert "-----BEGIN SSH SIGNATURE-----" in text
    sealed = table.clone(other) / "moves" / f"{file}.age"
    assert not sealed.exists()  # removed by the job: its digest is the one committed before
    saved = tmp_path / "refusal.txt"
    saved.write_text(text)
    record = table.clone(other) / "game.yaml"
    out = run_inproc("verify", record, "--refusal", saved)
    assert out.code == 0, out.out + out.err
    assert f"sent by {other} was refused (exit 1" in out.out
    saved.write_text(re.sub(r"\nreason [^\n]*", "\nreason lost by the referee", text))
    out = run_inproc("verify", record, "--refusal", saved)
    assert out.code == 2 and NOT_SIGNED in out.err
