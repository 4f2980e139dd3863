"""What happened: the engine's account of a move or of the setup, in order.

Events carry everything, hidden cards included (a ``Drew`` knows the card);
``rebis_pbm.present.views``
decides who may read what. Players are named, shelves numbered from 1 per player.

Events are immutable named tuples: several are made at every move, and a ``NamedTuple`` costs
half a frozen dataclass to create and a seventh to define (at every command's start). Tell them
apart by type (``isinstance``, ``match``), as the views do, not by comparing them to tuples.
:data:`Event` is the union of them all.
"""

from __future__ import annotations

from typing import Final, NamedTuple, TypeAlias

from rebis_pbm.engine.enums import DrawCause, EndReason, Sign, TokenKind

# Why a card was drawn (aliases of the DrawCause members).
TURN_DRAW: Final = DrawCause.TURN          # R6 step 1
NEGATIVE_DRAW: Final = DrawCause.NEGATIVE  # R8.2
CLOSED_DRAW: Final = DrawCause.CLOSED      # R8.1

# Why the game ended (aliases of the EndReason members).
DECK_EMPTY: Final = EndReason.DECK_EMPTY              # R11
TOKENS_EXHAUSTED: Final = EndReason.TOKENS_EXHAUSTED  # R11


class Dealt(NamedTuple):
    """Setup (R5): every player got one face-down card on shelf 1 and ``hand_size`` cards."""

    players: tuple[str, ...]
    hand_size: int


class TurnBegan(NamedTuple):
    """Turn number ``turn`` began; ``player`` is to move (R6)."""

    turn: int
    player: str


class Drew(NamedTuple):
    """``player`` drew ``card`` (None: the deck was empty, R9) because of ``cause``."""

    player: str
    card: int | None
    cause: DrawCause


class DustPlaced(NamedTuple):
    """R6 step 2: ``count`` golden dust tokens from the reserve onto the own active shelf."""

    player: str
    count: int  # type: ignore[assignment]  # the field shadows tuple.count; views read it
    shelf: int


class Played(NamedTuple):
    """Cards laid face up with ``sign`` on ``owner``'s shelf number ``shelf`` (R7, R8.2)."""

    player: str
    owner: str
    shelf: int
    cards: tuple[int, ...]
    sign: Sign


class Closed(NamedTuple):
    """R8.1: ``player`` closed ``owner``'s shelf ``shelf``; ``card`` went face down and started
    shelf ``new_shelf``. Only ``player`` may see ``card``."""

    player: str
    owner: str
    shelf: int
    card: int
    new_shelf: int


class TokenTaken(NamedTuple):
    """R8.1: the closer took ``kind`` from the supply (None: the supply had neither)."""

    player: str
    kind: TokenKind | None


class TokenPlaced(NamedTuple):
    """A gold (R8.1) or red (R12) token placed on ``owner``'s shelf number ``shelf``."""

    player: str
    kind: TokenKind
    owner: str
    shelf: int


class GameEnded(NamedTuple):
    """R11: the end-of-turn check ended the game (``reason``: deck_empty or tokens_exhausted)."""

    reason: EndReason


class RedTokenAwarded(NamedTuple):
    """R12: ``player`` has the highest burden and must place the red token (the last move)."""

    player: str


class GameFinished(NamedTuple):
    """The game is over; the score table (R13) is final."""


Event: TypeAlias = (Dealt | TurnBegan | Drew | DustPlaced | Played | Closed | TokenTaken
                   | TokenPlaced | GameEnded | RedTokenAwarded | GameFinished)
