"""The state of a game and its setup (R5).

A :class:`State` is immutable: :func:`rebis_pbm.engine.rules.apply_move` returns a new one. It holds
everything, hidden cards included; ``rebis_pbm.present.views`` cuts it down to what one player may
know.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from rebis_pbm.engine import events as ev
from rebis_pbm.engine.cards import DEALT, GOLD, GOLDEN_DUST, HIDDEN, RED, Shelf, ShelfCard
from rebis_pbm.engine.enums import EndReason, Phase, TokenKind
from rebis_pbm.engine.ruleset import Ruleset
from rebis_pbm.engine.shuffle import shuffled

# Aliases of the Phase members (module globals: the hot paths read them faster).
PLAY: Final = Phase.PLAY            # a turn is under way: the player to move plays (R6)
RED_TOKEN: Final = Phase.RED_TOKEN  # the game has ended; the highest burden places it (R12)
FINISHED: Final = Phase.FINISHED    # nothing more to play; the score is final (R13)

MIN_PLAYERS: Final = 2  # R5
MAX_PLAYERS: Final = 4  # R5


class Supply(NamedTuple):
    """Tokens not yet taken (R3)."""

    golden_dust: int
    gold: int
    red: int

    def left(self, kind: TokenKind) -> int:
        """How many tokens of ``kind`` are left.

        Raises:
            KeyError: ``kind`` is no token kind.
        """
        return {GOLDEN_DUST: self.golden_dust, GOLD: self.gold, RED: self.red}[kind]


class State(NamedTuple):
    """Everything about a game at one moment.

    Attributes:
        ruleset: the game's parameters (R1-R4).
        players: player names in seat order (R5); a seat is an index into it.
        order: the whole deck as shuffled at setup, top first; ``order[deck_pos:]`` is the deck
            still to draw from (sharing the tuple keeps a move O(hand + shelves), not O(deck)).
        deck_pos: how many cards have left the deck.
        hands: each seat's hand, a sorted tuple of card numbers.
        shelves: each seat's shelves, oldest first; the last one is the active shelf.
        reserves: golden dust tokens in each seat's reserve (R8.1, R10).
        supply: tokens not yet taken (R3).
        turn: the number of the move awaited next (1 = the first turn); after the last move, the
            number of moves played plus one.
        phase: a :class:`Phase`: ``PLAY``, ``RED_TOKEN`` or ``FINISHED``.
        to_move: seat of the player whose move is awaited; None when finished.
        drawn: the card ``to_move`` drew as this turn began (R6 step 1), None if none.
        last_mover: seat of the player who took the last turn (R12 tie-break), None before any.
        end_reason: why the game ended (an :class:`EndReason`: ``DECK_EMPTY`` or
            ``TOKENS_EXHAUSTED``, R11); None while it goes on.
    """

    ruleset: Ruleset
    players: tuple[str, ...]
    order: tuple[int, ...]
    deck_pos: int
    hands: tuple[tuple[int, ...], ...]
    shelves: tuple[tuple[Shelf, ...], ...]
    reserves: tuple[int, ...]
    supply: Supply
    turn: int
    phase: Phase
    to_move: int | None
    drawn: int | None
    last_mover: int | None
    end_reason: EndReason | None

    @property
    def deck(self) -> tuple[int, ...]:
        """Cards still in the deck, top first (secret from every player)."""
        return self.order[self.deck_pos:]

    @property
    def deck_count(self) -> int:
        """How many cards are still in the deck (public: every view shows it)."""
        return len(self.order) - self.deck_pos

    @property
    def player_to_move(self) -> str | None:
        """Name of the player whose move is awaited; None when the game is finished."""
        return None if self.to_move is None else self.players[self.to_move]

    @property
    def finished(self) -> bool:
        """Whether the game is over (phase ``FINISHED``)."""
        return self.phase == FINISHED

    def seat(self, player: str) -> int:
        """Seat index of ``player``.

        Raises:
            ValueError: ``player`` is not in this game.
        """
        try:
            return self.players.index(player)
        except ValueError:
            raise ValueError(
                f"there is no player {player!r} in this game (players: {', '.join(self.players)})"
            ) from None

    def active_shelf(self, seat: int) -> Shelf:
        """The active shelf (the newest) of the player in ``seat``."""
        return self.shelves[seat][-1]


def setup(ruleset: Ruleset, players: Sequence[str],
          seed: str) -> tuple[State, tuple[ev.Event, ...]]:
    """Shuffle the deck from ``seed``, deal (R5), and begin turn 1 with its draw (R6 step 1).

    Args:
        ruleset: the game's parameters.
        players: 2-4 distinct player names in seat order; the first plays first.
        seed: any text; the same seed always deals the same cards (docs/shuffle.md).

    Returns:
        ``(state, events)``: the state awaiting turn 1, and the setup's events.

    Raises:
        ValueError: wrong number of players, a name given twice, or a deck too small to deal.
    """
    seats = tuple(players)
    if not MIN_PLAYERS <= len(seats) <= MAX_PLAYERS:
        raise ValueError(f"Rebis is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                         f"not {len(seats)}")
    if len(set(seats)) != len(seats):
        raise ValueError("each player must have a different name")
    needed = len(seats) * (1 + ruleset.hand_size) + 1
    if ruleset.card_count < needed:
        raise ValueError(
            f"a deck of {ruleset.card_count} cards cannot deal {len(seats)} players "
            f"1 + {ruleset.hand_size} cards each and a first draw; it needs at least {needed}"
        )
    return deal(ruleset, seats, shuffled(ruleset.cards, seed))


def deal(ruleset: Ruleset, seats: Sequence[str], order: Sequence[int]
         ) -> tuple[State, tuple[ev.Event, ...]]:
    """Deal from a deck already in ``order`` (top first) and begin turn 1 with its draw (R5, R6).

    :func:`setup` deals from the seed's shuffle; a test deals from an order it chose (e.g. to change
    only cards some player has not seen). ``order`` must hold at least one face-down card, a hand
    and the first draw per player (``setup`` checks this); it is not checked against the ruleset.

    Returns:
        ``(state, events)`` as :func:`setup`.
    """
    names, deck = tuple(seats), tuple(order)
    n = len(names)
    first_shelves = tuple((Shelf((ShelfCard(deck[i], 0, DEALT),)),) for i in range(n))
    pos = n
    hands: list[list[int]] = [[] for _ in names]
    for _ in range(ruleset.hand_size):
        for seat in range(n):
            hands[seat].append(deck[pos])
            pos += 1
    drawn = deck[pos]
    hands[0].append(drawn)
    pos += 1
    state = State(
        ruleset=ruleset,
        players=names,
        order=deck,
        deck_pos=pos,
        hands=tuple(tuple(sorted(h)) for h in hands),
        shelves=first_shelves,
        reserves=(0,) * n,
        supply=Supply(ruleset.golden_dust, ruleset.gold, ruleset.red),
        turn=1,
        phase=PLAY,
        to_move=0,
        drawn=drawn,
        last_mover=None,
        end_reason=None,
    )
    events: tuple[ev.Event, ...] = (
        ev.Dealt(names, ruleset.hand_size),
        ev.TurnBegan(1, names[0]),
        ev.Drew(names[0], drawn, ev.TURN_DRAW),
    )
    return state, events


def information_set(state: State, seat: int | None) -> State:
    """The state as the player in ``seat`` may know it (``seat`` None: a spectator).

    This is the one definition of a player's information set, shared by the views and the bots:
    their own hand and the card they drew this turn, every face-up card, the number of cards in
    each hand and in the deck, the face-down cards they placed themselves, the supply, reserves
    and tokens. Every other card keeps its place but its number becomes ``HIDDEN``: other hands,
    the whole deck order, the card another player drew, and face-down cards placed by others or
    dealt at setup (hidden from everyone, owner included, R5).

    The result is a valid :class:`State`: engine functions that depend only on what the mover
    knows give the same answers on it (``legal_moves``, ``check_move`` for the mover, scores,
    burdens), and ``apply_move`` plays on it, drawing ``HIDDEN`` cards; a look-ahead on it can
    learn nothing the viewer may not know.

    Args:
        state: the full state.
        seat: a seat index of this game, ``0 <= seat < len(state.players)``, or None.

    Raises:
        IndexError: ``seat`` is not a seat index of this game: too large, or negative (no seat
            counts from the end; ``DEALT``, which marks the cards nobody placed, is refused
            rather than shown the cards dealt face down at setup, R5), or not an ``int``.
    """
    if seat is not None and (type(seat) is not int or not 0 <= seat < len(state.players)):
        # Checked, not left to state.players[seat]: a negative index would name a seat from the
        # end, and DEALT (-1) would then be shown the face-down cards dealt at setup (R5).
        raise IndexError(f"seat {seat!r} is not a seat of this game (seats 0 to "
                         f"{len(state.players) - 1}, or None for a spectator)")
    shelves = tuple(tuple(_shelf_seen_by(shelf, seat) for shelf in row) for row in state.shelves)
    hands = tuple(hand if i == seat else (HIDDEN,) * len(hand)
                  for i, hand in enumerate(state.hands))
    drawn = state.drawn
    if drawn is not None and state.to_move != seat:
        drawn = HIDDEN
    return State(state.ruleset, state.players, (HIDDEN,) * len(state.order), state.deck_pos, hands,
                 shelves, state.reserves, state.supply, state.turn, state.phase, state.to_move,
                 drawn, state.last_mover, state.end_reason)


def _shelf_seen_by(shelf: Shelf, seat: int | None) -> Shelf:
    """``shelf`` with the face-down cards ``seat`` did not place turned ``HIDDEN`` (the same
    object when there is none, which is the common case of a shelf seen by its closer).
    ``seat`` is a real seat or None (a spectator), never ``DEALT``."""
    cards = shelf.cards
    if all(card.factor or (card.placed_by == seat and seat is not None) for card in cards):
        return shelf
    return shelf.with_face_down(tuple(
        card if card.factor or (card.placed_by == seat and seat is not None)
        else _hidden(card.placed_by) for card in cards))


_HIDDEN_CARDS: dict[int, ShelfCard] = {}


def _hidden(placed_by: int) -> ShelfCard:
    """The face-down card of unknown number placed by ``placed_by`` (one object per seat)."""
    card = _HIDDEN_CARDS.get(placed_by)
    if card is None:
        card = _HIDDEN_CARDS[placed_by] = ShelfCard(HIDDEN, 0, placed_by)
    return card
