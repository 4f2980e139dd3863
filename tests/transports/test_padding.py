"""Padding of encrypted files (docs/formats.md, "Padding of encrypted files"; issue 13's attack,
finding 4): age hides what a file says but not its length, so every private view is padded to
one size (16 KiB for a game with the default ruleset), every refusal to a multiple of 4 KiB and
every sealed move to 1024 bytes, before it is encrypted (a move: before it is signed, so the
signature covers the padding). The length attack is performed: the plaintext length computed
from an age file's size, as the tester did, learns nothing. (An age file's size still varies by
a few dozen bytes at random: age's header carries a "grease" stanza of random length, which says
nothing of the content; sizes are compared after the header.)

Also `seal`'s checks (finding 6): a key that is not the mover's is refused when the record is
at hand, and a text view given as --game is refused with a sentence naming what to give."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from test_encryption import key_of, pub

from rebis_pbm import app as referee
from rebis_pbm.crypto import age as encryption
from rebis_pbm.formats.yaml_reader import load_yaml
from rebis_pbm.formats.yaml_writer import dump_yaml
from sshkeys import ssh_key, ssh_sign
from transport_support import run

pytestmark = pytest.mark.skipif(not shutil.which("ssh-keygen"),
                                reason="needs ssh-keygen (Debian: openssh-client; .ci/run "
                                       "installs it)")
needs_age = pytest.mark.skipif(not shutil.which("age"),
                               reason="needs the age program (Debian: age; .ci/run installs it); "
                                      "the rest is checked with rebis-pbm's own decryption")
LONG = "l" + "o" * 31  # the longest name a player may have (32 letters)
SEED = "padding test seed"


def body_length(data: bytes) -> int:
    """The length of an age file after its header (the header ends with its '---' line). The
    header's own length varies at random: age adds a "grease" stanza of random size to it, so a
    file's size is compared without it."""
    start = data.index(b"\n---")
    return len(data) - (data.index(b"\n", start + 1) + 1)


def plaintext_length(data: bytes) -> int:
    """The length attack of the report (its agelen.py): an age file's plaintext length from
    its size alone (after the header: a 16-byte nonce, then 16 bytes of tag per 64 KiB chunk)."""
    payload = body_length(data) - 16
    chunks = (payload + 65535 + 16) // (65536 + 16)
    return payload - 16 * chunks


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("keys")
    return {p: ssh_key(folder, p) for p in ("alice", "bob", LONG)}


@pytest.fixture(scope="module")
def table(tmp_path_factory, keys) -> tuple[Path, Path, str]:
    """A game whose players registered keys and which has a referee recipient: (the record,
    the referee's identity file, its recipient)."""
    root = tmp_path_factory.mktemp("table")
    identity = root / "referee.key"
    text, recipient = encryption.new_identity()
    identity.write_text(text)
    game = root / "game.yaml"
    referee.create_game(game, list(keys), seed=SEED, game_id="padded", insecure_seed=True,
                        keys={p: pub(k) for p, k in keys.items()}, referee_recipient=recipient)
    return game, identity, recipient


def test_sealed_moves_of_every_kind_have_one_length_and_the_length_attack_learns_nothing(
        tmp_path, keys, table):
    game, identity, _ = table
    play = {"cards": 3, "shelf": "alice", "sign": "positive"}
    kinds = {
        "single": {"play": play},
        "pair": {"play": {**play, "cards": [5, 5]}},
        "long target, negative": {"play": {"cards": 9, "shelf": LONG, "sign": "negative"}},
        "golden dust and gold token": {"golden_dust": 2, "play": play,
                                       "gold_token": {"player": LONG, "shelf": 12}},
        "red token": {"red_token": {"player": LONG, "shelf": 999}},
    }
    sizes: dict[str, set[int]] = {".age": set(), ".sig.age": set()}
    learnt = set()
    for number, (kind, fields) in enumerate(kinds.items(), 1):
        plain = tmp_path / f"turn-{number:03d}-alice.yaml"
        plain.write_text(dump_yaml({"game": "padded", "turn": number, "player": "alice",
                                    **fields}))
        plain.chmod(0o600)  # a closing play's card is a secret: the padded file stays private
        doc = load_yaml(plain.read_bytes(), source=kind, kind="move").data
        written = referee.seal_move(plain, [], keys["alice"], game=game).written
        assert plain.stat().st_mode & 0o777 == 0o600
        assert written == [f"{plain}.age", f"{plain}.sig.age"]
        padded = plain.read_bytes()  # written back padded: the signature beside it covers it
        assert len(padded) == encryption.MOVE_PAD, kind
        assert load_yaml(padded, source=kind, kind="move").data == doc, kind
        with open(plain, "rb") as data:
            checked = subprocess.run(["ssh-keygen", "-Y", "check-novalidate", "-n", "rebis-pbm",
                                      "-s", f"{plain}.sig"], stdin=data, capture_output=True)
        assert checked.returncode == 0, (kind, checked.stderr)
        sealed = Path(f"{plain}.age").read_bytes()
        assert encryption.decrypt(sealed, identity) == padded
        for suffix in sizes:
            sizes[suffix].add(body_length(Path(f"{plain}{suffix}").read_bytes()))
        learnt.add(plaintext_length(sealed))
    assert learnt == {encryption.MOVE_PAD}
    assert all(len(found) == 1 for found in sizes.values()), sizes
    # Sealing the same file again (after an edit) pads it anew: one padding line, same size.
    again = tmp_path / "turn-001-alice.yaml"
    again.write_bytes(again.read_bytes().replace(b"cards: 3", b"cards: 4"))
    referee.seal_move(again, [], keys["alice"], game=game)
    assert len(again.read_bytes()) == encryption.MOVE_PAD
    assert again.read_bytes().count(b"\n#") == 1 and b"cards: 4" in again.read_bytes()


def test_a_padded_sealed_move_is_applied_and_the_record_verifies(cli, tmp_path, keys):
    """The job's and apply's reader take the padded file; the signature is checked over the
    same padded bytes, which the record keeps; `verify` passes."""
    text, recipient = encryption.new_identity()
    identity = tmp_path / "referee.key"
    identity.write_text(text)
    game = tmp_path / "game.yaml"
    referee.create_game(game, list(keys), seed=SEED, game_id="padded", insecure_seed=True,
                        keys={p: pub(k) for p, k in keys.items()}, referee_recipient=recipient)
    env = {"REBIS_PBM_SEED": key_of(game)}
    listing = run("moves", game, "--player", "alice", env=env).stdout
    move = tmp_path / "turn-001-alice.yaml"
    move.write_bytes(listing.split(b"---")[1].lstrip())
    assert cli("seal", move, "--game", game, "--key", keys["alice"]).code == 0
    applied = cli("apply", game, f"{move}.age", "--signature", f"{move}.sig.age",
                  "--identity", identity, env=env)
    assert applied.code == 0, applied.err
    record = referee.open_game(game).record  # the seedless public read
    assert record.proofs[0].signed.encode() == move.read_bytes()
    verified = run("verify", game, env=env)
    assert verified.returncode == 0, verified.stderr


def test_seal_refuses_a_move_longer_than_the_padding_and_writes_nothing(cli, tmp_path, keys,
                                                                        table):
    _, _, recipient = table
    move = tmp_path / "turn-001-alice.yaml"
    long = dump_yaml({"game": "padded", "turn": 1, "player": "alice",
                      "play": {"cards": 3, "shelf": "alice"}}) + "# a note\n" * 120
    move.write_text(long)
    done = cli("seal", move, "--to", recipient, "--key", keys["alice"])
    line = done.refused(2, ("turn-001-alice.yaml", "1024 bytes", "shorten it"))
    assert "Traceback" not in line
    assert move.read_text() == long
    assert sorted(os.listdir(tmp_path)) == ["turn-001-alice.yaml"]


def fingerprint(key: Path) -> str:
    """The key's fingerprint as `ssh-keygen -l` prints it."""
    return subprocess.run(["ssh-keygen", "-l", "-f", f"{key}.pub"], capture_output=True,
                          text=True, check=True).stdout.split()[1]


def test_seal_refuses_a_key_that_is_not_the_movers(cli, tmp_path, keys, table):
    """bob's move signed with alice's key: refused in one sentence naming both fingerprints and
    bob's seat, before anything is written; with bob's key, sealed."""
    game, _, _ = table
    move = tmp_path / "turn-002-bob.yaml"
    text = dump_yaml({"game": "padded", "turn": 2, "player": "bob",
                      "play": {"cards": 3, "shelf": "bob", "sign": "positive"}})
    move.write_text(text)
    done = cli("seal", move, "--game", game, "--key", keys["alice"])
    done.refused(2, (str(keys["alice"]), f"this key ({fingerprint(keys['alice'])}) is not bob's",
                     f"holds {fingerprint(keys['bob'])} for bob, seat 2", "nothing was written"))
    assert move.read_text() == text and sorted(os.listdir(tmp_path)) == ["turn-002-bob.yaml"]
    assert cli("seal", move, "--game", game, "--key", keys["bob"]).code == 0
    assert Path(f"{move}.sig.age").exists()


def test_seal_reads_the_recipient_from_a_yaml_view_and_refuses_a_text_view(cli, tmp_path, keys,
                                                                           table):
    game, identity, _ = table
    views = game.parent / "game.views"
    move = tmp_path / "turn-001-alice.yaml"
    move.write_text(dump_yaml({"game": "padded", "turn": 1, "player": "alice",
                               "play": {"cards": 3, "shelf": "alice"}}))
    from_view = cli("seal", move, "--game", views / "public.yaml", "--key", keys["alice"])
    assert from_view.code == 0, from_view.err
    assert encryption.decrypt(Path(f"{move}.age").read_bytes(), identity) == move.read_bytes()
    text_view = cli("seal", move, "--game", views / "public.txt")
    text_view.refused(2, ("public.txt", "a text view", "game.yaml", "public.yaml", "--to"))
    assert "--game" in cli("seal", "--help").out and "not a text view" in " ".join(
        cli("seal", "--help").out.split())


def test_every_view_of_a_game_is_padded_to_one_size(tmp_path, keys, monkeypatch):
    """A 3-player game with the longest names, played to its end by bots: at every turn every
    private view (YAML and text) encrypts to the same size (but for age's random header), 16 KiB
    by the length attack."""
    game = tmp_path / "game.yaml"
    referee.create_game(game, list(keys), seed=SEED, game_id="p" * 64, insecure_seed=True,
                        langs={LONG: "pt"})
    encrypt_to = {p: pub(k) for p, k in keys.items()}
    monkeypatch.setenv("REBIS_PBM_SEED", key_of(game))
    sizes, learnt = set(), set()
    for turn in range(1000):
        record, replay, _ = referee.open_game(game)
        if turn % 4 == 0 or replay.state.phase == "finished":  # every 4th turn: fast enough
            out = tmp_path / f"views-{turn}"
            referee.write_encrypted_views(out, record, replay, encrypt_to)
            for player in keys:
                for suffix in (".yaml.age", ".txt.age"):
                    data = (out / f"{player}{suffix}").read_bytes()
                    sizes.add(body_length(data))
                    learnt.add(plaintext_length(data))
        if replay.state.phase == "finished":
            break
        mover = replay.state.players[replay.state.to_move]
        _, move = referee.bot_move(game, mover, "greedy", seed=str(turn))
        referee.submit_move(game, dump_yaml({"game": record.game, **move.as_dict()})
                            .encode(), "move.yaml")
    assert replay.state.phase == "finished" and turn > 20
    assert learnt == {encryption.VIEW_PAD} and len(sizes) == 1


def encrypted_views(game: Path, keys: dict, out: Path) -> Path:
    """The game's views written into ``out`` encrypted to the players' keys, as the referee,
    who holds the seed, writes them."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("REBIS_PBM_SEED", key_of(game))
        record, replay, _ = referee.open_game(game)
        referee.write_encrypted_views(out, record, replay, {p: pub(k) for p, k in keys.items()})
    return out


def test_a_padded_view_reads_as_the_plain_view(cli, tmp_path, keys, table):
    """`open` prints a padded view as `age -d` does; `moves --view` and `check --view` read it as
    they read the plain view; so does a player's tools (read_view)."""
    game, _, _ = table
    env = {"REBIS_PBM_SEED": key_of(game)}
    plain = tmp_path / "plain.yaml"
    plain.write_bytes(run("view", game, "--player", "alice", "--format", "yaml",
                          env=env).stdout)
    out = encrypted_views(game, keys, tmp_path / "views")
    opened = cli("open", out / "alice.yaml.age", "--identity", keys["alice"])
    assert opened.code == 0, opened.err
    # open prints the view without its padding; the padded bytes read the same.
    assert opened.out.encode() == plain.read_bytes()
    padded = tmp_path / "padded.yaml"
    padded.write_bytes(referee.decrypt_file(str(out / "alice.yaml.age"), str(keys["alice"])))
    assert len(padded.read_bytes()) == encryption.VIEW_PAD
    assert padded.read_bytes().rstrip(b" \n") + b"\n" == plain.read_bytes()
    if shutil.which("age"):
        by_age = subprocess.run(["age", "-d", "-i", str(keys["alice"]),
                                 str(out / "alice.yaml.age")], capture_output=True)
        assert by_age.returncode == 0 and by_age.stdout == padded.read_bytes()
    assert referee.read_view(padded) == referee.read_view(plain)
    witnessed = cli("verify", game, "--witness", padded)  # a saved view, as a witness
    assert witnessed.code == 0, witnessed.err
    listed = [cli("moves", "--view", view) for view in (plain, padded)]
    assert listed[0].code == 0 and listed[0].out == listed[1].out, listed[1].err
    move = tmp_path / "move.yaml"
    move.write_text(listed[0].out.split("---")[1].lstrip())
    # alice registered a key, which her view names: check --view wants the .sig apply wants
    Path(f"{move}.sig").write_bytes(ssh_sign(keys["alice"], move.read_bytes()))
    checked = [cli("check", move, "--view", view) for view in (plain, padded)]
    assert checked[0].code == 0 and checked[1].code == 0, checked
    assert checked[0].out == checked[1].out.replace(str(padded), str(plain))


@needs_age
def test_age_opens_a_padded_text_view(tmp_path, keys, table):
    game, _, _ = table
    out = encrypted_views(game, keys, tmp_path / "views")
    done = subprocess.run(["age", "-d", "-i", str(keys["bob"]), str(out / "bob.txt.age")],
                          capture_output=True)
    assert done.returncode == 0 and len(done.stdout) == encryption.VIEW_PAD
    assert done.stdout.startswith(b"Rebis game padded - view of bob")
