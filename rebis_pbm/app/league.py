"""A league's table: standings over the verified records of a folder of games (docs/league.md).

:func:`standings` is the use case of ``rebis-pbm league DIR``. It finds the records of a folder
(a shard: ``DIR/NAME/game.yaml`` as ``git apply --games`` keeps them, or ``DIR/*.yaml``) as
``verify`` does (:func:`rebis_pbm.app.record_paths`), verifies each one
(:func:`rebis_pbm.app.verify_many`) and counts only those that pass: a record that fails is
listed as such and counted nowhere. A player is a name: the same name in two games is the
same player.

The rules of the table (one place; docs/league.md words them for people):

- ``games``: the verified games the player is seated in, in any state; ``finished``: those
  that are over (R13 gave a final score).
- ``wins``: finished games they won alone; ``shared_wins``: finished games whose win they
  shared (R13: several players with the highest score).
- ``points``: one point per finished game, split equally among its winners (a shared win of
  two is 1/2 each), an exact fraction; ``score``: the sum of their final scores (R13) over
  finished games. Games in progress or abandoned (seed revealed before the end) give neither.
- ``missed_turns``: the turns the referee played for them because they missed the deadline
  (:func:`rebis_pbm.record.deadlines.missed_turns`); ``stand_ins``: every move the referee
  made for them (``by: referee`` in the record: a missed deadline, a player replaced by the
  bot after missed deadlines, or at their request: :func:`rebis_pbm.app.stand_ins`).
- Ranking: points, then wins, then score, highest first; then the name in the order of
  :func:`name_order` (case and accents aside: carol before José before Zoë).

Everything is read from the public record (face-down cards count 0 in a game in progress,
which gives no score anyway), so no hidden card reaches the table; nothing reads the clock.

The table's types and its renderings are :mod:`rebis_pbm.present.league`'s.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from fractions import Fraction

from rebis_pbm.engine import score_table, winners
from rebis_pbm.errors import RebisError, one_line
from rebis_pbm.files.atomic import PathLike
from rebis_pbm.present.league import (
    ABANDONED,
    FINISHED,
    JOINING,
    PLAYING,
    GameLine,
    NotCounted,
    Standing,
    Standings,
)


def standings(paths: Iterable[PathLike], jobs: int = 1,
              referee: str | None = None) -> Standings:
    """The standings of the games ``paths`` name (folders are searched for records as
    :func:`rebis_pbm.app.record_paths` does), from the records that pass ``verify`` (each with
    its seed where it is at hand, as ``verify`` finds it; ``jobs`` processes verify them).
    ``referee``: the fingerprint of the league's referee key (``league --referee-pub``): a record
    not signed by it, one with no referee key included, is not counted.

    Raises:
        InputError: a path that does not exist, or a folder with no record (exit 2).
    """
    from rebis_pbm.app.reading import record_paths, verify_many

    records = record_paths(paths)
    lines: list[GameLine] = []
    left_out: list[NotCounted] = []
    seen: dict[str, str] = {}  # game id -> the path counted for it
    for path, report in zip(records, verify_many(records, jobs, referee=referee), strict=True):
        if report.problem is not None:
            left_out.append(NotCounted(path, report.game, one_line(
                f"fails verification at {report.problem.sentence()}")))
            continue
        try:
            line = game_line(path)
        except RebisError as exc:  # passed verify, then could not be read again (changed)
            left_out.append(NotCounted(path, report.game, one_line(str(exc))))
            continue
        if line.game in seen:  # a copy of a game counts once
            left_out.append(NotCounted(path, line.game, one_line(
                f"another record of game {line.game} is counted ({seen[line.game]})")))
            continue
        seen[line.game] = path
        lines.append(line)
    return Standings(rank(lines), lines, left_out)


def game_line(path: PathLike) -> GameLine:
    """The line of one game in the table, from its public record (read with the seed when it
    is at hand: :func:`rebis_pbm.app.public_game_state`).

    Raises:
        as :func:`rebis_pbm.app.public_game_state`.
    """
    import os

    from rebis_pbm.app.views import public_game_state, stand_ins
    from rebis_pbm.record.deadlines import deadline_of, missed_turns

    record, replay = public_game_state(path)
    state = replay.state
    made_for: dict[str, int] = {}
    for turn in stand_ins(record):
        mover = record.moves[turn - 1].player
        made_for[mover] = made_for.get(mover, 0) + 1
    missed = {p: n for p in record.players if (n := missed_turns(record, p))}
    if state is None:  # a fair deal's join phase; ended before the deal (rebis-pbm/5): abandoned
        ended = record.seed is not None
        return GameLine(os.fspath(path), record.game, record.players,
                        ABANDONED if ended else JOINING, 0, None,
                        () if ended else record.waiting_for(), None, (), {}, made_for, missed)
    scores = {p.player: p.total for p in score_table(state)}
    won: tuple[str, ...]
    if record.abandoned(state):
        kind, to_move, deadline, won = ABANDONED, None, None, ()
    elif state.finished:
        kind, to_move, deadline, won = FINISHED, None, None, winners(state)
    else:
        kind, to_move, deadline, won = PLAYING, state.player_to_move, deadline_of(record), ()
    return GameLine(os.fspath(path), record.game, record.players, kind, state.turn, to_move, (),
                    deadline, won, scores, made_for, missed)


def rank(games: Iterable[GameLine]) -> list[Standing]:
    """Every player of ``games`` with their line of the table, ranked (the rules: the
    module's docstring).

    >>> won = GameLine("a.yaml", "a", ("ann", "bo"), FINISHED, 9, None, (), None, ("ann", "bo"),
    ...                {"ann": 40, "bo": 40}, {"bo": 1}, {"bo": 1})
    >>> [(s.player, str(s.points), s.shared_wins, s.stand_ins) for s in rank([won])]
    [('ann', '1/2', 1, 0), ('bo', '1/2', 1, 1)]
    """
    table: dict[str, Standing] = {}
    for game in games:
        for player in game.players:
            line = table.get(player, Standing(player))
            line = line._replace(games=line.games + 1,
                                 stand_ins=line.stand_ins + game.stand_ins.get(player, 0),
                                 missed_turns=line.missed_turns + game.missed.get(player, 0))
            if game.state == FINISHED:
                line = line._replace(finished=line.finished + 1,
                                     score=line.score + game.scores[player])
                if player in game.winners:
                    line = line._replace(
                        wins=line.wins + (len(game.winners) == 1),
                        shared_wins=line.shared_wins + (len(game.winners) > 1),
                        points=line.points + Fraction(1, len(game.winners)))
            table[player] = line
    return sorted(table.values(),
                  key=lambda s: (-s.points, -s.wins, -s.score, *name_order(s.player)))


def name_order(name: str) -> tuple[str, str]:
    """The key that orders player names of a tie: ``name`` case-folded, in NFKD without its
    combining marks (so ``carol`` comes before ``José``, and ``José`` beside ``jose``), then the
    name itself, so that the order stays total and the same on every machine.

    >>> sorted(["Zoë", "José", "carol", "jose"], key=name_order)
    ['carol', 'José', 'jose', 'Zoë']
    """
    bare = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    return bare.casefold(), name
