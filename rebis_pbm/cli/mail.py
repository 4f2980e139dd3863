"""``rebis-pbm mail``: play by e-mail around ``apply`` (docs/mail.md).

A thin shell: the use cases are :mod:`rebis_pbm.transports.mail` (:mod:`.mail_in` enters each
move through :func:`rebis_pbm.app.submit_move`, the one way a move enters a game).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from rebis_pbm.cli import cli, pictures_option, queue_option, referee_option
from rebis_pbm.files.names import default_queue
from rebis_pbm.present.views import counted

PASSWORD_ENV = "REBIS_PBM_SMTP_PASSWORD"


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


@mail.command("in")
@click.argument("game", type=click.Path(readable=False, path_type=Path))
@click.argument("source", metavar="MESSAGE|-|MAILDIR")
@referee_option(required=True)
@queue_option
@pictures_option
@click.option("--views-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where to write the view files (default: GAME's name with .views, beside it).")
def mail_in(game: Path, source: str, referee_address: str, queue: Path | None, pictures: bool,
            views_dir: Path | None) -> None:
    """Apply the moves that arrived by e-mail and queue the answers (`mail out` sends them).

    SOURCE is one message file, - for standard input (a mail filter such as procmail or a
    .forward pipe), or a Maildir folder: every message not yet handled (all of new/, and those
    in cur/ without the Seen flag, as an IMAP server leaves them), oldest first, each marked
    Seen in cur/ once handled, so that a re-run never handles it twice. The Maildir is locked
    while it is read: two runs at once never answer a message twice. A move applied earlier
    whose messages were never queued (a run stopped at the wrong moment) has them queued first.

    The move is a YAML attachment, or the message's text (docs/mail.md). It must come from the
    address registered for the move's player. An accepted move sends every player their own
    view and the referee the public one; a refused one, a reply to its sender only. A message
    from an address no player registered gets no reply: it is reported on standard error (and
    moved to cur/ like every handled message). Exit 0 when every message was handled, refused
    and unanswered ones included; otherwise the referee's side failed (record, seed, lock,
    disk), and that message and the later ones stay where they are, untouched. A record locked
    by another command for 30 s is exit 75 (EX_TEMPFAIL): a mail system piping a message into
    `mail in -` keeps it and delivers it again later.

    GAME may be a folder of games (every record in it and its subfolders): one mailbox for a
    whole league. Each message goes to the game named by the move's game field, or else by
    [Rebis GAME] in its subject, with that game's queue and views beside its record (--queue
    and --views-dir do not go with a folder). A player's message that names none of the games
    gets one reply saying so.
    """
    from rebis_pbm.transports.mail.mail_in import mail_in as run
    from rebis_pbm.transports.mail.mail_in import mail_in_games
    stream = sys.stdin.buffer if source == "-" else source
    if game.is_dir():
        for option, value in (("--queue", queue), ("--views-dir", views_dir)):
            if value is not None:
                raise click.UsageError(f"{option} does not go with a folder of games: each "
                                       f"game's is beside its record")
        handled_all = mail_in_games(game, stream, referee_address, pictures=pictures)
    else:
        handled_all = run(game, stream, referee_address, queue or default_queue(game), views_dir,
                          pictures=pictures)
    for handled in handled_all:
        click.echo(handled.line, err=handled.notice)


@mail.command("views")
@click.argument("game", type=click.Path(dir_okay=False, readable=False, path_type=Path))
@click.option("--player", "players", multiple=True, metavar="NAME",
              help="Only this player's view (repeatable); by default every player with an "
              "address, and the public view for the referee.")
@referee_option(required=True)
@queue_option
@pictures_option
def mail_views(game: Path, players: tuple[str, ...], referee_address: str, queue: Path | None,
               pictures: bool) -> None:
    """Queue every player's current view: at the start of a game, or to send one again."""
    from rebis_pbm.transports.mail.outbox import queue_views
    count = queue_views(game, referee_address, tuple(players), queue, pictures=pictures)
    click.echo(f"{counted(count, 'message')} queued.")


@mail.command("out")
@click.argument("game", type=click.Path(readable=False, path_type=Path))
@queue_option
@click.option("--outbox", type=click.Path(file_okay=False, path_type=Path),
              help="Write each queued message as a .eml file in this folder.")
@click.option("--smtp", metavar="HOST[:PORT]", help="Send the queued messages through this SMTP "
              "server (port 25 by default).")
@click.option("--starttls", is_flag=True, help="Encrypt the SMTP session with STARTTLS first.")
@click.option("--smtps", is_flag=True, help="Implicit TLS: encrypt the SMTP session from the "
              "first byte (port 465 by default).")
@click.option("--sendmail", metavar="[PATH]", is_flag=False, flag_value="/usr/sbin/sendmail",
              default=None, help="Hand each message to the local mail system's sendmail program "
              "(default /usr/sbin/sendmail), which queues, retries and bounces it, instead of "
              "SMTP.")
@click.option("--user", help="Log in to the SMTP server as USER; the password is read from the "
              "environment variable named by --password-env (never from the command line).")
@click.option("--password-env", default=PASSWORD_ENV, show_default=True, metavar="NAME",
              help="The environment variable holding the SMTP password.")
def mail_out(game: Path, queue: Path | None, outbox: Path | None, smtp: str | None,
             starttls: bool, smtps: bool, sendmail: str | None, user: str | None,
             password_env: str) -> None:
    """Send the queued messages (SMTP or the local sendmail), or write them as .eml files
    (--outbox, readable by their owner only).

    A message leaves the queue once sent (it is kept in the queue's cur/). A message the
    server refuses for now (4xx) stays queued for the next run; one it refuses for good (5xx,
    e.g. an address that does not exist) is set aside in the queue's failed/ and reported to
    the referee (standard error, and a message queued to the referee), and the others go on.
    If the server cannot be reached, the rest stays queued for the next run (exit 2). When a
    message was set aside, the others are sent and mail out exits 2 (so that cron tells the
    referee); `rebis-pbm mail retry GAME` queues the set-aside messages again.

    GAME may be a folder of games (as for mail in): every game's queue is sent in turn
    (--queue does not go with a folder).
    """
    from rebis_pbm.transports.mail.mail_out import send_queue
    from rebis_pbm.transports.mail.send import SmtpServer, parse_server
    if [outbox, smtp, sendmail].count(None) != 2:
        raise click.UsageError("give exactly one of --outbox DIR, --smtp HOST[:PORT] or "
                               "--sendmail [PATH]")
    if starttls and smtps:
        raise click.UsageError("give one of --starttls and --smtps: --smtps encrypts from the "
                               "start (port 465), --starttls after connecting (port 587)")
    server = None
    if smtp is not None:
        try:
            host, port = parse_server(smtp)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--smtp") from None
        if smtps and not smtp.rstrip().endswith(f":{port}"):
            port = 465
        password = None
        if user is not None:
            password = os.environ.get(password_env)
            if password is None:
                raise click.UsageError(f"set the environment variable {password_env} to the "
                                       f"SMTP password of {user}")
        server = SmtpServer(host, port, starttls, user, password, smtps=smtps)
    elif starttls or smtps or user:
        raise click.UsageError("--starttls, --smtps and --user go with --smtp")
    if game.is_dir():
        if queue is not None:
            raise click.UsageError("--queue does not go with a folder of games: each game's "
                                   "queue is beside its record")
        from rebis_pbm.transports.mail.mail_out import send_queues
        done = send_queues(game, outbox=outbox, server=server, sendmail=sendmail)
    else:
        queue_dir = queue or default_queue(game)
        sent = send_queue(queue_dir, outbox=outbox, server=server, sendmail=sendmail)
        if sent is None:
            click.echo(f"Nothing to send: {queue_dir} does not exist yet.")
            return
        done = sent
    for note in done.notes:
        click.echo(f"rebis-pbm: {note}", err=True)
    if outbox is not None:
        click.echo(f"{counted(done.sent, 'message')} written to {outbox}/.")
    elif sendmail is not None:
        click.echo(f"{counted(done.sent, 'message')} handed to {sendmail}.")
    else:
        click.echo(f"{counted(done.sent, 'message')} sent through {host}:{port}"
                   + (f"; {done.kept} kept for the next run" if done.kept else "")
                   + (f"; {done.set_aside} set aside" if done.set_aside else "") + ".")
    if done.set_aside:
        from rebis_pbm.errors import ExitCode, Failed
        raise Failed(f"{counted(done.set_aside, 'message')} refused for good by the server "
                     f"{'was' if done.set_aside == 1 else 'were'} set aside in the queue's failed/ "
                     f"(the others were sent); correct the address, then `rebis-pbm mail retry "
                     f"{game}` queues {'it' if done.set_aside == 1 else 'them'} again",
                     ExitCode.INPUT)


@mail.command("retry")
@click.argument("game", type=click.Path(readable=False, path_type=Path))
@queue_option
def mail_retry(game: Path, queue: Path | None) -> None:
    """Queue again the messages a server refused for good (set aside in the queue's failed/);
    the next `mail out` sends them.

    Run it once the cause is gone (an address corrected with `replace-player --address`: the
    message keeps its old recipient, so send the player's view again with `mail views GAME
    --player NAME` instead; a server's refusal that was a mistake). GAME may be a folder of
    games: every game's failed/ (--queue does not go with a folder).
    """
    from rebis_pbm.transports.mail.mail_out import retry_failed, retry_failed_all
    if game.is_dir():
        if queue is not None:
            raise click.UsageError("--queue does not go with a folder of games: each game's "
                                   "queue is beside its record")
        count = retry_failed_all(game)
    else:
        count = retry_failed(queue or default_queue(game))
    click.echo(f"{counted(count, 'message')} queued again for mail out.")
