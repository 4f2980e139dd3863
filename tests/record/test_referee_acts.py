"""Acts no command of the referee's writes, each forged by a referee holding the seed and its
key (issue 27, a sixth tester): a stand-in "missed deadline" with no time or in a game without
a deadline; actions logged after moves not recorded, or out of order; a move or an action after
``end_game``, or an end that keeps the seed; an absence beginning before it was logged or
overlapping the player's own; a resignation of a player with a key, or of one who resigned
already. Each attack (re-chained, re-signed with the referee's key) fails ``verify`` with exit
3, with the seed and without; what the commands write verifies (rebis-pbm/4 and later)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_referee_claims import _fails, _forge_actions, _unsigned_game, _verifies
from test_referee_key import _forge, _restamp, play_signed, signed_game

from clitools import run_inproc
from rebis_pbm import app as referee
from rebis_pbm.app.signing import sign_texts
from rebis_pbm.record.acts import action_text, record_witness
from rebis_pbm.record.deadlines import MISSED, RESIGNED
from sshkeys import needs_ssh, ssh_key

pytestmark = needs_ssh


def _run(*args: object) -> None:
    done = run_inproc(*args)
    assert done.code == 0, done.err + done.out


# 1. A stand-in for a missed deadline carries its time, in a game with a deadline -------------

def test_attack_a_missed_deadline_stand_in_without_its_time_fails_verify(tmp_path):
    """The attack (finding 01): tick's stand-in move for bo keeps its reason "missed deadline"
    and loses its `at`, so no deadline could be checked against it. It verified; now exit 3,
    stand_in. The move tick wrote verifies."""
    game, key, keys = signed_game(tmp_path)
    play_signed(game, keys, tmp_path, key, "2025-01-01T00:10:00Z")
    _run("tick", game, "--now", "2025-01-01T02:00:00Z", "--referee-key", key)
    assert referee.read_record(game).stamps[1]["reason"] == MISSED
    _verifies(game)
    _restamp(game, key, 1, at=None)
    _fails(game, "stand_in", "for a missed deadline carries no time (at)")


def test_attack_a_missed_deadline_stand_in_in_a_game_without_a_deadline_fails_verify(tmp_path):
    """The attack: in a game without a deadline (tick refuses it), a move-for "at the player's
    request" relabelled "missed deadline" and signed again. Exit 3, stand_in."""
    key = ssh_key(tmp_path, "referee")
    game = tmp_path / "g.yaml"
    _run("new", game, "--player", "ann", "--player", "bo", "--seed", "referee acts tests",
         "--insecure-seed", "--referee-deal", "--now", "2025-01-01T00:00:00Z",
         "--referee-key", key)
    _run("move-for", game, "--player", "ann", "--now", "2025-01-01T00:10:00Z",
         "--referee-key", key)
    _verifies(game)
    _restamp(game, key, 0, reason=MISSED)
    _fails(game, "stand_in", "for a missed deadline is in a game without a deadline")


# 2. Actions in order, after moves the record holds -------------------------------------------

def _two_extensions(folder: Path) -> tuple[Path, Path]:
    """A signed game: an extension after move 0, one move, an extension after move 1."""
    game, key, keys = signed_game(folder)
    _run("extend", game, "--by", "1h", "--now", "2025-01-01T00:05:00Z", "--referee-key", key)
    play_signed(game, keys, folder, key, "2025-01-01T00:10:00Z")
    _run("extend", game, "--by", "1h", "--now", "2025-01-01T00:20:00Z", "--referee-key", key)
    _verifies(game)
    return game, key


def _set(actions: list[dict], index: int, **fields: object) -> list[dict]:
    actions[index] = {**actions[index], **fields}
    return actions


def test_attack_an_action_after_a_move_not_recorded_fails_verify(tmp_path):
    """The attack (finding 02): an extension said to come "after turn 99" in a 1-move
    record. Exit 3, schema."""
    game, key = _two_extensions(tmp_path)
    _forge_actions(game, key, lambda actions: _set(actions, 1, after=99))
    _fails(game, "schema", "says it came after move 99, but the record holds 1")


def test_attack_actions_out_of_order_fails_verify(tmp_path):
    """The attack (finding 02): the first extension moved after move 1, the second before it
    (after move 0): no command logs an act after fewer moves than the one before. Exit 3."""
    game, key = _two_extensions(tmp_path)
    _forge_actions(game, key, lambda actions: _set(_set(actions, 0, after=1), 1, after=0))
    _fails(game, "schema", "is logged after action 1, which came after move 1")


# 3. end_game: the last entry, with the seed --------------------------------------------------

def _ended(folder: Path) -> tuple[Path, Path, str]:
    """A signed game of two moves that end-game ended (the seed revealed); verifies."""
    game, key, keys = signed_game(folder)
    seed = referee.open_game(game)[2]
    play_signed(game, keys, folder, key, "2025-01-01T00:10:00Z")
    play_signed(game, keys, folder, key, "2025-01-01T00:20:00Z")
    _run("end-game", game, "--yes", "--reason", "the club closed", "--now",
         "2025-01-01T00:30:00Z", "--referee-key", key)
    assert referee.read_record(game).seed == seed
    _verifies(game)
    return game, key, seed


def test_attack_a_move_after_end_game_fails_verify(tmp_path):
    """The attack (finding 02): end_game re-signed as logged after move 1 of 2, so that
    moves went on after the game ended. Exit 3, schema."""
    game, key, _seed = _ended(tmp_path)
    _forge_actions(game, key, lambda actions: _set(actions, 0, after=1))
    _fails(game, "schema", "a move is recorded after the referee's logged action 1 (end_game")


def test_attack_an_action_after_end_game_fails_verify(tmp_path):
    """The attack: an extension logged after end_game (every command refuses an ended game)."""
    game, key, _seed = _ended(tmp_path)
    extension = {"action": "extend_deadline", "after": 2, "at": "2025-01-01T00:40:00Z",
                 "seconds": 3600}
    _forge_actions(game, key, lambda actions: [*actions, extension])
    _fails(game, "schema", "ended the game, but action 2 is logged after it")


def test_attack_end_game_keeping_the_seed_fails_verify(tmp_path):
    """The attack: an end_game act logged without revealing the seed (end-game writes both):
    the game stops, and nobody can check it. Exit 3, schema, with the seed file or not."""
    game, key, keys = signed_game(tmp_path)
    play_signed(game, keys, tmp_path, key, "2025-01-01T00:10:00Z")
    end = {"action": "end_game", "after": 1, "at": "2025-01-01T00:30:00Z",
           "reason": "the referee ended the game"}
    _forge_actions(game, key, lambda actions: [*actions, end])
    assert referee.read_record(game).seed is None
    _fails(game, "schema", "ended the game, but the record does not reveal its seed")


def test_reveal_as_the_reveal_command_writes_it_verifies(tmp_path):
    """reveal in a game with a referee key logs a signed ``reveal`` act with the seed: it
    verifies under the same rule as end_game."""
    game, key, keys = signed_game(tmp_path)
    play_signed(game, keys, tmp_path, key, "2025-01-01T00:10:00Z")
    _run("reveal", game, "--yes", "--referee-key", key)
    assert referee.read_record(game).actions[-1]["action"] == "reveal"
    _verifies(game)


# 4. Absences as away logs them ----------------------------------------------------------------

def test_absences_the_away_command_writes_verify(tmp_path, monkeypatch):
    """away from now (no --from), a later absence of the same player that does not overlap,
    and one overlapping an absence that `back` called off before it began: each as the
    command logs it; the record verifies."""
    game, key, _keys = signed_game(tmp_path, "--absence", "2d/5")
    monkeypatch.setenv("REBIS_PBM_REFEREE_KEY", str(key))
    for args in (("away", "--player", "ann", "--to", "2025-01-01T00:30:00Z", "--now",
                  "2025-01-01T00:10:00Z"),
                 ("away", "--player", "ann", "--from", "2025-01-01T00:30:00Z", "--to",
                  "2025-01-01T01:00:00Z", "--now", "2025-01-01T00:11:00Z"),
                 ("away", "--player", "bo", "--from", "2025-01-01T03:00:00Z", "--to",
                  "2025-01-01T05:00:00Z", "--now", "2025-01-01T00:12:00Z"),
                 ("back", "--player", "bo", "--now", "2025-01-01T00:13:00Z"),
                 ("away", "--player", "bo", "--from", "2025-01-01T04:00:00Z", "--to",
                  "2025-01-01T06:00:00Z", "--now", "2025-01-01T00:14:00Z")):
        _run(*args[:1], game, *args[1:])
    _verifies(game)


@pytest.mark.parametrize("attack", ["backdated", "overlapping"])
def test_attack_an_absence_away_refuses_fails_verify(tmp_path, monkeypatch, attack):
    """The attack (finding 02): an absence of ann re-signed to begin a week before it was
    logged (the clock stopped over turns already late), or a second absence overlapping
    hers in force: away refuses each. Exit 3, schema."""
    game, key, _keys = signed_game(tmp_path, "--absence", "14d/3")
    monkeypatch.setenv("REBIS_PBM_REFEREE_KEY", str(key))
    _run("away", game, "--player", "ann", "--from", "2025-01-01T00:20:00Z", "--to",
         "2025-01-01T05:00:00Z", "--now", "2025-01-01T00:10:00Z")
    _verifies(game)
    if attack == "backdated":
        _forge_actions(game, key, lambda actions: _set(actions, 0,
                                                       start="2024-12-25T00:00:00Z"))
        _fails(game, "schema", "begins (2024-12-25T00:00:00Z) before it was logged "
               "(2025-01-01T00:10:00Z)")
    else:
        second = {"action": "away", "after": 0, "at": "2025-01-01T00:15:00Z",
                  "player": "ann", "start": "2025-01-01T04:00:00Z",
                  "end": "2025-01-01T06:00:00Z"}
        _forge_actions(game, key, lambda actions: [*actions, second])
        _fails(game, "schema", "while an absence of theirs from 2025-01-01T00:20:00Z to "
               "2025-01-01T05:00:00Z was logged already")


# 5. Resignations as resign logs them ---------------------------------------------------------

def _resignation(player: str, after: int, at: str) -> dict:
    return {"action": "replace_player", "after": after, "at": at, "player": player,
            "reason": RESIGNED}


def test_attack_a_resignation_of_a_player_with_a_key_fails_verify(tmp_path):
    """The attack (finding 02): a resignation of ann, who registered a key (resign refuses
    her: the bot cannot sign for her), so that tick plays her seat at once. Exit 3."""
    game, key, _keys = signed_game(tmp_path)
    _forge_actions(game, key, lambda actions: [
        *actions, _resignation("ann", 0, "2025-01-01T00:05:00Z")])
    _fails(game, "schema", "says ann resigned though they had registered a key")


def test_attack_a_resignation_after_a_key_was_given_fails_verify(tmp_path, monkeypatch):
    """The keys in force count: bo had none at new, replace-player gave him one, then a
    resignation of bo is forged. Exit 3. Before the key, resign's own entry verified."""
    game, key = _unsigned_game(tmp_path)
    monkeypatch.setenv("REBIS_PBM_REFEREE_KEY", str(key))
    bo = ssh_key(tmp_path, "bo")
    _run("replace-player", game, "--player", "bo", "--key", f"{bo}.pub", "--now",
         "2025-01-01T00:05:00Z")
    _verifies(game)
    _forge_actions(game, key, lambda actions: [
        *actions, _resignation("bo", 0, "2025-01-01T00:06:00Z")])
    _fails(game, "schema", "says bo resigned though they had registered a key")


def test_attack_a_second_resignation_fails_verify(tmp_path, monkeypatch):
    """What resign writes verifies (a player without a key, once); a second resignation of
    the same player, which resign refuses ("resigned already"), fails. Exit 3."""
    from rebis_pbm.app.commands import resign
    game, key = _unsigned_game(tmp_path)
    monkeypatch.setenv("REBIS_PBM_REFEREE_KEY", str(key))
    resign(game, "bo", now="2025-01-01T00:10:00Z")
    _verifies(game)
    moves = len(referee.read_record(game).moves)
    _forge_actions(game, key, lambda actions: [
        *actions, _resignation("bo", moves, "2025-01-01T00:20:00Z")])
    _fails(game, "schema", "says bo resigned when they had resigned already")


def test_attack_a_resignation_before_the_deal_fails_verify(tmp_path):
    """In a two-round fair deal's join phase resign refuses (the bot cannot join): a forged
    resignation there (an action counting the join-phase entries before it) fails. Exit 3."""
    key = ssh_key(tmp_path, "referee")
    game = tmp_path / "g.yaml"
    _run("new", game, "--player", "ann", "--player", "bo", "--now", "2025-01-01T00:00:00Z",
         "--referee-key", key)
    record = referee.read_record(game)
    assert record.two_rounds and record.joining()

    def forged(record):
        record = record.with_action(_resignation("bo", 0, "2025-01-01T00:05:00Z"))
        signature = sign_texts(key, [action_text(record, 0)])[0]
        witness = sign_texts(key, [record_witness(record)])[0]
        return record.with_referee_signatures({}, {0: signature}, witness)
    _forge(game, forged)
    _fails(game, "schema", "says bo resigned before the deal")
