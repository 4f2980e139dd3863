"""How moves and views travel between players and the referee: the transports, and the one
interface a command uses to tell players where a game stands (:class:`Outbox`).

Each transport is a package that calls :mod:`rebis_pbm.app` for every use case (a move enters
through :func:`rebis_pbm.app.submit_move`, the one way a move enters a game):

- :mod:`.mail`: what comes in is a message (a Maildir, one file, standard input) carrying a move
  as a YAML attachment or in its text, with its signature; what goes out is a message per
  reader (each player's own view, the public view for the referee, a reply to a refused move),
  queued in a Maildir beside the record and sent by ``mail out`` (SMTP, sendmail or files).
- :mod:`.git`: what comes in is a move file committed under ``moves/`` by its player; what goes
  out is a commit of the record and the public view (private views encrypted, or kept out), and,
  when the referee asks (``git apply --queue``), each player's view queued through an
  :class:`Outbox`.

Commands that change a game outside a transport's own loop (``tick``'s stand-in moves and
reminders, ``git apply``'s pushed turns) tell the players through :func:`outbox_for`, never by
importing a transport's modules: a new transport implements :class:`Outbox` and is returned by
:func:`outbox_for`.

- :mod:`.webhook`: nothing comes in; what goes out is a notice to a chat webhook (JSON, Discord,
  Slack, Matrix) when a turn begins or a deadline nears. Every command that records a move,
  deals or moves for a late player calls :func:`announce` once the record holds it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # the package is imported by commands that must start fast: no pathlib
    import os
    from pathlib import Path


class Outbox(Protocol):
    """Where a game's messages to its readers wait to go out; each method queues what one
    event asks for and returns what it queued. Call with the record's lock NOT held (each
    method takes it)."""

    @property
    def where(self) -> Path:
        """The folder the messages wait in (mail: the queue Maildir, ``game.mailq/``)."""
        ...

    def queue_views(self, players: tuple[str, ...] = ()) -> int:
        """Every player's current view (or only ``players``'), and the public view for the
        referee; returns how many messages were queued.

        Raises:
            UsageError: a name that is no player's, or a player with no address.
            Failed: no player has an address (exit 2).
        """
        ...

    def queue_stand_in_views(self) -> int:
        """After the referee moved for a late player (``tick``): every reader's view of the game
        as it now stands; returns how many messages were queued (0 when the game is not played
        through this transport)."""
        ...

    def queue_missed_views(self) -> int:
        """The views of a turn recorded but never queued (a job killed between its push and its
        queue, as ``mail in`` finds one); returns how many messages were queued (0: nothing was
        missing, or the game has no queue yet)."""
        ...

    def queue_reminder(self, now: str) -> str | None:
        """A reminder to the player to move when their deadline is near at ``now`` (ISO 8601,
        UTC), once a turn; returns the player reminded, or None (none due, no address, or
        reminded already this turn)."""
        ...

    def queue_late_notice(self, now: str) -> int:
        """When the player to move is past their deadline at ``now`` (ISO 8601, UTC) but within
        the grace period (rebis-pbm/4 ``grace``): a notice to them and one line to every other
        player, once a turn; returns how many messages were queued (0: none due, no address,
        or told already this turn)."""
        ...


def outbox_for(game: str | os.PathLike[str], referee: str, queue: Path | None = None, *,
               pictures: bool = True) -> Outbox:
    """The outbox of the game whose record is ``game``: today mail's
    (:class:`rebis_pbm.transports.mail.outbox.MailOutbox`), from the referee's address
    ``referee`` (every message's From), the queue folder ``queue`` (default: ``game.mailq/``
    beside the record) and whether views carry their picture (``pictures``)."""
    from rebis_pbm.transports.mail.outbox import MailOutbox

    return MailOutbox(game, referee, queue, pictures=pictures)


def announce(game: str | os.PathLike[str], *, now: str | None = None) -> str | None:
    """Tell the game's chat webhooks (``rebis-pbm notify``, docs/league.md) that a turn began or
    a deadline nears at ``now`` (ISO 8601, UTC; default the clock): the notices due are queued
    and posted at once, and what fails stays queued for ``notify send``. Call once the record
    holds the change. Costs one ``stat`` for a game without webhooks.

    Returns:
        None, or one sentence for the referee when the notices could not be queued: the move
        stands either way, so this never raises for a notice.
    """
    import os

    from rebis_pbm.transports.webhook.settings import notify_path

    if not os.path.lexists(notify_path(game)):
        return None
    from rebis_pbm.errors import RebisError
    from rebis_pbm.transports.webhook.jobs import queue_turn_notice

    try:
        queue_turn_notice(game, now=now, post=True)
    except (RebisError, OSError) as exc:
        return f"the move stands, but its chat notices were not queued: {exc}"
    return None
