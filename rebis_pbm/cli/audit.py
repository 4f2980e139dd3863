"""The audit commands: ``rebis-pbm verify`` and ``rebis-pbm reveal`` (docs/audit.md).

A thin shell around :func:`rebis_pbm.app.verify` and :func:`rebis_pbm.app.reveal`; the
checks are :mod:`rebis_pbm.record.audit`'s.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from rebis_pbm import app
from rebis_pbm.cli import cli, referee_key_option
from rebis_pbm.errors import ExitCode, UsageError, one_line

if TYPE_CHECKING:
    from rebis_pbm.record.audit import Report


@cli.command()
@click.argument("games", metavar="GAME...", nargs=-1, required=True,
                type=click.Path(readable=False, path_type=Path))
@click.option("--seed-file", type=click.Path(dir_okay=False, readable=False, path_type=Path),
              metavar="FILE",
              help="The game's secret file (game.secret.yaml), for a game whose record does not "
              "reveal its seed yet. Default: $REBIS_PBM_SEED, else the secret file beside GAME "
              "if there is one. With one GAME only.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Processes verifying records at once, when there are many.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.option("--witness", "witnesses", multiple=True, metavar="FILE",
              type=click.Path(dir_okay=False, readable=False, path_type=Path),
              help="A view or mail saved during the game (repeatable): fail (exit 3) unless the "
              "record still holds the chain digest it saw at its move.")
@click.option("--refusal", "refusals", multiple=True, metavar="FILE",
              type=click.Path(dir_okay=False, readable=False, path_type=Path),
              help="A refusal mail or refusal file the referee sent (repeatable; a game with a "
              "referee key): exit 2 unless this game's referee signed it, 3 unless the record "
              "holds the point of the history it names.")
@click.option("--referee-pub", "referee", metavar="FILE|SHA256:...",
              help="The referee's published public key (its .pub file, or its fingerprint as "
              "ssh-keygen -l prints it): fail (exit 3) unless each record is signed by it; a "
              "record with no referee key fails too.")
@click.pass_context
def verify(ctx: click.Context, games: tuple[Path, ...], seed_file: Path | None, jobs: int,
           fmt: str, witnesses: tuple[Path, ...], refusals: tuple[Path, ...],
           referee: str | None) -> None:
    """Check that GAME is the game that was played, by the rules, and unedited.

    \b
    Anyone can check, without the seed: the record's form, the header digest,
    each move's turn number, seat order and chain digest, and the status's turn.
    With the seed (revealed in the record once the game is over, or the secret
    file): also the seed against the commitment made at `new`, every move's
    legality by replaying the game, every keyed state digest, the status and the
    final score. The first problem is reported: which turn and player, what was
    expected, what was found.

    \b
    Many records at once (several GAMEs, or folders: every record in them and
    below them), in one process or --jobs of them: one line per record, then
    which failed; each record's seed is found as for one GAME.

    \b
    Exit codes: 0 verified (the text says what could not be checked without the
    seed); 3 verification failed (the record is edited, cut short, or not the game
    its seed deals; with many records: any of them); 2 GAME or the seed file
    cannot be read.
    """
    expected = None
    if referee is not None:
        from rebis_pbm.app.signing import published_referee
        expected = published_referee(referee)
    if len(games) == 1 and not games[0].is_dir():
        report = app.verify(games[0], seed_file, witnesses, refusals, expected)
        if fmt == "json":
            click.echo(json.dumps(report.as_dict(), indent=2))
        else:
            click.echo(report.render_text(), nl=False)
        if not report.verified:
            ctx.exit(ExitCode.VERIFY)
        return
    if witnesses or refusals:
        name = "--witness" if witnesses else "--refusal"
        raise UsageError(f"give {name} with a single GAME: a {name[2:]} belongs to one game",
                         name)
    if seed_file is not None:
        raise UsageError("give --seed-file with a single GAME; with many records, each one's "
                         "secret file beside it (or a revealed seed) is used", "--seed-file")
    paths = app.record_paths(games)  # folders walked once; files name themselves after
    if sys.stderr.isatty():
        with click.progressbar(length=len(paths), label="Verifying", file=sys.stderr) as bar:
            reports = app.verify_many(paths, jobs, progress=bar.update, referee=expected)
    else:
        reports = app.verify_many(paths, jobs, referee=expected)
    failed = [r.source for r in reports if not r.verified]
    if fmt == "json":
        click.echo(json.dumps({"records": len(reports), "verified": len(reports) - len(failed),
                               "failed": failed, "reports": [r.as_dict() for r in reports]},
                              indent=2))
    else:
        for r in reports:
            click.echo(many_line(r))
        click.echo(f"{len(reports)} records: {len(reports) - len(failed)} verified, "
                   f"{len(failed)} failed" + (f" ({', '.join(failed)})." if failed else "."))
    if failed:
        ctx.exit(ExitCode.VERIFY)


def many_line(report: Report) -> str:
    """One record's line in a verify of many: ``verified  FILE: game ID, N moves`` (``verified
    without the seed`` when it could not be checked completely) or ``FAILED  FILE: where:
    what``."""
    if report.problem is not None:
        return one_line(f"FAILED    {report.source}: {report.problem.sentence()}")
    head = "verified" if report.complete else "verified without the seed:"
    moves = f"{report.moves} move" + ("" if report.moves == 1 else "s")
    return f"{head:9s} {report.source}: game {report.game}, {moves}"


@cli.command()
@click.argument("game", type=click.Path(dir_okay=False, readable=False, path_type=Path))
@click.option("--yes", is_flag=True, help="Confirm: reveal the seed, ending the game for good.")
@click.option("--views-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where the views are (default: GAME's name with .views, beside it).")
@referee_key_option
def reveal(game: Path, yes: bool, views_dir: Path | None, referee_key: str | None) -> None:
    """Write the seed of an abandoned game into GAME, so that anyone can verify it.

    \b
    WARNING: the seed gives away every card: every hand, the order of the deck,
    every face-down card. Once it is in the record the game cannot go on: `apply`
    refuses every further move, and the status says "abandoned". Use it only for
    a game nobody will finish. A finished game needs no reveal: the last move's
    `apply` writes the seed itself. Without --yes nothing is written.

    The record is verified first (exit 3 if it fails), and the seed must match the
    commitment made at `new`.
    """
    done = app.reveal(game, confirm=yes, views_dir=views_dir, referee_key=referee_key)
    if done.already:
        click.echo(f"{game} already reveals the seed of game {done.record.game}; nothing changed.")
        return
    # A fair deal still waiting for joins has no state, so no turn, yet.
    where = "before the deal" if done.state is None else f"at turn {done.state.turn}"
    click.echo(f"Revealed the seed of game {done.record.game} in {game}: the game is abandoned "
               f"{where} and no more moves can be played. Anyone can now check it with: "
               f"rebis-pbm verify {game}")
