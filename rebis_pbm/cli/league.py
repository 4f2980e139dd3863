"""``rebis-pbm league``: the standings of a folder of games (docs/league.md).

A thin shell around :func:`rebis_pbm.app.league.standings`; the renderings are
:mod:`rebis_pbm.present.league`'s.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from rebis_pbm.cli import EXIT_CODES, cli


@cli.command(epilog=EXIT_CODES)
@click.argument("folders", metavar="DIR...", nargs=-1, required=True,
                type=click.Path(readable=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="The table on standard output as text or as JSON.")
@click.option("--html", "html_out", metavar="OUT",
              type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the table as an HTML page to the file OUT (its folder must "
              "exist), in the style of the `site` pages.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Processes verifying records at once, when there are many.")
@click.option("--referee-pub", "referee", metavar="FILE|SHA256:...",
              help="The league's referee's published public key (its .pub file, or its "
              "fingerprint): count only the records it signed; any other, one with no referee "
              "key included, is listed under \"Not counted\".")
def league(folders: tuple[Path, ...], fmt: str, html_out: Path | None, jobs: int,
           referee: str | None) -> None:
    """The standings of the games in DIR (a folder of games: DIR/NAME/game.yaml as
    `git apply --games` keeps them, or DIR/*.yaml; records below it are found as
    `verify DIR` finds them), from the records that pass verify.

    \b
    Per player: games, finished games, wins, shared wins, points (a win is 1
    point, shared equally among a game's winners), the sum of final scores,
    missed turns and the moves the referee made for them; then the games in
    progress with whose turn it is. A record that fails verify is listed under
    "Not counted" and counted nowhere (the command still exits 0: `verify DIR`
    is the check that fails).
    """
    from rebis_pbm.app.league import standings
    from rebis_pbm.app.signing import published_referee
    from rebis_pbm.files.atomic import write_atomic
    from rebis_pbm.present.league import as_data, render_page, render_text
    table = standings(folders, jobs, None if referee is None else published_referee(referee))
    if html_out is not None:
        write_atomic(html_out, render_page(table), mode=0o644, durable=False)
    if fmt == "json":
        click.echo(json.dumps(as_data(table), indent=2))
    else:
        click.echo(render_text(table), nl=False)
        if html_out is not None:
            click.echo(f"Wrote the league page {html_out}.")
