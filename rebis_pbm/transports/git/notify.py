"""Handing the job's turns to the mail queue (``git apply --queue``): the one place where the git
job calls the mail transport.

Once the job's work is pushed, each game where a move was applied has every player's view
queued; a game whose queue notes an earlier turn than its record (a job killed between its push
and queueing, as ``mail in`` finds a turn it never queued) has its views queued now.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rebis_pbm.transports.git.game import Outcome
from rebis_pbm.transports.git.shard import RECORD, recorded_moves

Echo = Callable[[str], None]  # a line for the referee's log (standard output)


def queue_turns(top: Path, outcome: Outcome, referee_address: str, echo: Echo, *,
                game: str = "game.yaml", games: str | None = None,
                queue: str | None = None, pictures: bool = True) -> None:
    """Queue the views of the turns the job pushed, and of any turn pushed earlier whose views
    were never queued. ``top``: the repository's top; one game (``game``, its queue ``queue``,
    default its own ``game.mailq/`` beside it), or a shard's games (``games``, the folder
    relative to ``top``), each game's own queue beside its record. A game never queued for (no queue
    folder yet) is not repaired: its views are queued once a move is applied.

    Raises:
        UsageError, Failed: as :func:`rebis_pbm.transports.mail.jobs.queue_views` (no player
            with an address).
    """
    from rebis_pbm.present.views import counted
    from rebis_pbm.transports.mail.jobs import default_queue, queue_views
    if games is None:
        # (DIR as given, relative to the working folder, as ever)
        where = Path(queue) if queue else default_queue(top / game)
        shown = Path(queue) if queue else default_queue(game)
        if outcome.applied:
            count = queue_views(top / game, referee_address, (), where, pictures=pictures)
            echo(f"rebis-pbm git: {counted(count, 'message')} queued in {shown}/ for mail out.")
            return
        count = _repair(top / game, referee_address, where, pictures)
        if count:
            echo(f"rebis-pbm git: {counted(count, 'message')} queued in {shown}/ for mail out "
                 f"(a turn pushed earlier whose views were never queued).")
        return
    for record in outcome.games:  # a queue notes its game's last turn: one for each game
        count = queue_views(top / record, referee_address, (), pictures=pictures)
        echo(f"rebis-pbm git: {counted(count, 'message')} of {record} queued in "
             f"{default_queue(record)}/ for mail out.")
    folder = top / games
    for queued in sorted(folder.glob(f"*/{default_queue(RECORD).name}")):
        record = queued.with_name(RECORD).relative_to(top).as_posix()
        if record in outcome.games:
            continue
        count = _repair(top / record, referee_address, default_queue(top / record), pictures)
        if count:
            echo(f"rebis-pbm git: {counted(count, 'message')} of {record} queued in "
                 f"{default_queue(record)}/ for mail out (a turn pushed earlier whose views "
                 f"were never queued).")


def _repair(record: Path, referee_address: str, queue_dir: Path, pictures: bool) -> int:
    """Queue ``record``'s views when its queue (``queue_dir``, an existing folder) notes an
    earlier turn than the record holds; how many messages were queued. A record whose moves
    the queue's note already counts is not opened."""
    from rebis_pbm.transports.mail.jobs import queue_stand_in_views, queued_progress
    if not queue_dir.is_dir():
        return 0
    noted = queued_progress(queue_dir)
    try:
        moves = recorded_moves(record.read_bytes())
    except OSError:
        return 0
    if noted is not None and moves and noted[0] >= moves:
        return 0  # (a dealt game's note is its last turn: nothing behind)
    return queue_stand_in_views(record, referee_address, queue_dir, pictures=pictures)
