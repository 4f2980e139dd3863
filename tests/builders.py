"""Helpers that build exact positions for the rule tests.

``make_state`` constructs a :class:`State` directly (the dataclass is public), so that each test
sets up precisely the situation it checks instead of hunting for it in random games.

Shelves are written as strings, bottom card first::

    shelf("?5", "+6", "-2", tokens=("gold",))

``?n`` is a face-down card (dealt at setup unless ``?n@seat`` names who placed it), ``+n`` / ``-n``
face-up cards; ``+n@seat`` names who placed a face-up card (default: the shelf's owner for ``+``,
the next seat for ``-``; only a few tests care).
"""

from __future__ import annotations

from collections import Counter

import pytest

from rebis_pbm.engine import (
    DEALT,
    GOLD,
    GOLDEN_DUST,
    NEGATIVE,
    PLAY,
    POSITIVE,
    REASONS,
    RED,
    IllegalMove,
    Move,
    Play,
    Ruleset,
    Shelf,
    ShelfCard,
    ShelfRef,
    State,
    Supply,
    apply_move,
    check_move,
)

NAMES = ("ana", "bea", "cal", "dan")


def card(spec: str, owner: int = 0, seats: int = 2) -> ShelfCard:
    """One shelf card from ``?n``, ``+n``, ``-n``, optionally ``@seat`` (who placed it)."""
    body, _, by = spec.partition("@")
    kind, number = body[0], int(body[1:])
    if kind == "?":
        return ShelfCard(number, 0, int(by) if by else DEALT)
    if kind == "+":
        return ShelfCard(number, 1, int(by) if by else owner)
    if kind == "-":
        return ShelfCard(number, -1, int(by) if by else (owner + 1) % seats)
    raise ValueError(f"bad card spec {spec!r}")


def shelf(*specs: str, tokens: tuple[str, ...] = (), owner: int = 0, seats: int = 2) -> Shelf:
    return Shelf(tuple(card(s, owner, seats) for s in specs), tuple(tokens))


def make_state(
    *,
    ruleset: Ruleset | None = None,
    players: int = 3,
    seats: tuple[str, ...] | None = None,
    hands: list | tuple = (),
    shelves: list | tuple = (),
    deck: tuple[int, ...] | list[int] = (1, 2, 3, 4, 5, 6, 7, 8, 9),
    reserves: tuple[int, ...] | None = None,
    supply: Supply | tuple[int, int, int] | None = None,
    turn: int = 10,
    to_move: int | None = 0,
    phase: str = PLAY,
    drawn: int | None = None,
    last_mover: int | None = None,
    end_reason: str | None = None,
) -> State:
    """A State built from parts.

    Args:
        hands: per seat, the card numbers in hand (missing seats: empty hand).
        shelves: per seat, a list of shelves; each shelf a Shelf or a tuple of card specs (missing
            seats: one active shelf holding a dealt face-down 5).
        deck: the cards still to draw, top first. ``order`` is every card out of the deck (hands
            and shelves) followed by ``deck``, and ``deck_pos`` points at ``deck``'s top, so that
            the state holds every card exactly once.
        supply: by default the ruleset's tokens minus those in reserves and on shelves (tokens
            conserved); give it to build other situations.
    """
    ruleset = ruleset or Ruleset()
    seats = tuple(seats or NAMES[:players])
    n = len(seats)
    hands = [tuple(sorted(h)) for h in hands] + [()] * (n - len(hands))
    rows = []
    for seat in range(n):
        given = shelves[seat] if seat < len(shelves) else [("?5",)]
        row = []
        for s in given:
            row.append(s if isinstance(s, Shelf) else shelf(*s, owner=seat, seats=n))
        rows.append(tuple(row))
    reserves = tuple(reserves) if reserves is not None else (0,) * n
    if supply is None:
        on_shelves = Counter(k for row in rows for s in row for k in s.tokens)
        supply = Supply(ruleset.golden_dust - sum(reserves) - on_shelves[GOLDEN_DUST],
                        ruleset.gold - on_shelves[GOLD], ruleset.red - on_shelves[RED])
        if min(supply.golden_dust, supply.gold, supply.red) < 0:
            raise ValueError("more tokens placed than the ruleset has: give supply explicitly")
    elif not isinstance(supply, Supply):
        supply = Supply(*supply)
    out = [c for h in hands for c in h] + [c.number for row in rows for s in row for c in s.cards]
    order = tuple(out) + tuple(deck)
    return State(
        ruleset=ruleset, players=seats, order=order, deck_pos=len(out), hands=tuple(hands),
        shelves=tuple(rows), reserves=reserves, supply=supply, turn=turn, phase=phase,
        to_move=to_move, drawn=drawn, last_mover=last_mover, end_reason=end_reason,
    )


def play(state: State, cards, shelf_owner: str, sign: str = POSITIVE, *, dust: int = 0,
         gold: tuple[str, int] | None = None, player: str | None = None,
         turn: int | None = None) -> Move:
    """The move of the player to move (or ``player``) for the current turn (or ``turn``)."""
    cards = (cards,) if isinstance(cards, int) else tuple(cards)
    return Move(
        turn=state.turn if turn is None else turn,
        player=state.player_to_move if player is None else player,
        golden_dust=dust,
        play=Play(cards, shelf_owner, sign),
        gold_token=None if gold is None else ShelfRef(*gold),
    )


def red(state: State, owner: str, number: int, *, player: str | None = None) -> Move:
    return Move(turn=state.turn, player=state.player_to_move if player is None else player,
                red_token=ShelfRef(owner, number))


def card_multiset(state: State) -> Counter:
    """Every card of the state: deck still to draw, hands and shelves."""
    total = Counter(state.deck)
    for h in state.hands:
        total.update(h)
    for row in state.shelves:
        for s in row:
            total.update(c.number for c in s.cards)
    return total


def token_counts(state: State) -> dict[str, int]:
    """Per kind: supply + reserves + on shelves."""
    on = Counter(k for row in state.shelves for s in row for k in s.tokens)
    return {
        GOLDEN_DUST: state.supply.golden_dust + sum(state.reserves) + on[GOLDEN_DUST],
        GOLD: state.supply.gold + on[GOLD],
        RED: state.supply.red + on[RED],
    }


def rejected(state: State, move: Move, code: str, *words: str) -> IllegalMove:
    """Assert that ``move`` is illegal in ``state`` with ``code``, its message holding ``words``
    (case-insensitive), the same from ``check_move`` and ``apply_move``; returns the error."""
    with pytest.raises(IllegalMove) as checked:
        check_move(state, move)
    with pytest.raises(IllegalMove) as applied:
        apply_move(state, move)
    err = applied.value
    assert (checked.value.code, checked.value.message) == (err.code, err.message)
    assert err.code == code, f"expected {code}, got {err.code}: {err.message}"
    assert err.code in REASONS
    assert str(err) == err.message
    for word in words:
        assert word.lower() in err.message.lower(), f"{word!r} not in {err.message!r}"
    return err


def kinds(events) -> list[str]:
    return [type(e).__name__ for e in events]


__all__ = [
    "GOLD",
    "GOLDEN_DUST",
    "NAMES",
    "NEGATIVE",
    "POSITIVE",
    "RED",
    "card",
    "card_multiset",
    "kinds",
    "make_state",
    "play",
    "red",
    "rejected",
    "shelf",
    "token_counts",
]
