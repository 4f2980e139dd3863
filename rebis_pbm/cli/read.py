"""The commands that read a game and write nothing: ``view``, ``moves``, ``score``,
``schema``.

Each parses its arguments, calls one use case of :mod:`rebis_pbm.app` and prints. Apart from
:mod:`.game` (``new``, ``apply``), so that reading a game does not pay for defining the options
of the commands that write one.
"""

from __future__ import annotations

import json

import click

from rebis_pbm import app as referee
from rebis_pbm.cli import EXIT_CODES, cli, game_argument
from rebis_pbm.errors import Refused


@cli.command(epilog=EXIT_CODES)
@game_argument
@click.option("--player", metavar="NAME", help="Whose view.")
@click.option("--public", is_flag=True, help="The spectator view (no hidden card).")
@click.option("--format", "fmt", type=click.Choice(["text", "yaml", "json", "svg"]),
              default="text", show_default=True, help="svg: a picture of the table.")
@click.option("--lang", metavar="CODE", help="The language of the text view and of the "
              "picture (svg): en, fr or pt (default: the player's, as the game keeps it; English "
              "for --public). YAML and JSON are English.")
def view(game: str, player: str | None, public: bool, fmt: str, lang: str | None) -> None:
    """Print one player's view of GAME (or, with --public, the spectator view)."""
    if bool(player) == public:
        raise click.UsageError("give exactly one of --player NAME or --public")
    click.echo(referee.rendered_view(game, player, fmt, lang), nl=False)


@cli.command(epilog=EXIT_CODES)
@click.argument("game", required=False, type=click.Path(dir_okay=False, readable=False))
@click.option("--player", metavar="NAME", help="The player to move (with GAME).")
@click.option("--view", "view_file", metavar="VIEW.yaml", type=click.Path(dir_okay=False),
              help="List them from your own YAML view instead: no GAME, no seed needed.")
@click.option("--format", "fmt", type=click.Choice(["yaml", "json", "text"]), default="yaml",
              show_default=True, help="Each move says what it does: a comment line (yaml), "
              "a description field (json), a numbered line (text).")
@click.option("--lang", metavar="CODE", help="With --view: say what each move does, or why "
              "there is no move, in this language, en, fr or pt (default: the view's).")
def moves(game: str | None, player: str | None, view_file: str | None, fmt: str,
          lang: str | None) -> None:
    """List every legal move for the player to move, each a complete move file for `apply`.

    Either GAME --player NAME (the referee: needs the seed), or --view VIEW.yaml (a player, from
    their own view: the same moves). Each says what it does, in the player's language. YAML: one
    document per move (separated by ---, each after a comment line); JSON: a list of
    {description, move}; text: a numbered line per move.
    """
    if view_file is not None:
        if game is not None or player is not None:
            raise click.UsageError("with --view, give neither GAME nor --player: the view says "
                                   "whose it is")
        from rebis_pbm.cli.langs import in_language
        from rebis_pbm.present.i18n import check_language

        lang = None if lang is None else check_language(lang)
        try:
            listing = referee.legal_moves_from_view(view_file, fmt, lang)
        except Refused as exc:
            raise in_language(exc, lang or referee.view_language(view_file)) from None
        click.echo(listing, nl=False)
        return
    if lang is not None:
        raise click.UsageError("--lang goes with --view (the answer to a player)")
    if game is None or player is None:
        raise click.UsageError("give GAME and --player NAME, or --view VIEW.yaml")
    click.echo(referee.legal_moves_listing(game, player, fmt), nl=False)


@cli.command(epilog=EXIT_CODES)
@game_argument
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
def score(game: str, fmt: str) -> None:
    """Print the score of GAME shelf by shelf (R13) and the burdens (R12)."""
    data = referee.score(game)
    if fmt == "json":
        click.echo(json.dumps({k: v for k, v in data.items() if k != "turn"}, indent=2))
        return
    finished = data["winners"] is not None
    head = "Final score" if finished else f"Score so far (turn {data['turn']})"
    click.echo(f"{head} of game {data['game']}:")
    for p in data["scores"]:
        parts = [f"shelf {s['shelf']}: {s['value']} x {s['multiplier']} = {s['score']}"
                 for s in p["shelves"]]
        click.echo(f"  {p['player']}: {p['total']}  ({'; '.join(parts)})")
    click.echo("Burden (R12): " + ", ".join(f"{b['player']} {b['total']}" for b in data["burdens"]))
    if finished:
        from rebis_pbm.present.views import winners_line
        click.echo(winners_line(data["winners"]))


@cli.command(epilog=EXIT_CODES)
@click.argument("name", type=click.Choice(["move", "record", "view"]))
def schema(name: str) -> None:
    """Print the JSON Schema of a move file, a game record or a view."""
    from rebis_pbm.formats.schemas import schema_text
    click.echo(schema_text(name), nl=False)
