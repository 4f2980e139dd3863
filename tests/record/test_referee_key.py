"""The referee has a key and signs what it says (issue 27 item 2, rebis-pbm/4, docs/audit.md
"The referee's signatures"): each test performs an attack of the issue against a game created
with `new --referee-key`, with the real ssh-keygen."""

from __future__ import annotations

import json
import secrets
import subprocess
from pathlib import Path

import pytest
import yaml

from clitools import run_inproc
from rebis_pbm import app as referee
from rebis_pbm.app.signing import sign_texts
from rebis_pbm.record import dump_record
from rebis_pbm.record.acts import action_text, record_witness
from sshkeys import needs_ssh, ssh_key, ssh_sign

pytestmark = needs_ssh
NOT_SIGNED = "not signed by this game's referee"


def move_bytes(record, move) -> bytes:
    """``move`` as a JSON move file of ``record``'s game, naming the history it answers
    (``after``) in a game whose format has it (rebis-pbm/4)."""
    after = {"after": record.last_digest()} if record.pins_history else {}
    return (json.dumps({"game": record.game, **after, **move.as_dict()}, indent=1)
            + "\n").encode()


def signed_game(folder: Path, *extra: str) -> tuple[Path, Path, dict[str, Path]]:
    """A referee-deal game of ann and bo, who sign their moves, with a 1 h deadline and a
    referee key; returns (record, the referee's key, the players' keys)."""
    keys = {p: ssh_key(folder, p) for p in ("ann", "bo")}
    key = ssh_key(folder, "referee")
    game = folder / "g.yaml"
    made = run_inproc("new", game, "--player", "ann", "--player", "bo", "--seed",
                      "referee key tests", "--insecure-seed", "--referee-deal",
                      "--key", f"ann={keys['ann']}.pub", "--key", f"bo={keys['bo']}.pub",
                      "--rule", "golden_dust=2", "--rule", "gold=1", "--deadline", "1h",
                      "--now", "2025-01-01T00:00:00Z", "--referee-key", key, *extra)
    assert made.code == 0, made.err
    return game, key, keys


def play_signed(game: Path, keys: dict[str, Path], folder: Path, key: Path, now: str) -> None:
    """The player to move plays a random legal move, signed with their key."""
    record, replay, _ = referee.open_game(game)
    _, move = referee.bot_move(game, replay.state.player_to_move, "random", seed="x")
    path = folder / f"turn-{move.turn:03d}-{move.player}.yaml"
    path.write_bytes(move_bytes(record, move))
    Path(f"{path}.sig").write_bytes(ssh_sign(keys[move.player], path.read_bytes()))
    done = run_inproc("apply", game, path, "--now", now, "--referee-key", key)
    assert done.code == 0, done.err


def test_a_made_up_witness_is_not_signed_and_a_real_one_verifies(tmp_path):
    game, key, keys = signed_game(tmp_path)
    play_signed(game, keys, tmp_path, key, "2025-01-01T00:10:00Z")
    record = referee.read_record(game)
    # The attack: a witness line anyone can type, about an honest game.
    fake = tmp_path / "fake.txt"
    fake.write_text(f"Witness: game {record.game}, move 1, chain_sha256 "
                    f"{secrets.token_hex(32)}\n")
    out = run_inproc("verify", game, "--witness", fake)
    assert out.code == 2 and NOT_SIGNED in out.err and "rewritten" not in out.err + out.out
    # The true digest with no signature proves nothing either.
    fake.write_text(record_witness(record) + "\n")
    out = run_inproc("verify", game, "--witness", fake)
    assert out.code == 2 and NOT_SIGNED in out.err
    # A signature by another key (a player's, in the referee's namespace) over the true line.
    other = sign_texts(keys["ann"], [record_witness(record)])[0]
    fake.write_text(record_witness(record) + "\n" + other)
    out = run_inproc("verify", game, "--witness", fake)
    assert out.code == 2 and NOT_SIGNED in out.err
    # The referee's real views, text and YAML, the spectator's and a player's: verified.
    for view in ("public.txt", "public.yaml", "ann.txt", "bo.yaml"):
        saved = tmp_path / f"saved-{view}"
        saved.write_bytes((tmp_path / "g.views" / view).read_bytes())
        out = run_inproc("verify", game, "--witness", saved)
        assert out.code == 0, out.out + out.err
        assert "the record holds every witness" in out.out
    assert "witness_signature" in yaml.safe_load((tmp_path / "g.views/bo.yaml").read_text())


def test_a_record_rewritten_after_a_signed_witness_is_proved_rewritten(tmp_path):
    game, key, _ = signed_game(tmp_path)
    before = {p: p.read_bytes() for p in (game, tmp_path / "g.secret.yaml")}
    assert run_inproc("move-for", game, "--player", "ann", "--strategy", "greedy", "--now",
                      "2025-01-01T00:05:00Z", "--referee-key", key).code == 0
    witness = tmp_path / "saved.txt"
    witness.write_bytes((tmp_path / "g.views/bo.txt").read_bytes())
    seen = referee.read_record(game).links[0].chain_sha256
    # The referee rewrites history: back to before move 1, another move for ann, all signed.
    for path, data in before.items():
        path.write_bytes(data)
    assert run_inproc("move-for", game, "--player", "ann", "--strategy", "random", "--now",
                      "2025-01-01T00:06:00Z", "--referee-key", key).code == 0
    held = referee.read_record(game).links[0].chain_sha256
    assert held != seen
    assert run_inproc("verify", game).code == 0  # the record alone reads as honest
    out = run_inproc("verify", game, "--witness", witness)
    assert out.code == 3, out.out + out.err
    assert "move 1" in out.out and seen in out.out and held in out.out
    assert "rewritten" in out.out and "referee's signature" in out.out


def test_tick_replaces_a_late_signed_player_and_the_finished_game_verifies(tmp_path):
    game, key, keys = signed_game(tmp_path, "--missed", "2")
    play_signed(game, keys, tmp_path, key, "2025-01-01T00:10:00Z")  # ann, signed
    # bo misses his turns: without the key the referee cannot move for him...
    record_before = game.read_bytes()
    out = run_inproc("tick", game, "--now", "2025-01-01T02:00:00Z")
    assert out.code == 2 and "--referee-key" in out.err and game.read_bytes() == record_before
    # ...nor with a key that is not the game's.
    out = run_inproc("tick", game, "--now", "2025-01-01T02:00:00Z", "--referee-key", keys["bo"])
    assert out.code == 2 and "is not game" in out.err and game.read_bytes() == record_before
    hours = 2
    while referee.score(game)["winners"] is None:
        done = run_inproc("tick", game, "--now", f"2025-01-{1 + hours // 24:02d}T"
                          f"{hours % 24:02d}:00:00Z",
                          env={"REBIS_PBM_REFEREE_KEY": str(key)})
        assert done.code == 0, done.err
        hours += 2
        assert hours < 2 * 300, "tick never ended the game"
    report = run_inproc("verify", game, "--format", "json")
    assert report.code == 0 and json.loads(report.out)["verified"] is True
    text = run_inproc("verify", game).out
    assert "turn 2: the referee moved for bo (the referee says: missed deadline, greedy bot; " \
           "signed by the referee); checked: the deadline had passed, the greedy bot's move" \
        in text
    assert "the referee's signatures" in text
    doc = yaml.safe_load(game.read_text())
    assert doc["format"] == "rebis-pbm/6" and "referee_signature" in doc["moves"][1]
    assert "signature" in doc["moves"][0] and "referee_signature" not in doc["moves"][0]


def _forge(game: Path, edit) -> None:
    """Rewrite ``game`` as someone holding its seed (not the referee's key) can: the record
    from ``edit(record)``, every digest and record_hmac recomputed."""
    record, replay, seed = referee.open_game(game)
    game.write_text(dump_record(edit(record), replay.state, seed))


def test_a_forged_logged_act_fails_verify(tmp_path):
    game, key, keys = signed_game(tmp_path)
    assert run_inproc("extend", game, "--by", "2h", "--now", "2025-01-01T00:30:00Z",
                      "--referee-key", key).code == 0
    assert run_inproc("verify", game).code == 0
    honest = game.read_bytes()
    forged = {"action": "extend_deadline", "at": "2025-01-01T00:40:00Z", "seconds": 99999}
    # 1. An act with no signature: every digest right, the seed's holder made it.
    _forge(game, lambda r: r.with_action(forged))
    out = run_inproc("verify", game)
    assert out.code == 3 and "action 2" in out.out and "not signed by the game's referee" in \
        out.out, out.out
    # 2. Signed, but by another key (a player's).
    game.write_bytes(honest)

    def other_key(record):
        record = record.with_action(forged)
        signature = sign_texts(keys["ann"], [action_text(record, 1)])[0]
        return record.with_referee_signatures({}, {1: signature}, record.witness_signature)
    _forge(game, other_key)
    out = run_inproc("verify", game)
    assert out.code == 3 and "action 2" in out.out and "not signed" in out.out
    # 3. The referee's signature of the first act moved onto the forged one.
    game.write_bytes(honest)

    def moved(record):
        first = record.actions[0]["referee_signature"]
        record = record.with_action(forged)
        return record.with_referee_signatures({}, {1: first}, record.witness_signature)
    _forge(game, moved)
    assert run_inproc("verify", game).code == 3
    game.write_bytes(honest)
    assert run_inproc("verify", game).code == 0


def test_a_stand_in_move_without_the_referees_signature_fails_verify(tmp_path):
    game, key, _ = signed_game(tmp_path)
    assert run_inproc("tick", game, "--now", "2025-01-01T02:00:00Z", "--referee-key",
                      key).code == 0
    doc = yaml.safe_load(game.read_text())
    del doc["moves"][0]["referee_signature"]  # no digest covers it: only its check sees it
    game.write_text(yaml.safe_dump(doc, sort_keys=False))
    out = run_inproc("verify", game)
    assert out.code == 3 and "turn 1" in out.out and "did not sign it" in out.out, out.out


def test_a_witness_signature_left_from_an_earlier_record_is_caught(tmp_path):
    game, key, _ = signed_game(tmp_path)
    old = yaml.safe_load(game.read_text())["witness_signature"]
    assert run_inproc("tick", game, "--now", "2025-01-01T02:00:00Z", "--referee-key",
                      key).code == 0
    # The record's witness signature swapped for the earlier one: it no longer fits its head
    # (as when entries are cut off after the referee signed).
    doc = yaml.safe_load(game.read_text())
    assert doc["witness_signature"] != old
    doc["witness_signature"] = old
    game.write_text(yaml.safe_dump(doc, sort_keys=False))
    out = run_inproc("verify", game)
    assert out.code == 3 and "witness_signature" in out.out, out.out


def test_keygen_referee_ssh_writes_a_key_new_records(tmp_path):
    out = run_inproc("keygen-referee", "--ssh", tmp_path / "ref")
    assert out.code == 0 and "SHA256:" in out.out
    assert (tmp_path / "ref").stat().st_mode & 0o077 == 0
    again = run_inproc("keygen-referee", "--ssh", tmp_path / "ref")
    assert again.code == 2 and "exists" in again.err
    game = tmp_path / "g.yaml"
    assert run_inproc("new", game, "--player", "a", "--player", "b", "--referee-deal",
                      "--referee-key", tmp_path / "ref").code == 0
    pub = (tmp_path / "ref.pub").read_text().split()[:2]
    assert yaml.safe_load(game.read_text())["referee_key"] == " ".join(pub)
    # The key is covered by the header digest: another key in its place fails verify.
    other = ssh_key(tmp_path, "other")
    text = game.read_text().replace(" ".join(pub), " ".join(
        Path(f"{other}.pub").read_text().split()[:2]))
    game.write_text(text)
    assert run_inproc("verify", game).code == 3


def test_a_signed_game_without_a_referee_key_says_why_tick_cannot_move(tmp_path):
    keys = {p: ssh_key(tmp_path, p) for p in ("ann", "bo")}
    game = tmp_path / "g.yaml"
    assert run_inproc("new", game, "--player", "ann", "--player", "bo", "--referee-deal",
                      "--key", f"ann={keys['ann']}.pub", "--key", f"bo={keys['bo']}.pub",
                      "--deadline", "1h", "--now", "2025-01-01T00:00:00Z").code == 0
    out = run_inproc("tick", game, "--now", "2025-01-01T02:00:00Z")
    assert out.code == 2 and "no referee key" in out.err


def test_the_real_ssh_keygen_checks_the_referees_signature(tmp_path):
    """What the referee signs checks with the standard tool too (docs/audit.md)."""
    game, _, _ = signed_game(tmp_path)
    record = referee.read_record(game)
    signature = tmp_path / "w.sig"
    signature.write_text(str(record.witness_signature))
    allowed = tmp_path / "allowed"
    allowed.write_text(f"referee {record.referee_key}\n")
    done = subprocess.run(["ssh-keygen", "-Y", "verify", "-f", str(allowed), "-I", "referee",
                           "-n", "rebis-pbm-referee", "-s", str(signature)],
                          input=record_witness(record).encode(), capture_output=True)
    assert done.returncode == 0, done.stderr


def test_reveal_and_end_game_are_signed_acts(tmp_path):
    game, key, _ = signed_game(tmp_path)
    out = run_inproc("reveal", game, "--yes")
    assert out.code == 2 and "--referee-key" in out.err
    assert run_inproc("reveal", game, "--yes", "--referee-key", key).code == 0
    doc = yaml.safe_load(game.read_text())
    assert doc["actions"][-1]["action"] == "reveal" and "referee_signature" in doc["actions"][-1]
    text = run_inproc("verify", game).out
    assert "the referee revealed the seed" in text and "Verified" in text
    other = tmp_path / "other"
    other.mkdir()
    game2, key2, _ = signed_game(other)
    assert run_inproc("end-game", game2, "--yes", "--referee-key", key2).code == 0
    assert "referee_signature" in yaml.safe_load(game2.read_text())["actions"][-1]
    assert run_inproc("verify", game2).code == 0


def test_a_saved_mail_carries_the_signed_witness(tmp_path):
    """A mail's body is the text view: the signature block under the witness line survives the
    transfer encoding, and verify --witness reads it from the saved .eml."""
    from email.message import EmailMessage

    game, _, _ = signed_game(tmp_path)
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "ref@example.org", "a@example.org", "v"
    message.set_content((tmp_path / "g.views/ann.txt").read_text(), cte="quoted-printable")
    saved = tmp_path / "view.eml"
    saved.write_bytes(bytes(message))
    out = run_inproc("verify", game, "--witness", saved)
    assert out.code == 0, out.out + out.err
    # The same mail with the signature cut out proves nothing.
    text = (tmp_path / "g.views/ann.txt").read_text()
    message.set_content(text[:text.index("-----BEGIN SSH SIGNATURE-----")])
    saved.write_bytes(bytes(message))
    out = run_inproc("verify", game, "--witness", saved)
    assert out.code == 2 and NOT_SIGNED in out.err


def test_a_witness_or_refusal_of_another_game_of_the_same_id_is_not_about_this_record(tmp_path):
    """The attack: one referee key, one game id, two games (a game restarted): a real witness
    (and a real refusal) of game A, given to verify game B, read as proof that B was rewritten
    (exit 3). A rebis-pbm/5 witness names its record's header digest: of another header, it
    says nothing about this record (exit 2); in game A it still verifies."""
    from rebis_pbm.record.acts import refusal_text
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, key, keys = signed_game(tmp_path / "a", "--game-id", "g")
    play_signed(first, keys, tmp_path / "a", key, "2025-01-01T00:10:00Z")
    second = tmp_path / "b" / "g.yaml"
    made = run_inproc("new", second, "--player", "ann", "--player", "bo", "--seed",
                      "the game restarted", "--insecure-seed", "--referee-deal", "--game-id", "g",
                      "--deadline", "1h", "--now", "2025-01-02T00:00:00Z", "--referee-key", key)
    assert made.code == 0, made.err
    a, b = referee.read_record(first), referee.read_record(second)
    assert a.game == b.game and a.header_sha256 != b.header_sha256
    for view in ("public.txt", "ann.yaml"):
        saved = tmp_path / f"saved-{view}"
        saved.write_bytes((tmp_path / "a" / "g.views" / view).read_bytes())
        assert f"header_sha256 {a.header_sha256}" in saved.read_text() or (
            yaml.safe_load(saved.read_text())["witness"]["header_sha256"] == a.header_sha256)
        assert run_inproc("verify", first, "--witness", saved).code == 0
        out = run_inproc("verify", second, "--witness", saved)
        assert out.code == 2, out.out + out.err
        assert "another record of game g" in out.err and "rewritten since (" not in out.err
    claim = refusal_text(a, "cd" * 32, "ann", 1, "not your turn")
    signed = tmp_path / "refusal.txt"
    signed.write_text(claim + "\n" + sign_texts(key, [claim])[0])
    assert run_inproc("verify", first, "--refusal", signed).code == 0
    out = run_inproc("verify", second, "--refusal", signed)
    assert out.code == 2 and "this refusal is of another record of game g" in out.err


def _restamp(game: Path, key: Path, index: int, **fields) -> None:
    """The referee (its key and the seed) rewrites move ``index``'s stamp with ``fields`` (a
    field given None is dropped): the chain digest recomputed, the move and the witness signed
    again."""
    from dataclasses import replace

    from rebis_pbm.record.acts import move_act_text
    from rebis_pbm.record.digests import chain_digest
    from rebis_pbm.record.entries import Link

    def edit(record):
        stamps = list(record.stamps)
        stamps[index] = {k: v for k, v in {**stamps[index], **fields}.items()
                         if v is not None}  # None: the field dropped
        record = replace(record, stamps=tuple(stamps))
        links = list(record.links)
        links[index] = Link(links[index].state_hmac,
                            chain_digest(record.prev_digest(index), record.entry(index)))
        record = replace(record, links=tuple(links))
        move_sig, witness = sign_texts(key, [move_act_text(record, index),
                                             record_witness(record)])
        return record.with_referee_signatures({index: move_sig}, {}, witness)
    _forge(game, edit)


def test_a_stand_in_for_a_missed_deadline_before_the_deadline_fails_verify(tmp_path):
    """The attack: the referee's stand-in move re-dated to 5 minutes after the turn began (the
    deadline an hour later) and signed again still read "missed deadline". verify now computes
    the turn's deadline from the record and refuses a missed deadline recorded before it."""
    game, key, keys = signed_game(tmp_path)
    play_signed(game, keys, tmp_path, key, "2025-01-01T00:10:00Z")
    assert run_inproc("tick", game, "--now", "2025-01-01T02:00:00Z", "--referee-key",
                      key).code == 0
    assert run_inproc("verify", game).code == 0
    _restamp(game, key, 1, at="2025-01-01T00:15:00Z")
    out = run_inproc("verify", game, "--format", "json")
    problem = json.loads(out.out)["problem"]
    assert out.code == 3 and problem["code"] == "stand_in" and problem["turn"] == 2, out.out
    assert "before that turn's deadline" in problem["message"]
    assert "2025-01-01T01:10:00Z" in problem["expected"]


def test_a_stand_in_labelled_with_another_bot_fails_verify_with_the_seed(tmp_path):
    """The bot label: with the seed, verify recomputes the bot's move (the bot draws from the
    game, turn and player) and refuses a stand-in move that bot would not have made; without
    the seed the label is shown as the referee's word, not checked."""
    # A fixed game id: the bots draw from it, and this game's random bot must differ from
    # its greedy one at turn 2 (with a random id it sometimes did not: a flaky test).
    game, key, keys = signed_game(tmp_path, "--game-id", "refkey-bots")
    play_signed(game, keys, tmp_path, key, "2025-01-01T00:10:00Z")
    assert run_inproc("tick", game, "--now", "2025-01-01T02:00:00Z", "--referee-key",
                      key).code == 0
    from rebis_pbm.bots import make_bot
    from rebis_pbm.engine import apply_move as play
    from rebis_pbm.engine import information_set, setup
    record, _, seed = referee.open_game(game)
    state, _ = setup(record.ruleset, record.players, record.deal_seed(seed))
    state, _ = play(state, record.moves[0])
    chosen = {b: make_bot(b, f"{record.game}/{state.turn}/bo").choose(
        information_set(state, state.to_move)) for b in ("greedy", "random")}
    assert chosen["greedy"] == record.moves[1] and chosen["random"] != chosen["greedy"]
    _restamp(game, key, 1, bot="random")
    out = run_inproc("verify", game, "--format", "json")
    problem = json.loads(out.out)["problem"]
    assert out.code == 3 and problem["code"] == "stand_in", out.out
    assert "recorded as the random bot's" in problem["message"]
    # Without the seed (a spectator's verify before the reveal): the referee's word, unchecked.
    secret = tmp_path / "g.secret.yaml"
    secret.rename(tmp_path / "kept.secret.yaml")
    text = run_inproc("verify", game).out
    assert "the referee moved for bo (the referee says: missed deadline, random bot; signed " \
           "by the referee); checked: the deadline had passed" in text
    assert "random bot's move" not in text


def test_a_record_signed_before_the_witness_named_the_header_still_verifies(tmp_path):
    """A rebis-pbm/5 record whose witness_signature signs the line without the header digest
    (as the format was first written) verifies; a player's witness of that form does not prove
    anything (it names no header: "not signed by this game's referee")."""
    from rebis_pbm.record.acts import witness_text
    game, key, keys = signed_game(tmp_path)
    play_signed(game, keys, tmp_path, key, "2025-01-01T00:10:00Z")
    record = referee.read_record(game)
    older = witness_text(record.game, len(record.moves), record.last_digest())
    signature = sign_texts(key, [older])[0]
    _forge(game, lambda r: r.with_referee_signatures({}, {}, signature))
    assert run_inproc("verify", game).code == 0
    saved = tmp_path / "older.txt"
    saved.write_text(older + "\n" + signature)
    out = run_inproc("verify", game, "--witness", saved)
    assert out.code == 2 and NOT_SIGNED in out.err


@pytest.mark.parametrize("fields", [  # None: the field dropped
    {"bot": None}, {"reason": "Missed deadline"}, {"reason": "late"}, {"reason": None},
    {"reason": None, "bot": None},
])
def test_a_stand_in_whose_labels_escape_the_checks_fails_verify(tmp_path, fields):
    """The attack (a second tester): the referee's stand-in with its bot label dropped or
    renamed, or its reason respelled, escaped the checks of its time and of the bot's choice,
    so any move in a keyed player's seat verified. A rebis-pbm/4 or later stand-in must name a
    reason and a bot the referee's commands write; else exit 3, code stand_in, seed or not."""
    game, key, keys = signed_game(tmp_path)
    play_signed(game, keys, tmp_path, key, "2025-01-01T00:10:00Z")
    assert run_inproc("tick", game, "--now", "2025-01-01T02:00:00Z", "--referee-key",
                      key).code == 0
    _restamp(game, key, 1, **fields)
    for extra in ((), ("--seed-file", game.with_name(game.stem + ".secret.yaml"))):
        out = run_inproc("verify", game, *extra, "--format", "json")
        problem = json.loads(out.out)["problem"]
        assert out.code == 3 and problem["code"] == "stand_in", out.out
        assert "names no reason and bot" in problem["message"]


def _forge_actions(game: Path, key: Path, edit) -> None:
    """The referee (its key and the seed) rewrites the logged actions as ``edit(list)`` says
    (each action without its digest and signature): every action chained and signed again,
    the witness signed again."""
    from dataclasses import replace

    def rewrite(record):
        actions = edit([{k: v for k, v in a.items()
                         if k not in ("chain_sha256", "referee_signature")}
                        for a in record.actions])
        record = replace(record, actions=())
        for action in actions:
            record = record.with_action(action)
        signatures = dict(enumerate(sign_texts(key, [action_text(record, i)
                                                     for i in range(len(actions))])))
        witness = sign_texts(key, [record_witness(record)])[0]
        return record.with_referee_signatures({}, signatures, witness)
    _forge(game, rewrite)


def _forge_first_action(game: Path, key: Path, change: dict) -> None:
    """The referee (its key and the seed) rewrites the first logged action with ``change``:
    every action chained and signed again, the witness signed again."""
    _forge_actions(game, key, lambda actions: [{**a, **change} if i == 0 else a
                                               for i, a in enumerate(actions)])


def _fails_schema_either_way(game: Path, words: str) -> None:
    """verify exits 3, code schema, naming ``words``, with the seed and without it."""
    secret = game.with_name(game.stem + ".secret.yaml")
    for extra in (("--seed-file", secret), ()):
        out = run_inproc("verify", game, *extra, "--format", "json")
        problem = json.loads(out.out)["problem"]
        assert out.code == 3 and problem["code"] == "schema", out.out
        assert words in problem["message"], problem


def test_a_signed_act_no_command_writes_fails_verify_with_the_seed_too(tmp_path):
    """The attack (a third tester): the referee signs an extension by -96 h (its `extend`
    refuses any length under 1 s) to bring a deadline back, then dates a stand-in before the
    real deadline. Without the seed the schema refused it; with the seed (the referee's own
    read: the record read as written) verify skipped the schema and said Verified. verify
    checks the schema on either path."""
    game, key, _keys = signed_game(tmp_path)
    assert run_inproc("extend", game, "--by", "1h", "--now", "2025-01-01T00:30:00Z",
                      "--referee-key", key).code == 0
    assert run_inproc("verify", game).code == 0

    _forge_first_action(game, key, {"seconds": -345600})
    _fails_schema_either_way(game, "seconds")


@pytest.mark.parametrize("edit", ["backwards", "stranger", "over"])
def test_a_signed_absence_no_command_writes_fails_verify(tmp_path, edit, monkeypatch):
    """The attack (a fourth tester): the referee signs an absence that ends before it begins,
    which moved the clock back so that a stand-in 90 minutes into a 72-hour turn read "checked:
    the deadline had passed"; or an absence of a stranger, or beyond the allowance. Its
    commands refuse each; verify does too, with or without the seed (exit 3, schema)."""
    game, key, _keys = signed_game(tmp_path, "--absence", "2d/3")
    monkeypatch.setenv("REBIS_PBM_REFEREE_KEY", str(key))
    done = run_inproc("away", game, "--player", "ann", "--from", "2025-01-01T00:20:00Z",
                      "--to", "2025-01-01T00:40:00Z", "--now", "2025-01-01T00:10:00Z")
    assert done.code == 0, done.err
    assert run_inproc("verify", game).code == 0
    change = {"backwards": {"start": "2025-01-04T23:00:00Z", "end": "2025-01-01T00:30:00Z"},
              "stranger": {"player": "zed"},
              "over": {"end": "2025-03-01T00:00:00Z"}}[edit]

    _forge_first_action(game, key, change)
    _fails_schema_either_way(game, "logged an absence")


def test_an_extension_of_millennia_does_not_crash_tick_or_verify(tmp_path):
    """A deadline beyond year 9999 (extend --by 100000000h) is read as never: it crashed
    tick and verify (internal error) once written."""
    game, key, _keys = signed_game(tmp_path)
    assert run_inproc("extend", game, "--by", "100000000h", "--now", "2025-01-01T00:30:00Z",
                      "--referee-key", key).code == 0
    assert run_inproc("tick", game, "--now", "2025-01-02T00:00:00Z", "--referee-key",
                      key).code == 0
    assert run_inproc("verify", game).code == 0


def test_a_stand_in_time_not_in_the_records_form_fails_verify_with_the_seed_too(tmp_path):
    """A move's time is checked for its form on the fast path too (a UTC time to the second,
    ``Z``): verify with the seed checks the moves' times, not their whole schema (the replay,
    the digests and the stand-in checks judge their other values)."""
    game, key, keys = signed_game(tmp_path)
    play_signed(game, keys, tmp_path, key, "2025-01-01T00:10:00Z")
    assert run_inproc("tick", game, "--now", "2025-01-01T02:00:00Z", "--referee-key",
                      key).code == 0
    _restamp(game, key, 1, at="2025-01-01T02:00:00+00:00")
    _fails_schema_either_way(game, "at")
