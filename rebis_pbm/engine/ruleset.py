"""The ruleset: every number the rulings make a parameter (R1-R4), with the rulings' defaults.

A game is played under one resolved ruleset, written in full into its record, so that a game started
with other numbers replays with them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

MULTIPLIERS = ("additive", "doubling")
ZERO_CARDS = 9  # R2: the Rebis: Zero option adds nine cards numbered 0.
DEFAULT_DECK: tuple[tuple[int, int], ...] = tuple((number, 9) for number in range(1, 10))  # R1


@dataclass(frozen=True)
class Ruleset:
    """The parameters of one game (R1-R4).

    Attributes:
        deck: ``(number, count)`` pairs sorted by number, the Library deck before the Zero option
            (R1; default nine cards of each number 1-9).
        zero: the Rebis: Zero option, nine more cards numbered 0 (R2).
        golden_dust, gold, red: mixing tokens in the supply at setup (R3).
        shelf_limit: the most an active shelf may weigh (R4, R7, R8.1).
        hand_size: cards dealt to each hand at setup (R4, R5).
        multiplier: ``"additive"`` (x(1 + tokens)) or ``"doubling"`` (x2 per token) (R4, R13).

    Raises:
        ValueError: on a parameter outside its range, with a sentence naming it.

    >>> Ruleset().card_count
    81
    >>> Ruleset(zero=True).card_count
    90
    """

    deck: tuple[tuple[int, int], ...] = DEFAULT_DECK
    zero: bool = False
    golden_dust: int = 9
    gold: int = 3
    red: int = 1
    shelf_limit: int = 13
    hand_size: int = 5
    multiplier: str = "additive"
    _cards: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        deck = tuple(sorted((int(n), int(c)) for n, c in dict(self.deck).items()))
        if len(deck) != len(self.deck):
            raise ValueError("ruleset field 'deck' names a card number twice")
        for number, count in deck:
            if not 0 <= number <= 99 or not 0 <= count <= 99:
                raise ValueError(
                    f"ruleset field 'deck': card {number} x{count} is out of range "
                    "(numbers 0-99, counts 0-99)"
                )
        object.__setattr__(self, "deck", deck)
        for name, low, high in (
            ("golden_dust", 0, 99), ("gold", 0, 99), ("red", 0, 1),
            ("shelf_limit", 1, 999), ("hand_size", 0, 99),
        ):
            value = getattr(self, name)
            if type(value) is not int or not low <= value <= high:
                raise ValueError(f"ruleset field '{name}' must be a whole number from {low} to "
                                 f"{high}")
        if type(self.zero) is not bool:
            raise ValueError("ruleset field 'zero' must be true or false")
        if self.multiplier not in MULTIPLIERS:
            raise ValueError("ruleset field 'multiplier' must be 'additive' or 'doubling'")
        cards: list[int] = []
        counts = dict(deck)
        if self.zero:
            counts[0] = counts.get(0, 0) + ZERO_CARDS
        for number in sorted(counts):
            cards.extend([number] * counts[number])
        object.__setattr__(self, "_cards", tuple(cards))

    @property
    def cards(self) -> tuple[int, ...]:
        """Every card of the game's deck (Zero option included), sorted by number: the order the
        shuffle starts from (docs/shuffle.md)."""
        return self._cards

    @property
    def card_count(self) -> int:
        """How many cards the game has, Zero option included (R1, R2): the deck before the
        deal. (``State.deck_count`` is how many are left to draw.)"""
        return len(self._cards)

    def token_multiplier(self, tokens: int) -> int:
        """How much a shelf carrying ``tokens`` tokens multiplies its value by (R4).

        >>> Ruleset().token_multiplier(2), Ruleset(multiplier="doubling").token_multiplier(2)
        (3, 4)
        """
        return 1 + tokens if self.multiplier == "additive" else 2 ** tokens

    def as_dict(self) -> dict[str, object]:
        """The resolved ruleset as the record stores it: every field above, in that order, with
        ``deck`` as a mapping of number to count whose keys are strings (JSON has no integer
        keys)."""
        return {
            "deck": {str(number): count for number, count in self.deck},
            "zero": self.zero,
            "golden_dust": self.golden_dust,
            "gold": self.gold,
            "red": self.red,
            "shelf_limit": self.shelf_limit,
            "hand_size": self.hand_size,
            "multiplier": self.multiplier,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ruleset:
        """Inverse of :meth:`as_dict`; missing fields take the rulings' defaults.

        Args:
            data: a mapping of field names to values, as read from a record (not yet checked).

        Raises:
            ValueError: on an unknown field or a value out of range.
        """
        known = {"deck", "zero", "golden_dust", "gold", "red", "shelf_limit", "hand_size",
                 "multiplier"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"ruleset has unknown field '{unknown[0]}'")
        kwargs = dict(data)
        if "deck" in kwargs:
            try:
                kwargs["deck"] = tuple((int(k), v) for k, v in kwargs["deck"].items())
            except (TypeError, ValueError, AttributeError):
                raise ValueError("ruleset field 'deck' must map card numbers to counts") from None
        return cls(**kwargs)
