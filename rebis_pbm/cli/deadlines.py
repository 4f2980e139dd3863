"""Deadlines and the referee's logged actions: ``tick``, ``move-for``, ``extend``,
``replace-player``, ``end-game``, ``away``, ``back`` (docs/deadlines.md). Each calls one use case of
:mod:`rebis_pbm.app` and prints.
"""

from __future__ import annotations

from pathlib import Path

import click

from rebis_pbm import app as referee
from rebis_pbm.cli import (
    EXIT_CODES,
    announce_turn,
    cli,
    pictures_option,
    queue_option,
    referee_key_option,
    referee_option,
)
from rebis_pbm.record.deadlines import parse_duration

_NOW = click.option("--now", metavar="TIME", help="The time to act at, ISO 8601 (e.g. "
                    "2025-01-31T18:00:00Z; default: the clock).")
_GAME = click.argument("game", type=click.Path(dir_okay=False, readable=False))
_VIEWS = click.option("--views-dir", type=click.Path(file_okay=False),
                      help="Where the views are (default: GAME's name with .views, beside it).")


@cli.command(epilog=EXIT_CODES)
@_GAME
@_NOW
@_VIEWS
@referee_option()
@queue_option
@pictures_option
@referee_key_option
def tick(game: str, now: str | None, views_dir: str | None, referee_address: str | None,
         queue: Path | None, pictures: bool, referee_key: str | None) -> None:
    """Apply GAME's missed-move policy: a player past their deadline (or replaced after N
    missed turns) gets a move from the bot, recorded as the referee's. Run it from cron.

    With --referee, for a game played by mail, it also queues the views after the referee's
    moves, and a reminder to a mail player whose deadline is near (once a turn; docs/mail.md).
    """
    from rebis_pbm.record.deadlines import now_text
    now = now_text(now)  # one time for the moves and the reminder
    done = referee.tick(game, now=now, views_dir=views_dir, referee_key=referee_key)
    for turn, player, reason in done.moved:
        click.echo(f"Turn {turn}: the referee moved for {player} ({reason}).")
    if done.ended:  # rebis-pbm/5: the join phase's deadline passed (docs/deadlines.md)
        click.echo(f"Game ended, {done.ended}; nobody saw a card (the seed is revealed).")
    elif done.late:
        click.echo(f"{done.late} is late: their deadline has passed, and the grace period "
                   f"runs; nothing was written.")
    elif not done.moved:
        click.echo("No deadline has passed; nothing was written.")
    announce_turn(game, now)  # a turn began, or a deadline nears: the chat webhooks hear it
    if referee_address is None:
        if done.remind:
            click.echo(f"Reminder due: {done.remind}'s deadline is near.")
        return
    from rebis_pbm.present.views import counted
    from rebis_pbm.transports import outbox_for
    outbox = outbox_for(game, referee_address, queue, pictures=pictures)
    if done.moved:
        count = outbox.queue_stand_in_views()
        if count:
            click.echo(f"{counted(count, 'message')} queued (the views after the referee's "
                       f"moves).")
    if done.late:
        count = outbox.queue_late_notice(now)
        click.echo(f"Late notices: {count} message(s) queued." if count else
                   "Late notices: none queued (already sent this turn, or no address "
                   "registered).")
    if done.remind:
        reminded = outbox.queue_reminder(now)
        why = "a reminder is queued for them" if reminded else \
            "no reminder queued (already reminded this turn, or no address registered)"
        click.echo(f"Reminder due: {done.remind}'s deadline is near; {why}.")


@cli.command("move-for", epilog=EXIT_CODES)
@_GAME
@click.option("--player", required=True, metavar="NAME", help="The player to move, who asked.")
@click.option("--strategy", type=click.Choice(["greedy", "random"]), default="greedy",
              show_default=True)
@_NOW
@_VIEWS
@referee_key_option
def move_for(game: str, player: str, strategy: str, now: str | None,
             views_dir: str | None, referee_key: str | None) -> None:
    """Move for a player at their request (the bot chooses from their information set); the
    record says the referee moved, why and with which bot."""
    done = referee.move_for(game, player, bot=strategy, now=now, views_dir=views_dir,
                            referee_key=referee_key)
    click.echo(f"Turn {done.move.turn}: the referee moved for {player} (on the player's request, "
               f"{strategy} bot).")
    announce_turn(game, now)


@cli.command(epilog=EXIT_CODES)
@_GAME
@click.option("--by", "by", required=True, metavar="DURATION", help="Time added to the current "
              "turn's deadline: 24h, 2d, 90m.")
@click.option("--reason", help="Why (shown by verify).")
@_NOW
@referee_key_option
def extend(game: str, by: str, reason: str | None, now: str | None,
           referee_key: str | None) -> None:
    """Extend the current turn's deadline; logged in the record."""
    # app.log_action's **fields says str, yet records `seconds` as the int it is given.
    record = referee.log_action(game, "extend_deadline", now=now, referee_key=referee_key,
                                seconds=parse_duration(by, "--by"),  # type: ignore[arg-type]
                                reason=reason)
    from rebis_pbm.record.deadlines import deadline_of
    click.echo(f"The deadline of turn {len(record.moves) + 1} is now {deadline_of(record)}.")


@cli.command("replace-player", epilog=EXIT_CODES)
@_GAME
@click.option("--player", required=True, metavar="NAME")
@click.option("--address", help="The player's new e-mail address.")
@click.option("--key", "key_file", metavar="FILE", help="The player's new SSH public key (an "
              "OpenSSH .pub file): their moves from now on must be signed with it.")
@click.option("--lang", metavar="CODE", help="The language the player is spoken to in from now "
              "on: en, fr or pt (a rebis-pbm/3 game).")
@click.option("--reason", help="Why (shown by verify).")
@_NOW
@referee_key_option
def replace_player(game: str, player: str, address: str | None, key_file: str | None,
                   lang: str | None, reason: str | None, now: str | None,
                   referee_key: str | None) -> None:
    """Give a player a new address, key or language (or several); logged in the record."""
    from rebis_pbm.crypto.signatures import parse_keys
    from rebis_pbm.errors import UsageError
    from rebis_pbm.files.atomic import read_input
    from rebis_pbm.transports.mail.policy import check_address
    if address is None and key_file is None and lang is None:
        raise UsageError("give --address, --key, --lang or several", "--address")
    if address is not None:
        try:
            address = check_address(address)
        except ValueError as exc:
            raise UsageError(str(exc), "--address") from None
    key = None
    if key_file is not None:
        text = read_input(key_file, kind="key")[0].decode("utf-8", "replace")
        try:
            keys = parse_keys(text, key_file)
        except ValueError as exc:
            raise UsageError(str(exc), "--key") from None
        if len(keys) != 1:
            raise UsageError(f"{key_file}: give a file of one public key", "--key")
        key = keys[0]
    referee.log_action(game, "replace_player", now=now, player=player, address=address,
                       key=key, lang=lang, reason=reason, referee_key=referee_key)
    if address is not None:
        click.echo(f"{player}'s address is now {address}.")
    if key is not None:
        click.echo(f"{player}'s moves must now be signed with the key in {key_file}.")
    if lang is not None:
        click.echo(f"{player} is now spoken to in {lang}.")


@cli.command("end-game", epilog=EXIT_CODES)
@_GAME
@click.option("--reason", help="Why (shown by verify).")
@click.option("--yes", is_flag=True, help="Really end it: the seed is revealed.")
@_NOW
@referee_key_option
def end_game(game: str, reason: str | None, yes: bool, now: str | None,
             referee_key: str | None) -> None:
    """End GAME for good, logged in the record; its seed is revealed (as with reveal)."""
    if not yes:
        raise click.UsageError("this ends the game for good and reveals its seed; add --yes")
    referee.log_action(game, "end_game", now=now, reason=reason, referee_key=referee_key)
    click.echo(f"Game ended: {game} now reveals its seed.")


@cli.command(epilog=EXIT_CODES)
@_GAME
@click.option("--player", required=True, metavar="NAME", help="The player who is away.")
@click.option("--from", "start", metavar="TIME", help="When the absence begins, ISO 8601 "
              "(default: now).")
@click.option("--to", "end", required=True, metavar="TIME", help="When it ends, ISO 8601 "
              "(e.g. 2026-12-20T00:00:00Z).")
@click.option("--reason", help="Why (shown by verify).")
@_NOW
@_VIEWS
def away(game: str, player: str, start: str | None, end: str, reason: str | None,
         now: str | None, views_dir: str | None) -> None:
    """Log a player's absence: the game's clock stops while they are away, within the
    allowance of new --absence (per calendar year); logged in the record, shown in every
    view."""
    from rebis_pbm.app.absences import absence_length, take_absence
    done = take_absence(game, player, start, end, now=now, reason=reason, views_dir=views_dir)
    click.echo(f"{player} is away from {done.start} to {done.end} (UTC); the game's clock stops "
               f"meanwhile. Left in {done.start[:4]}: {absence_length(done.seconds_left)}, "
               f"{done.absences_left} more absence{'' if done.absences_left == 1 else 's'} at "
               f"most.")


@cli.command(epilog=EXIT_CODES)
@_GAME
@click.option("--player", required=True, metavar="NAME", help="The player who is back.")
@_NOW
@_VIEWS
def back(game: str, player: str, now: str | None, views_dir: str | None) -> None:
    """A player is back: their absence ends now (every one still to come is called off); logged in
    the record."""
    from rebis_pbm.app.absences import end_absence
    from rebis_pbm.record.deadlines import deadline_of
    record = end_absence(game, player, now=now, views_dir=views_dir)
    deadline = deadline_of(record)
    click.echo(f"{player} is back." + (f" The deadline of turn {len(record.moves) + 1} is "
                                       f"{deadline}." if deadline else ""))
