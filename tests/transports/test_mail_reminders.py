"""Deadline reminders by mail (issue 15, item 2; docs/deadlines.md, docs/mail.md): `tick
--referee` queues a reminder, through the real Maildir queue, to a mail player whose deadline is
near, once per turn (noted in a sidecar beside the queue, never in the record); every mail of a
game with a deadline carries it; the views after the referee's stand-in moves are queued."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from rebis_pbm import app as referee
from rebis_pbm.files.names import default_queue
from rebis_pbm.record.deadlines import parse_duration
from rebis_pbm.transports.mail.maildir import maildir_new
from rebis_pbm.transports.mail.outbox import REMINDED_STATE, queue_views
from rebis_pbm.transports.mail.policy import parse_message

REFEREE = "referee@example.org"
ADDRESSES = {"ana": "ana@example.org", "bob": "bob@example.org"}
START = datetime(2025, 1, 1, tzinfo=timezone.utc)


def at(hours: float) -> str:
    return (START + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


def mail_game(folder):
    """A 2-player game by mail with a 72h deadline, its first views queued (as `mail views`)."""
    game = folder / "g.yaml"
    referee.create_game(game, ["ana", "bob"], seed="reminders", insecure_seed=True,
                        addresses=ADDRESSES,
                        deadline=parse_duration("72h"), now=at(0))
    queue_views(game, REFEREE)
    return game


def queued(game):
    """The queued messages, oldest first, as parsed messages."""
    return [parse_message(p.read_bytes()) for p in maildir_new(default_queue(game))]


def test_every_mail_of_a_game_with_a_deadline_carries_it(tmp_path):
    game = mail_game(tmp_path)
    for msg in queued(game):
        text = msg.get_body(preferencelist=("plain",)).get_content()
        # ana, to move, reads it in the second person; the others (and the referee) by name
        whose = "your" if msg["To"].addresses[0].addr_spec == "ana@example.org" else "ana's"
        assert f"Deadline for {whose} move: 2025-01-04T00:00:00Z (UTC)" in text, msg["To"]


def test_tick_queues_one_reminder_a_turn_to_the_late_player_alone(cli, tmp_path):
    game = mail_game(tmp_path)
    before, record = len(queued(game)), game.read_bytes()
    done = cli("tick", game, "--now", at(40), "--referee", REFEREE)  # 32 h left: not yet
    assert done.code == 0, done.err
    assert len(queued(game)) == before and "Reminder" not in done.out
    done = cli("tick", game, "--now", at(60), "--referee", REFEREE)  # 12 h left
    assert done.code == 0 and "a reminder is queued for them" in done.out, done.out
    messages = queued(game)
    assert len(messages) == before + 1
    reminder = messages[-1]
    assert reminder["To"].addresses[0].addr_spec == "ana@example.org"
    assert reminder["Subject"] == ("[Rebis " + referee.read_record(game).game + "] turn 1: "
                                   "reminder, your move is due by 2025-01-04T00:00:00Z UTC")
    assert reminder["Auto-Submitted"] == "auto-generated"
    text = reminder.get_body(preferencelist=("plain",)).get_content()
    assert text.startswith("Reminder: your move for turn 1 is due by 2025-01-04T00:00:00Z (UTC).")
    assert "Deadline for your move" in text and "Your hand:" in text
    # once a turn: a second tick in the same turn queues nothing more
    done = cli("tick", game, "--now", at(70), "--referee", REFEREE)
    assert "no reminder queued" in done.out and len(queued(game)) == before + 1
    # the sidecar beside the queue holds it; the record never does
    assert (default_queue(game) / REMINDED_STATE).read_text() == "1\n"
    assert game.read_bytes() == record


def test_without_a_referee_address_tick_only_says_a_reminder_is_due(tmp_path):
    from clitools import run_inproc

    game = mail_game(tmp_path)
    before = len(queued(game))
    done = run_inproc("tick", game, "--now", at(60), env={"REBIS_PBM_REFEREE": None})
    assert done.code == 0 and "Reminder due: ana's deadline is near." in done.out
    assert len(queued(game)) == before


def test_after_a_stand_in_move_the_views_are_queued_and_the_next_player_reminded(tmp_path):
    from clitools import run_inproc

    game = mail_game(tmp_path)
    before = len(queued(game))
    done = run_inproc("tick", game, "--now", at(73), "--referee", REFEREE)
    assert "Turn 1: the referee moved for ana (missed deadline)." in done.out, done.out
    messages = queued(game)[before:]
    assert sorted(str(m["To"].addresses[0].addr_spec) for m in messages) == \
        ["ana@example.org", "bob@example.org", REFEREE]
    bob_view = next(m for m in messages if m["To"].addresses[0].addr_spec == "bob@example.org")
    assert "Deadline for your move: 2025-01-07T01:00:00Z (UTC)" in \
        bob_view.get_body(preferencelist=("plain",)).get_content()
    # The picture tells the move as the text does: the referee's, for ana. So does the picture
    # in another language (`view --format svg --lang fr`).
    html = bob_view.get_body(preferencelist=("html",)).get_content()
    assert "the referee moved for ana (missed deadline)" in picture_words(html)
    record, replay, _ = referee.open_game(game)
    french = referee.picture(record, replay, "bob", "fr")
    assert "l'arbitre a joué à la place d'ana" in picture_words(french)
    count = len(queued(game))
    done = run_inproc("tick", game, "--now", at(73 + 60), "--referee", REFEREE)
    reminder = queued(game)[count:]
    assert [m["To"].addresses[0].addr_spec for m in reminder] == ["bob@example.org"]
    assert "turn 2: reminder" in reminder[0]["Subject"]


def picture_words(text: str) -> str:
    """The words of the picture in ``text`` (an SVG document, or HTML holding one), its wrapped
    lines joined."""
    import re
    import xml.etree.ElementTree as ET

    svg = re.search(r"<svg.*</svg>", text, re.DOTALL).group(0)
    return " ".join(e.text for e in ET.fromstring(svg).iter() if e.text)


def test_a_player_without_an_address_gets_no_reminder(tmp_path):
    game = tmp_path / "g.yaml"
    referee.create_game(game, ["ana", "bob"], seed="reminders", insecure_seed=True,
                        addresses={"bob": "b@x.org"},
                        deadline=parse_duration("72h"), now=at(0))
    queue_views(game, REFEREE)
    from rebis_pbm.transports.mail.outbox import queue_reminder
    before = len(queued(game))
    assert queue_reminder(game, REFEREE, default_queue(game), at(60)) is None
    assert len(queued(game)) == before


def test_tick_reads_the_pictures_option_and_its_variable_as_mail_in_does(tmp_path):
    """`tick --referee` takes the one --pictures/--no-pictures (cli.pictures_option): the reminder
    carries the picture by default, and not with REBIS_PBM_MAIL_PICTURES=0 or --no-pictures."""
    from clitools import run_inproc

    cases = (((), {}, True), ((), {"REBIS_PBM_MAIL_PICTURES": "0"}, False),
             (("--no-pictures",), {}, False))
    for number, (extra, env, html) in enumerate(cases):
        (tmp_path / str(number)).mkdir()
        game = mail_game(tmp_path / str(number))
        before = len(queued(game))
        done = run_inproc("tick", game, "--now", at(60), "--referee", REFEREE, *extra,
                          env={"REBIS_PBM_MAIL_PICTURES": None, **env})
        assert done.code == 0 and "a reminder is queued for them" in done.out, done.out
        [reminder] = queued(game)[before:]
        assert (reminder.get_body(("html",)) is not None) is html, (extra, env)


def test_tick_queues_the_views_it_changes_when_no_view_was_ever_mailed(tmp_path):
    """Issue 28: `tick --referee` on a game by mail whose views were never queued (`mail views`
    never ran) used to queue nothing after its stand-in move: every player heard nothing."""
    from clitools import run_inproc

    game = tmp_path / "g.yaml"
    referee.create_game(game, ["ana", "bob"], seed="reminders", insecure_seed=True,
                        addresses=ADDRESSES, deadline=parse_duration("72h"), now=at(0))
    assert not default_queue(game).exists()
    done = run_inproc("tick", game, "--now", at(73), "--referee", REFEREE)
    assert "Turn 1: the referee moved for ana (missed deadline)." in done.out, done.out
    assert "queued (the views after the referee's moves)" in done.out
    told = sorted(str(m["To"].addresses[0].addr_spec) for m in queued(game))
    assert told == ["ana@example.org", "bob@example.org", REFEREE]
    again = run_inproc("tick", game, "--now", at(74), "--referee", REFEREE)
    assert len(queued(game)) == 3 and "queued" not in again.out  # nothing changed since


def test_two_stand_in_moves_in_one_tick_are_both_told_first(tmp_path):
    """tick moves for ana (missed deadline), then for bob (resigned): each player's message
    starts with both turns, oldest first, so ana learns the referee moved for her from its
    first line, not from the recent events alone."""
    from clitools import run_inproc
    from rebis_pbm.app.commands import resign

    game = tmp_path / "g.yaml"
    addresses = {**ADDRESSES, "cy": "cy@example.org"}
    referee.create_game(game, ["ana", "bob", "cy"], seed="reminders", insecure_seed=True,
                        addresses=addresses, deadline=parse_duration("72h"), now=at(0))
    queue_views(game, REFEREE)
    first = len(queued(game))
    assert resign(game, "bob", now=at(1)) == 0  # not bob's turn yet: no move
    done = run_inproc("tick", game, "--now", at(73), "--referee", REFEREE)
    assert "Turn 1: the referee moved for ana (missed deadline)." in done.out, done.out
    assert "Turn 2: the referee moved for bob (resigned by mail)." in done.out, done.out
    told = {m["To"].addresses[0].addr_spec: m.get_body(preferencelist=("plain",)).get_content()
            for m in queued(game)[first:]}
    assert set(told) == {*addresses.values(), REFEREE}
    lines = told["ana@example.org"].splitlines()
    assert lines[0].startswith("Turn 1 (ana): the referee moved for you (missed deadline)")
    assert lines[1].startswith("Turn 2 (bob): the referee moved for bob (resigned by mail)")
    cy = told["cy@example.org"].splitlines()
    assert cy[0].startswith("Turn 1 (ana): the referee moved for ana")
    assert cy[1].startswith("Turn 2 (bob): the referee moved for bob")
