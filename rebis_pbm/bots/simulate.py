"""Play many games between bots in memory and report what happened (``rebis-pbm simulate``).

Every game is a pure function of its :class:`GameSpec`: its own seed (``SEED/NUMBER``) shuffles
the deck (R5, the documented shuffle) and seeds each seat's bot (``SEED/NUMBER/NAME``), so the
same simulation seed gives the same games whatever the number of processes, and any one game can
be played again alone from the seed the report gives. Each bot chooses from its own information
set (:func:`~rebis_pbm.engine.information_set`); the engine checks every move
(:func:`~rebis_pbm.engine.apply_move`), and each finished game is checked against the invariants
of :func:`invariant_problems` and replayed from its seed and moves.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypedDict

from rebis_pbm.bots import STRATEGIES, make_bot
from rebis_pbm.engine import (
    GOLD,
    GOLDEN_DUST,
    RED,
    IllegalMove,
    Move,
    Ruleset,
    State,
    apply_move,
    information_set,
    replay,
    scores,
    setup,
    winners,
)

NAMES = ("north", "east", "south", "west")  # seat names of simulated games, in seat order


@dataclass(frozen=True)
class GameSpec:
    """One simulated game: ``number`` (from 1), its ``seed``, the seat names in seat order, each
    seat's strategy, and the Zero option (R2)."""

    number: int
    seed: str
    players: tuple[str, ...]
    strategies: tuple[str, ...]
    zero: bool = False

    @property
    def ruleset(self) -> Ruleset:
        return Ruleset(zero=self.zero)


@dataclass(frozen=True)
class GameResult:
    """What one game gave.

    Attributes:
        spec: the game played.
        moves: the moves, in order (the red-token placement included).
        end: why the game ended (``deck_empty`` or ``tokens_exhausted``, R11); None if it did not.
        scores: final totals in seat order (R13).
        winners: seats sharing the win.
        red_token: seat that received the red token (R12), None if none was awarded.
        red_on_own_shelf: whether that seat placed it on one of its own shelves.
        problems: invariant violations, each one sentence (empty for a sound game).
    """

    spec: GameSpec
    moves: tuple[Move, ...]
    end: str | None
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    red_token: int | None
    red_on_own_shelf: bool
    problems: tuple[str, ...]


def parse_players(text: str) -> tuple[int, ...]:
    """``"3"`` -> ``(3,)``; ``"2-4"`` -> ``(2, 3, 4)`` (games cycle through the counts).

    Raises:
        ValueError: not a count or range within 2-4 (R5).
    """
    low, sep, high = text.partition("-")
    try:
        first, last = int(low), int(high if sep else low)
    except ValueError:
        raise ValueError(f"{text!r}: give a number of players (2 to 4) or a range such as 2-4") \
            from None
    if not 2 <= first <= last <= 4:
        raise ValueError(f"{text!r}: Rebis is played by 2 to 4 players (R5); give a number or a "
                         f"range such as 2-4")
    return tuple(range(first, last + 1))


def game_specs(games: int, players: tuple[int, ...], strategies: tuple[str, ...], seed: str,
               zero: bool = False) -> list[GameSpec]:
    """The games of a simulation, numbered from 1.

    Game ``i`` (from 0) has ``players[i % len(players)]`` seats; seat ``k`` plays
    ``strategies[(i + k) % len(strategies)]``, so with several strategies each one takes every
    seat equally often.

    Raises:
        ValueError: an unknown strategy, or no strategy.
    """
    if not strategies:
        raise ValueError("give at least one strategy")
    for strategy in strategies:
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}; use one of {', '.join(STRATEGIES)}")
    specs = []
    for i in range(games):
        n = players[i % len(players)]
        specs.append(GameSpec(i + 1, f"{seed}/{i + 1}", NAMES[:n],
                              tuple(strategies[(i + k) % len(strategies)] for k in range(n)), zero))
    return specs


def play_game(spec: GameSpec) -> GameResult:
    """Play one game between bots. An illegal move, a crash or a broken invariant does not raise:
    it becomes one of the result's ``problems`` (the game stops at a crash or illegal move)."""
    ruleset = spec.ruleset
    state, _ = setup(ruleset, spec.players, spec.seed)
    bots = [make_bot(strategy, f"{spec.seed}/{name}")
            for name, strategy in zip(spec.players, spec.strategies, strict=False)]
    moves: list[Move] = []
    problems: list[str] = []
    limit = ruleset.card_count + 2  # every turn draws a card; the red token is one move more
    red_seat = None
    while not state.finished:
        if len(moves) >= limit:
            problems.append(f"the game did not end after {limit} moves")
            break
        mover = state.to_move
        assert mover is not None  # the game goes on: someone is to move
        who = f"the {spec.strategies[mover]} bot of {spec.players[mover]}"
        try:
            move = bots[mover].choose(information_set(state, mover))
            state, _ = apply_move(state, move)
        except IllegalMove as exc:
            problems.append(f"turn {state.turn}: {who} chose an illegal move ({exc.message})")
            break
        except Exception as exc:  # a crash is what a simulation is for finding: report, go on
            problems.append(f"turn {state.turn}, {who} to move: crash "
                            f"({type(exc).__name__}: {exc})")
            break
        if move.red_token is not None:
            red_seat = mover
        moves.append(move)
    problems += invariant_problems(state)
    if not problems and replay(ruleset, spec.players, spec.seed, moves) != state:
        problems.append("replaying the seed and the moves gives another final state")
    red_move = moves[-1] if red_seat is not None else None
    return GameResult(
        spec=spec,
        moves=tuple(moves),
        end=state.end_reason,
        scores=scores(state),
        winners=tuple(spec.players.index(p) for p in winners(state)),
        red_token=red_seat,
        red_on_own_shelf=red_move is not None and red_move.red_token is not None
        and red_move.red_token.player == red_move.player,
        problems=tuple(problems),
    )


def invariant_problems(state: State) -> list[str]:
    """Checks that hold in every reachable state, each failure one sentence.

    Every card of the ruleset's deck is in the deck, a hand or on a shelf exactly once (R1, R2);
    every token is in the supply, a reserve or on a shelf (R3, R10); every shelf weighs at most
    the shelf limit (R7, R8.1) and is worth 0 or more (R7, R8.2); hands are sorted.
    """
    problems = []
    ruleset = state.ruleset
    seen = Counter(state.deck)
    for hand in state.hands:
        seen.update(hand)
        if list(hand) != sorted(hand):
            problems.append("a hand is not sorted")
    on_shelves: Counter[str] = Counter()
    for seat, row in enumerate(state.shelves):
        for number, shelf in enumerate(row, start=1):
            seen.update(card.number for card in shelf.cards)
            on_shelves.update(shelf.tokens)
            where = f"{state.players[seat]}'s shelf {number}"
            if shelf.weight > ruleset.shelf_limit:
                problems.append(f"{where} weighs {shelf.weight}, over the limit "
                                f"{ruleset.shelf_limit}")
            if shelf.value < 0:
                problems.append(f"{where} is worth {shelf.value}, below 0")
    if seen != Counter(ruleset.cards):
        problems.append("the cards in the deck, the hands and on the shelves are not the "
                        "ruleset's deck")
    supply = state.supply
    for kind, total, left in ((GOLDEN_DUST, ruleset.golden_dust, supply.golden_dust),
                              (GOLD, ruleset.gold, supply.gold), (RED, ruleset.red, supply.red)):
        held = left + on_shelves[kind] + (sum(state.reserves) if kind == GOLDEN_DUST else 0)
        if held != total:
            problems.append(f"{total} {kind} token(s) in the ruleset, {held} accounted for")
    return problems


def _play_chunk(specs: list[GameSpec]) -> list[GameResult]:
    return [play_game(spec) for spec in specs]


def run(specs: list[GameSpec], jobs: int = 1,
        progress: Callable[[int], object] | None = None) -> tuple[list[GameResult], float]:
    """Play ``specs`` on ``jobs`` processes; results come back in game order, identical for any
    ``jobs``. ``progress(n)`` is called as each ``n`` games finish. Returns (results, wall
    seconds).
    """
    start = time.perf_counter()
    if jobs <= 1 or len(specs) <= 1:
        results = []
        for spec in specs:
            results.append(play_game(spec))
            if progress:
                progress(1)
        return results, time.perf_counter() - start
    from concurrent.futures import ProcessPoolExecutor, as_completed

    size = max(1, min(50, len(specs) // (jobs * 8)))  # small chunks: a smooth bar, little overhead
    chunks = [specs[i:i + size] for i in range(0, len(specs), size)]
    by_number: dict[int, GameResult] = {}
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for future in as_completed([pool.submit(_play_chunk, chunk) for chunk in chunks]):
            done = future.result()
            by_number.update((r.spec.number, r) for r in done)
            if progress:
                progress(len(done))
    return [by_number[spec.number] for spec in specs], time.perf_counter() - start


# --- the report -------------------------------------------------------------------------------

class Spread(TypedDict, total=False):
    """How values spread (empty when there are none): quartiles and mean rounded to 2 places."""

    min: int
    q1: float
    median: float
    q3: float
    max: int
    mean: float


class Timing(TypedDict):
    """How long the games took (the only part of a report that depends on the machine)."""

    jobs: int
    seconds: float
    games_per_second: float | None
    turns_per_second: float | None


class Turns(TypedDict):
    total: int
    per_game: Spread


class Ends(TypedDict):
    """How many games ended each way (R11)."""

    deck_empty: int
    tokens_exhausted: int


class Scores(TypedDict):
    all: Spread
    winning: Spread


class SeatRow(TypedDict):
    """A seat (from 1): its games, its share of the wins per game, the red tokens it got."""

    seat: int
    games: int
    win_rate: float
    red_token: int


class StrategyRow(TypedDict):
    """A strategy: the seats it played, its win rate and mean score (None: it played none)."""

    strategy: str
    seats_played: int
    win_rate: float | None
    mean_score: float | None
    red_token: int


class RedToken(TypedDict):
    awarded: int
    placed_on_own_shelf: int


class ProblemRow(TypedDict):
    """An invariant that failed in a game, with what replays that game."""

    game: int
    seed: str
    seats: list[str]
    strategies: list[str]
    zero: bool
    problem: str


class Report(TypedDict):
    """The simulation's report (the JSON output of ``rebis-pbm simulate --format json``)."""

    games: int
    seed: str
    players: list[int]
    strategies: list[str]
    zero: bool
    timing: Timing
    turns: Turns
    end: Ends
    scores: Scores
    seats: list[SeatRow]
    by_strategy: list[StrategyRow]
    red_token: RedToken
    problems: list[ProblemRow]


def _spread(values: list[int]) -> Spread:
    if not values:
        return {}
    ordered = sorted(values)
    quartiles = statistics.quantiles(ordered, n=4) if len(ordered) > 1 else [ordered[0]] * 3
    return {"min": ordered[0], "q1": round(quartiles[0], 2), "median": statistics.median(ordered),
            "q3": round(quartiles[2], 2), "max": ordered[-1],
            "mean": round(statistics.fmean(ordered), 2)}


def report(results: list[GameResult], *, seed: str, players: tuple[int, ...],
           strategies: tuple[str, ...], zero: bool, seconds: float, jobs: int) -> Report:
    """The simulation's report as plain data (the JSON output).

    Everything but ``timing`` depends only on the games, never on ``jobs`` or the machine.
    Wins are counted as shares: a win shared by k players counts 1/k for each (R13).
    """
    turns = [len(r.moves) for r in results]
    seat_games: Counter[int] = Counter()
    seat_wins: defaultdict[int, float] = defaultdict(float)  # shares of wins
    seat_red: Counter[int] = Counter()
    strategy_games: Counter[str] = Counter()
    strategy_wins: defaultdict[str, float] = defaultdict(float)
    strategy_red: Counter[str] = Counter()
    strategy_scores: dict[str, list[int]] = {s: [] for s in strategies}
    all_scores: list[int] = []
    winning: list[int] = []
    red_own = 0
    problems: list[ProblemRow] = []
    for r in results:
        spec = r.spec
        share = 1 / len(r.winners) if r.winners else 0
        for seat, strategy in enumerate(spec.strategies):
            seat_games[seat + 1] += 1
            strategy_games[strategy] += 1
            strategy_scores[strategy].append(r.scores[seat])
            if seat in r.winners:
                seat_wins[seat + 1] += share
                strategy_wins[strategy] += share
        all_scores.extend(r.scores)
        if r.winners:
            winning.append(r.scores[r.winners[0]])
        if r.red_token is not None:
            seat_red[r.red_token + 1] += 1
            strategy_red[spec.strategies[r.red_token]] += 1
            red_own += r.red_on_own_shelf
        for problem in r.problems:
            problems.append({"game": spec.number, "seed": spec.seed, "seats": list(spec.players),
                             "strategies": list(spec.strategies), "zero": spec.zero,
                             "problem": problem})
    total_turns = sum(turns)
    return {
        "games": len(results),
        "seed": seed,
        "players": list(players),
        "strategies": list(strategies),
        "zero": zero,
        "timing": {
            "jobs": jobs,
            "seconds": round(seconds, 3),
            "games_per_second": round(len(results) / seconds, 1) if seconds else None,
            "turns_per_second": round(total_turns / seconds, 1) if seconds else None,
        },
        "turns": {"total": total_turns, "per_game": _spread(turns)},
        "end": {"deck_empty": sum(1 for r in results if r.end == "deck_empty"),
                "tokens_exhausted": sum(1 for r in results if r.end == "tokens_exhausted")},
        "scores": {"all": _spread(all_scores), "winning": _spread(winning)},
        "seats": [{"seat": seat, "games": seat_games[seat],
                   "win_rate": round(seat_wins[seat] / seat_games[seat], 4),
                   "red_token": seat_red[seat]} for seat in sorted(seat_games)],
        "by_strategy": [{"strategy": s, "seats_played": strategy_games[s],
                         "win_rate": round(strategy_wins[s] / strategy_games[s], 4)
                         if strategy_games[s] else None,
                         "mean_score": round(statistics.fmean(strategy_scores[s]), 2)
                         if strategy_scores[s] else None,
                         "red_token": strategy_red[s]} for s in strategies],
        "red_token": {"awarded": sum(seat_red.values()), "placed_on_own_shelf": red_own},
        "problems": problems,
    }


def render_text(rep: Report) -> str:
    """The report for a person."""
    t = rep["timing"]
    per = rep["turns"]["per_game"]
    lines = [
        f"Simulated {rep['games']} games (seed {rep['seed']!r}, players "
        f"{'/'.join(map(str, rep['players']))}, strategies {', '.join(rep['strategies'])}"
        f"{', Zero option' if rep['zero'] else ''}).",
        f"Speed: {t['seconds']} s on {t['jobs']} process(es): {t['games_per_second']} games/s, "
        f"{t['turns_per_second']} turns/s.",
    ]
    if per:
        lines.append(f"Turns per game: min {per['min']}, median {per['median']}, mean "
                     f"{per['mean']}, max {per['max']} ({rep['turns']['total']} in all).")
    lines.append(f"How games ended (R11): deck empty {rep['end']['deck_empty']}, tokens "
                 f"exhausted {rep['end']['tokens_exhausted']}.")
    for label, s in (("Scores (every player)", rep["scores"]["all"]),
                     ("Winning scores", rep["scores"]["winning"])):
        if s:
            lines.append(f"{label}: min {s['min']}, q1 {s['q1']}, median {s['median']}, q3 "
                         f"{s['q3']}, max {s['max']}, mean {s['mean']}.")
    lines.append("Win rate by seat (shared wins count 1/k): " + ", ".join(
        f"seat {s['seat']} {s['win_rate']:.1%} of {s['games']}" for s in rep["seats"]) + ".")
    lines.append("By strategy: " + "; ".join(
        f"{s['strategy']} win rate {s['win_rate']:.1%} over {s['seats_played']} seats, mean "
        f"score {s['mean_score']}, red token {s['red_token']}" for s in rep["by_strategy"]
        if s["seats_played"]) + ".")
    red = rep["red_token"]
    lines.append(f"Red token (R12): awarded {red['awarded']} times, to seat " + ", ".join(
        f"{s['seat']}: {s['red_token']}" for s in rep["seats"]) +
        f"; placed on the recipient's own shelf {red['placed_on_own_shelf']} times.")
    if rep["problems"]:
        lines.append(f"INVARIANT VIOLATIONS: {len(rep['problems'])}")
        for p in rep["problems"]:
            seats = ", ".join(f"{n}={s}"
                              for n, s in zip(p["seats"], p["strategies"], strict=False))
            lines.append(f"  game {p['game']} (seed {p['seed']!r}, seats {seats}"
                         f"{', Zero' if p['zero'] else ''}): {p['problem']}")
    else:
        lines.append("Invariant violations: none.")
    return "\n".join(lines) + "\n"
