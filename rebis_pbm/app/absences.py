"""Absences (rebis-pbm/4): a player away stops the game's clock, within a yearly allowance.

The referee's ``away`` and ``back`` commands and the players' mail commands call these
(docs/deadlines.md, "Absences").
"""

from __future__ import annotations

from typing import NamedTuple

from rebis_pbm.app.deadlines import log_action
from rebis_pbm.engine.phrases import N_, Phrase
from rebis_pbm.errors import Failed, Refused, UsageError
from rebis_pbm.files.atomic import PathLike
from rebis_pbm.record import BEFORE_V4, Record


class Away(NamedTuple):
    """An absence as logged: ``player`` away from ``start`` to ``end`` (UTC, ISO 8601), and
    what is left of their allowance in the calendar year it began in: ``seconds_left``,
    ``absences_left``."""

    player: str
    start: str
    end: str
    seconds_left: int
    absences_left: int


def _allowance(record: Record) -> tuple[int, int]:
    """The game's allowance ``(seconds, absences)`` a year.

    Raises:
        Failed: an older record, or a game created without ``--absence``.
    """
    if record.format in BEFORE_V4:
        raise Failed(f"game {record.game} is a {record.format} record, which keeps no absences "
                     f"(they came with rebis-pbm/4); nothing was written")
    allowance = record.header_extra.get("absence")
    if not allowance or "deadline" not in record.header_extra:
        raise Failed(f"game {record.game} has no absence allowance (new --deadline 72h "
                     f"--absence 14d/3 gives one); nothing was written")
    return int(allowance["seconds"]), int(allowance["slots"])


def absence_length(seconds: int) -> Phrase:
    """A length of absence in days and hours, as a phrase each language words (``14d``,
    ``3d5h``; French ``14 j``)."""
    days, rest = divmod(seconds, 86400)
    if rest >= 3600:
        return Phrase(N_("{days}d{hours}h"), {"days": days, "hours": rest // 3600})
    return Phrase(N_("{days}d"), {"days": days})


def take_absence(game: PathLike, player: str, start: str | None, end: str, *,
                 now: str | None = None, reason: str | None = None,
                 views_dir: PathLike | None = None, zone: str | None = None) -> Away:
    """Log ``player``'s absence from ``start`` (ISO 8601; None: ``now``) to ``end``: the game's
    clock stops meanwhile (:func:`rebis_pbm.record.deadlines.deadline_of`). ``now``: the time it
    is logged at (ISO 8601; default the clock). Logged as the referee's ``away`` action (with
    ``reason``, one line) and shown in every view. ``zone``: the time zone a refusal's times
    are shown in (the player's, when the player asked; default UTC).

    Ruling: the allowance is per calendar year (UTC) of the absence's start; an absence that
    would pass it (its length, or one absence too many) is refused, never cut: the referee may
    still ``extend`` a deadline.

    Raises:
        UsageError: a time that is not ISO 8601 with a zone, a start before ``now``, an end not
            after the start; as :func:`log_action` (a player not in the game, a bad reason).
        Refused: the player is already away (or to be) then; the allowance would be passed;
            the game is over.
        Failed: an older record or a game without an allowance.
    """
    from rebis_pbm.record.deadlines import (
        absences,
        allowance_used,
        format_time,
        now_text,
        parse_time,
        shown_time,
    )
    at_text = now_text(now)
    begins = parse_time(start, "--from") if start is not None else parse_time(at_text)
    ends = parse_time(end, "--to")
    left: list[tuple[int, int]] = []

    def check(record: Record, at: str) -> None:
        seconds, slots = _allowance(record)
        if begins < parse_time(at):
            raise UsageError(f"{format_time(begins)} is before now ({at}): an absence cannot "
                             f"begin in the past", "--from", phrase=Phrase(N_(
                                 "{start} is before now ({now}): an absence cannot begin in "
                                 "the past"), {"start": shown_time(format_time(begins), zone),
                                               "now": shown_time(at, zone)}))
        if ends <= begins:
            raise UsageError(f"{format_time(ends)} is not after {format_time(begins)}: an "
                             f"absence ends after it begins", "--to", phrase=Phrase(N_(
                                 "{end} is not after {start}: an absence ends after it "
                                 "begins"), {"end": shown_time(format_time(ends), zone),
                                             "start": shown_time(format_time(begins), zone)}))
        for other in absences(record):  # the player's own absences may not overlap
            if other.player == player and other.end != other.start \
                    and parse_time(other.start) < ends and parse_time(other.end) > begins:
                raise Refused(phrase=Phrase(N_(
                    "{player} is already away from {start} to {end}; nothing was written"),
                    {"player": player, "start": shown_time(other.start, zone),
                     "end": shown_time(other.end, zone)}))
        used, count = allowance_used(record, player, begins.year)
        length = int((ends - begins).total_seconds())
        if count + 1 > slots:
            # count == slots: the sentence names no count, which would need a plural form
            raise Refused(phrase=Phrase(N_(
                "{player} has had in {year} every absence the allowance gives ({slots} a year); "
                "nothing was written"), {"player": player, "year": begins.year, "slots": slots}))
        if used + length > seconds:
            raise Refused(phrase=Phrase(N_(
                "{player} has {left} of absence left in {year} (the allowance is {allowance} a "
                "year), less than the {asked} asked; nothing was written"),
                {"player": player, "left": absence_length(seconds - used), "year": begins.year,
                 "allowance": absence_length(seconds), "asked": absence_length(length)}))
        left.append((seconds - used - length, slots - count - 1))

    log_action(game, "away", now=at_text, views_dir=views_dir, check=check, player=player,
               start=format_time(begins), end=format_time(ends), reason=reason)
    return Away(player, format_time(begins), format_time(ends), *left[0])


def end_absence(game: PathLike, player: str, *, now: str | None = None,
                views_dir: PathLike | None = None) -> Record:
    """``player`` is back at ``now`` (ISO 8601; default the clock): their absence in force ends
    then, every one still to come is called off (its allowance is given back). Logged as the
    referee's ``back`` action; returns the record as written.

    Raises:
        Refused: the player is neither away nor to be away; the game is over.
        Failed: an older record or a game without an allowance.
        as :func:`log_action`.
    """
    from rebis_pbm.record.deadlines import away_now

    def check(record: Record, at: str) -> None:
        _allowance(record)
        if away_now(record, player, at) is None:  # log_action checked the name first
            raise Refused(phrase=Phrase(N_(
                "{player} is not away and has no absence to come; nothing was written"),
                {"player": player}))

    return log_action(game, "back", now=now, views_dir=views_dir, check=check, player=player)
