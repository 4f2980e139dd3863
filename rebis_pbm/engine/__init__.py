"""The Rebis engine: pure functions over immutable data, no I/O.

Its values (shelf cards, shelves, moves, the supply, states, events, score rows) are
``typing.NamedTuple`` classes: a frozen dataclass costs about seven times as much to define, at
every command's start (docs/performance.md). ``_replace`` gives a changed copy. Being tuples, two
values of different types compare equal when their fields do: tell them apart by type
(``isinstance``, ``match``), never by comparing a value to a plain tuple. :class:`Ruleset` alone
is a frozen dataclass: it checks its parameters when made.

>>> from rebis_pbm.engine import Ruleset, setup, legal_moves, apply_move
>>> state, _ = setup(Ruleset(), ("alice", "bob"), "doc")
>>> state.turn, state.player_to_move, len(state.hands[0]), len(state.hands[1])
(1, 'alice', 6, 5)
>>> state, events = apply_move(state, legal_moves(state)[0])
>>> state.player_to_move, state.phase
('bob', <Phase.PLAY: 'play'>)
"""

from rebis_pbm.engine.cards import (
    DEALT,
    GOLD,
    GOLDEN_DUST,
    HIDDEN,
    NEGATIVE,
    POSITIVE,
    RED,
    SIGNS,
    TOKEN_KINDS,
    Shelf,
    ShelfCard,
)
from rebis_pbm.engine.enums import DrawCause, EndReason, Phase, Reason, Sign, TokenKind, Word
from rebis_pbm.engine.events import Event
from rebis_pbm.engine.moves import Move, Play, ShelfRef
from rebis_pbm.engine.rules import (
    REASONS,
    IllegalMove,
    LegalMoves,
    apply_move,
    check_move,
    legal_moves,
    replay,
    shelves_in_play,
)
from rebis_pbm.engine.ruleset import Ruleset
from rebis_pbm.engine.scoring import (
    Burden,
    PlayerScore,
    ShelfScore,
    burdens,
    red_token_holder,
    score_table,
    scores,
    winners,
)
from rebis_pbm.engine.shuffle import seat_order, shuffled
from rebis_pbm.engine.state import FINISHED, PLAY, RED_TOKEN, State, Supply, information_set, setup

__all__ = [
    "DEALT",
    "FINISHED",
    "GOLD",
    "GOLDEN_DUST",
    "HIDDEN",
    "NEGATIVE",
    "PLAY",
    "POSITIVE",
    "REASONS",
    "RED",
    "RED_TOKEN",
    "SIGNS",
    "TOKEN_KINDS",
    "Burden",
    "DrawCause",
    "EndReason",
    "Event",
    "IllegalMove",
    "LegalMoves",
    "Move",
    "Phase",
    "Play",
    "PlayerScore",
    "Reason",
    "Ruleset",
    "Shelf",
    "ShelfCard",
    "ShelfRef",
    "ShelfScore",
    "Sign",
    "State",
    "Supply",
    "TokenKind",
    "Word",
    "apply_move",
    "burdens",
    "check_move",
    "information_set",
    "legal_moves",
    "red_token_holder",
    "replay",
    "score_table",
    "scores",
    "seat_order",
    "setup",
    "shelves_in_play",
    "shuffled",
    "winners",
]
