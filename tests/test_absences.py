"""Absences, the grace period and time zones (issue 28, items 2 and 3; docs/deadlines.md): an
absence stops the game's clock within a yearly allowance and is logged in the record, chained and
verified; `tick` within a grace period queues one late notice to the late player and a line to
the others through the real Maildir queue, and moves for them only after it; a player reads
every time in their own zone while the record stays UTC."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
import yaml

from rebis_pbm import app as referee
from rebis_pbm.app.absences import end_absence, take_absence
from rebis_pbm.errors import Failed, Refused, UsageError
from rebis_pbm.record.deadlines import (
    deadline_of,
    parse_allowance,
    parse_duration,
    shown_time,
)
from rebis_pbm.transports.mail.maildir import maildir_new
from rebis_pbm.transports.mail.outbox import LATE_STATE, default_queue, queue_views
from rebis_pbm.transports.mail.policy import parse_message

REFEREE = "referee@example.org"
ADDRESSES = {"ana": "ana@example.org", "bob": "bob@example.org", "cid": "cid@example.org"}
START = datetime(2026, 7, 1, tzinfo=timezone.utc)


def at(hours: float) -> str:
    return (START + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


def game_with(folder, *, absence="14d/3", grace=None, zones=None, players=("ana", "bob")):
    game = folder / "g.yaml"
    referee.create_game(game, list(players), seed="absences", insecure_seed=True,
                        addresses={p: ADDRESSES[p] for p in players},
                        deadline=parse_duration("72h"), now=at(0),
                        absence=None if absence is None else parse_allowance(absence),
                        grace=None if grace is None else parse_duration(grace, "--grace"),
                        time_zones=zones or {})
    return game


def queued(game):
    return [parse_message(p.read_bytes()) for p in maildir_new(default_queue(game))]


def body(msg):
    return msg.get_body(preferencelist=("plain",)).get_content()


def test_an_absence_stops_the_clock_and_the_deadline_resumes_with_the_time_left(cli, tmp_path):
    game = game_with(tmp_path)
    # ana (to move) has used 24 h of her 72 h when bob goes away for 5 days
    done = cli("away", game, "--player", "bob", "--from", at(24), "--to", at(24 + 120),
               "--reason", "holiday", "--now", at(1))
    assert done.code == 0, done.err
    assert "bob is away from 2026-07-02T00:00:00Z to 2026-07-07T00:00:00Z" in done.out
    record = referee.read_record(game)
    assert record.format == "rebis-pbm/6"
    assert record.actions[-1]["action"] == "away" and record.actions[-1]["reason"] == "holiday"
    assert deadline_of(record) == at(72 + 120)  # 48 h left after the absence
    before = game.read_bytes()
    # the old deadline, and any time within the absence, moves nobody
    for hours in (73, 100, 140, 72 + 119):
        ticked = cli("tick", game, "--now", at(hours))
        assert ticked.code == 0 and "nothing was written" in ticked.out, (hours, ticked.out)
    assert game.read_bytes() == before
    # after it, ana has exactly the 48 h left: not late at 191 h, late after 192 h
    assert "nothing was written" in cli("tick", game, "--now", at(191)).out
    moved = cli("tick", game, "--now", at(192 + 1))
    assert "Turn 1: the referee moved for ana (missed deadline)." in moved.out
    report = cli("verify", game, "--format", "json")
    assert report.code == 0 and json.loads(report.out)["verified"] is True
    text = cli("verify", game).out
    assert ("bob is away from 2026-07-02T00:00:00Z to 2026-07-07T00:00:00Z (holiday)"
            in text)


def test_the_absence_shows_in_every_view_text_and_yaml(cli, tmp_path):
    game = game_with(tmp_path)
    assert cli("away", game, "--player", "ana", "--to", "2026-07-05T00:00:00Z",
               "--now", at(0)).code == 0
    views = tmp_path / "g.views"
    for name in ("ana", "bob", "public"):
        text = (views / f"{name}.txt").read_text()
        # ana's own view speaks to her (issue 30); the others name her
        said = ("You are" if name == "ana" else "ana is") + " away until 2026-07-05T00:00:00Z (UTC)"
        assert said in text, name
        assert name != "ana" or "ana is away" not in text
        doc = yaml.safe_load((views / f"{name}.yaml").read_text())
        assert doc["away"] == [{"player": "ana", "from": at(0), "until": "2026-07-05T00:00:00Z"}]
    # no gendered adjective ("absent"/"absente") for a name (issue 30)
    assert "ana s'absente jusqu'au 2026-07-05T00:00:00Z (UTC)" in \
        cli("view", game, "--player", "bob", "--lang", "fr").out
    assert "Ton absence dure jusqu'au 2026-07-05T00:00:00Z (UTC)" in \
        cli("view", game, "--player", "ana", "--lang", "fr").out
    assert "ana está ausente até 2026-07-05T00:00:00Z (UTC)" in \
        cli("view", game, "--player", "bob", "--lang", "pt").out


def test_back_ends_the_absence_and_gives_back_the_rest(cli, tmp_path):
    game = game_with(tmp_path)
    take_absence(game, "bob", at(0), at(96), now=at(0))
    assert deadline_of(referee.read_record(game)) == at(72 + 96)
    done = cli("back", game, "--player", "bob", "--now", at(24))
    assert done.code == 0, done.err
    record = referee.read_record(game)
    assert deadline_of(record) == at(72 + 24)  # the clock stood still 24 h only
    assert record.actions[-1]["action"] == "back"
    assert "away" not in yaml.safe_load((tmp_path / "g.views" / "ana.yaml").read_text())
    with pytest.raises(Refused, match="not away"):
        end_absence(game, "bob", now=at(25))
    # the 96 h asked were cut to 24 h: 13 days of the 14 are left
    left = take_absence(game, "bob", at(30), at(30 + 13 * 24), now=at(25))
    assert left.seconds_left == 0 and left.absences_left == 1


def test_an_absence_beyond_the_allowance_is_refused_and_nothing_is_written(cli, tmp_path):
    game = game_with(tmp_path, absence="3d/2")
    before = game.read_bytes()
    refused = cli("away", game, "--player", "ana", "--to", at(4 * 24), "--now", at(0))
    assert refused.code == 1 and "3d of absence left in 2026" in refused.err, refused.err
    assert game.read_bytes() == before
    take_absence(game, "ana", at(0), at(24), now=at(0))
    take_absence(game, "ana", at(48), at(72), now=at(1))
    with pytest.raises(Refused,
                       match=r"had in 2026 every absence the allowance gives \(2 a year\)"):
        take_absence(game, "ana", at(100), at(101), now=at(2))
    # the allowance is per calendar year: the next year's is whole again
    take_absence(game, "ana", "2027-01-02T00:00:00Z", "2027-01-05T00:00:00Z", now=at(3))
    # beyond it the game's policy applies: the referee may still extend a deadline
    with pytest.raises(Refused, match="already away"):
        take_absence(game, "ana", at(50), at(51), now=at(4))


def test_an_absence_is_checked_before_it_is_logged(tmp_path):
    game = game_with(tmp_path)
    with pytest.raises(UsageError, match="past"):
        take_absence(game, "ana", at(0), at(5), now=at(1))
    with pytest.raises(UsageError, match="not after"):
        take_absence(game, "ana", at(5), at(5), now=at(1))
    with pytest.raises(UsageError, match="no player"):
        take_absence(game, "eve", at(5), at(6), now=at(1))
    (tmp_path / "plain").mkdir()
    plain = game_with(tmp_path / "plain", absence=None)
    with pytest.raises(Failed, match="no absence allowance"):
        take_absence(plain, "ana", at(5), at(6), now=at(1))


def test_within_the_grace_period_tick_sends_late_notices_once_then_moves(cli, tmp_path):
    game = game_with(tmp_path, grace="24h", players=("ana", "bob", "cid"),
                     zones={"bob": "Europe/Lisbon"})
    queue_views(game, REFEREE)
    before, record = len(queued(game)), game.read_bytes()
    done = cli("tick", game, "--now", at(80), "--referee", REFEREE)  # 8 h into the grace
    assert done.code == 0, done.err
    assert "ana is late" in done.out and "Late notices: 3 message(s) queued" in done.out
    messages = queued(game)[before:]
    assert len(messages) == 3  # the late player, and one line to each other player
    notice = messages[0]
    assert notice["To"].addresses[0].addr_spec == "ana@example.org"
    assert notice["Subject"].endswith("turn 1: you are late")
    assert body(notice).startswith("You are late: your move for turn 1 was due by "
                                   "2026-07-04T00:00:00Z (UTC). The referee will move for you "
                                   "after 2026-07-05T00:00:00Z (UTC)")
    lines = {m["To"].addresses[0].addr_spec: body(m) for m in messages[1:]}
    assert lines["cid@example.org"] == ("ana is late for turn 1: the referee will move for them "
                                        "after 2026-07-05T00:00:00Z (UTC) unless their move "
                                        "comes first.\n")
    # bob reads it in his zone (Lisbon, UTC+1 in July)
    assert "after 2026-07-05T01:00:00+01:00 (Europe/Lisbon)" in lines["bob@example.org"]
    assert game.read_bytes() == record  # no stand-in move during the grace period
    assert (default_queue(game) / LATE_STATE).read_text() == "1\n"
    # once a turn
    again = cli("tick", game, "--now", at(90), "--referee", REFEREE)
    assert "none queued" in again.out and len(queued(game)) == before + 3
    # after the grace period, the missed-move policy moves for ana
    moved = cli("tick", game, "--now", at(96 + 1), "--referee", REFEREE)
    assert "Turn 1: the referee moved for ana (missed deadline)." in moved.out, moved.out
    assert cli("verify", game).code == 0


def test_a_player_reads_times_in_their_zone_and_the_record_stays_utc(cli, tmp_path):
    game = game_with(tmp_path, zones={"ana": "America/Sao_Paulo"})
    take_absence(game, "bob", at(24), at(48), now=at(0))
    text = (tmp_path / "g.views" / "ana.txt").read_text()
    assert ("Deadline for your move: 2026-07-04T21:00:00-03:00 (America/Sao_Paulo); after it "
            "the referee may move for you.") in text
    assert "bob is away until 2026-07-02T21:00:00-03:00 (America/Sao_Paulo)" in text
    assert "Deadline for ana's move: 2026-07-05T00:00:00Z (UTC)" in \
        (tmp_path / "g.views" / "bob.txt").read_text()
    view = yaml.safe_load((tmp_path / "g.views" / "ana.yaml").read_text())
    assert view["deadline"] == "2026-07-05T00:00:00Z" and view["time_zone"] == "America/Sao_Paulo"
    doc = yaml.safe_load(game.read_text())
    assert doc["time_zones"] == {"ana": "America/Sao_Paulo"}
    assert doc["actions"][0]["start"] == at(24)  # UTC in the record
    assert cli("verify", game).code == 0
    # the reminder by mail is in her zone too
    queue_views(game, REFEREE)
    done = cli("tick", game, "--now", at(72 + 24 - 10), "--referee", REFEREE)
    assert "a reminder is queued" in done.out, done.out
    reminder = queued(game)[-1]
    assert reminder["Subject"].endswith("your move is due by 2026-07-04T21:00:00-03:00 "
                                        "(America/Sao_Paulo)")
    assert shown_time(at(0), "Europe/Lisbon") == "2026-07-01T01:00:00+01:00 (Europe/Lisbon)"
    assert shown_time(at(0)) == "2026-07-01T00:00:00Z (UTC)"


def test_an_edited_absence_fails_verification(cli, tmp_path):
    game = game_with(tmp_path)
    take_absence(game, "bob", at(1), at(200), now=at(0))
    text = game.read_text()
    game.write_text(text.replace("end: '2026-07-09T08:00:00Z'", "end: '2026-07-30T08:00:00Z'"))
    assert game.read_text() != text
    assert cli("verify", game).code == 3


def test_new_checks_its_options(cli, tmp_path):
    game = tmp_path / "g.yaml"
    for extra, word in ((["--absence", "14d"], "DURATION/ABSENCES"),
                        (["--tz", "ana=Mars/Base"], "not a time zone"),
                        (["--tz", "eve=UTC"], "not a player")):
        done = cli("new", game, "--player", "ana", "--player", "bob", "--seed", "s",
                   "--insecure-seed", "--referee-deal", "--deadline", "72h", *extra)
        assert done.code == 2 and word in done.err, (extra, done.err)
    done = cli("new", game, "--player", "ana", "--player", "bob", "--seed", "s",
               "--insecure-seed", "--referee-deal", "--grace", "24h")
    assert done.code == 2 and "--deadline" in done.err
    done = cli("new", game, "--player", "ana", "--player", "bob", "--seed", "s",
               "--insecure-seed", "--referee-deal", "--deadline", "72h", "--absence", "14d/3",
               "--grace", "24h", "--tz", "bob=Europe/Lisbon", "--now", at(0))
    assert done.code == 0, done.err
    doc = yaml.safe_load(game.read_text())
    assert doc["absence"] == {"seconds": 14 * 86400, "slots": 3} and doc["grace"] == 86400
    assert doc["time_zones"] == {"bob": "Europe/Lisbon"}


def test_an_older_record_logs_no_absence(tmp_path):
    from rebis_pbm.record import Record
    game = game_with(tmp_path)
    doc = yaml.safe_load(game.read_text())
    doc["format"] = "rebis-pbm/3"
    with pytest.raises(ValueError, match="came with rebis-pbm/4"):
        Record.from_dict(doc)
