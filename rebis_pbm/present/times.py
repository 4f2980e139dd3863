"""Times as a view's reader reads them (rebis-pbm/4, docs/deadlines.md): the deadline and the
players away, in the reader's time zone when they chose one (the view's data stay UTC)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rebis_pbm.present.i18n import gettext_for
from rebis_pbm.record.deadlines import shown_time

if TYPE_CHECKING:  # the view's shape, for the type checker only
    from rebis_pbm.present.shapes import View


def time_lines(view: View, lang: str | None = None) -> list[str]:
    """The text view's lines of times, in ``lang``: the current turn's deadline (``deadline``)
    and each absence the view lists (``away``), each time in the viewer's ``time_zone`` with its
    offset (``2026-07-01T19:00:00+01:00 (Europe/Lisbon)``), or in UTC."""
    _ = gettext_for(lang)
    zone = view.get("time_zone")
    lines = []
    if "deadline" in view:
        # the player to move reads it in the second person in their own view, in every language
        you = view["to_move"] == view.get("viewer")
        if zone:
            deadline = shown_time(view["deadline"], zone)
            lines.append((_("Deadline for your move: {deadline}; after it the referee may move "
                            "for you.") if you else
                          _("Deadline for {player}'s move: {deadline}; after it the referee may "
                            "move for them.")).format(player=view["to_move"], deadline=deadline))
        else:
            lines.append((_("Deadline for your move: {deadline} (UTC); after it the referee may "
                            "move for you.") if you else
                          _("Deadline for {player}'s move: {deadline} (UTC); after it the referee "
                            "may move for them.")).format(player=view["to_move"],
                                                          deadline=view["deadline"]))
    for away in view.get("away", ()):
        # the viewer's own absence in the second person (issue 30), another's by name
        said = (_("You are away until {until} (from {start}); the game's clock stops "
                  "meanwhile.") if away["player"] == view.get("viewer") else
                _("{player} is away until {until} (from {start}); the game's clock stops "
                  "meanwhile."))
        lines.append(said.format(player=away["player"], until=shown_time(away["until"], zone),
                                 start=shown_time(away["from"], zone)))
    return lines
