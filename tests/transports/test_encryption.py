"""Encryption to a file's readers (rebis_pbm.crypto.age, `open`, `seal`,
`keygen-referee`, `apply --identity`, referee.write_encrypted_views), checked against the real
`age` and `ssh-keygen` programs: what rebis-pbm encrypts, `age -d -i ~/.ssh/id_ed25519` opens,
and only the reader it is for."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from rebis_pbm import app as referee
from rebis_pbm.crypto import age as encryption
from rebis_pbm.errors import Failed, InputError
from sshkeys import needs_ssh, ssh_key
from transport_support import run, secret_key

pytestmark = needs_ssh
needs_age = pytest.mark.skipif(not shutil.which("age"),
                               reason="needs the age program (Debian: age; .ci/run installs it)")
SEED = "encryption test seed"


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> dict[str, Path]:
    """Private key files: alice ed25519, bob rsa, carol ed25519."""
    folder = tmp_path_factory.mktemp("keys")
    return {"alice": ssh_key(folder, "alice"), "bob": ssh_key(folder, "bob", "rsa"),
            "carol": ssh_key(folder, "carol")}


def pub(key: Path) -> str:
    return key.with_suffix(".pub").read_text().strip()


def age_decrypt(path: Path, key: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["age", "-d", "-i", str(key), str(path)], capture_output=True)


@needs_age
@pytest.mark.parametrize("who", ["alice", "bob"])  # ed25519 and rsa
def test_age_opens_what_is_encrypted_to_an_ssh_key_and_another_key_does_not(tmp_path, keys, who):
    sealed = tmp_path / "note.age"
    sealed.write_bytes(encryption.encrypt_to_ssh_keys(b"a secret\n", [pub(keys[who])]))
    assert age_decrypt(sealed, keys[who]).stdout == b"a secret\n"
    other = age_decrypt(sealed, keys["carol"])
    assert other.returncode != 0 and b"a secret" not in other.stdout
    assert encryption.decrypt(sealed.read_bytes(), keys[who]) == b"a secret\n"
    with pytest.raises(InputError, match=r"not encrypted to .*carol"):
        encryption.decrypt(sealed.read_bytes(), keys["carol"], str(sealed))


@needs_age
def test_an_age_recipient_and_identity_file_round_trip_through_the_age_program(tmp_path):
    text, recipient = encryption.new_identity()
    identity = tmp_path / "referee.key"
    identity.write_text(text)
    sealed = tmp_path / "m.age"
    sealed.write_bytes(encryption.encrypt_to_age(b"turn: 1\n", recipient))
    assert age_decrypt(sealed, identity).stdout == b"turn: 1\n"
    assert encryption.recipient_of(identity) == recipient


def test_keys_age_cannot_use_are_refused_each_with_one_sentence(tmp_path, keys):
    ecdsa = ssh_key(tmp_path, "ec", "ecdsa")
    locked = ssh_key(tmp_path, "locked", passphrase="secret words")
    with pytest.raises(InputError, match="ecdsa-sha2-nistp256 is not a key age can encrypt to"):
        encryption.encrypt_to_ssh_keys(b"x", [pub(ecdsa)])
    with pytest.raises(InputError, match="not an age recipient"):
        encryption.encrypt_to_age(b"x", "age1notarecipient")
    sealed = encryption.encrypt_to_ssh_keys(b"x", [pub(keys["alice"])])
    with pytest.raises(InputError, match=r"locked: this SSH key is protected by a passphrase"):
        encryption.decrypt(sealed, locked)
    with pytest.raises(InputError, match=r"alice.pub: this is a public key"):
        encryption.decrypt(sealed, keys["alice"].with_suffix(".pub"))
    with pytest.raises(InputError, match=re.escape("m.yaml: this is not an age-encrypted file")):
        encryption.decrypt(b"turn: 1\n", keys["alice"], "m.yaml")
    with pytest.raises(InputError,
                       match=re.escape("missing.key: the identity file cannot be read")):
        encryption.decrypt(sealed, tmp_path / "missing.key")


def key_of(game: Path) -> str:
    """The game's secret as REBIS_PBM_SEED holds it (SALT:SEED, rebis-pbm/2)."""
    return secret_key(game.with_name("game.secret.yaml"))


@pytest.fixture
def game(tmp_path) -> Path:
    path = tmp_path / "game.yaml"
    referee.create_game(path, ["alice", "bob", "carol"], seed=SEED, game_id="sealed",
                        insecure_seed=True)
    return path


@needs_age
def test_encrypted_views_are_readable_by_their_player_only_and_no_plain_view_is_left(
        tmp_path, game, keys, monkeypatch):
    views = tmp_path / "game.views"
    assert (views / "alice.yaml").exists()  # the plain views of `new`
    monkeypatch.setenv("REBIS_PBM_SEED", key_of(game))
    record, replay, _ = referee.open_game(game)
    referee.write_views(views, record, replay, keys={p: pub(k) for p, k in keys.items()})
    names = sorted(os.listdir(views))
    assert names == sorted(["public.yaml", "public.txt",
                            *(f"{p}.{s}.age" for p in keys for s in ("yaml", "txt"))])
    for player, key in keys.items():
        plain = run("view", game, "--player", player, "--format", "yaml",
                    env={"REBIS_PBM_SEED": key_of(game)}).stdout
        # padded to 16 KiB with a last line of spaces (age does not hide a length)
        assert age_decrypt(views / f"{player}.yaml.age", key).stdout == \
            plain + b" " * (encryption.VIEW_PAD - len(plain) - 1) + b"\n"
        for other in keys:
            if other != player:
                assert age_decrypt(views / f"{other}.yaml.age", key).returncode != 0
                assert age_decrypt(views / f"{other}.txt.age", key).returncode != 0


def test_an_encrypted_text_view_speaks_its_players_language(tmp_path, keys, monkeypatch):
    """A player who reads French (issue 18) gets their encrypted text view in French; the YAML
    view, and the others' views, as ever."""
    game = tmp_path / "game.yaml"
    referee.create_game(game, ["alice", "bob", "carol"], seed=SEED, game_id="sealed",
                        insecure_seed=True, langs={"alice": "fr", "carol": "pt"})
    monkeypatch.setenv("REBIS_PBM_SEED", key_of(game))
    record, replay, _ = referee.open_game(game)
    views = tmp_path / "encrypted"
    referee.write_encrypted_views(views, record, replay, {p: pub(k) for p, k in keys.items()})

    def opened(name: str, player: str) -> str:
        return encryption.decrypt((views / name).read_bytes(), keys[player]).decode()

    assert opened("alice.txt.age", "alice").startswith("Partie de Rebis sealed - vue d'alice")
    assert "viewer: alice" in opened("alice.yaml.age", "alice")
    assert opened("carol.txt.age", "carol").startswith("Jogo de Rebis sealed - vista de carol")
    assert opened("bob.txt.age", "bob").startswith("Rebis game sealed - view of bob")
    assert (views / "public.txt").read_text().startswith("Rebis game sealed - spectator view")


def test_encrypted_views_are_refused_when_a_player_has_no_key(tmp_path, game, keys,
                                                              monkeypatch):
    monkeypatch.setenv("REBIS_PBM_SEED", key_of(game))
    record, replay, _ = referee.open_game(game)
    out = tmp_path / "out"
    with pytest.raises(Failed, match=r"carol has no public key.*nothing was written"):
        referee.write_encrypted_views(out, record, replay,
                                      {"alice": pub(keys["alice"]), "bob": pub(keys["bob"])})
    assert not out.exists()


def test_open_prints_a_view_to_its_player_and_refuses_another_key(cli, tmp_path, keys):
    sealed = tmp_path / "alice.txt.age"
    sealed.write_bytes(encryption.encrypt_to_ssh_keys(b"Your hand: 1 2 3\n",
                                                      [pub(keys["alice"])]))
    done = cli("open", sealed, "--identity", keys["alice"])
    assert done.code == 0, done.err
    assert done.out == "Your hand: 1 2 3\n"
    wrong = cli("open", sealed, "--identity", keys["bob"])
    assert wrong.code == 2
    assert "is not encrypted to" in wrong.err and "Your hand" not in wrong.out


def test_a_sealed_signed_move_is_applied_with_the_referees_identity_only(cli, tmp_path, game,
                                                                         keys):
    identity = tmp_path / "referee.key"
    made = cli("keygen-referee", identity)
    assert made.code == 0, made.err
    recipient = made.out.split("Recipient (give it to the players): ")[1].split()[0]
    assert (identity.stat().st_mode & 0o777) == 0o600
    assert cli("keygen-referee", identity).code == 2  # never replaced
    listing = run("moves", game, "--player", "alice", env={"REBIS_PBM_SEED": key_of(game)}).stdout
    move = tmp_path / "turn-001-alice.yaml"
    move.write_bytes(listing.split(b"---")[1].lstrip())
    sealed = cli("seal", move, "--to", recipient, "--key", keys["alice"])
    assert sealed.code == 0, sealed.err
    move_age, sig_age = Path(f"{move}.age"), Path(f"{move}.sig.age")
    assert b"turn" not in move_age.read_bytes()
    # The signature is the standard one, and it is sealed too.
    sig = encryption.decrypt(sig_age.read_bytes(), identity)
    (tmp_path / "check.sig").write_bytes(sig)
    with open(move, "rb") as data:
        checked = subprocess.run(["ssh-keygen", "-Y", "check-novalidate", "-n", "rebis-pbm",
                                  "-s", str(tmp_path / "check.sig")], stdin=data,
                                 capture_output=True)
    assert checked.returncode == 0, checked.stderr
    env = {"REBIS_PBM_SEED": key_of(game)}
    without = cli("apply", game, move_age, env=env)
    assert without.code == 2 and "--identity" in without.err
    wrong = cli("apply", game, move_age, "--identity", keys["bob"], env=env)
    assert wrong.code == 2 and "is not encrypted to" in wrong.err
    applied = cli("apply", game, move_age, "--check-name", env={
        **env, "REBIS_PBM_AGE_IDENTITY": str(identity)})
    assert applied.code == 0, applied.err
    assert "Turn 1:" in applied.out
