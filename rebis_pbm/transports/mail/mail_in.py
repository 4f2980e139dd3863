"""``mail in``: the moves that arrive by mail entered through :func:`rebis_pbm.app.submit_move`
(the one way a move enters a game, with the sender as the move's author), for one game or a
shard (a folder of games one mailbox serves); every outcome is answered by messages queued
(:mod:`rebis_pbm.transports.mail.outbox`)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
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
from rebis_pbm.files.atomic import open_regular
from rebis_pbm.files.lock import locked
from rebis_pbm.files.names import default_queue
from rebis_pbm.present.i18n import N_, Phrase, gettext_for, refusal
from rebis_pbm.present.views import counted
from rebis_pbm.record import Record, Replay
from rebis_pbm.transports.mail import policy
from rebis_pbm.transports.mail.compose import command_message, no_game_message, reply_message
from rebis_pbm.transports.mail.inbound import FoundCommand, extract_move, find_command
from rebis_pbm.transports.mail.maildir import maildir_unseen, mark_seen, queue
from rebis_pbm.transports.mail.outbox import (
    _progress,
    _queue_then_note,
    _told_of_join,
    queue_missing_views,
    queue_stand_in_views,
    queued_progress,
    view_messages,
)
from rebis_pbm.transports.mail.policy import MailError, is_automatic, parse_message, sender_address


def _status(record: Record, replay: Replay, lang: str | None = None,
            reader: str | None = None) -> str:
    """What anyone may know of where the game stands (for a refused sender), in ``lang``;
    to ``reader`` (the player it is sent to) in the second person when it is their move."""
    from rebis_pbm.app.commands import standing_line
    return standing_line(record, replay, lang, reader)


def _turn(replay: Replay) -> int:
    """The turn a reply's subject names: the turn to play, 0 in the join phase."""
    return 0 if replay.state is None else replay.state.turn


def read_capped(stream: BinaryIO) -> bytes:
    """A message's bytes, at most one byte over the size cap (the rest is read and dropped, so
    that a mail system piping it in sees it delivered)."""
    data = stream.read(policy.MAIL_MAX_BYTES + 1)
    if len(data) > policy.MAIL_MAX_BYTES:
        while stream.read(1 << 20):
            pass
    return data


class Handled(NamedTuple):
    """What was done with one message: ``line`` tells it; ``notice`` says it is for the
    referee's attention (standard error) rather than the usual log."""

    line: str
    notice: bool = False
    applied: bool = False   # a move was applied (and its messages queued)


def _read(data: bytes, label: str) -> EmailMessage | Handled:
    """A message's bytes parsed (at most its first ``policy.MAIL_MAX_BYTES``, headers only
    beyond), or what was done with a message that cannot be read at all (parts nested too
    deep): set aside unanswered, like mail without a sender, so that one stranger's message
    never jams the Maildir."""
    cap = policy.MAIL_MAX_BYTES
    try:
        return parse_message(data[:cap], headers_only=len(data) > cap)
    except MailError as exc:
        return Handled(f"{label}: set aside, not answered: {exc}", True)


def _sender_to_answer(msg: EmailMessage, label: str) -> str | Handled:
    """The address to answer ``msg`` (a parsed message) at, or what was done with a message
    nobody is to be answered for: an automatic message (a bounce, an auto-reply, a list), or
    one without a usable sender."""
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
    already parsed (:func:`_read`), as the routing of a shard does.

    A registered player's mistake is answered and counts as handled. A message from an address
    no player registered is not answered at all (it would tell a stranger, or a spammer, that
    the game exists and where it stands): it counts as handled, with a notice. Raises only for
    the referee's side (record, seed, lock, disk, and in a game with a referee key the key that
    signs a refusal): then nothing was applied and nothing queued.
    """
    too_big = len(data) > policy.MAIL_MAX_BYTES
    msg = parsed if parsed is not None else _read(data, label)
    if isinstance(msg, Handled):
        return msg
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
    found = None if too_big else find_command(msg)
    if found is not None:
        return _command(game, record, msg, found, sender, label, referee_address, queue_dir,
                        stamp, pictures)
    judged = data  # the refused file, whose digest a signed refusal names: the message's
    try:
        if too_big:
            raise Refused(None, ExitCode.INPUT, phrase=Phrase(N_(
                "the message is larger than {size} MiB; send the move file alone"),
                {"size": policy.MAIL_MAX_BYTES >> 20}))
        try:
            move_file = extract_move(msg)
        except MailError as exc:
            raise Refused(str(exc), ExitCode.INPUT, phrase=exc.phrase) from None
        judged = move_file.data  # or the move file's, once it is found
        done = referee.submit_move(game, move_file.data, move_file.source, author=sender,
                                   views_dir=views_dir, signature=move_file.signature,
                                   now=stamp)
    except Refused as exc:
        record, replay, _ = referee.open_game(game)
        mover = record.player_at(sender)
        lang = record.lang(mover)  # the sender's language
        tr = gettext_for(lang)
        reason = one_line(refusal(exc, lang, mover))
        # rebis-pbm/4 with a referee key: the refusal carries the referee's signed statement
        statement = referee.signed_refusal(record, judged, mover, exc.exit_code, reason)
        queue(queue_dir, [reply_message(
            game=record.game, turn=_turn(replay), original=msg, sender=referee_address,
            to=sender, headline=tr(N_("your move was not applied")), reason=reason,
            status=tr(N_("Nothing in the game changed.")) + " "
            + _status(record, replay, lang, mover), lang=lang, statement=statement)])
        return Handled(f"{label} from {sender}: refused ({one_line(str(exc))}); reply queued")
    move = done.move
    joining = isinstance(move, referee.JoinMove)
    committing = isinstance(move, referee.JoinMove) and move.commitment is not None  # round 1
    what = (f"{move.player}'s {'commitment' if committing else 'join'}" if joining
            else f"turn {move.turn}")
    if done.duplicate:
        lang = done.record.lang(done.record.player_at(sender))
        headline = (N_("you have joined already") if joining else
                    N_("turn {turn} was already applied"))
        queue(queue_dir, [reply_message(
            game=done.record.game, turn=_turn(done.replay), original=msg,
            sender=referee_address, to=sender,
            headline=gettext_for(lang)(headline).format(turn=move.turn),
            reason=referee.already_applied(done.record, move, lang=lang),
            status=_status(done.record, done.replay, lang, done.record.player_at(sender)),
            lang=lang)])
        return Handled(f"{label} from {sender}: {what} was already applied; reply queued")
    messages = view_messages(done.record, done.replay, referee_address, original=msg,
                             sender=sender, players=_told_of_join(done.record),
                             pictures=pictures)
    if committing and done.record.join_round() == 2:
        what += (" applied: every commitment is in; round 2 of 2, the deal waits for the "
                 f"joins of {', '.join(done.record.waiting_for())}")
    elif joining:
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
    what += f"; {counted(len(messages), 'message')} queued"
    state = done.replay.state
    if state is not None and not state.finished and state.player_to_move is not None:
        from rebis_pbm.record.deadlines import resigned
        if resigned(done.record, state.player_to_move):  # read again only then
            what += _play_resigned(game, referee_address, queue_dir, views_dir, stamp, pictures)
    from rebis_pbm.transports import announce
    note = announce(game)  # the chat webhooks, if the game has any (docs/league.md)
    return Handled(f"{label} from {sender}: {what}" + (f"; note: {note}" if note else ""),
                   applied=True)


def _play_resigned(game: str | os.PathLike[str], referee_address: str, queue_dir: Path,
                   views_dir: str | os.PathLike[str] | None, stamp: str | None,
                   pictures: bool) -> str:
    """After a move: the bot moves for the players to move who resigned (docs/mail.md,
    "Commands"), and every player's view after it is queued; what to add to ``mail in``'s
    line ("" when no one resigned is to move)."""
    from rebis_pbm.app.commands import play_resigned
    moved = play_resigned(game, now=stamp, views_dir=views_dir)
    if not moved:
        return ""
    count = queue_stand_in_views(game, referee_address, queue_dir, pictures=pictures)
    turns = ", ".join(f"turn {turn} ({player})" for turn, player in moved)
    return (f"; the bot moved for a player who resigned: {turns}; "
            f"{counted(count, 'message')} queued")


def _command(game: str | os.PathLike[str], record: Record, msg: EmailMessage,
             found: FoundCommand, sender: str, label: str, referee_address: str,
             queue_dir: Path, stamp: str | None, pictures: bool) -> Handled:
    """A registered player's command (docs/mail.md, "Commands"): carried out by
    :func:`rebis_pbm.app.commands.carry_out` once its signature checks (a player with a key),
    and answered to its sender alone, in their language; a refused one is answered with the
    reason (in a game with a referee key, with the referee's signed statement over the command
    line, as a refused move's), and nothing changes. ``resign`` alone changes the record: the
    bot's moves it makes at once are told to every player, as ``tick``'s are."""
    from rebis_pbm.app import commands
    player = record.player_at(sender)
    assert player is not None  # the caller answers registered addresses only
    lang = record.lang(player)
    tr = gettext_for(lang)
    name = found.command.name
    try:
        commands.command_signature(record, player, found.command, found.signature)
        answer = commands.carry_out(game, player, found.command, lang, now=stamp)
    except Refused as exc:
        record, replay, _ = referee.open_game(game)
        reason = one_line(refusal(exc, lang, player, command=True))
        # a game with a referee key: signed as a refused move's is, over the command's line
        statement = referee.signed_refusal(record, (found.command.line + "\n").encode(),
                                           player, exc.exit_code, reason)
        queue(queue_dir, [reply_message(
            game=record.game, turn=_turn(replay), original=msg, sender=referee_address,
            to=sender, headline=tr(N_("your command was not carried out")),
            reason=reason, statement=statement,
            status=tr(N_("Nothing in the game changed.")) + " "
            + _status(record, replay, lang, player),
            lang=lang, footer=tr(N_("Send help (as the subject, or the first line of the text) "
                                    "for the list of commands.")))])
        return Handled(f"{label} from {sender}: command {name} refused "
                       f"({one_line(str(exc))}); reply queued")
    record, replay, _ = referee.open_game(game)
    if answer.view:  # the messages mail views --player NAME queues
        messages = view_messages(record, replay, referee_address, players=(player,),
                                 pictures=pictures)
    else:
        status = _status(record, replay, lang, player)
        messages = [command_message(game=record.game, original=msg, sender=referee_address,
                                    to=sender, title=answer.title,
                                    text=f"{answer.text}\n\n{status}", lang=lang)]
    queue(queue_dir, messages)
    line = f"{label} from {sender}: command {name} ({player}); answer queued"
    if name == "resign":
        line = f"{label} from {sender}: {player} resigned; the bot plays their seat; answer queued"
    if answer.moved:
        count = queue_stand_in_views(game, referee_address, queue_dir, pictures=pictures)
        line += (f"; the bot moved for {player} ({counted(answer.moved, 'move')}); "
                 f"{counted(count, 'message')} queued")
    if name == "resign":
        from rebis_pbm.transports import announce
        note = announce(game)
        line += f"; note: {note}" if note else ""
    return Handled(line, applied=name == "resign")


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


def _each_message(source: str | BinaryIO, recover: Callable[[], Iterator[Handled]],
                  handle: Callable[[bytes, str], Handled]) -> Iterator[Handled]:
    """The reading loop of ``mail in`` (see :func:`mail_in`): ``recover()`` first, then
    ``handle(data, label)`` for each message of ``source``, a Maildir under its lock."""
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

class Shard(NamedTuple):
    """The games of a folder, read once: ``paths`` by game id (in the order of
    :func:`rebis_pbm.app.record_paths`) and each game's ``records``."""

    paths: dict[str, str]
    records: dict[str, Record]

    def games_of(self, address: str) -> list[str]:
        """The ids of the games in which ``address`` is a player's registered address."""
        return [game for game, record in self.records.items()
                if record.player_at(address) is not None]


def read_shard(folder: str | os.PathLike[str]) -> Shard:
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
    return Shard(paths, records)


SUBJECT_GAME = re.compile(r"\[Rebis ([^\]\s]+)\]")  # the game id in our messages' subjects


def game_named(msg: EmailMessage) -> list[str]:
    """The game ids a message names, most trusted first: the ``game`` field of the move in it
    (an attachment or the text, docs/mail.md) or the game its command names, then the
    ``[Rebis GAME]`` of its subject (which a reply to a view keeps)."""
    from rebis_pbm.formats.yaml_reader import load_yaml
    named = []
    try:  # the strict reader of every move: the message may come from anyone
        move = extract_move(msg)
        doc = load_yaml(move.data, source=move.source, kind="move").data
    except (MailError, InputError):
        doc = None
    if isinstance(doc, dict) and isinstance(doc.get("game"), (str, int)):
        named.append(str(doc["game"]))
    command = find_command(msg) if doc is None else None
    if command is not None and command.command.game is not None:  # "view GAME" (docs/mail.md)
        named.append(command.command.game)
    found = SUBJECT_GAME.search(str(msg.get("Subject", "")))
    if found:
        named.append(found.group(1))
    return named


def mail_in_games(folder: str | os.PathLike[str], source: str | BinaryIO, referee_address: str,
                  views_dir: None = None, *, pictures: bool = True) -> Iterator[Handled]:
    """``mail in`` for a folder of games (a shard: one mailbox for its games): each message goes to
    its game, named by the ``game`` of the move in it or else by ``[Rebis GAME]`` in its subject
    (the first of the two that is a game of the folder), and is handled there exactly as
    :func:`mail_in` would (that game's queue beside its record, its views). A message from an
    address registered in one of the games that names none of them gets one answer, saying so
    and naming the sender's games, queued in the first of them; a stranger's message gets none.
    Every game is read once for the routing; a game whose last move's messages were never
    queued (its queue's note behind its record as read) has them queued first, under its lock.

    Raises:
        what :func:`read_shard` and :func:`mail_in` raise.
    """
    with referee.games_kept(referee.KEPT_MAX):  # each game of the folder read once
        yield from _mail_in_shard(folder, source, referee_address, views_dir, pictures)


def _mail_in_shard(folder: str | os.PathLike[str], source: str | BinaryIO,
                    referee_address: str, views_dir: None, pictures: bool) -> Iterator[Handled]:
    """:func:`mail_in_games`, with the games of the folder kept once read."""
    shard = read_shard(folder)

    def recover() -> Iterator[Handled]:
        for game, path in shard.paths.items():
            record = shard.records[game]
            if not record.addresses:  # a game played by files: no mail, no queue
                continue
            queue_dir = default_queue(path)
            noted = queued_progress(queue_dir)
            if noted is not None and noted >= _progress(record):
                # Its queue was up to date with the record as the folder was read: only a game
                # behind its queue is locked and read again (a shard's run touches every game;
                # a move applied since by another run queues its own messages, or the next run
                # finds it behind).
                continue
            count = _recover(path, referee_address, queue_dir, pictures)
            if count:
                yield Handled(f"rebis-pbm: game {game}: the last move's messages had not been "
                              f"queued (an earlier run was stopped); "
                              f"{counted(count, 'message')} queued now", True)

    def handle(data: bytes, label: str) -> Handled:
        msg = _read(data, label)
        if isinstance(msg, Handled):
            return msg
        known = [g for g in game_named(msg) if g in shard.paths]
        if known:
            path = shard.paths[known[0]]
            return handle_message(path, data, label, referee_address, default_queue(path),
                                  views_dir, pictures=pictures, parsed=msg)
        sender = _sender_to_answer(msg, label)
        if isinstance(sender, Handled):
            return sender
        games = shard.games_of(sender)
        if not games:
            return Handled(f"{label}: ignored, not answered: {sender} is not the address of any "
                           f"player of the games in {folder}", True)
        path = shard.paths[games[0]]
        first = shard.records[games[0]]
        queue(default_queue(path), [no_game_message(
            original=msg, sender=referee_address, to=sender, games=games,
            lang=first.lang(first.player_at(sender)))])
        return Handled(f"{label} from {sender}: names no game in {folder}; reply queued (in "
                       f"game {games[0]}'s queue)")

    yield from _each_message(source, recover, handle)

