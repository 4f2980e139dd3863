"""The ruleset: every number the rulings make a parameter (R1-R4), each declared once.

A game is played under one resolved ruleset, written in full into its record, so that a game started
with other numbers replays with them. Each parameter is one :class:`Parameter` in
:data:`PARAMETERS` (name, default, bounds, rulings, help, the view's words, whether ``new --rule``
sets it): :class:`Ruleset` checks its fields by them, the command line's help and the record
schema's test read them (docs/architecture.md, "A new ruleset parameter").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

V = TypeVar("V", int, bool, str)


class Parameter(Generic[V]):
    """One parameter of the ruleset, declared once: the ruleset's check, ``new --rule``'s help
    and its check, the record schema's test and the view's words all read it (docs/architecture.md,
    "A new ruleset parameter"). A plain class: a dataclass or named tuple costs more to define at
    every command's start.

    Attributes:
        name: the field of :class:`Ruleset` and of the record's ``ruleset`` (and ``--rule NAME``).
        default: the rulings' value.
        rulings: the rulings that make it a parameter, e.g. ``"R3"``.
        help: what it is, one phrase in English (``new --rule``'s help).
        view: its words in a view's ruleset line (English), ``{value}`` its value; a flag's words
            are shown when it is true.
        low, high: a whole number's bounds, inclusive (not for a flag or a choice).
        choices: the words it may be (a choice), else ``()``.
        settable: whether ``new --rule NAME=VALUE`` sets it (a flag has its own option).

    >>> PARAMETER["red"].allowed, PARAMETER["multiplier"].allowed, PARAMETER["zero"].allowed
    ('0 or 1', 'additive or doubling', 'true or false')
    """

    __slots__ = ("choices", "default", "help", "high", "low", "name", "rulings", "settable",
                 "view")

    def __init__(self, name: str, default: V, rulings: str, help: str, view: str, *,
                 low: int = 0, high: int = 99, choices: tuple[str, ...] = (),
                 settable: bool = True) -> None:
        self.name = name
        self.default: V = default
        self.rulings = rulings
        self.help = help
        self.view = view
        self.low = low
        self.high = high
        self.choices = choices
        self.settable = settable

    def __repr__(self) -> str:
        return f"Parameter({self.name!r}, {self.default!r})"

    @property
    def allowed(self) -> str:
        """The values it may take, in words: ``0-99``, ``0 or 1``, ``additive or doubling``."""
        if self.choices:
            return " or ".join(self.choices)
        if isinstance(self.default, bool):
            return "true or false"
        return f"{self.low} or {self.high}" if self.high == self.low + 1 else \
            f"{self.low}-{self.high}"

    def check(self, value: object) -> None:
        """Raise ValueError, a sentence naming the field, unless ``value`` is one it may take:
        the same type as the default (a whole number within bounds, a bool, a choice)."""
        if self.choices:
            if value not in self.choices:
                raise ValueError(f"ruleset field '{self.name}' must be "
                                 + " or ".join(f"'{c}'" for c in self.choices))
        elif isinstance(self.default, bool):
            if type(value) is not bool:
                raise ValueError(f"ruleset field '{self.name}' must be true or false")
        elif type(value) is not int or not self.low <= value <= self.high:
            raise ValueError(f"ruleset field '{self.name}' must be a whole number from "
                             f"{self.low} to {self.high}")


ZERO_CARDS = 9  # R2: the Rebis: Zero option adds nine cards numbered 0.
DEFAULT_DECK: tuple[tuple[int, int], ...] = tuple((number, 9) for number in range(1, 10))  # R1
DECK_LIMIT = 99  # the deck (a table, not a Parameter): card numbers and counts 0-99

# The parameters after the deck, in the record's order. A new one: docs/architecture.md.
ZERO = Parameter("zero", False, "R2", f"the Rebis: Zero option, {ZERO_CARDS} more cards "
                 "numbered 0", f"{ZERO_CARDS} x 0 (Rebis: Zero)", settable=False)
GOLDEN_DUST = Parameter("golden_dust", 9, "R3", "golden dust tokens in the supply at setup",
                        "{value} golden dust")
GOLD = Parameter("gold", 3, "R3", "gold tokens in the supply at setup", "{value} gold")
RED = Parameter("red", 1, "R3", "red tokens in the supply at setup", "{value} red", high=1)
SHELF_LIMIT = Parameter("shelf_limit", 13, "R4, R7, R8.1", "the most an active shelf may weigh",
                        "shelf limit {value}", low=1, high=999)
HAND_SIZE = Parameter("hand_size", 5, "R4, R5", "cards dealt to each hand at setup",
                      "hand {value}")
MULTIPLIER = Parameter("multiplier", "additive", "R4, R13", "what a shelf's tokens multiply its "
                       "value by: additive x(1 + tokens), doubling x2 per token",
                       "multiplier {value}", choices=("additive", "doubling"))

PARAMETERS: tuple[Parameter[bool] | Parameter[int] | Parameter[str], ...] = (
    ZERO, GOLDEN_DUST, GOLD, RED, SHELF_LIMIT, HAND_SIZE, MULTIPLIER)
PARAMETER = {p.name: p for p in PARAMETERS}
SETTABLE = tuple(p.name for p in PARAMETERS if p.settable)  # what `new --rule NAME=VALUE` sets
MULTIPLIERS = MULTIPLIER.choices


@dataclass(frozen=True)
class Ruleset:
    """The parameters of one game (R1-R4): the deck, then one field per :data:`PARAMETERS`
    (declared there: default, bounds, rulings, meaning).

    Attributes:
        deck: ``(number, count)`` pairs sorted by number, the Library deck before the Zero option
            (R1; default nine cards of each number 1-9; numbers and counts 0-99).
        zero, golden_dust, gold, red, shelf_limit, hand_size, multiplier: as :data:`PARAMETERS`
            says.

    Raises:
        ValueError: on a parameter outside its range, with a sentence naming it.

    >>> Ruleset().card_count
    81
    >>> Ruleset(zero=True).card_count
    90
    """

    deck: tuple[tuple[int, int], ...] = DEFAULT_DECK
    zero: bool = ZERO.default
    golden_dust: int = GOLDEN_DUST.default
    gold: int = GOLD.default
    red: int = RED.default
    shelf_limit: int = SHELF_LIMIT.default
    hand_size: int = HAND_SIZE.default
    multiplier: str = MULTIPLIER.default
    _cards: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        deck = tuple(sorted((int(n), int(c)) for n, c in dict(self.deck).items()))
        if len(deck) != len(self.deck):
            raise ValueError("ruleset field 'deck' names a card number twice")
        for number, count in deck:
            if not 0 <= number <= DECK_LIMIT or not 0 <= count <= DECK_LIMIT:
                raise ValueError(
                    f"ruleset field 'deck': card {number} x{count} is out of range "
                    f"(numbers 0-{DECK_LIMIT}, counts 0-{DECK_LIMIT})"
                )
        object.__setattr__(self, "deck", deck)
        for parameter in PARAMETERS:
            parameter.check(getattr(self, parameter.name))
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
        return {"deck": {str(number): count for number, count in self.deck},
                **{p.name: getattr(self, p.name) for p in PARAMETERS}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ruleset:
        """Inverse of :meth:`as_dict`; missing fields take the rulings' defaults.

        Args:
            data: a mapping of field names to values, as read from a record (not yet checked).

        Raises:
            ValueError: on an unknown field or a value out of range.
        """
        unknown = sorted(set(data) - {"deck", *PARAMETER})
        if unknown:
            raise ValueError(f"ruleset has unknown field '{unknown[0]}'")
        kwargs = dict(data)
        if "deck" in kwargs:
            try:
                kwargs["deck"] = tuple((int(k), v) for k, v in kwargs["deck"].items())
            except (TypeError, ValueError, AttributeError):
                raise ValueError("ruleset field 'deck' must map card numbers to counts") from None
        return cls(**kwargs)
