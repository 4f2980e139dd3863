"""Signed moves by mail (docs/mail.md, docs/audit.md "Signed moves"): a player with a key sends
the signature as a ``.sig`` attachment or as the armoured block in the text; a forged ``From``
without a valid signature is refused and nothing changes.

Keys and signatures are made by the real ``ssh-keygen`` (openssh-client; .ci/run installs it).
"""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

import pytest
from click.testing import CliRunner

from rebis_pbm.app import open_game
from rebis_pbm.cli import cli
from rebis_pbm.formats.yaml_writer import dump_yaml
from sshkeys import needs_ssh, ssh_key, ssh_sign
from transport_support import PLAYERS, REFEREE, new_args, pick_move

pytestmark = needs_ssh


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture
def signed_game(tmp_path) -> tuple[Path, Path]:
    """A referee-dealt game in which alice registered an ed25519 key; returns (record, key)."""
    key = ssh_key(tmp_path, "alice_key")
    game = tmp_path / "game.yaml"
    result = invoke(*new_args(game, "mail-signed", "signed"), "--key", f"alice={key}.pub")
    assert result.exit_code == 0, result.output
    return game, key


def alice_move(game: Path) -> bytes:
    state = open_game(game)[1].state
    assert state.player_to_move == "alice"
    return dump_yaml({"game": "signed", **pick_move(state).as_dict()}).encode()


def message(sender: str, body: str, attachments=()) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = REFEREE
    msg["Subject"] = "my move"
    msg["Message-ID"] = "<signed1@example.org>"
    msg.set_content(body)
    for name, data in attachments:
        msg.add_attachment(data, maintype="application", subtype="octet-stream", filename=name)
    return msg.as_bytes()


def mail_in(game: Path, data: bytes, tmp_path: Path):
    path = tmp_path / "msg.eml"
    path.write_bytes(data)
    return invoke("mail", "in", game, path, "--referee", REFEREE)


def test_a_move_with_its_sig_attachment_is_applied_and_its_signature_recorded(signed_game,
                                                                              tmp_path):
    game, key = signed_game
    move = alice_move(game)
    signature = ssh_sign(key, move)
    data = message(PLAYERS["alice"], "My move, signed.\n",
                   [("move.yaml", move), ("move.yaml.sig", signature)])
    result = mail_in(game, data, tmp_path)
    assert result.exit_code == 0, result.output
    assert "turn 1 applied (alice)" in result.output
    record = open_game(game).record
    assert len(record.moves) == 1 and record.proofs[0] is not None
    assert invoke("verify", game).exit_code == 0


def test_a_move_in_the_text_with_the_armoured_block_is_applied(signed_game, tmp_path):
    game, key = signed_game
    move = alice_move(game)
    signature = ssh_sign(key, move).decode()
    body = f"Hello referee,\n\n---\n{move.decode()}...\n\n{signature}\n-- \nalice\n"
    result = mail_in(game, message(PLAYERS["alice"], body), tmp_path)
    assert result.exit_code == 0, result.output
    assert "turn 1 applied (alice)" in result.output
    assert open_game(game).record.proofs[0] is not None


def test_a_move_in_a_block_with_its_sig_attached_is_checked_against_the_blocks_bytes(
        signed_game, tmp_path):
    """Issue 28: the move written between '---' and '...' in the text, its signature file
    attached: the signature is checked against the block's lines as the signed file holds
    them (docs/mail.md), not against the text with the lines around the block left empty."""
    game, key = signed_game
    move = alice_move(game)
    body = f"Hello referee,\nhere is my move.\n\n---\n{move.decode()}...\n\n-- \nalice\n"
    data = message(PLAYERS["alice"], body, [("move.yaml.sig", ssh_sign(key, move))])
    result = mail_in(game, data, tmp_path)
    assert result.exit_code == 0, result.output
    assert "turn 1 applied (alice)" in result.output
    assert open_game(game).record.proofs[0] is not None
    assert invoke("verify", game).exit_code == 0


@pytest.mark.parametrize("how", ["unsigned", "signed by another key"])
def test_a_forged_from_without_a_valid_signature_is_refused_and_nothing_changes(
        signed_game, tmp_path, how):
    """Carol forges alice's address: the From matches, but only alice's key signs for alice."""
    game, _ = signed_game
    move = alice_move(game)
    attachments = [("move.yaml", move)]
    if how != "unsigned":
        attachments.append(("move.yaml.sig", ssh_sign(ssh_key(tmp_path, "carol_key"), move)))
    before = game.read_bytes()
    result = mail_in(game, message(PLAYERS["alice"], "My move.\n", attachments), tmp_path)
    assert result.exit_code == 0, result.output  # handled: refused, a reply queued
    assert "refused" in result.output
    assert ("no signature came with it" if how == "unsigned" else "does not check") in \
        result.output
    assert game.read_bytes() == before
