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
from rebis_pbm.crypto.sshsig_form import canonical_key, dearmour
from sshkeys import (
    MALLEATIONS,
    REFUSED_BY_SSH_KEYGEN,
    malleated,
    needs_ssh,
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


# --------------------------------------------------------------------------- end to end

def test_apply_refuses_the_malleated_move_signature_and_changes_nothing(cli, tmp_path):
    """The tester's reproduction: ann's real move signature with the key blob's inner length
    byte changed. apply refuses it with the sentence a wrong signature gets (exit as for one),
    the record unchanged; the real signature then applies."""
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
    assert yaml.safe_load(bot.out)["player"] == "ann"
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
