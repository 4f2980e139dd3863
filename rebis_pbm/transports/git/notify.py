"""Telling the players of the turns the job pushed (``git apply --queue``, and the chat
webhooks), through the transports' one interface (:func:`rebis_pbm.transports.outbox_for`,
:func:`rebis_pbm.transports.announce`), never a transport's modules.

Once the job's work is pushed, each game where a move was applied posts its chat notice and, with
``--queue``, has every player's view queued; a game whose queue notes an earlier turn than its
record (a job killed between its push and queueing, as ``mail in`` finds a turn it never
queued) has its views queued now.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rebis_pbm.files.names import DEFAULT_GAME, default_queue
from rebis_pbm.transports.git.game import Outcome
from rebis_pbm.transports.git.shard import RECORD

Echo = Callable[[str], None]  # a line for the referee's log (standard output)


def announce_turns(top: Path, outcome: Outcome, say: Callable[[str, bool], None], *,
                   game: str = DEFAULT_GAME) -> None:
    """Post the chat notices of the turns the job began (docs/league.md): each game where a
    move was applied (``game``, or a shard's ``outcome.games``) whose referee set webhooks
    (``game.notify.yaml`` beside its record, never committed). A notice that cannot be queued
    is said as a note (``say(line, True)``); a post that fails stays queued for ``notify
    send``: never an error of the job."""
    from rebis_pbm.transports import announce

    records = outcome.games if outcome.games else ((game,) if outcome.applied else ())
    for record in records:
        note = announce(top / record)
        if note:
            say(f"rebis-pbm git: {record}: note: {note}", True)


def _queue_asked(top: Path, outcome: Outcome, referee_address: str, echo: Echo, *, game: str,
                 queue: str | None, pictures: bool) -> None:
    """Queue the view of each player who asked for it by a command file (``view``, docs/git.md
    "Commands"), unless every view of their game is queued anyway (a move was applied). A view
    that cannot be queued (no address) is a line of the log, never the job's failure."""
    from rebis_pbm.errors import RebisError
    from rebis_pbm.transports import outbox_for

    for record, player in outcome.asked:
        if record in outcome.games or (record == game and outcome.applied):
            continue
        where = Path(queue) if queue and record == game else None
        try:
            outbox_for(top / record, referee_address, where,
                       pictures=pictures).queue_views((player,))
        except RebisError as exc:
            echo(f"rebis-pbm git: {record}: {player}'s view, asked for by command, was not "
                 f"queued: {exc}")
            continue
        echo(f"rebis-pbm git: {player}'s view of {record}, asked for by command, queued for "
             f"mail out.")


def queue_turns(top: Path, outcome: Outcome, referee_address: str, echo: Echo, *,
                game: str = DEFAULT_GAME, games: str | None = None,
                queue: str | None = None, pictures: bool = True) -> None:
    """Queue the views of the turns the job pushed, and of any turn pushed earlier whose views
    were never queued. ``top``: the repository's top; one game (``game``, its queue ``queue``,
    default its own ``game.mailq/`` beside it), or a shard's games (``games``, the folder
    relative to ``top``), each game's own queue beside its record. A game never queued for (no
    queue folder yet) is not repaired: its views are queued once a move is applied.

    Raises:
        UsageError, Failed: as :meth:`rebis_pbm.transports.Outbox.queue_views` (no player
            with an address).
    """
    from rebis_pbm.present.views import counted
    from rebis_pbm.transports import outbox_for

    _queue_asked(top, outcome, referee_address, echo, game=game, queue=queue,
                 pictures=pictures)
    if games is None:
        # (DIR as given, relative to the working folder, as ever)
        outbox = outbox_for(top / game, referee_address, Path(queue) if queue else None,
                            pictures=pictures)
        shown = Path(queue) if queue else default_queue(game)
        if outcome.applied:
            count = outbox.queue_views()
            echo(f"rebis-pbm git: {counted(count, 'message')} queued in {shown}/ for mail out.")
            return
        count = outbox.queue_missed_views()
        if count:
            echo(f"rebis-pbm git: {counted(count, 'message')} queued in {shown}/ for mail out "
                 f"(a turn pushed earlier whose views were never queued).")
        return
    for record in outcome.games:  # a queue notes its game's last turn: one for each game
        count = outbox_for(top / record, referee_address, pictures=pictures).queue_views()
        echo(f"rebis-pbm git: {counted(count, 'message')} of {record} queued in "
             f"{default_queue(record)}/ for mail out.")
    folder = top / games
    for queued in sorted(folder.glob(f"*/{default_queue(RECORD).name}")):
        record = queued.with_name(RECORD).relative_to(top).as_posix()
        if record in outcome.games:
            continue
        count = outbox_for(top / record, referee_address,
                           pictures=pictures).queue_missed_views()
        if count:
            echo(f"rebis-pbm git: {counted(count, 'message')} of {record} queued in "
                 f"{default_queue(record)}/ for mail out (a turn pushed earlier whose views "
                 f"were never queued).")
