"""A game's mail queue: the messages that tell where a game stands, queued once per move
(``mail views``, ``tick``'s stand-in moves and reminders, a crash's recovery), and
:class:`MailOutbox`, the mail transport's :class:`rebis_pbm.transports.Outbox`.

The queue is a Maildir beside the record (``game.mailq/``) with three sidecar files: the last
turn whose messages were queued, the last turn a reminder was queued for, and the last turn
whose late notices were queued.
"""

from __future__ import annotations

import os
from email.message import EmailMessage
from pathlib import Path
from typing import TYPE_CHECKING

from rebis_pbm import app as referee
from rebis_pbm.errors import Failed, RebisError, UsageError
from rebis_pbm.files.atomic import write_atomic
from rebis_pbm.files.lock import locked
from rebis_pbm.files.names import default_queue
from rebis_pbm.present.i18n import N_, gettext_for
from rebis_pbm.record import Record, Replay
from rebis_pbm.transports.mail.compose import late_messages, reminder_message, view_message
from rebis_pbm.transports.mail.maildir import queue as add_to_queue

if TYPE_CHECKING:  # the view's shape, for the type checker only
    from rebis_pbm.present.shapes import View


QUEUED_STATE = "queued-turn"  # in the queue folder: the last turn whose messages were queued
# (``join K`` in a fair deal's join phase: the messages of its K-th join were queued)


_ALL_JOINED = 1 << 30  # a marker's join count once the cards are dealt (or never to be joined)


def _progress(record: Record) -> tuple[int, int]:
    """How far ``record`` is, as the queue's marker notes it: ``(moves, joins)``, the joins
    counted in a fair deal's join phase only (a join has no turn), so that a join whose
    messages were never queued is found as a move's are."""
    return (0, len(record.joins)) if record.joining() else (len(record.moves), _ALL_JOINED)


def queued_progress(queue_dir: Path) -> tuple[int, int] | None:
    """How far the game was when its messages were last queued (:func:`_progress`), from the
    state file beside the queue's messages (``N``: turn N, ``join K``: the K-th join); None when
    there is none yet (a queue from an earlier version)."""
    try:
        text = (queue_dir / QUEUED_STATE).read_text().strip()
        if text.startswith("join "):
            return 0, int(text[5:])
        return int(text), _ALL_JOINED
    except (FileNotFoundError, ValueError):
        return None


def _queue_then_note(queue_dir: Path, messages: list[EmailMessage], record: Record) -> None:
    """Queue ``messages``, then record that the messages of ``record``'s last move (or join)
    are queued (in this order: a crash between the two queues them again, never loses them)."""
    add_to_queue(queue_dir, messages)
    moves, joins = _progress(record)
    write_atomic(queue_dir / QUEUED_STATE, f"join {joins}\n" if joins < _ALL_JOINED else
                 f"{moves}\n", mode=0o600)


REMINDED_STATE = "reminded-turn"  # in the queue folder: the last turn a reminder was queued for


def reminded_turn(queue_dir: Path) -> int | None:
    """The last turn a deadline reminder was queued for (the sidecar beside the queue's
    messages; the record never holds it), or None."""
    try:
        return int((queue_dir / REMINDED_STATE).read_text().strip())
    except (FileNotFoundError, ValueError):
        return None


def queue_reminder(game: str | os.PathLike[str], referee_address: str, queue_dir: Path,
                   now: str, *, pictures: bool = True) -> str | None:
    """Queue a reminder (:func:`rebis_pbm.transports.mail.compose.reminder_message`) to the
    player to move when their deadline is near at ``now`` (ISO 8601;
    :func:`rebis_pbm.record.deadlines.reminder_due`: within 24 h, or a quarter of the deadline
    when shorter), once per turn: the turn is noted in the sidecar ``reminded-turn`` beside the
    queue's messages after the message is queued (a crash between the two sends a reminder
    twice, never none). Returns the player reminded, or None (no reminder due, no address for
    them, or already reminded this turn).

    Raises:
        as :func:`rebis_pbm.app.open_game`; Busy when the record stays locked.
    """
    from rebis_pbm.present import views
    from rebis_pbm.record.deadlines import reminder_due
    with locked(game):
        record, replay, _ = referee.open_game(game)
        state = replay.state
        if state is None or state.finished or record.abandoned(state) \
                or not reminder_due(record, now):  # None: the join phase, no turn yet
            return None
        player = state.player_to_move
        if player not in record.addresses or reminded_turn(queue_dir) == state.turn:
            return None
        view, text_view, lang = _reader_views(record, replay, player)
        add_to_queue(queue_dir, [reminder_message(
            game=record.game, view=text_view, view_text=views.render(text_view, "text", lang),
            view_yaml=views.render(view, "yaml"), sender=referee_address,
            to=record.addresses[player], lang=lang, picture=view if pictures else None,
            signed=bool(record.player_keys(player)))])
        write_atomic(queue_dir / REMINDED_STATE, f"{state.turn}\n", mode=0o600)
    return player


LATE_STATE = "late-turn"  # in the queue folder: the last turn late notices were queued for


def queue_late_notice(game: str | os.PathLike[str], referee_address: str, queue_dir: Path,
                      now: str, *, pictures: bool = True) -> int:
    """Queue the late notices (:func:`rebis_pbm.transports.mail.compose.late_messages`) when
    the player to move is past their deadline at ``now`` (ISO 8601) but within the grace period
    (rebis-pbm/4 ``grace``): their view told as late to them, one line to every other player
    with an address; once per turn (the sidecar ``late-turn``, written after the messages are
    queued). Returns how many messages were queued: 0 when none is due, the late player has no
    address, or the turn's notices were queued already.

    Raises:
        as :func:`rebis_pbm.app.open_game`; Busy when the record stays locked.
    """
    from rebis_pbm.present import views
    from rebis_pbm.record.deadlines import deadline_of, parse_time, time_zone_of
    with locked(game):
        record, replay, _ = referee.open_game(game)
        state = replay.state
        if state is None or state.finished or record.abandoned(state):
            return 0
        deadline, grace_end = deadline_of(record), deadline_of(record, grace=True)
        if deadline is None or grace_end is None \
                or not parse_time(deadline) < parse_time(now) <= parse_time(grace_end):
            return 0
        player = state.player_to_move
        if player not in record.addresses or _turn_noted(queue_dir, LATE_STATE) == state.turn:
            return 0
        view, text_view, lang = _reader_views(record, replay, player)
        others = [(name, record.addresses[name], record.lang(name), time_zone_of(record, name))
                  for name in record.players if name != player and name in record.addresses]
        messages = late_messages(
            game=record.game, view=text_view, view_text=views.render(text_view, "text", lang),
            view_yaml=views.render(view, "yaml"), sender=referee_address,
            to=record.addresses[player], grace_end=grace_end, others=others, lang=lang,
            picture=view if pictures else None, signed=bool(record.player_keys(player)))
        add_to_queue(queue_dir, messages)
        write_atomic(queue_dir / LATE_STATE, f"{state.turn}\n", mode=0o600)
    return len(messages)


def _turn_noted(queue_dir: Path, name: str) -> int | None:
    """The turn a sidecar beside the queue's messages notes, or None."""
    try:
        return int((queue_dir / name).read_text().strip())
    except (FileNotFoundError, ValueError):
        return None


def queue_stand_in_views(game: str | os.PathLike[str], referee_address: str,
                         queue_dir: Path, *, pictures: bool = True) -> int:
    """After ``tick`` moved for a late player: queue every player's view of the game as it
    now stands (as ``mail in`` does for a move whose messages were never queued); returns how
    many messages were queued. A game whose views were never mailed (no queue yet, or no note
    of what was queued) gets every registered player's view now: the referee asked for mail
    (``tick --referee``) and the stand-in moves changed every view. None without addresses."""
    with locked(game):
        if queue_dir.is_dir() and queued_progress(queue_dir) is not None:
            return queue_missing_views(game, referee_address, queue_dir, pictures=pictures)
        record, replay, _ = referee.open_game(game)
        if not record.addresses:
            return 0
        messages = view_messages(record, replay, referee_address,
                                 players=_told_of_join(record), pictures=pictures)
        _queue_then_note(queue_dir, messages, record)
        return len(messages)


def queue_missing_views(game: str | os.PathLike[str], referee_address: str,
                        queue_dir: Path, *, pictures: bool = True) -> int:
    """Crash safety of ``mail in``: if the record holds a move whose messages were never queued
    (the queue could not be written, or the process was killed between the record and the
    queue), queue every player's current view now. Returns how many messages were queued (0:
    nothing was missing). Call with the record's lock held."""
    # The game as every command reads it (the fast path, kept for the move's own read); a
    # record whose seed cannot be found is read without it, and then left to the move's read.
    game_read: referee.Game | None
    try:
        game_read = referee.open_game(game)
        record = game_read.record
    except RebisError:
        game_read, record = None, referee.read_record(game)
    noted = queued_progress(queue_dir)
    if noted is None:  # no state yet: take the queue as up to date from here on
        _queue_then_note(queue_dir, [], record)
        return 0
    if noted >= _progress(record) or not record.addresses:
        return 0
    record, replay, _ = game_read or referee.open_game(game)
    told = noted[0] if noted[1] == _ALL_JOINED and not record.joining() else None
    messages = view_messages(record, replay, referee_address, players=_told_of_join(record),
                             pictures=pictures, since=told)
    _queue_then_note(queue_dir, messages, record)
    return len(messages)


def _told_of_join(record: Record) -> tuple[str, ...] | None:
    """Who hears of the last event when it is a join that did not deal (its player alone, an
    acknowledgement); None (everyone) for a move or the deal, and for the last commitment of a
    rebis-pbm/5 deal, which opens round 2 (every player then has a join to send)."""
    if record.two_rounds and record.joins and len(record.joins) == len(record.players):
        return None
    return (record.joins[-1].player,) if record.joining() and record.joins else None


def _reader_views(record: Record, replay: Replay, viewer: str | None
                  ) -> tuple[View, View, str]:
    """What a mail to ``viewer`` (None: the referee) is made of: the English view (its YAML
    attachment and its picture), the view in the reader's language (its text and subject),
    and that language (the referee's: English)."""
    view = referee.kept_view(record, replay, viewer)
    lang = record.lang(viewer)
    return view, view if lang == "en" else referee.kept_view(record, replay, viewer, lang), lang



def view_messages(record: Record, replay: Replay, referee_address: str, *,
                  players: tuple[str, ...] | None = None,
                  original: EmailMessage | None = None, sender: str | None = None,
                  pictures: bool = True, since: int | None = None) -> list[EmailMessage]:
    """The messages that tell where a game stands: for each player with an address (or each of
    ``players``) their own view, and for the referee the public view (unless ``players`` is
    given). Each starts with the last move (or the deal) as told to its reader. ``original`` is
    the message of the move just accepted (from ``sender``): its author's view answers it.
    ``pictures``: each message also carries the picture of its view (an HTML alternative with an
    inline SVG, :func:`rebis_pbm.transports.mail.compose.view_message`). ``since``: how many
    moves the players' last messages told (the queue's note): each move after those is told,
    oldest first, a line each (``tick`` may make several stand-in moves in one run); None: the
    last move alone.
    """
    from rebis_pbm.present import views
    joined = record.joins[-1].player if record.joins else None  # the last join (a fair deal)
    author: str | None
    said: dict[str, object]
    if replay.history:
        move, events = replay.history[-1]
        heading, author = N_("Turn {turn} ({player})"), move.player
        said = {"turn": move.turn, "player": move.player}
    else:  # the deal (its last join's player is answered), or the join phase
        events, heading, author, said = replay.setup_events, N_("The game begins"), joined, {}
    stand_in = referee.stand_in_reason(record, len(record.moves)) if replay.history else None
    readers: list[str | None] = [p for p in record.players if p in record.addresses and
                                 (players is None or p in players)]
    if players is None:
        readers.append(None)
    out = []
    news: str | None
    for viewer in readers:
        view, text_view, lang = _reader_views(record, replay, viewer)
        _ = gettext_for(lang)
        if record.joining():  # a join that did not deal yet, or none yet (news: none)
            committed = bool(record.joins) and record.joins[-1].commitment is not None
            news = None if joined is None else (
                _("You sent your commitment.") if committed and viewer == joined else
                _("{player} sent their commitment.").format(player=joined) if committed else
                _("You joined the deal.") if viewer == joined else
                _("{player} joined the deal.").format(player=joined))
        elif since is not None and 0 <= since < len(replay.history) - 1:
            news = "\n".join(
                _("{heading}: {account}").format(
                    heading=_("Turn {turn} ({player})").format(turn=m.turn, player=m.player),
                    account=views.account(
                        e, viewer, lang,
                        stand_in=referee.stand_in_reason(record, since + 1 + at)))
                for at, (m, e) in enumerate(replay.history[since:]))
        else:
            news = _("{heading}: {account}").format(
                heading=_(heading).format(**said),
                account=views.account(events, viewer, lang, stand_in=stand_in))
        if viewer is None and sender and news is not None:
            news += f"\n(The move came from {sender}.)"
        out.append(view_message(  # the texts as the view files hold them, rendered once
            game=record.game, view=text_view,
            view_text=referee.kept_rendering(record, replay, viewer, "text"),
            view_yaml=referee.kept_rendering(record, replay, viewer, "yaml"), news=news,
            sender=referee_address,
            to=referee_address if viewer is None else record.addresses[viewer],
            original=original if viewer is not None and viewer == author else None,
            lang=lang, picture=view if pictures else None,
            signed=viewer is not None and bool(record.player_keys(viewer))))
    return out



def queue_views(game: str | os.PathLike[str], referee_address: str,
                players: tuple[str, ...] = (), queue_dir: Path | None = None, *,
                pictures: bool = True) -> int:
    """Queue every player's current view (or only those of ``players``), and the public view
    for the referee (with their pictures when ``pictures``); returns how many messages were
    queued.

    Raises:
        UsageError: a name that is no player's, or a player with no address (``--player``).
        Failed: no player has an address (exit 2).
    """
    record, replay, _ = referee.open_game(game)
    for name in players:
        if name not in record.addresses:
            why = "no such player" if name not in record.players else "no address registered"
            raise UsageError(f"{name!r}: {why} in game {record.game}", "--player")
    if not record.addresses:
        raise Failed(f"no player of game {record.game} has an e-mail address; register them when "
                     f"creating the game: new ... --player NAME=ADDRESS")
    messages = view_messages(record, replay, referee_address, players=players or None,
                             pictures=pictures)
    queue_dir = queue_dir or default_queue(game)
    with locked(game):  # the queue keeps the order in which views were made
        if players:
            add_to_queue(queue_dir, messages)
        else:  # every view of the last move: what mail in's crash check looks for
            _queue_then_note(queue_dir, messages, record)
    return len(messages)



class MailOutbox:
    """The mail transport's :class:`rebis_pbm.transports.Outbox`: the messages of the game
    whose record is ``game`` queued in ``queue`` (default :func:`default_queue`), each from the
    referee's address ``referee``, with their pictures when ``pictures``."""

    def __init__(self, game: str | os.PathLike[str], referee: str,
                 queue: Path | None = None, *, pictures: bool = True) -> None:
        self.game = game
        self.referee = referee
        self.pictures = pictures
        self._where = queue if queue is not None else default_queue(game)

    @property
    def where(self) -> Path:
        """The queue Maildir (``game.mailq/`` unless given)."""
        return self._where

    def queue_views(self, players: tuple[str, ...] = ()) -> int:
        """:func:`queue_views` into this queue."""
        return queue_views(self.game, self.referee, players, self._where, pictures=self.pictures)

    def queue_stand_in_views(self) -> int:
        """:func:`queue_stand_in_views` into this queue."""
        return queue_stand_in_views(self.game, self.referee, self._where,
                                    pictures=self.pictures)

    def queue_missed_views(self) -> int:
        """:func:`queue_missing_views` into this queue, when it exists (0 otherwise: a game whose
        views were never queued is not repaired)."""
        if not self._where.is_dir() or queued_progress(self._where) is None:
            return 0
        with locked(self.game):
            return queue_missing_views(self.game, self.referee, self._where,
                                       pictures=self.pictures)

    def queue_reminder(self, now: str) -> str | None:
        """:func:`queue_reminder` into this queue."""
        return queue_reminder(self.game, self.referee, self._where, now, pictures=self.pictures)

    def queue_late_notice(self, now: str) -> int:
        """:func:`queue_late_notice` into this queue."""
        return queue_late_notice(self.game, self.referee, self._where, now,
                                 pictures=self.pictures)
