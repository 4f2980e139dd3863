"""A game's encryption settings in its record (format rebis-pbm/3): `new --encrypt-views` and
`new --referee-recipient`, and what follows from them without any flag: private views written
only encrypted by every command, a key required of every player before any view is written, the
recipient shown to everyone and taken by `seal`, and a referee identity checked against it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml
from test_encryption import pub

from rebis_pbm import app as referee
from rebis_pbm.crypto import age as encryption
from rebis_pbm.errors import InputError, Refused
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.record import HEADER, parse_record
from rebis_pbm.record.audit import verify
from sshkeys import needs_ssh, ssh_key, ssh_sign
from transport_support import secret_key

pytestmark = needs_ssh
SEED = "encryption settings test seed"
PLAYERS = ("alice", "bob", "carol")


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("keys")
    return {p: ssh_key(folder, p) for p in PLAYERS}


@pytest.fixture(scope="module")
def identity(tmp_path_factory) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("referee") / "referee.key"
    text, recipient = encryption.new_identity()
    path.write_text(text)
    return path, recipient


def new(cli, game: Path, keys: dict[str, Path], *extra):
    return cli("new", game, "--insecure-seed", "--seed", SEED, "--game-id", "settings",
               *(a for p in PLAYERS for a in ("--player", p)),
               *(a for p, k in keys.items() for a in ("--key", f"{p}={k}.pub")), *extra)


def test_new_records_the_settings_and_writes_no_plain_private_view(cli, tmp_path, keys,
                                                                    identity):
    game = tmp_path / "game.yaml"
    made = new(cli, game, keys, "--referee-deal", "--encrypt-views", "--referee-recipient",
               identity[1])
    assert made.code == 0, made.err
    doc = yaml.safe_load(game.read_text())
    assert doc["format"] == "rebis-pbm/6"
    assert doc["encrypt_views"] is True and doc["referee_recipient"] == identity[1]
    names = sorted(os.listdir(tmp_path / "game.views"))
    assert names == sorted(["public.yaml", "public.txt",
                            *(f"{p}.{s}.age" for p in PLAYERS for s in ("yaml", "txt"))])
    public = yaml.safe_load((tmp_path / "game.views" / "public.yaml").read_text())
    assert public["referee_recipient"] == identity[1]
    public_text = (tmp_path / "game.views" / "public.txt").read_text()
    assert f"referee's recipient {identity[1]}" in public_text
    mine = encryption.decrypt((tmp_path / "game.views" / "bob.yaml.age").read_bytes(), keys["bob"])
    assert yaml.safe_load(mine)["referee_recipient"] == identity[1]
    # apply, with no flag, writes the views again only encrypted.
    env = {"REBIS_PBM_SEED": secret_key(tmp_path / "game.secret.yaml")}
    listing = cli("moves", game, "--player", "alice", env=env)
    move = tmp_path / "turn-001-alice.yaml"
    move.write_text(listing.out.split("---")[1].lstrip())
    referee.seal_move(move, [], keys["alice"], game=game)
    applied = cli("apply", game, f"{move}.age", env={**env, "REBIS_PBM_AGE_IDENTITY":
                                                     identity[0].read_text()})
    assert applied.code == 0, applied.err
    assert sorted(os.listdir(tmp_path / "game.views")) == names
    assert "turn: 2" in encryption.decrypt(
        (tmp_path / "game.views" / "alice.yaml.age").read_bytes(), keys["alice"]).decode()


def test_the_recipient_may_be_given_as_the_identity_file(cli, tmp_path, keys, identity):
    made = new(cli, tmp_path / "game.yaml", {}, "--referee-deal", "--referee-recipient",
               identity[0])
    assert made.code == 0, made.err
    assert yaml.safe_load((tmp_path / "game.yaml").read_text())["referee_recipient"] == identity[1]


@pytest.mark.parametrize("case", ["no key", "ecdsa key", "not a recipient"])
def test_new_refuses_settings_it_cannot_keep_and_writes_nothing(cli, tmp_path, keys, case):
    given = dict(keys)
    extra = ["--referee-deal", "--encrypt-views"]
    if case == "no key":
        del given["carol"]
        said = ("--encrypt-views writes each player's view encrypted to their key, "
                "and carol has none")
    elif case == "ecdsa key":
        given["carol"] = ssh_key(tmp_path, "carol-ec", "ecdsa")
        said = "carol, line 1: this is not an OpenSSH public key"  # (nor one age takes)
    else:
        extra = ["--referee-deal", "--referee-recipient", "age1nothing"]
        said = "is not an age recipient"
    game = tmp_path / "g" / "game.yaml"
    game.parent.mkdir()
    made = new(cli, game, given, *extra)
    assert made.code == 2 and said in made.err, made.err
    assert len(made.err.strip().splitlines()) == 1
    assert list(game.parent.iterdir()) == []


def test_a_fair_deal_with_encrypted_views_takes_only_joins_that_bring_a_key(tmp_path, keys):
    """In the join phase no one has a card: a player who has not joined has no private view
    yet; a join without a key is refused (nothing written); the last join deals, and every view
    is then written encrypted to its player's key."""
    game = tmp_path / "game.yaml"
    referee.create_game(game, PLAYERS, seed=SEED, game_id="fair", insecure_seed=True,
                        referee_deal=False, keys={"alice": pub(keys["alice"])},
                        encrypt_views=True, record_format="rebis-pbm/4")  # one round of joins
    views = tmp_path / "game.views"
    assert sorted(os.listdir(views)) == ["alice.txt.age", "alice.yaml.age", "public.txt",
                                         "public.yaml"]
    os.environ["REBIS_PBM_SEED"] = secret_key(tmp_path / "game.secret.yaml")
    try:
        before = game.read_bytes()
        unkeyed = dump_yaml({"game": "fair", "player": "bob", "join": "bob's entropy"})
        with pytest.raises(Refused, match=r"join rejected: game fair writes each player's view "
                           r"encrypted to their SSH key .* and bob has none"):
            referee.submit_move(game, unkeyed.encode(), "bob-join.yaml")
        assert game.read_bytes() == before
        header = yaml.safe_load(game.read_text())["header_sha256"]
        for p in PLAYERS:
            # a signed join names the game's header (rebis-pbm/4)
            doc = {"game": "fair", "player": p, "header_sha256": header, "join": f"{p}'s entropy"}
            if p != "alice":
                doc["key"] = pub(keys[p])
            data = dump_yaml(doc).encode()
            signature = ssh_sign(keys[p], data)
            referee.submit_move(game, data, f"{p}-join.yaml", signature=signature)
    finally:
        del os.environ["REBIS_PBM_SEED"]
    assert sorted(os.listdir(views)) == sorted(
        ["public.yaml", "public.txt", *(f"{p}.{s}.age" for p in PLAYERS for s in ("yaml", "txt"))])
    for p in PLAYERS:
        assert "hand:" in encryption.decrypt((views / f"{p}.yaml.age").read_bytes(),
                                             keys[p]).decode()


def test_seal_takes_the_recipient_from_the_game_and_refuses_without_one(cli, tmp_path, keys,
                                                                        identity, monkeypatch):
    with_recipient = tmp_path / "a" / "game.yaml"
    without = tmp_path / "b" / "game.yaml"
    for game, extra in ((with_recipient, ["--referee-recipient", identity[1]]), (without, [])):
        game.parent.mkdir()
        assert new(cli, game, {}, "--referee-deal", *extra).code == 0
    move = tmp_path / "turn-001-alice.yaml"
    move.write_text(dump_yaml({"game": "settings", "turn": 1, "player": "alice",
                               "play": {"cards": 1, "shelf": "alice", "sign": "positive"}}))
    monkeypatch.chdir(with_recipient.parent)  # a player's clone: game.yaml here
    sealed = cli("seal", move)
    assert sealed.code == 0, sealed.err
    assert b"turn" in encryption.decrypt(Path(f"{move}.age").read_bytes(), identity[0])
    by_view = cli("seal", move, "--game", with_recipient.parent / "game.views" / "public.yaml")
    assert by_view.code == 0, by_view.err
    none = cli("seal", move, "--game", without)
    assert none.code == 2 and "has no referee recipient" in none.err
    monkeypatch.chdir(tmp_path)
    nowhere = cli("seal", move)
    assert nowhere.code == 2 and "there is no game.yaml here" in nowhere.err
    move.write_text(move.read_text().replace("settings", "another"))
    other = cli("seal", move, "--game", with_recipient)
    assert other.code == 2 and "the move is for game another" in other.err


def test_apply_refuses_a_referee_identity_that_is_not_the_games(cli, tmp_path, keys, identity):
    game = tmp_path / "game.yaml"
    assert new(cli, game, {}, "--referee-deal", "--referee-recipient", identity[1]).code == 0
    env = {"REBIS_PBM_SEED": secret_key(tmp_path / "game.secret.yaml")}
    move = tmp_path / "turn-001-alice.yaml"
    move.write_text(cli("moves", game, "--player", "alice", env=env).out.split("---")[1].lstrip())
    other_text, other_recipient = encryption.new_identity()
    before = game.read_bytes()
    # Sealed to the referee, opened with another identity (given as text): refused, not named.
    referee.seal_move(move, [identity[1]])
    wrong = cli("apply", game, f"{move}.age", env={**env, "REBIS_PBM_AGE_IDENTITY": other_text})
    assert wrong.code == 2 and f"the record's referee_recipient is {identity[1]}" in wrong.err
    assert "AGE-SECRET-KEY" not in wrong.err and "the identity given as text" in wrong.err
    # Sealed to another recipient: refused as not sealed to the game's.
    referee.seal_move(move, [other_recipient])
    stray = cli("apply", game, f"{move}.age", "--identity", identity[0], env=env)
    assert stray.code == 2 and "is not sealed to the game's referee recipient" in stray.err
    assert game.read_bytes() == before


def record_text(drop: str = "", **header) -> bytes:
    """A rebis-pbm/3 record with the settings, rewritten with ``header`` fields changed and
    the field ``drop`` left out."""
    from rebis_pbm.engine import Ruleset
    from rebis_pbm.record import Record, commitment, salted

    secret = salted(SEED, "0" * 32)
    record = Record("g", Ruleset(), ("alice", "bob"), commitment("rebis-pbm/3", secret),
                    header_extra={"encrypt_views": True, "referee_recipient":
                                  encryption.new_identity()[1]}, keys={})
    from rebis_pbm.engine import setup

    state, _ = setup(record.ruleset, record.players, SEED)
    doc = yaml.safe_load(HEADER + dump_yaml(record.to_dict(state)))
    doc.update(header)
    doc.pop(drop, None)
    return (HEADER + dump_yaml(doc)).encode()


def test_the_settings_are_covered_by_the_header_digest_and_belong_to_rebis_pbm_3():
    assert verify(record_text(), "game.yaml").verified
    parse_record(record_text(), "game.yaml")
    edited = verify(record_text("encrypt_views"), "game.yaml")  # plain views, it would say
    assert edited.problem is not None and edited.problem.code == "header_digest"
    for old in ("rebis-pbm/1", "rebis-pbm/2"):
        with pytest.raises(InputError, match=f"a {old} record has no encrypt_views or "
                           "referee_recipient: .* came with rebis-pbm/3, so this record is "
                           "damaged"):
            parse_record(record_text(format=old), "game.yaml")


def test_an_identity_given_as_text_opens_files_and_is_never_shown():
    """REBIS_PBM_AGE_IDENTITY holds the identity's text as a CI secret does: the whole file, or
    its AGE-SECRET-KEY-1 line alone (a one-line CI variable); a damaged one is named, not shown."""
    text, recipient = encryption.new_identity()
    sealed = encryption.encrypt_to_age(b"turn: 1\n", recipient)
    line = next(ln for ln in text.splitlines() if ln.startswith("AGE-SECRET-KEY-1"))
    assert encryption.decrypt(sealed, text) == encryption.decrypt(sealed, line) == b"turn: 1\n"
    assert encryption.age_recipients_of(line) == [recipient]
    damaged = line[:-6] + "QQQQQQ"
    with pytest.raises(InputError) as caught:
        encryption.decrypt(sealed, damaged)
    assert caught.value.source == "the identity given as text"
    assert line[20:40] not in str(caught.value)
    other = encryption.new_identity()[0]
    with pytest.raises(InputError, match="not encrypted to the identity given as text") as caught:
        encryption.decrypt(sealed, other)
    assert "AGE-SECRET" not in str(caught.value)


def test_seal_refuses_a_record_whose_header_was_edited_to_name_another_recipient(
        cli, tmp_path, keys, identity):
    """An attacker who edits the public record's referee_recipient (to read every sealed move)
    breaks its header digest: seal refuses it and writes nothing; an honest seal says the
    recipient it used."""
    game = tmp_path / "game.yaml"
    assert new(cli, game, keys, "--referee-deal", "--referee-recipient", identity[1]).code == 0
    move = tmp_path / "turn-001-alice.yaml"
    move.write_text(dump_yaml({"game": "settings", "turn": 1, "player": "alice",
                               "play": {"cards": 3, "shelf": "alice", "sign": "positive"}}))
    honest = cli("seal", move, "--game", game)
    assert honest.code == 0, honest.err
    assert f"Sealed to {identity[1]}" in honest.out
    _, attacker = encryption.new_identity()
    text = game.read_text()
    assert identity[1] in text
    game.write_text(text.replace(identity[1], attacker))
    for name in ("turn-001-alice.yaml.age",):
        (tmp_path / name).unlink()
    before = move.read_bytes()
    forged = cli("seal", move, "--game", game)
    assert forged.code == 2, forged.err
    assert "does not match its header digest" in forged.err
    assert not (tmp_path / "turn-001-alice.yaml.age").exists()
    assert move.read_bytes() == before
