"""``rebis-pbm mail``: play by e-mail around ``apply`` (docs/mail.md).

``mail in`` reads moves out of messages and applies them through the same path as ``apply``
(:func:`rebis_pbm.cli.submit_move`, under the record's lock, with the sender as the move's
author); every outcome is answered by messages put in a queue (a Maildir beside the record);
``mail views`` queues the current views (the start of a game, a view sent again); ``mail out``
sends the queue through SMTP or writes it as ``.eml`` files.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from .cli import (EXIT_INPUT, Failure, Refused, already_applied, cli, load_game,
                  read_record, record_view, submit_move)
from .fileio import locked, open_regular, write_atomic
from .record import Record, Replay

PASSWORD_ENV = "REBIS_PBM_SMTP_PASSWORD"
REFEREE_ENV = "REBIS_PBM_REFEREE"


def default_queue(record_path: Path) -> Path:
    """``game.yaml`` -> ``game.mailq/`` beside it: the Maildir of messages waiting to be sent."""
    stem = record_path.name[:-5] if record_path.name.endswith(".yaml") else record_path.name
    return record_path.with_name(stem + ".mailq")


def _queue_option(f):
    return click.option("--queue", type=click.Path(file_okay=False, path_type=Path),
                        help="The Maildir of messages waiting to be sent (default: GAME's name "
                        "with .mailq, beside it).")(f)


def _referee_option(f):
    return click.option("--referee", metavar="ADDRESS", envvar=REFEREE_ENV, required=True,
                        show_envvar=True, callback=_check_referee,
                        help="The referee's address: the From of every message; it also "
                        "receives the public view after each move.")(f)


def _check_referee(ctx, param, value):
    from .mail import check_address

    try:
        return check_address(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


@cli.group()
def mail() -> None:
    """Play by e-mail: apply moves that arrive as messages, send each player their own view.

    \b
    Start:     rebis-pbm new game.yaml --player alice=alice@example.org --player bob=...
               rebis-pbm mail views game.yaml --referee ref@example.org
               rebis-pbm mail out game.yaml --smtp smtp.example.org:587 --starttls --user ref
    Each move: rebis-pbm mail in game.yaml ~/Maildir/.rebis --referee ref@example.org
               rebis-pbm mail out game.yaml --smtp ...
    """


# --- composing the answers -------------------------------------------------------------------

def _status(record: Record, replay: Replay) -> str:
    """What anyone may know of where the game stands (for a refused sender)."""
    from .views import standing

    state = replay.state
    return standing(state.phase, state.turn, state.player_to_move, record.abandoned(state))


def view_messages(record: Record, replay: Replay, referee: str, *, players=None,
                  original=None, sender: str | None = None) -> list:
    """The messages that tell where a game stands: for each player with an address (or each of
    ``players``) their own view, and for the referee the public view (unless ``players`` is
    given). Each starts with the last move (or the deal) as told to its reader. ``original`` is
    the message of the move just accepted (from ``sender``): its author's view answers it.
    """
    from . import views
    from .mail import view_message

    if replay.history:
        move, events = replay.history[-1]
        heading, author = f"Turn {move.turn} ({move.player})", move.player
    else:
        events, heading, author = replay.setup_events, "The game begins", None
    readers = [p for p in record.players if p in record.addresses and
               (players is None or p in players)]
    if players is None:
        readers.append(None)
    out = []
    for viewer in readers:
        view = record_view(record, replay, viewer)
        news = f"{heading}: {views.account(events, viewer)}"
        if viewer is None and sender:
            news += f"\n(The move came from {sender}.)"
        out.append(view_message(
            game=record.game, view=view, view_text=views.render(view, "text"),
            view_yaml=views.render(view, "yaml"), news=news, sender=referee,
            to=referee if viewer is None else record.addresses[viewer],
            original=original if viewer is not None and viewer == author else None))
    return out


# --- mail in ---------------------------------------------------------------------------------

def _read_capped(stream) -> bytes:
    from .mail import MAIL_MAX_BYTES

    data = stream.read(MAIL_MAX_BYTES + 1)
    if len(data) > MAIL_MAX_BYTES:
        while stream.read(1 << 20):  # drain a pipe, so that the mail system sees it delivered
            pass
    return data


def _handle(game: Path, data: bytes, label: str, referee: str, queue_dir: Path,
            views_dir: Path | None) -> tuple[str, bool]:
    """Handle one message; returns the line that tells what was done, and whether that line is
    for the referee's attention (standard error) rather than the usual log (standard output).

    A registered player's mistake is answered and counts as handled. A message from an address
    no player registered is not answered at all (it would tell a stranger, or a spammer, that
    the game exists and where it stands): it counts as handled, and the line says so on
    standard error. Raises only for the referee's side (record, seed, lock, disk): then nothing
    was applied and nothing queued.
    """
    from .mail import (MAIL_MAX_BYTES, MailError, extract_move, is_automatic, parse_message,
                       queue, reply_message, sender_address)

    too_big = len(data) > MAIL_MAX_BYTES
    msg = parse_message(data[:MAIL_MAX_BYTES], headers_only=too_big)
    if is_automatic(msg):
        return f"{label}: ignored: an automatic message (a bounce, an auto-reply or a list)", False
    try:
        sender = sender_address(msg)
    except MailError as exc:
        return f"{label}: ignored: {exc}, so there is no one to answer", False
    with locked(game):
        record = read_record(game)
        if record.player_at(sender) is None:
            return (f"{label}: ignored, not answered: {sender} is not the address of any player "
                    f"of game {record.game} (a player writing from another address must use "
                    f"the registered one)"), True
        try:
            if too_big:
                raise Refused(f"the message is larger than {MAIL_MAX_BYTES >> 20} MiB; send the "
                              f"move file alone", EXIT_INPUT)
            try:
                move_file = extract_move(msg)
            except MailError as exc:
                raise Refused(str(exc), EXIT_INPUT) from None
            done = submit_move(game, move_file.data, move_file.source, author=sender,
                               views_dir=views_dir)
        except Refused as exc:
            record, replay = load_game(game)
            queue(queue_dir, [reply_message(
                game=record.game, turn=replay.state.turn, original=msg, sender=referee,
                to=sender, headline="your move was not applied", reason=exc.format_message(),
                status=f"Nothing in the game changed. {_status(record, replay)}")])
            return (f"{label} from {sender}: refused ({exc.format_message()}); reply queued",
                    False)
        move = done.move
        if done.duplicate:
            queue(queue_dir, [reply_message(
                game=done.record.game, turn=done.replay.state.turn, original=msg,
                sender=referee, to=sender, headline=f"turn {move.turn} was already applied",
                reason=already_applied(done.record, move), status=_status(done.record, done.replay))])
            return (f"{label} from {sender}: turn {move.turn} was already applied; reply queued",
                    False)
        messages = view_messages(done.record, done.replay, referee, original=msg, sender=sender)
        queue(queue_dir, messages)
        return (f"{label} from {sender}: turn {move.turn} applied ({move.player}); "
                f"{len(messages)} messages queued"), False


@mail.command("in")
@click.argument("game", type=click.Path(dir_okay=False, readable=False, path_type=Path))
@click.argument("source", metavar="MESSAGE|-|MAILDIR")
@_referee_option
@_queue_option
@click.option("--views-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where to write the view files (default: GAME's name with .views, beside it).")
def mail_in(game: Path, source: str, referee: str, queue, views_dir) -> None:
    """Apply the moves that arrived by e-mail and queue the answers (`mail out` sends them).

    SOURCE is one message file, - for standard input (a mail filter such as procmail or a
    .forward pipe), or a Maildir folder: every message in its new/, oldest first, each moved to
    cur/ once handled, so that a re-run never handles it twice.

    The move is a YAML attachment, or the message's text (docs/mail.md). It must come from the
    address registered for the move's player. An accepted move sends every player their own
    view and the referee the public one; a refused one, a reply to its sender only. A message
    from an address no player registered gets no reply: it is reported on standard error (and
    moved to cur/ like every handled message). Exit 0 when every message was handled, refused
    and unanswered ones included; otherwise the referee's side failed (record, seed, lock,
    disk), and that message and the later ones stay where they are, untouched. A record locked
    by another command for 30 s is exit 75 (EX_TEMPFAIL): a mail system piping a message into
    `mail in -` keeps it and delivers it again later.
    """
    from .mail import maildir_new, mark_seen

    queue_dir = queue or default_queue(game)
    if source == "-":
        line, notice = _handle(game, _read_capped(sys.stdin.buffer), "<stdin>", referee,
                               queue_dir, views_dir)
        click.echo(line, err=notice)
        return
    path = Path(source)
    if not path.is_dir():
        with open_regular(path) as f:
            data = _read_capped(f)
        line, notice = _handle(game, data, str(path), referee, queue_dir, views_dir)
        click.echo(line, err=notice)
        return
    try:
        pending = maildir_new(path)
    except ValueError as exc:
        raise Failure(str(exc), EXIT_INPUT) from None
    for message in pending:
        try:
            with open_regular(message) as f:
                line, notice = _handle(game, _read_capped(f), message.name, referee, queue_dir,
                                       views_dir)
        except BaseException:
            click.echo(f"rebis-pbm: {message.name} was not handled; it stays in "
                       f"{message.parent}", err=True)
            raise
        seen = mark_seen(message)
        if notice:
            line += f"; the message is kept in {seen.parent}/ as {seen.name}"
        click.echo(line, err=notice)
    if not pending:
        click.echo(f"No new message in {path}.")


# --- mail views ------------------------------------------------------------------------------

@mail.command("views")
@click.argument("game", type=click.Path(dir_okay=False, readable=False, path_type=Path))
@click.option("--player", "players", multiple=True, metavar="NAME",
              help="Only this player's view (repeatable); by default every player with an "
              "address, and the public view for the referee.")
@_referee_option
@_queue_option
def mail_views(game: Path, players, referee: str, queue) -> None:
    """Queue every player's current view: at the start of a game, or to send one again."""
    from .mail import queue as add_to_queue

    record, replay = load_game(game)
    for name in players:
        if name not in record.addresses:
            why = "no such player" if name not in record.players else "no address registered"
            raise click.BadParameter(f"{name!r}: {why} in game {record.game}",
                                     param_hint="--player")
    if not record.addresses:
        raise Failure(f"no player of game {record.game} has an e-mail address; register them "
                      f"when creating the game: new ... --player NAME=ADDRESS", EXIT_INPUT)
    messages = view_messages(record, replay, referee, players=players or None)
    with locked(game):  # the queue keeps the order in which views were made
        add_to_queue(queue or default_queue(game), messages)
    click.echo(f"{len(messages)} messages queued.")


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


@mail.command("out")
@click.argument("game", type=click.Path(dir_okay=False, readable=False, path_type=Path))
@_queue_option
@click.option("--outbox", type=click.Path(file_okay=False, path_type=Path),
              help="Write each queued message as a .eml file in this folder.")
@click.option("--smtp", metavar="HOST[:PORT]", help="Send the queued messages through this SMTP "
              "server (port 25 by default).")
@click.option("--starttls", is_flag=True, help="Encrypt the SMTP session with STARTTLS first.")
@click.option("--user", help="Log in to the SMTP server as USER; the password is read from the "
              "environment variable named by --password-env (never from the command line).")
@click.option("--password-env", default=PASSWORD_ENV, show_default=True, metavar="NAME",
              help="The environment variable holding the SMTP password.")
def mail_out(game: Path, queue, outbox, smtp, starttls: bool, user, password_env: str) -> None:
    """Send the queued messages (SMTP), or write them as .eml files (--outbox).

    A message leaves the queue once sent (it is kept in the queue's cur/); if the server
    cannot be reached or refuses, the rest stays queued for the next run (exit 2).
    """
    from .mail import SmtpServer, maildir_new, mark_seen, parse_server, send_smtp

    if (outbox is None) == (smtp is None):
        raise click.UsageError("give exactly one of --outbox DIR or --smtp HOST[:PORT]")
    server = None
    if smtp is not None:
        try:
            host, port = parse_server(smtp)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--smtp") from None
        password = None
        if user is not None:
            password = os.environ.get(password_env)
            if password is None:
                raise click.UsageError(f"set the environment variable {password_env} to the "
                                       f"SMTP password of {user}")
        server = SmtpServer(host, port, starttls, user, password)
    elif starttls or user:
        raise click.UsageError("--starttls and --user go with --smtp")
    queue_dir = queue or default_queue(game)
    if not queue_dir.exists():
        click.echo(f"Nothing to send: {queue_dir} does not exist yet.")
        return
    with locked(queue_dir):  # two runs at once must not send a message twice
        try:
            pending = maildir_new(queue_dir)
        except ValueError as exc:
            raise Failure(str(exc), EXIT_INPUT) from None
        done: list[Path] = []

        def sent(path: Path) -> None:
            mark_seen(path)
            done.append(path)

        if server is None:
            outbox.mkdir(parents=True, exist_ok=True)
            for path in pending:
                write_atomic(outbox / f"{path.name}.eml", path.read_bytes())
                sent(path)
            click.echo(f"{len(done)} messages written to {outbox}/.")
            return
        try:
            send_smtp(server, pending, sent)
        except OSError as exc:  # smtplib's and ssl's errors are OSErrors too
            raise Failure(f"could not send through {host}:{port}: {_smtp_reason(exc)}; "
                          f"{len(done)} messages sent, {len(pending) - len(done)} still queued "
                          f"(run mail out again)", EXIT_INPUT) from None
    click.echo(f"{len(done)} messages sent through {host}:{port}.")
