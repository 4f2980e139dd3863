"""The referee's claims verify once could not check, each attacked by a referee holding the seed
and its key (issue 27, a fifth tester): a stand-in said to replace a player, or to play for one
who resigned, before any such thing; a ``back`` no command writes; and ``end-game`` revealing a
record whose values fail the schema. Each attack fails; what the commands write verifies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_referee_key import (
    _forge_actions,
    _forge_first_action,
    _restamp,
    play_signed,
    signed_game,
)

from clitools import run_inproc
from rebis_pbm.record.deadlines import MISSED, REPLACED, RESIGNED
from sshkeys import needs_ssh, ssh_key

pytestmark = needs_ssh


def _secret(game: Path) -> Path:
    return game.with_name(game.stem + ".secret.yaml")


def _fails(game: Path, code: str, words: str) -> None:
    """verify exits 3 with problem ``code`` naming ``words``, with the seed and without it."""
    for extra in (("--seed-file", _secret(game)), ()):
        out = run_inproc("verify", game, *extra, "--format", "json")
        problem = json.loads(out.out)["problem"]
        assert out.code == 3 and problem["code"] == code, out.out
        assert words in problem["message"], problem


def _verifies(game: Path) -> None:
    for extra in (("--seed-file", _secret(game)), ()):
        out = run_inproc("verify", game, *extra)
        assert out.code == 0, out.out + out.err


def _stand_ins(game: Path) -> list[str]:
    from rebis_pbm import app as referee
    record = referee.read_record(game)
    return [s.get("reason", "") for s in record.stamps if s.get("by") == "referee"]


# 1. Stand-in reasons -----------------------------------------------------------------------

def test_replaced_after_the_missed_turns_the_policy_names_verifies(tmp_path):
    """What tick writes under --missed 1: a missed deadline each, then the bot replaces both
    players for good and plays the game to its end; the finished game verifies."""
    game, key, _keys = signed_game(tmp_path, "--missed", "1")
    for now in ("2025-01-01T02:00:00Z", "2025-01-01T04:00:00Z"):
        assert run_inproc("tick", game, "--now", now, "--referee-key", key).code == 0
    reasons = _stand_ins(game)
    assert reasons[:2] == [MISSED, MISSED] and set(reasons[2:]) == {REPLACED}, reasons
    _verifies(game)
    assert "(the referee says: replaced by the bot after missed deadlines, greedy bot; signed " \
           "by the referee); checked: the missed turns before it" in run_inproc("verify",
                                                                                game).out


@pytest.mark.parametrize("policy", ["2", "bot"])
def test_attack_a_stand_in_relabelled_replaced_before_the_player_was_fails_verify(tmp_path,
                                                                                  policy):
    """The attack: the referee re-signs a stand-in move as "replaced by the bot after missed
    deadlines" (a reason whose time verify does not check) when the player had missed fewer
    turns than --missed N, or under a policy that never replaces (--missed bot), and dates it
    5 minutes into the turn. It verified; now exit 3, stand_in, seed or not."""
    game, key, keys = signed_game(tmp_path, "--missed", policy)
    play_signed(game, keys, tmp_path, key, "2025-01-01T00:10:00Z")
    assert run_inproc("tick", game, "--now", "2025-01-01T02:00:00Z", "--referee-key",
                      key).code == 0
    _verifies(game)
    _restamp(game, key, 1, reason=REPLACED, at="2025-01-01T00:15:00Z")
    _fails(game, "stand_in", "says the bot replaced them after missed deadlines")


def test_attack_a_stand_in_relabelled_resigned_without_a_resignation_fails_verify(tmp_path):
    """The attack: the referee re-signs a stand-in move as "resigned by mail" though no
    resignation of that player was logged. Exit 3, stand_in, seed or not."""
    game, key, keys = signed_game(tmp_path)
    play_signed(game, keys, tmp_path, key, "2025-01-01T00:10:00Z")
    assert run_inproc("tick", game, "--now", "2025-01-01T02:00:00Z", "--referee-key",
                      key).code == 0
    _restamp(game, key, 1, reason=RESIGNED, at="2025-01-01T00:15:00Z")
    _fails(game, "stand_in", "says they resigned")


def _unsigned_game(folder: Path, *extra: str) -> tuple[Path, Path]:
    """A referee-deal game of ann and bo (no player keys: they may resign) with a referee key
    and a 1 h deadline; returns (record, the referee's key)."""
    key = ssh_key(folder, "referee")
    game = folder / "g.yaml"
    made = run_inproc("new", game, "--player", "ann", "--player", "bo", "--seed",
                      "referee claims tests", "--insecure-seed", "--referee-deal",
                      "--deadline", "1h", "--now", "2025-01-01T00:00:00Z", "--referee-key",
                      key, *extra)
    assert made.code == 0, made.err
    return game, key


def test_attack_resigned_before_the_resignation_was_logged_fails_verify(tmp_path, monkeypatch):
    """What resign writes verifies (the resignation logged, then the bot's moves "resigned by
    mail"); a stand-in before the resignation relabelled "resigned by mail" fails."""
    from rebis_pbm.app.commands import resign
    game, key = _unsigned_game(tmp_path)
    monkeypatch.setenv("REBIS_PBM_REFEREE_KEY", str(key))
    assert run_inproc("tick", game, "--now", "2025-01-01T02:00:00Z").code == 0  # ann: missed
    resign(game, "bo", now="2025-01-01T02:10:00Z")  # bo is to move: the bot plays at once
    assert run_inproc("tick", game, "--now", "2025-01-01T04:00:00Z").code == 0
    reasons = _stand_ins(game)
    assert reasons[:2] == [MISSED, RESIGNED] and RESIGNED in reasons[2:], reasons
    _verifies(game)
    assert "checked: the resignation logged before it" in run_inproc("verify", game).out
    _restamp(game, key, 0, reason=RESIGNED)  # ann's missed turn, ann never resigned
    _fails(game, "stand_in", "says they resigned")


# 2. back ----------------------------------------------------------------------------------

def test_a_back_the_back_command_writes_verifies(tmp_path, monkeypatch):
    game, key, _keys = signed_game(tmp_path, "--absence", "2d/3")
    monkeypatch.setenv("REBIS_PBM_REFEREE_KEY", str(key))
    for args in (("away", "--player", "ann", "--from", "2025-01-01T00:20:00Z", "--to",
                  "2025-01-01T05:00:00Z", "--now", "2025-01-01T00:10:00Z"),
                 ("back", "--player", "ann", "--now", "2025-01-01T00:15:00Z"),  # to come
                 ("away", "--player", "bo", "--from", "2025-01-01T00:20:00Z", "--to",
                  "2025-01-01T05:00:00Z", "--now", "2025-01-01T00:16:00Z"),
                 ("back", "--player", "bo", "--now", "2025-01-01T01:00:00Z")):  # in force
        done = run_inproc(args[0], game, *args[1:])
        assert done.code == 0, done.err
    _verifies(game)


@pytest.mark.parametrize("attack", ["stranger", "never_away", "after_it_ended", "no_allowance"])
def test_attack_a_signed_back_no_command_writes_fails_verify(tmp_path, attack, monkeypatch):
    """The attack: the referee signs a `back` of a name that is no player's (eve), of a player
    who was not away and had no absence to come, after the absence had ended, or in a game
    without an absence allowance; its `back` command refuses each. verify said Verified and
    listed "eve is back"; now exit 3, seed or not."""
    allowance = () if attack == "no_allowance" else ("--absence", "2d/3")
    game, key, _keys = signed_game(tmp_path, *allowance)
    monkeypatch.setenv("REBIS_PBM_REFEREE_KEY", str(key))
    assert run_inproc("extend", game, "--by", "1h", "--now", "2025-01-01T00:05:00Z").code == 0
    if allowance:
        done = run_inproc("away", game, "--player", "ann", "--from", "2025-01-01T00:20:00Z",
                          "--to", "2025-01-01T00:40:00Z", "--now", "2025-01-01T00:10:00Z")
        assert done.code == 0, done.err
    _verifies(game)
    player, at = {"stranger": ("eve", "2025-01-01T00:30:00Z"),
                  "never_away": ("bo", "2025-01-01T00:30:00Z"),
                  "after_it_ended": ("ann", "2025-01-01T00:50:00Z"),
                  "no_allowance": ("ann", "2025-01-01T00:30:00Z")}[attack]
    back = {"action": "back", "after": 0, "at": at, "player": player}
    _forge_actions(game, key, lambda actions: [*actions, back])
    _fails(game, "schema", "logged a return (back)")


# 3. end-game --------------------------------------------------------------------------------

def _schema_valid(game: Path) -> None:
    """The record holds against the full record schema (jsonschema, every value)."""
    from rebis_pbm.formats.schemas import validate
    from rebis_pbm.formats.yaml_reader import load_yaml
    validate(load_yaml(game.read_bytes(), source=str(game), kind="record"), "record")


@pytest.mark.parametrize("referee_key", [False, True])
@pytest.mark.parametrize("deadline", [False, True])
@pytest.mark.parametrize("when", ["join_phase", "after_moves"])
def test_end_game_with_the_seed_present_writes_a_record_that_verifies(tmp_path, referee_key,
                                                                      deadline, when):
    """end-game as the referee runs it (the seed beside the record), in a fair deal's join
    phase or after moves, with or without a referee key and deadlines: the record it writes
    holds against the full schema and verifies, with the seed file and without."""
    key = ssh_key(tmp_path, "referee")
    game = tmp_path / "g.yaml"
    signing = ("--referee-key", str(key)) if referee_key else ()
    made = run_inproc("new", game, "--player", "ann", "--player", "bo",
                      *(() if when == "join_phase" else ("--referee-deal",)),
                      *(("--deadline", "1h", "--grace", "10m", "--missed", "2", "--absence",
                         "2d/3") if deadline else ()),
                      "--now", "2025-01-01T00:00:00Z", *signing)
    assert made.code == 0, made.err
    if when == "after_moves":
        for turn, player in enumerate(("ann", "bo", "ann"), start=1):
            done = run_inproc("move-for", game, "--player", player, "--now",
                              f"2025-01-01T0{turn}:00:00Z", *signing)
            assert done.code == 0, done.err
    if deadline:
        done = run_inproc("extend", game, "--by", "2h", "--now", "2025-01-01T04:00:00Z",
                          *signing)
        assert done.code == 0, done.err
    done = run_inproc("end-game", game, "--yes", "--reason", "the club closed", "--now",
                      "2025-01-01T05:00:00Z", *signing)
    assert done.code == 0, done.err
    _schema_valid(game)
    _verifies(game)


def test_attack_end_game_does_not_reveal_a_record_that_fails_the_schema(tmp_path):
    """The attack (a fourth tester's, carried on): the referee signs an extension by -96 h; its
    own read skips the actions' values, so end-game revealed the record (verify then failed on
    the schema). end-game refuses it now: exit 3, nothing written."""
    game, key, _keys = signed_game(tmp_path)
    assert run_inproc("extend", game, "--by", "1h", "--now", "2025-01-01T00:30:00Z",
                      "--referee-key", key).code == 0
    _forge_first_action(game, key, {"seconds": -345600})
    before = game.read_bytes()
    done = run_inproc("end-game", game, "--yes", "--now", "2025-01-01T01:00:00Z",
                      "--referee-key", key)
    assert done.code == 3 and "seconds" in done.err and "nothing was written" in done.err, \
        done.err
    assert game.read_bytes() == before
