"""``rebis-pbm notify``: turn notices by webhook (Discord, Slack, Matrix, JSON; docs/league.md).

A thin shell around :mod:`rebis_pbm.transports.webhook`: ``add``, ``remove`` and ``list`` keep
the referee's webhook URLs beside each record (``game.notify.yaml``, mode 0600, never in the
record or a view); ``queue`` queues the notices due; ``send`` posts the queue.
"""

from __future__ import annotations

from pathlib import Path

import click

from rebis_pbm.cli import cli

_FORMATS = ("json", "discord", "slack", "matrix")  # transports.webhook.settings.FORMATS


def _games(paths: tuple[Path, ...]) -> list[str]:
    from rebis_pbm.app import record_paths
    return record_paths(paths)


@cli.group()
def notify() -> None:
    """Tell players by webhook (a chat channel) when their turn begins or its deadline nears.

    \b
    Set up:   rebis-pbm notify add game.yaml ana=discord:https://discord.com/api/webhooks/...
              rebis-pbm notify add league/ slack:https://hooks.slack.com/services/...
    Each run: rebis-pbm notify queue league/ && rebis-pbm notify send league/
    The URLs are the referee's secrets: they are kept in GAME.notify.yaml beside
    each record (mode 0600), never in the record, a view or a page.
    """


@notify.command("add")
@click.argument("paths", metavar="GAME|DIR", nargs=1, type=click.Path(readable=False,
                                                                       path_type=Path))
@click.argument("targets", metavar="TARGET...", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(_FORMATS), default="json", show_default=True,
              help="The body of a TARGET without a discord:, slack:, matrix: or json: prefix.")
def add(paths: Path, targets: tuple[str, ...], fmt: str) -> None:
    """Add webhooks to GAME, or to every game of the folder DIR (a shard).

    \b
    TARGET is NAME=URL (that player's turns) or URL (every turn of the game: a
    channel of the whole league), the URL optionally after discord:, slack:,
    matrix: or json: (the body it takes; else --format). A player's earlier URL
    of the same format is replaced. With DIR, a NAME=URL goes to the games NAME
    plays in.
    """
    from rebis_pbm.app import read_record
    from rebis_pbm.errors import UsageError
    from rebis_pbm.transports.webhook.settings import add_targets, parse_target, shown_url

    wanted = [parse_target(t, fmt) for t in targets]
    games = _games((paths,))
    records = [read_record(g) for g in games]
    for target in wanted:
        if target.player is not None and not any(target.player in r.players for r in records):
            raise UsageError(f"{target.player} plays in no game of {paths}", "TARGET")
    for game, record in zip(games, records, strict=True):
        mine = [t for t in wanted if len(games) == 1 or t.player in (None, *record.players)]
        if mine:
            add_targets(game, record.players, record.game, mine)
            for t in mine:
                click.echo(f"{record.game}: {t.player or 'every turn'} -> {t.fmt} "
                           f"{shown_url(t.url)}")


@notify.command("remove")
@click.argument("paths", metavar="GAME|DIR", nargs=1, type=click.Path(readable=False,
                                                                       path_type=Path))
@click.option("--player", metavar="NAME", help="Only this player's webhooks.")
@click.option("--url", metavar="URL", help="Only the webhooks to this URL (without prefix).")
@click.option("--all", "everything", is_flag=True, help="Every webhook (neither --player nor "
              "--url).")
def remove(paths: Path, player: str | None, url: str | None, everything: bool) -> None:
    """Remove webhooks from GAME, or from every game of the folder DIR."""
    from rebis_pbm.app import read_record
    from rebis_pbm.errors import UsageError
    from rebis_pbm.transports.webhook.settings import remove_targets

    if everything == (player is not None or url is not None):
        raise UsageError("give --player, --url (or both), or --all alone", "--all")
    removed = 0
    for game in _games((paths,)):
        removed += remove_targets(game, read_record(game).game, player=player, url=url)
    click.echo(f"Removed {removed} webhook{'s' * (removed != 1)}.")


@notify.command("list")
@click.argument("paths", metavar="GAME|DIR", nargs=-1, required=True,
                type=click.Path(readable=False, path_type=Path))
def list_targets(paths: tuple[Path, ...]) -> None:
    """List the webhooks of each game: whose turns, the format, the URL's host (the rest of
    the URL, a secret, is not printed), and how many notices wait in its queue."""
    from rebis_pbm.app import read_record
    from rebis_pbm.transports.webhook.jobs import notify_queue
    from rebis_pbm.transports.webhook.settings import read_targets, shown_url

    for game in _games(paths):
        record = read_record(game)
        queue_dir = notify_queue(game)
        waiting = len(list(queue_dir.glob("*.json"))) if queue_dir.is_dir() else 0
        failed = len(list((queue_dir / "failed").glob("*.json"))) if queue_dir.is_dir() else 0
        click.echo(f"{record.game} ({game}): {waiting} queued, {failed} set aside")
        for t in read_targets(game, record.game):
            click.echo(f"  {t.player or 'every turn'}: {t.fmt} {shown_url(t.url)}")


@notify.command("queue")
@click.argument("paths", metavar="GAME|DIR", nargs=-1, required=True,
                type=click.Path(readable=False, path_type=Path))
@click.option("--now", metavar="TIME", help="The time (ISO 8601, UTC) to judge deadlines by; "
              "default: the clock.")
def queue(paths: tuple[Path, ...], now: str | None) -> None:
    """Queue the notices due in GAME, or in every game of DIR: a turn notice for a turn that
    began since the last one, else a deadline notice when its deadline nears (within 24 h or
    a quarter of the deadline); each once per turn. Games without webhooks are left alone."""
    from rebis_pbm.transports.webhook.jobs import queue_turn_notice

    total = sum(queue_turn_notice(game, now=now) for game in _games(paths))
    click.echo(f"Queued {total} notice{'s' * (total != 1)}.")


@notify.command("send")
@click.argument("paths", metavar="GAME|DIR", nargs=-1, required=True,
                type=click.Path(readable=False, path_type=Path))
@click.option("--timeout", type=click.FloatRange(min=0.1, max=60), default=5.0,
              show_default=True, help="Seconds to wait for each webhook's answer.")
@click.option("--retry-failed", is_flag=True, help="First put back in the queue the notices "
              "set aside as refused for good (after mending a webhook).")
def send(paths: tuple[Path, ...], timeout: float, retry_failed: bool) -> None:
    """Post the notices queued for GAME, or for every game of DIR.

    A notice the service takes leaves the queue; one it cannot take now (no answer, a
    timeout, HTTP 5xx, 408 or 429) stays queued for the next send; one it refuses for
    good (another HTTP 3xx or 4xx) is set aside in the queue's failed/ folder. Each
    failure, and a queue that cannot be read, is one line on standard error; the
    exit is 0 all the same: a notice never fails a command, as it never fails a move.
    """
    from rebis_pbm.transports.webhook.jobs import send_all

    done = send_all(_games(paths), timeout=timeout, retry_failed=retry_failed)
    for note in done.notes:
        click.echo(note, err=True)
    click.echo(f"Posted {done.sent} notice{'s' * (done.sent != 1)}; {done.kept} kept for the "
               f"next send; {done.set_aside} set aside.")
