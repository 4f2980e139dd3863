"""``rebis-pbm bot`` and ``rebis-pbm simulate``: moves chosen by bots (rebis_pbm.bots).

Loaded when one of its commands is run (``LAZY_COMMANDS`` of :mod:`rebis_pbm.cli`). ``bot`` is
:func:`rebis_pbm.app.bot_move`; ``simulate`` plays in memory (:mod:`rebis_pbm.bots.simulate`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from rebis_pbm import app as referee
from rebis_pbm.bots import STRATEGIES
from rebis_pbm.cli import cli
from rebis_pbm.errors import ExitCode, Failed, UsageError


@cli.command()
@click.argument("game", type=click.Path(dir_okay=False, readable=False, path_type=Path))
@click.option("--player", metavar="NAME", required=True,
              help="The player to move: the bot chooses from what this player may know.")
@click.option("--strategy", type=click.Choice(STRATEGIES), default="random", show_default=True,
              help="random: uniform over the legal moves; greedy: best score difference one "
              "move ahead (docs/bots.md).")
@click.option("--seed", help="Seed of the random bot's choice (default: a fresh random one); "
              "the same seed makes the same choice in the same position.")
def bot(game: Path, player: str, strategy: str, seed: str | None) -> None:
    """Print a legal move for the player to move in GAME, chosen by a bot.

    The bot sees only that player's information set (their hand and draw, the public shelves,
    supply and reserves), never the deck or other hands. Pipe the output into `apply GAME -`,
    e.g. as the default move of a player who missed a deadline.
    """
    from rebis_pbm.formats.yaml_writer import dump_yaml
    record, move = referee.bot_move(game, player, strategy, seed)
    click.echo(f"# Move chosen by the {strategy} bot for {player} (rebis-pbm bot).")
    click.echo(dump_yaml({"game": record.game, **move.as_dict()}), nl=False)


@cli.command()
@click.option("--games", type=click.IntRange(min=1), default=100, show_default=True,
              help="How many games to play.")
@click.option("--players", default="2-4", show_default=True, metavar="N|LOW-HIGH",
              help="Players per game, 2 to 4; a range makes the games cycle through the counts.")
@click.option("--strategy", "strategies", multiple=True, type=click.Choice(STRATEGIES),
              help="A strategy; repeat to mix them (seat k of game i plays the "
              "(i+k)-th, cycling, so each takes every seat equally). Default: random.")
@click.option("--zero", is_flag=True, help="Play with the Rebis: Zero option (R2).")
@click.option("--seed", help="Seed of the simulation (default: a fresh random one, shown in the "
              "report); game N is dealt from SEED/N.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Processes to play on; the results do not depend on it.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
def simulate(games: int, players: str, strategies: tuple[str, ...], zero: bool,
             seed: str | None, jobs: int, fmt: str) -> None:
    """Play complete games between bots in memory and report on them.

    The report gives games/s and turns/s, turns per game, how games ended (R11), score spreads,
    win rate by seat and by strategy, red token recipients (R12), and every invariant violation
    with the seed of its game. Exit 4 if any game broke an invariant or crashed (a bug).
    """
    import json

    from rebis_pbm.bots.simulate import game_specs, parse_players, render_text, report, run
    try:
        counts = parse_players(players)
    except ValueError as exc:
        raise UsageError(str(exc), "--players") from None
    strategies = strategies or ("random",)
    if seed is None:
        import secrets

        seed = secrets.token_hex(8)
    elif seed == "":
        raise UsageError("the seed cannot be empty", "--seed")
    specs = game_specs(games, counts, strategies, seed, zero)
    if sys.stderr.isatty():
        with click.progressbar(length=len(specs), label="Playing", file=sys.stderr) as bar:
            results, seconds = run(specs, jobs, progress=bar.update)
    else:
        results, seconds = run(specs, jobs)
    rep = report(results, seed=seed, players=counts, strategies=strategies, zero=zero,
                 seconds=seconds, jobs=jobs)
    if fmt == "json":
        click.echo(json.dumps(rep, indent=2))
    else:
        click.echo(render_text(rep), nl=False)
    if rep["problems"]:
        raise Failed(f"{len(rep['problems'])} invariant violation(s) or crash(es) in "
                      f"{len({p['game'] for p in rep['problems']})} game(s): see the report; "
                     f"this is a bug in rebis-pbm", ExitCode.BUG)
