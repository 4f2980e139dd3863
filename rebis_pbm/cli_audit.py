"""The audit commands: ``rebis-pbm verify`` and ``rebis-pbm reveal`` (docs/audit.md).

A thin shell: the checks are :mod:`rebis_pbm.audit`, the record is :mod:`rebis_pbm.record`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from .cli import (EXIT_INPUT, EXIT_VERIFY, Failure, cli, default_views_dir, load_game_with_seed,
                  make_views_dir, require_record, write_views)
from .fileio import locked, read_input, write_atomic
from .record import SEED_ENV, Record, dump_record, read_secret, secret_path


@cli.command()
@click.argument("game", type=click.Path(dir_okay=False, readable=False, path_type=Path))
@click.option("--seed-file", type=click.Path(dir_okay=False, readable=False, path_type=Path),
              metavar="FILE",
              help="The game's secret file (game.secret.yaml), for a game whose record does not "
              "reveal its seed yet. Default: $REBIS_PBM_SEED, else the secret file beside GAME "
              "if there is one.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.pass_context
def verify(ctx: click.Context, game: Path, seed_file: Path | None, fmt: str) -> None:
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
    Exit codes: 0 verified (the text says what could not be checked without the
    seed); 3 verification failed (the record is edited, cut short, or not the game
    its seed deals); 2 GAME or the seed file cannot be read.
    """
    from .audit import verify as run_verify

    data, source = read_input(str(game), kind="record")

    def find_seed(record: Record) -> tuple[str, str] | None:
        if seed_file is not None:
            return read_secret(seed_file, record), str(seed_file)
        if record.seed is not None:
            return None  # the record's own seed is the one to check
        if os.environ.get(SEED_ENV):
            return os.environ[SEED_ENV], SEED_ENV
        sidecar = secret_path(game)
        if os.path.exists(sidecar):
            return read_secret(sidecar, record), str(sidecar)
        return None

    report = run_verify(data, source, find_seed)
    if fmt == "json":
        click.echo(json.dumps(report.as_dict(), indent=2))
    else:
        click.echo(report.render_text(), nl=False)
    if not report.verified:
        ctx.exit(EXIT_VERIFY)


@cli.command()
@click.argument("game", type=click.Path(dir_okay=False, readable=False, path_type=Path))
@click.option("--yes", is_flag=True, help="Confirm: reveal the seed, ending the game for good.")
@click.option("--views-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where the views are (default: GAME's name with .views, beside it).")
def reveal(game: Path, yes: bool, views_dir: Path | None) -> None:
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
    require_record(game)
    with locked(game):
        record, replay, seed = load_game_with_seed(game)
        if record.seed is not None:
            click.echo(f"{game} already reveals the seed of game {record.game}; nothing changed.")
            return
        state = replay.state
        if not yes:
            raise Failure(f"this would write the seed of game {record.game} into {game}: every "
                          f"hand, the deck and every face-down card become known and the game "
                          f"ends for good at turn {state.turn} ({state.player_to_move} to move); "
                          f"nothing was written. Run again with --yes to do it", EXIT_INPUT)
        revealed = record.revealed(seed)
        views_dir = views_dir or default_views_dir(game)
        make_views_dir(views_dir)  # a bad --views-dir is refused before the record changes
        write_atomic(game, dump_record(revealed, state))
        # The views now say "abandoned" and show every card, like the record.
        write_views(views_dir, revealed, replay)
    click.echo(f"Revealed the seed of game {record.game} in {game}: the game is abandoned at turn "
               f"{state.turn} and no more moves can be played. Anyone can now check it with: "
               f"rebis-pbm verify {game}")
