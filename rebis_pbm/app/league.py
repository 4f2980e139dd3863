"""A league's table: standings over the verified records of a folder of games (docs/league.md).

:func:`standings` is the use case of ``rebis-pbm league DIR``. It finds the records of a folder
(a shard: ``DIR/NAME/game.yaml`` as ``git apply --games`` keeps them, or ``DIR/*.yaml``) as
``verify`` does (:func:`rebis_pbm.app.record_paths`), verifies each one
(:func:`rebis_pbm.app.verify_many`) and counts only those that pass: a record that fails is
listed as such and counted nowhere. Of several records of one game id that pass, the one whose
history extends every other's (the latest state: :func:`extends`) counts and the others are
listed as its earlier states or copies; where two fork (neither extends the other), none counts,
as the league cannot tell which is the game; path order never decides. A player is a name: the
same name in two games is the same player.

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
from typing import TYPE_CHECKING

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

if TYPE_CHECKING:  # start-up stays lazy: the record model is read inside the functions
    from rebis_pbm.record.model import Record


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
    read: list[tuple[int, GameLine, Record]] = []  # the records that pass, in path order
    left_out: list[tuple[int, NotCounted]] = []
    for index, (path, report) in enumerate(
            zip(records, verify_many(records, jobs, referee=referee), strict=True)):
        if report.problem is not None:
            left_out.append((index, NotCounted(path, report.game, one_line(
                f"fails verification at {report.problem.sentence()}"))))
            continue
        try:
            line, record = _read_game(path)
        except RebisError as exc:  # passed verify, then could not be read again (changed)
            left_out.append((index, NotCounted(path, report.game, one_line(str(exc)))))
            continue
        read.append((index, line, record))
    counted: list[tuple[int, GameLine]] = []
    by_game: dict[str, list[tuple[int, GameLine, Record]]] = {}
    for entry in read:
        by_game.setdefault(entry[1].game, []).append(entry)
    for same in by_game.values():
        kept, others = _one_of(same)
        counted.extend((index, line) for index, line, _ in same if index == kept)
        left_out.extend(others)
    lines = [line for _, line in sorted(counted, key=lambda c: c[0])]
    return Standings(rank(lines), lines, [n for _, n in sorted(left_out, key=lambda n: n[0])])


def _one_of(same: list[tuple[int, GameLine, Record]]
            ) -> tuple[int | None, list[tuple[int, NotCounted]]]:
    """Which of the verified records of one game id (in path order) counts, and the others,
    each with why it is not counted: the one whose history extends every other's (the latest
    state; of identical copies the first in path order), else none (a fork: the league cannot
    tell which is the game). The one counted is named by its index (None: none is)."""
    latest = same[0]
    for entry in same[1:]:
        if extends(entry[2], latest[2]) and not extends(latest[2], entry[2]):
            latest = entry
    game = latest[1].game
    if all(extends(latest[2], record) for _, _, record in same):
        others = []
        for index, line, record in same:
            if index == latest[0]:
                continue
            reason = (f"another record of game {game} is counted ({latest[1].path}): a copy of it"
                      if extends(record, latest[2]) else
                      f"an earlier state of record {latest[1].path} of game {game}, which is "
                      f"counted: this one's history ({_length(record)}) is the start of that "
                      f"one's ({_length(latest[2])})")
            others.append((index, NotCounted(line.path, game, one_line(reason))))
        return latest[0], others
    forks = [(a, b) for i, a in enumerate(same) for b in same[i + 1:]
             if not extends(a[2], b[2]) and not extends(b[2], a[2])]
    left: list[tuple[int, NotCounted]] = []
    for index, line, _ in same:
        a, b = next(((a, b) for a, b in forks if index in (a[0], b[0])), forks[0])
        left.append((index, NotCounted(line.path, game, one_line(
            f"records {a[1].path} and {b[1].path} of game {game} disagree: neither's history "
            f"extends the other's; none is counted until the referee says which"))))
    return None, left


def _length(record: Record) -> str:
    """How much history ``record`` holds, in words: ``12 moves`` (joins and logged actions
    named when there are any)."""
    parts = [f"{len(record.moves)} move" + ("" if len(record.moves) == 1 else "s")]
    if record.joins:
        parts.append(f"{len(record.joins)} join" + ("" if len(record.joins) == 1 else "s"))
    if record.actions:
        parts.append(f"{len(record.actions)} logged action"
                     + ("" if len(record.actions) == 1 else "s"))
    return ", ".join(parts)


def extends(longer: Record, shorter: Record) -> bool:
    """Whether ``longer``'s history extends ``shorter``'s (or is the same): the same header
    digest, ``shorter``'s join entries the first of ``longer``'s, its moves the first of
    ``longer``'s (the chain digest after its last entry is ``longer``'s at that point), and its
    logged actions the first of ``longer``'s (the same ``chain_sha256`` each). Digests only:
    both records passed ``verify``, which checked each chain against its entries.
    """
    if longer.header_sha256 != shorter.header_sha256:
        return False
    joins = len(shorter.joins)
    if joins > len(longer.joins) or shorter.join_prev(joins) != longer.join_prev(joins):
        return False
    moves = len(shorter.moves)
    # a move comes after every join: a shorter record with moves has all of longer's joins
    # (without moves, the joins compared above are its whole chain)
    if moves and (moves > len(longer.moves) or joins != len(longer.joins)
                  or shorter.last_digest() != longer.prev_digest(moves)):
        return False
    acts = len(shorter.actions)
    return acts <= len(longer.actions) and all(
        a.get("chain_sha256") == b.get("chain_sha256")
        for a, b in zip(shorter.actions, longer.actions[:acts], strict=True))


def game_line(path: PathLike) -> GameLine:
    """The line of one game in the table, from its public record (read with the seed when it
    is at hand: :func:`rebis_pbm.app.public_game_state`).

    Raises:
        as :func:`rebis_pbm.app.public_game_state`.
    """
    return _read_game(path)[0]


def _read_game(path: PathLike) -> tuple[GameLine, Record]:
    """:func:`game_line`, and the record it was read from."""
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
                        () if ended else record.waiting_for(), None, (), {}, made_for,
                        missed), record
    scores = {p.player: p.total for p in score_table(state)}
    won: tuple[str, ...]
    if record.abandoned(state):
        kind, to_move, deadline, won = ABANDONED, None, None, ()
    elif state.finished:
        kind, to_move, deadline, won = FINISHED, None, None, winners(state)
    else:
        kind, to_move, deadline, won = PLAYING, state.player_to_move, deadline_of(record), ()
    return GameLine(os.fspath(path), record.game, record.players, kind, state.turn, to_move, (),
                    deadline, won, scores, made_for, missed), record


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
