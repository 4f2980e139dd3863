"""The record formats after rebis-pbm/3 and what each brought (docs/formats.md): the formats
before rebis-pbm/4, /5 and /6, rebis-pbm/4's header fields, and the check that a record carries
no field of a later format than its own.

Below :mod:`rebis_pbm.record.model`, which checks every record it makes here, and above nothing
of the record's: :mod:`~rebis_pbm.record.deadlines` and :mod:`~rebis_pbm.record.commitments`,
which read a :class:`~rebis_pbm.record.model.Record`, take their constants from here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["ABSENCE_FIELDS", "AWAY", "BACK", "BEFORE_V4", "BEFORE_V5", "BEFORE_V6",
           "check_absence_fields"]

# Formats without rebis-pbm/4's absences, grace periods, time zones and referee key.
BEFORE_V4 = ("rebis-pbm/1", "rebis-pbm/2", "rebis-pbm/3")
# Formats whose fair deal takes one round (a join each, no commitment).
BEFORE_V5 = ("rebis-pbm/1", "rebis-pbm/2", "rebis-pbm/3", "rebis-pbm/4")
# Formats whose signed witness line does not count the referee's logged actions (rebis-pbm/6:
# ``, actions K`` in a game with a referee key, so that acts cut off the end of a record whose
# seed is public no longer leave the witness signature checking; record/acts.py).
BEFORE_V6 = BEFORE_V5 + ("rebis-pbm/5",)
# rebis-pbm/4 (absences): the header's ``absence`` ({seconds, slots}: each player's yearly
# allowance, new --absence) and ``grace`` (seconds after a deadline before the missed-move
# policy, new --grace), covered by the header digest; ``time_zones`` (player -> IANA zone, for
# display only, like langs: covered by record_hmac); the actions ``away`` and ``back``
# (:func:`~rebis_pbm.record.deadlines.absences`), chained like every action.
ABSENCE_FIELDS = ("absence", "grace")
AWAY = "away"
BACK = "back"


def check_absence_fields(record_format: str, players: Iterable[str],
                         time_zones: Mapping[str, str], header_extra: Mapping[str, object],
                         actions: Iterable[Mapping[str, object]]) -> None:
    """Raises ValueError when a record being made (its format, players, ``time_zones``,
    ``header_extra`` and logged ``actions``) is damaged as to rebis-pbm/4's fields: an older
    record carrying one, or a time zone for a name that is no player's (and, rebis-pbm/5, an
    older record's action counting joins)."""
    actions = tuple(actions)
    if record_format in BEFORE_V4 and (
            time_zones or any(f in header_extra for f in ABSENCE_FIELDS)
            or any(a.get("action") in (AWAY, BACK) for a in actions)):
        raise ValueError(f"a {record_format} record has no absences, grace period or time "
                         f"zones: they came with rebis-pbm/4, so this record is damaged "
                         f"(edited by hand)")
    if record_format in BEFORE_V5 and any("joins" in a for a in actions):
        raise ValueError(f"a {record_format} record's logged actions do not count the joins "
                         f"before them: that came with rebis-pbm/5, so this record is damaged "
                         f"(edited by hand)")
    players = tuple(players)
    strangers = [name for name in time_zones if name not in players]
    if strangers:
        raise ValueError(f"time_zones: {', '.join(strangers)} is not a player of this game "
                         f"(players: {', '.join(players)})")
