"""Trust nobody (issue 12, docs/audit.md "What you must trust, and what you need not"): each
attack performed, and seen to fail.

The keys are made and the moves signed by the real ``ssh-keygen`` (openssh-client; installed by
.ci/run), skipped with a clear message where it is missing.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from clitools import run_inproc, run_script
from rebis_pbm import app as referee
from rebis_pbm.engine import Ruleset, apply_move, setup
from rebis_pbm.errors import Refused
from rebis_pbm.record import Record, dump_record
from rebis_pbm.record.seed_strength import seed_bits
from sshkeys import SSH_KEYGEN, needs_ssh, ssh_key, ssh_sign

RULES = ["shelf_limit=3"]  # short games

ONE_ROUND = "rebis-pbm/4"  # a fair deal of one round of joins (rebis-pbm/5: two rounds)


def move_bytes(record: Record, move) -> bytes:
    """``move`` as a JSON move file of ``record``'s game, naming the history it answers
    (``after``) in a game whose format has it (rebis-pbm/4)."""
    after = {"after": record.last_digest()} if record.pins_history else {}
    return (json.dumps({"game": record.game, **after, **move.as_dict()}, indent=1)
            + "\n").encode()


def play(game: Path, keys: dict[str, Path] | None, folder: Path, upto: int | None = None):
    """Play ``game`` by bots, each move signed with its player's key; returns views saved at
    each move (text)."""
    saved = {}
    n = 0
    while True:
        record, replay, _ = referee.open_game(game)
        state = replay.state
        if state.finished or (upto is not None and n >= upto):
            return saved
        player = state.player_to_move
        _, move = referee.bot_move(game, player, "random", seed=f"bot {n}")
        data = move_bytes(record, move)
        sig = ssh_sign(keys[player], data) if keys else None
        referee.submit_move(game, data, f"move {n + 1}", signature=sig)
        n += 1
        saved[n] = (game.with_suffix(".views") / f"{player}.txt").read_text()


# ---------------------------------------------------------------- 1. the seed and its commitment

@pytest.mark.parametrize("run", [run_inproc, "script"])
def test_a_guessable_seed_is_refused(tmp_path, run, console_script):
    runner = (lambda *a: run_script(console_script, *a)) if run == "script" else run
    for seed in ("42", "alice", "password123", "correcthorsebatterystaple"):
        out = runner("new", tmp_path / "g.yaml", "--player", "a", "--player", "b", "--seed", seed)
        assert out.code == 2, out
        assert "--insecure-seed" in out.err and len(out.err.strip().splitlines()) == 1
        assert not (tmp_path / "g.yaml").exists()
    out = runner("new", tmp_path / "g.yaml", "--player", "a", "--player", "b", "--seed", "42",
                 "--insecure-seed")
    assert out.code == 0, out.err


def test_generated_and_strong_seeds_pass_the_estimate():
    import secrets

    assert seed_bits(secrets.token_hex(16)) >= 128
    assert seed_bits("Xq7#mP2$vL9@wR4!kT8&zN3%") >= 128


def test_the_commitment_is_salted_and_the_game_id_random(tmp_path):
    created = referee.create_game(tmp_path / "g.yaml", ["ann", "ben"], seed="42",
                                  insecure_seed=True)
    text = (tmp_path / "g.yaml").read_text()
    plain = hashlib.sha256(b"42").hexdigest()
    assert created.record.seed_sha256 != plain
    assert plain[:10] not in text  # neither the commitment nor the game id is the seed's hash
    for word in text.split():
        assert word.strip("'\"") not in (plain, hashlib.sha256(b"42").hexdigest()[:10])
    secret = (tmp_path / "g.secret.yaml").read_text()
    assert "salt:" in secret and "seed: '42'" in secret
    # Brute force of a small seed space finds nothing without the salt.
    from rebis_pbm.record import commitment

    assert all(commitment("rebis-pbm/2", f"{'0' * 32}:{n}") != created.record.seed_sha256
               for n in range(1000))


# ---------------------------------------------------------------- 2. a fair deal

def test_fair_deal_and_referee_deal_are_told_apart(tmp_path):
    ref = tmp_path / "ref" / "g.yaml"
    ref.parent.mkdir()
    referee.create_game(ref, ["ann", "ben"], seed="42", insecure_seed=True)
    out = run_inproc("verify", ref, "--format", "json")
    assert json.loads(out.out)["deal_from"] == ["referee"]

    fair = tmp_path / "fair" / "g.yaml"
    fair.parent.mkdir()
    created = referee.create_game(fair, ["ann", "ben"], seed="42", insecure_seed=True,
                                  referee_deal=False, record_format=ONE_ROUND)
    assert created.state is None
    view = run_inproc("view", fair, "--player", "ann")
    assert "waits for joins: ann, ben" in view.out
    listing = run_inproc("moves", fair, "--player", "ben")
    assert "join:" in listing.out and "may write your own" in listing.out
    assert run_inproc("apply", fair, "-", stdin=b"game: " + created.record.game.encode()
                      + b"\nplayer: ann\nturn: 1\nplay: {cards: 1, shelf: ann}\n").code == 1
    gid = created.record.game
    for name in ("ben", "ann"):  # any order
        move = fair.parent / f"join-{name}.yaml"
        move.write_text(f"game: {gid}\nplayer: {name}\njoin: entropy of {name}\n")
        out = run_inproc("apply", fair, move)
        assert out.code == 0, out.err
    assert "turn 1: ann to move" in out.out
    report = json.loads(run_inproc("verify", fair, "--format", "json").out)
    assert report["verified"] and report["deal_from"] == ["referee", "ann", "ben"]
    # The deal is not the referee's seed alone: a referee deal from the same seed differs.
    fair_hand = referee.open_game(fair).state.hands
    ref_hand = setup(created.record.ruleset, ("ann", "ben"), "42")[0].hands
    assert fair_hand != ref_hand


def test_an_archived_v1_record_still_verifies_from_the_referee():
    out = run_inproc("verify", Path(__file__).resolve().parents[1] / "records" / "finished-2p.yaml",
                     "--format", "json")
    report = json.loads(out.out)
    assert report["verified"] and report["deal_from"] == ["referee"]


# ---------------------------------------------------------------- 3. signed moves

@needs_ssh
def test_a_move_with_a_forged_author_and_no_valid_signature_is_refused(tmp_path, console_script):
    keys = {p: ssh_key(tmp_path, p) for p in ("ann", "ben")}
    game = tmp_path / "g.yaml"
    assert run_inproc("new", game, "--player", "ann=ann@example.org", "--player",
                      "ben=ben@example.org", "--seed", "trust tests", "--insecure-seed",
                      "--referee-deal", "--key", f"ann={keys['ann']}.pub",
                      "--key", f"ben={keys['ben']}.pub").code == 0
    record, _, _ = referee.open_game(game)
    _, move = referee.bot_move(game, "ann", "random", seed="x")
    move_file = tmp_path / "turn-001-ann.yaml"
    move_file.write_bytes(move_bytes(record, move))
    before = game.read_bytes()
    # Forged sender, no signature.
    out = run_script(console_script, "apply", game, move_file, "--as", "ann@example.org")
    assert out.code == 1 and "must be signed" in out.err and game.read_bytes() == before
    # Signed with another player's key (ben forging ann's move).
    Path(str(move_file) + ".sig").write_bytes(ssh_sign(keys["ben"], move_file.read_bytes()))
    out = run_inproc("apply", game, move_file)
    assert out.code == 1 and "does not check" in out.err and game.read_bytes() == before
    # Signed, then edited.
    Path(str(move_file) + ".sig").write_bytes(ssh_sign(keys["ann"], move_file.read_bytes()))
    edited = tmp_path / "edited.yaml"
    edited.write_bytes(move_file.read_bytes() + b"# edited\n")
    out = run_inproc("apply", game, edited, "--signature", str(move_file) + ".sig")
    assert out.code == 1 and game.read_bytes() == before
    # Standard input needs --signature.
    out = run_inproc("apply", game, "-", stdin=move_file.read_bytes())
    assert out.code == 1 and game.read_bytes() == before
    # The real signature, beside the file: accepted, and kept in the record.
    out = run_inproc("apply", game, move_file)
    assert out.code == 0, out.err
    assert "BEGIN SSH SIGNATURE" in game.read_text()


def test_addresses_compare_by_ascii_case_only():
    record = Record("g", Ruleset(), ("bosk", "ann"), "0" * 64,
                    addresses={"bosk": "bosk@sks.example"})
    assert record.player_at("BOSK@SKS.example") == "bosk"
    assert record.player_at("bo\u017fk@sks.example") is None  # long s folds to s in Unicode
    assert record.player_at("bos\u212a@sks.example") is None  # Kelvin sign lowers to k


@needs_ssh
def test_a_game_forged_after_the_reveal_fails_verify_when_players_had_keys(tmp_path):
    keys = {p: ssh_key(tmp_path, p) for p in ("ann", "ben")}
    game = tmp_path / "g.yaml"
    referee.create_game(game, ["ann", "ben"], seed="forge me", insecure_seed=True,
                        ruleset=referee.ruleset_from(False, RULES),
                        keys={p: Path(f"{k}.pub").read_text() for p, k in keys.items()})
    play(game, keys, tmp_path)
    honest = referee.read_record(game)
    assert honest.seed is not None
    assert json.loads(run_inproc("verify", game, "--format", "json").out)["complete"]
    # Same seed, salt, game id and keys (so the same header digest); other moves, unsigned.
    forged = replace(honest, moves=(), links=(), proofs=(), seed=None)
    assert forged.computed_header_sha256() == honest.header_sha256
    state = setup(forged.ruleset, forged.players, forged.deal_seed(honest.seed))[0]
    from rebis_pbm.bots import make_bot
    from rebis_pbm.engine import information_set

    n = 0
    while not state.finished:
        move = make_bot("random", f"forger {n}").choose(information_set(state, state.to_move))
        state, events = apply_move(state, move)
        forged = forged.with_move(move, state, honest.seed, events)
        n += 1
    forged = forged.revealed(honest.seed)
    fake = tmp_path / "forged.yaml"
    fake.write_text(dump_record(forged, state))
    out = run_inproc("verify", fake, "--format", "json")
    assert out.code == 3
    assert json.loads(out.out)["problem"]["code"] == "signature"
    # Stripping the signatures from the honest record fails too.
    stripped = replace(honest, proofs=())
    fake.write_text(dump_record(stripped, referee.open_game(game).state))
    assert run_inproc("verify", fake).code == 3


@needs_ssh
def test_a_closing_plays_signed_file_stays_sealed_until_the_reveal(tmp_path):
    keys = {p: ssh_key(tmp_path, p) for p in ("ann", "ben")}
    game = tmp_path / "g.yaml"
    referee.create_game(game, ["ann", "ben"], seed="sealed", insecure_seed=True,
                        ruleset=referee.ruleset_from(False, RULES),
                        keys={p: Path(f"{k}.pub").read_text() for p, k in keys.items()})
    import yaml

    for n in range(1, 60):
        play(game, keys, tmp_path, upto=n)
        doc = yaml.safe_load(game.read_text())
        if doc.get("seed") is not None:
            break
        for entry in doc["moves"]:
            if "sealed" in entry.get("play", {}):
                assert "signed" not in entry and "signed_sealed" in entry
                assert "cards" not in entry["signed_sealed"]
                # The attack: rebuild the move file with each card and check the signature in
                # clear against the player's public key. There is none to check, and the
                # sealed payload's length is the same whatever the card.
                assert "signature" not in entry
                assert len(base64.b64decode(entry["signed_sealed"])) % 1024 == 16
    sealed = [e for e in yaml.safe_load(game.read_text())["moves"] if "signed_sealed" in e]
    assert sealed, "the game had no closing play"
    assert json.loads(run_inproc("verify", game, "--format", "json").out)["complete"]


# ---------------------------------------------------------------- 4. witnesses

def test_a_record_cut_short_fails_verify_witness(tmp_path, console_script):
    game = tmp_path / "g.yaml"
    referee.create_game(game, ["ann", "ben"], seed="witness", insecure_seed=True)
    play(game, None, tmp_path, upto=2)
    early = tmp_path / "at-2.yaml"
    shutil.copy(game, early)
    saved = play(game, None, tmp_path, upto=5)
    text_view = tmp_path / "ben-at-5.txt"
    text_view.write_text(saved[5])
    yaml_view = tmp_path / "public-at-5.yaml"
    shutil.copy(tmp_path / "g.views" / "public.yaml", yaml_view)
    from email.message import EmailMessage

    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = "ref@example.org", "ann@example.org", "view"
    mail.set_content(text_view.read_text(), cte="quoted-printable")
    eml = tmp_path / "view.eml"
    eml.write_bytes(bytes(mail))
    for witness in (text_view, yaml_view, eml):
        assert run_inproc("verify", game, "--witness", witness).code == 0
        out = run_script(console_script, "verify", early, "--witness", witness)
        assert out.code == 3 and witness.name in out.out and "cut short" in out.out
    # An early witness holds for the longer record.
    assert run_inproc("verify", game, "--witness", text_view, "--witness", yaml_view).code == 0
    assert run_inproc("verify", game, "--witness", tmp_path / "at-2.yaml").code == 2


def test_a_rewritten_record_fails_verify_witness_with_the_digest_it_holds(tmp_path):
    """expected: the chain digest the saved view saw; found: the one the record holds there."""
    games = []
    for seed in ("witness one", "witness two"):  # one game id, two histories: a rewrite
        game = tmp_path / seed.replace(" ", "-") / "g.yaml"
        game.parent.mkdir()
        referee.create_game(game, ["ann", "ben"], seed=seed, game_id="rewritten",
                            insecure_seed=True)
        play(game, None, tmp_path, upto=2)
        games.append(game)
    seen = yaml.safe_load(games[0].read_text())["moves"][1]["chain_sha256"]
    held = yaml.safe_load(games[1].read_text())["moves"][1]["chain_sha256"]
    assert seen != held
    saved = games[0].with_suffix(".views") / "public.yaml"
    out = run_inproc("verify", games[1], "--witness", saved, "--format", "json")
    problem = json.loads(out.out)["problem"]
    assert out.code == 3 and problem["code"] == "witness", out.out
    assert problem["expected"].startswith(f"chain_sha256 {seen} at move 2")
    assert problem["found"] == f"chain_sha256 {held} at move 2"


def test_the_documented_vectors():
    from rebis_pbm.engine.shuffle import fair_deal_seed, shuffled
    from rebis_pbm.record.digests import salted_commitment

    docs = Path(__file__).resolve().parents[2] / "docs"
    audit, shuffle = (docs / "audit.md").read_text(), (docs / "shuffle.md").read_text()
    commit = salted_commitment("example", "00112233445566778899aabbccddeeff")
    assert commit == hashlib.sha256(
        b'{"domain":"rebis-pbm/seed-commitment/v2","salt":"00112233445566778899aabbccddeeff",'
        b'"seed":"example"}').hexdigest()
    assert commit in audit
    deal = fair_deal_seed("example", [("ann", "entropy of ann"), ("ben", "entropy of ben")])
    assert deal in shuffle and str(shuffled(range(10), deal)) in shuffle


@needs_ssh
def test_replace_player_gives_a_new_key_for_the_moves_after_it(tmp_path):
    """alice's key is lost: the referee logs a new one; from then on only the new key signs for
    her, and verify checks each move against the key in force when it was made."""
    old, new = ssh_key(tmp_path, "alice_old"), ssh_key(tmp_path, "alice_new")
    bob = ssh_key(tmp_path, "bob")
    game = tmp_path / "g.yaml"
    referee.create_game(game, ["alice", "bob"], seed="replace key", insecure_seed=True,
                        keys={"alice": Path(f"{old}.pub").read_text(),
                              "bob": Path(f"{bob}.pub").read_text()},
                        ruleset=referee.ruleset_from(False, RULES))
    play(game, {"alice": old, "bob": bob}, tmp_path, upto=2)
    out = run_inproc("replace-player", game, "--player", "alice", "--key", f"{new}.pub",
                     "--reason", "alice lost her key")
    assert out.code == 0, out.err
    record, _, _ = referee.open_game(game)
    _, move = referee.bot_move(game, "alice", "random", seed="after")
    data = move_bytes(record, move)
    before = game.read_bytes()
    with pytest.raises(Refused, match="does not check"):
        referee.submit_move(game, data, "old key", signature=ssh_sign(old, data))
    assert game.read_bytes() == before
    referee.submit_move(game, data, "new key", signature=ssh_sign(new, data))
    verified = run_inproc("verify", game, "--format", "json")
    assert verified.code == 0, verified.out
    report = json.loads(verified.out)
    # checked, and said to be checked against a key the referee gave (issue 27)
    assert ("each move's signature by its player's key (alice's from move 3 by a key the "
            "referee gave (replace-player), alice's only on alice's word)") in report["checked"]
    assert [c["by"] for c in report["key_changes"]["alice"]] == ["new", "replace-player"]


def test_a_weak_seed_cannot_be_found_from_a_hand_in_a_fair_deal(tmp_path):
    """The attack: a player knows the public joins and their own hand (and, turn after turn,
    their draws), and tries every small seed (here the referee's --insecure-seed 42 is among
    them) until one deals the game. The fair deal shuffles from the whole secret SALT:SEED,
    whose salt is 128 random bits kept out of the record, so no guess of the seed alone deals
    it. (A 6-card hand alone matches some guesses by chance; the deal is the whole deck.)"""
    from rebis_pbm.engine.shuffle import fair_deal_seed

    game = tmp_path / "g.yaml"
    created = referee.create_game(game, ["ann", "ben"], seed="42", insecure_seed=True,
                                  referee_deal=False, record_format=ONE_ROUND)
    gid = created.record.game
    for name in ("ann", "ben"):
        referee.submit_move(game, f"game: {gid}\nplayer: {name}\njoin: e {name}\n".encode(),
                            f"join-{name}.yaml")
    state = referee.open_game(game).state
    public = referee.read_record(game)
    assert "42" not in {public.seed, public.seed_sha256}
    entropy = [(j.player, j.entropy) for j in public.joins]
    found = [guess for guess in map(str, range(1000))
             if setup(public.ruleset, public.players,
                      fair_deal_seed(guess, entropy))[0].order == state.order]
    assert found == []


@needs_ssh
def test_verify_shows_each_players_key_fingerprint_as_ssh_keygen_prints_it(tmp_path):
    """A key sent in a join is trusted on first use: whoever joins first in a player's name
    registers their key. verify prints each key's fingerprint, as `ssh-keygen -l` prints it, so
    a player sees at once whether the key of their seat is theirs (docs/audit.md)."""
    keys = {p: ssh_key(tmp_path, p) for p in ("ann", "ben")}
    game = tmp_path / "g.yaml"
    created = referee.create_game(game, ["ann", "ben"], referee_deal=False,
                                  record_format=ONE_ROUND)
    gid = created.record.game
    report = json.loads(run_inproc("verify", game, "--format", "json").out)
    assert report["deal_pending"] is True and report["deal_from"] == ["referee"]
    assert "not dealt yet" in run_inproc("verify", game).out
    # ann joins in ben's name with her own key: the seat's key is then ann's.
    for name, holder in (("ann", "ann"), ("ben", "ann")):
        data = (f"game: {gid}\nplayer: {name}\nheader_sha256: {created.record.header_sha256}\n"
                f"join: e {name}\nkey: "
                f"{Path(f'{keys[holder]}.pub').read_text().split(' ann')[0].strip()}\n").encode()
        referee.submit_move(game, data, f"join-{name}.yaml",
                            signature=ssh_sign(keys[holder], data))
    printed = {p: subprocess.run([SSH_KEYGEN, "-l", "-f", f"{keys[p]}.pub"], check=True,
                                 capture_output=True, text=True).stdout.split()[1]
               for p in keys}
    report = json.loads(run_inproc("verify", game, "--format", "json").out)
    assert report["deal_pending"] is False
    assert report["keys"] == {"ann": [printed["ann"]], "ben": [printed["ann"]]}
    assert printed["ben"] not in run_inproc("verify", game).out  # ben sees it is not his key


@pytest.mark.parametrize("words", ["WRITE ANY TEXT OF YOUR CHOOSING",
                                   "  write any text of your choosing ",
                                   "ÉCRIS LE TEXTE DE TON CHOIX", "ESCREVE O TEXTO QUE QUISERES"])
def test_a_join_that_keeps_the_template_s_words_is_refused(tmp_path, words):
    """The referee writes the join template, so a join that keeps its placeholder (in any of the
    languages, whatever its case) adds nothing the referee did not know: refused, nothing
    written, and the sentence says what to write instead."""
    game = tmp_path / "g.yaml"
    created = referee.create_game(game, ["ann", "ben"], referee_deal=False, langs={"ben": "fr"},
                                  record_format=ONE_ROUND)
    before = game.read_bytes()
    gid = created.record.game
    move = tmp_path / "join-ben.yaml"
    move.write_text(f"game: {gid}\nplayer: ben\njoin: {words}\n", encoding="utf-8")
    out = run_inproc("apply", game, move)
    assert out.code == 1 and game.read_bytes() == before
    assert "the join still holds the template's words" in out.err
    assert "l'inscription contient encore les mots du modèle" in out.err  # ben reads French
    move.write_text(f"game: {gid}\nplayer: ben\njoin: {words} and mine\n", encoding="utf-8")
    assert run_inproc("apply", game, move).code == 0  # words of their own: a join


def test_verify_does_not_count_a_join_that_kept_the_template_s_words(tmp_path):
    """A record whose joins kept the placeholder (written before it was refused) is not called
    a fair deal for them: verify names them and leaves them out of the deal."""
    from rebis_pbm.record import FAIR_DEAL, Join, commitment, dump_secret, salted

    key = salted("a seed for the test", "00" * 16)
    record = Record("g-blank", referee.ruleset_from(), ("ann", "ben"),
                    commitment(ONE_ROUND, key), deal=FAIR_DEAL, format=ONE_ROUND)
    record = record.with_join(Join("ann", "WRITE ANY TEXT OF YOUR CHOOSING", None, None))
    record = record.with_join(Join("ben", "ÉCRIS LE TEXTE DE TON CHOIX", None, None))
    state, _ = setup(record.ruleset, record.players, record.deal_seed(key))
    game = tmp_path / "g.yaml"
    game.write_text(dump_record(record, state, key), encoding="utf-8")
    (tmp_path / "g.secret.yaml").write_text(dump_secret("g-blank", key, ONE_ROUND))
    report = json.loads(run_inproc("verify", game, "--format", "json").out)
    assert report["verified"], report
    assert report["deal_from"] == ["referee"] and report["blank_joins"] == ["ann", "ben"]
    text = run_inproc("verify", game).out
    assert "the referee could have chosen the deal" in text
    assert "The join of ann and ben kept the join template's words" in text


@needs_ssh
def test_a_signed_closing_play_unsealed_tells_nothing_of_its_card(tmp_path):
    """The attack (a third attacker's report): in a game of signed moves, a closing play's signed
    file is kept sealed (it names the face-down card, R8.1). Rewritten in the clear with card C,
    the chain recomputed, the seed-holding check compared C with the sealed file before the
    replay: "the signed move file does not hold the move recorded" for every C but the real
    one. While the seed is secret, every C now reads alike."""
    from rebis_pbm.formats.yaml_writer import dump_yaml
    from rebis_pbm.record import HEADER
    from rebis_pbm.record.digests import chain_digest
    keys = {p: ssh_key(tmp_path, p) for p in ("alice", "bob")}
    game = tmp_path / "g.yaml"
    referee.create_game(game, ["alice", "bob"], seed="signed seal", insecure_seed=True,
                        keys={p: Path(f"{k}.pub").read_text() for p, k in keys.items()},
                        ruleset=referee.ruleset_from(False, RULES))
    sealed_at = None
    for _ in range(40):
        play(game, keys, tmp_path, upto=1)
        entries = yaml.safe_load(game.read_text())["moves"]
        sealed_at = next((i for i, e in enumerate(entries) if "sealed" in e.get("play", {})),
                         None)
        if sealed_at is not None or referee.open_game(game).replay.state.finished:
            break
    assert sealed_at is not None, "no play closed a shelf"
    original = yaml.safe_load(game.read_text())
    assert "signed_sealed" in original["moves"][sealed_at]
    problems = set()
    for card in range(1, 10):
        doc = json.loads(json.dumps(original))
        play_ = doc["moves"][sealed_at]["play"]
        doc["moves"][sealed_at]["play"] = {"cards": card, "shelf": play_["shelf"],
                                           "sign": play_["sign"]}
        prev = doc["header_sha256"]
        for entry in doc.get("joins", []) + doc["moves"]:
            entry.pop("chain_sha256")
            entry["chain_sha256"] = prev = chain_digest(prev, entry)
        forged = tmp_path / "forged" / "g.yaml"
        forged.parent.mkdir(exist_ok=True)
        forged.write_text(HEADER + dump_yaml(doc))
        shutil.copy(game.with_name("g.secret.yaml"), forged.with_name("g.secret.yaml"))
        out = run_inproc("verify", forged, "--format", "json")
        assert out.code == 3, out.out
        problems.add(json.dumps(json.loads(out.out)["problem"], sort_keys=True))
    assert len(problems) == 1, problems  # the same answer whatever the card: no oracle
    # the first problem found: the signed file stays sealed on a play now shown in the clear
    # (verify refuses a sealed file on any move but a closing play), before any state digest
    problem = json.loads(problems.pop())
    assert problem["code"] == "signature" and "no closing play" in problem["message"], problem
