"""Signature malleability (the thirteenth tester's finding): a player's or the referee's real
SSH signature respelled (a length field changed, a byte appended, ...) keeps its mathematics,
and the ``sshsig`` package's lenient reader took it where ``ssh-keygen -Y verify`` refuses it.
rebis-pbm accepts a signature in its canonical form only (rebis_pbm/crypto/sshsig_form.py).

Every signature here is made by the real ``ssh-keygen`` (tests/sshkeys.py); the attacks on a
record and a witness are tests/record/test_record_archive.py's.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
import yaml

from clitools import run_inproc
from rebis_pbm.app.signing import sign_texts
from rebis_pbm.crypto.signatures import REFEREE_NAMESPACE, signed_by
from rebis_pbm.crypto.sshsig_form import canonical_key, dearmour, recorded_armour
from rebis_pbm.record.witness import signature_after
from sshkeys import (
    ARMOUR_REFUSED_BY_SSH_KEYGEN,
    ARMOUR_STRICTER,
    ARMOUR_TAKEN,
    MALLEATIONS,
    REFUSED_BY_SSH_KEYGEN,
    malleated,
    needs_ssh,
    respelled_armour,
    ssh_key,
    ssh_sign,
    ssh_verifies,
)

pytestmark = needs_ssh
DATA = b"game: g\nturn: 1\nplayer: ann\npass: true\n"


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("keys")
    return {kind: ssh_key(folder, kind, kind) for kind in ("ed25519", "rsa")}


def line(key: Path) -> str:
    return " ".join(Path(f"{key}.pub").read_text(encoding="ascii").split()[:2])


@pytest.mark.parametrize("kind", ["ed25519", "rsa"])
def test_a_real_signature_checks_with_both_readers(keys, kind, tmp_path):
    signature = ssh_sign(keys[kind], DATA).decode("ascii")
    assert ssh_verifies(Path(f"{keys[kind]}.pub"), DATA, signature, tmp_path)
    assert signed_by(DATA, signature, (line(keys[kind]),))
    assert canonical_key(signature, "rebis-pbm") == base64.b64decode(line(keys[kind]).split()[1])


@pytest.mark.parametrize(("kind", "how"), [(kind, how) for kind in ("ed25519", "rsa")
                                           for how in MALLEATIONS
                                           if how != "rsa-mpint" or kind == "rsa"])
def test_a_respelled_real_signature_is_refused(keys, kind, how, tmp_path):
    """Attack: a real signature respelled as ``how``. The standard tool refuses the ones it
    refuses; rebis-pbm refuses every one (the tester's was ``inner-length``)."""
    real = ssh_sign(keys[kind], DATA).decode("ascii")
    forged = malleated(real, how)
    assert forged != real
    if how in REFUSED_BY_SSH_KEYGEN:
        assert not ssh_verifies(Path(f"{keys[kind]}.pub"), DATA, forged, tmp_path), how
    assert canonical_key(forged, "rebis-pbm") is None
    assert not signed_by(DATA, forged, (line(keys[kind]),))
    assert not signed_by(DATA, forged.encode("ascii"), (line(keys[kind]),))
    assert signed_by(DATA, real, (line(keys[kind]),))  # the original still checks


@pytest.mark.parametrize("how", MALLEATIONS[:-1])
def test_a_respelled_referee_signature_is_refused(keys, how, tmp_path):
    """The referee's signatures (witnesses, stand-in moves, logged actions, refusals) are
    checked by the same function, in the referee's namespace."""
    real = sign_texts(keys["ed25519"], ["Witness: game g, move 3, chain_sha256 00"])[0]
    data = b"Witness: game g, move 3, chain_sha256 00"
    assert signed_by(data, real, (line(keys["ed25519"]),), namespace=REFEREE_NAMESPACE)
    forged = malleated(real, how)
    if how in REFUSED_BY_SSH_KEYGEN:
        assert not ssh_verifies(Path(f"{keys['ed25519']}.pub"), data, forged, tmp_path,
                                namespace=REFEREE_NAMESPACE)
    assert not signed_by(data, forged, (line(keys["ed25519"]),), namespace=REFEREE_NAMESPACE)


def test_the_embedded_key_must_be_the_registered_keys_blob(keys):
    """A real signature by another key, or in another namespace, is no signature of this one."""
    signature = ssh_sign(keys["rsa"], DATA).decode("ascii")
    assert not signed_by(DATA, signature, (line(keys["ed25519"]),))
    assert not signed_by(DATA, signature, (line(keys["rsa"]),), namespace=REFEREE_NAMESPACE)
    assert signed_by(DATA, signature, (line(keys["ed25519"]), line(keys["rsa"])))


@pytest.mark.parametrize("text", [
    "", "-----BEGIN SSH SIGNATURE-----\n-----END SSH SIGNATURE-----\n",
    "-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n",
    "-----BEGIN SSH SIGNATURE-----\nU1NIU0lHAAAAAQ\n-----END SSH SIGNATURE-----\n",
    "-----BEGIN SSH SIGNATURE-----\nU1NIU0lHAAAAAR==\n-----END SSH SIGNATURE-----\n",
    b"\xff\xfe", "not a signature at all",
])
def test_a_damaged_block_reads_as_not_signed(keys, text):
    assert canonical_key(text, "rebis-pbm") is None
    assert not signed_by(DATA, text, (line(keys["ed25519"]),))


def test_padding_bits_that_are_not_zero_are_another_spelling(keys):
    """The last base64 character's unused bits set: the same bytes to a lenient decoder."""
    real = ssh_sign(keys["ed25519"], DATA).decode("ascii")
    lines = real.strip().splitlines()
    last = lines[-2]
    assert last.endswith("=")  # a 269-byte blob: one padding character
    body = last.rstrip("=")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    bumped = alphabet[alphabet.index(body[-1]) + 1]  # the lowest (unused) bit set
    lines[-2] = body[:-1] + bumped + "=" * (len(last) - len(body))
    forged = "\n".join(lines) + "\n"
    assert dearmour(forged) is None
    assert not signed_by(DATA, forged, (line(keys["ed25519"]),))


# ------------------------------------------------------------------ the armour's line ends

@pytest.mark.parametrize("how", ARMOUR_REFUSED_BY_SSH_KEYGEN)
def test_an_armour_split_by_another_character_than_lf_is_refused(keys, how, tmp_path):
    """Attack (the fourteenth tester): a real signature's armour with its lines separated by
    CR alone, a vertical tab after BEGIN, FS, NEL or U+2028 (which str.splitlines() took as
    line breaks), or a NUL inside it. ssh-keygen -Y verify refuses each; so does rebis-pbm,
    whichever way the armour comes in."""
    real = ssh_sign(keys["ed25519"], DATA).decode("ascii")
    forged = respelled_armour(real, how)
    assert forged != real
    assert ssh_verifies(Path(f"{keys['ed25519']}.pub"), DATA, real, tmp_path)
    assert not ssh_verifies(Path(f"{keys['ed25519']}.pub"), DATA, forged, tmp_path), how
    assert dearmour(forged) is None and recorded_armour(forged) is None
    assert recorded_armour(forged.encode("utf-8")) is None
    assert not signed_by(DATA, forged, (line(keys["ed25519"]),))
    assert not signed_by(DATA, forged.encode("utf-8"), (line(keys["ed25519"]),))
    after = signature_after("\n" + forged)  # under a witness line of a saved view
    assert after is None or not signed_by(DATA, after, (line(keys["ed25519"]),))


@pytest.mark.parametrize("how", ARMOUR_STRICTER)
def test_an_armour_ssh_keygen_takes_with_a_control_character_or_a_tail_is_refused(
        keys, how, tmp_path):
    """rebis-pbm is stricter than ssh-keygen here: ssh-keygen skips a vertical tab or a CR
    inside the base64 and ignores what follows the END line; rebis-pbm takes no control
    character but LF and tab in the armour, and nothing after the END line but its LF."""
    real = ssh_sign(keys["ed25519"], DATA).decode("ascii")
    forged = respelled_armour(real, how)
    assert ssh_verifies(Path(f"{keys['ed25519']}.pub"), DATA, forged, tmp_path), how
    assert dearmour(forged) is None and recorded_armour(forged) is None
    assert not signed_by(DATA, forged, (line(keys["ed25519"]),))


@pytest.mark.parametrize("how", ARMOUR_TAKEN)
def test_an_armour_with_spaces_or_another_width_is_taken_as_ssh_keygen_takes_it(
        keys, how, tmp_path):
    """Spaces and tabs around the base64 lines, blank lines between them, another width: the
    same blob; ssh-keygen takes each, and so does rebis-pbm, recording it as sent (with a final
    LF)."""
    real = ssh_sign(keys["ed25519"], DATA).decode("ascii")
    respelled = respelled_armour(real, how)
    assert ssh_verifies(Path(f"{keys['ed25519']}.pub"), DATA, respelled, tmp_path), how
    assert signed_by(DATA, respelled, (line(keys["ed25519"]),))
    kept = recorded_armour(respelled.encode("ascii"))
    assert kept == respelled.rstrip("\n") + "\n"
    assert ssh_verifies(Path(f"{keys['ed25519']}.pub"), DATA, kept, tmp_path)


def test_a_mails_crlf_line_ends_are_read_as_lf(keys, tmp_path):
    """A mail carries the armour with CRLF line ends. ssh-keygen 9.2 refuses that file as it is
    (it wants an LF right after BEGIN), so signed_by, the check of what a record holds, refuses
    it too; where it comes in (a move's .sig or block, a command's, a saved view's) it is read
    as LF, which both take and the record keeps. A bare CR stays refused."""
    real = ssh_sign(keys["ed25519"], DATA).decode("ascii")
    crlf = respelled_armour(real, "crlf")
    assert not ssh_verifies(Path(f"{keys['ed25519']}.pub"), DATA, crlf, tmp_path)
    assert not signed_by(DATA, crlf, (line(keys["ed25519"]),))
    assert recorded_armour(crlf) == recorded_armour(crlf.encode("ascii")) == real
    assert signature_after("\r\n\r\n" + crlf) == real  # under a saved mail's witness line
    assert recorded_armour(crlf.replace("\r\n", "\r", 1)) is None  # a bare CR after BEGIN
    assert recorded_armour(crlf[:-2] + "\r") is None  # ... or after END


# --------------------------------------------------------------------------- end to end

def test_apply_refuses_the_malleated_move_signature_and_changes_nothing(cli, tmp_path):
    """The tester's reproduction: ann's real move signature with the key blob's inner length
    byte changed. apply refuses it with the sentence a wrong signature gets (exit as for one),
    the record unchanged; the real signature then applies."""
    keys, game, move = _keyed_game(tmp_path)
    assert yaml.safe_load(move.read_text())["player"] == "ann"
    sig = Path(f"{move}.sig")
    real = ssh_sign(keys["ann"], move.read_bytes())
    before = game.read_bytes()

    sig.write_bytes(ssh_sign(keys["bo"], move.read_bytes()))  # a wrong signature, for its words
    wrong = cli("apply", game, move)
    assert wrong.code != 0 and "signature does not check" in wrong.err, wrong.err
    assert game.read_bytes() == before

    forged = malleated(real, "inner-length")
    assert not ssh_verifies(Path(f"{keys['ann']}.pub"), move.read_bytes(), forged, tmp_path)
    sig.write_text(forged, encoding="ascii")
    done = cli("apply", game, move)
    assert (done.code, done.err) == (wrong.code, wrong.err), done.err
    assert game.read_bytes() == before

    sig.write_bytes(real)
    done = cli("apply", game, move)
    assert done.code == 0, done.err
    assert game.read_bytes() != before


def _keyed_game(tmp_path: Path) -> tuple[dict[str, Path], Path, Path]:
    """A referee deal of ann and bo, each with a key: (their keys, the record, ann's move
    file as the greedy bot writes it, unsigned)."""
    keys = {p: ssh_key(tmp_path, p) for p in ("ann", "bo")}
    game = tmp_path / "game.yaml"
    made = run_inproc("new", game, "--player", "ann", "--player", "bo", "--seed", "strict sig",
                      "--insecure-seed", "--referee-deal", "--game-id", "ss",
                      "--key", f"ann={keys['ann']}.pub", "--key", f"bo={keys['bo']}.pub")
    assert made.code == 0, made.err
    bot = run_inproc("bot", game, "--player", "ann", "--strategy", "greedy")
    assert bot.code == 0, bot.err
    move = tmp_path / "m.yaml"
    move.write_text(bot.out, encoding="utf-8")
    return keys, game, move


def _recorded_signature(game: Path) -> tuple[str, bytes]:
    entry = yaml.safe_load(game.read_text(encoding="utf-8"))["moves"][0]
    return entry["signature"], entry["signed"].encode("utf-8")


def test_apply_refuses_every_armour_ssh_keygen_refuses_and_keeps_a_crlf_one_as_lf(cli, tmp_path):
    """The tester's reproduction end to end: ann's real move signature re-armoured with CR-only
    line ends, a vertical tab after BEGIN, FS, NEL, U+2028 or a NUL (and the spellings
    rebis-pbm is stricter on): apply refuses each with a wrong signature's sentence and the
    record's bytes unchanged. Then the same signature with a mail's CRLF line ends: taken, the
    record keeping it with LF, which ssh-keygen -Y verify takes, and verify re-checks."""
    keys, game, move = _keyed_game(tmp_path)
    sig = Path(f"{move}.sig")
    real = ssh_sign(keys["ann"], move.read_bytes())
    before = game.read_bytes()
    sig.write_bytes(ssh_sign(keys["bo"], move.read_bytes()))  # a wrong signature, for its words
    wrong = cli("apply", game, move)
    assert wrong.code != 0 and "signature does not check" in wrong.err, wrong.err
    for how in (*ARMOUR_REFUSED_BY_SSH_KEYGEN, *ARMOUR_STRICTER):
        forged = respelled_armour(real, how)
        sig.write_bytes(forged.encode("utf-8"))
        done = cli("apply", game, move)
        assert (done.code, done.err) == (wrong.code, wrong.err), (how, done.err)
        assert game.read_bytes() == before, how
    sig.write_bytes(respelled_armour(real, "crlf").encode("ascii"))
    done = cli("apply", game, move)
    assert done.code == 0, done.err
    stored, signed = _recorded_signature(game)
    assert stored == real.decode("ascii")
    assert ssh_verifies(Path(f"{keys['ann']}.pub"), signed, stored, tmp_path)
    checked = cli("verify", game)
    assert checked.code == 0, checked.err


def test_apply_records_a_respelled_armour_ssh_keygen_takes_as_sent(cli, tmp_path):
    """Spaces, tabs and blank lines inside the armour: ssh-keygen takes it; so does apply, and
    the record keeps it as sent, byte for byte, which ssh-keygen and verify take again."""
    keys, game, move = _keyed_game(tmp_path)
    real = ssh_sign(keys["ann"], move.read_bytes())
    respelled = respelled_armour(real, "tabs")
    Path(f"{move}.sig").write_text(respelled, encoding="ascii")
    done = cli("apply", game, move)
    assert done.code == 0, done.err
    stored, signed = _recorded_signature(game)
    assert stored == respelled
    assert ssh_verifies(Path(f"{keys['ann']}.pub"), signed, stored, tmp_path)
    checked = cli("verify", game)
    assert checked.code == 0, checked.err


def test_a_mails_crlf_signature_is_recorded_as_lf_and_a_split_one_refused(tmp_path):
    """By mail (SMTP carries CRLF line ends): a move pasted with its armoured block, the whole
    message's lines ended by CRLF, is taken and its signature recorded with LF, which
    ssh-keygen takes; the same move with a .sig attachment whose armour is split by a vertical
    tab after BEGIN (the tester's) is refused, nothing changed."""
    from email.message import EmailMessage

    from rebis_pbm.app import open_game
    from rebis_pbm.formats.yaml_writer import dump_yaml
    from transport_support import PLAYERS, REFEREE, new_args, pick_move

    key = ssh_key(tmp_path, "alice_key")
    game = tmp_path / "game.yaml"
    made = run_inproc(*new_args(game, "mail-crlf", "crlf"), "--key", f"alice={key}.pub")
    assert made.code == 0, made.err
    record, replay, _ = open_game(game)
    move = dump_yaml({"game": "crlf", "after": record.last_digest(),
                      **pick_move(replay.state).as_dict()}).encode()
    real = ssh_sign(key, move)

    def mail_in(body: str, attachments: tuple[tuple[str, bytes], ...] = ()) -> tuple[int, str]:
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = PLAYERS["alice"], REFEREE, "my move"
        msg["Message-ID"] = "<crlf1@example.org>"
        msg.set_content(body)
        for name, data in attachments:
            msg.add_attachment(data, maintype="application", subtype="octet-stream",
                               filename=name)
        path = tmp_path / "msg.eml"
        path.write_bytes(msg.as_bytes().replace(b"\n", b"\r\n"))
        done = run_inproc("mail", "in", game, path, "--referee", REFEREE)
        return done.code, done.out + done.err

    before = game.read_bytes()
    forged = respelled_armour(real, "vt-after-begin").encode("ascii")
    assert not ssh_verifies(Path(f"{key}.pub"), move, forged, tmp_path)
    code, said = mail_in("My move.\n", (("move.yaml", move), ("move.yaml.sig", forged)))
    assert "refused" in said and "signature does not check" in said, said  # a reply says so
    assert game.read_bytes() == before

    body = f"Hello referee,\n\n---\n{move.decode()}...\n\n{real.decode()}\n-- \nalice\n"
    code, said = mail_in(body)
    assert code == 0 and "turn 1 applied (alice)" in said, said
    stored, signed = _recorded_signature(game)
    assert stored == real.decode("ascii") and signed == move
    assert ssh_verifies(Path(f"{key}.pub"), move, stored, tmp_path)
    assert run_inproc("verify", game).code == 0
