"""What a check of a record finds wrong: :class:`Problem`, its :class:`ProblemCode` and where
it is (:class:`At`); :mod:`rebis_pbm.record.verify` runs the checks and re-exports them."""

from __future__ import annotations

from typing import NamedTuple, TypedDict

from rebis_pbm.engine.enums import Word

__all__ = ["CODES", "At", "Problem", "ProblemCode"]


class ProblemCode(Word):
    """What is wrong with a record (``Problem.code``): stable words, in the order the checks
    run; a member equals its word (``code == "chain_digest"`` holds) and prints as it."""

    UNREADABLE = "unreadable"        #: the file is not a YAML mapping (cut short, damaged)
    SCHEMA = "schema"                #: not a valid record (field missing, wrong form)
    HEADER_DIGEST = "header_digest"  #: game id, ruleset, players or seed commitment edited
    SEED_MISMATCH = "seed_mismatch"  #: the seed revealed in the record is not the committed one
    WRONG_SEED = "wrong_seed"        #: the seed given from outside is not the committed one
    SETUP = "setup"                  #: the ruleset cannot deal this game
    AFTER_END = "after_end"          #: a move after the red token, the game's last move (R12)
    TURN_ORDER = "turn_order"        #: a move missing, repeated or out of order
    SEAT_ORDER = "seat_order"        #: a turn played by the wrong seat (R5, R6)
    JOIN = "join"                    #: a fair deal's join entry out of place (rebis-pbm/2)
    CHAIN_DIGEST = "chain_digest"    #: the entry, or one before it, edited
    SIGNATURE = "signature"          #: a keyed player's move lacks a valid signature
    STAND_IN = "stand_in"            #: the referee's move for a player belies its claim
    SEAL = "seal"                    #: a closing play's sealed card opens to no card (R8.1)
    ILLEGAL_MOVE = "illegal_move"    #: the move breaks the rules (R6-R12); seed revealed only
    STATE_DIGEST = "state_digest"    #: the move does not replay to the recorded state
    SEALING = "sealing"              #: a closing play shows its card, or a non-closing is sealed
    RECORD_DIGEST = "record_digest"  #: keys, addresses, settings or a chain rewritten (rebis-pbm/3)
    NOT_REVEALED = "not_revealed"    #: the game is over but the record does not reveal its seed
    STATUS = "status"                #: the status does not follow from the moves, or is malformed
    REFEREE = "referee"              #: not signed by the referee key verify was told to expect
    WITNESS = "witness"              #: a saved view saw a chain digest the record no longer holds


CODES: tuple[ProblemCode, ...] = tuple(ProblemCode)  # every code, in the order the checks run


class _Fields(NamedTuple):
    code: ProblemCode
    message: str
    turn: int | None = None
    player: str | None = None
    expected: str | None = None
    found: str | None = None


class Problem(_Fields):
    """The first thing wrong with a record.

    Attributes:
        code: a :class:`ProblemCode` (equal to its word: ``problem.code == "schema"``).
        message: what is wrong, in plain words (no hidden card: hands and the deck never appear).
        turn: the move the problem is at (its place in the record: move N is turn N), or None for
            the header; for the status, the last move.
        player: the player the entry there names (None for the header or the status).
        expected: what the record should hold there (recomputed from the game as it reads now, or
            given by the rules and the seat order; a keyed digest's value is not shown);
            found: what the file holds there (an edited value is the one shown here).

    Raises:
        ValueError: ``code`` is no :class:`ProblemCode` (a programming error).
    """

    __slots__ = ()

    def __new__(cls, code: str, message: str, turn: int | None = None,
                player: str | None = None, expected: str | None = None,
                found: str | None = None) -> Problem:
        return super().__new__(cls, ProblemCode(code), message, turn, player, expected, found)

    @property
    def where(self) -> str:
        """``turn 7 (alice)``, ``the status after turn 37`` or ``the record's header``."""
        if self.code in ("status", "not_revealed"):
            return "the status" + (f" after turn {self.turn}" if self.turn else "")
        if self.turn is None:
            return "the record's header"
        return f"turn {self.turn}" + (f" ({self.player})" if self.player else "")

    def sentence(self) -> str:
        """One sentence: where, what, expected and found."""
        text = f"{self.where}: {self.message}"
        if self.expected is not None or self.found is not None:
            text += f" (expected {self.expected}; found {self.found})"
        return text

    def as_dict(self) -> dict[str, str | int | None]:
        return {"code": self.code, "turn": self.turn, "player": self.player,
                "message": self.message, "expected": self.expected, "found": self.found}



class At(TypedDict):
    """Where a move's problem is: its turn and the player its entry names."""

    turn: int
    player: str
