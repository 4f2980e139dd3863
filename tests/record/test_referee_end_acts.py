"""Acts no command of the referee's writes around the end of a game and in a two-round fair
deal's join phase, each forged by a referee holding the seed and its key (issue 27, a seventh
tester): an act logged after the move that finished the game; a join-phase act's count of the
join entries before it (``joins``) out of order, dropped, beyond the record or on an act after
turn 1; a record revealing its seed before its game finished, its ``end_game`` or ``reveal`` act
stripped. Each attack (re-chained, re-signed with the referee's key) fails ``verify`` with exit
3, with the seed and without; what the commands write verifies."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from test_referee_acts import _ended, _run, _two_extensions
from test_referee_claims import _fails, _forge_actions, _verifies
from test_referee_key import _forge, play_signed
from test_two_round_deal import PLAYERS, _signed_deal_game, apply, keydir, new_game, play_join

from clitools import run_inproc
from rebis_pbm import app as referee
from rebis_pbm.app.signing import sign_texts
from rebis_pbm.record.acts import action_text, record_witness
from rebis_pbm.record.digests import chain_digest
from sshkeys import needs_ssh, ssh_key

pytestmark = needs_ssh


def _forge_chained(game: Path, key: Path, edit) -> None:
    """The referee (its key and the seed) rewrites the logged actions as ``edit(list)`` says,
    keeping each one's ``after`` and ``joins`` as edited (``with_action`` would count them
    again): every action chained and signed again, the witness signed again."""

    def rewrite(record):
        actions = edit([{k: v for k, v in a.items()
                         if k not in ("chain_sha256", "referee_signature")}
                        for a in record.actions])
        chained, prev = [], record._first_link()
        for body in actions:
            prev = chain_digest(prev, body)
            chained.append({**body, "chain_sha256": prev})
        record = replace(record, actions=tuple(chained))
        signatures = dict(enumerate(sign_texts(key, [action_text(record, i)
                                                     for i in range(len(chained))])))
        witness = sign_texts(key, [record_witness(record)])[0]
        return record.with_referee_signatures({}, signatures, witness)
    _forge(game, rewrite)


# 1. No act after the move that finished the game ---------------------------------------------

def _finished(folder: Path) -> tuple[Path, Path]:
    """A signed game (referee deal, a ruleset that ends in a few moves) with an extension
    logged after move 1, played to its end by its players; verifies, and every act command
    refuses it."""
    keys = {p: ssh_key(folder, p) for p in ("ann", "bo")}
    key = ssh_key(folder, "referee")
    game = folder / "g.yaml"
    _run("new", game, "--player", "ann", "--player", "bo", "--seed", "end acts tests",
         "--insecure-seed", "--referee-deal", "--key", f"ann={keys['ann']}.pub", "--key",
         f"bo={keys['bo']}.pub", "--rule", "golden_dust=1", "--rule", "gold=0", "--rule",
         "red=1", "--rule", "shelf_limit=3", "--rule", "hand_size=2", "--deadline", "1h",
         "--now", "2025-01-01T00:00:00Z", "--referee-key", key)
    play_signed(game, keys, folder, key, "2025-01-01T00:10:00Z")
    _run("extend", game, "--by", "1h", "--now", "2025-01-01T00:15:00Z", "--referee-key", key)
    for minute in range(20, 60):
        if referee.open_game(game).replay.state.finished:
            break
        play_signed(game, keys, folder, key, f"2025-01-01T00:{minute}:00Z")
    record, replay, _ = referee.open_game(game)
    assert replay.state.finished and record.seed is not None and len(record.moves) > 1
    _verifies(game)
    for args in (("end-game", "--yes", "--reason", "cheating"), ("extend", "--by", "1h"),
                 ("replace-player", "--player", "ann", "--key", f"{key}.pub")):
        done = run_inproc(args[0], game, *args[1:], "--now", "2025-02-01T00:00:00Z",
                          "--referee-key", key)
        assert done.code == 1 and "is over; nothing was written" in done.err, done.err
    return game, key


@pytest.mark.parametrize("kind", ["extend_deadline", "replace_player", "end_game"])
def test_attack_an_act_after_the_game_finished_by_play_fails_verify(tmp_path, kind):
    """The attack (finding 02): after the last move, an extension, ann's key replaced by the
    referee's, or "ann was disqualified for cheating", re-signed: every command refuses a
    finished game. It verified; now exit 3, schema. The extension logged during play (before
    the last move) verifies."""
    game, key = _finished(tmp_path)
    act = {"action": kind, "at": "2025-02-01T00:00:00Z"}
    if kind == "extend_deadline":
        act["seconds"] = 3600
    elif kind == "replace_player":
        act.update(player="ann", reason="lost key",
                   key=" ".join(Path(f"{key}.pub").read_text().split()[:2]))
    else:
        act["reason"] = "ann was disqualified for cheating"
    _forge_actions(game, key, lambda actions: [*actions, act])
    moves = len(referee.read_record(game).moves)
    _fails(game, "schema", f"the referee's logged action 2 ({kind}, after move {moves}) is "
           f"logged after move {moves}, which finished the game")


# 2. A join-phase act counts the join entries before it ----------------------------------------

NOW = "2025-01-01T01:00:00Z"


def _join_phase_acts(tmp: Path) -> tuple[Path, Path]:
    """A rebis-pbm/5 two-round fair deal with a referee key: an extension before any
    commitment (joins 0), one after ann's (joins 1), one after the deal (joins 4), each as
    extend writes it; verifies."""
    game, key, keys = _signed_deal_game(tmp)

    def extend() -> None:
        _run("extend", game, "--by", "1h", "--now", NOW, "--referee-key", key)
    extend()
    assert apply(game, play_join(game, "ann", tmp / "ann", keys["ann"]), "--referee-key",
                 key, "--now", NOW).code == 0
    extend()
    assert apply(game, play_join(game, "ben", tmp / "ben", keys["ben"]), "--referee-key",
                 key, "--now", NOW).code == 0
    for p in PLAYERS:
        done = apply(game, play_join(game, p, tmp / p, keys[p]), "--referee-key", key,
                     "--now", NOW)
        assert done.code == 0, done.err
    extend()
    record = referee.read_record(game)
    assert not record.joining() and [a["joins"] for a in record.actions] == [0, 1, 4]
    _verifies(game)
    return game, key


def _joins(index: int, count: int | None):
    def edit(actions: list[dict]) -> list[dict]:
        actions[index] = {k: v for k, v in actions[index].items() if k != "joins"}
        if count is not None:
            actions[index]["joins"] = count
        return actions
    return edit


@pytest.mark.parametrize(("index", "count", "words"), [
    (2, 0, "logged action 3 (extend_deadline, after move 0) says it came after 0 join-phase "
           "entries, but action 2, logged before it, came after 1"),
    (1, None, "logged action 2 (extend_deadline, after move 0) carries no joins"),
    (2, 5, "says it came after 5 join-phase entries, but the record holds 4"),
], ids=["out of order", "dropped", "beyond the record"])
def test_attack_a_join_phase_acts_count_forged_fails_verify(tmp_path, index, count, words):
    """The attack (finding 01): an act's ``joins`` set below the act's before it (so that the
    acts' order and the clocks they lengthen are not the ones logged), deleted (the act then
    passed as an older record's, checked against any point of the join phase), or beyond the
    join entries recorded; re-chained and re-signed over the count as forged. Exit 3."""
    game, key = _join_phase_acts(tmp_path)
    _forge_chained(game, key, _joins(index, count))
    _fails(game, "schema", words)


def test_attack_a_join_count_on_an_act_after_turn_1_fails_verify(tmp_path):
    """The attack: ``joins: 0`` added to an extension logged after move 1 (with_action writes
    it only before turn 1 of a two-round fair deal), re-signed. Exit 3."""
    game, key = _two_extensions(tmp_path)
    _forge_chained(game, key, _joins(1, 0))
    _fails(game, "schema", "logged action 2 (extend_deadline, after move 1) counts 0 "
           "join-phase entries (joins)")


# 3. A seed revealed before the end: the end_game or reveal act last ---------------------------

STRIPPED = "the record reveals its seed before its game finished by play, and its last logged"


def test_attack_the_end_of_a_game_ended_before_the_deal_stripped_fails_verify(tmp_path):
    """The attack (finding 03, case B): tick ended the game before the deal (an end_game act,
    the seed revealed) after an extension; the end_game act removed, the witness re-signed:
    a game revealed with no act saying why. It verified; now exit 3. What tick wrote
    verifies."""
    key = ssh_key(keydir(tmp_path), "referee")
    game = new_game(tmp_path / "ref", None, "tr", "--deadline", "1h", "--now",
                    "2025-01-01T00:00:00Z", "--referee-key", str(key))
    _run("extend", game, "--by", "1h", "--now", "2025-01-01T00:30:00Z", "--referee-key", key)
    _run("tick", game, "--now", "2025-01-01T03:00:00Z", "--referee-key", key)
    record = referee.read_record(game)
    assert record.seed is not None and record.joining()
    assert [a["action"] for a in record.actions] == ["extend_deadline", "end_game"]
    _verifies(game)
    _forge_actions(game, key, lambda actions: actions[:-1])
    _fails(game, "schema", STRIPPED)


@pytest.mark.parametrize("command", ["end-game", "reveal"])
def test_attack_an_end_game_or_reveal_act_stripped_fails_verify(tmp_path, command):
    """The attack: end-game (or reveal) revealed the seed of a game in play with an act; the
    act removed and the rest re-signed, so that the game seems to have ended without the
    referee saying why (or when). Exit 3."""
    if command == "end-game":
        game, key, _seed = _ended(tmp_path)
    else:
        game, key = _two_extensions(tmp_path)
        _run("reveal", game, "--yes", "--referee-key", key)
        _verifies(game)
    assert referee.read_record(game).actions[-1]["action"] in ("end_game", "reveal")
    _forge_actions(game, key, lambda actions: actions[:-1])
    _fails(game, "schema", STRIPPED)


def test_a_reveal_in_a_game_without_a_referee_key_logs_no_act_and_verifies(tmp_path):
    """Without a referee key reveal logs no act (there is nothing to sign it with): the
    revealed record verifies, as before."""
    game = tmp_path / "g.yaml"
    _run("new", game, "--player", "ann", "--player", "bo", "--seed", "end acts tests",
         "--insecure-seed", "--referee-deal", "--deadline", "1h", "--now",
         "2025-01-01T00:00:00Z")
    _run("extend", game, "--by", "1h", "--now", "2025-01-01T00:10:00Z")
    _run("reveal", game, "--yes")
    record = referee.read_record(game)
    assert record.seed is not None and record.actions[-1]["action"] == "extend_deadline"
    _verifies(game)
