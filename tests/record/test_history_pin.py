"""A move signs the history it answers (issue 27, rebis-pbm/4): each move file names ``after``,
the chain digest its player's view witnessed, so that a real signature cannot be carried into a
record of another header or another history; and a referee deal shuffles the secret's salt in,
so that a guessed seed is not a guessed deal.

The attacks are performed as a spectator would after the reveal, with the library that writes
records (every digest and ``record_hmac`` recomputed) and the players' real signatures, made by
the real ``ssh-keygen`` (tests/sshkeys.py).
"""

from __future__ import annotations

from pathlib import Path

import yaml

from clitools import run_inproc
from rebis_pbm import app as referee
from rebis_pbm.crypto.signatures import open_signed
from rebis_pbm.engine import Move, Ruleset, apply_move, setup
from rebis_pbm.formats.yaml_reader import load_yaml
from rebis_pbm.record import FORMAT, Record, commitment, dump_record
from sshkeys import needs_ssh, ssh_key, ssh_sign

PLAYERS = ("alice", "bob")


def new_signed_game(folder: Path, keys: dict[str, Path], *rules: str) -> Path:
    """A referee deal of alice and bob, each with a registered key, game id ``hp``."""
    game = folder / "game.yaml"
    args = ["new", game, "--seed", "history pin test", "--insecure-seed", "--referee-deal",
            "--game-id", "hp"]
    for p in PLAYERS:
        args += ["--player", p, "--key", f"{p}={keys[p]}.pub"]
    for rule in rules:
        args += ["--rule", rule]
    made = run_inproc(*args)
    assert made.code == 0, made.err
    return game


def signed_move(folder: Path, game: Path, key: Path, player: str) -> Path:
    """``player``'s next move as the greedy bot writes it (``after:`` included), signed."""
    text = run_inproc("bot", game, "--player", player, "--strategy", "greedy", "--seed", "hp")
    assert text.code == 0, text.err
    turn = yaml.safe_load(text.out)["turn"]
    move = folder / f"turn-{turn:03d}-{player}.yaml"
    move.write_text(text.out, encoding="utf-8")
    Path(f"{move}.sig").write_bytes(ssh_sign(key, move.read_bytes()))
    return move


def play_to_the_end(folder: Path, game: Path, keys: dict[str, Path]) -> list[Path]:
    played = []
    while True:
        to_move = referee.player_view(game, None).get("to_move")
        if not to_move:
            return played
        move = signed_move(folder, game, keys[to_move], to_move)
        done = run_inproc("apply", game, move)
        assert done.code == 0, done.err
        played.append(move)


def forged(record: Record, ruleset: Ruleset) -> tuple[Record, object]:
    """The attacker's record: ``record``'s game (seed revealed) with another ``ruleset`` in its
    header, every signed move file of the original replayed into it (a closing play's file
    opened with the revealed secret), every digest and ``record_hmac`` recomputed."""
    secret = record.seed
    assert secret is not None
    fake = Record(record.game, ruleset, record.players, commitment(FORMAT, secret),
                  keys=record.keys, format=FORMAT)
    state, _ = setup(ruleset, record.players, fake.deal_seed(secret))
    for index, proof in enumerate(record.proofs):
        assert proof is not None
        if proof.sealed is not None:
            opened = open_signed(secret, record.game, index + 1, proof.sealed)
            assert opened is not None
            data, signature = opened
        else:
            assert proof.signed is not None
            data, signature = proof.signed.encode("utf-8"), proof.signature
        move = Move.from_dict(load_yaml(data, source="signed", kind="move").data)
        state, events = apply_move(state, move)
        fake = fake.with_move(move, state, secret, events, {}, (data, signature))
    return fake.revealed(secret), state


@needs_ssh
def test_real_signatures_replayed_into_another_header_are_refused(tmp_path):
    """The forgery of issue 27: a finished signed game, its ruleset changed in the header
    (doubling instead of additive: another score), the same signed move files replayed and
    every digest recomputed. verify must refuse it, naming the signature's history; and a
    signed move file of the game is refused by apply in a game of another header."""
    keys = {p: ssh_key(tmp_path, p) for p in PLAYERS}
    first = tmp_path / "first"
    first.mkdir()
    game = new_signed_game(first, keys)
    played = play_to_the_end(first, game, keys)
    assert len(played) > 10
    honest = run_inproc("verify", game)
    assert honest.code == 0, honest.out + honest.err
    record = referee.open_game(game).record
    assert record.format == "rebis-pbm/6" and record.seed is not None
    assert all(yaml.safe_load(p.read_text())["after"] for p in played)

    fake, state = forged(record, Ruleset(multiplier="doubling"))
    forgery = tmp_path / "forged" / "game.yaml"
    forgery.parent.mkdir()
    forgery.write_text(dump_record(fake, state, fake.seed), encoding="utf-8")
    refused = run_inproc("verify", forgery)
    assert refused.code == 3, refused.out + refused.err
    said = refused.out + refused.err
    assert "signature" in said and "another history" in said, said
    assert "turn 1" in said, said

    # The same signed file of turn 1, sent to a game of the same id with another ruleset.
    other = tmp_path / "other"
    other.mkdir()
    game_b = new_signed_game(other, keys, "multiplier=doubling")
    sent = run_inproc("apply", game_b, played[0])
    assert sent.code == 1, sent.out + sent.err
    assert "this move answers move 0 of another history" in sent.err
    assert "take your view again" in sent.err
    assert not referee.open_game(game_b).record.moves


@needs_ssh
def test_a_signed_move_must_name_its_history_and_a_stale_one_is_told(tmp_path):
    """In a rebis-pbm/4 game a player with a key must send after:; one that answers an older
    point of this game is refused as such; the move template, moves and moves --view carry it."""
    keys = {p: ssh_key(tmp_path, p) for p in PLAYERS}
    game = new_signed_game(tmp_path, keys)
    header = yaml.safe_load(game.read_text())["header_sha256"]
    view = referee.player_view(game, "alice")
    assert f"after: {header}\n" in view["move_template"]
    assert view["witness"]["chain_sha256"] == header
    listing = run_inproc("moves", game, "--player", "alice")
    assert listing.code == 0 and f"after: {header}" in listing.out
    view_file = tmp_path / "alice.yaml"
    view_file.write_text(run_inproc("view", game, "--player", "alice", "--format", "yaml").out)
    from_view = run_inproc("moves", "--view", view_file)
    assert from_view.code == 0, from_view.err
    assert from_view.out == listing.out

    bare = tmp_path / "bare.yaml"
    bare.write_text("".join(line for line in listing.out.split("---\n")[1].splitlines(True)
                            if not line.startswith("after:")))
    Path(f"{bare}.sig").write_bytes(ssh_sign(keys["alice"], bare.read_bytes()))
    refused = run_inproc("apply", game, bare)
    assert refused.code == 1 and "must name the history it answers" in refused.err, refused.err

    first = signed_move(tmp_path, game, keys["alice"], "alice")
    assert run_inproc("apply", game, first).code == 0
    # bob's move written from the view before alice's move: a turn he could guess, an old history
    stale = tmp_path / "stale.yaml"
    bob = run_inproc("bot", game, "--player", "bob", "--strategy", "greedy").out
    stale.write_text(bob.replace(yaml.safe_load(bob)["after"], header))
    Path(f"{stale}.sig").write_bytes(ssh_sign(keys["bob"], stale.read_bytes()))
    refused = run_inproc("apply", game, stale)
    assert refused.code == 1, refused.err
    assert "answers move 0 of this game" in refused.err and "at move 1" in refused.err


def test_an_unsigned_player_may_omit_after_and_an_extension_does_not_make_a_move_stale(tmp_path):
    """No key, no after: the move is applied as before; a logged action (extend) between the
    view and the move leaves the history a move answers as it was."""
    game = tmp_path / "game.yaml"
    made = run_inproc("new", game, "--player", "ann", "--player", "ben", "--seed", "unsigned",
                      "--insecure-seed", "--referee-deal", "--deadline", "3d")
    assert made.code == 0, made.err
    listing = run_inproc("moves", game, "--player", "ann").out.split("---\n")[1]
    extended = run_inproc("extend", game, "--by", "1d")
    assert extended.code == 0, extended.err
    move = tmp_path / "m.yaml"
    move.write_text(listing)
    assert run_inproc("apply", game, move).code == 0
    without = tmp_path / "w.yaml"
    ben = run_inproc("moves", game, "--player", "ben").out.split("---\n")[1]
    without.write_text("".join(x for x in ben.splitlines(True) if not x.startswith("after:")))
    assert run_inproc("apply", game, without).code == 0


def test_a_guessed_phrase_is_not_a_guessed_deal(tmp_path):
    """A phrase that passes the entropy estimate: a player who guesses it cannot deal the game
    from it, since a rebis-pbm/4 referee deal shuffles the secret's 128-bit salt in; with the
    revealed salt anyone computes the real deal."""
    phrase = "correct horse battery staple"
    game = tmp_path / "game.yaml"
    made = run_inproc("new", game, "--player", "ann", "--player", "ben", "--seed", phrase,
                      "--referee-deal")
    assert made.code == 0, made.err
    opened = referee.open_game(game)
    guessed, _ = setup(opened.record.ruleset, opened.record.players, phrase)
    assert guessed.hands != opened.replay.state.hands
    secret = yaml.safe_load((tmp_path / "game.secret.yaml").read_text())
    assert secret["seed"] == phrase and len(secret["salt"]) == 32
    real, _ = setup(opened.record.ruleset, opened.record.players,
                    f"{secret['salt']}:{phrase}")
    assert real.hands == opened.replay.state.hands
    # The first views `new` writes show that deal, the one every later command replays.
    for seat, player in enumerate(("ann", "ben")):
        view = yaml.safe_load((tmp_path / "game.views" / f"{player}.yaml").read_text())
        assert tuple(view["you"]["hand"]) == real.hands[seat]


def test_the_salted_deal_vector_of_docs_shuffle_md():
    """docs/shuffle.md, section 8: the vector is what the code deals, and the insecure salt is
    the documented derivation (recomputed here from the page's words)."""
    import hashlib
    import re

    from rebis_pbm.record.digests import insecure_salt

    page = (Path(__file__).resolve().parents[2] / "docs" / "shuffle.md").read_text()
    section = page.split("### Salted deal vector", 1)[1]
    salt = re.search(r"SALT `([0-9a-f]{32})`", section).group(1)
    cards = [int(c) for c in re.search(r"default deck\) are\n?\s*`([0-9, ]+)`",
                                        section).group(1).split(", ")]
    secret = f"{salt}:example"
    record = Record("g", Ruleset(), ("ann", "ben"), commitment("rebis-pbm/4", secret))
    assert record.deal_seed(secret) == secret
    state, _ = setup(Ruleset(), ("ann", "ben"), record.deal_seed(secret))
    assert list(state.order[:10]) == cards
    derived = re.search(r"insecure salt of SEED `example` is\n?\s*`([0-9a-f]{32})`",
                        section).group(1)
    assert derived == insecure_salt("example") == hashlib.sha256(
        b"rebis-pbm/insecure-salt/v4\nexample").hexdigest()[:32]
    insecure = f"{derived}:example"
    old = Record("g", Ruleset(), ("ann", "ben"), commitment("rebis-pbm/4", insecure))
    assert old.deal_seed(insecure) == "example"
    v3 = Record("g", Ruleset(), ("ann", "ben"), commitment("rebis-pbm/3", secret),
                format="rebis-pbm/3")
    assert v3.deal_seed(secret) == "example"


@needs_ssh
def test_a_signed_join_must_name_the_header_it_joins(tmp_path):
    """rebis-pbm/4: a signed join without header_sha256 could be carried into another game of
    the same id: apply refuses it (exit 1) and writes nothing; with the header it is applied."""
    key = ssh_key(tmp_path, "alice")
    game = tmp_path / "game.yaml"
    made = run_inproc("new", game, "--player", "alice", "--player", "bob", "--game-id", "hj",
                      "--seed", "join header", "--insecure-seed", "--key", f"alice={key}.pub",
                      "--record-format", "rebis-pbm/4")  # one round of joins
    assert made.code == 0, made.err
    header = yaml.safe_load(game.read_text())["header_sha256"]
    before = game.read_bytes()
    unbound = tmp_path / "join.yaml"
    unbound.write_text("game: hj\nplayer: alice\njoin: alice's own words\n")
    Path(f"{unbound}.sig").write_bytes(ssh_sign(key, unbound.read_bytes()))
    refused = run_inproc("apply", game, unbound)
    assert refused.code == 1 and f"add header_sha256: {header}" in refused.err, refused.err
    assert game.read_bytes() == before
    bound = tmp_path / "bound.yaml"
    bound.write_text(f"game: hj\nplayer: alice\nheader_sha256: {header}\n"
                     f"join: alice's own words\n")
    Path(f"{bound}.sig").write_bytes(ssh_sign(key, bound.read_bytes()))
    assert run_inproc("apply", game, bound).code == 0


def test_an_all_digit_after_is_read_as_the_digest_written(tmp_path):
    """``after: 000...0`` (64 decimal digits, unquoted: a hex digest may be all digits) is the
    text written, not a too-long number: the move is judged on its history."""
    from rebis_pbm.formats.yaml_reader import load_yaml
    digits = "0" * 64
    read = load_yaml(f"after: {digits}\nheader_sha256: {'1' * 64}\n".encode(), source="m.yaml",
                     kind="move").data
    assert read == {"after": digits, "header_sha256": "1" * 64}
    game = tmp_path / "game.yaml"
    made = run_inproc("new", game, "--player", "ann", "--player", "ben", "--seed", "digits",
                      "--insecure-seed", "--referee-deal")
    assert made.code == 0, made.err
    listing = run_inproc("moves", game, "--player", "ann").out.split("---\n")[1]
    move = tmp_path / "m.yaml"
    move.write_text("".join(f"after: {digits}\n" if x.startswith("after:") else x
                            for x in listing.splitlines(True)))
    refused = run_inproc("apply", game, move)
    assert refused.code == 1, refused.err
    assert "another history" in refused.err and "digits" not in refused.err, refused.err
