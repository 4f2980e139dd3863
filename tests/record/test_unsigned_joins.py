"""A fair deal's joins that the referee could have written (docs/shuffle.md, section 7;
docs/audit.md, "Joins (fair deal)"): only a signature by a key registered at ``new --key``
authenticates a join. An unsigned join, or one signed only by the key it brings itself, could be
the referee's, which reads every join before the last one deals: ``verify`` must not call such a
deal fair, and must name the players who have to check their join.

The keys are made and the joins signed by the real ``ssh-keygen`` (tests/sshkeys.py).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml

from clitools import run_inproc
from rebis_pbm import app as referee
from sshkeys import needs_ssh, ssh_key, ssh_sign

PLAYERS = ("alice", "bob", "carol")
FAIR = "a fair deal: nobody could choose it alone"


def new_game(folder: Path, keys: dict[str, Path],
             seed: str = "unsigned joins test", fmt: str | None = None) -> tuple[Path, str]:
    """A fair deal of alice, bob and carol with addresses, the keys of ``keys`` registered with
    ``new --key``; returns the record's path and the game id. ``fmt``: an older record format
    (made by the library, as `new` made it then)."""
    game = folder / "game.yaml"
    if fmt is not None:
        referee.create_game(game, list(PLAYERS), seed=seed, insecure_seed=True, game_id="uj",
                            referee_deal=False, record_format=fmt,
                            addresses={p: f"{p}@example.org" for p in PLAYERS},
                            keys={p: Path(f"{k}.pub").read_text() for p, k in keys.items()})
        return game, "uj"
    # One round of joins: a rebis-pbm/4 game (rebis-pbm/5's two rounds: test_two_round_deal.py)
    args = ["new", game, "--seed", seed, "--insecure-seed", "--game-id", "uj",
            "--record-format", "rebis-pbm/4"]
    for p in PLAYERS:
        args += ["--player", f"{p}={p}@example.org"]
    for p, key in keys.items():
        args += ["--key", f"{p}={key}.pub"]
    made = run_inproc(*args)
    assert made.code == 0, made.err
    return game, "uj"


def join_file(folder: Path, player: str, words: str, key: Path | None = None,
              brings_key: bool = False) -> Path:
    """``player``'s join move; signed by ``key`` (its ``.sig`` beside it) when given, and
    carrying that key (``key:``, a self-registration) when ``brings_key``. It names the
    header digest of the game in ``folder`` (``game.yaml``), as the join template does, when
    there is one."""
    move = folder / f"join-{player}-{words.replace(' ', '-')}.yaml"
    record = folder / "game.yaml"
    bound = (f"header_sha256: {yaml.safe_load(record.read_text())['header_sha256']}\n"
             if record.exists() else "")
    text = f"game: uj\nplayer: {player}\n{bound}join: {words}\n"
    if brings_key and key is not None:
        text += "key: " + " ".join(Path(f"{key}.pub").read_text().split()[:2]) + "\n"
    move.write_text(text, encoding="utf-8")
    if key is not None:
        Path(f"{move}.sig").write_bytes(ssh_sign(key, move.read_bytes()))
    return move


def verify(game: Path) -> tuple[str, dict]:
    text = run_inproc("verify", game)
    data = run_inproc("verify", game, "--format", "json")
    assert text.code == 0 and data.code == 0, text.out + text.err
    return text.out, json.loads(data.out)


@needs_ssh
def test_a_join_the_referee_wrote_for_a_player_without_a_key_is_not_called_fair(tmp_path):
    """The attack: alice and bob join, signed by their `new --key` keys; carol has no key, so
    the referee writes her join itself, trying texts on copies of the game until one deals what
    it wants (here: the best hand for alice), and applies it. carol's own join is then refused
    as a second one. verify must not call the deal fair, and must name carol."""
    keys = {p: ssh_key(tmp_path, p) for p in ("alice", "bob")}
    game, _ = new_game(tmp_path, keys)
    for p, key in keys.items():
        done = run_inproc("apply", game, join_file(tmp_path, p, f"{p}'s own words", key),
                          "--as", f"{p}@example.org")
        assert done.code == 0, done.err

    def alice_gets(words: str) -> int:
        """The referee, on a copy of the game and its seed: what alice's hand would be worth."""
        copy = tmp_path / f"try-{words}"
        copy.mkdir()
        for name in ("game.yaml", "game.secret.yaml"):
            shutil.copy(tmp_path / name, copy / name)
        assert run_inproc("apply", copy / "game.yaml", join_file(copy, "carol", words)).code == 0
        return sum(referee.open_game(copy / "game.yaml").state.hands[0])

    tries = {f"c{n}": alice_gets(f"c{n}") for n in range(1, 41)}
    chosen = max(tries, key=tries.__getitem__)
    assert len(set(tries.values())) > 1  # the referee really had a choice
    # No --as, no signature: accepted, since nothing authenticates a join by a player with no key.
    forged = run_inproc("apply", game, join_file(tmp_path, "carol", chosen))
    assert forged.code == 0, forged.err
    assert sum(referee.open_game(game).state.hands[0]) == tries[chosen]
    real = run_inproc("apply", game, join_file(tmp_path, "carol", "carol's real words"),
                      "--as", "carol@example.org")
    assert real.code == 1 and "carol has joined already; a player joins once" in real.err
    assert run_inproc("reveal", game, "--yes").code == 0

    text, report = verify(game)
    assert FAIR not in text and "nobody could choose" not in text
    (deal,) = [line for line in text.splitlines() if line.startswith("Deal from:")]
    assert deal.startswith("Deal from: referee, alice, bob, carol (a fair deal only as far as "
                           "carol confirms their join")
    assert "the referee could have written it" in deal
    assert "carol can check that the join text in the record is the one they sent" in deal
    assert report["verified"] and report["deal_from"] == ["referee", *PLAYERS]
    assert report["unsigned_joins"] == ["carol"]


@needs_ssh
def test_a_deal_is_fair_when_every_join_is_signed_by_a_key_registered_at_new(tmp_path):
    keys = {p: ssh_key(tmp_path, p) for p in PLAYERS}
    game, _ = new_game(tmp_path, keys)
    for p, key in keys.items():
        done = run_inproc("apply", game, join_file(tmp_path, p, f"{p}'s own words", key))
        assert done.code == 0, done.err
    assert run_inproc("reveal", game, "--yes").code == 0
    text, report = verify(game)
    assert (f"Deal from: referee, alice, bob, carol ({FAIR}; in this one-round format the "
            f"last to join could, with the seed's holder).") in text
    assert report["deal_from"] == ["referee", *PLAYERS] and "unsigned_joins" not in report


@needs_ssh
def test_a_join_signed_only_by_the_key_it_brings_is_not_authenticated(tmp_path):
    """Self-registration (`key:` in the join, the join signed by it) proves nothing of the
    author: the referee could have made the key too. A player with no key at all likewise; the
    text says so while the deal still waits for joins, and the JSON names them in seat order."""
    keys = {p: ssh_key(tmp_path, p) for p in PLAYERS}
    game, _ = new_game(tmp_path, {"bob": keys["bob"]})
    for p in ("carol", "bob"):  # carol brings her key; bob's is registered at new
        done = run_inproc("apply", game, join_file(tmp_path, p, f"{p}'s own words", keys[p],
                                                   brings_key=p == "carol"))
        assert done.code == 0, done.err
    text, report = verify(game)
    assert report["deal_pending"] and report["unsigned_joins"] == ["carol"]
    assert ("Once dealt, the deal will be fair only as far as carol confirms their join: it is "
            "not signed, with a key registered when the game was created") in text
    done = run_inproc("apply", game, join_file(tmp_path, "alice", "alice's own words"))
    assert done.code == 0, done.err
    text, report = verify(game)
    assert report["unsigned_joins"] == ["alice", "carol"]
    assert ("(a fair deal only as far as alice and carol confirm their joins: they are not "
            "signed, with a key registered when the game was created, over a join naming this "
            "game's header (its id, seats, rules and seed commitment), so the referee could have "
            "written them, or taken them from another game; each can check that the join text "
            "in the record is the one they sent for this game).") in text
    assert FAIR not in text


def test_reveal_in_the_join_phase_says_the_game_is_abandoned_before_the_deal(tmp_path):
    """A fair deal still waiting for joins has no turn yet: reveal says so instead of failing."""
    game, _ = new_game(tmp_path, {})
    done = run_inproc("reveal", game, "--yes")
    assert done.code == 0, done.err
    assert "the game is abandoned before the deal" in done.out


def _rewritten_by_the_referee(game: Path, edit) -> None:
    """The referee's rewrite of its own record: ``edit(doc)``, then every public digest and the
    keyed record digest recomputed with the seed it holds."""
    import yaml

    from rebis_pbm.formats.yaml_writer import dump_yaml
    from rebis_pbm.record import HEADER, Record
    from rebis_pbm.record.digests import chain_digest
    seed = referee.open_game(game)[2]
    doc = yaml.safe_load(game.read_text(encoding="utf-8"))
    edit(doc)
    doc["header_sha256"] = prev = Record.from_dict(doc).computed_header_sha256()
    for part in ("joins", "moves"):
        for entry in doc.get(part, ()):
            entry.pop("chain_sha256")
            entry["chain_sha256"] = prev = chain_digest(prev, entry)
    doc["record_hmac"] = Record.from_dict(doc).computed_record_hmac(seed)
    game.write_text(HEADER + dump_yaml(doc), encoding="utf-8")


@needs_ssh
def test_a_signature_counts_only_for_the_join_it_signed(tmp_path):
    """The attack (a second attacker's report): every join signed by a `new --key` key, then
    the referee puts words of its choosing in bob's join, keeping bob's signature over his own
    join file, or over another file bob signed (his join to another game). The signature checks,
    but not for the join recorded: verify must refuse the record, not call the deal fair."""
    keys = {p: ssh_key(tmp_path, p) for p in PLAYERS}
    game, _ = new_game(tmp_path, keys)
    for p, key in keys.items():
        assert run_inproc("apply", game, join_file(tmp_path, p, f"{p}'s own words", key),
                          "--as", f"{p}@example.org").code == 0
    assert FAIR in verify(game)[0]
    honest = game.read_bytes()
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    other = join_file(elsewhere, "bob", "bob's own words", keys["bob"])
    other.write_text(other.read_text().replace("game: uj", "game: another"))
    other_sig = ssh_sign(keys["bob"], other.read_bytes()).decode()

    def words_only(doc):
        doc["joins"][1]["join"] = "the referee's choice"

    def other_game(doc):
        words_only(doc)
        doc["joins"][1]["signed"] = other.read_text()
        doc["joins"][1]["signature"] = other_sig

    for edit in (words_only, other_game):
        game.write_bytes(honest)
        _rewritten_by_the_referee(game, edit)
        text = run_inproc("verify", game)
        data = json.loads(run_inproc("verify", game, "--format", "json").out)
        assert text.code == 3, text.out
        assert FAIR not in text.out and "does not hold the join recorded" in text.out
        assert data["verified"] is False and data["problem"]["code"] == "signature"
        assert data["problem"]["player"] == "bob"


@needs_ssh
def test_a_join_signed_by_a_key_the_referee_logged_verifies_but_is_named(tmp_path):
    """A second attacker's report: replace-player --key before bob joined, then bob's join
    signed by that key, was applied, but verify refused the record (it looked for the header's
    key alone). The record now verifies; but a third attacker logged such a key after writing
    bob's join itself, which the record cannot tell apart: verify names bob as it names an
    unsigned join, and lists the action."""
    keys = {p: ssh_key(tmp_path, p) for p in ("alice", "carol")}
    keys["bob"] = ssh_key(tmp_path, "bob_new")
    game, _ = new_game(tmp_path, {p: keys[p] for p in ("alice", "carol")})
    logged = run_inproc("replace-player", game, "--player", "bob", "--key",
                        f"{keys['bob']}.pub", "--reason", "bob sent his key late")
    assert logged.code == 0, logged.err
    for p in PLAYERS:
        done = run_inproc("apply", game, join_file(tmp_path, p, f"{p}'s own words", keys[p]),
                          "--as", f"{p}@example.org")
        assert done.code == 0, done.err
    text, data = verify(game)
    assert data["verified"] is True and data["unsigned_joins"] == ["bob"]
    assert FAIR not in text and "bob sent his key late" in text


@needs_ssh
def test_a_signed_join_binds_to_one_game_of_its_id(tmp_path):
    """The attack (a third attacker's report): the referee creates several games of the same id,
    applies each player's one signed join to every copy and keeps the copy whose deal it likes;
    each verified as fair. A join names its game's header digest (the template's
    `header_sha256:`, which covers the id, seats, rules and seed commitment): another copy
    refuses it, and a signed join that names none is not counted as authenticated."""
    keys = {p: ssh_key(tmp_path, p) for p in PLAYERS}
    copies = []
    for name in ("a", "b"):
        folder = tmp_path / name
        folder.mkdir()
        # the second a rebis-pbm/3 game: there a signed join may still name no header (below);
        # rebis-pbm/4 refuses such a join (tests/record/test_history_pin.py)
        copies.append(new_game(folder, keys, seed=f"copy {name} of the same game id",
                               fmt="rebis-pbm/3" if name == "b" else None)[0])
    first, second = copies
    # A remake of the first game from its own seed and salt, the seats in another order: the
    # same seed commitment, another header digest (the fourth attacker's variant).
    remade = tmp_path / "remade" / "game.yaml"
    remade.parent.mkdir()
    for name in ("game.yaml", "game.secret.yaml"):
        shutil.copy(first.parent / name, remade.parent / name)
    def reseated(doc):
        doc["players"].reverse()
        doc["status"]["waiting"].reverse()

    _rewritten_by_the_referee(remade, reseated)
    assert run_inproc("verify", remade).code == 0  # a record as rebis-pbm would write it
    assert yaml.safe_load(remade.read_text())["seed_sha256"] == \
        yaml.safe_load(first.read_text())["seed_sha256"]
    assert "header_sha256: " in referee.player_view(first, "alice")["move_template"]
    joins = {p: join_file(first.parent, p, f"{p}'s own words", keys[p]) for p in PLAYERS}
    for p, join in joins.items():
        assert run_inproc("apply", first, join, "--as", f"{p}@example.org").code == 0
    assert FAIR in verify(first)[0]
    for other in (second, remade):
        before = other.read_bytes()
        tried = run_inproc("apply", other, joins["alice"], "--as", "alice@example.org")
        assert tried.code == 1 and "names another game's header" in tried.err
        assert other.read_bytes() == before
    # Joins that name no header (signed before templates named it) fit both copies: verify
    # counts none of them as authenticated.
    for p in PLAYERS:
        unbound = second.parent / f"unbound-{p}.yaml"
        unbound.write_text(f"game: uj\nplayer: {p}\njoin: {p}'s own words\n")
        (second.parent / f"unbound-{p}.yaml.sig").write_bytes(
            ssh_sign(keys[p], unbound.read_bytes()))
        assert run_inproc("apply", second, unbound, "--as", f"{p}@example.org").code == 0
    text, report = verify(second)
    assert FAIR not in text and report["unsigned_joins"] == list(PLAYERS)
    assert "taken them from another game" in text


@needs_ssh
def test_several_keys_for_one_player_are_each_to_be_checked(tmp_path):
    """A fourth attacker's report: `new --key alice=FILE` with FILE holding alice's key and one
    the referee holds; the referee signs alice's join itself and the deal reads fair. verify
    cannot know whose a key is, but says that each key signs for alice and must be hers."""
    alice, extra = ssh_key(tmp_path, "alice"), ssh_key(tmp_path, "referee_spare")
    both = tmp_path / "alice_both"
    Path(f"{both}.pub").write_text(Path(f"{alice}.pub").read_text()
                                   + Path(f"{extra}.pub").read_text())
    game, _ = new_game(tmp_path, {"alice": both})
    text, data = verify(game)
    assert len(data["keys"]["alice"]) == 2
    (line,) = [line for line in text.splitlines() if "alice:" in line and "SHA256:" in line]
    assert line.startswith("Keys of alice: SHA256:")
    assert "each signs for alice: check that every one is a key alice holds or published" in line
