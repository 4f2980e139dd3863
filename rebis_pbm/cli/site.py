"""``rebis-pbm site``: a static web page of a game for spectators (docs/cli.md, docs/views.md).

A thin shell around :func:`rebis_pbm.app.write_site`: read the game (the referee holds the
seed, so the page can show the public table after every move), write the page and the pictures.
"""

from __future__ import annotations

import os

import click

from rebis_pbm import app as referee
from rebis_pbm.cli import EXIT_CODES, cli


@cli.command(epilog=EXIT_CODES)
@click.argument("game", type=click.Path(dir_okay=False, readable=False))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              metavar="DIR", help="Where to write index.html and the pictures (created if "
              "missing; its parent folder must exist). Files of an earlier run are replaced.")
@click.option("--lang", default=None, metavar="CODE",
              help="The page's language: en (default), fr or pt.")
def site(game: str, out_dir: str, lang: str | None) -> None:
    """Write a static web page of GAME for spectators: the public table after each move, the
    move list, the score, and at the end the seed and verify's verdict.

    \b
    Only public information goes in (what the public view shows), so the folder
    can be published as it is (GitHub Pages, GitLab Pages). Building it needs the
    seed until the record reveals it, like every command that replays a game.
    """
    from rebis_pbm.present.i18n import check_language
    written = referee.write_site(game, out_dir,
                                 None if lang is None else check_language(lang, f"--lang {lang}"))
    if len(written) == 1:  # a fair deal's join phase: no table yet
        click.echo(f"Wrote the page of the join phase {os.path.join(out_dir, written[0])} (no "
                   f"table before the deal).")
        return
    click.echo(f"Wrote the game page {os.path.join(out_dir, written[0])} and "
               f"{len(written) - 1} pictures of the table in {out_dir.rstrip('/') or '/'}/.")
