"""``rebis-pbm check``: check a move file without the seed (docs/cli.md).

Anyone may run it: a player before sending a move, or the check of a pull request in a game
played through git (docs/git.md), which must never see the seed. The use case is
:func:`rebis_pbm.app.check_move_file`.
"""

from __future__ import annotations

import click

from rebis_pbm import app as referee
from rebis_pbm.cli import EXIT_CODES, cli
from rebis_pbm.cli.game import checked_name
from rebis_pbm.cli.langs import in_language, refuse_for_mover
from rebis_pbm.errors import InputError, Refused
from rebis_pbm.files.atomic import read_input
from rebis_pbm.present.i18n import check_language


@cli.command(epilog=EXIT_CODES)
@click.argument("game", required=False, type=click.Path(dir_okay=False, readable=False))
@click.argument("move_file", metavar="MOVE.yaml|-", required=False)
@click.option("--view", "view_file", metavar="VIEW.yaml", type=click.Path(dir_okay=False),
              help="Check MOVE.yaml against the rules from your own YAML view, as the referee "
              "will (then give only MOVE.yaml); when the view says you registered a key, "
              "MOVE.yaml.sig beside it must sign it.")
@click.option("--as", "author", metavar="PLAYER|ADDRESS",
              help="Who sends the move (a player's name or registered address): refuse it "
              "unless it is that player's own move (exit 1).")
@click.option("--check-name", is_flag=True, help="Refuse the move (exit 2) unless MOVE.yaml is "
              "named turn-NNN-PLAYER.yaml after the turn and player in it.")
@click.option("--lang", metavar="CODE", help="Say why the move is refused in this language, en, "
              "fr or pt (with --view, default: the view's; with GAME, the refusal is repeated "
              "for the mover, default: the mover's; docs/views.md, \"Languages\").")
def check(game: str | None, move_file: str | None, view_file: str | None, author: str | None,
          check_name: bool, lang: str | None) -> None:
    """Check a move file without the seed.

    GAME MOVE.yaml: its form, its game, its name and its sender; not the rules (the cards in
    hand, whose turn it is): they need the seed, and `apply` checks them. Reads GAME without
    replaying it; writes nothing.

    MOVE.yaml --view VIEW.yaml: the move against the rules, from its player's own view, with
    the referee's answer (exit 0 legal, 1 refused, 2 unreadable).
    """
    if view_file is not None:
        if move_file is not None or game is None:
            raise click.UsageError("with --view, give only MOVE.yaml: rebis-pbm check MOVE.yaml "
                                   "--view VIEW.yaml")
        if author is not None or check_name:
            raise click.UsageError("--as and --check-name go with GAME, not with --view")
        lang = None if lang is None else check_language(lang)
        data, source = read_input(game, kind="move")
        try:
            legal = referee.check_against_view(view_file, data, source,
                                               _signature_beside(game))
        except Refused as exc:
            if lang is None:
                lang = referee.view_language(view_file)
            raise in_language(exc, lang) from None
        from rebis_pbm.present.i18n import gettext_for, spoken
        _ = gettext_for(spoken(referee.view_language(view_file) if lang is None else lang))
        click.echo(_("{source}: a legal move of turn {turn} by {player} in {view}'s position; "
                     "the referee will accept it if nothing has changed since.").format(
                         source=source, turn=legal.turn, player=legal.player, view=view_file))
        return
    if game is None or move_file is None:
        raise click.UsageError("give GAME and MOVE.yaml, or MOVE.yaml --view VIEW.yaml")
    lang = None if lang is None else check_language(lang)
    file_name = checked_name(move_file, check_name)
    referee.require_record(game)
    try:
        referee.read_record(game)  # the record first: a swapped GAME is said before the move
    except InputError as exc:
        raise referee.swapped_arguments(exc, game, "check") from None
    data, source = read_input(move_file, kind="move")
    try:
        record, move = referee.check_move_file(game, data, source, author=author,
                                               file_name=file_name)
    except Refused as exc:
        player, mover_lang = referee.mover_of(game, data, author)
        refuse_for_mover(exc, player, lang or mover_lang)
    click.echo(f"{source}: a well-formed move of turn {move.turn} by {move.player} for game "
               f"{record.game}; the rules are checked when it is applied.")


def _signature_beside(move: str) -> bytes | None:
    """The signature file ``MOVE.sig`` beside a move file, read as ``apply`` reads it; None
    when there is none (or the move comes from standard input)."""
    import os

    from rebis_pbm.files.names import SIGNATURE
    if move == "-" or not os.path.exists(move + SIGNATURE):
        return None
    return read_input(move + SIGNATURE, kind="signature")[0]
