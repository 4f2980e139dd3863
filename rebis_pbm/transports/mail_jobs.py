"""Play by e-mail: the referee's mail use cases around :mod:`rebis_pbm.referee` (docs/mail.md).

:func:`mail_in` takes moves out of messages and enters each through
:func:`rebis_pbm.referee.submit_move`, the one way a move enters a game, with the sender as the
move's author; every outcome is answered by messages put in a queue (a Maildir beside the
record). :func:`queue_views` queues the current views (the start of a game, a view sent again);
:func:`send_queue` sends the queue through SMTP or writes it as ``.eml`` files. The messages
themselves are :mod:`rebis_pbm.transports.mail`'s.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, NamedTuple

from .. import referee
from ..errors import CorruptRecord, ExitCode, Failed, InputError, Refused, UsageError, one_line
from ..fileio import locked, open_regular, write_atomic
from ..record import Record, Replay


def default_queue(record_path: str | os.PathLike[str]) -> Path:
    """``game.yaml`` -> ``game.mailq/`` beside it: the Maildir of messages waiting to be sent."""
    record_path = Path(record_path)
    stem = record_path.name[:-5] if record_path.name.endswith(".yaml") else record_path.name
    return record_path.with_name(stem + ".mailq")


def _status(record: Record, replay: Replay) -> str:
    """What anyone may know of where the game stands (for a refused sender)."""
    from ..views import standing

    state = replay.state
    return standing(state.phase, state.turn, state.player_to_move, record.abandoned(state))


def view_messages(record: Record, replay: Replay, referee_address: str, *,
                  players: tuple[str, ...] | None = None, original: object = None,
                  sender: str | None = None) -> list:
    """The messages that tell where a game stands: for each player with an address (or each of
    ``players``) their own view, and for the referee the public view (unless ``players`` is
    given). Each starts with the last move (or the deal) as told to its reader. ``original`` is
    the message of the move just accepted (from ``sender``): its author's view answers it.
    """
    from .. import views
    from .mail import view_message

    if replay.history:
        move, events = replay.history[-1]
        heading, author = f"Turn {move.turn} ({move.player})", move.player
    else:
        events, heading, author = replay.setup_events, "The game begins", None
    readers: list[str | None] = [p for p in record.players if p in record.addresses and
                                 (players is None or p in players)]
    if players is None:
        readers.append(None)
    out = []
    for viewer in readers:
        view = referee.record_view(record, replay, viewer)
        news = f"{heading}: {views.account(events, viewer)}"
        if viewer is None and sender:
            news += f"\n(The move came from {sender}.)"
        out.append(view_message(
            game=record.game, view=view, view_text=views.render(view, "text"),
            view_yaml=views.render(view, "yaml"), news=news, sender=referee_address,
            to=referee_address if viewer is None else record.addresses[viewer],
            original=original if viewer is not None and viewer == author else None))
    return out


# --- mail in ---------------------------------------------------------------------------------

def read_capped(stream: BinaryIO) -> bytes:
    """A message's bytes, at most one byte over the size cap (the rest is read and dropped, so
    that a mail system piping it in sees it delivered)."""
    from .mail import MAIL_MAX_BYTES

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


def handle_message(game: str | os.PathLike[str], data: bytes, label: str, referee_address: str,
                   queue_dir: Path, views_dir: str | os.PathLike[str] | None) -> Handled:
    """Handle one message: apply the move it carries and queue the answers.

    A registered player's mistake is answered and counts as handled. A message from an address
    no player registered is not answered at all (it would tell a stranger, or a spammer, that
    the game exists and where it stands): it counts as handled, with a notice. Raises only for
    the referee's side (record, seed, lock, disk): then nothing was applied and nothing queued.
    """
    from .mail import (MAIL_MAX_BYTES, MailError, extract_move, is_automatic, parse_message,
                       queue, reply_message, sender_address)

    too_big = len(data) > MAIL_MAX_BYTES
    msg = parse_message(data[:MAIL_MAX_BYTES], headers_only=too_big)
    if is_automatic(msg):
        return Handled(f"{label}: ignored: an automatic message (a bounce, an auto-reply or a "
                       f"list)")
    try:
        sender = sender_address(msg)
    except MailError as exc:
        return Handled(f"{label}: ignored: {exc}, so there is no one to answer")
    try:  # read once: submit_move finds the same bytes already read (referee.open_game)
        record = referee.open_game(game).record
    except (InputError, CorruptRecord):  # SeedError too: the stranger's check needs no seed
        record = referee.read_record(game)
    if record.player_at(sender) is None:
        return Handled(f"{label}: ignored, not answered: {sender} is not the address of any "
                       f"player of game {record.game} (a player writing from another address "
                       f"must use the registered one)", True)
    try:
        if too_big:
            raise Refused(f"the message is larger than {MAIL_MAX_BYTES >> 20} MiB; send the move "
                          f"file alone", ExitCode.INPUT)
        try:
            move_file = extract_move(msg)
        except MailError as exc:
            raise Refused(str(exc), ExitCode.INPUT) from None
        done = referee.submit_move(game, move_file.data, move_file.source, author=sender,
                                   views_dir=views_dir)
    except Refused as exc:
        record, replay, _ = referee.open_game(game)
        queue(queue_dir, [reply_message(
            game=record.game, turn=replay.state.turn, original=msg, sender=referee_address,
            to=sender, headline="your move was not applied", reason=one_line(str(exc)),
            status=f"Nothing in the game changed. {_status(record, replay)}")])
        return Handled(f"{label} from {sender}: refused ({one_line(str(exc))}); reply queued")
    move = done.move
    if done.duplicate:
        queue(queue_dir, [reply_message(
            game=done.record.game, turn=done.replay.state.turn, original=msg,
            sender=referee_address, to=sender, headline=f"turn {move.turn} was already applied",
            reason=referee.already_applied(done.record, move),
            status=_status(done.record, done.replay))])
        return Handled(f"{label} from {sender}: turn {move.turn} was already applied; reply "
                       f"queued")
    messages = view_messages(done.record, done.replay, referee_address, original=msg,
                             sender=sender)
    queue(queue_dir, messages)
    return Handled(f"{label} from {sender}: turn {move.turn} applied ({move.player}); "
                   f"{len(messages)} messages queued")


def mail_in(game: str | os.PathLike[str], source: str | BinaryIO, referee_address: str,
            queue_dir: Path, views_dir: str | os.PathLike[str] | None = None
            ) -> Iterator[Handled]:
    """Handle the messages of ``source``: a stream (standard input), a message file, or a
    Maildir folder (every message in its ``new/``, oldest first, each moved to ``cur/`` once
    handled, so that a re-run never handles it twice). Yields what was done with each.

    Raises:
        Failed: ``source`` is a folder but not a Maildir (exit 2).
        anything :func:`handle_message` raises for the referee's side: that message and the
            later ones stay where they are (a notice saying so is yielded first).
    """
    from .mail import maildir_new, mark_seen

    if not isinstance(source, str):
        yield handle_message(game, read_capped(source), "<stdin>", referee_address, queue_dir,
                             views_dir)
        return
    path = Path(source)
    if not path.is_dir():
        with open_regular(path) as f:
            data = read_capped(f)
        yield handle_message(game, data, str(path), referee_address, queue_dir, views_dir)
        return
    try:
        pending = maildir_new(path)
    except ValueError as exc:
        raise Failed(str(exc)) from None
    for message in pending:
        try:
            with open_regular(message) as f:
                handled = handle_message(game, read_capped(f), message.name, referee_address,
                                         queue_dir, views_dir)
        except BaseException:
            yield Handled(f"rebis-pbm: {message.name} was not handled; it stays in "
                          f"{message.parent}", True)
            raise
        seen = mark_seen(message)
        if handled.notice:
            handled = Handled(f"{handled.line}; the message is kept in {seen.parent}/ as "
                              f"{seen.name}", True)
        yield handled
    if not pending:
        yield Handled(f"No new message in {path}.")


# --- mail views ------------------------------------------------------------------------------

def queue_views(game: str | os.PathLike[str], referee_address: str,
                players: tuple[str, ...] = (), queue_dir: Path | None = None) -> int:
    """Queue every player's current view (or only those of ``players``), and the public view
    for the referee; returns how many messages were queued.

    Raises:
        UsageError: a name that is no player's, or a player with no address (``--player``).
        Failed: no player has an address (exit 2).
    """
    from .mail import queue as add_to_queue

    record, replay, _ = referee.open_game(game)
    for name in players:
        if name not in record.addresses:
            why = "no such player" if name not in record.players else "no address registered"
            raise UsageError(f"{name!r}: {why} in game {record.game}", "--player")
    if not record.addresses:
        raise Failed(f"no player of game {record.game} has an e-mail address; register them when "
                     f"creating the game: new ... --player NAME=ADDRESS")
    messages = view_messages(record, replay, referee_address, players=players or None)
    with locked(game):  # the queue keeps the order in which views were made
        add_to_queue(queue_dir or default_queue(game), messages)
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


def send_queue(queue_dir: Path, *, outbox: Path | None = None,
               server: object = None) -> int | None:
    """Send the queued messages through ``server`` (a :class:`~rebis_pbm.transports.mail.
    SmtpServer`), or write each as a ``.eml`` file in ``outbox``. A message leaves the queue
    once sent (it is kept in the queue's ``cur/``). Returns how many were sent, or None when the
    queue does not exist yet.

    Raises:
        Failed: the server could not be reached or refused: the rest stays queued (exit 2).
    """
    from .mail import SmtpServer, maildir_new, mark_seen, send_smtp

    if not queue_dir.exists():
        return None
    with locked(queue_dir):  # two runs at once must not send a message twice
        try:
            pending = maildir_new(queue_dir)
        except ValueError as exc:
            raise Failed(str(exc)) from None
        done: list[Path] = []

        def sent(path: Path) -> None:
            mark_seen(path)
            done.append(path)

        if outbox is not None:
            outbox.mkdir(parents=True, exist_ok=True)
            for path in pending:
                write_atomic(outbox / f"{path.name}.eml", path.read_bytes())
                sent(path)
            return len(done)
        assert isinstance(server, SmtpServer)
        try:
            send_smtp(server, pending, sent)
        except OSError as exc:  # smtplib's and ssl's errors are OSErrors too
            raise Failed(f"could not send through {server.host}:{server.port}: "
                         f"{_smtp_reason(exc)}; {len(done)} messages sent, "
                         f"{len(pending) - len(done)} still queued (run mail out again)") from None
    return len(done)
