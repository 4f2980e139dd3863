"""Burden and the red token (R12); score and winners (R13).

The rows of a score table are immutable named tuples (cheaper to define than dataclasses, at
every command's start); read them by field name.
"""

from __future__ import annotations

from typing import NamedTuple

from rebis_pbm.engine.state import State


class ShelfScore(NamedTuple):
    """One shelf's part of a score (R13): ``score = value * multiplier``."""

    shelf: int        # number, from 1
    active: bool
    weight: int
    value: int
    tokens: int       # tokens of every kind on the shelf (R4: all kinds alike)
    multiplier: int
    score: int


class PlayerScore(NamedTuple):
    """One player's score (R13): their shelves' parts, and ``total``, the sum of their scores."""

    player: str
    shelves: tuple[ShelfScore, ...]
    total: int


class Burden(NamedTuple):
    """R12: ``negative`` = sum of the numbers of the face-up - cards on the player's shelves;
    ``hand`` = cards in hand; ``total`` = their sum."""

    player: str
    negative: int
    hand: int
    total: int


def score_table(state: State) -> tuple[PlayerScore, ...]:
    """Every player's score, shelf by shelf, in seat order (R13, multiplier R4).

    Face-down cards are worth 0, so the table depends on public information only.
    """
    table: list[PlayerScore] = []
    for seat, player in enumerate(state.players):
        shelves: list[ShelfScore] = []
        last = len(state.shelves[seat]) - 1
        for i, shelf in enumerate(state.shelves[seat]):
            value = shelf.value
            multiplier = state.ruleset.token_multiplier(len(shelf.tokens))
            shelves.append(ShelfScore(i + 1, i == last, shelf.weight, value, len(shelf.tokens),
                                      multiplier, value * multiplier))
        table.append(PlayerScore(player, tuple(shelves), sum(s.score for s in shelves)))
    return tuple(table)


def scores(state: State) -> tuple[int, ...]:
    """Every player's total score in seat order: the totals of :func:`score_table`, computed
    without building the table (a bot's look-ahead asks for them after every candidate move)."""
    multiplier = state.ruleset.token_multiplier
    return tuple(sum(shelf.value * multiplier(len(shelf.tokens)) for shelf in row)
                 for row in state.shelves)


def winners(state: State) -> tuple[str, ...]:
    """The players with the highest score, in seat order; several share the win (R13).

    Raises:
        ValueError: the state has no player (no state made by the engine is so).
    """
    table = score_table(state)
    best = max(p.total for p in table)
    return tuple(p.player for p in table if p.total == best)


def burdens(state: State) -> tuple[Burden, ...]:
    """Every player's burden in seat order (R12)."""
    result: list[Burden] = []
    for seat, player in enumerate(state.players):
        negative = sum(c.number for shelf in state.shelves[seat] for c in shelf.cards
                       if c.factor < 0)
        hand = len(state.hands[seat])
        result.append(Burden(player, negative, hand, negative + hand))
    return tuple(result)


def red_token_holder(state: State) -> int:
    """Seat of the player who receives the red token (R12).

    Highest burden; tie: more cards in hand; still tied: the first of them in seat order counting
    from the player after the one who took the last turn.
    """
    table = burdens(state)
    n = len(table)
    start = 0 if state.last_mover is None else (state.last_mover + 1) % n
    # Seat order counted from ``start``: a smaller distance wins the last tie-break.
    return max(range(n), key=lambda s: (table[s].total, table[s].hand, -((s - start) % n)))
