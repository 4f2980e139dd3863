"""What happened: the engine's account of a move or of the setup, in order.

Events carry everything, hidden cards included (a ``Drew`` knows the card); ``rebis_pbm.views``
decides who may read what. Players are named, shelves numbered from 1 per player.
"""

from __future__ import annotations

from dataclasses import dataclass

# Why a card was drawn.
TURN_DRAW = "turn"          # R6 step 1
NEGATIVE_DRAW = "negative"  # R8.2
CLOSED_DRAW = "closed"      # R8.1

DECK_EMPTY = "deck_empty"            # R11
TOKENS_EXHAUSTED = "tokens_exhausted"  # R11


@dataclass(frozen=True, slots=True)
class Dealt:
    """Setup (R5): every player got one face-down card on shelf 1 and ``hand_size`` cards."""

    players: tuple[str, ...]
    hand_size: int


@dataclass(frozen=True, slots=True)
class TurnBegan:
    turn: int
    player: str


@dataclass(frozen=True, slots=True)
class Drew:
    """``player`` drew ``card`` (None: the deck was empty, R9) because of ``cause``."""

    player: str
    card: int | None
    cause: str


@dataclass(frozen=True, slots=True)
class DustPlaced:
    """R6 step 2: ``count`` golden dust tokens from the reserve onto the own active shelf."""

    player: str
    count: int
    shelf: int


@dataclass(frozen=True, slots=True)
class Played:
    """Cards laid face up with ``sign`` on ``owner``'s shelf number ``shelf`` (R7, R8.2)."""

    player: str
    owner: str
    shelf: int
    cards: tuple[int, ...]
    sign: str


@dataclass(frozen=True, slots=True)
class Closed:
    """R8.1: ``player`` closed ``owner``'s shelf ``shelf``; ``card`` went face down and started
    shelf ``new_shelf``. Only ``player`` may see ``card``."""

    player: str
    owner: str
    shelf: int
    card: int
    new_shelf: int


@dataclass(frozen=True, slots=True)
class TokenTaken:
    """R8.1: the closer took ``kind`` from the supply (None: the supply had neither)."""

    player: str
    kind: str | None


@dataclass(frozen=True, slots=True)
class TokenPlaced:
    """A gold (R8.1) or red (R12) token placed on ``owner``'s shelf number ``shelf``."""

    player: str
    kind: str
    owner: str
    shelf: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    """R11: the end-of-turn check ended the game (``reason``: deck_empty or tokens_exhausted)."""

    reason: str


@dataclass(frozen=True, slots=True)
class RedTokenAwarded:
    """R12: ``player`` has the highest burden and must place the red token (the last move)."""

    player: str


@dataclass(frozen=True, slots=True)
class GameFinished:
    """The game is over; the score table (R13) is final."""


Event = (Dealt | TurnBegan | Drew | DustPlaced | Played | Closed | TokenTaken | TokenPlaced
         | GameEnded | RedTokenAwarded | GameFinished)
