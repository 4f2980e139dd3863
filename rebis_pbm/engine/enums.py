"""The engine's closed sets of words: phases, signs, token kinds, draw causes, end reasons and the
reasons a move is refused.

Each is a ``str``-valued enum (``class X(str, enum.Enum)``; ``enum.StrEnum`` needs Python 3.11):
a member *is* its word, so that records, views, JSON and the digests hold exactly the text they
held when these were plain strings. A member compares and hashes equal to its word
(``Phase.PLAY == "play"``, ``{"play": 1}[Phase.PLAY]``), and ``str()`` and ``format()`` give the
word, not ``Phase.PLAY``:

>>> Phase.PLAY == "play", str(Sign.NEGATIVE), f"{TokenKind.GOLDEN_DUST}", Reason("stale_turn")
(True, 'negative', 'golden_dust', <Reason.STALE_TURN: 'stale_turn'>)

A word that is no member raises ``ValueError`` (``Sign("minus")``). The other engine modules
keep module-level aliases of the members (``PLAY``, ``POSITIVE``, ``GOLD``, ...): the hot paths
read a global rather than an enum attribute, and older code keeps working.
"""

from __future__ import annotations

import enum


class Word(str, enum.Enum):
    """Base of the engine's enums: a member is a ``str`` equal to its value, and prints as it."""

    # What enum.StrEnum (3.11+) does: the word itself for str() and format(); the enum's repr.
    __str__ = str.__str__

    def __format__(self, format_spec: str) -> str:
        return str.__format__(self, format_spec)


class Phase(Word):
    """What the game awaits (``State.phase``)."""

    PLAY = "play"            #: a turn is under way: the player to move plays (R6)
    RED_TOKEN = "red_token"  #: the game has ended; the highest burden places the red token (R12)
    FINISHED = "finished"    #: nothing more to play; the score is final (R13)


class Sign(Word):
    """The sign a move gives a face-up card (``Play.sign``, ``Played.sign``; R7, R8)."""

    POSITIVE = "positive"
    NEGATIVE = "negative"


class TokenKind(Word):
    """The three kinds of mixing token (R3): on shelves (``Shelf.tokens``) and in events."""

    GOLDEN_DUST = "golden_dust"
    GOLD = "gold"
    RED = "red"


class DrawCause(Word):
    """Why a card was drawn (``Drew.cause``)."""

    TURN = "turn"          #: R6 step 1, as a turn begins
    NEGATIVE = "negative"  #: R8.2, for playing a - card on another player's shelf
    CLOSED = "closed"      #: R8.1, the owner of a shelf just closed


class EndReason(Word):
    """Why the end-of-turn check ended the game (R11; ``State.end_reason``, ``GameEnded``)."""

    DECK_EMPTY = "deck_empty"
    TOKENS_EXHAUSTED = "tokens_exhausted"


class Reason(Word):
    """Why :func:`~rebis_pbm.engine.rules.check_move` refuses a move (``IllegalMove.code``).

    The values are stable identifiers that tests and tools may match on; the ruling each one
    enforces is in the message that goes with it.
    """

    GAME_OVER = "game_over"
    UNKNOWN_PLAYER = "unknown_player"
    STALE_TURN = "stale_turn"
    FUTURE_TURN = "future_turn"
    NOT_YOUR_TURN = "not_your_turn"
    RED_TOKEN_EXPECTED = "red_token_expected"        # R12
    RED_TOKEN_TOO_EARLY = "red_token_too_early"      # R12
    PLAY_MISSING = "play_missing"                    # R6
    GOLDEN_DUST_RESERVE = "golden_dust_reserve"      # R6 step 2
    CARD_NOT_IN_HAND = "card_not_in_hand"
    NO_SUCH_CARD = "no_such_card"                    # R1, R2
    CARD_COUNT = "card_count"                        # R7, R8
    PAIR_NOT_EQUAL = "pair_not_equal"                # R7
    PAIR_ON_OTHER_SHELF = "pair_on_other_shelf"      # R8
    NEGATIVE_ON_OWN_SHELF = "negative_on_own_shelf"  # R7
    OVER_SHELF_LIMIT = "over_shelf_limit"            # R7
    VALUE_BELOW_ZERO = "value_below_zero"            # R8.2
    ZERO_NEGATIVE = "zero_negative"                  # R8.3
    GOLD_TOKEN_MISSING = "gold_token_missing"        # R8.1
    GOLD_TOKEN_NOT_ALLOWED = "gold_token_not_allowed"  # R8.1
    NO_SUCH_SHELF = "no_such_shelf"
    BAD_SIGN = "bad_sign"


__all__ = ["DrawCause", "EndReason", "Phase", "Reason", "Sign", "TokenKind", "Word"]
