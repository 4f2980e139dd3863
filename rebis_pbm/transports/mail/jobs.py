"""Play by e-mail: the referee's mail use cases around :mod:`rebis_pbm.app` (docs/mail.md).

:func:`mail_in` takes moves out of messages and enters each through
:func:`rebis_pbm.app.submit_move`, the one way a move enters a game, with the sender as the
move's author; every outcome is answered by messages put in a queue (a Maildir beside the
record). :func:`queue_views` queues the current views (the start of a game, a view sent again);
:func:`send_queue` sends the queue through SMTP or writes it as ``.eml`` files. The messages
themselves are :mod:`rebis_pbm.transports.mail.message`'s.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import BinaryIO, NamedTuple

from rebis_pbm import app as referee
from rebis_pbm.errors import (
    CorruptRecord,
    ExitCode,
    Failed,
    InputError,
    RebisError,
    Refused,
    UsageError,
    one_line,
)
from rebis_pbm.files.atomic import open_regular, write_atomic
from rebis_pbm.files.lock import locked
from rebis_pbm.files.names import default_queue as default_queue
from rebis_pbm.present.i18n import N_, Phrase, gettext_for, refusal
from rebis_pbm.present.views import counted
from rebis_pbm.record import Record, Replay

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


def _queue_then_note(queue_dir: Path, messages: list, record: Record) -> None:
    """Queue ``messages``, then record that the messages of ``record``'s last move (or join)
    are queued (in this order: a crash between the two queues them again, never loses them)."""
    from rebis_pbm.transports.mail.message import queue
    queue(queue_dir, messages)
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
    """Queue a reminder (:func:`rebis_pbm.transports.mail.message.reminder_message`) to the player
    to
    move when their deadline is near at ``now`` (ISO 8601; :func:`rebis_pbm.record.deadlines.
    reminder_due`: within 24 h, or a quarter of the deadline when shorter), once per turn: the
    turn is noted in the sidecar ``reminded-turn`` beside the queue's messages after the
    message is queued (a crash between the two sends a reminder twice, never none). Returns the
    player reminded, or None (no reminder due, no address for them, or already reminded this
    turn).

    Raises:
        as :func:`rebis_pbm.app.open_game`; Busy when the record stays locked.
    """
    from rebis_pbm.present import views
    from rebis_pbm.record.deadlines import reminder_due
    from rebis_pbm.transports.mail.message import queue, reminder_message
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
        queue(queue_dir, [reminder_message(
            game=record.game, view=text_view, view_text=views.render(text_view, "text", lang),
            view_yaml=views.render(view, "yaml"), sender=referee_address,
            to=record.addresses[player], lang=lang, picture=view if pictures else None)])
        write_atomic(queue_dir / REMINDED_STATE, f"{state.turn}\n", mode=0o600)
    return player


def queue_stand_in_views(game: str | os.PathLike[str], referee_address: str,
                         queue_dir: Path, *, pictures: bool = True) -> int:
    """After ``tick`` moved for a late player: queue every player's view of the game as it
    now stands (as ``mail in`` does for a move whose messages were never queued); returns how
    many messages were queued (none when the game has no mail queue yet: not played by mail)."""
    if not queue_dir.is_dir():
        return 0
    with locked(game):
        return queue_missing_views(game, referee_address, queue_dir, pictures=pictures)


def queue_missing_views(game: str | os.PathLike[str], referee_address: str,
                        queue_dir: Path, *, pictures: bool = True) -> int:
    """Crash safety of ``mail in``: if the record holds a move whose messages were never queued
    (the queue could not be written, or the process was killed between the record and the
    queue), queue every player's current view now. Returns how many messages were queued (0:
    nothing was missing). Call with the record's lock held."""
    # The game as every command reads it (the fast path, kept for the move's own read); a
    # record whose seed cannot be found is read without it, and then left to the move's read.
    try:
        game_read: referee.Game | None = referee.open_game(game)
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
    messages = view_messages(record, replay, referee_address, players=_told_of_join(record),
                             pictures=pictures)
    _queue_then_note(queue_dir, messages, record)
    return len(messages)


def _told_of_join(record: Record) -> tuple[str, ...] | None:
    """Who hears of the last event when it is a join that did not deal (its player alone, an
    acknowledgement); None (everyone) for a move or the deal."""
    return (record.joins[-1].player,) if record.joining() and record.joins else None


def _reader_views(record: Record, replay: Replay, viewer: str | None
                  ) -> tuple[dict, dict, str]:
    """What a mail to ``viewer`` (None: the referee) is made of: the English view (its YAML
    attachment and its picture), the view in the reader's language (its text and subject),
    and that language (the referee's: English)."""
    view = referee.kept_view(record, replay, viewer)
    lang = record.lang(viewer)
    return view, view if lang == "en" else referee.kept_view(record, replay, viewer, lang), lang


def _status(record: Record, replay: Replay, lang: str | None = None) -> str:
    """What anyone may know of where the game stands (for a refused sender), in ``lang``."""
    from rebis_pbm.present.views import standing
    state = replay.state
    if state is None:  # the join phase of a fair deal
        _ = gettext_for(lang)
        return _("The deal waits for joins by {players}.").format(
            players=", ".join(record.waiting_for()))
    return standing(state.phase, state.turn, state.player_to_move, record.abandoned(state), lang)


def _turn(replay: Replay) -> int:
    """The turn a reply's subject names: the turn to play, 0 in the join phase."""
    return 0 if replay.state is None else replay.state.turn


def view_messages(record: Record, replay: Replay, referee_address: str, *,
                  players: tuple[str, ...] | None = None, original: object = None,
                  sender: str | None = None, pictures: bool = True) -> list:
    """The messages that tell where a game stands: for each player with an address (or each of
    ``players``) their own view, and for the referee the public view (unless ``players`` is
    given). Each starts with the last move (or the deal) as told to its reader. ``original`` is
    the message of the move just accepted (from ``sender``): its author's view answers it.
    ``pictures``: each message also carries the picture of its view (an HTML alternative with an
    inline SVG, :func:`rebis_pbm.transports.mail.message.view_message`).
    """
    from rebis_pbm.present import views
    from rebis_pbm.transports.mail.message import view_message
    joined = record.joins[-1].player if record.joins else None  # the last join (a fair deal)
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
    for viewer in readers:
        view, text_view, lang = _reader_views(record, replay, viewer)
        _ = gettext_for(lang)
        if record.joining():  # a join that did not deal yet, or none yet (news: none)
            news = None if joined is None else (
                _("You joined the deal.") if viewer == joined else
                _("{player} joined the deal.").format(player=joined))
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
            lang=lang, picture=view if pictures else None))
    return out


# --- mail in ---------------------------------------------------------------------------------

def read_capped(stream: BinaryIO) -> bytes:
    """A message's bytes, at most one byte over the size cap (the rest is read and dropped, so
    that a mail system piping it in sees it delivered)."""
    from rebis_pbm.transports.mail.message import MAIL_MAX_BYTES
    data = stream.read(MAIL_MAX_BYTES + 1)
    if len(data) > MAIL_MAX_BYTES:
        while stream.read(1 << 20):
            pass
    return data


class Handled(NamedTuple):
    """What was done with one message: ``line`` tells it; ``notice`` says it is for the
    referee's attention (standard error) rather than the usual log."""

    line: str
    notice: bool = False
    applied: bool = False   # a move was applied (and its messages queued)


def _sender_to_answer(msg: EmailMessage, label: str) -> str | Handled:
    """The address to answer ``msg`` (a parsed message) at, or what was done with a message
    nobody is to be answered for: an automatic message (a bounce, an auto-reply, a list), or
    one without a usable sender."""
    from rebis_pbm.transports.mail.message import MailError, is_automatic, sender_address
    if is_automatic(msg):
        return Handled(f"{label}: ignored: an automatic message (a bounce, an auto-reply or a "
                       f"list)")
    try:
        return sender_address(msg)
    except MailError as exc:
        return Handled(f"{label}: ignored: {exc}, so there is no one to answer")


def handle_message(game: str | os.PathLike[str], data: bytes, label: str, referee_address: str,
                   queue_dir: Path, views_dir: str | os.PathLike[str] | None, *,
                   pictures: bool = True, parsed: EmailMessage | None = None) -> Handled:
    """Handle one message: apply the move it carries and queue the answers. ``parsed``: ``data``
    already parsed (``mail.parse_message`` of at most its first ``MAIL_MAX_BYTES``, headers
    only beyond), as the routing of a folder of games does.

    A registered player's mistake is answered and counts as handled. A message from an address
    no player registered is not answered at all (it would tell a stranger, or a spammer, that
    the game exists and where it stands): it counts as handled, with a notice. Raises only for
    the referee's side (record, seed, lock, disk): then nothing was applied and nothing queued.
    """
    from rebis_pbm.transports.mail.message import (
        MAIL_MAX_BYTES,
        MailError,
        extract_move,
        parse_message,
        queue,
        reply_message,
    )
    too_big = len(data) > MAIL_MAX_BYTES
    msg = parsed if parsed is not None else parse_message(data[:MAIL_MAX_BYTES],
                                                          headers_only=too_big)
    sender = _sender_to_answer(msg, label)
    if isinstance(sender, Handled):
        return sender
    try:  # read once: submit_move finds the same bytes already read (referee.open_game)
        record = referee.open_game(game).record
    except (InputError, CorruptRecord):  # SeedError too: the stranger's check needs no seed
        record = referee.read_record(game)
    if record.player_at(sender) is None:
        return Handled(f"{label}: ignored, not answered: {sender} is not the address of any "
                       f"player of game {record.game} (a player writing from another address "
                       f"must use the registered one)", True)
    stamp = _clock_for(record)
    try:
        if too_big:
            raise Refused(None, ExitCode.INPUT, phrase=Phrase(N_(
                "the message is larger than {size} MiB; send the move file alone"),
                {"size": MAIL_MAX_BYTES >> 20}))
        try:
            move_file = extract_move(msg)
        except MailError as exc:
            raise Refused(str(exc), ExitCode.INPUT, phrase=exc.phrase) from None
        done = referee.submit_move(game, move_file.data, move_file.source, author=sender,
                                   views_dir=views_dir, signature=move_file.signature,
                                   now=stamp)
    except Refused as exc:
        record, replay, _ = referee.open_game(game)
        lang = record.lang(record.player_at(sender))  # the sender's language
        tr = gettext_for(lang)
        queue(queue_dir, [reply_message(
            game=record.game, turn=_turn(replay), original=msg, sender=referee_address,
            to=sender, headline=tr(N_("your move was not applied")),
            reason=one_line(refusal(exc, lang)),
            status=tr(N_("Nothing in the game changed.")) + " " + _status(record, replay, lang),
            lang=lang)])
        return Handled(f"{label} from {sender}: refused ({one_line(str(exc))}); reply queued")
    move = done.move
    joining = isinstance(move, referee.JoinMove)
    what = f"{move.player}'s join" if joining else f"turn {move.turn}"
    if done.duplicate:
        lang = done.record.lang(done.record.player_at(sender))
        headline = (N_("you have joined already") if joining else
                    N_("turn {turn} was already applied"))
        queue(queue_dir, [reply_message(
            game=done.record.game, turn=_turn(done.replay), original=msg,
            sender=referee_address, to=sender,
            headline=gettext_for(lang)(headline).format(turn=move.turn),
            reason=referee.already_applied(done.record, move, lang=lang),
            status=_status(done.record, done.replay, lang), lang=lang)])
        return Handled(f"{label} from {sender}: {what} was already applied; reply queued")
    messages = view_messages(done.record, done.replay, referee_address, original=msg,
                             sender=sender, players=_told_of_join(done.record),
                             pictures=pictures)
    if joining:
        waiting = done.record.waiting_for()
        what += (f" applied; the deal waits for {', '.join(waiting)}" if waiting else
                 " applied: every player has joined, the cards are dealt")
    else:
        what += f" applied ({move.player})"
        if stamp is not None:
            what += (f", recorded at {stamp}: the record already holds that time, later than "
                     f"the clock, and times in a record only go forward")
    try:
        _queue_then_note(queue_dir, messages, done.record)
    except OSError as exc:
        from rebis_pbm.files.atomic import os_error_message
        return Handled(f"{label} from {sender}: {what}, but its messages could not be queued "
                       f"({os_error_message(exc)}); the next mail in queues them", True, True)
    return Handled(f"{label} from {sender}: {what}; {counted(len(messages), 'message')} queued",
                   applied=True)


def _clock_for(record: Record) -> str | None:
    """The time a move by mail is stamped with: the clock (None), unless the record already
    holds a later time (the referee ran ``tick --now`` or ``apply --now`` ahead of the clock):
    then that time, so that the move is applied and times in the record still only go forward
    (a move is never stamped earlier than what the record already holds)."""
    from rebis_pbm.record.deadlines import latest_time, now_text, parse_time
    latest = latest_time(record)
    if latest is None or parse_time(now_text()) >= parse_time(latest):
        return None
    return latest


def mail_in(game: str | os.PathLike[str], source: str | BinaryIO, referee_address: str,
            queue_dir: Path, views_dir: str | os.PathLike[str] | None = None, *,
            pictures: bool = True) -> Iterator[Handled]:
    """Handle the messages of ``source``: a stream (standard input), a message file, or a
    Maildir folder (every message not yet handled: all of ``new/``, and those in ``cur/``
    without the Seen flag, oldest first; each gets the Seen flag in ``cur/`` once handled, so
    that a re-run never handles it twice). Yields what was done with each. ``pictures``: the
    views' messages carry their picture (:func:`view_messages`).

    Before the messages, a move in the record whose messages were never queued (an earlier run
    killed, or a queue that could not be written) has its messages queued. A Maildir is read
    under a lock (``.NAME.lock`` beside it), so that two runs at once (cron) never handle, and
    answer, the same message twice.

    Raises:
        Failed: ``source`` does not exist, or is a folder but not a Maildir (exit 2).
        Busy: another run held the Maildir's (or the record's) lock for too long (exit 75).
        anything :func:`handle_message` raises for the referee's side: that message and the
            later ones stay where they are (a notice saying so is yielded first). An internal
            error (a bug) leaves its message alone where it is: the later ones are handled,
            then it is raised (exit 4).
    """
    def recover() -> Iterator[Handled]:
        count = _recover(game, referee_address, queue_dir, pictures)
        if count:
            yield Handled(f"rebis-pbm: the last move's messages had not been queued (an "
                          f"earlier run was stopped); {counted(count, 'message')} queued now", True)

    def handle(data: bytes, label: str) -> Handled:
        return handle_message(game, data, label, referee_address, queue_dir, views_dir,
                              pictures=pictures)

    yield from _each_message(source, recover, handle)


def _recover(game: str | os.PathLike[str], referee_address: str, queue_dir: Path,
             pictures: bool = True) -> int:
    """:func:`queue_missing_views` under the record's lock; 0 when the record is busy (the next
    run checks again; a message waiting says busy in its own words)."""
    from rebis_pbm.errors import Busy

    try:
        with locked(game):
            return queue_missing_views(game, referee_address, queue_dir, pictures=pictures)
    except Busy:
        return 0


def _each_message(source: str | BinaryIO, recover, handle) -> Iterator[Handled]:
    """The reading loop of ``mail in`` (see :func:`mail_in`): ``recover()`` first, then
    ``handle(data, label)`` for each message of ``source``, a Maildir under its lock."""
    from rebis_pbm.transports.mail.message import maildir_unseen, mark_seen
    if not isinstance(source, str):
        yield from recover()
        yield handle(read_capped(source), "<stdin>")
        return
    path = Path(source)
    if not path.exists():
        raise Failed(f"{path} does not exist: give the Maildir your mail system delivers the "
                     f"players' messages to (a folder with new/, cur/ and tmp/ inside), one "
                     f"message file, or - for standard input (docs/mail.md)")
    if not path.is_dir():
        yield from recover()
        with open_regular(path) as f:
            data = read_capped(f)
        yield handle(data, str(path))
        return
    with locked(path):
        try:
            pending = maildir_unseen(path)
        except ValueError as exc:
            raise Failed(str(exc)) from None
        yield from recover()
        bug: Exception | None = None
        for message in pending:
            try:
                with open_regular(message) as f:
                    data = read_capped(f)
            except FileNotFoundError:  # moved meanwhile by a mail client: no longer ours
                continue
            try:
                handled = handle(data, message.name)
            except (RebisError, OSError):  # the referee's side: the later messages wait too
                yield Handled(f"rebis-pbm: {message.name} was not handled; it stays in "
                              f"{message.parent}", True)
                raise
            except Exception as exc:  # an internal error: this message alone
                # stays (a later run tries it again); the later ones are handled, so that one
                # message never jams the Maildir; the error is raised once they are.
                bug = bug or exc
                yield Handled(f"rebis-pbm: {message.name} was not handled (internal error: "
                              f"{type(exc).__name__}: {one_line(str(exc))}); it stays in "
                              f"{message.parent} for the next run, and the later messages "
                              f"are handled", True)
                continue
            except BaseException:
                yield Handled(f"rebis-pbm: {message.name} was not handled; it stays in "
                              f"{message.parent}", True)
                raise
            seen = mark_seen(message)
            if handled.notice and not handled.applied:
                handled = Handled(f"{handled.line}; the message is kept in {seen.parent}/ as "
                                  f"{seen.name}", True)
            yield handled
        if not pending:
            yield Handled(f"No new message in {path}.")
        if bug is not None:
            raise bug


# --- mail in for a folder of games -------------------------------------------------------------

class League(NamedTuple):
    """The games of a folder, read once: ``paths`` by game id (in the order of
    :func:`rebis_pbm.app.record_paths`) and each game's ``records``."""

    paths: dict[str, str]
    records: dict[str, Record]

    def games_of(self, address: str) -> list[str]:
        """The ids of the games in which ``address`` is a player's registered address."""
        return [game for game, record in self.records.items()
                if record.player_at(address) is not None]


def read_league(folder: str | os.PathLike[str]) -> League:
    """Every game record in ``folder`` (and its subfolders), read once: with its seed when it is
    at hand (:func:`rebis_pbm.app.open_game`, whose fast read needs no schema validation),
    else without it (:func:`rebis_pbm.app.read_record`, which validates against the record
    schema: about three times the cost of a 30-move game's replay).

    Raises:
        InputError: no record in the folder, or one that cannot be read (exit 2).
        UsageError: two records of the same game id (which one a message is for is unclear).
    """
    paths: dict[str, str] = {}
    records: dict[str, Record] = {}
    for path in referee.record_paths([folder]):
        try:
            record = referee.open_game(path).record
        except (RebisError, OSError, ValueError):  # no seed, or damaged: read as before
            record = referee.read_record(path)
        if record.game in paths:
            raise UsageError(f"{paths[record.game]} and {path} are both game {record.game}: "
                             f"a message could not tell which one it is for; keep one game per "
                             f"id in the folder", "GAME")
        paths[record.game], records[record.game] = path, record
    return League(paths, records)


SUBJECT_GAME = re.compile(r"\[Rebis ([^\]\s]+)\]")  # the game id in our messages' subjects


def game_named(msg) -> list[str]:
    """The game ids a message names, most trusted first: the ``game`` field of the move in it
    (an attachment or the text, docs/mail.md), then the ``[Rebis GAME]`` of its subject (which
    a reply to a view keeps)."""
    from rebis_pbm.formats.yaml_reader import load_yaml
    from rebis_pbm.transports.mail.message import MailError, extract_move
    named = []
    try:  # the strict reader of every move: the message may come from anyone
        move = extract_move(msg)
        doc = load_yaml(move.data, source=move.source, kind="move").data
    except (MailError, InputError):
        doc = None
    if isinstance(doc, dict) and isinstance(doc.get("game"), (str, int)):
        named.append(str(doc["game"]))
    found = SUBJECT_GAME.search(str(msg.get("Subject", "")))
    if found:
        named.append(found.group(1))
    return named


def mail_in_games(folder: str | os.PathLike[str], source: str | BinaryIO, referee_address: str,
                  views_dir: None = None, *, pictures: bool = True) -> Iterator[Handled]:
    """``mail in`` for a folder of games (one mailbox for a whole league): each message goes to
    its game, named by the ``game`` of the move in it or else by ``[Rebis GAME]`` in its subject
    (the first of the two that is a game of the folder), and is handled there exactly as
    :func:`mail_in` would (that game's queue beside its record, its views). A message from an
    address registered in one of the games that names none of them gets one answer, saying so
    and naming the sender's games, queued in the first of them; a stranger's message gets none.
    Every game is read once for the routing; a game whose last move's messages were never
    queued (its queue's note behind its record as read) has them queued first, under its lock.

    Raises:
        what :func:`read_league` and :func:`mail_in` raise.
    """
    with referee.games_kept(referee.KEPT_MAX):  # each game of the folder read once
        yield from _mail_in_league(folder, source, referee_address, views_dir, pictures)


def _mail_in_league(folder: str | os.PathLike[str], source: str | BinaryIO,
                    referee_address: str, views_dir: None, pictures: bool) -> Iterator[Handled]:
    """:func:`mail_in_games`, with the games of the folder kept once read."""
    from rebis_pbm.transports.mail.message import no_game_message, parse_message, queue
    league = read_league(folder)

    def recover() -> Iterator[Handled]:
        for game, path in league.paths.items():
            record = league.records[game]
            if not record.addresses:  # a game played by files: no mail, no queue
                continue
            queue_dir = default_queue(path)
            noted = queued_progress(queue_dir)
            if noted is not None and noted >= _progress(record):
                # Its queue was up to date with the record as the folder was read: only a game
                # behind its queue is locked and read again (a league's run touches every game;
                # a move applied since by another run queues its own messages, or the next run
                # finds it behind).
                continue
            count = _recover(path, referee_address, queue_dir, pictures)
            if count:
                yield Handled(f"rebis-pbm: game {game}: the last move's messages had not been "
                              f"queued (an earlier run was stopped); "
                              f"{counted(count, 'message')} queued now", True)

    def handle(data: bytes, label: str) -> Handled:
        from rebis_pbm.transports.mail.message import MAIL_MAX_BYTES
        msg = parse_message(data[:MAIL_MAX_BYTES], headers_only=len(data) > MAIL_MAX_BYTES)
        known = [g for g in game_named(msg) if g in league.paths]
        if known:
            path = league.paths[known[0]]
            return handle_message(path, data, label, referee_address, default_queue(path),
                                  views_dir, pictures=pictures, parsed=msg)
        sender = _sender_to_answer(msg, label)
        if isinstance(sender, Handled):
            return sender
        games = league.games_of(sender)
        if not games:
            return Handled(f"{label}: ignored, not answered: {sender} is not the address of any "
                           f"player of the games in {folder}", True)
        path = league.paths[games[0]]
        first = league.records[games[0]]
        queue(default_queue(path), [no_game_message(
            original=msg, sender=referee_address, to=sender, games=games,
            lang=first.lang(first.player_at(sender)))])
        return Handled(f"{label} from {sender}: names no game in {folder}; reply queued (in "
                       f"game {games[0]}'s queue)")

    yield from _each_message(source, recover, handle)


# --- mail views ------------------------------------------------------------------------------

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
    from rebis_pbm.transports.mail.message import queue as add_to_queue
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


# --- mail out --------------------------------------------------------------------------------

def _smtp_reason(exc: BaseException) -> str:
    import smtplib

    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return "it refused " + ", ".join(exc.recipients)
    if isinstance(exc, smtplib.SMTPResponseException):
        text = exc.smtp_error.decode("utf-8", "replace") if isinstance(exc.smtp_error, bytes) \
            else str(exc.smtp_error)
        return f"it answered {exc.smtp_code} {text}"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


class Sent(NamedTuple):
    """What :func:`send_queue` did: ``sent`` messages, ``kept`` (refused for now: 4xx, left in
    the queue for the next run), ``set_aside`` (refused for good: 5xx, moved to the queue's
    ``failed/``), and a line per refusal in ``notes``."""

    sent: int
    kept: int = 0
    set_aside: int = 0
    notes: tuple[str, ...] = ()


def send_queue(queue_dir: Path, *, outbox: Path | None = None, server: object = None,
               sendmail: str | None = None) -> Sent | None:
    """Send the queued messages through ``server`` (a :class:`~rebis_pbm.transports.mail.message.
    SmtpServer`), hand them to the local mail system (``sendmail``, the path of its sendmail
    program), or write each as a ``.eml`` file in ``outbox`` (mode 0600: a message holds a
    player's private view). A message leaves the queue once sent (it is kept in the queue's
    ``cur/``). A message the server refuses for now (a 4xx reply) stays queued for the next
    run; one it refuses for good (5xx: an address that does not exist) is set aside in the
    queue's ``failed/``, and a report to the referee (the message's sender) is queued, so one
    bad address blocks nobody. Returns what was done, or None when the queue does not exist yet.

    Raises:
        Failed: the server could not be reached or refused the session (or sendmail failed):
            the messages not yet sent stay queued (exit 2).
    """
    from rebis_pbm.transports.mail.message import (
        SmtpServer,
        maildir_new,
        mark_seen,
        send_sendmail,
        send_smtp,
    )
    if not queue_dir.exists():
        return None
    with locked(queue_dir):  # two runs at once must not send a message twice
        try:
            pending = maildir_new(queue_dir)
        except ValueError as exc:
            raise Failed(str(exc)) from None
        done: list[Path] = []
        kept: list[str] = []
        aside: list[str] = []

        def sent(path: Path) -> None:
            mark_seen(path)
            done.append(path)

        def refused(path: Path, refusal) -> None:
            if refusal.permanent:
                aside.append(_set_aside(queue_dir, path, refusal))
            else:
                kept.append(f"{_recipients(path)}: refused for now ({refusal}); it stays "
                            f"queued for the next run")

        if outbox is not None:
            outbox.mkdir(parents=True, exist_ok=True, mode=0o700)
            for path in pending:
                write_atomic(outbox / f"{path.name}.eml", path.read_bytes(), mode=0o600)
                sent(path)
            return Sent(len(done))
        where = sendmail
        try:
            if sendmail is not None:
                send_sendmail(sendmail, pending, sent)
            else:
                assert isinstance(server, SmtpServer)
                where = f"{server.host}:{server.port}"
                send_smtp(server, pending, sent, refused)
        except OSError as exc:  # smtplib's and ssl's errors are OSErrors too
            left = len(pending) - len(done) - len(aside)
            raise Failed(f"could not send through {where}: {_smtp_reason(exc)}; "
                         f"{counted(len(done), 'message')} sent, {left} still queued (run mail out "
                         f"again)") from None
    return Sent(len(done), len(kept), len(aside), tuple(kept + aside))


def _recipients(path: Path) -> str:
    from rebis_pbm.transports.mail.message import parse_message
    msg = parse_message(path.read_bytes(), headers_only=True)
    return str(msg.get("To", "?"))


def _set_aside(queue_dir: Path, path: Path, refusal) -> str:
    """Move a message refused for good to ``failed/`` and queue a report to its sender (the
    referee); returns the line that tells it."""
    from email.message import EmailMessage

    from rebis_pbm.transports.mail.message import parse_message, queue
    failed = queue_dir / "failed"
    failed.mkdir(exist_ok=True, mode=0o700)
    os.rename(path, failed / path.name)
    msg = parse_message((failed / path.name).read_bytes(), headers_only=True)
    to, sender = str(msg.get("To", "?")), str(msg.get("From", ""))
    line = (f"{to}: refused for good ({refusal}); the message is set aside in {failed}/ as "
            f"{path.name}")
    senders = msg["From"].addresses if msg["From"] is not None else ()
    if senders and senders[0].addr_spec not in to:  # never a report about a report
        report = EmailMessage()
        report["From"] = sender
        report["To"] = sender
        report["Subject"] = f"rebis-pbm: a message to {to} could not be delivered"
        report["Auto-Submitted"] = "auto-generated"
        report.set_content(
            f"The mail server refused for good the message \"{msg.get('Subject', '')}\" to "
            f"{to}:\n\n    {refusal}\n\nIt is kept in {failed}/{path.name}. Check the "
            f"player's address; `rebis-pbm mail views GAME --player NAME` sends their view "
            f"again.\n")
        queue(queue_dir, [report])
        line += "; a report to the referee is queued"
    return line


def send_queues(folder: str | os.PathLike[str], **how) -> Sent:
    """:func:`send_queue` for every game of ``folder`` (``mail out`` for a league): each game's
    queue beside its record, in the order of :func:`rebis_pbm.app.record_paths`; returns the
    sums. ``how`` is :func:`send_queue`'s ``outbox``, ``server`` or ``sendmail``.

    Raises:
        InputError: no record in the folder (exit 2).
        Failed: as :func:`send_queue`; the queues after it are not sent (exit 2).
    """
    total = Sent(0)
    for path in referee.record_paths([folder]):
        done = send_queue(default_queue(path), **how)
        if done is not None:
            # sent, kept, set_aside: the first three fields of two Sent
            counts = (a + b for a, b in zip(total[:3], done[:3], strict=True))
            total = Sent(*counts, total.notes + done.notes)
    return total

