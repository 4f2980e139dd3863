"""The Rebis engine: pure functions over immutable data, no I/O.

>>> from rebis_pbm.engine import Ruleset, setup, legal_moves, apply_move
>>> state, _ = setup(Ruleset(), ("alice", "bob"), "doc")
>>> state.turn, state.player_to_move, len(state.hands[0]), len(state.hands[1])
(1, 'alice', 6, 5)
>>> state, events = apply_move(state, legal_moves(state)[0])
>>> state.player_to_move
'bob'
"""

from .cards import (DEALT, GOLD, GOLDEN_DUST, HIDDEN, NEGATIVE, POSITIVE, RED, SIGNS, TOKEN_KINDS,
                    Shelf, ShelfCard)
from .moves import Move, Play, ShelfRef
from .rules import (IllegalMove, LegalMoves, REASONS, apply_move, check_move, legal_moves, replay,
                    shelves_in_play)
from .ruleset import Ruleset
from .scoring import (Burden, PlayerScore, ShelfScore, burdens, red_token_holder, score_table, scores,
                      winners)
from .shuffle import seat_order, shuffled
from .state import FINISHED, PLAY, RED_TOKEN, State, Supply, information_set, setup

__all__ = [
    "DEALT", "GOLD", "GOLDEN_DUST", "HIDDEN", "NEGATIVE", "POSITIVE", "RED", "SIGNS", "TOKEN_KINDS",
    "Shelf", "ShelfCard", "Move", "Play", "ShelfRef", "IllegalMove", "LegalMoves", "REASONS",
    "apply_move", "check_move", "legal_moves", "replay", "shelves_in_play", "Ruleset", "Burden",
    "PlayerScore", "ShelfScore", "burdens", "red_token_holder", "score_table", "scores", "winners",
    "seat_order", "shuffled", "FINISHED", "PLAY", "RED_TOKEN", "State", "Supply", "information_set",
    "setup",
]
