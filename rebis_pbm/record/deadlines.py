"""Deadlines and missed moves (docs/deadlines.md): times as a record (rebis-pbm/2) holds them.

Times are data: the record's ``created`` (when turn 1 began), each move entry's ``at`` (when the
referee applied it) and each logged action's ``at``, all UTC to the second, ISO 8601
(``2025-01-31T18:00:00Z``). A turn begins when the move before it was applied; its deadline is
that time plus the game's ``deadline`` (seconds) plus every ``extend_deadline`` the referee
logged during the turn. Nothing here is read by a replay: time never changes a game.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from rebis_pbm.errors import UsageError

if TYPE_CHECKING:
    from rebis_pbm.record.model import Record

_UNITS = {"d": 86400, "h": 3600, "m": 60}
_DURATION = re.compile(r"(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?")
POLICIES = ("bot", "random")  # or a number of missed turns (1-99)
REMIND_BEFORE = 24 * 3600  # a reminder is due within 24 h of the deadline (or a quarter of it)


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
    return value.astimezone(timezone.utc).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def now_text(now: str | None = None) -> str:
    """``now`` (ISO 8601) as the record writes it, or the clock's time."""
    return format_time(parse_time(now) if now else datetime.now(timezone.utc))


def latest_time(record: Record) -> str | None:
    """The latest time the record holds (its creation, a move's ``at``, an action's ``at``), or
    None when it holds none."""
    times: list[str] = [t for t in (record.header_extra.get("created"),
                         *(s.get("at") for s in record.stamps),
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
    record has no times (no deadline)."""
    for stamp in reversed(record.stamps):
        if "at" in stamp:
            at: str = stamp["at"]
            return at
    created: str | None = record.header_extra.get("created")
    return created


def deadline_of(record: Record) -> str | None:
    """The current turn's deadline (UTC, ISO 8601), or None for a game without deadlines."""
    seconds = record.header_extra.get("deadline")
    began = turn_began(record)
    if seconds is None or began is None:
        return None
    extra = sum(a.get("seconds", 0) for a in record.actions
                if a["action"] == "extend_deadline" and a["after"] == len(record.moves))
    return format_time(parse_time(began) + timedelta(seconds=seconds + extra))


def missed_turns(record: Record, player: str) -> int:
    """How many of ``player``'s turns the referee played for them because they missed the
    deadline."""
    return sum(1 for move, stamp in zip(record.moves, record.stamps, strict=False)
               if move.player == player and stamp.get("by") == "referee"
               and stamp.get("reason") == MISSED)


MISSED = "missed deadline"
ON_REQUEST = "on the player's request"
REPLACED = "replaced by the bot after missed deadlines"


def reminder_due(record: Record, now: str) -> bool:
    """Whether the current turn's deadline is near enough for a reminder: within 24 h, or a
    quarter of the deadline when that is shorter, and not yet past."""
    deadline = deadline_of(record)
    if deadline is None:
        return False
    left = (parse_time(deadline) - parse_time(now)).total_seconds()
    window = min(REMIND_BEFORE, record.header_extra["deadline"] / 4)
    return bool(0 < left <= window)
