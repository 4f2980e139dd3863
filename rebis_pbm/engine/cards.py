"""Cards on shelves, shelves and token kinds (R1, R4, R7, R8).

A card is its number (an ``int``): in the deck and in a hand nothing else distinguishes two cards.
On a shelf a card also has a face (up or down), a sign, and the seat of the player who placed it
(which decides who may see it when it is face down).

Two sentinels, of different kinds and values, so that neither can pass for the other:

* ``DEALT`` (-1) is a *seat*: the ``placed_by`` of the card dealt face down at setup, which
  nobody placed (R5). It is no seat index: ``information_set(state, DEALT)`` raises IndexError.
* ``HIDDEN`` (-2) is a *card number*: the number of a card its viewer may not know (see
  ``information_set``). No deck holds it (card numbers are 0-99, R1).

>>> DEALT != HIDDEN
True
"""

from __future__ import annotations

from typing import Final, NamedTuple

from rebis_pbm.engine.enums import Sign, TokenKind

# Aliases of the members (module globals: the hot paths read them faster than enum attributes).
POSITIVE: Final = Sign.POSITIVE
NEGATIVE: Final = Sign.NEGATIVE
SIGNS: Final = (POSITIVE, NEGATIVE)

GOLDEN_DUST: Final = TokenKind.GOLDEN_DUST
GOLD: Final = TokenKind.GOLD
RED: Final = TokenKind.RED
TOKEN_KINDS: Final = (GOLDEN_DUST, GOLD, RED)

DEALT: Final = -1   # a seat: ``placed_by`` of the face-down card dealt at setup (R5)
HIDDEN: Final = -2  # a card number: a card its viewer may not know; no deck holds it


class ShelfCard(NamedTuple):
    """A card on a shelf.

    Attributes:
        number: the card's number (its book weight and book value, R1); ``HIDDEN`` in an
            information set for a face-down card its viewer may not know.
        factor: what the number counts for in the shelf's value: ``+1`` face up positive,
            ``-1`` face up negative (R8.2), ``0`` face down (R5, R8.1). (A play's ``sign`` is
            the word, ``positive`` or ``negative``; the state digest calls this field ``sign``.)
        placed_by: seat index of the player who placed it, or ``DEALT`` for the card dealt face
            down at setup (R5).
    """

    number: int
    factor: int
    placed_by: int

    @property
    def face_up(self) -> bool:
        return self.factor != 0

    @property
    def weight(self) -> int:
        """Face-up cards weigh their number, face-down cards 0."""
        return self.number if self.factor else 0

    @property
    def value(self) -> int:
        """Face-up cards are worth their signed number, face-down cards 0."""
        return self.number * self.factor


class _ShelfFields(NamedTuple):
    """A shelf's fields; :class:`Shelf` computes the last two from the cards when made."""

    cards: tuple[ShelfCard, ...]
    tokens: tuple[TokenKind, ...]
    weight: int
    value: int


class Shelf(_ShelfFields):
    """One shelf: its cards (bottom first) and the tokens on it (kinds, in order placed).

    ``weight`` (sum of the numbers of the face-up cards, R7/R8) and ``value`` (sum of their
    signed numbers) are computed once, when the shelf is built: legality checks read them for
    every candidate card, and a shelf never changes (a play builds a new one).

    >>> s = Shelf((ShelfCard(5, 0, DEALT), ShelfCard(7, 1, 0), ShelfCard(3, -1, 1)), (GOLD,))
    >>> s.weight, s.value
    (10, 4)
    """

    __slots__ = ()

    def __new__(cls, cards: tuple[ShelfCard, ...] = (),
                tokens: tuple[TokenKind, ...] = ()) -> Shelf:
        weight = value = 0
        for card in cards:
            if card.factor:
                weight += card.number
                value += card.number * card.factor
        return _known(cards, tokens, weight, value)

    def __getnewargs__(self) -> tuple[tuple[ShelfCard, ...], tuple[TokenKind, ...]]:
        # copy and pickle rebuild a shelf from its cards and tokens (weight and value follow).
        return self.cards, self.tokens

    def __repr__(self) -> str:
        return f"Shelf(cards={self.cards!r}, tokens={self.tokens!r})"

    def with_card(self, card: ShelfCard) -> Shelf:
        """This shelf with ``card`` on top (a new shelf)."""
        # The hottest path of a game: add the card's weight and value instead of summing again.
        return _known(self.cards + (card,), self.tokens,
                      self.weight + (card.number if card.factor else 0),
                      self.value + card.number * card.factor)

    def with_face_down(self, cards: tuple[ShelfCard, ...]) -> Shelf:
        """This shelf with ``cards`` in place of its cards, which differ from them only in the
        numbers of face-down cards (weight and value stay: face-down cards count for nothing)."""
        return _known(cards, self.tokens, self.weight, self.value)

    def with_tokens(self, *kinds: TokenKind) -> Shelf:
        """This shelf with ``kinds`` added to its tokens, in order (a new shelf)."""
        return _known(self.cards, self.tokens + kinds, self.weight, self.value)


def _known(cards: tuple[ShelfCard, ...], tokens: tuple[TokenKind, ...], weight: int,
           value: int) -> Shelf:
    """A shelf whose weight and value the caller already knows (they must be its cards' own)."""
    return tuple.__new__(Shelf, (cards, tokens, weight, value))
