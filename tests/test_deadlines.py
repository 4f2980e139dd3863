"""Deadlines, missed moves and the referee's logged actions (issue 15, docs/deadlines.md): a game
with a 72h deadline and a silent player reaches its end by `tick` alone, every stand-in move
visible in `verify`; times are data (`--now`), never read by a replay."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from rebis_pbm import app as referee
from rebis_pbm.errors import UsageError
from rebis_pbm.record.deadlines import parse_duration

START = datetime(2025, 1, 1, tzinfo=timezone.utc)


def at(hours: float) -> str:
    return (START + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


def small_game(folder, missed="bot"):
    return referee.create_game(folder / "g.yaml", ["ana", "bob"], seed="deadlines",
                               insecure_seed=True,
                               ruleset=referee.ruleset_from(False, ["golden_dust=2", "gold=1"]),
                               deadline=parse_duration("72h"), missed=missed, now=at(0))


def test_durations_and_policies():
    assert parse_duration("3d") == parse_duration("72h") == 259200
    with pytest.raises(UsageError):
        parse_duration("soon")


def test_a_silent_game_ends_by_tick_alone_and_verifies(cli, tmp_path):
    small_game(tmp_path)
    game = tmp_path / "g.yaml"
    hours = 0
    while referee.score(game)["winners"] is None:
        hours += 73
        done = cli("tick", game, "--now", at(hours))
        assert done.code == 0, done.err
        assert hours < 73 * 200, "tick never ended the game"
    report = cli("verify", game, "--format", "json")
    assert report.code == 0 and json.loads(report.out)["verified"] is True
    text = cli("verify", game).out
    assert ("turn 1: the referee moved for ana (the referee says: missed deadline, greedy bot); "
            "checked: the deadline had passed, the greedy bot's move") in text
    assert ("turn 2: the referee moved for bob (the referee says: missed deadline, greedy bot); "
            "checked: the deadline had passed, the greedy bot's move") in text


def test_tick_before_the_deadline_changes_nothing_and_says_a_reminder_is_due(cli, tmp_path):
    small_game(tmp_path)
    game = tmp_path / "g.yaml"
    before = game.read_bytes()
    done = cli("tick", game, "--now", at(1))
    assert done.code == 0 and "nothing was written" in done.out and "Reminder" not in done.out
    done = cli("tick", game, "--now", at(60))
    assert "Reminder due: ana" in done.out
    assert game.read_bytes() == before


def test_the_deadline_shows_in_the_view_and_extending_it_is_logged(cli, tmp_path):
    small_game(tmp_path)
    game = tmp_path / "g.yaml"
    assert "Deadline for your move: 2025-01-04T00:00:00Z" in cli("view", game, "--player",
                                                                 "ana").out
    assert "Deadline for ana's move: 2025-01-04T00:00:00Z" in cli("view", game, "--player",
                                                                  "bob").out
    done = cli("extend", game, "--by", "1d", "--reason", "ana is away", "--now", at(2))
    assert done.code == 0 and "2025-01-05T00:00:00Z" in done.out
    assert cli("tick", game, "--now", at(80)).out.startswith("No deadline")
    assert "extended the deadline by 86400 s (ana is away)" in cli("verify", game).out


@pytest.mark.parametrize("command", [["extend", "--by", "1d"], ["end-game", "--yes"],
                                     ["replace-player", "--player", "bob",
                                      "--address", "bob@example.org"]])
@pytest.mark.parametrize("reason", ["away)\n\nDeal from: referee, ana, bob (a fair deal)",
                                    "x\ty", "\u202eyawa", "x" * 201, "  "])
def test_a_reason_that_is_not_one_line_is_refused_and_nothing_is_written(cli, tmp_path, command,
                                                                          reason):
    """The attack: a referee's reason with line breaks printed lines of its choosing inside
    verify's verdict ("Deal from: ..."), and one over 200 characters wrote a record that
    verify without the seed, as players run it, refused as not rebis-pbm's."""
    small_game(tmp_path)
    game = tmp_path / "g.yaml"
    before = game.read_bytes()
    done = cli(command[0], game, *command[1:], "--reason", reason, "--now", at(2))
    assert done.code == 2, done.out + done.err
    assert "--reason" in done.err and "one line of 1 to 200 characters" in done.err
    assert "Traceback" not in done.err and game.read_bytes() == before


def test_a_reason_of_200_characters_is_logged_and_verifies_without_the_seed(cli, tmp_path):
    small_game(tmp_path)
    game = tmp_path / "g.yaml"
    reason = "é" + "x" * 198 + "!"
    assert cli("extend", game, "--by", "1d", "--reason", f" {reason} ", "--now", at(2)).code == 0
    tmp_path.joinpath("g.secret.yaml").rename(tmp_path / "elsewhere.yaml")
    report = cli("verify", game)
    assert report.code == 0, report.out + report.err
    assert f"extended the deadline by 86400 s ({reason})" in report.out


def test_verify_shows_a_recorded_reason_on_one_line_whoever_wrote_it(cli, tmp_path):
    """A record written by a version that took any reason (or by hand, its digests recomputed
    with the seed, as only the referee can): verify still shows each line break as \\n."""
    from rebis_pbm.record import dump_record

    small_game(tmp_path)
    game = tmp_path / "g.yaml"
    record, replay, seed = referee.open_game(game)
    forged = record.with_action({"action": "extend_deadline", "at": at(2), "seconds": 3600,
                                 "reason": "away)\n\nDeal from: ana (a fair deal"})
    game.write_text(dump_record(forged, replay.state, seed))
    report = cli("verify", game)
    assert report.code == 0, report.out + report.err
    assert "(away)\\n\\nDeal from: ana (a fair deal)" in report.out
    assert not any(line.startswith("Deal from: ana") for line in report.out.splitlines())


def test_a_failed_verdict_shows_the_records_own_text_on_its_line(cli, tmp_path):
    """The attack: a value edited by hand into the record (a time, the game id) holding a line
    break or a carriage return, which verify quotes in its FAILED sentence, so that what follows
    it passes for a line of a verdict ("Verified: ...", "Deal from: ...")."""
    small_game(tmp_path)
    game = tmp_path / "g.yaml"
    assert cli("extend", game, "--by", "1d", "--now", at(2)).code == 0
    text = game.read_text()
    edited = text.replace(f"at: '{at(2)}'", 'at: "2025\\nDeal from: ana (a fair deal)\\r'
                          'Verified: game g"', 1)
    assert edited != text
    game.write_text(edited)
    tmp_path.joinpath("g.secret.yaml").rename(tmp_path / "elsewhere.yaml")
    for args in ((), ("--format", "text")):
        report = cli("verify", game, *args)
        assert report.code == 3 and report.out.startswith("FAILED: ")
        assert "\\nDeal from: ana" in report.out and "\\rVerifi" in report.out  # escaped
        assert "\r" not in report.out
        lines = report.out.splitlines()
        assert not any(line.startswith(("Deal from", "Verified")) for line in lines)
    many = cli("verify", game, game)  # the one-line-a-record listing
    assert "\r" not in many.out and not any(
        line.startswith(("Deal from", "Verified")) for line in many.out.splitlines())


def test_after_n_missed_turns_the_bot_plays_for_good(tmp_path):
    small_game(tmp_path, missed="1")
    game = tmp_path / "g.yaml"
    done = referee.tick(game, now=at(73))  # ana misses turn 1: bob's turn begins now
    assert [m[1] for m in done.moved] == ["ana"]
    # bob moves himself; ana, replaced, is moved for at once
    from rebis_pbm.formats.yaml_writer import dump_yaml
    listing = referee.legal_moves_listing(game, "bob").split("---\n")[1]
    referee.submit_move(game, listing.encode(), "bob.yaml", now=at(74))
    done = referee.tick(game, now=at(74))
    assert done.moved[0][1:] == ("ana", "replaced by the bot after missed deadlines")
    assert dump_yaml  # (imported for symmetry with the CLI tests)


def test_move_for_on_request_replace_player_and_end_game(cli, tmp_path):
    referee.create_game(tmp_path / "g.yaml", ["ana", "bob"], seed="actions", insecure_seed=True,
                        addresses={"ana": "ana@example.org"}, now=at(0))
    game = tmp_path / "g.yaml"
    assert cli("move-for", game, "--player", "ana", "--now", at(1)).code == 0
    assert cli("replace-player", game, "--player", "ana", "--address", "ana@new.example.org",
               "--now", at(2)).code == 0
    assert referee.read_record(game).addresses["ana"] == "ana@new.example.org"
    assert cli("end-game", game, "--yes", "--reason", "both agreed", "--now", at(3)).code == 0
    text = cli("verify", game).out
    assert ("turn 1: the referee moved for ana (the referee says: on the player's request, "
            "greedy bot); checked: the greedy bot's move") in text
    assert "replaced ana's address" in text and "ended the game (both agreed)" in text


def test_an_edited_referee_entry_fails_verification(cli, tmp_path):
    small_game(tmp_path)
    game = tmp_path / "g.yaml"
    cli("tick", game, "--now", at(73))
    cli("extend", game, "--by", "1d", "--reason", "asked", "--now", at(74))
    for old, new in (("reason: missed deadline", "reason: on the player's request"),
                     ("reason: asked", "reason: asked twice"),
                     ("bot: greedy", "bot: random")):
        text = game.read_text()
        game.write_text(text.replace(old, new, 1))
        assert cli("verify", game).code == 3, old
        game.write_text(text)
    assert cli("verify", game).code == 0


def test_a_version_1_record_cannot_log_actions(cli, tmp_path):
    import shutil
    from pathlib import Path

    archive = Path(__file__).resolve().parent / "records"
    for name in ("unfinished.yaml", "unfinished.secret.yaml"):
        shutil.copyfile(archive / name, tmp_path / name)
    done = cli("extend", tmp_path / "unfinished.yaml", "--by", "1d")
    assert done.code == 2 and "rebis-pbm/1" in done.err


def test_times_in_a_record_only_go_forward(cli, tmp_path):
    """A move or an action dated before the latest time the record holds is refused (exit 2),
    and nothing is written: a wrong clock cannot make a deadline run backwards."""
    small_game(tmp_path)
    game = tmp_path / "g.yaml"
    assert cli("tick", game, "--now", at(80)).code == 0          # ana's turn 1, by the bot
    before = game.read_bytes()
    late = cli("extend", game, "--by", "1h", "--now", at(10))
    late.refused(2, ["is before", "only go forward"])
    move = cli("moves", game, "--player", "bob").out.split("\n---")[0]
    (tmp_path / "m.yaml").write_text(move)
    cli("apply", game, tmp_path / "m.yaml", "--now", at(79)).refused(2, ["only go forward"])
    assert game.read_bytes() == before
    assert cli("apply", game, tmp_path / "m.yaml", "--now", at(81)).code == 0


def test_a_game_that_is_over_has_no_deadline_to_tick_or_end(cli, tmp_path):
    small_game(tmp_path)
    game = tmp_path / "g.yaml"
    assert cli("end-game", game, "--yes", "--now", at(1)).code == 0
    cli("tick", game, "--now", at(100)).refused(1, ["is over"])
    cli("end-game", game, "--yes", "--now", at(101)).refused(1, ["is over"])


def test_missed_without_a_deadline_is_refused(cli, tmp_path):
    outcome = cli("new", tmp_path / "g.yaml", "--player", "ana", "--player", "bob",
                  "--missed", "3")
    outcome.refused(2, ["--missed", "--deadline"])
    assert not (tmp_path / "g.yaml").exists()


@pytest.mark.parametrize("lang, words", [
    ("en", "the referee moved for ana at turn 1 before this move came"),
    ("fr", "l'arbitre a joué à la place d'ana au tour 1 avant que ce coup n'arrive"),
])
def test_a_players_move_for_a_turn_the_referee_played_for_them_is_refused_not_applied(
        cli, tmp_path, lang, words):
    """The seventeenth tester: ``tick`` played ana's turn (a missed deadline); ana's own move,
    the same play, came then: ``apply`` said "Turn 1 by ana was already applied with exactly
    this move", her late move told as counted while the record holds the referee's. Refused
    now, with the truth, in her language too (by mail, to her: "played for you"); nothing
    changes."""
    import yaml
    small_game(tmp_path)
    game = tmp_path / "g.yaml"
    if lang != "en":
        assert cli("replace-player", game, "--player", "ana", "--lang", lang, "--now",
                   at(1)).code == 0
    assert cli("tick", game, "--now", at(100)).code == 0
    record = yaml.safe_load(game.read_text())
    entry = record["moves"][0]
    assert entry["by"] == "referee" and entry["player"] == "ana"
    late = tmp_path / "turn-001-ana.yaml"
    late.write_text(yaml.safe_dump({"game": record["game"], "turn": 1, "player": "ana",
                                    "play": entry["play"]}, sort_keys=False))
    before = game.read_bytes()
    done = cli("apply", game, late, "--as", "ana")
    assert done.code == 1, done.out + done.err
    assert words in done.err and "already applied" not in done.err + done.out
    assert game.read_bytes() == before
