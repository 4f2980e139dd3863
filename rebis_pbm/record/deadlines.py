"""Deadlines and missed moves (docs/deadlines.md): times as a record (rebis-pbm/2) holds them.

Times are data: the record's ``created`` (when turn 1 began), each move entry's ``at`` (when the
referee applied it) and each logged action's ``at``, all UTC to the second, ISO 8601
(``2025-01-31T18:00:00Z``). A turn begins when the move before it was applied; its deadline is
that time plus the game's ``deadline`` (seconds) plus every ``extend_deadline`` the referee
logged during the turn, plus the time the game's clock stood still while a player was away
(rebis-pbm/4: :func:`absences`). Nothing here is read by a replay: time never changes a game.
A player's time zone (rebis-pbm/4) changes only how a time is shown (:func:`shown_time`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, NamedTuple

from rebis_pbm.errors import UsageError
from rebis_pbm.record.versions import ABSENCE_FIELDS as ABSENCE_FIELDS
from rebis_pbm.record.versions import AWAY as AWAY
from rebis_pbm.record.versions import BACK as BACK
from rebis_pbm.record.versions import BEFORE_V4 as BEFORE_V4

if TYPE_CHECKING:
    from rebis_pbm.record.model import Record

_UNITS = {"d": 86400, "h": 3600, "m": 60}
_DURATION = re.compile(r"(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?")
POLICIES = ("bot", "random")  # or a number of missed turns (1-99)
REMIND_BEFORE = 24 * 3600  # a reminder is due within 24 h of the deadline (or a quarter of it)



def time_zone_of(record: Record, player: str | None) -> str | None:
    """The time zone ``player`` reads times in (rebis-pbm/4 ``time_zones``), or None (UTC; the
    spectator's)."""
    return None if player is None else record.time_zones.get(player)


def parse_duration(text: str, option: str = "--deadline") -> int:
    """``72h``, ``3d``, ``1d12h``, ``90m`` -> seconds (at least one minute).

    >>> parse_duration("72h"), parse_duration("1d12h"), parse_duration("90m")
    (259200, 129600, 5400)

    Raises:
        UsageError: any other text.
    """
    found = _DURATION.fullmatch(text.strip().lower()) if text else None
    if not found or not any(found.groups()):
        raise UsageError(f"{text!r} is not a duration: write e.g. 72h, 3d, 1d12h or 90m", option)
    days, hours, minutes = (int(g or 0) for g in found.groups())
    seconds = days * 86400 + hours * 3600 + minutes * 60
    if seconds < 60:
        raise UsageError("a deadline must be at least a minute", option)
    return seconds


def parse_policy(text: str) -> str:
    """``bot``, ``random`` or a number of missed turns 1-99 (kept as text).

    Raises:
        UsageError: anything else (option ``--missed``).
    """
    if text in POLICIES or re.fullmatch(r"[1-9][0-9]?", text or ""):
        return text
    raise UsageError(f"{text!r}: write bot (the greedy bot moves for a late player), random, or "
                     f"a number N of missed turns after which the bot plays for them for good",
                     "--missed")


def parse_time(text: str, option: str = "--now") -> datetime:
    """An ISO 8601 time (``2025-01-31T18:00:00Z``, or with an offset) -> an aware UTC datetime.

    Raises:
        UsageError: not such a time, or one without a time zone.
    """
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"{text!r} is not an ISO 8601 time such as 2025-01-31T18:00:00Z",
                         option) from None
    if value.tzinfo is None:
        raise UsageError(f"{text!r} has no time zone: add Z for UTC, or an offset such as +01:00",
                         option)
    return value.astimezone(timezone.utc)


def format_time(value: datetime) -> str:
    """An aware datetime as the record writes it: UTC, to the second, with ``Z``."""
    utc = value.astimezone(timezone.utc)
    # the year always in four digits (strftime's %Y writes year 1 as "1")
    return f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T{utc:%H:%M:%S}Z"


def now_text(now: str | None = None) -> str:
    """``now`` (ISO 8601) as the record writes it, or the clock's time."""
    return format_time(parse_time(now) if now else datetime.now(timezone.utc))


def latest_time(record: Record) -> str | None:
    """The latest time the record holds (its creation, a move's ``at``, an action's ``at``), or
    None when it holds none."""
    times: list[str] = [t for t in (record.header_extra.get("created"),
                         *(s.get("at") for s in record.stamps),
                         *(j.at for j in record.joins),
                         *(a.get("at") for a in record.actions)) if t]
    return max(times, key=parse_time) if times else None


def check_forward(record: Record, now: str) -> None:
    """Times in a record only go forward: refuse ``now`` (as :func:`now_text` wrote it) when it
    is before the latest time the record holds, whatever clock or ``--now`` gave it.

    Raises:
        UsageError: ``now`` is earlier (option ``--now``); nothing is written.
    """
    latest = latest_time(record)
    if latest is not None and parse_time(now) < parse_time(latest):
        raise UsageError(f"{now} is before {latest}, the latest time game {record.game} records; "
                         f"times in a record only go forward (check the clock, or --now)", "--now")


def turn_began(record: Record) -> str | None:
    """When the current turn began: the last move's ``at``, else ``created``; None when the
    record has no times (no deadline). A rebis-pbm/5 fair deal's join entries keep their time
    (``at``): its second round begins with the last commitment, turn 1 with the deal (the last
    join); its first round with ``created`` (docs/deadlines.md, "The join phase")."""
    for stamp in reversed(record.stamps):
        if "at" in stamp:
            at: str = stamp["at"]
            return at
    if record.two_rounds and len(record.joins) >= len(record.players):
        # round 2 from the last commitment; turn 1 from the last join (the deal)
        last = (record.joins[len(record.players) - 1] if record.joining()
                else record.joins[-1])
        if last.at is not None:
            return last.at
    created: str | None = record.header_extra.get("created")
    return created


def deadline_of(record: Record, *, grace: bool = False) -> str | None:
    """The current turn's deadline (UTC, ISO 8601), or None for a game without deadlines: the
    turn's start plus ``deadline`` and every ``extend_deadline`` logged during the turn (in a
    rebis-pbm/5 join phase: during the same round, or after the deal for turn 1), the
    clock standing still while any player is away (:func:`absences`). ``grace``: the end of the
    grace period after it instead (rebis-pbm/4 ``grace``; the deadline itself without one).
    """
    seconds = record.header_extra.get("deadline")
    began = turn_began(record)
    if seconds is None or began is None:
        return None
    phase = _join_phase(record, len(record.joins))
    extra = sum(a.get("seconds", 0) for a in record.actions
                if a["action"] == "extend_deadline" and a["after"] == len(record.moves)
                and ("joins" not in a or _join_phase(record, int(a["joins"])) == phase))
    if grace:
        extra += record.header_extra.get("grace", 0)
    return _clock_end(record, began, seconds + extra)


def _join_phase(record: Record, joins: int) -> int:
    """Which part of a rebis-pbm/5 game's first turn ``joins`` join entries fall in: 0 round 1
    (the commitments), 1 round 2 (the joins), 2 turn 1 (dealt); 2 for any other game. An
    extension logged in one (its ``joins``) lengthens that one only, as each has its clock."""
    players = len(record.players)
    if not record.two_rounds:
        return 2
    return 0 if joins < players else 1 if joins < 2 * players else 2


def _clock_end(record: Record, began: str, seconds: int) -> str:
    """When the game's clock, started at ``began``, has run ``seconds``: it stands still while
    any player is away (the union of every absence's span)."""
    at, left = parse_time(began), timedelta(seconds=seconds)
    spans = sorted((parse_time(a.start), parse_time(a.end)) for a in absences(record)
                   if a.end != a.start)
    for start, end in spans:
        if end <= at:
            continue
        if start > at:
            if start - at >= left:
                break
            left -= start - at
        at = max(at, end)
    try:
        return format_time(at + left)
    except OverflowError:  # a deadline beyond year 9999 (an extension of millennia): never
        return "9999-12-31T23:59:59Z"


# rebis-pbm/4 (absences): the referee's logged actions ``away`` (``player``, ``start``, ``end``)
# and ``back`` (``player``: every absence of theirs logged before it ends at its ``at``).


class Absence(NamedTuple):
    """One absence as the record's actions make it: ``player`` away from ``start`` to ``end``
    (UTC, ISO 8601); ``end`` is the earlier of the one logged and a later ``back`` (an absence
    that had not begun when its player came back has ``end == start``: none)."""

    player: str
    start: str
    end: str


def absences(record: Record) -> list[Absence]:
    """Every absence logged in ``record`` (rebis-pbm/4 ``away`` and ``back`` actions), in the
    order logged; [] for an older record."""
    return absences_of(record.actions)


def absences_of(actions: Sequence[Mapping[str, Any]]) -> list[Absence]:
    """Every absence the logged ``actions`` make (:func:`absences`), in the order logged: of a
    record's first actions, the absences as they stood when the next one was logged."""
    found: list[Absence] = []
    for action in actions:
        if action["action"] == AWAY:
            found.append(Absence(str(action["player"]), str(action["start"]),
                                 str(action["end"])))
        elif action["action"] == BACK:
            back = parse_time(action["at"])
            found = [a._replace(end=format_time(min(parse_time(a.end),
                                                    max(parse_time(a.start), back))))
                     if a.player == action["player"] else a for a in found]
    return found


def away_now(record: Record, player: str, now: str) -> Absence | None:
    """``player``'s absence that has not ended at ``now`` (in force or still to come), or
    None."""
    at = parse_time(now)
    for absence in absences(record):
        if absence.player == player and parse_time(absence.end) > at \
                and absence.end != absence.start:
            return absence
    return None


def allowance_used(record: Record, player: str, year: int) -> tuple[int, int]:
    """``(seconds, absences)`` of ``player``'s allowance used in calendar ``year`` (UTC): the
    length and number of their absences that begin in it (a whole absence counts in the year
    it begins; one cut short by ``back`` counts as long as it was; one that never began, not
    at all)."""
    spans = [parse_time(a.end) - parse_time(a.start) for a in absences(record)
             if a.player == player and a.end != a.start and parse_time(a.start).year == year]
    return int(sum(span.total_seconds() for span in spans)), len(spans)


def parse_allowance(text: str) -> tuple[int, int]:
    """``14d/3`` -> ``(1209600, 3)``: at most 14 days a year away, in at most 3 absences
    (``new --absence``).

    >>> parse_allowance("14d/3"), parse_allowance("36h/1")
    ((1209600, 3), (129600, 1))

    Raises:
        UsageError: any other text (``--absence``).
    """
    days, slash, slots = (text or "").partition("/")
    if not slash or not re.fullmatch(r"[1-9][0-9]?", slots.strip()):
        raise UsageError(f"{text!r} is not an allowance: write DURATION/ABSENCES, e.g. 14d/3 "
                         f"(at most 14 days a year, in at most 3 absences)", "--absence")
    return parse_duration(days, "--absence"), int(slots)


def check_zone(name: str, option: str = "--tz") -> str:
    """``name`` if it is an IANA time zone this system knows (``Europe/Lisbon``, ``UTC``).

    Raises:
        UsageError: any other text.
    """
    import zoneinfo
    if re.fullmatch(r"[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+){0,2}", name or "") \
            and len(name) <= 64:
        try:
            zoneinfo.ZoneInfo(name)
            return name
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            pass
    raise UsageError(f"{name!r} is not a time zone: write an IANA name such as Europe/Lisbon, "
                     f"America/Sao_Paulo or UTC", option)


def shown_time(utc: str, zone: str | None = None) -> str:
    """A record's time (UTC) as a reader in ``zone`` reads it: ``2026-12-20T00:00:00Z (UTC)``
    without a zone, ``2026-07-01T19:00:00+01:00 (Europe/Lisbon)`` with one (the offset in
    force then). Display only: the record keeps UTC. A zone this system does not know shows
    UTC."""
    if zone and zone != "UTC":
        import zoneinfo
        try:
            local = parse_time(utc).astimezone(zoneinfo.ZoneInfo(zone))
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            return f"{utc} (UTC)"
        return f"{local.replace(microsecond=0).isoformat()} ({zone})"
    return f"{utc} (UTC)"


def missed_turns(record: Record, player: str) -> int:
    """How many of ``player``'s turns the referee played for them because they missed the
    deadline."""
    return sum(1 for move, stamp in zip(record.moves, record.stamps, strict=False)
               if move.player == player and stamp.get("by") == "referee"
               and stamp.get("reason") == MISSED)


MISSED = "missed deadline"
ON_REQUEST = "on the player's request"
REPLACED = "replaced by the bot after missed deadlines"
RESIGNED = "resigned by mail"  # the player left the game (the resign command, docs/mail.md)


def resigned(record, player: str) -> bool:  # type: ignore[no-untyped-def]
    """Whether ``player`` resigned: the last ``replace_player`` action logged for them has the
    reason :data:`RESIGNED` and gives no new address, key or language (one that does, logged
    since, brought a player back to the seat). The bot then moves for them for good."""
    return resigned_in(record.actions, player)


def resigned_in(actions: Sequence[Mapping[str, Any]], player: str) -> bool:
    """:func:`resigned` as the logged ``actions`` (a record's first ones) say it."""
    found = False
    for action in actions:
        if action.get("action") == "replace_player" and action.get("player") == player:
            found = action.get("reason") == RESIGNED and not (
                {"address", "key", "lang"} & set(action))
    return found


def reminder_due(record: Record, now: str) -> bool:
    """Whether the current turn's deadline is near enough for a reminder: within 24 h, or a
    quarter of the deadline when that is shorter, and not yet past."""
    deadline = deadline_of(record)
    if deadline is None:
        return False
    left = (parse_time(deadline) - parse_time(now)).total_seconds()
    window = min(REMIND_BEFORE, record.header_extra["deadline"] / 4)
    return bool(0 < left <= window)


def absences_shown(record: Record) -> list[Absence]:
    """The absences a view of ``record`` shows (docs/views.md): those not over at the latest time
    the record holds (a view is written from the record alone, never from the clock)."""
    latest = latest_time(record)
    return [a for a in absences(record) if a.end != a.start
            and (latest is None or parse_time(a.end) > parse_time(latest))]
